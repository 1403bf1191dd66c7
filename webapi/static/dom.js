// @ts-check
// Small DOM helpers: build elements without innerHTML, so no server text is ever parsed as markup.

/**
 * An element with its attributes (`on…`: a listener; `dataset`: data-*; true: present; null,
 * undefined or false: left out) and its children (nodes, or text; lists flattened).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

/**
 * @template {Element} E
 * @param {E} el
 * @param {any[]} children
 * @returns {E}
 */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/**
 * @template {Element} E
 * @param {E} el
 * @param {...any} children
 * @returns {E}
 */
export function clear(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * An SVG element, as h() makes an HTML one.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} children
 * @returns {SVGElement}
 */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

// A short, readable rendering of any JSON value (for patches, details and answers).
/**
 * @param {unknown} value
 * @param {number} [max] the most characters shown, "…" included
 * @returns {string}
 */
export function brief(value, max = 120) {
  const text =
    typeof value === "string"
      ? value
      : JSON.stringify(value, (_k, v) => (v && v.raw !== undefined ? Number(v.raw) : v));
  if (text === undefined) return "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
