// @ts-check
// Values picked from the campaign state: a field of GET /commands may say where its value comes
// from (`picks`: a JSON pointer into the state, the member sent, the member shown, a filter), so
// the page offers the hero's items, the shop's stock or the match's pieces instead of an empty box.

/**
 * A field's `picks` (GET /commands): where its values come from in the state.
 * @typedef {object} PickHint
 * @property {string} source a JSON pointer; `{field}` is the form's value of that field, `*` every member
 * @property {string} [value] the member sent (a dotted path, or "@key"); else the entry's id, or its key
 * @property {string} [label] the member shown
 * @property {Record<string, unknown>} [where] the members an entry must have
 * @property {boolean} [free] a value typed by hand is allowed too
 */

// A member of an entry by a dotted path ("item.name"); "@key" is the entry's key.
/**
 * @param {any} entry
 * @param {string | number} key
 * @param {string} path
 * @returns {unknown}
 */
function member(entry, key, path) {
  if (path === "@key") return key;
  let value = entry;
  for (const part of path.split(".")) value = value && typeof value === "object" ? value[part] : undefined;
  return value;
}

// Every node the pointer reaches: `{name}` is the value of the form's field `name`, `*` every member.
/**
 * @param {any} state
 * @param {string} source
 * @param {(name: string) => any} valueOf
 * @returns {any[]}
 */
function reach(state, source, valueOf) {
  let nodes = [state];
  for (const raw of source.split("/").slice(1)) {
    let part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    const named = /^\{(.+)\}$/.exec(part);
    if (named) {
      part = valueOf(named[1]);
      if (part === undefined || part === null || part === "") return [];
    }
    nodes = nodes.flatMap((node) => {
      if (!node || typeof node !== "object") return [];
      if (part === "*") return Object.values(node);
      return node[part] === undefined ? [] : [node[part]];
    });
  }
  return nodes;
}

// The entries a field may take now: [{value, label}], each value once, in the state's order.
/**
 * @param {Record<string, any> | null | undefined} state
 * @param {PickHint} hint
 * @param {(name: string) => any} [valueOf] the form's value of a field
 * @returns {{value: any, label: string}[]}
 */
export function pickEntries(state, hint, valueOf = () => undefined) {
  const seen = new Set();
  const out = [];
  for (const node of reach(state || {}, hint.source, valueOf)) {
    if (!node || typeof node !== "object") continue;
    const pairs = Array.isArray(node) ? node.map((e, i) => [i, e]) : Object.entries(node);
    for (const [key, entry] of pairs) {
      if (hint.where && !Object.entries(hint.where).every(([m, v]) => member(entry, key, m) === v)) continue;
      let value;
      if (hint.value) value = member(entry, key, hint.value);
      else if (entry && typeof entry === "object") value = entry.id ?? key;
      else value = entry;
      if (value === undefined || value === null || seen.has(String(value))) continue;
      seen.add(String(value));
      const shown = hint.label ? member(entry, key, hint.label) : undefined;
      // by its name only ("Lucky Break", not "Lucky Break (lucky-break)"); the id without a name
      const label = shown !== undefined && shown !== null && shown !== "" ? String(shown) : String(value);
      out.push({ value, label });
    }
  }
  // two entries of one name are told apart by their ids
  const names = out.map((e) => e.label);
  return out.map((e) =>
    names.indexOf(e.label) !== names.lastIndexOf(e.label) ? { ...e, label: `${e.label} (${e.value})` } : e,
  );
}
