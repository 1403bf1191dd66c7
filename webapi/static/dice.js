// @ts-check
// Whose dice a roll uses: the server's (the page adds its fresh `entropy` when the command is
// sent, sending.js) or the player's own, one face per die, each labelled by the die and what it
// is for ("d20 for the attack"). Faces are sent as `faces`, in the order the server draws them;
// when it needs more it answers 409 "not enough faces: the next roll needs 1 (d20)…", which is
// said here in words, with a new input for each die it still needs.
import { h } from "./dom.js";
import { wholeNumber } from "./fieldtext.js";

let uid = 0;
const words = (text) => String(text).replaceAll("_", " ");

/**
 * A die expected: its sides (0: not known) and what it is for, or a label of its own.
 * @typedef {{sides: number, purpose: string, label?: string}} PlannedDie
 */

// The dice a command's catalogue text starts with, as [{sides, purpose}]: "d20 for the check",
// "d20 (attack; …", "d100 (Aim)", "2d20 (basketball)". Only a guess for the labels
// of the first inputs: the server's refusal says what more it needs.
/**
 * @param {string | null | undefined} text
 * @returns {PlannedDie[]}
 */
export function diceFromText(text) {
  const match = /(?<![A-Za-z\d])(\d*)d(\d+)(?:\s+for\s+the\s+([a-z ]+)|\s*\(([A-Za-z ]+))?/.exec(
    String(text || ""),
  );
  if (!match) return [];
  const count = Math.min(Number(match[1] || 1), 6);
  const purpose = (match[3] || match[4] || "").trim().toLowerCase();
  return Array.from({ length: count }, () => ({ sides: Number(match[2]), purpose }));
}

// Dice in notation ("1d4", "2d20") with one purpose.
/**
 * @param {string | null | undefined} notation
 * @param {string} purpose
 * @returns {PlannedDie[]}
 */
export function diceOf(notation, purpose) {
  const match = /^(\d*)d(\d+)/.exec(String(notation || ""));
  if (!match) return [];
  const count = Math.min(Number(match[1] || 1), 6);
  const sides = Number(match[2]);
  return Array.from({ length: count }, (_, i) => ({
    sides,
    purpose: count > 1 ? `${purpose} (die ${i + 1} of ${count})` : purpose,
  }));
}

// "not enough faces: the next roll needs 2 (d20+d20), …" -> [{sides: 20}, {sides: 20}], or null.
/**
 * @param {unknown} detail
 * @returns {PlannedDie[] | null}
 */
function neededDice(detail) {
  const match = /not enough faces: the next roll needs \d+ \(([^)]*)\)/.exec(String(detail || ""));
  if (!match) return null;
  return match[1].split("+").map((d) => ({ sides: Number(d.replace(/^d/, "")), purpose: "" }));
}

const dieWords = (die) =>
  die.label || (die.sides ? `d${die.sides}${die.purpose ? ` for the ${words(die.purpose)}` : ""}` : "the next die");

// The choice: `plan` is the dice expected first. Returns {el, read, retry}: `read()` is
// undefined for server dice, else the faces typed (a refusal names the die); `retry(problem)`
// adds the dice a "not enough faces" answer asks for and says so, true when it did.
/**
 * @param {PlannedDie[]} [plan]
 * @param {{legend?: string}} [options]
 */
