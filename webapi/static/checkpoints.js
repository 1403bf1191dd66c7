// @ts-check
// Signed checkpoints on the page (docs/trust.md): C2SP signed notes checked with WebCrypto Ed25519.
// The page keeps the last checkpoint it has shown of each campaign (localStorage, per origin and
// campaign). On every load it checks that the kept checkpoint's signature verifies with a key the
// server lists and that the log still has the checkpoint's hash at its version; if not, it warns
// and keeps the old checkpoint, so the warning stays until someone looks into it.
import { get } from "./api.js";
import { h } from "./dom.js";
import { sha256Hex } from "./verify.js";

const encoder = new TextEncoder();
const DASH = "\u2014 ";
const STORE_PREFIX = "questlog.checkpoint.";

// Standard base64 (RFC 4648 section 4, padded) to bytes; throws on anything else.
export function base64Bytes(text) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error("not base64");
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function validName(name) {
  return name.length > 0 && !name.includes("+") && !/\s/u.test(name);
}

async function keyHash(name, type, raw) {
  const material = new Uint8Array([...encoder.encode(`${name}\n`), type, ...raw]);
  return (await sha256Hex(material)).slice(0, 8);
}

// "<name>+<8 hex key hash>+<base64(type || 32-byte Ed25519 key)>": its name, hash and raw key.
// The type is 0x01 for a note signer (the log), 0x04 for a cosignature/v1 witness (tlog-cosignature).
export async function parseVerifierKey(text, type = 1) {
  const [name, hash, ...material] = String(text).trim().split("+");
  if (!validName(name || "") || !/^[0-9a-f]{8}$/.test(hash || "")) throw new Error("not a verifier key");
  const raw = base64Bytes(material.join("+"));
  if (raw.length !== 33 || raw[0] !== type) {
    throw new Error(type === 1 ? "not an Ed25519 verifier key" : "not an Ed25519 cosignature/v1 key (type 0x04)");
  }
  const key = raw.slice(1);
  if ((await keyHash(name, type, key)) !== hash) throw new Error("the verifier key's hash is not its key's");
  return { name, hash, raw: key, text: String(text).trim() };
}

