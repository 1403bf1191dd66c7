// @ts-check
// The host's Merkle log on the page (docs/table-page.md, "The witness panel"): a campaign's head
// reaches the page as a tlog-proof (c2sp.org/tlog-proof@v1), which the page checks itself with
// WebCrypto: the checkpoint (c2sp.org/tlog-checkpoint) signed by a key the server lists, the
// RFC 6962 inclusion of the head event's entry, the witnesses' cosignature/v1 lines
// (c2sp.org/tlog-cosignature) and a quorum of them under a tlog-policy (c2sp.org/tlog-policy).
// Pure: no DOM, no request; tests/page_unit/tlog.test.mjs runs it in node.
import { base64Bytes, openNote, parseNote, parseVerifierKey } from "./checkpoints.js";

const encoder = new TextEncoder();
const subtle = globalThis.crypto.subtle;
export const PROOF_HEADER = "c2sp.org/tlog-proof@v1";
const HASH_SIZE = 32;

/** @param {Uint8Array[]} parts */
function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** @param {Uint8Array<ArrayBuffer>} bytes */
async function sha256(bytes) {
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}

/** @param {Uint8Array} bytes */
export function toBase64(bytes) {
  return btoa(String.fromCharCode(...bytes));
}

// A leaf's entry: "<campaign id>\n<version>\n<event hash>\n", the id lowercase, the hash 64 hex.
/**
 * @param {string} campaignId
 * @param {number} version
 * @param {string} eventHash
 */
export function entryBytes(campaignId, version, eventHash) {
  return encoder.encode(`${campaignId.toLowerCase()}\n${version}\n${eventHash.toLowerCase()}\n`);
}

// An entry's bytes read back: { campaignId, version, hash }. The server puts the entry in the
// proof's `extra`, which tlog-proof says never to trust: the page reads only which version to
// check there, and checks the entry it builds itself from the hash it has at that version.
/** @param {Uint8Array} bytes */
export function parseEntry(bytes) {
  const text = new TextDecoder().decode(bytes);
  const uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  const match = new RegExp(`^(${uuid})\n([1-9][0-9]*)\n([0-9a-f]{64})\n$`).exec(text);
  if (!match) throw new Error("the entry is not <campaign id>, <version> and <event hash> on a line each");
  return { campaignId: match[1], version: Number(match[2]), hash: match[3] };
}

// RFC 6962 section 2.1: SHA-256(0x00 || entry) for a leaf, SHA-256(0x01 || left || right) for a node.
/** @param {Uint8Array} entry */
export const leafHash = (entry) => sha256(concat(new Uint8Array([0]), entry));
/**
 * @param {Uint8Array} left
 * @param {Uint8Array} right
 */
export const nodeHash = (left, right) => sha256(concat(new Uint8Array([1]), left, right));

/** @param {Uint8Array} a @param {Uint8Array} b */
function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// RFC 9162 section 2.1.3.2: the inclusion of `leaf` at `index` in the tree of `size` leaves whose
// root is `root`; throws an Error naming what failed. Sizes stay below 2**53 (no bit operations).
/**
 * @param {Uint8Array} leaf
 * @param {number} index
 * @param {number} size
 * @param {Uint8Array[]} proof
 * @param {Uint8Array} root
 */
export async function verifyInclusion(leaf, index, size, proof, root) {
  if (!(index < size)) throw new Error(`the index ${index} is not inside the tree of ${size} leaves`);
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) throw new Error(`the inclusion proof is longer than a tree of ${size} leaves needs`);
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new Error(`the inclusion proof is shorter than a tree of ${size} leaves needs`);
  if (!sameBytes(r, root)) throw new Error("the inclusion proof does not lead to the checkpoint's root");
}

/**
 * @typedef {object} TreeHead
 * @property {string} origin
 * @property {number} size
 * @property {Uint8Array} root
 */

