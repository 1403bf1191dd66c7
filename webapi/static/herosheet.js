// @ts-check
// A Quest Calendar hero on one sheet: steppers for the level, the six traits and the stats; the
// abilities with their use (per Rest, once per Page, from the pool, any time) and effect chosen
// from the rulebook's words (the internal name is only the value sent); the pool; the starting
// items from the known items. read() gives the hero exactly as select_hero takes it, with what the
// sheet shows (every number shown is sent; an ability's or effect's part left empty is not).
import { addKnownItem, itemLabel, itemSelect } from "./catalogue.js";
import { h } from "./dom.js";
import { explain } from "./problems.js";

let uid = 0;
const nextId = (stem) => `sheet-${stem}-${++uid}`;
// An id from a name: "Second Wind" -> "second-wind" (the id select_hero needs).
export const slug = (text) =>
  String(text)
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);

// A number with one-less and one-more buttons, labelled in words.
export function stepper(words, { value = 0, min = -100, max = 100, name = "" } = {}) {
  const id = nextId(name || slug(words));
  const input = h("input", {
    id,
    type: "number",
    inputmode: "numeric",
    step: 1,
    min,
    max,
    value,
    dataset: { stat: name },
  });
  const clamp = (n) => Math.min(max, Math.max(min, n));
  const by = (d) => () => {
    const now = /^[-+]?\d+$/.test(input.value.trim()) ? Number(input.value) : value;
    input.value = String(clamp(now + d));
    input.dispatchEvent(new Event("input", { bubbles: true }));
  };
  const el = h(
    "div",
    { class: "field stepper" },
    h("label", { for: id }, words),
    h(
      "span",
      { class: "steps" },
      h("button", { type: "button", class: "small", "aria-label": `${words}: one less`, onclick: by(-1) }, "−"),
      input,
      h("button", { type: "button", class: "small", "aria-label": `${words}: one more`, onclick: by(1) }, "+"),
    ),
  );
  const read = () => {
    const text = input.value.trim();
    if (!/^[-+]?\d+$/.test(text)) throw new Error(`${words}: a whole number is needed`);
    const n = Number(text);
    if (n < min || n > max) throw new Error(`${words}: must be from ${min} to ${max}`);
    return n;
  };
  return { el, input, read };
}

function choice(words, options, { value = "", blank = null } = {}) {
  const id = nextId(slug(words));
  const el = h(
    "select",
    { id },
    blank === null ? null : h("option", { value: "" }, blank),
    options.map((o) => h("option", { value: o.value }, o.words)),
  );
  el.value = value;
  return { el, box: h("div", { class: "field" }, h("label", { for: id }, words), el) };
}

function text(words, attrs = {}) {
  const id = nextId(slug(words));
  const el = h("input", { id, ...attrs });
  return { el, box: h("div", { class: "field" }, h("label", { for: id }, words), el) };
}

// The parts an effect kind takes besides its kind.
const NEEDS = {
  heal: ["dice", "amount"],
  cure: ["condition"],
  booster: ["trait", "dice", "amount"],
  check_bonus: ["dice", "amount"],
  reroll: ["keep"],
  attack_bonus: ["dice", "amount"],
  damage_bonus: ["dice", "amount"],
  aim_bonus: ["dice", "amount"],
  evasion_bonus: ["dice", "amount"],
  repair: ["dice", "amount"],
};
// The effect kinds the rules apply to an ability, and to an item (command_fields.EFFECT_KINDS).
const ABILITY_EFFECTS = [
  "heal", "cure", "remove_injury", "check_bonus", "reroll", "attack_bonus", "damage_bonus",
  "double_damage", "extra_attack", "aim_bonus", "evasion_bonus", "repair",
];
const ITEM_EFFECTS = ["heal", "cure", "remove_injury", "booster", "ration"];
const KEEPS = [
  { value: "new", words: "the new result" },
  { value: "better", words: "the better result" },
];

// An effect: its kind from the list in words, then the parts that kind takes.
function effectPart(words, title, kinds) {
  const kind = choice(`${title}: effect`, words.effect_kinds.filter((k) => kinds.includes(k.value)), {
    blank: "(none the rules apply: the page says)",
  });
  const dice = text(`${title}: dice (such as 1d4)`, { maxlength: 40, spellcheck: "false" });
  const amount = text(`${title}: amount added`, { type: "number", step: 1, min: -1000, max: 1000 });
  const condition = choice(`${title}: condition it ends`, words.conditions);
  const trait = choice(`${title}: trait`, words.traits);
  const keep = choice(`${title}: keep`, KEEPS);
  const parts = { dice, amount, condition, trait, keep };
  const sync = () => {
    const needs = NEEDS[kind.el.value] || [];
    for (const [key, part] of Object.entries(parts)) part.box.hidden = !needs.includes(key);
  };
  kind.el.addEventListener("change", sync);
  sync();
  const read = () => {
    if (!kind.el.value) return undefined;
    const out = { kind: kind.el.value };
    const needs = NEEDS[kind.el.value] || [];
    if (needs.includes("dice") && dice.el.value.trim()) out.dice = dice.el.value.trim();
    if (needs.includes("amount") && amount.el.value.trim() !== "") out.amount = Number(amount.el.value);
    for (const key of ["condition", "trait", "keep"]) if (needs.includes(key)) out[key] = parts[key].el.value;
    return out;
  };
  return { boxes: [kind.box, ...Object.values(parts).map((p) => p.box)], read };
}

