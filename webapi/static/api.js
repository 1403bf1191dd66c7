// The API client: the token lives in sessionStorage only, and every call carries it.
import { parse } from "./canon.js";

const KEY = "questlog.token";

export function token() {
  return sessionStorage.getItem(KEY);
}

export function setToken(value) {
  if (value) sessionStorage.setItem(KEY, value);
  else sessionStorage.removeItem(KEY);
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
