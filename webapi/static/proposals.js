// @ts-check
// The campaign page's rollbacks and forks: the buttons on a timeline event, the reason asked
// before a rollback, the open rollback proposals with "Agree as <seat>", and how a proposal or a
// rollback carried out is told. Each function takes the campaign page (campaign.js).
import { ApiError, get, post } from "./api.js";
import { explain } from "./problems.js";
import { clear, h } from "./dom.js";
import { toast } from "./ui.js";

/** @typedef {import("./api.js").Proposal} Proposal */
/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

// A seat as a reader names it: "owner" is the owner, a seat its name.
export const seatName = (seat) => (seat === "owner" ? "the owner" : String(seat));
const seats = (list) => list.map(seatName).join(", ");

// One proposal in words, the same for every reader.
/**
 * @param {Proposal} p
 * @param {string[]} agreed
 * @param {string[]} waiting
 * @returns {string}
 */
export function proposalWords(p, agreed, waiting) {
  const by = p.proposer === "owner" ? "The owner" : seatName(p.proposer);
  return (
    `${by} proposes going back to version ${p.to_version}: “${p.reason}”. ` +
    `Agreed: ${agreed.length ? seats(agreed) : "nobody yet"}. ` +
    (waiting.length ? `Waiting for ${seats(waiting)} to agree.` : "Every seat has agreed.")
  );
}

// A rollback carried out, by this page or by anyone's last agreement, is told as a rollback:
// where it went and why, once (its version), never as the lines of the events it restored.
/** @param {CampaignPage} page */
export function toldRollback(page, version, data) {
  if (page.toldRollbacks.has(Number(version))) return;
  page.toldRollbacks.add(Number(version));
  toast(`Rolled back to version ${data?.to_version}${data?.reason ? `: ${data.reason}` : ""}`);
  // and a status that stays until the next one, said by whoever reads the page
  page.undone.textContent = `Undone: back to version ${data?.to_version}${data?.reason ? ` (${data.reason})` : ""}.`;
  page.undone.hidden = false;
}

// The seat a rollback proposal from this page is made by: the first seat it plays (its own,
// else the first seat no member holds), so that proposing agrees for it; "owner" when it plays
// none (a Quest Calendar campaign, or a match whose every seat an invited player holds).
/** @param {CampaignPage} page */
export function proposingSeat(page) {
  if (page.who.seat) return page.who.seat;
  if (page.head.game === "quest-calendar") return "owner";
  return (page.head.state?.players || []).find((seat) => page.who.plays(seat)) || "owner";
}

// What a proposal's answer means, in words: carried out at once (every seat agreed), or whom it
// waits for, and the seats this page may agree for too ("agree as B below").
/** @param {CampaignPage} page */
export function proposed(page, result, proposer, what) {
  if (result.rollback) {
    toldRollback(page, result.version, result.rollback);
    return;
  }
  const proposal = result.proposal || {};
  // proposing is agreeing: the proposer is not among those still to agree
  const agreed = [proposer, ...(proposal.approvals || proposal.approved_by || [])];
  const waiting = (proposal.players || []).filter((p) => !agreed.includes(p));
  const mine = agreeingSeats(page, waiting);
  const alsoMine = mine.length
    ? `. You play ${mine.join(" and ")} too: agree as ${mine.join(", ")} above, in the list of proposals`
    : "";
  toast(`Proposed ${what}${waiting.length ? `; waiting for ${waiting.join(", ")} to agree` : ""}${alsoMine}.`);
}

// The buttons on one timeline event, by the rollback policy and the caller's role.
/** @param {CampaignPage} page */
export function eventActions(page, event, mid) {
  if (!page.who.canPlay || page.asOf !== null || mid) return null;
  const v = Number(event.version);
  const buttons = [];
  const isHead = v === page.head.version;
  // a proposal or an agreement is not a place to roll back to: undoing to it would only undo
  // the agreements after it (the trial's "Roll back to v89" on the proposal event)
  const agreement = event.type === "questlog.RollbackProposed" || event.type === "questlog.RollbackApproved";
  if (event.type === "questlog.RolledBack" && !event.undone)
    buttons.push(rollbackButton(page, v - 1, `Redo: undo this rollback`));
  else if (!isHead && !event.undone && !agreement) buttons.push(rollbackButton(page, v, `Roll back to v${v}`));
  if (page.who.owner)
    buttons.push(
      h(
        "button",
        { type: "button", class: "small", onclick: (click) => askFork(page, click.currentTarget, v) },
        `Fork at v${v}`,
      ),
    );
  return buttons.length ? h("p", { class: "event-actions" }, buttons) : null;
}

/** @param {CampaignPage} page */
function rollbackButton(page, to, label) {
  return h(
    "button",
    {
      type: "button",
      class: "small",
      dataset: { rollbackTo: to },
      onclick: (click) => askReason(page, click.currentTarget, to),
    },
    label,
  );
}

/** @param {CampaignPage} page */
function askReason(page, button, to) {
  const id = `reason-${to}`;
  const reason = h("input", { id, required: true, value: "undo at the table" });
  const cancel = h("button", { type: "button", class: "small", onclick: () => form.replaceWith(button) }, "Cancel");
  // a refusal (a 409: another proposal to this version is open already) stays in the form
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "inline rollback-reason" },
    h("label", { for: id }, `Why roll back to version ${to}?`),
    reason,
    h("button", { type: "submit" }, "Confirm rollback"),
    cancel,
    error,
  );
  form.addEventListener("submit", async (submit) => {
    submit.preventDefault();
    error.textContent = "";
    try {
      await rollback(page, to, reason.value);
    } catch (problem) {
      error.textContent = `The rollback was refused: ${explain(problem)}`;
      toast(explain(problem), true);
    }
  });
  button.replaceWith(form);
  reason.focus();
}

