// @ts-check
// The play panel of a campaign page: the commands possible now (GET /campaigns/{id}/actions, the
// rules' answer), every other command behind "All commands" with the reason it is refused, the
// form of the command chosen, "Undo the last command" by the rollback policy, and the roll form.
// Each function takes the campaign page (campaign.js) and reads what it needs from it.
import { commandTitle } from "./commandtitles.js";
import { ApiError, post } from "./api.js";
import { answerPending } from "./decisions.js";
import { clear, h } from "./dom.js";
import { commandForm } from "./play.js";
import { facesValue } from "./fieldtext.js";
import { explain } from "./problems.js";
import { toast } from "./ui.js";

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

const words = (name) => String(name).replaceAll("_", " ");

// The pending decision (decisions.js), then the commands possible now: called on every show,
// which waits for the returned promise, so the page reads as ready only once the panel is.
/**
 * @param {CampaignPage} page
 * @param {Record<string, any> | null | undefined} pending the state's pending decision
 * @param {boolean} past the page shows a past version
 * @returns {Promise<void>}
 */
export function showPending(page, pending, past) {
  // An answer sent from the card: the next decision, if it is this page's again, is brought into
  // view and focused (answerPending), as tapping the turn banner does, not left above the screen.
  const answer = async (body) => {
    page.answered = true;
    try {
      return await sent(page, body);
    } catch (problem) {
      page.answered = false;
      throw problem;
    }
  };
  answerPending(page, pending, past, answer);
  if (page.who.canPlay && !past && page.actionsNow) return refreshActions(page);
  return Promise.resolve();
}

// A command sent from this panel: on success every old error goes and the form that sent it
// closes (only that one: a form of the same command opened meanwhile stays open).
/**
 * @param {CampaignPage} page
 * @param {Record<string, any>} body
 * @param {HTMLFormElement | null} [form] the form that sent it
 */
async function sent(page, body, form = null) {
  page.formSlot?.querySelector(".sent")?.remove(); // "Sent …" of an earlier command is stale now
  const result = await page.send(body);
  for (const el of [page.play, page.pending]) el?.querySelectorAll(".error").forEach((e) => (e.textContent = ""));
  if (form && page.openForm === form && form.isConnected) {
    clear(page.formSlot, h("p", { class: "muted sent" }, `Sent: ${commandTitle(body.type)}.`));
    page.openForm = null;
  }
  return result;
}

// `page.actingFor` is the player an owner without a seat acts for (whose turn it is).
/**
 * @param {CampaignPage} page
 * @param {string} name the command's
 */
function openCommand(page, name) {
  const command = page.catalogue.find((c) => c.name === name);
  if (!command) return;
  // in a match, the player select offers only the seats this page plays (campaignhead.js, plays)
  const plays = page.head.game === "quest-calendar" ? null : (seat) => page.who.plays(seat);
  const form = commandForm(command, {
    seat: page.who.seat || page.actingFor,
    plays,
    state: () => page.head.state || {},
    send: (body) => sent(page, body, form),
  });
  page.openForm = form;
  clear(page.formSlot, page.openForm);
  /** @type {HTMLElement} */ (page.openForm.querySelector("input, select, textarea"))?.focus();
}

const hasPlayer = (command) => command.fields.some((f) => f.name === "player");
/**
 * @param {CampaignPage} page
 * @param {Record<string, any>} command of the catalogue
 * @param {string | null} [as] the seat played for
 */
const commandButton = (page, command, as = null) =>
  h(
    "button",
    {
      type: "button",
      class: "small",
      dataset: { openCommand: command.name },
      onclick: () => openCommand(page, command.name),
    },
    `${commandTitle(command.name)}${as && hasPlayer(command) ? ` as ${as}` : ""}`,
  );

// The heading and the commands of "Possible now". In a match, when the move is another player's,
// a seated player is offered only what they may do themselves (the commands with no player);
// an owner may act for the player whose move it is when it plays that seat (no invited player
// holds it): "end turn as A".
/**
 * @param {CampaignPage} page
 * @param {{player?: string | null, yours?: boolean} | undefined} turn the actions route's
 * @param {any[]} available the commands the rules accept now
 * @returns {{heading: string, now: any[], as?: string}}
 */
function possibleNow(page, turn, available) {
  page.actingFor = null;
  if (!turn || turn.player === null || turn.player === undefined) return { heading: "Possible now", now: available };
  // at night no one has a turn: what is possible is possible, not "your turn"
  if (turn.yours)
    return {
      heading: page.head?.state?.night ? "Possible now" : "Possible now (your turn)",
      now: available,
    };
  if (page.who.plays(turn.player)) {
    page.actingFor = turn.player;
    return {
      heading: `Possible now (${turn.player}'s move: you play for ${turn.player})`,
      now: available,
      as: turn.player,
    };
  }
  return { heading: `Waiting for ${turn.player}`, now: available.filter((c) => !hasPlayer(c)) };
}

