// @ts-check
// The API client and where the page keeps its tokens (docs/table-page.md, "Tokens"):
// - the token pasted to sign in: sessionStorage (this tab), or, when "Keep me signed in on this
//   device" is ticked, localStorage for 30 days;
// - a share or invite link's token, per campaign: sessionStorage (this tab: a reload still opens
//   the campaign), or, when "Keep this link on this device" is ticked, localStorage for 30 days,
//   so that a bookmark or a new tab opens it too; on that campaign's page it is the token used.
// "Sign out" forgets the tokens this tab uses; "Forget this device" removes every one of them.
import { parse } from "./canon.js";

// The shapes of the API's answers the page reads (docs/api.md has them all), for the type check
// (`// @ts-check`, tests/page_lint/tsconfig.json); other modules import them by name:
// `/** @typedef {import("./api.js").Campaign} Campaign */`.

/**
 * A campaign as GET /campaigns/{id} answers it (at ?version=N: as it was then).
 * @typedef {object} Campaign
 * @property {string} id
 * @property {string} name
 * @property {"quest-calendar" | "calendar-board"} game
 * @property {number} version
 * @property {string} head_hash
 * @property {Record<string, any>} [state] the game's state (the boards draw it)
 * @property {{campaign_id: string, version: number}} [origin] where a fork was made from
 * @property {{id: string, name: string, at_version: number}[]} [forks]
 */

/**
 * One event of the log (GET /campaigns/{id}/events), with its hash and, read back, its summary.
 * @typedef {object} LoggedEvent
 * @property {number} version
 * @property {string} type "questlog.RolledBack", "qc.Died"…
 * @property {string} timestamp
 * @property {Record<string, any>} data
 * @property {string} prev_hash
 * @property {string} [hash]
 * @property {string | null} [actor] "name#token-id"
 * @property {string} [summary] the server's line in words
 * @property {boolean} [undone] undone by a later rollback
 */

/**
 * A die of a roll: its sides and face; `kept: false` when the roll dropped it.
 * @typedef {{sides: number, face: number, kept?: boolean}} Die
 */

/**
 * What a server roll commits to: the seed's commitment, the client seed, the nonce and, once
 * revealed, the seed; `entropy` is the player's, when the command sent some.
 * @typedef {object} RollProof
 * @property {string} commitment
 * @property {string} client_seed
 * @property {number} nonce
 * @property {string} [server_seed]
 * @property {string | null} [entropy]
 */

/**
 * A roll (GET /campaigns/{id}/rolls, or an event's `data.rolls`).
 * @typedef {object} Roll
 * @property {string} roll_id
 * @property {number} [version]
 * @property {"server" | "reported"} source
 * @property {string} [purpose]
 * @property {Die[]} dice
 * @property {RollProof | null} [proof]
 * @property {boolean} [undone]
 */

/**
 * A refusal's body (application/problem+json, RFC 9457) with Questlog's `rule` and `errors`.
 * @typedef {object} Problem
 * @property {string} [type]
 * @property {string} [title]
 * @property {string} [detail]
 * @property {string} [rule]
 * @property {Record<string, unknown>} [errors]
 */

/**
 * An open or settled rollback proposal (GET /campaigns/{id}/rollback/proposals).
 * @typedef {object} Proposal
 * @property {string} proposal_id
 * @property {string} proposer a seat, or "owner"
 * @property {number} to_version
 * @property {string} reason
 * @property {string[]} [players] the seats that must agree
 * @property {string[]} [approvals]
 * @property {string[]} [approved_by]
 * @property {string} [status] "open", …
 */

const KEY = "questlog.token"; // sessionStorage: the signed-in token of this tab
const KEPT = "questlog.signin"; // localStorage: {token, expires} when kept on this device
const LINKS = "questlog.links"; // localStorage: {campaignId: {token, expires}}, kept on the device
const TAB_LINKS = "questlog.tablinks"; // sessionStorage: {campaignId: token}, opened in this tab
export const LIFETIME_DAYS = 30;
const LIFETIME = LIFETIME_DAYS * 24 * 3600 * 1000;

let campaign = null; // the campaign the page shows: its link token, if any, is the one used

function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    return null;
  }
}

// The link tokens kept on this device and still in date (expired ones are dropped as read).
function keptLinks() {
  const all = readJson(LINKS) || {};
  const now = Date.now();
  const live = Object.fromEntries(Object.entries(all).filter(([, v]) => v && v.expires > now));
  if (Object.keys(live).length !== Object.keys(all).length) writeLinks(live);
  return live;
}

function writeLinks(links) {
  if (Object.keys(links).length) localStorage.setItem(LINKS, JSON.stringify(links));
  else localStorage.removeItem(LINKS);
}

