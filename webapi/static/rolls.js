// @ts-check
// Rolls with their dice as faces, and a verdict the page computes itself (verify.js).
import { h } from "./dom.js";
import { VERDICTS, rollVerdict } from "./verify.js";

const short = (hex) => (hex ? `${hex.slice(0, 10)}…` : "—");

export function rollElement(roll) {
  const faces = roll.dice.map((d) => `d${d.sides} ${d.face}${d.kept === false ? " dropped" : ""}`);
  const dice = h(
    "span",
    {
      class: "dice",
      "aria-label": `dice ${faces.join(", ")}`,
    },
    roll.dice.map((d) =>
      h("span", { class: `die${d.kept === false ? " dropped" : ""}`, title: `d${d.sides}` }, String(d.face)),
    ),
  );
  const verdict = h("span", { class: "verdict" }, "checking…");
  const why = h("small", { class: "why" });
  const proof = roll.proof
    ? h(
        "details",
        { class: "proof" },
        h("summary", {}, "proof"),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, "commitment"),
          h("dd", { title: roll.proof.commitment }, short(roll.proof.commitment)),
          h("dt", {}, "client seed"),
          h("dd", {}, roll.proof.client_seed),
          h("dt", {}, "nonce"),
          h("dd", {}, String(roll.proof.nonce)),
          roll.proof.entropy
            ? [h("dt", {}, "player entropy"), h("dd", { class: "entropy" }, roll.proof.entropy)]
            : null,
          h("dt", {}, "server seed"),
          h(
            "dd",
            { title: roll.proof.server_seed || "" },
            roll.proof.server_seed ? short(roll.proof.server_seed) : "not revealed yet",
          ),
        ),
      )
    : null;
  const el = h("li", { class: `roll${roll.undone ? " undone" : ""}`, dataset: { rollId: roll.roll_id } },
    h("span", { class: "rid" }, roll.roll_id),
    h("span", { class: "purpose" }, roll.purpose),
    h("span", { class: "notation" }, roll.notation),
    dice,
    h("b", { class: "total" }, `= ${roll.total}`),
    h("span", { class: "source" }, roll.source),
    roll.summary ? h("span", { class: "roll-summary" }, roll.summary) : null,
    roll.undone ? h("span", { class: "badge" }, `undone by v${roll.undone_by}`) : null,
    verdict, why, proof);
  return { el, verdict, why };
}

// Render the rolls into `list` and compute each verdict; resolves when all are known.
// `inForce` maps roll ids to the commitment and client seed in force (see verify.js).
export async function showRolls(list, rolls, seeds = {}, inForce = null) {
  const pending = rolls.map(async (roll) => {
    const { el, verdict, why } = rollElement(roll);
    list.append(el);
    const result = await rollVerdict(roll, seeds, inForce?.get(roll.roll_id));
    el.dataset.verdict = result.verdict;
    verdict.textContent = VERDICTS[result.verdict];
    verdict.className = `verdict ${result.verdict}`;
    why.textContent = result.why;
    return result.verdict;
  });
  return Promise.all(pending);
}

export function tally(verdicts) {
  const counts = {};
  for (const v of verdicts) counts[v] = (counts[v] || 0) + 1;
  return Object.entries(counts).map(([k, n]) => `${n} ${VERDICTS[k]}`).join(", ") || "no rolls";
}
