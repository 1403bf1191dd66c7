// picks.js: the values a form's field may take, read from the campaign state by the catalogue's
// `picks` hint (a JSON pointer, the member sent, the member shown, a filter).
import assert from "node:assert/strict";
import { test } from "node:test";

import { pickEntries } from "../../webapi/static/picks.js";

const state = {
  hero: {
    items: {
      rope: { id: "rope", name: "Rope", equipped: false },
      sword: { id: "sword", name: "Sword", equipped: true },
      "blade-2": { id: "blade-2", name: "Sword", equipped: true },
    },
    abilities: [
      { id: "second-wind", name: "Second Wind" },
      { id: "lucky", name: "" },
    ],
  },
  pieces: { A: { "a/1": { kind: "king" }, "a~2": { kind: "pawn" } }, B: { b1: { kind: "king" } } },
};

test("an object's entries: each entry's id, shown by its name", () => {
  const entries = pickEntries(state, { source: "/hero/items", label: "name", where: { equipped: false } });
  assert.deepEqual(entries, [{ value: "rope", label: "Rope" }]);
});

test("two entries of one name are told apart by their ids", () => {
  const entries = pickEntries(state, { source: "/hero/items", label: "name", where: { equipped: true } });
  assert.deepEqual(entries, [
    { value: "sword", label: "Sword (sword)" },
    { value: "blade-2", label: "Sword (blade-2)" },
  ]);
});

test("a list's entries; an empty name shows the id", () => {
  const entries = pickEntries(state, { source: "/hero/abilities", label: "name" });
  assert.deepEqual(entries, [
    { value: "second-wind", label: "Second Wind" },
    { value: "lucky", label: "lucky" },
  ]);
});

test("{field} in the pointer is the form's value of that field; '@key' the entry's key", () => {
  const valueOf = (name) => (name === "player" ? "A" : undefined);
  const hint = { source: "/pieces/{player}", value: "@key", label: "kind" };
  assert.deepEqual(pickEntries(state, hint, valueOf), [
    { value: "a/1", label: "king" },
    { value: "a~2", label: "pawn" },
  ]);
  // no player chosen yet: nothing to pick from
  assert.deepEqual(pickEntries(state, hint), []);
});

test("'*' reaches every member; a value seen once is offered once", () => {
  const hint = { source: "/pieces/*", value: "kind" };
  assert.deepEqual(
    pickEntries(state, hint).map((e) => e.value),
    ["king", "pawn"],
  );
});

test("~1 and ~0 in the pointer are '/' and '~' (RFC 6901)", () => {
  const odd = { "a/b": { "c~d": ["x", "y"] } };
  assert.deepEqual(pickEntries(odd, { source: "/a~1b/c~0d" }), [
    { value: "x", label: "x" },
    { value: "y", label: "y" },
  ]);
});

test("a pointer into nothing, or a missing state, offers nothing", () => {
  assert.deepEqual(pickEntries(state, { source: "/hero/pets" }), []);
  assert.deepEqual(pickEntries(null, { source: "/hero/items" }), []);
  assert.deepEqual(pickEntries(state, { source: "/hero/items/rope/name" }), []); // a text, not a collection
});