// A note's body and signature lines, unchecked; throws on anything that is not a signed note.
export function parseNote(note) {
  const split = note.lastIndexOf("\n\n");
  if (split < 0) throw new Error("not a signed note");
  const body = note.slice(0, split + 1);
  const lines = note.slice(split + 2);
  if (!lines.endsWith("\n")) throw new Error("a signed note ends in a newline");
  const signatures = lines.slice(0, -1).split("\n").map((line) => {
    if (!line.startsWith(DASH)) throw new Error("a signature line starts with an em dash");
    const [name, blob, ...more] = line.slice(DASH.length).split(" ");
    if (more.length || !validName(name || "")) throw new Error("a malformed signature line");
    const raw = base64Bytes(blob || "");
    if (raw.length < 5) throw new Error("a signature too short");
    return {
      name,
      hash: [...raw.slice(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join(""),
      signature: raw.slice(4),
    };
  });
  return { body, signatures };
}

// The three first lines of a checkpoint body: "<log>/campaigns/<id>", the version, the head hash.
export function parseCheckpoint(body) {
  const [origin, version, hash] = body.split("\n");
  const at = (origin || "").lastIndexOf("/campaigns/");
  if (at <= 0 || !/^[1-9][0-9]*$/.test(version || "") || !/^[0-9a-f]{64}$/.test(hash || "")) {
    throw new Error("not a checkpoint");
  }
  return {
    logName: origin.slice(0, at),
    campaignId: origin.slice(at + "/campaigns/".length),
    version: Number(version),
    hash,
  };
}

// A signed note checked against verifier key texts: { verdict: "ok", body, key } when a known key
// signed it, else { verdict: "malformed" | "unknown-key" | "bad-signature", why }.
export async function openNote(note, keyTexts) {
  let parsed;
  try {
    parsed = parseNote(note);
  } catch (error) {
    return { verdict: "malformed", why: error.message };
  }
  const keys = [];
  for (const text of keyTexts) keys.push(await parseVerifierKey(text));
  for (const signature of parsed.signatures) {
    const key = keys.find((k) => k.name === signature.name && k.hash === signature.hash);
    if (!key) continue;
    const imported = await crypto.subtle.importKey("raw", key.raw, { name: "Ed25519" }, false, ["verify"]);
    const good = await crypto.subtle.verify(
      { name: "Ed25519" },
      imported,
      signature.signature,
      encoder.encode(parsed.body),
    );
    if (!good)
      return {
        verdict: "bad-signature",
        why: `the signature by ${key.name} does not verify: the checkpoint was forged or altered`,
      };
    return { verdict: "ok", body: parsed.body, key };
  }
  return { verdict: "unknown-key", why: "it is signed by none of the keys this server lists" };
}

// The verdict on a checkpoint of `campaignId`, given verifier key texts and `hashAt(version)`
// (the log's hash at a version, or null past its end): "ok", "malformed", "unknown-key",
// "bad-signature", "another-campaign" or "rewritten", with why.
export async function checkCheckpoint(note, keyTexts, campaignId, hashAt) {
  const opened = await openNote(note, keyTexts);
  if (opened.verdict !== "ok") return opened;
  let checkpoint;
  try {
    checkpoint = parseCheckpoint(opened.body);
  } catch (error) {
    return { verdict: "malformed", why: error.message };
  }
  const signedBy = opened.key;
  if (checkpoint.campaignId !== campaignId)
    return { verdict: "another-campaign", why: `it is of campaign ${checkpoint.campaignId}`, checkpoint };
  const logHash = await hashAt(checkpoint.version);
  if (logHash === null) {
    return {
      verdict: "rewritten",
      why:
        `the log was rewritten after this checkpoint was signed: it ` +
        `names version ${checkpoint.version} with hash ${checkpoint.hash}, ` +
        `but the log now ends before version ${checkpoint.version}`,
      checkpoint,
    };
  }
  if (logHash !== checkpoint.hash) {
    return {
      verdict: "rewritten",
      why:
        `the log was rewritten after this checkpoint was signed: at ` +
        `version ${checkpoint.version} the checkpoint has hash ` +
        `${checkpoint.hash}, the log has hash ${logHash}`,
      checkpoint,
      logHash,
    };
  }
  return {
    verdict: "ok",
    why:
      `the log has hash ${logHash} at version ${checkpoint.version}, ` +
      `as the checkpoint signed by ${signedBy.text} says`,
    checkpoint,
    key: signedBy.text,
  };
}

function storeKey(campaignId) {
  return `${STORE_PREFIX}${location.origin}/${campaignId}`;
}

export function keptCheckpoint(campaignId) {
  return localStorage.getItem(storeKey(campaignId));
}

const LABELS = {
  "ok": "Checkpoint verified",
  "malformed": "Warning: the checkpoint kept here is not a checkpoint",
  "unknown-key": "Warning: the checkpoint kept here is signed by a key this server no longer lists",
  "bad-signature": "Warning: the checkpoint kept here does not verify",
  "another-campaign": "Warning: the checkpoint kept here is of another campaign",
  "rewritten": "Warning: the log was rewritten",
};

// On a campaign's page: check the kept checkpoint (if any) against the served keys and the log,
// then keep the head's checkpoint if all is well. Fills `out` with the verdict (data-checkpoint).
export async function guardCampaign(campaignId, out) {
  const served = await get("/.well-known/questlog-key");
  const keyTexts = served.keys.map((k) => k.key);
  const hashAt = async (version) => {
    const page = await get(`/campaigns/${campaignId}/events?after=${version - 1}&limit=1`);
    const event = page.items[0];
    return event && Number(event.version) === version ? event.hash : null;
  };
  const kept = keptCheckpoint(campaignId);
  if (kept !== null) {
    const verdict = await checkCheckpoint(kept, keyTexts, campaignId, hashAt);
    if (verdict.verdict !== "ok") {
      show(
        out,
        verdict,
        `${LABELS[verdict.verdict]}: ${verdict.why}. This page kept that ` +
          `checkpoint when it last showed this campaign; keep a copy of it.`,
        kept,
      );
      return verdict;
    }
  }
  const head = await get(`/campaigns/${campaignId}/checkpoint`);
  const verdict = await checkCheckpoint(head.checkpoint, keyTexts, campaignId, hashAt);
  if (verdict.verdict !== "ok") {
    show(out, verdict, `Warning: the server's own checkpoint does not verify: ${verdict.why}.`, head.checkpoint);
    return verdict;
  }
  localStorage.setItem(storeKey(campaignId), head.checkpoint);
  const extends_ =
    kept === null
      ? "kept for the next visit"
      : `the log still extends the one kept at version ${parseCheckpoint(parseNote(kept).body).version}`;
  show(out, verdict, `Signed checkpoint of version ${head.version} verified (${extends_}).`, head.checkpoint);
  return verdict;
}

function show(out, verdict, text, note) {
  out.replaceChildren(
    h("span", {}, text, " "),
    h("details", {}, h("summary", {}, "The checkpoint"), h("pre", { class: "note" }, note)),
  );
  out.dataset.checkpoint = verdict.verdict;
  out.classList.toggle("warning", verdict.verdict !== "ok");
}

// A bundle's checkpoints, checked against the bundle's own keys (which shows the bundle is
// consistent with itself; the host's published key ties it to the host). One element each.
export async function bundleCheckpoints(bundle, events) {
  const notes = Array.isArray(bundle.checkpoints) ? bundle.checkpoints : [];
  const keyTexts = Array.isArray(bundle.keys) ? bundle.keys.map((k) => k.key) : [];
  const hashes = new Map(events.map((e) => [Number(e.version), e.hash]));
  const out = [];
  for (const note of notes) {
    let verdict;
    try {
      verdict = await checkCheckpoint(String(note), keyTexts, bundle.campaign_id, async (v) => hashes.get(v) ?? null);
    } catch (error) {
      verdict = { verdict: "malformed", why: error.message };
    }
    const text =
      verdict.verdict === "ok"
        ? `Checkpoint verified with the bundle's own key: ${verdict.why}.`
        : `${LABELS[verdict.verdict]}: ${verdict.why}.`;
    out.push(
      h(
        "p",
        {
          class: `checkpoint ${verdict.verdict === "ok" ? "ok" : "warning"}`,
          dataset: { checkpoint: verdict.verdict },
        },
        text,
      ),
    );
  }
  return out;
}
