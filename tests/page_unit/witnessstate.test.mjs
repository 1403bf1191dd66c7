// witnessstate.js: why a head is not witnessed. The quorum itself is tlog.js's (tlog-policy); here,
// whether the missing cosignatures are a wait the host explains or the red warning.
import assert from "node:assert/strict";
import { test } from "node:test";

import { LONG_WAIT_MS, logSize, missingWitness, unmetQuorum } from "../../webapi/static/witnessstate.js";

const NOW = Date.parse("2026-12-07T12:00:00Z");
const ago = (ms) => new Date(NOW - ms).toISOString();
const url = "http://127.0.0.1:8101";
const quorum = (missing, threshold = 1, members = 1) => ({ threshold, members, missing });

test("a witness the host reports down, for a short while, is a wait, not the alarm", () => {
  const w = { name: "w1", state: "down", url, error: "refused the connection", waiting_since: ago(30_000) };
  assert.deepEqual(unmetQuorum(quorum(["w1"]), [w], NOW), {
    state: "waiting",
    warning: false,
    text: "Not witnessed yet: needs 1 of 1, waiting for w1 (the host says it is down: refused the connection)",
  });
});

test("a submission in flight (waiting) is a wait", () => {
  const w = { name: "w1", state: "waiting", url, waiting_since: ago(2_000) };
  const said = unmetQuorum(quorum(["w1", "w2"], 2, 3), [w, { ...w, name: "w2" }], NOW);
  assert.equal(said.state, "waiting");
  assert.equal(said.text, "Not witnessed yet: needs 2 of 3, waiting for w1 and w2");
});

test("a wait longer than ten minutes becomes the warning, saying for how long", () => {
  const w = { name: "w1", state: "down", url, waiting_since: ago(12 * 60_000 + 5_000) };
  const said = unmetQuorum(quorum(["w1"]), [w], NOW);
  assert.equal(said.state, "not-witnessed");
  assert.equal(said.warning, true);
  assert.equal(said.text, "Not witnessed: needs 1 of 1; w1 has not cosigned for 12 minutes (the host says it is down)");
  assert.equal(missingWitness("w1", { ...w, waiting_since: ago(LONG_WAIT_MS - 1000) }, NOW).alarm, false);
});

test("refused and conflict are the warning, with the host's reason", () => {
  const refused = missingWitness("w1", { name: "w1", state: "refused", url, error: "403: unknown log" }, NOW);
  assert.deepEqual(refused, { name: "w1", alarm: true, words: "w1 refused the host's checkpoint: 403: unknown log" });
  const conflict = missingWitness("w2", { name: "w2", state: "conflict", url, error: "409: the witness is at '9'" }, NOW);
  assert.equal(conflict.alarm, true);
  assert.match(conflict.words, /^w2 holds another history of the host's log \(conflict: 409/);
});

test("a witness of the group's policy the host does not ask is the warning, and says so", () => {
  assert.deepEqual(unmetQuorum(quorum(["w2"]), [{ name: "w1", state: "cosigned", url }], NOW), {
    state: "not-witnessed",
    warning: true,
    text: "Not witnessed: needs 1 of 1; w2 has not cosigned (the host does not submit to w2)",
  });
  // named by the host's policy but without an address: not asked either
  assert.equal(missingWitness("w2", { name: "w2", state: "waiting", url: null }, NOW).alarm, true);
});

test("one witness the host cannot explain makes the whole verdict the warning", () => {
  const reported = [
    { name: "w1", state: "waiting", url, waiting_since: ago(1000) },
    { name: "w2", state: "refused", url, error: "403: no" },
  ];
  const said = unmetQuorum(quorum(["w1", "w2"], 2, 2), reported, NOW);
  assert.equal(said.state, "not-witnessed");
  assert.equal(said.text, "Not witnessed: needs 2 of 2; w2 refused the host's checkpoint: 403: no");
});

test("a cosigned size counts the host's whole log, not the campaign's versions", () => {
  assert.equal(logSize(46), "the host's log up to 46 events (every campaign on this host)");
  assert.equal(logSize(1), "the host's log up to 1 event (every campaign on this host)");
});
