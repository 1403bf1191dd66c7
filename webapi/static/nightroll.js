// @ts-check
// The Calendar Board night stops for each roll a player makes (decision `night_roll`): the
// question in words, and, for the seat who rolls, "Roll with the server's dice" or "Enter my
// dice" (one face per die). Sent as {type: "roll_night", player, roll} with the page's entropy,
// or with `faces`.
import { h } from "./dom.js";
import { diceChoice, diceOf } from "./dice.js";
import { explain } from "./problems.js";

const words = (text) => String(text).replaceAll("_", " ");
const signed = (n) => (n > 0 ? `+${n}` : String(n));

// What each roll is, for the question, the waiting line and the dice's labels.
const KINDS = {
  calendar: {
    what: "the calendar d4",
    purpose: "calendar roll",
    why: () => " holds the god token and rolls the calendar d4 to move the god piece",
  },
  wind: {
    what: "the wind d20",
    purpose: "wind",
    why: () => " holds the god token and rolls the wind d20: it sets the wind",
  },
  basketball: {
    what: "the basketball shot (two d20s)",
    purpose: "basketball shot",
    why: () => " holds the god token and rolls two d20s for the intergalactic basketball shot",
  },
  hail_save: {
    what: "the hail save d20",
    purpose: "hail save",
    why: (c) =>
      ` rolls the hail save: a d20${c.luck_mod ? ` ${signed(c.luck_mod)} luck` : ""}` +
      `${c.goal !== undefined ? ` must reach ${c.goal}` : ""}${c.piece ? ` (for ${words(c.piece)})` : ""}`,
  },
  hail_damage: {
    what: "the hail damage d4",
    purpose: "hail damage",
    why: () => " failed the hail save and rolls the d4 for the hail's damage",
  },
  annustaria: {
    what: "the Annustaria Breaker d20",
    purpose: "Annustaria Breaker check",
    why: () => " holds the god token and rolls the d20 for the Annustaria Breaker check",
  },
};

function kindOf(pending) {
  const c = pending.context || {};
  const kind = c.roll || (pending.options || [])[0];
  const known = KINDS[kind];
  const notation = c.notation || "";
  return {
    kind,
    what: known ? known.what : `the ${words(kind)}${notation ? ` (${notation})` : ""}`,
    purpose: known?.purpose || words(kind),
    why: known ? known.why(c) : ` rolls the ${words(kind)}${notation ? ` (${notation})` : ""}`,
  };
}

export function nightQuestion(pending, state) {
  const { why } = kindOf(pending);
  const night = state?.night?.number;
  return `${night ? `Night ${night}: ` : ""}${pending.who || pending.context?.player || "The player"}${why}.`;
}

// What the roll is, in a few words ("the calendar d4"), for the turn banner.
export function nightRollWhat(pending) {
  return kindOf(pending).what;
}

export function nightWaiting(pending) {
  return `Waiting for ${pending.who || "the player"} to roll ${kindOf(pending).what}`;
}

// The answer: two ways to roll, each one button.
export function nightRollForm(command, pending, send) {
  const { kind, purpose } = kindOf(pending);
  const notation = pending.context?.notation || "";
  const dice = diceOf(notation, purpose);
  const body = { type: command.name, player: pending.who || pending.context?.player, roll: kind };
  const error = h("p", { class: "error", role: "alert" });
  const choice = diceChoice(dice, { legend: "My dice" });
  // the choice's own radios are not needed here: "Enter my dice" opens the faces at once
  /** @type {HTMLInputElement} */ (choice.el.querySelector('input[data-dice="own"]')).checked = true;
  /** @type {HTMLElement} */ (choice.el.querySelector(".own-dice")).hidden = false;
  for (const radio of choice.el.querySelectorAll("input[type=radio]")) radio.closest("label").hidden = true;
  const go = async (faces) => {
    error.textContent = "";
    try {
      await send(faces === undefined ? body : { ...body, faces });
    } catch (problem) {
      error.textContent = choice.retry(problem) ? "" : explain(problem);
    }
  };
  const server = h(
    "button",
    { type: "button", class: "choice", dataset: { command: command.name, option: "server" } },
    "Roll with the server's dice",
  );
  server.addEventListener("click", () => go(undefined));
  const own = h("details", { class: "own-roll" }, h("summary", {}, "Enter my dice"), choice.el);
  const form = h(
    "form",
    { class: "command night-roll", dataset: { command: command.name } },
    h("button", { type: "submit" }, "Send my dice"),
  );
  own.append(form);
  form.prepend(choice.el);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    let faces;
    try {
      faces = choice.read();
    } catch (problem) {
      error.textContent = `Could not read the dice: ${problem.message}`;
      return;
    }
    if (!faces.length) {
      error.textContent = `Type the face of each die (${notation || "the dice"}) first.`;
      return;
    }
    go(faces);
  });
  return { quick: [server], forms: [own, error] };
}
