// @ts-check
// Verification in the browser with WebCrypto, from docs/dice-verification.md and docs/events.md.
// Nothing here reads the server's `verified` field: every verdict is computed again.
import { canonical } from "./canon.js";

const subtle = crypto.subtle;
const encoder = new TextEncoder();

/**
 * @param {string} hex
 * @returns {Uint8Array<ArrayBuffer>}
 */
export function hexToBytes(hex) {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let k = 0; k < out.length; k++) out[k] = parseInt(hex.slice(2 * k, 2 * k + 2), 16);
  return out;
}

/**
 * @param {ArrayBuffer | Uint8Array} bytes
 * @returns {string}
 */
export function bytesToHex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * @param {string | Uint8Array<ArrayBuffer>} data a text is hashed as UTF-8
 * @returns {Promise<string>}
 */
export async function sha256Hex(data) {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return bytesToHex(await subtle.digest("SHA-256", bytes));
}

// The player's entropy for a server roll: 16 bytes from crypto.getRandomValues, in unpadded
// base64url (22 characters of [A-Za-z0-9_-]), drawn at the moment of rolling.
/** @returns {string} */
export function freshEntropy() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

// The faces a seed gives: HMAC-SHA256 blocks of "client_seed:nonce:k" (":entropy" appended when
// the player gave entropy), read as big-endian 32-bit words, one word per die, rejecting words at
// or above the largest multiple of the sides.
/**
 * @param {string} seedHex
 * @param {string} clientSeed
 * @param {number} nonce
 * @param {number[]} sides
 * @param {string | null} [entropy]
 * @returns {Promise<number[]>}
 */
