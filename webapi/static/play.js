// @ts-check
// Forms generated from the command schemas of GET /commands. A form sends exactly what the player
// chose: a field left empty or "(not set)" is left out, an optional object stays out until its
// "Add" button is pressed (and "Remove" takes it out again), an optional list starts empty, and a
// field the catalogue says is picked from the state (`picks`) is a choice among the state's entries.
// Every control is named by its path in the body (`hero.pool.max`, `rounds[0].condition`), and
// the buttons that add or remove a part carry it as `data-add` / `data-remove`.
// The controls, one per field, are controls.js's; their words and values fieldtext.js's.
import { commandTitle } from "./commandtitles.js";
import { h } from "./dom.js";
import { diceChoice, diceFromText, diceOf } from "./dice.js";
import { control, nextId, readParts } from "./controls.js";
import { words } from "./fieldtext.js";
import { explain } from "./problems.js";

// The form of one command. `send(body)` posts it and returns a promise; `preset` fields are sent
// as given and not shown; `initial` values are shown filled in (the player may change them);
// `open` names optional objects shown open; `answers` ([{label, values}]) is a required choice
// whose values join the body; `state()` is the campaign state the picks come from.
// `plays(seat)`, in a match: the seats this page plays, the only ones its player select offers.
// `dice: false`: no dice choice (the decision card has one for all its answers).
// The dice an ability of the hero rolls, from the state: its effect's dice ("1d6" for Second Wind);
// none known (no ability chosen, or one whose effect rolls no dice of its own): the neutral label.
const ABILITY_DIE = [{ sides: 0, purpose: "", label: "the ability's die" }];
function abilityDice(state, id) {
  if (id === undefined || id === null || id === "") return ABILITY_DIE;
  const abilities = state?.hero?.abilities || {};
  const ability = abilities[id] ?? Object.values(abilities).find((a) => a && a.id === id);
  const notation = ability?.effect?.dice;
  return notation ? diceOf(notation, ability.name || "ability") : ABILITY_DIE;
}

/**
 * A command of GET /commands: its name, its fields' schemas, the dice it rolls in words.
 * @typedef {object} Command
 * @property {string} name
 * @property {string} [summary]
 * @property {string | null} [dice]
 * @property {Record<string, any>[]} fields
 */

/**
 * @typedef {object} FormOptions
 * @property {string} [seat]
 * @property {((seat: string) => boolean) | null} [plays]
 * @property {(body: Record<string, any>) => Promise<unknown>} [send]
 * @property {Record<string, any>} [preset]
 * @property {Record<string, any>} [initial]
 * @property {string[]} [open]
 * @property {{label: string, values: Record<string, any>}[] | null} [answers]
 * @property {() => Record<string, any>} [state]
 * @property {string | null} [title]
 * @property {string | null} [submit]
 * @property {boolean} [dice]
 */

/**
 * @param {Command} command
 * @param {FormOptions} [options]
 * @returns {HTMLFormElement & {refresh?: () => void}}
 */
export function commandForm(
  command,
  {
    seat,
    plays = null,
    send,
    preset = {},
    initial = {},
    open = [],
    answers = null,
    state = () => ({}),
    title = null,
    submit = null,
    dice: ownDice = true,
  } = {},
) {
  // The page fills `entropy` itself, at the moment the command is sent (sending.js).
  // The answer's values are its own: their fields are not asked again.
  const covered = new Set((answers || []).flatMap((a) => Object.keys(a.values)));
  // Faces only for a command that rolls dice (the catalogue's `dice` says which; null: none).
  const rolls = Boolean(command.dice) && !/^None\b/.test(command.dice);
  const fields = command.fields.filter(
    (f) => !(f.name in preset) && !covered.has(f.name) && f.name !== "entropy" && f.name !== "faces",
  );
  // Whose dice: a choice of its own, unless its card has one for all its answers (decisions.js).
  // A command that uses an ability rolls what the ability chosen rolls (abilityDice).
  const byAbility = command.fields.some((f) => f.name === "ability");
  const planned = byAbility ? ABILITY_DIE : diceFromText(command.dice);
  const dice = ownDice && rolls && command.fields.some((f) => f.name === "faces") ? diceChoice(planned) : null;
  let parts = [];
  const ctx = {
    command: command.name,
    seat,
    plays,
    dice: command.dice,
    state,
    refreshers: [],
    valueOf: (name) => (name in preset ? preset[name] : parts.find(([n]) => n === name)?.[1].read()),
  };
  parts = fields.map((f) => [f.name, control(f, f.name, ctx, open.includes(f.name))]);
  if (dice && byAbility) ctx.refreshers.push(() => dice.plan(abilityDice(state(), ctx.valueOf("ability"))));
  for (const [name, part] of parts) if (initial[name] !== undefined) part.set?.(initial[name]);
  // The seat (or an initial value) was set after the fields that depend on it were filled in:
  // fill them again, so that a piece is among the pieces of the player already chosen.
  ctx.refreshers.forEach((refresh) => refresh());
  const answerId = nextId(`${command.name}-answer`);
  const answer = answers
    ? h(
        "select",
        { id: answerId, name: "answer", required: true },
        h("option", { value: "" }, "(choose)"),
        answers.map((a, i) => h("option", { value: String(i) }, a.label)),
      )
    : null;
  const error = h("p", { class: "error", role: "alert" });
  const name = commandTitle(command.name);
  const form = h(
    "form",
    { class: "command", dataset: { command: command.name } },
    h("h4", {}, title || name),
    command.summary ? h("p", { class: "hint" }, command.summary) : null,
    rolls ? h("p", { class: "hint" }, `Dice: ${command.dice.replace(/`([^`]*)`/g, (_, name) => words(name))}`) : null,
    answer ? h("div", { class: "field" }, h("label", { for: answerId }, "Answer"), answer) : null,
    parts.map(([, p]) => p.el),
    dice?.el,
    h("button", { type: "submit" }, submit || `Send: ${name}`),
    error,
  );
  form.addEventListener("change", () => ctx.refreshers.forEach((refresh) => refresh()));
  form.refresh = () => ctx.refreshers.forEach((refresh) => refresh());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    /** @type {Record<string, any>} */
    let body;
    try {
      body = {
        type: command.name,
        ...preset,
        ...(answer ? answers[Number(answer.value)].values : {}),
        ...readParts(parts),
      };
      const faces = dice?.read();
      if (faces !== undefined) body.faces = faces;
    } catch (problem) {
      error.textContent = `Could not read the form: ${problem.message}`;
      return;
    }
    const button = /** @type {HTMLButtonElement} */ (form.querySelector("button[type=submit]"));
    button.disabled = true;
    try {
      await send(body);
    } catch (problem) {
      error.textContent = dice?.retry(problem) || problem.shown ? "" : explain(problem);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}