// What the rules accept now, asked of the server; a server without the route (404) gets the whole
// list instead, and is not asked again.
/** @param {CampaignPage} page */
async function refreshActions(page) {
  const ask = (page.actionsAsk = (page.actionsAsk || 0) + 1);
  const { actions, error } = await page.actionsFetch; // the show's one GET /actions (campaign.js)
  if (error && !(error instanceof ApiError && error.status === 404))
    toast(`Which commands are possible now is unknown: ${explain(error)}`, true);
  if (ask !== page.actionsAsk) return; // a later refresh is on its way
  const by = new Map((actions?.commands || []).map((c) => [c.name, c]));
  const { heading, now, as } = possibleNow(
    page,
    actions?.turn,
    page.catalogue.filter((c) => by.get(c.name)?.available),
  );
  page.actionsNow.dataset.known = actions ? "true" : "false";
  clear(
    page.actionsNow,
    h("h4", {}, heading),
    !actions
      ? h(
          "p",
          { class: "hint" },
          "This server does not say which commands are possible now: every command is under “All commands”.",
        )
      : now.length
        ? h(
            "div",
            { class: "choices" },
            now.map((c) => commandButton(page, c, as)),
          )
        : h(
            "p",
            { class: "hint" },
            heading.startsWith("Waiting")
              ? "Nothing is yours to do until then: every command is under “All commands”."
              : "No command is possible now.",
          ),
  );
  page.allCommands.open = page.allCommands.open || !actions;
  clear(page.allList, page.catalogue.map((c) => {
    const state = by.get(c.name);
    const reason = state && !state.available ? `${state.rule ? `[${state.rule}] ` : ""}${state.reason || ""}` : null;
    return h(
      "li",
      { dataset: { command: c.name, available: state ? String(state.available) : "unknown" } },
      commandButton(page, c, page.actingFor),
      reason ? h("small", { class: "hint" }, reason) : null,
    );
  }));
  showUndo(page, actions ? actions.undo : undefined);
  fillSelect(page, actions ? now.map((c) => c.name) : null);
  page.openForm?.refresh?.();
}

// The same choice as a select labelled "Command": the commands possible now first.
/**
 * @param {CampaignPage} page
 * @param {string[] | null} now the names of the commands possible now; null when unknown
 */
function fillSelect(page, now) {
  const chosen = page.commandSelect.value;
  const option = (c) => h("option", { value: c.name }, commandTitle(c.name));
  const others = page.catalogue.filter((c) => !now?.includes(c.name));
  clear(
    page.commandSelect,
    h("option", { value: "" }, "Choose a command…"),
    now
      ? [
          h("optgroup", { label: "Possible now" }, page.catalogue.filter((c) => now.includes(c.name)).map(option)),
          h("optgroup", { label: "Other commands" }, others.map(option)),
        ]
      : others.map(option),
  );
  page.commandSelect.value = chosen;
}

// "Undo the last command": back to `undo.to_version` directly or by a proposal, as the server says.
/**
 * @param {CampaignPage} page
 * @param {Record<string, any> | null | undefined} undo the actions route's (undefined: not said)
 */
function showUndo(page, undo) {
  const button = page.undoButton;
  clear(page.undoNote);
  // a refresh that finds the same last command keeps an open "why" form (and what was typed)
  const key = undo ? `${undo.from_version}:${undo.to_version}:${undo.policy}` : "";
  if (key !== page.undoKey) page.undoForm?.remove();
  page.undoKey = key;
  button.disabled = !undo || undo.policy === "forbidden";
  // undoing a rollback brings back what it undid: the button says so
  const redo = undo?.command === "rollback";
  button.textContent = redo ? "Redo: undo the last rollback" : "Undo the last command";
  if (undo === undefined) page.undoNote.append("The server does not say which command is the last one.");
  else if (!undo) page.undoNote.append("Nothing to undo.");
  else if (undo.policy === "forbidden")
    page.undoNote.append(`Cannot be undone: ${undo.reason || "the rollback policy forbids it"}.`);
  else
    page.undoNote.append(
      `${redo ? "The last rollback is undone: what it undid comes back" : commandTitle(undo.command)}: ` +
        `back to version ${undo.to_version}${undo.policy === "proposal" ? ", once the players agree" : ""}.`,
    );
  button.onclick = () => askUndo(page, undo);
  page.undoTarget = undo ? undo.to_version : null;
  page.markUndoProposal();
}

