// tlog.js: the host's Merkle log checked by the page with WebCrypto (node has the same
// crypto.subtle). tlog_vectors.json is written by `python -m tests.page_unit.tlog_vectors` (Python's
// hashlib and cryptography); the RFC 6962 roots are the reference test vectors of RFC 6962's
// implementations (certificate-transparency's merkle tree tests), and the spec examples are
// C2SP's own (tlog-checkpoint, tlog-cosignature, tlog-proof, tlog-policy).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  checkTlogProof,
  cosignatures,
  cosignedMessage,
  describeQuorum,
  entryBytes,
  joinNames,
  leafHash,
  parseEntry,
  nodeHash,
  parsePolicy,
  parseTlogProof,
  parseTreeHead,
  quorumMet,
  toBase64,
  verifyInclusion,
} from "../../webapi/static/tlog.js";
import { base64Bytes, parseNote } from "../../webapi/static/checkpoints.js";
import { bytesToHex, hexToBytes } from "../../webapi/static/verify.js";

const V = JSON.parse(readFileSync(new URL("./tlog_vectors.json", import.meta.url), "utf-8"));
const LOG_KEYS = [V.log_key];
const entryOf = (e) => entryBytes(e.campaign_id, e.version, e.hash);
const replaceLine = (text, from, to) => text.split("\n").map((l) => (l === from ? to : l)).join("\n");

// RFC 6962 section 2.1's MTH, by its definition, for the reference roots.
async function mth(leaves) {
  if (leaves.length === 1) return leaves[0];
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(await mth(leaves.slice(0, k)), await mth(leaves.slice(k)));
}

test("RFC 6962: leaf and node hashes give the reference roots of trees of 1 to 8 leaves", async () => {
  const inputs = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"];
  const roots = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  ];
  const leaves = [];
  for (const input of inputs) leaves.push(await leafHash(hexToBytes(input)));
  for (let n = 1; n <= 8; n += 1) assert.equal(bytesToHex(await mth(leaves.slice(0, n))), roots[n - 1]);
});

test("the entry is campaign id, version and event hash on three lines; its leaf hash is Python's", async () => {
  const e = V.events[0];
  assert.equal(new TextDecoder().decode(entryOf(e)), `${e.campaign_id}\n${e.version}\n${e.hash}\n`);
  assert.equal(
    new TextDecoder().decode(entryBytes(e.campaign_id.toUpperCase(), 1, e.hash)),
    `${e.campaign_id}\n1\n${e.hash}\n`,
  );
  for (const [i, event] of V.events.entries()) {
    assert.equal(bytesToHex(await leafHash(entryOf(event))), V.leaf_hashes[i]);
  }
});

test("an entry's bytes read back (the proof's extra); anything else is refused", () => {
  const e = V.events[3];
  assert.deepEqual(parseEntry(entryOf(e)), { campaignId: e.campaign_id, version: e.version, hash: e.hash });
  const bad = [`${e.campaign_id}\n0\n${e.hash}\n`, `${e.campaign_id}\n2\n${e.hash}`, `x\n2\n${e.hash}\n`];
  for (const text of bad) assert.throws(() => parseEntry(new TextEncoder().encode(text)), /<campaign id>/);
});

test("RFC 9162 section 2.1.3.2: every leaf's inclusion proof verifies against the root", async () => {
  const root = base64Bytes(V.root);
  for (const [i, text] of V.proofs.entries()) {
    const proof = parseTlogProof(text);
    assert.equal(proof.index, i);
    await verifyInclusion(await leafHash(entryOf(V.events[i])), i, V.events.length, proof.hashes, root);
  }
});

