// @ts-check
// The words and the values of the command forms' fields (controls.js, play.js), without the DOM:
// a field's label and help as sentences, and the whole numbers, lists and faces typed by hand,
// each refused in the words typed.
import { Num, parse } from "./canon.js";

/** @type {(name: unknown) => string} a code word in words: `level_up` is "level up" */
export const words = (name) => String(name).replaceAll("_", " ");
// A label as a sentence: its first letter a capital, "level up day" as "Level-up day".
export const sentence = (text) => {
  const said = String(text).replace(/\blevel up\b(?= \w)/g, "level-up");
  return said.charAt(0).toUpperCase() + said.slice(1);
};
// Choices said otherwise than their code word (a stat's name as the rulebook writes it).
export const CHOICE_WORDS = { hp_max: "Maximum HP", def: "DEF", atk: "ATK", damage_mod: "Damage bonus" };

// A date's format in words ("YYYY-MM-DD or MM-DD"): the date picker asks no format of anyone.
const DATE_FORMAT = /[,:;]?\s*\(?(?:YYYY-MM-DD|MM-DD)(?:\s+or\s+(?:YYYY-MM-DD|MM-DD))?\)?/g;

/**
 * @param {Record<string, any>} field a field of GET /commands
 * @param {{date?: boolean}} [how] `date`: picked in a date picker (its format is not asked)
 * @returns {string} the help, its parts joined by " · "
 */
export function describe(field, { date = false } = {}) {
  const bits = [];
  // Help in words: the catalogue's `code` marks and its defaults ("left out: false") are noise.
  let text = (field.description || "").replace(/`([^`]*)`/g, (_, name) => words(name));
  // a picked value is chosen from a list, not typed as an id: "The id of the ability" is "Which ability"
  // ("The id of the player who acts" is "Which player acts", not "Which player who acts")
  if (field.picks)
    text = text.replace(/^the id of (?:the |an? )?/i, "Which ").replace(/^(Which \S+) who /, "$1 ");
  if (date)
    text =
      `${text.replace(DATE_FORMAT, "").replace(/[.\s]+$/, "") || words(field.name)}` +
      `: pick the day in the date picker`;
  if (text) bits.push(text);
  if (field.minimum !== undefined || field.maximum !== undefined)
    bits.push(`range ${field.minimum ?? "…"}–${field.maximum ?? "…"}`);
  if (field.required_when)
    bits.push(
      `needed when ${Object.entries(field.required_when)
        .map(([k, v]) => `${words(k)} is ${v === true ? "yes" : v === false ? "no" : words(v)}`)
        .join(" and ")}`,
    );
  return bits.join(" · ");
}

export const isObject = (field) => field.type === "object" && Array.isArray(field.fields);
export const isRows = (field) => field.type === "array" && (Array.isArray(field.items?.fields) || field.items?.picks);
export const numeric = (text) => /^-?\d+$/.test(text);

// A whole number as typed, refused in the words typed: "99999999999999999999999999" is not
// sent as 1e+26 (which is all JavaScript can make of it) for the server to refuse as that.
/**
 * @param {unknown} text
 * @param {string} [name] the field, named in the refusal
 * @returns {number}
 */
export function wholeNumber(text, name = "") {
  const typed = String(text).trim();
  const said = `${name ? `${name}: ` : ""}“${typed}” is not a whole number`;
  if (!/^[-+]?\d+$/.test(typed)) throw new Error(said);
  const value = Number(typed);
  if (!Number.isSafeInteger(value)) throw new Error(`${said} that fits (the most is ${Number.MAX_SAFE_INTEGER})`);
  return value;
}

// A JSON value with every whole number in it one that fits (canon.js keeps the text of any
// other number): the same refusal as wholeNumber's, in the words typed.
/**
 * @param {unknown} value
 * @param {string} name
 * @returns {any} the value
 */
function fitting(value, name) {
  if (value instanceof Num) {
    if (/^-?\d+$/.test(value.raw)) wholeNumber(value.raw, name);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => fitting(v, name));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fitting(v, name)]));
  return value;
}

// Parse a free-text list: JSON when it starts with '[', else values separated by commas.
/**
 * @param {string} text
 * @param {string} [itemType] "string": every item stays text
 * @param {string} [name]
 * @returns {unknown[] | undefined} undefined when nothing is typed
 */
export function listValue(text, itemType, name = "") {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (trimmed.startsWith("[")) return fitting(parse(trimmed), name);
  return trimmed.split(",").map((part) => {
    const value = part.trim();
    if (value.startsWith("{")) return fitting(parse(value), name);
    return itemType === "string" || !numeric(value) ? value : wholeNumber(value, name);
  });
}

// Faces rolled by hand: whole numbers separated by commas, or a JSON list (where a d100 may be
// {"tens": 60, "units": 5}); each refused in the words typed.
/**
 * @param {string} text
 * @param {string} [name]
 * @returns {unknown[] | undefined}
 */
export function facesValue(text, name = "faces") {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (trimmed.startsWith("[")) return fitting(parse(trimmed), name);
  return trimmed.split(",").map((part) => wholeNumber(part, name));
}

// Faces that fit the command's dice, for a placeholder: a d6's "4", never an "11".
/**
 * @param {string | null | undefined} dice the catalogue's dice in words
 * @returns {string}
 */
export function facesExample(dice) {
  const sides = [...new Set([...String(dice || "").matchAll(/(?<![A-Za-z])d(\d+)/g)].map((m) => Number(m[1])))]
    .filter((n) => n > 0)
    .slice(0, 2);
  return sides.length
    ? `e.g. ${sides.map((n) => Math.max(1, Math.round(n * 0.6))).join(", ")}`
    : "in the order the dice were drawn";
}

// One row of a list named in the plural ("rounds" -> "round"; "stock" stays).
export const single = (label) => label.replace(/ies$/, "y").replace(/([^s])s$/, "$1");
export const article = (noun) => (/^[aeiou]/.test(noun) ? "an" : "a");

// A field's label; inside a part ("effect.price" beside a row's own "price") it names the part,
// so that two fields of one row never read the same.
/**
 * @param {string} name
 * @param {string} path the field's path in the body (`stock[0].effect.price`)
 * @returns {string}
 */
export function fieldLabel(name, path) {
  const parents = path.split(".").slice(0, -1).map((p) => p.replace(/\[\d+\]$/, ""));
  const inner = parents.slice(1);
  return inner.length ? `${words(inner[inner.length - 1])} ${words(name)}` : words(name);
}
