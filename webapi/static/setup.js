// The match setup builder: players (ids, partner, relationship, exhaustion, luck and INT
// modifiers), their pieces (id, location, facing, adaptability) and weapons (kind, ammunition,
// looted), the starting player, the annustar, the optional rules and the creatures, seeded from a
// sample setup. Every value it sends is shown and editable: read() gives only what is filled in,
// a field left empty (or on "default") stays out and the server's default applies. What the
// builder does not show (a sample's active event) is not sent (docs/table-page.md).
import { h } from "./dom.js";

const KINDS = ["pathway", "home", "elsewhere", "eliminated"];
const FACINGS = ["N", "E", "S", "W"];
const WEAPONS = ["melee", "ranged", "hybrid"];
const PARTNERS = { catgirlGirlfriend: "catgirl girlfriend", catboyBoyfriend: "catboy boyfriend" };
let uid = 0;

function input(label, attrs, value) {
  const id = `setup-${++uid}`;
  const el = h("input", { id, ...attrs });
  if (value !== undefined && value !== null) el.value = String(value);
  return { el, box: h("div", { class: "field" }, h("label", { for: id }, label), el) };
}

// options: values, or [value, words] pairs
function select(label, options, value, blank = "(default)") {
  const id = `setup-${++uid}`;
  const el = h("select", { id }, blank ? h("option", { value: "" }, blank) : null, options.map((o) => (Array.isArray(o) ? h("option", { value: o[0] }, o[1]) : h("option", { value: o }, o))));
  if (value !== undefined && value !== null) el.value = String(value);
  return { el, box: h("div", { class: "field" }, h("label", { for: id }, label), el) };
}

const num = (el) => (el.value.trim() === "" ? undefined : Number(el.value));
const YES_NO = [["true", "yes"], ["false", "no"]];
const yes = (value) => (value ? "true" : "false");
const put = (out, key, value) => {
  if (value !== undefined && value !== "") out[key] = value;
};

function pieceRow(owner, piece = {}) {
  const id = input(`Piece id (${owner()})`, { required: true, maxlength: 80 }, piece.id);
  const kind = select("Starts", KINDS, piece.location?.kind ?? "home", null);
  const space = input("Pathway space", { type: "number", min: 0, max: 10000 }, piece.location?.space);
  const facing = select("Facing", FACINGS, piece.facing, "(default: N)");
  const adapt = input("Adaptability", { type: "number", min: -20, max: 20, placeholder: "default 0" }, piece.adaptability);
  const sync = () => (space.box.hidden = kind.el.value !== "pathway");
  kind.el.addEventListener("change", sync);
  sync();
  const row = h("fieldset", { class: "nested piece" }, h("legend", {}, "Piece"), id.box, kind.box, space.box, facing.box, adapt.box);
  const read = () => {
    const out = { id: id.el.value.trim(), location: { kind: kind.el.value } };
    if (kind.el.value === "pathway") out.location.space = num(space.el) ?? 0;
    put(out, "facing", facing.el.value);
    put(out, "adaptability", num(adapt.el));
    return out;
  };
  return { row, read };
}

function weaponRow(owner, weapon = {}) {
  const id = input(`Weapon id (${owner()})`, { required: true, maxlength: 80 }, weapon.id);
  const kind = select("Kind", WEAPONS, weapon.kind ?? "melee", null);
  const none = { type: "number", min: 0, placeholder: "none (no ammunition)" };
  const ammo = input("Ammunition", none, weapon.ammo);
  const most = input("Capacity", none, weapon.ammo_max);
  const regen = input("Regained each night", none, weapon.ammo_regen);
  const uses = select("Uses ammunition", YES_NO, yes(weapon.uses_ammo), null);
  const looted = select("Looted", YES_NO, yes(weapon.looted), null);
  const row = h("fieldset", { class: "nested weapon" }, h("legend", {}, "Weapon"), id.box, kind.box, uses.box, ammo.box, most.box, regen.box, looted.box);
  const read = () => {
    const out = { id: id.el.value.trim(), kind: kind.el.value };
    const [a, m, r] = [num(ammo.el), num(most.el), num(regen.el)];
    if (uses.el.value === "true") out.uses_ammo = true; // "no" is the server's default: left out
    if (looted.el.value === "true") out.looted = true;
    put(out, "ammo", a);
    put(out, "ammo_max", m);
    put(out, "ammo_regen", r);
    return out;
  };
  return { row, read };
}

