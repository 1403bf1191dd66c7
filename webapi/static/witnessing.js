// @ts-check
// The witness panel in the campaign's proof (docs/table-page.md, "The witness panel"): the head to
// read aloud ("v12 · 1a2b3c4d"), a QR of the campaign's signed checkpoint and a copy of it, and
// whether the head is witnessed, checked here (tlog.js) from GET /campaigns/{id}/witnessing: the
// tlog-proof's entry is this campaign's event at the witnessed version with the hash the log has,
// signed by a key the server lists, included in the checkpoint, cosigned by a quorum of the
// policy's witnesses. The policy: an invite or share link's (#policy=, base64url), or one the
// group pasted (kept on this device per campaign), else the host's own (GET /log/policy).
import { ApiError, get, headers } from "./api.js";
import { clear, h } from "./dom.js";
import { checkTlogProof, entryBytes, joinNames, parseEntry, parsePolicy, parseTlogProof } from "./tlog.js";
import { toast } from "./ui.js";
import { logSize, unmetQuorum } from "./witnessstate.js";

const STORE_PREFIX = "questlog.policy.";
const RECHECK_MS = 5000; // the publisher's default period (QUESTLOG_CHECKPOINT_SECONDS)
// with no policy there is no witness to wait for: the head's place in the log is checked again
// seldom (and at every change of the campaign), so that an open page costs the host little
const NO_POLICY_RECHECK_MS = 30000;
// the states the panel checks again every RECHECK_MS, until they clear by themselves
const UNSETTLED = new Set(["pending", "waiting", "not-witnessed", "failed", "unchecked"]);

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */
/** @typedef {{text: string, source: "link" | "group" | "host" | "none", error?: string}} ChosenPolicy */

const SOURCES = {
  link: "Witness policy from the invite link (kept on this device).",
  group: "Witness policy pasted by the group (kept on this device).",
  host: "Witness policy chosen by the host: agree on your own policy for real trust.",
  none: "No witness policy: the host names no witnesses, and none was given with the link or pasted here.",
};

function storeKey(campaignId) {
  return `${STORE_PREFIX}${location.origin}/${campaignId}`;
}

// The policy kept for a campaign (a link's or the group's), or null.
/** @param {string} campaignId @returns {ChosenPolicy | null} */
export function keptPolicy(campaignId) {
  try {
    const kept = JSON.parse(localStorage.getItem(storeKey(campaignId)) || "null");
    return kept && typeof kept.text === "string" ? kept : null;
  } catch {
    return null;
  }
}

/** @param {string} campaignId @param {ChosenPolicy | null} policy */
function keepPolicy(campaignId, policy) {
  if (policy) localStorage.setItem(storeKey(campaignId), JSON.stringify(policy));
  else localStorage.removeItem(storeKey(campaignId));
}

// A link's `policy=` (base64url of the policy file, UTF-8), checked like a pasted one and kept
// for the campaign only if it parses; a broken one keeps nothing (the policy kept before stays)
// and is said once, in the panel, by `linkRefusal`.
// (why it was refused is kept for this tab only, to be said after the page loads)
const REFUSED_PREFIX = "questlog.policy-refused.";
const refused = {
  /** @param {string} id @param {string} why */
  set: (id, why) => sessionStorage.setItem(REFUSED_PREFIX + id, why),
  /** @param {string} id */
  get: (id) => sessionStorage.getItem(REFUSED_PREFIX + id),
  /** @param {string} id */
  delete: (id) => sessionStorage.removeItem(REFUSED_PREFIX + id),
};

