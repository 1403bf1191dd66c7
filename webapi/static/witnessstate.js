// @ts-check
// Why a head is not witnessed, from the missing cosignatures and what the host reports of each
// witness (docs/table-page.md, "The witness panel"): a WAIT when the host explains every missing
// one by a submission in flight ("waiting") or a witness it cannot reach ("down"), for less than
// LONG_WAIT_MS; a WARNING for any it cannot explain: a witness it says refused or is in conflict,
// one the group's policy names that it does not ask, or a wait that lasted too long. The head is
// never called witnessed without the quorum either way (tlog.js decides that).
import { joinNames } from "./tlog.js";

export const LONG_WAIT_MS = 10 * 60 * 1000;

/**
 * @typedef {{name: string, state: string, url?: string | null, error?: string | null,
 *   waiting_since?: string | null}} Reported
 * @typedef {{name: string, alarm: boolean, words: string}} Missing
 */

/** @param {number} ms */
function minutes(ms) {
  const n = Math.floor(ms / 60000);
  return `${n} minute${n === 1 ? "" : "s"}`;
}

// One missing witness: whether it is an alarm, and the words for it.
/** @param {string} name @param {Reported | undefined} w @param {number} now */
export function missingWitness(name, w, now) {
  if (!w || !w.url) {
    return { name, alarm: true, words: `${name} has not cosigned (the host does not submit to ${name})` };
  }
  const why = w.error ? `: ${w.error}` : "";
  if (w.state === "refused") return { name, alarm: true, words: `${name} refused the host's checkpoint${why}` };
  if (w.state === "conflict") {
    return { name, alarm: true, words: `${name} holds another history of the host's log (conflict${why})` };
  }
  if (w.state !== "waiting" && w.state !== "down") {
    return { name, alarm: true, words: `${name} has not cosigned this checkpoint (the host says ${w.state})` };
  }
  const down = w.state === "down" ? ` (the host says it is down${why})` : "";
  const since = w.waiting_since ? Date.parse(w.waiting_since) : NaN;
  if (now - since > LONG_WAIT_MS) {
    return { name, alarm: true, words: `${name} has not cosigned for ${minutes(now - since)}${down}` };
  }
  return { name, alarm: false, words: `${name}${down}` };
}

// What the panel says when the quorum is not met: "not-witnessed" (the red warning) or "waiting".
/**
 * @param {{threshold: number, members: number, missing: string[]}} quorum tlog.js's describeQuorum
 * @param {Reported[]} reported the host's witnesses (GET /campaigns/{id}/witnessing)
 * @param {number} now ms since the epoch
 * @returns {{state: "not-witnessed" | "waiting", warning: boolean, text: string}}
 */
export function unmetQuorum(quorum, reported, now) {
  const missing = quorum.missing.map((name) => missingWitness(name, reported.find((w) => w.name === name), now));
  const needs = `needs ${quorum.threshold} of ${quorum.members}`;
  const alarms = missing.filter((m) => m.alarm);
  if (alarms.length) {
    const text = `Not witnessed: ${needs}; ${alarms.map((m) => m.words).join("; ")}`;
    return { state: "not-witnessed", warning: true, text };
  }
  const names = joinNames(missing.map((m) => m.words));
  return { state: "waiting", warning: false, text: `Not witnessed yet: ${needs}, waiting for ${names}` };
}

// The host's count of its log, which is not the campaign's version: "up to 46 events of the
// host's log (every campaign on this host)".
/** @param {number} size */
export function logSize(size) {
  const events = `${size.toLocaleString("en")} event${size === 1 ? "" : "s"}`;
  return `the host's log up to ${events} (every campaign on this host)`;
}