export function diceChoice(plan = [], { legend = "Dice" } = {}) {
  const name = `dice-${++uid}`;
  const radio = (value, label, checked) => {
    const id = `${name}-${value}`;
    return h(
      "label",
      { class: "check", for: id },
      h("input", { type: "radio", id, name, value, checked, dataset: { dice: value } }),
      ` ${label}`,
    );
  };
  const list = h("ol", { class: "faces-list" });
  const inputs = [];
  const addDie = (die, focus = false) => {
    const id = `${name}-face-${inputs.length}`;
    const label = `${dieWords(die)}`;
    // text, not number: a face that is not a whole number is refused in the words typed
    const input = h("input", {
      type: "text",
      id,
      name: `faces[${inputs.length}]`,
      inputmode: "numeric",
      placeholder: die.sides ? `1–${die.sides}` : null,
      dataset: { sides: die.sides ? String(die.sides) : "" },
    });
    const said = h("label", { for: id }, label);
    inputs.push({ input, label, die, said });
    const field = `faces[${inputs.length - 1}]`;
    list.append(h("li", { class: "field", dataset: { field } }, said, input));
    if (focus) input.focus();
    return input;
  };
  const start = plan.length ? plan : [{ sides: 0, purpose: "", label: "the first die" }];
  for (const die of start) addDie(die);
  const more = h("button", { type: "button", class: "small", dataset: { add: "faces" } }, "Add a die");
  more.addEventListener("click", () => addDie({ sides: 0, purpose: "" }, true));
  const note = h("p", { class: "hint faces-note", role: "status" });
  const own = h(
    "div",
    { class: "own-dice", hidden: true },
    h("p", { class: "hint" }, "The faces you rolled, in the order the rules roll them."),
    list,
    more,
    note,
  );
  const el = h(
    "fieldset",
    { class: "nested dice-choice", dataset: { field: "faces" } },
    h("legend", {}, legend),
    radio("server", "Server dice", true),
    radio("own", "My own dice", false),
    own,
  );
  const ownChosen = () => /** @type {HTMLInputElement} */ (el.querySelector('input[data-dice="own"]')).checked;
  el.addEventListener("change", () => (own.hidden = !ownChosen()));
  const read = () => {
    if (!ownChosen()) return undefined;
    return inputs
      .filter(({ input }) => input.value.trim() !== "")
      .map(({ input, label }) => wholeNumber(input.value, label));
  };
  // "faces[1]: 9 is not a face of a d6" names the input as its label does.
  const relabel = (text) =>
    String(text).replace(/faces\[(\d+)\]/g, (whole, i) => (inputs[Number(i)] ? inputs[Number(i)].label : whole));
  const retry = (problem) => {
    const detail = problem?.problem?.detail || problem?.message || "";
    const needed = ownChosen() ? neededDice(detail) : null;
    if (!needed) {
      const p = problem?.problem;
      if (ownChosen() && p && typeof p.detail === "string") {
        p.detail = relabel(p.detail);
        if (p.errors?.faces) p.errors = { ...p.errors, faces: [].concat(p.errors.faces).map(relabel) };
      }
      return false;
    }
    const typed = inputs.filter(({ input }) => input.value.trim() !== "").length;
    // the empty inputs left take the dice needed first; new ones are added for the rest
    const empty = inputs.slice(typed);
    needed.forEach((die, i) => {
      if (empty[i]) {
        empty[i].die = die;
        empty[i].label = dieWords(die);
        empty[i].input.placeholder = `1–${die.sides}`;
        empty[i].input.labels[0].textContent = empty[i].label;
      } else addDie(die);
    });
    note.textContent =
      `Your dice ran out: the next roll needs ${needed.map(dieWords).join(" and ")}. ` +
      "Roll it, type its face and send again.";
    inputs[typed]?.input.focus();
    return true;
  };
  // The dice expected first, said again (the form's choice changed what it rolls): the inputs
  // nothing was typed in take the new labels; a die typed stays as it is.
  const replan = (dice) => {
    const wanted = dice.length ? dice : start;
    inputs.forEach((entry, i) => {
      const die = wanted[i];
      if (!die || entry.input.value.trim() !== "") return;
      entry.die = die;
      entry.label = dieWords(die);
      entry.input.placeholder = die.sides ? `1–${die.sides}` : "";
      entry.input.dataset.sides = die.sides ? String(die.sides) : "";
      entry.said.textContent = entry.label; // (input.labels is empty until the form is shown)
    });
    for (const die of wanted.slice(inputs.length)) addDie(die);
  };
  return { el, read, retry, plan: replan };
}