/** @param {string} campaignId @param {string} encoded */
export async function keepLinkPolicy(campaignId, encoded) {
  let text;
  try {
    if (/[^A-Za-z0-9_-]/.test(encoded.replace(/=+$/, ""))) throw new Error("not base64url");
    const bytes = Uint8Array.from(atob(encoded.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    refused.set(campaignId, "it is not base64url of a text");
    return;
  }
  try {
    await parsePolicy(text);
  } catch (error) {
    refused.set(campaignId, error.message);
    return;
  }
  refused.delete(campaignId);
  keepPolicy(campaignId, { text, source: "link" });
}

// Why the link's policy was refused ("" if it was not), said in the panel.
/** @param {string} campaignId */
function linkRefusal(campaignId) {
  const why = refused.get(campaignId);
  return why ? `The link's witness policy was refused and not kept: ${why}.` : "";
}

/** @param {string} text */
export function policyParam(text) {
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// A text route (text/plain, image/svg+xml): the answer, or null for a 404 (no such route or none).
/** @param {string} path @param {string} accept */
async function fetchOptional(path, accept) {
  const response = await fetch(path, { headers: headers({ Accept: accept }) });
  if (response.status === 404) {
    await response.body?.cancel(); // the problem's body is not wanted: the request ends here
    return null;
  }
  if (!response.ok) throw new ApiError(response.status, { detail: (await response.text()).slice(0, 200) });
  return response;
}

/** @type {Promise<string | null> | null} */
let hostPolicyRead = null;

// The host's policy (GET /log/policy), or null when it has none: read once per page load (the
// host reads its policy file when it starts), not at every recheck.
export function hostPolicy() {
  hostPolicyRead ??= fetchOptional("/log/policy", "text/plain")
    .then((response) => (response ? response.text() : null))
    .catch((error) => {
      hostPolicyRead = null; // a failed read is tried again at the next check
      throw error;
    });
  return hostPolicyRead;
}

// An invite or share link with the host's policy beside its token (when `include` and the host has
// one): "…#token=…&policy=<base64url>". Without one, the link as it was, and a toast says so.
/** @param {string} url @param {boolean} include */
export async function linkWithPolicy(url, include) {
  if (!include) return url;
  const text = await hostPolicy().catch(() => null);
  if (text === null) {
    toast("This host has no witness policy (GET /log/policy): the link carries none", true);
    return url;
  }
  return `${url}${url.includes("#") ? "&" : "#"}policy=${policyParam(text)}`;
}

/** @param {string} campaignId @returns {Promise<ChosenPolicy>} */
async function choosePolicy(campaignId) {
  const kept = keptPolicy(campaignId);
  if (kept) return kept;
  const host = await hostPolicy();
  return host === null ? { text: "", source: "none" } : { text: host, source: "host" };
}

// The witness states the server reports, in words: "w3 is down", "w2 and w3 are down".
/** @param {{name: string, state: string}[]} witnesses @param {string} state */
function inState(witnesses, state) {
  const names = witnesses.filter((w) => w.state === state).map((w) => w.name);
  if (!names.length) return "";
  return `${joinNames(names)} ${names.length === 1 ? "is" : "are"} ${state}`;
}

// The campaign's hash at a version: from the timeline the page loaded, else the log.
/** @param {CampaignPage} page @param {number} version */
async function hashAt(page, version) {
  const loaded = (page.timeline?.loaded || []).find((e) => Number(e.version) === version);
  if (loaded) return loaded.hash;
  const events = await get(`/campaigns/${page.id}/events?after=${version - 1}&limit=1`);
  const event = events.items[0];
  return event && Number(event.version) === version ? event.hash : null;
}

/**
 * @typedef {object} WitnessWords
 * @property {string} state "witnessed", "waiting", "not-witnessed", "pending", "no-policy", "failed",
 *   "bad-policy", "no-log"
 * @property {string} text
 * @property {boolean} warning
 * @property {boolean} [recheck] pending, or a witness still waiting: check again soon
 */

// The version the proof is of: the server's witnessed_version, or (when the host's own quorum is
// not met, which the server reports as null) the version the proof's entry names; a string says
// why there is none. Either way the entry checked is the one the page builds from its own hash.
/** @param {CampaignPage} page @param {any} report @returns {number | string} */
function provedVersion(page, report) {
  if (report.witnessed_version !== null && report.witnessed_version !== undefined) {
    return Number(report.witnessed_version);
  }
  let entry;
  try {
    const extra = parseTlogProof(report.proof).extra;
    if (!extra) return "the host's proof does not say which version it proves";
    entry = parseEntry(extra);
  } catch (error) {
    return `the host's proof is malformed: ${error.message}`;
  }
  if (entry.campaignId !== page.id) return `the host's proof is of campaign ${entry.campaignId}, not this one`;
  return entry.version;
}

// What the panel says about the head, from the server's witnessing report (null: the server has
// no such route), checked here.
/**
 * @param {CampaignPage} page
 * @param {ChosenPolicy} chosen
 * @param {any} report GET /campaigns/{id}/witnessing
 * @returns {Promise<WitnessWords>}
 */
export async function witnessWords(page, chosen, report) {
  let policy = null;
  if (chosen.error || chosen.text) {
    try {
      if (chosen.error) throw new Error(chosen.error);
      policy = await parsePolicy(chosen.text);
    } catch (error) {
      return { state: "bad-policy", text: `The witness policy is not valid: ${error.message}.`, warning: true };
    }
  }
  if (report === null) {
    return { state: "no-log", text: "This server keeps no Merkle log: compare the head aloud.", warning: false };
  }
  const witnesses = (report.witnesses || []).map((w) => ({
    name: String(w.name),
    state: String(w.state),
    url: w.url ?? null,
    error: w.error ?? null,
    waiting_since: w.waiting_since ?? null,
  }));
  const head = Number(report.head_version);
  const down = inState(witnesses, "down");
  const waits = report.pending ? `v${head} waits for the next checkpoint${down ? ` (${down})` : ""}` : "";
  // not settled while the head waits or a witness the host asks has not cosigned
  const recheck = Boolean(report.pending) || witnesses.some((w) => w.url && w.state !== "cosigned");
  const lead = policy ? "" : "No witnesses: compare the head aloud. ";
  if (!report.proof) {
    return { state: "pending", text: `${lead}${waits || "No checkpoint yet"}.`, warning: false, recheck };
  }
  const version = provedVersion(page, report);
  if (typeof version === "string") return { state: "failed", text: `Warning: ${version}.`, warning: true };
  const hash = await hashAt(page, version);
  if (hash === null) {
    const text = `Warning: the host's log names version ${version}, which this campaign does not have.`;
    return { state: "failed", text, warning: true };
  }
  const keys = (await get("/.well-known/questlog-key")).keys.map((k) => k.key);
  const verdict = await checkTlogProof(report.proof, entryBytes(page.id, version, hash), keys, policy);
  const upTo = waits ? ` up to v${version}; ${waits}` : "";
  if (verdict.verdict !== "ok" && verdict.verdict !== "no-quorum") {
    const text = `Warning: the host's log does not prove v${version}: ${verdict.message}.`;
    return { state: "failed", text, warning: true };
  }
  if (!policy) {
    const events = `${verdict.head.size.toLocaleString("en")} event${verdict.head.size === 1 ? "" : "s"}`;
    const text = `${lead}v${version} is in the host's log (its checkpoint of ${events})${upTo}.`;
    return { state: report.pending ? "pending" : "no-policy", text, warning: false, recheck };
  }
  if (verdict.verdict === "no-quorum") {
    // a wait the host explains (waiting, down, not for long), or the red warning (witnessstate.js)
    const unmet = unmetQuorum(verdict.quorum, witnesses, Date.now());
    const later = waits ? ` v${version} is the last version in a checkpoint; ${waits}.` : "";
    const text = `${unmet.text}.${later}`;
    return { state: unmet.state, text, warning: unmet.warning, recheck: true };
  }
  return { state: "witnessed", text: `${verdict.message}${upTo}.`, warning: false, recheck };
}

/** @param {string} path */
async function optionalJson(path) {
  try {
    return await get(path);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return null;
    throw error;
  }
}

// The panel: its element for the proof, and refresh() (after each checkpoint check).
/** @param {CampaignPage} page */
export function witnessPanel(page) {
  const readout = h("p", { class: "head-readout", dataset: { headReadout: "" } });
  const status = h("p", { class: "witness-status", role: "status", dataset: { witness: "checking" } }, "Checking…");
  const source = h("p", { class: "muted policy-source" });
  const list = h("ul", { class: "witnesses plain" });
  const qr = h("img", { class: "checkpoint-qr", dataset: { checkpointQr: "" }, alt: "", width: 180, hidden: true });
  let note = "";
  const copy = h(
    "button",
    { type: "button", class: "small", onclick: () => copyNote(note) },
    "Copy the signed checkpoint",
  );
  const form = policyForm(page, () => panel.refresh());
  let asked = 0;
  let timer = 0;
  let shownQr = "";
  let opened = false;
  const element = h(
    "div",
    { class: "witness-panel", role: "group", "aria-label": "Compare and witnesses" },
    readout,
    h(
      "p",
      { class: "muted" },
      "Read this aloud: every player's page at the table should show the same version and 8 characters.",
    ),
    h(
      "div",
      { class: "witness-row" },
      h("div", { class: "witness-words" }, status, source, list, form),
      h("div", { class: "qr" }, qr, h("p", {}, copy)),
    ),
  );
  const refusal = h("p", { class: "error", role: "alert", dataset: { policyRefused: "" }, hidden: true });
  source.after(refusal);
  const panel = {
    element,
    /** @type {string | undefined} the state said (`data-witness`), for the integrity badge */
    state: undefined,
    async refresh() {
      clearTimeout(timer);
      const ask = ++asked;
      const c = page.head;
      readout.textContent = `v${c.version} · ${c.head_hash.slice(0, 8)}`;
      const [words, chosen, report] = await checked(page);
      if (ask !== asked) return;
      clear(status, words.text);
      status.dataset.witness = words.state;
      status.classList.toggle("warning", words.warning);
      panel.state = words.state;
      page.showIntegrity();
      source.textContent = SOURCES[chosen.source];
      source.dataset.policySource = chosen.source;
      refusal.textContent = linkRefusal(page.id);
      refusal.hidden = !refusal.textContent;
      form.show(chosen);
      // the red warning opens the proof once (a wait does not); the reader may close it again
      const proof = element.closest("details");
      if (words.warning && proof && !opened) opened = proof.open = true;
      // until it settles, checked again every 5 s, so that a witness back clears it by itself
      if (words.recheck || UNSETTLED.has(words.state)) {
        const wait = chosen.source === "none" ? NO_POLICY_RECHECK_MS : RECHECK_MS;
        timer = setTimeout(() => element.isConnected && panel.refresh(), wait);
      }
      await Promise.all([
        showWitnesses(list, report),
        shownQr === `${c.version}` ? null : showQr(page, qr).then(() => (shownQr = `${c.version}`)),
        get(`/campaigns/${page.id}/checkpoint`).then((head) => (note = head.checkpoint), () => (note = "")),
      ]);
    },
  };
  return panel;
}

// The policy chosen, what to say, and the server's report (null when it has no such route).
/** @param {CampaignPage} page @returns {Promise<[WitnessWords, ChosenPolicy, any]>} */
async function checked(page) {
  /** @type {ChosenPolicy} */
  let chosen = { text: "", source: "none" };
  let report = null;
  try {
    chosen = await choosePolicy(page.id);
    report = await optionalJson(`/campaigns/${page.id}/witnessing`);
    return [await witnessWords(page, chosen, report), chosen, report];
  } catch (error) {
    const text = `The witnesses could not be checked: ${error.message}.`;
    return [{ state: "unchecked", text, warning: false }, chosen, report];
  }
}

// The witnesses the host submits its checkpoints to, and what each last did.
/** @param {HTMLElement} list @param {any} report */
function showWitnesses(list, report) {
  const witnesses = report?.witnesses || [];
  clear(
    list,
    witnesses.length ? h("li", { class: "muted" }, "The witnesses the host asks:") : null,
    witnesses.map((w) => {
      const size = Number(w.cosigned_size || 0);
      // the host's whole log, not this campaign's versions: "cosigned the host's log up to 46 events…"
      let text = `${w.name}: ${w.state}`;
      if (w.state === "cosigned") text = `${w.name}: cosigned ${logSize(size)}`;
      else {
        const last = size ? `last cosigned ${logSize(size)}` : "";
        const asked = w.url ? "" : "not asked: the host has no address for it";
        const why = [w.error, asked, last].filter(Boolean).join("; ");
        if (why) text += ` (${why})`;
      }
      return h("li", { dataset: { witnessName: w.name, witnessState: w.state } }, text);
    }),
  );
}

/** @param {CampaignPage} page @param {HTMLImageElement} img */
async function showQr(page, img) {
  try {
    const response = await fetchOptional(`/campaigns/${page.id}/checkpoint/qr`, "image/svg+xml");
    if (!response) {
      img.hidden = true;
      return;
    }
    const old = img.src;
    img.src = URL.createObjectURL(await response.blob());
    if (old.startsWith("blob:")) URL.revokeObjectURL(old);
    img.alt =
      `QR code of the signed checkpoint of version ${page.head.version}: ` +
      `scan it on another player's phone to compare the checkpoints`;
    img.hidden = false;
  } catch {
    img.hidden = true;
  }
}

/** @param {string} note */
function copyNote(note) {
  if (!note) {
    toast("No signed checkpoint to copy yet", true);
    return;
  }
  navigator.clipboard?.writeText(note).then(
    () => toast("Copied the signed checkpoint"),
    () => toast("Copy it from the proof's checkpoint: this browser does not let the page copy", true),
  );
}

// "Witness policy": the group's own policy pasted, checked before it is kept (an error names the
// line and keeps nothing), or forgotten (back to the link's or the host's).
/** @param {CampaignPage} page @param {() => void} changed */
function policyForm(page, changed) {
  const id = `witness-policy-${page.id}`;
  const text = h("textarea", { id, rows: 5, cols: 60, spellcheck: "false", dataset: { witnessPolicy: "" } });
  const error = h("p", { class: "error", role: "alert", id: `${id}-error` });
  const forget = h("button", { type: "button", class: "small" }, "Forget this device's policy");
  // the policy in use, whatever its source (the link's, the group's, the host's), read-only
  const inUse = h("pre", { class: "policy-in-use", dataset: { policyInUse: "" }, tabindex: 0 });
  const form = h(
    "form",
    { class: "policy-form" },
    h("label", { for: id }, "Witness policy (tlog-policy: log, witness, group and quorum lines)"),
    text,
    error,
    h("p", {}, h("button", { type: "submit", class: "small" }, "Use this policy"), " ", forget),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await parsePolicy(text.value);
    } catch (problem) {
      error.textContent = `Witness policy: ${problem.message}`;
      text.setAttribute("aria-invalid", "true");
      text.setAttribute("aria-describedby", error.id);
      return;
    }
    error.textContent = "";
    text.removeAttribute("aria-invalid");
    refused.delete(page.id);
    keepPolicy(page.id, { text: text.value, source: "group" });
    changed();
  });
  forget.addEventListener("click", () => {
    refused.delete(page.id);
    keepPolicy(page.id, null);
    changed();
  });
  const details = h(
    "details",
    { class: "policy" },
    h("summary", {}, "Witness policy"),
    h("p", { class: "muted" }, "The policy in use:"),
    inUse,
    form,
  );
  return Object.assign(details, {
    /** @param {ChosenPolicy} chosen */
    show(chosen) {
      inUse.textContent = chosen.text || "(none)";
      if (document.activeElement !== text && !text.getAttribute("aria-invalid")) text.value = chosen.text;
      forget.hidden = chosen.source !== "link" && chosen.source !== "group";
    },
  });
}
