// verify.js: the checks the page makes itself with WebCrypto (node has the same crypto.subtle):
// a roll's faces derived again from its revealed seed, the chain of event hashes, the nonces.
// The expected faces and hashes were computed with domain/model/dice/draw.py's derive_faces and
// Python's hashlib over json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  bytesToHex,
  checkChain,
  deriveFaces,
  diceInForce,
  eventBody,
  eventHash,
  freshEntropy,
  hexToBytes,
  nonceProblems,
  rollVerdict,
  seedsFromEvents,
  sha256Hex,
} from "../../webapi/static/verify.js";

const SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";

test("hex and bytes both ways; text that is not hex is refused", () => {
  assert.deepEqual([...hexToBytes("00ff10")], [0, 255, 16]);
  assert.equal(bytesToHex(new Uint8Array([0, 255, 16]).buffer), "00ff10");
  assert.throws(() => hexToBytes("abc"), /not hex/);
  assert.throws(() => hexToBytes("zz"), /not hex/);
});

test("SHA-256 of a text and of bytes", async () => {
  assert.equal(await sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(await sha256Hex(hexToBytes(SEED)), COMMITMENT);
});

test("the faces a seed gives are the server's (derive_faces), with and without entropy", async () => {
  assert.deepEqual(await deriveFaces(SEED, "table", 0, [6, 20]), [1, 8]);
  assert.deepEqual(await deriveFaces(SEED, "table", 0, [6, 20], "abc"), [1, 10]);
  assert.deepEqual(await deriveFaces(SEED, "table", 1, [6, 20]), [2, 6]);
});

test("fresh entropy: 16 random bytes in unpadded base64url, never twice the same", () => {
  const a = freshEntropy();
  assert.match(a, /^[A-Za-z0-9_-]{22}$/);
  assert.notEqual(a, freshEntropy());
});

const roll = (faces, proof = {}) => ({
  roll_id: "r1",
  source: "server",
  dice: [
    { sides: 6, face: faces[0] },
    { sides: 20, face: faces[1] },
  ],
  proof: { commitment: COMMITMENT, client_seed: "table", nonce: 0, ...proof },
});

test("a roll's verdict: verified, mismatch, awaiting its seed, or reported", async () => {
  const seeds = { [COMMITMENT]: SEED };
  assert.equal((await rollVerdict(roll([1, 8]), seeds)).verdict, "verified");
  assert.equal((await rollVerdict(roll([1, 10], { entropy: "abc" }), seeds)).verdict, "verified");
  const wrong = await rollVerdict(roll([1, 9]), seeds);
  assert.deepEqual(wrong, { verdict: "mismatch", why: "the seed gives 1, 8; the log says 1, 9" });
  assert.equal((await rollVerdict(roll([1, 8]))).verdict, "awaiting-reveal");
  assert.equal((await rollVerdict({ ...roll([1, 8]), source: "reported" })).verdict, "reported");
  assert.equal((await rollVerdict({ ...roll([1, 8]), proof: null })).verdict, "reported");
});

test("a seed is used only when its hash is the commitment, and only when it is hex", async () => {
  const other = "ff".repeat(32);
  assert.deepEqual(await rollVerdict(roll([1, 8], { server_seed: other })), {
    verdict: "mismatch",
    why: "SHA-256 of the seed is not the commitment",
  });
  assert.equal((await rollVerdict(roll([1, 8], { server_seed: SEED }))).verdict, "verified");
  assert.equal((await rollVerdict(roll([1, 8], { server_seed: "not hex" }))).why, "the revealed seed is not hex");
});

test("a proof naming another commitment or client seed than those in force is a mismatch", async () => {
  const seeds = { [COMMITMENT]: SEED };
  const inForce = { commitment: "ab".repeat(32), client_seed: "table" };
  const verdict = await rollVerdict(roll([1, 8]), seeds, inForce);
  assert.equal(verdict.verdict, "mismatch");
  assert.match(verdict.why, /^the proof names commitment 630dcd2966c4…, but abababababab… was in force$/);
  const seedChanged = await rollVerdict(roll([1, 8]), seeds, { commitment: COMMITMENT, client_seed: "new" });
  assert.equal(seedChanged.why, "the proof names client seed “table”, but “new” was in force");
});

const first = {
  version: 1,
  type: "questlog.CampaignCreated",
  timestamp: "2026-01-01T00:00:00Z",
  data: { name: "Été", n: 1.5 },
  prev_hash: "0".repeat(64),
  actor: null,
};

test("an event's body leaves out a missing actor, and hashes as the server hashes it", async () => {
  assert.deepEqual(Object.keys(eventBody("c1", first)).sort(), [
    "campaign_id",
    "data",
    "prev_hash",
    "timestamp",
    "type",
    "version",
  ]);
  assert.equal(eventBody("c1", { ...first, actor: "ana#t1" }).actor, "ana#t1");
  assert.equal(
    await eventHash("c1", first),
    "aac7681c76da0cc4ab5c741c3d86db33386d607690fb4f2ccbe045fdfa62ec41",
  );
});

// A chain of events each carrying its hash, as GET /events answers.
async function chain(count) {
  const events = [];
  let prev = "0".repeat(64);
  for (let version = 1; version <= count; version++) {
    const event = { ...first, version, data: { n: version }, prev_hash: prev };
    event.hash = await eventHash("c1", event);
    events.push(event);
    prev = event.hash;
  }
  return events;
}

test("an intact chain checks out; a changed event or a broken link is named by its version", async () => {
  const events = await chain(4);
  assert.deepEqual(await checkChain("c1", events), { ok: true, checked: 4, last: events[3].hash });
  // a window that starts later links to the hash before it, when known
  assert.equal((await checkChain("c1", events.slice(2), events[1].hash)).ok, true);
  assert.deepEqual(await checkChain("c1", events.slice(2), "f".repeat(64)), {
    ok: false,
    checked: 0,
    version: 3,
    why: "prev_hash does not link to version 2",
  });
  const edited = events.map((e) => (e.version === 3 ? { ...e, data: { n: 33 } } : e));
  assert.deepEqual(await checkChain("c1", edited), {
    ok: false,
    checked: 2,
    version: 3,
    why: "its hash does not match its content",
  });
  // the hash covers the campaign's id too
  assert.equal((await checkChain("c2", events)).ok, false);
});

const serverRoll = (id, commitment, nonce) => ({ roll_id: id, source: "server", proof: { commitment, nonce } });
const rolled = (version, ...rolls) => ({ version, type: "questlog.DiceRolled", data: { rolls } });

test("nonces 0, 1, 2… under each commitment: a gap, a reuse and a step back are problems", () => {
  const fine = [rolled(2, serverRoll("a", "C1", 0)), rolled(3, serverRoll("b", "C1", 1), serverRoll("c", "C2", 0))];
  assert.deepEqual(nonceProblems(fine), []);
  const gap = [rolled(2, serverRoll("a", "C1", 0)), rolled(5, serverRoll("d", "C1", 3))];
  assert.deepEqual(nonceProblems(gap), [
    {
      version: 5,
      roll_id: "d",
      missing: [1, 2],
      why: "roll d carries nonce 3, but nonces 1 to 2 under this commitment are missing from the log",
    },
  ]);
  const one = nonceProblems([rolled(2, serverRoll("a", "C1", 1))]);
  assert.equal(one[0].why, "roll a carries nonce 1, but nonce 0 under this commitment is missing from the log");
  const reused = nonceProblems([rolled(2, serverRoll("a", "C1", 0)), rolled(3, serverRoll("b", "C1", 0))]);
  assert.deepEqual(reused, [{ version: 3, roll_id: "b", why: "nonce 0 reused by roll b" }]);
  const back = nonceProblems([
    rolled(2, serverRoll("a", "C1", 0), serverRoll("b", "C1", 2)),
    rolled(3, serverRoll("c", "C1", 1)),
  ]);
  assert.equal(back.at(-1).why, "roll c carries nonce 1 after nonce 2: out of order");
  for (const nonce of [-1, 1.5, "0", null])
    assert.equal(nonceProblems([rolled(4, serverRoll("x", "C1", nonce))])[0].why, "roll x has no valid nonce");
  // a roll by hand has no nonce to check
  assert.deepEqual(nonceProblems([rolled(2, { roll_id: "h", source: "reported" })]), []);
});

test("the commitment and client seed in force at each roll, and the seeds revealed", () => {
  const events = [
    { type: "questlog.CampaignCreated", data: { commitment: "C1", client_seed: "s1" } },
    rolled(2, serverRoll("a", "C1", 0)),
    { type: "questlog.SeedRotated", data: { commitment: "C2", revealed_commitment: "C1", revealed_seed: "S1" } },
    { type: "questlog.ClientSeedChanged", data: { client_seed: "s2" } },
    rolled(5, serverRoll("b", "C2", 0)),
    { type: "questlog.CampaignImported", data: { commitment: "C3", revealed_seeds: { C2: "S2" } } },
    rolled(7, serverRoll("c", "C3", 0)),
  ];
  const inForce = diceInForce(events);
  assert.deepEqual(inForce.get("a"), { commitment: "C1", client_seed: "s1" });
  assert.deepEqual(inForce.get("b"), { commitment: "C2", client_seed: "s2" });
  assert.deepEqual(inForce.get("c"), { commitment: "C3", client_seed: "s2" });
  assert.deepEqual(seedsFromEvents(events), { C1: "S1", C2: "S2" });
});