// A direct rollback is the owner's and follows the house rule; in a match, or when the rule
// forbids undoing server rolls, the page proposes instead and the players agree.
/** @param {CampaignPage} page */
async function rollback(page, to, reason) {
  const policy = page.head.state?.house_rules?.rollback_over_server_rolls;
  const direct = page.who.owner && page.head.game === "quest-calendar" && policy !== "forbid";
  if (direct) {
    try {
      const result = await post(`/campaigns/${page.id}/rollback`, { to_version: to, reason });
      toldRollback(page, result.version, result.rollback || { to_version: to, reason });
      return page.changed();
    } catch (error) {
      // a rule's 409 (the house rule, a match) turns it into a proposal; a version the log
      // does not hold (409 not-held: the head, the middle of a command) is the answer
      const held = String(error?.problem?.type || "").endsWith(":not-held");
      if (!(error instanceof ApiError) || error.status !== 409 || held) throw error;
    }
  }
  const proposer = proposingSeat(page);
  const result = await post(`/campaigns/${page.id}/rollback/proposals`, { to_version: to, reason, proposer });
  proposed(page, result, proposer, `a rollback to version ${to}`);
  return page.changed();
}

// The open proposals, the same list for every reader (who proposed, to which version, why, who
// has agreed and whom it waits for, each seat named), with "Agree as <seat>" for the seats this
// page plays that have not agreed yet. In the past view: the proposals, without the buttons.
/** @param {CampaignPage} page */
export async function showProposals(page) {
  let proposals = [];
  try {
    proposals = (await get(`/campaigns/${page.id}/rollback/proposals`)).items || [];
  } catch {
    return;
  }
  const open = proposals.filter((p) => p.status === "open");
  page.openProposals = open;
  markUndoProposal(page);
  page.proposals.hidden = !open.length;
  clear(
    page.proposals,
    open.length ? h("h2", {}, "Open rollback proposals") : null,
    h("ul", { class: "plain" }, open.map((p) => proposalItem(page, p))),
  );
}

/** @param {CampaignPage} page */
function proposalItem(page, p) {
  const agreed = p.approvals || p.approved_by || [];
  const waiting = (p.players || []).filter((seat) => !agreed.includes(seat));
  const seats = page.asOf === null ? agreeingSeats(page, waiting) : [];
  return h(
    "li",
    { class: "proposal", dataset: { proposal: p.proposal_id, toVersion: p.to_version } },
    h("span", { class: "said" }, proposalWords(p, agreed, waiting)),
    " ",
    seats.map((seat) => [
      h(
        "button",
        { type: "button", class: "small", onclick: () => approve(page, p.proposal_id, seat) },
        `Agree as ${seat}`,
      ),
      " ",
    ]),
  );
}

// An open proposal already asks for the undo the button offers: the button waits, and says
// to agree to that one (proposing it again is refused: rollback-proposal-open).
/** @param {CampaignPage} page */
export function markUndoProposal(page) {
  const open = (page.openProposals || []).find((p) => p.to_version === page.undoTarget);
  if (!open || !page.undoButton || page.asOf !== null) return;
  page.undoButton.disabled = true;
  page.undoForm?.remove();
  clear(
    page.undoNote,
    `A proposal to undo this is open (by ${seatName(open.proposer)}): agree to it above, in the list ` +
      "of proposals, or wait for the others.",
  );
}

// The seats this page agrees for: those still to agree that it plays (its own, and for an
// owner the seats no member holds), its own first.
/** @param {CampaignPage} page */
export function agreeingSeats(page, players) {
  const waiting = players.filter((seat) => page.who.plays(seat));
  return [...waiting.filter((s) => s === page.who.seat), ...waiting.filter((s) => s !== page.who.seat)];
}

// The seats a member holds (owner only: GET /members).
/** @param {CampaignPage} page */
export async function heldSeats(page) {
  if (!page.who.owner) return new Set();
  try {
    const { items } = await get(`/campaigns/${page.id}/members`);
    return new Set(items.map((m) => m.seat).filter(Boolean));
  } catch {
    return new Set();
  }
}

/** @param {CampaignPage} page */
async function approve(page, proposalId, seat) {
  try {
    const result = await post(`/campaigns/${page.id}/rollback/proposals/${proposalId}/approve`, { player: seat });
    if (result.rollback) toldRollback(page, result.version, result.rollback);
    else {
      const p = result.proposal || {};
      const waiting = (p.players || []).filter((s) => !(p.approvals || []).includes(s));
      toast(`Agreed as ${seat}${waiting.length ? `; waiting for ${waiting.join(", ")} to agree` : ""}.`);
    }
    await page.changed();
  } catch (error) {
    toast(explain(error), true);
  }
}

// A fork makes a new campaign: asked once more, with a Cancel.
/** @param {CampaignPage} page */
function askFork(page, button, at) {
  const box = h(
    "p",
    { class: "confirm", role: "group", "aria-label": `Fork at version ${at}` },
    `Start a new campaign from version ${at}? `,
    h("button", { type: "button", class: "small", onclick: () => fork(page, at) }, "Confirm fork"),
    " ",
    h(
      "button",
      {
        type: "button",
        class: "small",
        onclick: () => {
          box.replaceWith(button);
          button.focus();
        },
      },
      "Cancel",
    ),
  );
  button.replaceWith(box);
  box.querySelector("button").focus();
}

/** @param {CampaignPage} page */
async function fork(page, at) {
  try {
    const fork = await post(`/campaigns/${page.id}/fork`, {
      at_version: at,
      name: `${page.head.name} (fork at v${at})`,
    });
    location.assign(`/app/campaigns/${fork.id}`);
  } catch (error) {
    toast(explain(error), true);
  }
}