// One ability: its name, its use (and uses per Rest or cost in surges), when, and its effect.
function abilityRow(words, number, onRemove) {
  const title = `Ability ${number}`;
  const name = text(`${title}: name`, { maxlength: 200, required: true });
  const usage = choice(`${title}: use`, words.usages, { value: "per_page" });
  const uses = stepper(`${title}: uses per Rest`, { value: 1, min: 0, max: 100 });
  const cost = stepper(`${title}: how many it costs from the pool`, { value: 1, min: 0, max: 100 });
  // No default: where an ability may be used is the player's to say, so none is sent unchosen.
  const context = choice(`${title}: when`, words.contexts, { blank: "(choose when)" });
  const effect = effectPart(words, title, ABILITY_EFFECTS);
  const sync = () => {
    uses.el.hidden = usage.el.value !== "per_rest";
    cost.el.hidden = usage.el.value !== "surge";
  };
  usage.el.addEventListener("change", sync);
  sync();
  const row = h(
    "fieldset",
    { class: "nested ability" },
    h("legend", {}, title),
    name.box,
    usage.box,
    uses.el,
    cost.el,
    context.box,
    effect.boxes,
  );
  row.append(h("button", { type: "button", class: "small", onclick: () => onRemove(row) }, `Remove ability ${number}`));
  const read = () => {
    const said = name.el.value.trim();
    if (!said) throw new Error(`${title}: a name is needed`);
    if (!context.el.value) throw new Error(`${title}: say when it may be used`);
    const out = { id: slug(said) || `ability-${number}`, name: said, usage: usage.el.value, context: context.el.value };
    if (usage.el.value === "per_rest") out.uses = uses.read();
    if (usage.el.value === "surge") out.cost = cost.read();
    const made = effect.read();
    if (made) out.effect = made;
    return out;
  };
  return { row, read };
}

// Two abilities of one name get ids of their own ("smite", "smite-2").
function unique(list) {
  const seen = new Set();
  return list.map((a) => {
    let id = a.id;
    for (let n = 2; seen.has(id); n++) id = `${a.id}-${n}`;
    seen.add(id);
    return { ...a, id };
  });
}

/** @type {[string, string, number, number, number][]} the stat, its words, start, least, most */
const STATS = [
  ["hp_max", "Maximum HP", 10, 1, 10000],
  ["def", "DEF", 10, -100, 100],
  ["atk", "ATK", 0, -100, 100],
  ["damage_mod", "Added to every Damage roll", 0, -100, 100],
  ["virtue", "Virtue", 0, -10, 10],
  ["credits", "Credits", 0, -100000, 100000],
  ["rations", "Meal Rations", 0, 0, 1000],
];

// The pool of surges or charges (QC-19): only a hero that has one. read() gives {pool} or {}.
function poolPart() {
  const has = h("input", { type: "checkbox", id: nextId("has-pool") });
  const called = choice("The pool is called", [
    { value: "surges", words: "Surges" },
    { value: "charges", words: "Charges" },
  ], { value: "surges" });
  const most = stepper("Surges or charges at most", { value: 2, min: 0, max: 100, name: "pool" });
  const box = h("div", { class: "pool-parts" }, called.box, most.el);
  const sync = () => (box.hidden = !has.checked);
  has.addEventListener("change", sync);
  sync();
  const label = h("label", { for: has.id }, " The hero has a pool of surges or charges");
  return {
    boxes: [h("p", { class: "check" }, has, label), box],
    read: () => (has.checked ? { pool: { name: called.el.value, max: most.read() } } : {}),
  };
}

// The abilities, added and removed one by one. read() gives {abilities} or {}.
function abilitiesPart(words) {
  const rows = [];
  const list = h("div", { class: "rows" });
  let made = 0;
  const add = h("button", { type: "button", class: "small", onclick: () => {
    const entry = abilityRow(words, ++made, (row) => {
      rows.splice(rows.findIndex((a) => a.row === row), 1);
      row.remove();
      add.focus();
    });
    rows.push(entry);
    list.append(entry.row);
    entry.row.querySelector("input").focus();
  } }, "Add an ability");
  return { boxes: [list, add], read: () => (rows.length ? { abilities: unique(rows.map((a) => a.read())) } : {}) };
}

