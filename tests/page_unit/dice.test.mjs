// dice.js's reading of the catalogue's dice: which dice a command rolls first, for the labels of
// the faces typed by hand.
import assert from "node:assert/strict";
import { test } from "node:test";

import { diceFromText, diceOf } from "../../webapi/static/dice.js";

test("the dice a command's text starts with, and what they are for", () => {
  assert.deepEqual(diceFromText("d20 for the check, then d6"), [{ sides: 20, purpose: "check" }]);
  assert.deepEqual(diceFromText("2d20 (basketball)"), [
    { sides: 20, purpose: "basketball" },
    { sides: 20, purpose: "basketball" },
  ]);
  assert.deepEqual(diceFromText("d100 (Aim)"), [{ sides: 100, purpose: "aim" }]);
  assert.deepEqual(diceFromText("d20 (attack; d6 damage)"), [{ sides: 20, purpose: "attack" }]);
  assert.deepEqual(diceFromText("1d8"), [{ sides: 8, purpose: "" }]);
});

test("no dice named: none; a count is at most six; a d inside a word is no die", () => {
  assert.deepEqual(diceFromText("None"), []);
  assert.deepEqual(diceFromText(null), []);
  assert.deepEqual(diceFromText("add6 gold"), []);
  assert.equal(diceFromText("10d6").length, 6);
});

test("dice in notation, each die of several numbered", () => {
  assert.deepEqual(diceOf("1d6", "Second Wind"), [{ sides: 6, purpose: "Second Wind" }]);
  assert.deepEqual(diceOf("2d4+1", "ability"), [
    { sides: 4, purpose: "ability (die 1 of 2)" },
    { sides: 4, purpose: "ability (die 2 of 2)" },
  ]);
  assert.deepEqual(diceOf("d12", "x"), [{ sides: 12, purpose: "x" }]);
  assert.deepEqual(diceOf("heal 3", "x"), []);
  assert.deepEqual(diceOf(undefined, "x"), []);
});
