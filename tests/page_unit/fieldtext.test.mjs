// fieldtext.js: the words and typed values of the command forms' fields, without the DOM.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  article,
  describe,
  facesExample,
  facesValue,
  fieldLabel,
  isObject,
  isRows,
  listValue,
  sentence,
  single,
  wholeNumber,
  words,
} from "../../webapi/static/fieldtext.js";

test("wholeNumber reads a whole number as typed", () => {
  assert.equal(wholeNumber("42"), 42);
  assert.equal(wholeNumber("  -7 "), -7);
  assert.equal(wholeNumber("+3"), 3);
  assert.equal(wholeNumber(String(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
});

test("wholeNumber refuses in the words typed, naming the field", () => {
  assert.throws(() => wholeNumber("4.5", "gold"), { message: "gold: “4.5” is not a whole number" });
  assert.throws(() => wholeNumber("", "gold"), /“” is not a whole number/);
  assert.throws(() => wholeNumber("1e3"), { message: "“1e3” is not a whole number" });
  assert.throws(
    () => wholeNumber("99999999999999999999999999", "hp"),
    { message: `hp: “99999999999999999999999999” is not a whole number that fits (the most is ${2 ** 53 - 1})` },
  );
});

test("facesValue: faces separated by commas, or a JSON list", () => {
  assert.deepEqual(facesValue("3, 4 ,20"), [3, 4, 20]);
  assert.equal(facesValue("   "), undefined);
  const d100 = facesValue('[{"tens": 60, "units": 5}, 7]');
  assert.deepEqual(JSON.parse(JSON.stringify(d100)), [{ tens: 60, units: 5 }, 7]);
  assert.throws(() => facesValue("3, x"), { message: "faces: “x” is not a whole number" });
  assert.throws(() => facesValue("[12345678901234567890]"), /is not a whole number that fits/);
});

test("listValue: text stays text, numbers become numbers unless the items are strings", () => {
  assert.deepEqual(listValue("a, 2, -3"), ["a", 2, -3]);
  assert.deepEqual(listValue("a, 2", "string"), ["a", "2"]);
  assert.equal(listValue(""), undefined);
  assert.deepEqual(JSON.parse(JSON.stringify(listValue('["x", {"y": 1.5}]'))), ["x", { y: 1.5 }]);
  assert.deepEqual(listValue('{"id": "rope"}, 4'), [{ id: "rope" }, 4]);
  assert.throws(() => listValue("1, 99999999999999999999", "integer", "stock"), /stock: .* that fits/);
});

test("facesExample: faces that fit the command's dice", () => {
  assert.equal(facesExample("d6"), "e.g. 4");
  assert.equal(facesExample("2d20 (attack; d6 for damage)"), "e.g. 12, 4");
  assert.equal(facesExample("1d4 then d100 then d8"), "e.g. 2, 60"); // the first two kinds only
  assert.equal(facesExample("add6"), "in the order the dice were drawn"); // no die inside a word
  assert.equal(facesExample(null), "in the order the dice were drawn");
});

test("describe: the catalogue's help in words, its range and when it is needed", () => {
  const field = {
    name: "gold",
    description: "The `gold_pieces` spent.",
    minimum: 0,
    required_when: { paid: true, kind: "hire_help", free: false },
  };
  assert.equal(
    describe(field),
    "The gold pieces spent. · range 0–… · needed when paid is yes and kind is hire help and free is no",
  );
  const picked = { name: "item", picks: {}, description: "The id of the item to equip." };
  assert.equal(describe(picked), "Which item to equip.");
  const player = { name: "player", picks: {}, description: "The id of the player who acts." };
  assert.equal(describe(player), "Which player acts.");
  assert.equal(
    describe({ name: "page_date", description: "The page's date (YYYY-MM-DD or MM-DD)." }, { date: true }),
    "The page's date: pick the day in the date picker",
  );
  const bare = { name: "date", description: "YYYY-MM-DD" };
  assert.equal(describe(bare, { date: true }), "date: pick the day in the date picker");
  assert.equal(describe({ name: "x" }), "");
});

test("labels read as sentences; a row of a list is named in the singular", () => {
  assert.equal(words("level_up_day"), "level up day");
  assert.equal(sentence("level up day"), "Level-up day");
  assert.equal(sentence("level up"), "Level up"); // at the end nothing follows: no hyphen
  assert.equal(single("rounds"), "round");
  assert.equal(single("abilities"), "ability");
  assert.equal(single("stock"), "stock");
  assert.equal(single("class"), "class");
  assert.equal(article("item"), "an");
  assert.equal(article("round"), "a");
});

test("fieldLabel names the part a field sits in, beside a row's own field of that name", () => {
  assert.equal(fieldLabel("price", "price"), "price");
  assert.equal(fieldLabel("price", "stock[0].price"), "price");
  assert.equal(fieldLabel("price", "stock[0].effect.price"), "effect price");
  assert.equal(fieldLabel("max", "hero.pool.max"), "pool max");
});

test("isObject and isRows tell the controls apart", () => {
  assert.ok(isObject({ type: "object", fields: [] }));
  assert.ok(!isObject({ type: "object" })); // free JSON, no schema
  assert.ok(isRows({ type: "array", items: { fields: [] } }));
  assert.ok(isRows({ type: "array", items: { picks: { source: "/x" } } }));
  assert.ok(!isRows({ type: "array", items: { type: "integer" } }));
});