/**
 * @param {CampaignPage} page
 * @param {Record<string, any> | null | undefined} undo
 */
function askUndo(page, undo) {
  if (!undo || page.undoForm?.isConnected) return;
  const reason = h("input", { id: "undo-reason", name: "reason", required: true });
  const cancel = h("button", { type: "button", class: "small" }, "Cancel");
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "inline undo" },
    h(
      "label",
      { for: "undo-reason" },
      undo.command === "rollback" ? "Why redo what the last rollback undid?" : `Why undo ${words(undo.command)}?`,
    ),
    reason,
    h("button", { type: "submit" }, "Confirm undo"),
    cancel,
    error,
  );
  cancel.addEventListener("click", () => {
    form.remove();
    page.undoButton.focus();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await undoTo(page, undo, reason.value);
      form.remove();
    } catch (problem) {
      error.textContent = explain(problem);
    }
  });
  page.undoForm = form;
  page.undoButton.after(form);
  reason.focus();
}

/**
 * @param {CampaignPage} page
 * @param {Record<string, any>} undo
 * @param {string} reason
 */
async function undoTo(page, undo, reason) {
  const to = undo.to_version;
  page.formSlot?.querySelector(".sent")?.remove();
  if (undo.policy === "direct") {
    const result = await post(`/campaigns/${page.id}/rollback`, { to_version: to, reason });
    page.toldRollback(result.version, result.rollback || { to_version: to, reason });
  } else {
    // by the first seat this page plays, so that proposing agrees for it (proposals.js)
    const proposer = page.proposer();
    const result = await post(`/campaigns/${page.id}/rollback/proposals`, { to_version: to, reason, proposer });
    page.proposed(result, proposer, `undoing ${words(undo.command)}`);
  }
  await page.changed();
}

// The play panel, built once; its lists are refreshed on every show (showPending).
/** @param {CampaignPage} page */
export function buildPlay(page) {
  page.actionsNow = h("div", { class: "actions-now", "aria-live": "polite" });
  page.allList = h("ul", { class: "all-commands-list" });
  page.allCommands = h("details", { class: "all-commands" }, h("summary", {}, "All commands"), page.allList);
  page.formSlot = h("div", { class: "form-slot" });
  page.commandSelect = h("select", { id: "command-select" });
  page.commandSelect.addEventListener("change", () =>
    page.commandSelect.value ? openCommand(page, page.commandSelect.value) : clear(page.formSlot),
  );
  fillSelect(page, null);
  page.undoButton = h("button", { type: "button", class: "small undo-last", disabled: true }, "Undo the last command");
  page.undoNote = h("small", { class: "hint undo-note" });
  clear(page.play, h("h3", {}, "Play"), page.actionsNow, page.allCommands,
    h("div", { class: "field" }, h("label", { for: "command-select" }, "Command"), page.commandSelect), page.formSlot,
    // the open rollback proposals are near the top of the page, the same for every reader
    h("div", { class: "undo-box" }, page.undoButton, page.undoNote), rollForm(page));
}

/** @param {CampaignPage} page */
function rollForm(page) {
  const dice = h("input", { id: "roll-dice", name: "dice", required: true, placeholder: "2d20kh1+3" });
  const purpose = h("input", { id: "roll-purpose", name: "purpose", required: true, placeholder: "what it is for" });
  const faces = h("input", {
    id: "roll-faces",
    name: "faces",
    placeholder: "leave empty for server dice",
    class: "faces",
  });
  const rollError = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "command roll-form" },
    h("h4", {}, "Roll dice"),
    h("div", { class: "field" }, h("label", { for: "roll-dice" }, "Dice"), dice),
    h("div", { class: "field" }, h("label", { for: "roll-purpose" }, "Purpose"), purpose),
    h(
      "div",
      { class: "field" },
      h("label", { for: "roll-faces" }, "Faces rolled by hand (optional, e.g. 3, 17)"),
      faces,
    ),
    h("button", { type: "submit" }, "Roll"),
    rollError,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    rollError.textContent = "";
    const body = { dice: dice.value, purpose: purpose.value };
    try {
      // each face as typed, or refused in the words typed ("“99…9” is not a whole number that fits")
      const typed = facesValue(faces.value, "Faces");
      if (typed !== undefined) body.faces = typed;
      const roll = await page.append("rolls", body);
      toast(roll.summary || `Rolled ${roll.notation}: ${roll.total}`);
      for (const el of [page.play, page.pending]) el?.querySelectorAll(".error").forEach((e) => (e.textContent = ""));
      await page.changed();
    } catch (error) {
      rollError.textContent = explain(error);
    }
  });
  return form;
}
