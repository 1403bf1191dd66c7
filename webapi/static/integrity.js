// @ts-check
// The campaign's proof, out of the game's way: a badge that says in words whether what is shown
// checks out ("Verified ✓ v12: chain intact, checkpoint signed") and opens, as a disclosure, the
// head hash, the chain check, the signed checkpoint and the bundle. A problem opens it by itself.
import { h } from "./dom.js";

// The badge's state from the chain line (`data-chain`, timeline.js), the checkpoint's verdict
// (`data-checkpoint`, checkpoints.js) and the witness panel's (`data-witness`, witnessing.js), at
// the version shown: the panel's red warning shows on the badge too ("Verified ✓ v12 · NOT
// witnessed"), its wait as "witness pending".
/**
 * @param {string | undefined} chain "ok", "broken", or not known yet
 * @param {string | undefined} checkpoint "ok", "unchecked", another verdict, or not known yet
 * @param {number} version
 * @param {string} [witness] the witness panel's state ("not-witnessed", "failed", "waiting"…)
 * @returns {{state: "ok" | "partial" | "warning" | "broken" | "checking" | "unwitnessed", mark: string, words: string}}
 */
export function integrityState(chain, checkpoint, version, witness) {
  const base = chainState(chain, checkpoint, version);
  if (base.state !== "ok" && base.state !== "partial") return base;
  if (witness === "not-witnessed" || witness === "failed") {
    const words = `${base.words}, but NOT witnessed: see the witness panel`;
    return { state: "unwitnessed", mark: `${base.mark} · NOT witnessed`, words };
  }
  // (a head waiting for the next checkpoint, "pending", is the normal course of play: not said)
  if (witness === "waiting") return { ...base, mark: `${base.mark} · witness pending` };
  return base;
}

/**
 * @param {string | undefined} chain @param {string | undefined} checkpoint @param {number} version
 * @returns {{state: "ok" | "partial" | "warning" | "broken" | "checking", mark: string, words: string}}
 */
function chainState(chain, checkpoint, version) {
  const v = `v${version}`;
  if (chain === "broken")
    return { state: "broken", mark: `Not verified ✗ ${v}`, words: "the chain of hashes is broken" };
  if (checkpoint && checkpoint !== "ok" && checkpoint !== "unchecked")
    return { state: "warning", mark: `Warning ⚠ ${v}`, words: "the signed checkpoint does not check out" };
  if (chain === "ok" && checkpoint === "ok")
    return { state: "ok", mark: `Verified ✓ ${v}`, words: "chain intact, checkpoint signed" };
  if (chain === "ok" && checkpoint === "unchecked")
    return { state: "partial", mark: `Chain intact ✓ ${v}`, words: "the checkpoint could not be checked" };
  return { state: "checking", mark: `Checking… ${v}`, words: "the chain and the checkpoint are being checked" };
}

// `parts`: what the proof holds (the hash line, the chain line, the checkpoint, the bundle button).
export function integrityBadge(...parts) {
  const mark = h("span", { class: "mark" });
  const said = h("span", { class: "said" });
  const summary = h("summary", { class: "integrity-badge", dataset: { integrity: "checking" } }, mark, " ", said);
  const element = h(
    "details",
    { class: "integrity" },
    summary,
    h("div", { class: "proof-body", role: "group", "aria-label": "The proof" }, parts),
  );
  let opened = false; // a problem opens the proof once; the reader may close it again
  return {
    element,
    /**
     * @param {string | undefined} chain @param {string | undefined} checkpoint @param {number} version
     * @param {string} [witness]
     */
    update(chain, checkpoint, version, witness) {
      const now = integrityState(chain, checkpoint, version, witness);
      summary.dataset.integrity = now.state;
      mark.textContent = now.mark;
      said.textContent = now.words;
      if ((now.state === "broken" || now.state === "warning" || now.state === "unwitnessed") && !opened) {
        opened = true;
        element.open = true;
      }
    },
  };
}