// tlog-checkpoint: a body of at least three non-empty lines: the origin, the size in decimal with
// no leading zero, the base64 of a 32-byte root, then any extension lines.
/** @param {string} body @returns {TreeHead} */
export function parseTreeHead(body) {
  if (!body.endsWith("\n")) throw new Error("a checkpoint body ends in a newline");
  const lines = body.slice(0, -1).split("\n");
  if (lines.length < 3 || lines.some((line) => line === "")) {
    throw new Error("a checkpoint is at least three non-empty lines");
  }
  const [origin, size, root] = lines;
  if (!/^(0|[1-9][0-9]*)$/.test(size) || !Number.isSafeInteger(Number(size))) {
    throw new Error(`the checkpoint's size "${size}" is not a decimal number without leading zeroes`);
  }
  let raw;
  try {
    raw = base64Bytes(root);
  } catch {
    raw = null;
  }
  if (raw === null || raw.length !== HASH_SIZE) throw new Error("the checkpoint's root is not the base64 of 32 bytes");
  return { origin, size: Number(size), root: raw };
}

/**
 * @typedef {object} TlogProof
 * @property {number} index
 * @property {Uint8Array[]} hashes
 * @property {string} checkpoint the signed note, verbatim
 * @property {Uint8Array | null} extra
 */

// tlog-proof: the header line, an optional "extra <base64>", "index <n>", the inclusion proof's
// hashes one per line, an empty line, then the checkpoint verbatim. Throws naming the line.
/** @param {string} text @returns {TlogProof} */
export function parseTlogProof(text) {
  const lines = String(text).split("\n");
  if (lines[0] !== PROOF_HEADER) throw new Error(`a tlog-proof starts with the line ${PROOF_HEADER}`);
  let at = 1;
  let extra = null;
  if (lines[at]?.startsWith("extra ")) {
    try {
      extra = base64Bytes(lines[at].slice("extra ".length));
    } catch {
      throw new Error(`line ${at + 1}: the extra data is not base64`);
    }
    at += 1;
  }
  const index = /^index (0|[1-9][0-9]*)$/.exec(lines[at] ?? "");
  if (!index || !Number.isSafeInteger(Number(index[1]))) {
    throw new Error(`line ${at + 1}: "index <n>" expected, a decimal without leading zeroes`);
  }
  at += 1;
  const hashes = [];
  for (; at < lines.length && lines[at] !== ""; at += 1) {
    let hash = null;
    try {
      hash = base64Bytes(lines[at]);
    } catch {
      hash = null;
    }
    if (hash === null || hash.length !== HASH_SIZE) {
      throw new Error(`line ${at + 1}: a proof hash is the base64 of 32 bytes`);
    }
    hashes.push(hash);
  }
  if (at >= lines.length) throw new Error("a tlog-proof has an empty line before its checkpoint");
  const checkpoint = lines.slice(at + 1).join("\n");
  if (checkpoint === "") throw new Error("the tlog-proof has no checkpoint");
  return { index: Number(index[1]), hashes, checkpoint, extra };
}

