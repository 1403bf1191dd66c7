// canon.js: JSON as Questlog hashes it (Python's json.dumps with sort_keys, no spaces,
// ensure_ascii=False), and a parser that keeps the text of every number it cannot hold exactly.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Num, canonical, parse } from "../../webapi/static/canon.js";

test("keys are sorted, no spaces, non-ASCII text kept as it is", () => {
  const value = { b: 1, a: [true, false, null, "Été"], c: { z: "", y: -2 } };
  assert.equal(canonical(value), '{"a":[true,false,null,"Été"],"b":1,"c":{"y":-2,"z":""}}');
});

test("keys sort by code point, as Python sorts them, not by UTF-16 unit", () => {
  // U+FFFF is below U+1F600 by code point; its UTF-16 unit 0xFFFF is above the surrogate 0xD83D
  const keys = { "\u{1F600}": 1, "\uFFFF": 2, Z: 3, a: 4, é: 5 };
  assert.equal(canonical(keys), '{"Z":3,"a":4,"é":5,"\uFFFF":2,"\u{1F600}":1}');
  assert.deepEqual(Object.keys(keys).sort(), ["Z", "a", "é", "\u{1F600}", "\uFFFF"]); // what JS alone does
});

test("strings escape as Python escapes them: quotes, backslashes, control characters", () => {
  assert.equal(canonical('say "hi"\\'), '"say \\"hi\\"\\\\"');
  assert.equal(canonical("a\nb\tc\rd\be\ff"), '"a\\nb\\tc\\rd\\be\\ff"');
  assert.equal(canonical("\u0001\u001f"), '"\\u0001\\u001f"');
  assert.equal(canonical("/ stays /"), '"/ stays /"');
});

test("a float the page made is written as Python's repr writes it", () => {
  assert.equal(canonical(0.5), "0.5");
  assert.equal(canonical(-2.25), "-2.25");
  assert.equal(canonical(1e-7), "1e-07");
  assert.equal(canonical(1.5e-5), "1.5e-05");
  assert.equal(canonical(12), "12");
  assert.equal(canonical(Number.NaN), "NaN");
  assert.equal(canonical(-Infinity), "-Infinity");
});

test("a number parsed keeps its text: 1.0 stays 1.0, a huge integer stays exact", () => {
  const value = parse('{"f": 1.0, "e": 1e-07, "big": 12345678901234567890, "n": -3}');
  assert.ok(value.f instanceof Num);
  assert.equal(value.f.raw, "1.0");
  assert.equal(Number(value.f), 1);
  assert.equal(value.n, -3); // a safe integer is a plain number
  assert.equal(canonical(value), '{"big":12345678901234567890,"e":1e-07,"f":1.0,"n":-3}');
  assert.equal(JSON.stringify(new Num("2.50")), "2.5"); // toJSON: the number's value
});

test("parse reads escapes, nesting, and the three words", () => {
  assert.deepEqual(parse(' [ {"a": ["\\u00e9\\n", true, false, null]}, [] , {} ] '), [
    { a: ["é\n", true, false, null] },
    [],
    {},
  ]);
  assert.equal(parse('"\\/\\\\\\""'), '/\\"');
});

test("parse then canonical gives back what Python wrote", () => {
  const text = '{"data":{"hp":1.0,"name":"Zoë","rolls":[{"face":6,"sides":20}]},"v":3}';
  assert.equal(canonical(parse(text)), text);
});

test("bad JSON is refused with where it went wrong", () => {
  assert.throws(() => parse("{"), SyntaxError);
  assert.throws(() => parse('{"a" 1}'), /expected ':' at/);
  assert.throws(() => parse("[1,]"), /unexpected character/);
  assert.throws(() => parse("[1 2]"), /expected ',' or '\]'/);
  assert.throws(() => parse('"open'), /unterminated string/);
  assert.throws(() => parse('"\\x"'), /bad escape/);
  assert.throws(() => parse("1 2"), /trailing text at 2/);
  assert.throws(() => parse("{1: 2}"), /expected a key/);
});
