// @ts-check
// Whose turn it is, on a banner that stands out (`data-turn`): "yours", "waiting", "decision"
// (a pending decision for this seat), "asked" (a decision for another seat), "night" (a night step
// in progress) or "none". From GET /campaigns/{id}/actions' `turn` when the server has that route,
// else from the state. It never says "null".
import { h } from "./dom.js";
import { nightRollWhat } from "./nightroll.js";
import { nightStepWords, words } from "./panels.js"; // snake_case and camelCase in words

function fromState(game, state, who) {
  const seat = who.seat;
  const pending = state.pending;
  const night = state.night;
  const at = night ? `Night ${night.number ?? state.nights ?? ""}: ${nightStepWords(night.step)}. ` : "";
  if (pending) {
    const mine = who.canPlay && (game === "quest-calendar" || !pending.who || who.plays(pending.who));
    if (pending.decision === "night_roll") {
      const what = nightRollWhat(pending);
      return mine
        ? { turn: "decision", text: `${at}Your roll: ${what}${pending.who ? ` (as ${pending.who})` : ""}` }
        : { turn: "asked", text: `${at}${pending.who ?? "A player"} is asked to roll ${what}` };
    }
    const asked = pending.who ? `${pending.who} is asked` : "A decision is asked";
    return mine
      ? { turn: "decision", text: `${at}Your decision: ${words(pending.decision)}` }
      : { turn: "asked", text: `${at}${asked}: ${words(pending.decision)}` };
  }
  if (night) return { turn: "night", text: `${at}In progress` };
  if (game === "quest-calendar")
    return who.canPlay ? { turn: "yours", text: "Your turn" } : { turn: "waiting", text: "Waiting for the player" };
  const player = state.turn?.player;
  if (player === null || player === undefined) return { turn: "none", text: "" };
  if (player === seat) return { turn: "yours", text: "Your turn" };
  return who.canPlay && who.plays(player)
    ? { turn: "yours", text: `${player}'s turn: you play for ${player}` }
    : { turn: "waiting", text: `Waiting for ${player}` };
}

// {turn, text} for the banner; `actions` is the actions route's answer or null.
export function turnOf(game, state, who, actions) {
  const told = actions?.turn;
  if (!state.pending && told && told.player !== null && told.player !== undefined) {
    const phase = told.phase && told.phase !== "day" ? ` (${words(told.phase)})` : "";
    if (told.yours) return { turn: "yours", text: `Your turn${phase}` };
    if (who.canPlay && who.plays(told.player))
      return { turn: "yours", text: `${told.player}'s turn${phase}: you play for ${told.player}` };
    return { turn: "waiting", text: `Waiting for ${told.player}${phase}` };
  }
  return fromState(game, state, who);
}

// What is this page's to do ("yours", "decision") is a button: tapped, it goes to the play panel or
// the decision (campaign.js listens on the banner; campaignhead.js's goToPlay moves there).
export function showTurn(el, game, state, who, actions, past) {
  const { turn, text } = past ? { turn: "none", text: "" } : turnOf(game, state, who, actions);
  el.dataset.turn = turn;
  const go = turn === "yours" || turn === "decision";
  if (go && el.firstElementChild?.textContent === text) return; // the same button, focus kept
  el.replaceChildren(go ? h("button", { type: "button", class: "turn-go" }, text) : text);
  el.hidden = !text;
}
