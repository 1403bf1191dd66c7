// facecounts.js: the dice faces of the loaded rolls counted per die type against a fair die's
// counts, and the charts' titles. Every expected value is counted by hand from the rolls below.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  countFaces,
  diceCount,
  loadedFacesTitle,
  serverFacesTitle,
} from "../../webapi/static/facecounts.js";

const ROLLS = [
  { roll_id: "a", source: "server", dice: [{ sides: 20, face: 17 }, { sides: 20, face: 3 }] },
  {
    roll_id: "b",
    source: "reported",
    dice: [{ sides: 6, face: 6 }, { sides: 6, face: 6 }, { sides: 6, face: 1 }],
  },
  // undone by a rollback: none of its faces is counted
  { roll_id: "c", source: "server", undone: true, dice: [{ sides: 20, face: 17 }, { sides: 6, face: 2 }] },
  { roll_id: "d", source: "server", dice: [{ sides: 20, face: 17, kept: false }] },
];

test("faces per die type, fewest sides first (d6 before d20, not as text)", () => {
  // d6: faces 6, 6, 1 (roll b) = 3 dice; a fair die gives each face 3 / 6 = 0.5
  // d20: faces 17, 3 (roll a) and 17 (roll d) = 3 dice; each face 3 / 20 = 0.15
  const d20 = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [i + 1, 0]));
  d20[3] = 1;
  d20[17] = 2;
  assert.deepEqual(countFaces(ROLLS), [
    {
      sides: 6,
      total: 3,
      counts: { 1: 1, 2: 0, 3: 0, 4: 0, 5: 0, 6: 2 },
      expected: { 1: 0.5, 2: 0.5, 3: 0.5, 4: 0.5, 5: 0.5, 6: 0.5 },
    },
    {
      sides: 20,
      total: 3,
      counts: d20,
      expected: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [i + 1, 0.15])),
    },
  ]);
});

test("an undone roll counts nothing, and a die not kept still counts", () => {
  // roll c alone is undone: nothing; roll d alone: one d20 showing 17
  assert.deepEqual(countFaces([ROLLS[2]]), []);
  const [d20] = countFaces([ROLLS[3]]);
  assert.equal(d20.total, 1);
  assert.equal(d20.counts[17], 1);
  assert.equal(d20.counts[1] + d20.counts[20], 0);
  assert.equal(d20.expected[17], 1 / 20);
});

test("sides and faces given as text are counted as numbers", () => {
  // one d8 showing 5: 1 die, a fair die gives each face 1 / 8 = 0.125
  assert.deepEqual(countFaces([{ roll_id: "e", source: "server", dice: [{ sides: "8", face: "5" }] }]), [
    {
      sides: 8,
      total: 1,
      counts: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 1, 6: 0, 7: 0, 8: 0 },
      expected: { 1: 0.125, 2: 0.125, 3: 0.125, 4: 0.125, 5: 0.125, 6: 0.125, 7: 0.125, 8: 0.125 },
    },
  ]);
});

test("no rolls, no die types", () => {
  assert.deepEqual(countFaces([]), []);
});

test("one die, any other number of dice", () => {
  assert.equal(diceCount(1), "1 die");
  assert.equal(diceCount("1"), "1 die");
  assert.equal(diceCount(0), "0 dice");
  assert.equal(diceCount(3), "3 dice");
});

test("the title of a chart counted from the loaded rolls", () => {
  const [d6, d20] = countFaces(ROLLS);
  assert.equal(loadedFacesTitle(d6), "d6: 3 dice in the loaded rolls");
  assert.equal(loadedFacesTitle(d20), "d20: 3 dice in the loaded rolls");
  assert.equal(loadedFacesTitle(countFaces([ROLLS[3]])[0]), "d20: 1 die in the loaded rolls");
});

test("the title of a chart of the server's analytics: the p-value to three places, when tested", () => {
  assert.equal(
    serverFacesTitle({ sides: 20, source: "server", dice: 120, test: { p_value: 0.41237 } }),
    "d20 (server), 120 dice, p = 0.412",
  );
  assert.equal(serverFacesTitle({ sides: 6, source: "reported", dice: 1, test: null }), "d6 (reported), 1 die");
  assert.equal(
    serverFacesTitle({ sides: 4, source: "server", dice: 2, test: { p_value: 1 } }),
    "d4 (server), 2 dice, p = 1.000",
  );
});
