// @ts-check
// Readable panels: any part of the state as words in a list of facts, never as JSON.
import { h } from "./dom.js";

// A code word in words: snake_case and camelCase split ("in_progress" -> "in progress",
// "catboyBoyfriend" -> "catboy boyfriend").
export const words = (key) =>
  String(key)
    .replaceAll("_", " ")
    .replace(/([a-z])([A-Z])/g, (_, a, b) => `${a} ${b.toLowerCase()}`);

// The Calendar Board's night steps in words (the night banner, the board's night line).
const NIGHT_STEPS = {
  token: "the god token passes",
  creatures: "creatures",
  decay: "relationships decay",
  basketball: "the basketball shot",
  calendar: "the calendar roll",
  wind: "the wind",
  annustaria: "the Annustaria Breaker",
  actions: "night actions",
};
export const nightStepWords = (step) => NIGHT_STEPS[step] ?? words(step ?? "");

// Values that read better with a word or two more than their code word.
const PHRASES = {
  final_rolls: "the final rolls",
  all_rounds_played: "all rounds played",
  per_rest: "once per rest",
  per_page: "once per page",
  per_combat: "once per combat",
};
// A string value: a code word (no spaces, with _ or an inner capital) in words; anything else as is.
export const sayWord = (value) =>
  PHRASES[value] ?? (/^[A-Za-z]+(?:_[A-Za-z0-9]+|[a-z][A-Z][A-Za-z]*)+$/.test(value) ? words(value) : value);
// Field names that read better otherwise in a panel.
const LABELS = { ended_by: "ended", judged_on: "judged on" };

// A value in words: lists joined, objects as "key value" pairs, an item by its name.
export function say(value, depth = 0) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string") return sayWord(value);
  if (typeof value !== "object" || value.raw !== undefined) return String(value);
  if (Array.isArray(value))
    return value.length ? value.map((v) => say(v, depth + 1)).join(depth ? "; " : ", ") : "none";
  if (value.name && depth > 0) return String(value.name);
  const pairs = Object.entries(value).filter(
    ([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length),
  );
  if (depth > 1)
    return pairs.map(([k, v]) => `${words(k)} ${typeof v === "object" ? "…" : say(v, depth + 1)}`).join(", ");
  return pairs.map(([k, v]) => `${words(k)} ${say(v, depth + 1)}`).join(", ");
}

export const dl = (pairs, cls = "facts") =>
  h(
    "dl",
    { class: cls },
    pairs
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [h("dt", {}, k), h("dd", {}, v === null || v === "" ? "—" : v)]),
  );

// An object's every field as a fact, in words; `first` names the fields shown first.
// A list of records (a combat's rounds) is one line per record.
export function panel(title, obj, label, first = []) {
  const keys = [...first.filter((k) => k in obj), ...Object.keys(obj).filter((k) => !first.includes(k))];
  const shown = (v) => (Array.isArray(v) && v.length && v.every((x) => x && typeof x === "object" && !Array.isArray(x))
    ? h("ol", { class: "lines" }, v.map((x) => h("li", {}, say(x, 1))))
    : say(v));
  return h(
    "section",
    { class: "panel", "aria-label": label || title },
    h("h3", {}, title),
    dl(keys.map((k) => [LABELS[k] || words(k), shown(obj[k])])),
  );
}
