// integrity.js's badge state: what the chain line and the checkpoint's verdict say together.
import assert from "node:assert/strict";
import { test } from "node:test";

import { integrityState } from "../../webapi/static/integrity.js";

test("chain intact and checkpoint signed: verified, at the version shown", () => {
  assert.deepEqual(integrityState("ok", "ok", 12), {
    state: "ok",
    mark: "Verified ✓ v12",
    words: "chain intact, checkpoint signed",
  });
});

test("a broken chain wins over everything else", () => {
  for (const checkpoint of ["ok", "unchecked", "mismatch", undefined])
    assert.equal(integrityState("broken", checkpoint, 3).state, "broken");
  assert.equal(integrityState("broken", "ok", 3).mark, "Not verified ✗ v3");
});

test("a checkpoint that does not check out is a warning, even before the chain is known", () => {
  assert.equal(integrityState("ok", "mismatch", 5).state, "warning");
  assert.equal(integrityState(undefined, "rolled-back", 5).state, "warning");
  assert.equal(integrityState("ok", "mismatch", 5).mark, "Warning ⚠ v5");
});

test("a checkpoint that could not be checked leaves the chain's word only", () => {
  assert.equal(integrityState("ok", "unchecked", 7).state, "partial");
  assert.equal(integrityState("ok", "unchecked", 7).mark, "Chain intact ✓ v7");
});

test("anything not known yet is still being checked", () => {
  assert.equal(integrityState(undefined, undefined, 1).state, "checking");
  assert.equal(integrityState("ok", undefined, 1).state, "checking");
  assert.equal(integrityState(undefined, "ok", 1).state, "checking");
  assert.equal(integrityState(undefined, "unchecked", 2).mark, "Checking… v2");
});

test("the witness panel's red warning shows on the badge; its wait as pending", () => {
  assert.deepEqual(integrityState("ok", "ok", 12, "not-witnessed"), {
    state: "unwitnessed",
    mark: "Verified ✓ v12 · NOT witnessed",
    words: "chain intact, checkpoint signed, but NOT witnessed: see the witness panel",
  });
  assert.equal(integrityState("ok", "ok", 12, "failed").state, "unwitnessed");
  assert.equal(integrityState("ok", "ok", 12, "waiting").mark, "Verified ✓ v12 · witness pending");
  assert.equal(integrityState("ok", "ok", 12, "waiting").state, "ok");
  assert.equal(integrityState("ok", "ok", 12, "witnessed").mark, "Verified ✓ v12");
  assert.equal(integrityState("ok", "ok", 12, "pending").mark, "Verified ✓ v12");
  // a broken chain still wins
  assert.equal(integrityState("broken", "ok", 12, "not-witnessed").state, "broken");
});