/** @param {bigint} n */
function uint64(n) {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

// The message a cosignature/v1 Ed25519 line signs: "cosignature/v1\ntime <ts>\n" and the body.
/** @param {string} body @param {bigint | number} timestamp */
export function cosignedMessage(body, timestamp) {
  return encoder.encode(`cosignature/v1\ntime ${BigInt(timestamp)}\n${body}`);
}

/**
 * @typedef {object} Cosigners
 * @property {Map<string, number>} valid witness name (the policy's) -> the cosignature's time
 * @property {string[]} bad witnesses whose line (name and key id theirs) does not verify
 */

// The cosignatures of a checkpoint note by the witnesses given ({name, key} with `key` a parsed
// type 0x04 vkey): a line counts when its key name and key id are a witness's and its
// timestamped signature (8-byte big-endian time || 64-byte Ed25519) verifies; other lines are
// ignored (signed-note: unknown signatures are ignored).
/**
 * @param {string} note
 * @param {{name: string, key: VKey}[]} witnesses
 * @returns {Promise<Cosigners>}
 */
export async function cosignatures(note, witnesses) {
  const { body, signatures } = parseNote(note);
  const valid = new Map();
  const bad = [];
  for (const witness of witnesses) {
    const line = signatures.find((s) => s.name === witness.key.name && s.hash === witness.key.hash);
    if (!line) continue;
    if (line.signature.length !== 8 + 64) {
      bad.push(witness.name);
      continue;
    }
    const timestamp = new DataView(line.signature.buffer, line.signature.byteOffset).getBigUint64(0);
    const key = await subtle.importKey("raw", witness.key.raw, { name: "Ed25519" }, false, ["verify"]);
    const good = await subtle.verify(
      { name: "Ed25519" },
      key,
      line.signature.slice(8),
      cosignedMessage(body, timestamp),
    );
    if (good && timestamp < 2n ** 63n) valid.set(witness.name, Number(timestamp));
    else bad.push(witness.name);
  }
  return { valid, bad };
}

// Builds the timestamp || signature blob of a cosignature line (tests, and nothing else, sign).
/** @param {bigint | number} timestamp @param {Uint8Array} signature */
export function timestampedSignature(timestamp, signature) {
  return concat(uint64(BigInt(timestamp)), signature);
}

/**
 * @typedef {object} ProofVerdict
 * @property {boolean} ok the proof holds and the quorum is met
 * @property {string} verdict "ok", "malformed", "unknown-key", "bad-signature", "wrong-origin",
 *   "not-included", "bad-cosignature", "no-quorum"
 * @property {string} message in words
 * @property {TreeHead} [head]
 * @property {string[]} [cosigners] the policy's names of the witnesses that cosigned
 * @property {QuorumWords} [quorum]
 */

// A tlog-proof of `entry` checked as tlog-proof's "Verifying a tlog proof" says: the checkpoint
// signed by one of `logKeyTexts` (and by a log of the policy when it lists any) whose key name is
// the origin, the inclusion of the entry's leaf, every cosignature of a policy witness, the quorum.
/**
 * @param {string} text
 * @param {Uint8Array} entry
 * @param {string[]} logKeyTexts
 * @param {Policy | null} policy
 * @returns {Promise<ProofVerdict>}
 */
export async function checkTlogProof(text, entry, logKeyTexts, policy) {
  let proof;
  try {
    proof = parseTlogProof(text);
  } catch (error) {
    return { ok: false, verdict: "malformed", message: `the proof is malformed: ${error.message}` };
  }
  const listed = policy && policy.logs.length ? policy.logs.map((log) => log.key.text) : logKeyTexts;
  let opened;
  try {
    opened = await openNote(proof.checkpoint, listed.filter((key) => logKeyTexts.includes(key)));
  } catch (error) {
    return { ok: false, verdict: "malformed", message: `a log key: ${error.message}` };
  }
  if (opened.verdict !== "ok") {
    const why = opened.verdict === "unknown-key" && policy?.logs.length ? `${opened.why} and the policy` : opened.why;
    return { ok: false, verdict: opened.verdict, message: `the checkpoint: ${why}` };
  }
  let head;
  try {
    head = parseTreeHead(opened.body);
  } catch (error) {
    return { ok: false, verdict: "malformed", message: `the checkpoint: ${error.message}` };
  }
  if (head.origin !== opened.key.name) {
    const message = `the checkpoint's origin ${head.origin} is not the log's name ${opened.key.name}`;
    return { ok: false, verdict: "wrong-origin", message, head };
  }
  try {
    await verifyInclusion(await leafHash(entry), proof.index, head.size, proof.hashes, head.root);
  } catch (error) {
    const message = `this event is not in the checkpoint: ${error.message}`;
    return { ok: false, verdict: "not-included", message, head };
  }
  const found = await cosignatures(proof.checkpoint, policy ? [...policy.witnesses.values()] : []);
  if (found.bad.length) {
    const message = `the cosignature of ${joinNames(found.bad)} does not verify: forged or altered`;
    return { ok: false, verdict: "bad-cosignature", message, head };
  }
  const cosigners = [...found.valid.keys()];
  if (!policy) return { ok: true, verdict: "ok", message: "no policy: no witness checked", head, cosigners };
  const quorum = describeQuorum(policy, cosigners);
  const verdict = quorum.met ? "ok" : "no-quorum";
  return { ok: quorum.met, verdict, message: quorum.sentence, head, cosigners, quorum };
}

// "w1", "w1 and w2", "w1, w2 and w3".
/** @param {string[]} names */
export function joinNames(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/**
 * @typedef {{name: string, hash: string, raw: Uint8Array<ArrayBuffer>, text: string}} VKey
 * @typedef {{name: string, key: VKey, url: string | null}} Witness
 * @typedef {{name: string, k: number, members: string[]}} Group
 * @typedef {object} Policy
 * @property {{key: VKey, url: string | null}[]} logs
 * @property {Map<string, Witness>} witnesses by the policy's name, in the file's order
 * @property {Map<string, Group>} groups
 * @property {string} quorum a witness's or a group's name, or "none"
 */

const NONE = "none";

// tlog-policy: "log <vkey> [<url>]", "witness <name> <vkey> [<url>]", "group <name> all|any|<k>
// <name>...", exactly one "quorum <name>"; blank lines and "#" comments ignored; a name is
// defined once (witnesses and groups share them) before it is used; "none" is the quorum that asks
// no witness and no group's member. Throws an Error that names the line.
/** @param {string} text @returns {Promise<Policy>} */
export async function parsePolicy(text) {
  /** @type {Policy} */
  const policy = { logs: [], witnesses: new Map(), groups: new Map(), quorum: null };
  const lines = String(text).split("\n");
  for (const [i, line] of lines.entries()) {
    const at = `line ${i + 1}`;
    // tlog-policy's character set: tab and newline are its only control characters
    const control = [...line].find((c) => (c < " " && c !== "\t") || c === "\u007f");
    if (control) {
      const code = control.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      throw new Error(`${at}: a control character (U+${code}) is not allowed`);
    }
    const fields = line.split(/[ \t]+/).filter(Boolean);
    if (!fields.length || fields[0].startsWith("#")) continue;
    try {
      await policyLine(policy, fields);
    } catch (error) {
      throw new Error(`${at}: ${error.message}`);
    }
  }
  if (policy.quorum === null) throw new Error("the policy has no quorum line");
  return policy;
}

/** @param {Policy} policy @param {string[]} fields */
async function policyLine(policy, [keyword, ...args]) {
  const defined = (name) => name !== NONE && (policy.witnesses.has(name) || policy.groups.has(name));
  const fresh = (name) => {
    if (name === NONE) throw new Error(`"${NONE}" is a reserved name`);
    if (defined(name)) throw new Error(`the name ${name} is defined already`);
  };
  const key = async (text, type, what) => {
    try {
      return await parseVerifierKey(text, type);
    } catch (error) {
      throw new Error(`the ${what} key: ${error.message}`);
    }
  };
  const hex = (raw) => [...raw].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (keyword === "log") {
    if (args.length < 1 || args.length > 2) throw new Error("log <vkey> [<url>] expected");
    const vkey = await key(args[0], 1, "log");
    if (policy.logs.some((log) => hex(log.key.raw) === hex(vkey.raw))) throw new Error("the log is listed twice");
    policy.logs.push({ key: vkey, url: args[1] ?? null });
  } else if (keyword === "witness") {
    if (args.length < 2 || args.length > 3) throw new Error("witness <name> <vkey> [<url>] expected");
    fresh(args[0]);
    const vkey = await key(args[1], 4, "witness");
    const twice = [...policy.witnesses.values()].find((w) => hex(w.key.raw) === hex(vkey.raw));
    if (twice) throw new Error(`the witness ${args[0]} has the key of ${twice.name}`);
    policy.witnesses.set(args[0], { name: args[0], key: vkey, url: args[2] ?? null });
  } else if (keyword === "group") {
    const [name, threshold, ...members] = args;
    if (!members.length) throw new Error("group <name> all|any|<k> <name>... expected, with one member at least");
    fresh(name);
    for (const [j, member] of members.entries()) {
      if (member === NONE) throw new Error(`"${NONE}" cannot be a group's member`);
      if (!defined(member)) throw new Error(`${member} is not defined on a line above`);
      if (members.indexOf(member) !== j) throw new Error(`${member} is listed twice`);
    }
    const n = members.length;
    const numeric = /^[1-9][0-9]*$/.test(threshold) ? Number(threshold) : 0;
    const k = threshold === "all" ? n : threshold === "any" ? 1 : numeric;
    if (!(k >= 1 && k <= n)) throw new Error(`the threshold "${threshold}" is not all, any or a number from 1 to ${n}`);
    policy.groups.set(name, { name, k, members });
  } else if (keyword === "quorum") {
    if (args.length !== 1) throw new Error("quorum <name> expected");
    if (policy.quorum !== null) throw new Error("a second quorum line");
    if (args[0] !== NONE && !defined(args[0])) throw new Error(`${args[0]} is not defined on a line above`);
    policy.quorum = args[0];
  } else {
    throw new Error(`unknown keyword "${keyword}" (log, witness, group or quorum)`);
  }
}

// Whether the witnesses named (the policy's names of those that cosigned) meet the quorum.
/** @param {Policy} policy @param {Iterable<string>} names */
export function quorumMet(policy, names) {
  const cosigned = new Set(names);
  const holds = (name) => {
    if (name === NONE) return true;
    const group = policy.groups.get(name);
    if (!group) return cosigned.has(name) && policy.witnesses.has(name);
    return group.members.filter(holds).length >= group.k;
  };
  return holds(policy.quorum);
}

/**
 * @typedef {object} QuorumWords
 * @property {boolean} met
 * @property {number} witnessed how many of the quorum's direct members (witnesses or groups) witnessed
 * @property {number} members how many direct members the quorum has (1 for a single witness, 0 for none)
 * @property {number} threshold how many of them it needs
 * @property {string[]} cosigned the witnesses under the quorum that cosigned, in the policy's order
 * @property {string[]} missing the witnesses under the quorum that did not
 * @property {string} words the CLI's words (domain/model/tlog/policy.py, QuorumReport.words)
 * @property {string} sentence the page's: "Witnessed by 2 of 3 (w1, w2)",
 *   "Not witnessed: needs 2 of 3; w2 and w3 have not cosigned"
 */

// The witnesses under a witness or a group, each once, in the order the groups list them.
/** @param {Policy} policy @param {string} name @returns {string[]} */
function leaves(policy, name) {
  if (name === NONE) return [];
  const group = policy.groups.get(name);
  if (!group) return [name];
  return [...new Set(group.members.flatMap((member) => leaves(policy, member)))];
}

// The quorum's verdict for the witnesses that cosigned, counted and said as the CLI does
// (`questlog verify --tlog-proof`), with the page's sentence beside the CLI's words.
/** @param {Policy} policy @param {Iterable<string>} names @returns {QuorumWords} */
export function describeQuorum(policy, names) {
  const given = new Set(names);
  const under = leaves(policy, policy.quorum);
  const cosigned = under.filter((name) => given.has(name));
  const missing = under.filter((name) => !given.has(name));
  const group = policy.groups.get(policy.quorum);
  const direct = policy.quorum === NONE ? [] : group ? group.members : [policy.quorum];
  const threshold = policy.quorum === NONE ? 0 : group ? group.k : 1;
  const witnessed = direct.filter((member) => quorumMet({ ...policy, quorum: member }, given)).length;
  const met = quorumMet(policy, given);
  const counted = `${witnessed} of ${direct.length}`;
  const list = (few) => few.join(", ");
  let words;
  let sentence;
  if (!direct.length) {
    words = "no witness required (quorum none)";
    sentence = "No witness required (quorum none)";
  } else if (met) {
    words = `witnessed by ${counted}: ${list(cosigned)}${missing.length ? ` (not cosigned by ${list(missing)})` : ""}`;
    sentence = `Witnessed by ${counted} (${list(cosigned)})`;
  } else {
    const by = cosigned.length ? ` (cosigned by ${list(cosigned)})` : "";
    words = `NOT witnessed: ${counted}, ${threshold} needed${by}; missing cosignatures from ${list(missing)}`;
    const verb = missing.length === 1 ? "has" : "have";
    sentence = `Not witnessed: needs ${threshold} of ${direct.length}; ${joinNames(missing)} ${verb} not cosigned`;
  }
  return { met, witnessed, members: direct.length, threshold, cosigned, missing, words, sentence };
}
