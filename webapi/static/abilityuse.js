// @ts-check
// The abilities offered on a combat roll, each with what its use needs said in words: a reroll
// that its effect does not tie to a roll asks "Reroll which roll?" (the attack roll or the damage
// roll), and, in a round that may get an extra attack, any ability asks which attack it changes.
// What is sent is an ability id alone, or {id, roll, attempt} with only the parts chosen.
import { h } from "./dom.js";

let uid = 0;
const words = (text) => String(text).replaceAll("_", " ");
// camelCase ids in words: "catgirlGirlfriend" -> "catgirl girlfriend" ("STR" stays "STR").
export const idWords = (id) =>
  String(id)
    .replace(/([a-z])([A-Z])(?=[a-z])/g, (_, a, b) => `${a} ${b.toLowerCase()}`)
    .replace(/_+/g, " ");

// The ability's name as the hero's book has it, else its id in words.
export function abilityName(option, state) {
  return option.name || state?.hero?.abilities?.[option.id]?.name || idWords(option.id);
}

export function abilityText(option, state) {
  const left = option.uses_left !== null && option.uses_left !== undefined ? `, ${option.uses_left} left` : "";
  return `${abilityName(option, state)}${option.kind ? ` (${words(option.kind)}${left})` : ""}`;
}

function select(id, label, choices, required) {
  const input = h(
    "select",
    { id, "aria-required": required ? "true" : null },
    choices.map(([value, text]) => h("option", { value }, text)),
  );
  return { input, el: h("span", { class: "field inline" }, h("label", { for: id }, label), input) };
}

// `stage`: "attack" or "damage" in hard mode (the roll is the one just made), null otherwise.
// `name` names the checkboxes (`abilities`, or `assignments.2` for a round in easy mode).
// `fields`: the catalogue's fields of an ability use object (`roll`, `attempt`), if the command
// takes one (a dogfight's abilities are ids alone: nothing is asked).
export function abilityPicker(options, { stage = null, state = {}, prefix, name, fields = [] }) {
  const choicesOf = (field) => (fields || []).find((f) => f.name === field)?.choices || null;
  const rolls = choicesOf("roll");
  const attempts = choicesOf("attempt");
  const extraPossible = Boolean(attempts) && stage === null && options.some((o) => o.kind === "extra_attack");
  const rows = options.map((option) => {
    const id = `${prefix}-${option.id}-${++uid}`;
    const box = h("input", { type: "checkbox", id, name, value: option.id });
    const label = h("label", { class: "check", for: id }, box, ` ${abilityText(option, state)}`);
    const asks = h("span", { class: "ability-asks", hidden: true });
    let roll = null;
    let attempt = null;
    if (rolls && option.kind === "reroll" && !option.effect?.roll && stage === null) {
      roll = select(
        `${id}-roll`,
        `${abilityName(option, state)}: reroll which roll?`,
        [["", "(choose)"], ...rolls.map((c) => [c, `the ${words(c)} roll`])],
        true,
      );
      asks.append(roll.el);
    }
    if (extraPossible && option.kind !== "extra_attack") {
      // left out, the attack it changes is the current one: the first, in these modes
      const others = attempts.filter((c) => c !== "first");
      attempt = select(`${id}-attempt`, `${abilityName(option, state)}: on which attack?`, [
        ["", "the first attack"],
        ...others.map((c) => [c, `the ${words(c)} attack`]),
      ]);
      asks.append(attempt.el);
    }
    box.addEventListener("change", () => (asks.hidden = !box.checked));
    const read = () => {
      if (!box.checked) return undefined;
      if (roll && !roll.input.value)
        throw new Error(`${abilityName(option, state)}: say which roll to reroll, the attack or the damage`);
      const use = { id: option.id };
      if (roll) use.roll = roll.input.value;
      if (attempt?.input.value) use.attempt = attempt.input.value;
      return Object.keys(use).length === 1 ? option.id : use;
    };
    return { option, el: h("div", { class: "ability-use" }, label, asks), read };
  });
  // An extra attack is made before the abilities aimed at it (the server applies them in order).
  const read = () => {
    const uses = rows.map((row) => [row.option, row.read()]).filter(([, use]) => use !== undefined);
    const first = uses.filter(([o]) => o.kind === "extra_attack");
    return [...first, ...uses.filter(([o]) => o.kind !== "extra_attack")].map(([, use]) => use);
  };
  return { els: rows.map((row) => row.el), read };
}
