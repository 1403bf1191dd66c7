// Readable panels: any part of the state as words in a list of facts, never as JSON.
import { h } from "./dom.js";

export const words = (key) => String(key).replaceAll("_", " ");

// A value in words: lists joined, objects as "key value" pairs, an item by its name.
export function say(value, depth = 0) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value !== "object" || value.raw !== undefined) return String(value);
  if (Array.isArray(value)) return value.length ? value.map((v) => say(v, depth + 1)).join(depth ? "; " : ", ") : "none";
  if (value.name && depth > 0) return String(value.name);
  const pairs = Object.entries(value).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && !v.length));
  if (depth > 1) return pairs.map(([k, v]) => `${words(k)} ${typeof v === "object" ? "…" : say(v, depth + 1)}`).join(", ");
  return pairs.map(([k, v]) => `${words(k)} ${say(v, depth + 1)}`).join(", ");
}

export const dl = (pairs, cls = "facts") => h("dl", { class: cls }, pairs.filter(([, v]) => v !== undefined).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v === null || v === "" ? "—" : v)]));

// An object's every field as a fact, in words; `first` names the fields shown first.
export function panel(title, obj, label, first = []) {
  const keys = [...first.filter((k) => k in obj), ...Object.keys(obj).filter((k) => !first.includes(k))];
  return h("section", { class: "panel", "aria-label": label || title }, h("h3", {}, title), dl(keys.map((k) => [words(k), say(obj[k])])));
}