// An item not on the list, typed once: added to the group's list (POST /library/items, checked as
// gain_item checks it), then handed to `made(entry)`.
function newItemPart(words, made) {
  const title = "New item";
  const name = text(`${title}: name`, { maxlength: 200 });
  const kind = choice(`${title}: kind`, words.item_kinds, { value: "consumable" });
  const slot = text(`${title}: worn as (helmet, boots, weapon...)`, { maxlength: 40 });
  const between = h("input", { type: "checkbox", id: nextId("between") });
  const effect = effectPart(words, title, ITEM_EFFECTS);
  const said = h("p", { class: "hint", role: "status" });
  const sync = () => (slot.box.hidden = kind.el.value !== "equipment");
  kind.el.addEventListener("change", sync);
  sync();
  const add = h("button", { type: "button", class: "small", onclick: async () => {
    said.textContent = "";
    const called = name.el.value.trim();
    if (!called) {
      said.textContent = "New item: a name is needed.";
      return;
    }
    const item = { id: slug(called) || "item", name: called, kind: kind.el.value };
    if (kind.el.value === "equipment") item.slot = slot.el.value.trim();
    if (between.checked) item.usable_between_rounds = true;
    const does = effect.read();
    if (does) item.effect = does;
    try {
      made(await addKnownItem(item));
      said.textContent = `${called} is on the group's list now.`;
    } catch (problem) {
      said.textContent = `Not added: ${explain(problem)}`;
    }
  } }, "Add it to the group's list and to the hero's items");
  return h(
    "details",
    { class: "new-item" },
    h("summary", {}, "An item not on the list"),
    name.box,
    kind.box,
    slot.box,
    h("p", { class: "check" }, between, h("label", { for: between.id }, " May be used between combat rounds")),
    effect.boxes,
    add,
    said,
  );
}

// The items the hero starts with, from the known items; equipment may be worn from the start.
// read() gives {inventory, equipped} (each only if any).
function itemsPart(items, words) {
  const pickId = nextId("item");
  const pick = itemSelect(pickId);
  pick.fill(items);
  const carried = [];
  const list = h("ul", { class: "carried", "aria-label": "Items the hero starts with" });
  const carry = (entry) => {
    const wornId = nextId("worn");
    const worn = entry.item.kind === "equipment" ? h("input", { type: "checkbox", id: wornId }) : null;
    const row = h(
      "li",
      { dataset: { item: entry.id } },
      itemLabel(entry),
      worn ? h("span", { class: "check" }, worn, h("label", { for: wornId }, " wearing it")) : null,
      h("button", { type: "button", class: "small", onclick: () => {
        carried.splice(carried.findIndex((c) => c.row === row), 1);
        row.remove();
      } }, `Remove ${entry.item.name || entry.id}`),
    );
    carried.push({ row, entry, worn });
    list.append(row);
  };
  const add = h("button", { type: "button", class: "small", onclick: () => {
    const entry = items.find((e) => e.id === pick.el.value);
    if (entry) carry(entry);
  } }, "Add to the hero's items");
  const typed = newItemPart(words, (entry) => {
    items.push(entry);
    pick.fill(items);
    carry(entry);
  });
  const read = () => {
    const out = {};
    if (carried.length) out.inventory = carried.map((c) => c.entry.item);
    const worn = carried.filter((c) => c.worn?.checked).map((c) => c.entry.id);
    if (worn.length) out.equipped = worn;
    return out;
  };
  const known = h("div", { class: "field" }, h("label", { for: pickId }, "Known item"), pick.el);
  return { boxes: [known, add, typed, list], read };
}

// The sheet; `words` and `items` are GET /library/items' (catalogue.js knownItems()).
export function heroSheet({ words, items }) {
  const name = text("Hero's name", { maxlength: 200, required: true, autocomplete: "off" });
  const level = stepper("Level", { value: 1, min: 1, max: 100, name: "level" });
  const traits = words.traits.map((t) => [t.value, stepper(`${t.words} (${t.value})`, { name: t.value })]);
  const stats = STATS.map(
    ([key, said, value, min, max]) =>
      /** @type {[string, ReturnType<typeof stepper>]} */ ([key, stepper(said, { value, min, max, name: key })]),
  );
  const dice = text("Damage dice (such as 1d6)", { value: "1d6", maxlength: 40, spellcheck: "false", required: true });
  const pool = poolPart();
  const abilities = abilitiesPart(words);
  const carried = itemsPart([...items], words);
  const el = h(
    "fieldset",
    { class: "hero-sheet" },
    h("legend", {}, "A new hero"),
    name.box,
    level.el,
    h("h4", {}, "Traits"),
    h("div", { class: "steppers" }, traits.map(([, s]) => s.el)),
    h("h4", {}, "Stats"),
    h("div", { class: "steppers" }, stats.map(([, s]) => s.el), dice.box),
    h("h4", {}, "Pool"),
    pool.boxes,
    h("h4", {}, "Abilities"),
    abilities.boxes,
    h("h4", {}, "Items"),
    carried.boxes,
  );
  const read = () => {
    const said = name.el.value.trim();
    if (!said) throw new Error("Hero's name: a name is needed");
    const hero = { id: slug(said) || "hero", name: said, level: level.read() };
    hero.traits = Object.fromEntries(traits.map(([key, s]) => [key, s.read()]));
    for (const [key, s] of stats) hero[key] = s.read();
    hero.damage_dice = dice.el.value.trim();
    return { ...hero, ...abilities.read(), ...pool.read(), ...carried.read() };
  };
  return { el, read, name: () => name.el.value.trim(), focus: () => name.el.focus() };
}