export async function deriveFaces(seedHex, clientSeed, nonce, sides, entropy = null) {
  const key = await subtle.importKey("raw", hexToBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const suffix = entropy === null || entropy === undefined ? "" : `:${entropy}`;
  const faces = [];
  let words = [];
  let block = 0;
  for (const n of sides) {
    for (;;) {
      if (words.length === 0) {
        const digest = new DataView(
          await subtle.sign("HMAC", key, encoder.encode(`${clientSeed}:${nonce}:${block}${suffix}`)),
        );
        words = Array.from({ length: 8 }, (_, k) => digest.getUint32(4 * k, false));
        block += 1;
      }
      const x = words.shift();
      if (x < 2 ** 32 - (2 ** 32 % n)) {
        faces.push((x % n) + 1);
        break;
      }
    }
  }
  return faces;
}

export const VERDICTS = {
  verified: "verified",
  mismatch: "mismatch",
  "awaiting-reveal": "awaiting reveal",
  reported: "reported",
};

// A roll's verdict and why. `seeds` maps commitments to revealed seeds the page found itself
// (a bundle's, or SeedRotated events'); proof.server_seed is used only after its hash is checked.
// `inForce`, when the page knows the whole log (a bundle), is the commitment and client seed in
// force at the roll: a proof naming others is a mismatch, whatever its faces.
/**
 * @param {import("./api.js").Roll} roll
 * @param {Record<string, string>} [seeds] revealed seeds by commitment
 * @param {{commitment: string, client_seed: string} | null} [inForce]
 * @returns {Promise<{verdict: keyof typeof VERDICTS, why: string}>}
 */
export async function rollVerdict(roll, seeds = {}, inForce = null) {
  if (roll.source === "reported" || !roll.proof) return { verdict: "reported", why: "rolled by hand" };
  const { commitment, client_seed: clientSeed, nonce } = roll.proof;
  if (inForce && inForce.commitment !== commitment) {
    return {
      verdict: "mismatch",
      why:
        `the proof names commitment ${commitment.slice(0, 12)}…, but ` +
        `${String(inForce.commitment).slice(0, 12)}… was in force`,
    };
  }
  if (inForce && inForce.client_seed !== clientSeed) {
    return {
      verdict: "mismatch",
      why: `the proof names client seed “${clientSeed}”, but “${inForce.client_seed}” was in force`,
    };
  }
  const seed = seeds[commitment] ?? roll.proof.server_seed;
  if (!seed) return { verdict: "awaiting-reveal", why: "the seed is still secret" };
  let committed = false;
  try {
    committed = (await sha256Hex(hexToBytes(seed))) === commitment;
  } catch {
    return { verdict: "mismatch", why: "the revealed seed is not hex" };
  }
  if (!committed) return { verdict: "mismatch", why: "SHA-256 of the seed is not the commitment" };
  const sides = roll.dice.map((d) => Number(d.sides));
  const claimed = roll.dice.map((d) => Number(d.face));
  const derived = await deriveFaces(seed, clientSeed, Number(nonce), sides, roll.proof.entropy ?? null);
  if (derived.join(",") !== claimed.join(",")) {
    return { verdict: "mismatch", why: `the seed gives ${derived.join(", ")}; the log says ${claimed.join(", ")}` };
  }
  return { verdict: "verified", why: `seed matches the commitment; faces ${derived.join(", ")} derived again` };
}

/**
 * @param {string} campaignId
 * @param {import("./api.js").LoggedEvent} event
 * @returns {Record<string, unknown>} what the event's hash covers
 */
export function eventBody(campaignId, event) {
  const body = {
    campaign_id: campaignId,
    version: event.version,
    type: event.type,
    timestamp: event.timestamp,
    data: event.data,
    prev_hash: event.prev_hash,
  };
  if (event.actor !== null && event.actor !== undefined) body.actor = event.actor;
  return body;
}

/**
 * @param {string} campaignId
 * @param {import("./api.js").LoggedEvent} event
 * @returns {Promise<string>}
 */
export async function eventHash(campaignId, event) {
  return sha256Hex(canonical(eventBody(campaignId, event)));
}

// Check consecutive events (ascending versions): each hash recomputed, each prev_hash linked.
// `prev` is the hash of the event before the first one, when known.
/**
 * @param {string} campaignId
 * @param {import("./api.js").LoggedEvent[]} events
 * @param {string} [prev]
 * @returns {Promise<{ok: boolean, checked: number, version?: number, why?: string, last?: string}>}
 */
export async function checkChain(campaignId, events, prev = undefined) {
  let last = prev;
  let checked = 0;
  for (const event of events) {
    if (Number(event.version) === 1) last = "0".repeat(64);
    if (last !== undefined && event.prev_hash !== last) {
      return {
        ok: false,
        checked,
        version: event.version,
        why: `prev_hash does not link to version ${event.version - 1}`,
      };
    }
    const hash = await eventHash(campaignId, event);
    if (hash !== event.hash)
      return { ok: false, checked, version: event.version, why: "its hash does not match its content" };
    last = hash;
    checked += 1;
  }
  return { ok: true, checked, last };
}

// Revealed seeds named by SeedRotated events, by the commitment they open.
/**
 * @param {import("./api.js").LoggedEvent[]} events
 * @returns {Record<string, string>}
 */
export function seedsFromEvents(events) {
  /** @type {Record<string, string>} */
  const seeds = {};
  for (const event of events) {
    if (event.type === "questlog.SeedRotated") seeds[event.data.revealed_commitment] = event.data.revealed_seed;
    if (event.type === "questlog.CampaignImported") Object.assign(seeds, event.data.revealed_seeds || {});
  }
  return seeds;
}

// Each server roll's commitment and client seed in force, walking the whole log in order: the
// creation event's, then each SeedRotated's and CampaignImported's commitment (an import commits
// to a seed the new host holds) and each ClientSeedChanged's client seed. A rollback does not
// restore them (the dice stream goes on).
/**
 * @param {import("./api.js").LoggedEvent[]} events
 * @returns {Map<string, {commitment: string, client_seed: string}>} by roll id
 */
export function diceInForce(events) {
  const inForce = new Map();
  let current = { commitment: null, client_seed: null };
  for (const event of events) {
    const d = event.data || {};
    if (event.type === "questlog.CampaignCreated") current = { commitment: d.commitment, client_seed: d.client_seed };
    else if (event.type === "questlog.SeedRotated" || event.type === "questlog.CampaignImported")
      current = { ...current, commitment: d.commitment };
    else if (event.type === "questlog.ClientSeedChanged") current = { ...current, client_seed: d.client_seed };
    for (const roll of rollsOf(event)) inForce.set(roll.roll_id, current);
  }
  return inForce;
}

// Every roll record an event carries (DiceRolled and game events alike).
/**
 * @param {import("./api.js").LoggedEvent} event
 * @returns {import("./api.js").Roll[]}
 */
export function rollsOf(event) {
  return Array.isArray(event.data?.rolls) ? event.data.rolls : [];
}

// The server rolls under each commitment must carry nonces 0, 1, 2, ... in log order (a rollback
// keeps its rolls, so nothing ever takes a nonce back). A missing nonce is a roll removed from the
// log, even when the chain was recomputed after it; each problem names the version and the nonces.
/**
 * @param {import("./api.js").LoggedEvent[]} events
 * @returns {{version: number, roll_id: string, why: string, missing?: number[]}[]}
 */
export function nonceProblems(events) {
  const next = new Map();
  const used = new Map();
  const problems = [];
  for (const event of events) {
    for (const roll of rollsOf(event)) {
      if (roll.source !== "server" || !roll.proof) continue;
      const { commitment, nonce } = roll.proof;
      const where = { version: event.version, roll_id: roll.roll_id };
      if (!Number.isInteger(nonce) || nonce < 0) {
        problems.push({ ...where, why: `roll ${roll.roll_id} has no valid nonce` });
        continue;
      }
      if (!used.has(commitment)) used.set(commitment, new Set());
      if (used.get(commitment).has(nonce)) {
        problems.push({ ...where, why: `nonce ${nonce} reused by roll ${roll.roll_id}` });
        continue;
      }
      used.get(commitment).add(nonce);
      const expected = next.get(commitment) ?? 0;
      if (nonce > expected) {
        const missing =
          nonce === expected + 1
            ? `nonce ${expected} under this commitment is`
            : `nonces ${expected} to ${nonce - 1} under this commitment are`;
        problems.push({
          ...where,
          missing: [expected, nonce - 1],
          why: `roll ${roll.roll_id} carries nonce ${nonce}, but ${missing} missing from the log`,
        });
      } else if (nonce < expected) {
        problems.push({
          ...where,
          why: `roll ${roll.roll_id} carries nonce ${nonce} after nonce ${expected - 1}: out of order`,
        });
      }
      next.set(commitment, Math.max(expected, nonce + 1));
    }
  }
  return problems;
}
