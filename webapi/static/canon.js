// @ts-check
// JSON exactly as Questlog hashes it: Python's json.dumps(sort_keys=True, separators=(",", ":"),
// ensure_ascii=False). The parser keeps the text of every number that is not a safe integer, so a
// float is written back the way Python wrote it (1.0 stays 1.0, 1e-07 stays 1e-07).

/** A number kept as the text it was written as (a float, or an integer too big to hold exactly). */
export class Num {
  /** @param {string} raw */
  constructor(raw) {
    this.raw = raw;
  }
  valueOf() {
    return Number(this.raw);
  }
  toString() {
    return this.raw;
  }
  toJSON() {
    return Number(this.raw);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * @param {string} text JSON
 * @returns {any} the value, with a Num for each number that is not a safe integer
 * @throws {SyntaxError} what is wrong, and where
 */
export function parse(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`JSON: ${what} at ${i}`);
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const string = () => {
    let out = "";
    i++;
    for (;;) {
      const end = text.slice(i).search(/["\\]/);
      if (end < 0) fail("unterminated string");
      out += text.slice(i, i + end);
      i += end;
      if (text[i] === '"') {
        i++;
        return out;
      }
      const code = text[i + 1];
      if (code === "u") {
        out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
        i += 6;
      } else if (code in ESCAPES) {
        out += ESCAPES[code];
        i += 2;
      } else fail("bad escape");
    }
  };
  const value = () => {
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      const out = {};
      space();
      if (text[i] === "}") {
        i++;
        return out;
      }
      for (;;) {
        space();
        if (text[i] !== '"') fail("expected a key");
        const key = string();
        space();
        if (text[i++] !== ":") fail("expected ':'");
        out[key] = value();
        space();
        const next = text[i++];
        if (next === "}") return out;
        if (next !== ",") fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const out = [];
      space();
      if (text[i] === "]") {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        space();
        const next = text[i++];
        if (next === "]") return out;
        if (next !== ",") fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    /** @type {[string, boolean | null][]} */
    const words = [["true", true], ["false", false], ["null", null]];
    for (const [word, result] of words) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return result;
      }
    }
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (!match) fail("unexpected character");
    i += match[0].length;
    const raw = match[0];
    const n = Number(raw);
    return /^-?\d+$/.test(raw) && Number.isSafeInteger(n) ? n : new Num(raw);
  };
  const result = value();
  space();
  if (i !== text.length) fail("trailing text");
  return result;
}

/**
 * @param {string} s
 * @returns {string}
 */
function pyString(s) {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

// Python's repr of a float, for numbers that did not come through parse().
/**
 * @param {number} n
 * @returns {string}
 */
function pyFloat(n) {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n}.0`;
  const [mantissa, exp] = n.toExponential().split("e");
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(n);
}

/**
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
function byCodePoint(a, b) {
  const x = [...a];
  const y = [...b];
  for (let k = 0; k < Math.min(x.length, y.length); k++) {
    const d = x[k].codePointAt(0) - y[k].codePointAt(0);
    if (d) return d;
  }
  return x.length - y.length;
}

/**
 * @param {unknown} value a JSON value (numbers parsed by parse() keep their text)
 * @returns {string}
 */
export function canonical(value) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (value instanceof Num) return value.raw;
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === "string") return pyString(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort(byCodePoint);
  return `{${keys.map((k) => `${pyString(k)}:${canonical(value[k])}`).join(",")}}`;
}
