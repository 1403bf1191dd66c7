// The API client and where the page keeps its tokens (docs/table-page.md, "Tokens"):
// - the token pasted to sign in: sessionStorage (this tab), or, when "Keep me signed in on this
//   device" is ticked, localStorage for 30 days;
// - a share or invite link's token: localStorage, per campaign, for 30 days from opening the link,
//   so a bookmark, a reload or a new tab still opens the campaign; on that campaign's page it is
//   the token used.
// "Forget this device" removes every one of them.
import { parse } from "./canon.js";

const KEY = "questlog.token"; // sessionStorage: the signed-in token of this tab
const KEPT = "questlog.signin"; // localStorage: {token, expires} when kept on this device
const LINKS = "questlog.links"; // localStorage: {campaignId: {token, role, expires}}
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

// The link tokens still in date (expired ones are dropped as they are read).
export function linkTokens() {
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

export function keepLinkToken(campaignId, secret) {
  writeLinks({ ...linkTokens(), [campaignId]: { token: secret, expires: Date.now() + LIFETIME } });
}

export function dropLinkToken(campaignId) {
  const links = linkTokens();
  delete links[campaignId];
  writeLinks(links);
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

// Every token this page kept, in this tab and on this device.
export function forgetDevice() {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEPT);
  localStorage.removeItem(LINKS);
}

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

export function headers(extra = {}) {
  const out = { Accept: "application/json", ...extra };
  const secret = token();
  if (secret) out.Authorization = `Bearer ${secret}`;
  return out;
}

// Parsed with the page's own parser, which keeps each number's text for the chain check.
export async function api(path, { method = "GET", body, headers: extra } = {}) {
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

export const get = (path) => api(path);
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