test("an inclusion proof fails for another leaf, index, size, a hash too many or too few", async () => {
  const root = base64Bytes(V.root);
  const { hashes } = parseTlogProof(V.proofs[2]);
  const leaf = await leafHash(entryOf(V.events[2]));
  const other = await leafHash(entryOf(V.events[3]));
  await assert.rejects(verifyInclusion(other, 2, 7, hashes, root), /does not lead to the checkpoint's root/);
  await assert.rejects(verifyInclusion(leaf, 3, 7, hashes, root), /does not lead to the checkpoint's root/);
  await assert.rejects(verifyInclusion(leaf, 2, 4, hashes, root), /longer than a tree of 4 leaves needs/);
  await assert.rejects(verifyInclusion(leaf, 7, 7, hashes, root), /index 7 is not inside the tree of 7 leaves/);
  await assert.rejects(verifyInclusion(leaf, 2, 7, [...hashes, root], root), /longer than a tree of 7 leaves needs/);
  await assert.rejects(verifyInclusion(leaf, 2, 7, hashes.slice(1), root), /shorter than a tree of 7 leaves needs/);
  // a tree of one leaf: the leaf is the root, the proof is empty
  await verifyInclusion(leaf, 0, 1, [], leaf);
});

test("tlog-checkpoint: the spec's example parses; a bad size, root or short body is refused", () => {
  const head = parseTreeHead("example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n");
  assert.equal(head.origin, "example.com/behind-the-sofa");
  assert.equal(head.size, 20852163);
  assert.equal(toBase64(head.root), "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=");
  assert.equal(parseTreeHead(`${V.body}an extension line\n`).size, 7);
  assert.throws(() => parseTreeHead("log\n07\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"), /size "07"/);
  assert.throws(() => parseTreeHead("log\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jx\n"), /base64 of 32 bytes/);
  assert.throws(() => parseTreeHead("log\n7\n"), /at least three non-empty lines/);
  assert.throws(() => parseTreeHead("log\n7\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I="), /ends in a newline/);
});

test("tlog-proof: the spec's example parses (extra, index, five hashes, the checkpoint verbatim)", () => {
  const example = [
    "c2sp.org/tlog-proof@v1",
    "extra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ",
    "index 73894",
    "gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=",
    "B95lDa8R83lS8n0eG+o0buTxRKQTYFi//1U8anccXmA=",
    "EKNzoDWG8LGC0Yp9o+sv3qllpMP9uHQ9B20KNL+Q1zs=",
    "RoopEkOdqkYqMB4MJXrbt/hMjOxsVn0IrWjpz1ZMMes=",
    "AHCioX9nLjsrse6YhjRRmk1WUEirVOLLRoOQ6vfO5vk=",
    "",
    "example.com/fancylog",
    "109482",
    "sFodV/vSp5O8n9a8QpW6PRY97tfOSW5bsc2Xl/EQi08=",
    "",
    "— example.com/fancylog hI2DJw[...]1roloI=",
    "",
  ].join("\n");
  const proof = parseTlogProof(example);
  assert.equal(proof.index, 73894);
  assert.equal(proof.hashes.length, 5);
  assert.equal(new TextDecoder().decode(proof.extra).slice(0, 12), "age-v1.2.1-d");
  assert.ok(proof.checkpoint.startsWith("example.com/fancylog\n109482\nsFodV/"));
  assert.equal(parseTlogProof(V.proofs[0]).extra, null);
});

test("tlog-proof: a wrong header, index, hash or a missing checkpoint is refused naming the line", () => {
  const good = V.proofs[1];
  assert.throws(() => parseTlogProof(good.replace("tlog-proof@v1", "tlog-proof@v2")), /starts with the line/);
  assert.throws(() => parseTlogProof(good.replace("index 1", "index 01")), /line 2: "index <n>" expected/);
  const hash = good.split("\n")[2];
  assert.throws(() => parseTlogProof(replaceLine(good, hash, "AAAA")), /line 3: a proof hash is the base64 of 32/);
  assert.throws(() => parseTlogProof(good.split("\n\n")[0]), /an empty line before its checkpoint/);
  assert.throws(() => parseTlogProof(`${good.split("\n\n")[0]}\n\n`), /no checkpoint/);
});

test("tlog-cosignature: the spec's example line holds key id, then time 1679315147 big-endian", () => {
  const note =
    "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n" +
    "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZ" +
    "qhf5nNo0xUe+mbIUBkBIfZ+qnA==\n";
  const [line] = parseNote(note).signatures;
  assert.equal(line.hash, "8d66cf3f");
  assert.equal(line.signature.length, 8 + 64);
  assert.equal(new DataView(line.signature.buffer, line.signature.byteOffset).getBigUint64(0), 1679315147n);
  const message = new TextDecoder().decode(cosignedMessage("example.com/behind-the-sofa\n20852163\nX=\n", 1679315147));
  assert.equal(message, "cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nX=\n");
});

test("cosignatures: w1's and w2's verify with their type 0x04 keys, w3 has none, a forged one is bad", async () => {
  const policy = await parsePolicy(V.policies.two_of_three);
  const found = await cosignatures(V.note, [...policy.witnesses.values()]);
  assert.deepEqual([...found.valid.entries()], [["w1", 1700000000], ["w2", 1700000001]]);
  assert.deepEqual(found.bad, []);
  const w2 = V.note.split("\n").find((l) => l.startsWith("— witness.test/w2 "));
  const blob = base64Bytes(w2.split(" ")[2]);
  blob[20] ^= 1;
  const forged = V.note.replace(w2, `— witness.test/w2 ${toBase64(blob)}`);
  const again = await cosignatures(forged, [...policy.witnesses.values()]);
  assert.deepEqual([...again.valid.keys()], ["w1"]);
  assert.deepEqual(again.bad, ["w2"]);
  // the log's own signature line (type 0x01 key id) never counts as a witness's
  const logAsWitness = V.log_key.replace("+Ac", "+BM");
  await assert.rejects(parsePolicy(`witness log ${logAsWitness}\nquorum log\n`), /line 1: the witness key/);
});

test("tlog-policy: the spec's example structure parses; quorum is met by 2 X and 1 Y only", async () => {
  const w = Object.values(V.witness_keys);
  const policy = await parsePolicy(
    [
      `log ${V.log_key} https://log.example`,
      "",
      `witness X1 ${w[0]}`,
      `  witness X2\t${w[1]}  `,
      "# a comment",
      `witness Y1 ${w[2]}`,
      "group X-witnesses 2 X1 X2",
      "group Y-witnesses any Y1",
      "group X-and-Y all X-witnesses Y-witnesses",
      "quorum X-and-Y",
    ].join("\n"),
  );
  assert.equal(policy.logs[0].url, "https://log.example");
  assert.deepEqual([...policy.witnesses.keys()], ["X1", "X2", "Y1"]);
  assert.equal(policy.groups.get("X-witnesses").k, 2);
  assert.equal(policy.groups.get("X-and-Y").k, 2);
  assert.equal(quorumMet(policy, ["X1", "X2", "Y1"]), true);
  assert.equal(quorumMet(policy, ["X1", "Y1"]), false);
  assert.equal(quorumMet(policy, ["X1", "X2"]), false);
  const short = describeQuorum(policy, ["X1", "Y1"]);
  assert.equal(short.sentence, "Not witnessed: needs 2 of 2; X2 has not cosigned");
  assert.equal(short.words, "NOT witnessed: 1 of 2, 2 needed (cosigned by X1, Y1); missing cosignatures from X2");
});

test("tlog-policy: each malformed line is refused naming it", async () => {
  const [w1, w2] = Object.values(V.witness_keys);
  const cases = [
    [`witness w1 ${w1}\nquorum w1\nquorum w1\n`, /line 3: a second quorum line$/],
    [`witness w1 ${w1}\n`, /the policy has no quorum line$/],
    [`quorum w1\n`, /line 1: w1 is not defined on a line above$/],
    [`witness w1 ${w1}\nwitness w1 ${w2}\nquorum w1\n`, /line 2: the name w1 is defined already$/],
    [`witness w1 ${w1}\nwitness w2 ${w1}\nquorum w1\n`, /line 2: the witness w2 has the key of w1$/],
    [`witness w1 ${w1}\ngroup g 2 w1\nquorum g\n`, /line 2: the threshold "2" is not all, any or a number from 1 to 1$/],
    [`witness w1 ${w1}\ngroup g 0 w1\nquorum g\n`, /line 2: the threshold "0"/],
    [`witness w1 ${w1}\ngroup g any w1 w1\nquorum g\n`, /line 2: w1 is listed twice$/],
    [`witness w1 ${w1}\ngroup g any none\nquorum g\n`, /line 2: "none" cannot be a group's member$/],
    [`witness w1 ${w1}\ngroup g any\nquorum g\n`, /line 2: group <name>/],
    [`witness none ${w1}\nquorum none\n`, /line 1: "none" is a reserved name$/],
    [`witness w1 ${w1.slice(0, -4)}AAAA\nquorum w1\n`, /line 1: the witness key/],
    [`witness w1 ${V.log_key}\nquorum w1\n`, /line 1: the witness key: not an Ed25519 cosignature\/v1 key/],
    [`log ${w1}\nquorum none\n`, /line 1: the log key: not an Ed25519 verifier key$/],
    [`log ${V.log_key}\nlog ${V.log_key}\nquorum none\n`, /line 2: the log is listed twice$/],
    [`witness w1 ${w1}\r\nquorum w1\n`, /line 1: a control character \(U\+000D\) is not allowed$/],
    [`witnesses w1 ${w1}\nquorum w1\n`, /line 1: unknown keyword "witnesses"/],
  ];
  for (const [text, error] of cases) await assert.rejects(parsePolicy(text), error, text);
  assert.equal((await parsePolicy("quorum none")).quorum, "none");
});

test("the quorum in words: witnessed by 2 of 3 (w1, w2); not met names who has not cosigned", async () => {
  const two = await parsePolicy(V.policies.two_of_three);
  const met = describeQuorum(two, ["w1", "w2"]);
  assert.equal(met.words, "witnessed by 2 of 3: w1, w2 (not cosigned by w3)");
  assert.equal(met.sentence, "Witnessed by 2 of 3 (w1, w2)");
  assert.deepEqual(met.missing, ["w3"]);
  const short = describeQuorum(two, ["w2"]);
  assert.equal(short.met, false);
  assert.equal(short.sentence, "Not witnessed: needs 2 of 3; w1 and w3 have not cosigned");
  const one = describeQuorum(await parsePolicy(V.policies.w3_only), ["w1", "w2"]);
  assert.equal(one.sentence, "Not witnessed: needs 1 of 1; w3 has not cosigned");
  const none = describeQuorum(await parsePolicy("quorum none\n"), []);
  assert.equal(none.met, true);
  assert.equal(none.sentence, "No witness required (quorum none)");
  assert.equal(joinNames(["a", "b", "c"]), "a, b and c");
});

test("the quorum's words are the CLI's (policy.py's describe) for every case Python wrote", async () => {
  assert.ok(V.words.length >= 12);
  for (const { policy, cosigned, words } of V.words) {
    const said = describeQuorum(await parsePolicy(V.policies[policy]), cosigned);
    assert.equal(said.words, words, `${policy} with ${cosigned.join(", ") || "nobody"}`);
    assert.equal(said.met, !words.startsWith("NOT"), words);
  }
});

test("a tlog-proof checked whole: ok with 2 of 3, no quorum when all three are asked", async () => {
  const entry = entryOf(V.events[4]);
  const ok = await checkTlogProof(V.proofs[4], entry, LOG_KEYS, await parsePolicy(V.policies.two_of_three));
  assert.equal(ok.verdict, "ok", ok.message);
  assert.equal(ok.message, "Witnessed by 2 of 3 (w1, w2)");
  assert.equal(ok.head.size, 7);
  const all = await checkTlogProof(V.proofs[4], entry, LOG_KEYS, await parsePolicy(V.policies.all_three));
  assert.equal(all.verdict, "no-quorum");
  assert.equal(all.ok, false);
  assert.equal(all.message, "Not witnessed: needs 3 of 3; w3 has not cosigned");
  const bare = await checkTlogProof(V.proofs[4], entry, LOG_KEYS, null);
  assert.equal(bare.verdict, "ok");
  assert.deepEqual(bare.cosigners, []);
});

test("a tlog-proof is refused for another event, an unknown log key, a forged log signature", async () => {
  const policy = await parsePolicy(V.policies.two_of_three);
  const other = await checkTlogProof(V.proofs[4], entryOf(V.events[3]), LOG_KEYS, policy);
  assert.equal(other.verdict, "not-included");
  assert.match(other.message, /^this event is not in the checkpoint: /);
  const moved = { ...V.events[4], hash: V.events[5].hash };
  assert.equal((await checkTlogProof(V.proofs[4], entryOf(moved), LOG_KEYS, policy)).verdict, "not-included");
  const stranger = await checkTlogProof(V.proofs[4], entryOf(V.events[4]), [V.witness_keys.w1.replace("+B", "+A")], null);
  assert.equal(stranger.verdict, "malformed"); // a key of type 0x04 is no log key
  const unknown = await checkTlogProof(V.proofs[4], entryOf(V.events[4]), [], policy);
  assert.equal(unknown.verdict, "unknown-key");
  const forgedRoot = V.proofs[4].replace(V.root, toBase64(await leafHash(new Uint8Array([1]))));
  assert.equal((await checkTlogProof(forgedRoot, entryOf(V.events[4]), LOG_KEYS, policy)).verdict, "bad-signature");
  assert.equal((await checkTlogProof("nonsense", entryOf(V.events[4]), LOG_KEYS, policy)).verdict, "malformed");
});

test("a tlog-proof whose log the policy does not list is refused, though the server lists it", async () => {
  const w = V.witness_keys;
  const elsewhere = await parsePolicy(
    `log questlog.test/other+00000000+AcyWlAqECwVLDMOq8MZhKF8qLe+lWMRi4Fd1MM9NHN4h\nwitness w1 ${w.w1}\nquorum w1\n`,
  ).catch((error) => error);
  assert.match(String(elsewhere), /line 1: the log key: the verifier key's hash is not its key's/);
  const policy = await parsePolicy(V.policies.two_of_three);
  policy.logs = [];
  const served = await checkTlogProof(V.proofs[0], entryOf(V.events[0]), LOG_KEYS, policy);
  assert.equal(served.verdict, "ok");
  policy.logs = [{ key: { ...policy.witnesses.get("w1").key }, url: null }];
  const unlisted = await checkTlogProof(V.proofs[0], entryOf(V.events[0]), LOG_KEYS, policy);
  assert.equal(unlisted.verdict, "unknown-key");
  assert.match(unlisted.message, /and the policy$/);
});

test("a forged cosignature is refused naming the witness", async () => {
  const w1 = V.note.split("\n").find((l) => l.startsWith("— witness.test/w1 "));
  const blob = base64Bytes(w1.split(" ")[2]);
  blob[11] ^= 1; // the timestamp's last byte: the signature no longer covers it
  const proof = V.proofs[0].replace(w1, `— witness.test/w1 ${toBase64(blob)}`);
  const verdict = await checkTlogProof(proof, entryOf(V.events[0]), LOG_KEYS, await parsePolicy(V.policies.two_of_three));
  assert.equal(verdict.verdict, "bad-cosignature");
  assert.equal(verdict.message, "the cosignature of w1 does not verify: forged or altered");
});