// A group of rows that can be added and removed.
function group(title, make, initial) {
  const rows = [];
  const list = h("div", { class: "rows" });
  const add = (value) => {
    const entry = make(value);
    entry.row.append(h("button", { type: "button", class: "small", onclick: () => { rows.splice(rows.indexOf(entry), 1); entry.row.remove(); } }, `Remove this ${title}`));
    rows.push(entry);
    list.append(entry.row);
  };
  (initial || []).forEach(add);
  return { el: h("div", { class: `group ${title}s` }, list, h("button", { type: "button", class: "small", onclick: () => add() }, `Add a ${title}`)), read: () => rows.map((r) => r.read()) };
}

function playerRow(player = {}) {
  const id = input("Player id", { required: true, maxlength: 80, class: "player-id" }, player.id);
  const owner = () => id.el.value || "player";
  const pieces = group("piece", (p) => pieceRow(owner, p), player.pieces);
  const weapons = group("weapon", (w) => weaponRow(owner, w), player.weapons);
  const partner = select("Partner", Object.entries(PARTNERS), player.partner, "(none)");
  const bond = input("Relationship (with a partner)", { type: "number", min: 0, max: 1000 }, player.relationship);
  const zero = { type: "number", min: -20, max: 20, placeholder: "default 0" };
  const tired = input("Exhaustion", { ...zero, min: 0 }, player.exhaustion);
  const luck = input("Luck modifier", zero, player.luck_mod);
  const wit = input("INT modifier", zero, player.int_mod);
  const row = h("fieldset", { class: "nested player" }, h("legend", {}, "Player"), id.box,
    h("div", { class: "party-fields" }, partner.box, bond.box, tired.box, luck.box, wit.box),
    h("h3", {}, "Pieces"), pieces.el, h("h3", {}, "Weapons"), weapons.el);
  const read = () => {
    const out = { id: id.el.value.trim() };
    const [p, w] = [pieces.read(), weapons.read()];
    if (p.length) out.pieces = p;
    if (w.length) out.weapons = w;
    put(out, "partner", partner.el.value);
    put(out, "relationship", num(bond.el));
    put(out, "exhaustion", num(tired.el));
    put(out, "luck_mod", num(luck.el));
    put(out, "int_mod", num(wit.el));
    return out;
  };
  return { row, read };
}

function creatureRow(creature = {}) {
  const id = input("Creature id", { required: true, maxlength: 80 }, creature.id);
  const type = input("Type", { required: true, maxlength: 80 }, creature.type);
  const night = select("Acts at night", YES_NO, yes(creature.night_active ?? true), null);
  const row = h("fieldset", { class: "nested creature" }, h("legend", {}, "Creature"), id.box, type.box, night.box);
  const read = () => {
    const out = { id: id.el.value.trim(), type: type.el.value.trim() };
    if (night.el.value === "false") out.night_active = false; // acting at night is the default
    return out;
  };
  return { row, read };
}

export function setupBuilder(sample) {
  const players = group("player", playerRow, sample?.players || []);
  const start = input("Starting player (id)", { maxlength: 80, placeholder: "default: the first player" }, sample?.starting_token);
  const annustar = input("Annustar damage at the start", { type: "number", min: 0, placeholder: "default 0" }, sample?.annustar);
  const ceasefire = select("Ceasefire rule", YES_NO, yes(sample?.options?.ceasefire_rule), null);
  const events = select("Event rules", YES_NO, yes(sample?.options?.event_rules), null);
  const creatures = group("creature", creatureRow, sample?.creatures || []);
  const el = h("fieldset", { class: "setup-builder" }, h("legend", {}, "Players, their parties, the creatures and the optional rules"), players.el,
    h("h3", {}, "The match"), start.box, annustar.box, ceasefire.box, events.box,
    h("h3", {}, "Creatures"), creatures.el);
  const read = () => {
    const out = { players: players.read() };
    put(out, "starting_token", start.el.value.trim());
    put(out, "annustar", num(annustar.el));
    const options = {};
    if (ceasefire.el.value === "true") options.ceasefire_rule = true;
    if (events.el.value === "true") options.event_rules = true;
    if (Object.keys(options).length) out.options = options;
    const c = creatures.read();
    if (c.length) out.creatures = c;
    return out;
  };
  return { el, read };
}