function tabLinks() {
  try {
    const links = JSON.parse(sessionStorage.getItem(TAB_LINKS) || "{}");
    return links && typeof links === "object" ? links : {};
  } catch {
    return {};
  }
}

function writeTabLinks(links) {
  if (Object.keys(links).length) sessionStorage.setItem(TAB_LINKS, JSON.stringify(links));
  else sessionStorage.removeItem(TAB_LINKS);
}

// Every link token this tab may use, by campaign: {token, kept} (kept: on this device too). A link
// opened in this tab wins over one kept from before.
export function linkTokens() {
  const kept = keptLinks();
  const out = Object.fromEntries(Object.entries(kept).map(([id, v]) => [id, { token: v.token, kept: true }]));
  for (const [id, secret] of Object.entries(tabLinks())) out[id] = { token: secret, kept: kept[id]?.token === secret };
  return out;
}

// A link just opened: its token for this tab only, until "Keep this link on this device".
export function keepLinkToken(campaignId, secret) {
  writeTabLinks({ ...tabLinks(), [campaignId]: secret });
}

// "Keep this link on this device" ticked (for 30 days) or not (this tab only).
export function keepLinkOnDevice(campaignId, keep) {
  const secret = linkTokens()[campaignId]?.token;
  const kept = keptLinks();
  if (keep && secret) kept[campaignId] = { token: secret, expires: Date.now() + LIFETIME };
  else delete kept[campaignId];
  writeLinks(kept);
  if (secret) writeTabLinks({ ...tabLinks(), [campaignId]: secret }); // this tab keeps it either way
}

export function dropLinkToken(campaignId) {
  const kept = keptLinks();
  delete kept[campaignId];
  writeLinks(kept);
  const tab = tabLinks();
  delete tab[campaignId];
  writeTabLinks(tab);
}

export function useCampaign(id) {
  campaign = id;
}

export function linkToken() {
  return campaign ? linkTokens()[campaign]?.token ?? null : null;
}

export function signedInToken() {
  const tab = sessionStorage.getItem(KEY);
  if (tab) return tab;
  const kept = readJson(KEPT);
  if (kept && kept.expires > Date.now()) return kept.token;
  if (kept) localStorage.removeItem(KEPT);
  return null;
}

// The token every call carries: the shown campaign's link token, else the signed-in one.
export function token() {
  return linkToken() || signedInToken();
}

export function setToken(value, { keep = false } = {}) {
  if (value) sessionStorage.setItem(KEY, value);
  else sessionStorage.removeItem(KEY);
  if (value && keep) localStorage.setItem(KEPT, JSON.stringify({ token: value, expires: Date.now() + LIFETIME }));
  else localStorage.removeItem(KEPT);
}

// "Sign out": the tokens this tab uses, as the sign-in form's "Sign out" forgets its own (the
// tab's and, if it was kept, the device's): the signed-in token, the links opened in this tab,
// and the shown campaign's link kept on the device. Other campaigns' kept links stay.
export function signOut() {
  if (campaign) dropLinkToken(campaign);
  sessionStorage.removeItem(TAB_LINKS);
  setToken(null);
}

// Every token this page kept, in this tab and on this device.
export function forgetDevice() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(TAB_LINKS);
  localStorage.removeItem(KEPT);
  localStorage.removeItem(LINKS);
}

// A refusal: the HTTP status and the problem+json body ({} when there was none).
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {Problem | null} [problem]
   */
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

/**
 * @param {Record<string, string>} [extra]
 * @returns {Record<string, string>}
 */
export function headers(extra = {}) {
  /** @type {Record<string, string>} */
  const out = { Accept: "application/json", ...extra };
  const secret = token();
  if (secret) out.Authorization = `Bearer ${secret}`;
  return out;
}

// Parsed with the page's own parser, which keeps each number's text for the chain check.
/**
 * @param {string} path
 * @param {{method?: string, body?: unknown, headers?: Record<string, string>}} [request]
 * @returns {Promise<any>} the answer's JSON (canon.js's parse), null for an empty body
 */
export async function api(path, { method = "GET", body, headers: extra } = {}) {
  /** @type {{method: string, headers: Record<string, string>, body?: string}} */
  const init = { method, headers: headers(extra) };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 200) };
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** @type {(path: string) => Promise<any>} */
export const get = (path) => api(path);
/** @type {(path: string, body: unknown, extra?: Record<string, string>) => Promise<any>} */
export const post = (path, body, extra) => api(path, { method: "POST", body, headers: extra });
export const del = (path) => api(path, { method: "DELETE" });

// A route this server may not have yet (built in parallel): its 404 is an answer, null.
export async function optional(path) {
  try {
    return await get(path);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return null;
    throw error;
  }
}
