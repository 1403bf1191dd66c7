// @ts-check
// What the campaign page sends (campaign.js): a command or a roll, with this browser's entropy and
// an Idempotency-Key that are reused until the host answers, and, for a command, its events told.
import { post } from "./api.js";
import { eventSummary } from "./timeline.js";
import { toast } from "./ui.js";
import { freshEntropy } from "./verify.js";

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

/**
 * A command sent, its events told in a toast, and the page shown again.
 * @param {CampaignPage} page
 * @param {Record<string, any>} body the command, `type` first
 */
export async function send(page, body) {
  const result = await append(page, "commands", body);
  page.undone.hidden = true; // a new command: the last undo is history now
  const said = (result.events || []).map(eventSummary).filter(Boolean);
  toast(said.length ? said.join(" · ") : `${body.type.replaceAll("_", " ")}: done, now version ${result.version}`);
  await page.changed();
  return result;
}

// A roll or command that may draw server dice. It carries entropy from this browser, so that
// not even the host can foresee its rolls, and an Idempotency-Key. Until it is answered with a
// success, sending the same request again reuses both: a request the host dropped or failed
// cannot be turned into a reroll with new entropy (docs/dice-verification.md).
/**
 * @param {CampaignPage} page
 * @param {"commands" | "rolls"} route
 * @param {Record<string, any>} body
 * @returns {Promise<any>} the answer (its `events`, its `version`)
 */
export async function append(page, route, body) {
  const signature = `${route} ${JSON.stringify(body)}`;
  if (page.attempt?.signature !== signature) {
    page.attempt = { signature, key: crypto.randomUUID(), entropy: freshEntropy() };
  }
  const { key, entropy } = page.attempt;
  const sent = body.faces === undefined ? { ...body, entropy } : body;
  // return=minimal (RFC 7240): the answer leaves the state out; the page reads the head again
  // after every append anyway (changed()), so the state would only be downloaded twice.
  const headers = { "Idempotency-Key": key, Prefer: "return=minimal" };
  const result = await post(`/campaigns/${page.id}/${route}`, sent, headers);
  page.attempt = null;
  return result;
}
