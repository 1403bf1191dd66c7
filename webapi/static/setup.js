// The match setup builder: players (ids), their pieces (id, location, facing, adaptability) and
// weapons, seeded from a sample setup. read() gives the setup with only what is filled in: a field
// left empty (or on "default") stays out, so the server's defaults apply and nothing is sent that
// the owner did not choose or accept.
import { clear, h } from "./dom.js";

const KINDS = ["pathway", "home", "elsewhere", "eliminated"];
const FACINGS = ["N", "E", "S", "W"];
const WEAPONS = ["melee", "ranged", "hybrid"];
const PARTNERS = ["catgirlGirlfriend", "catboyBoyfriend"];
let uid = 0;

function input(label, attrs, value) {
  const id = `setup-${++uid}`;
  const el = h("input", { id, ...attrs });
  if (value !== undefined && value !== null) el.value = String(value);
  return { el, box: h("div", { class: "field" }, h("label", { for: id }, label), el) };
}

function select(label, options, value, blank = "(default)") {
  const id = `setup-${++uid}`;
  const el = h("select", { id }, blank ? h("option", { value: "" }, blank) : null, options.map((o) => h("option", { value: o }, o)));
  if (value !== undefined && value !== null) el.value = String(value);
  return { el, box: h("div", { class: "field" }, h("label", { for: id }, label), el) };
}

const num = (el) => (el.value.trim() === "" ? undefined : Number(el.value));
const put = (out, key, value) => {
  if (value !== undefined && value !== "") out[key] = value;
};

function pieceRow(owner, piece = {}) {
  const id = input("Piece id", { required: true, maxlength: 80 }, piece.id);
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
  const id = input("Weapon id", { required: true, maxlength: 80 }, weapon.id);
  const kind = select("Kind", WEAPONS, weapon.kind ?? "melee", null);
  const none = { type: "number", min: 0, placeholder: "none (no ammunition)" };
  const ammo = input("Ammunition", none, weapon.ammo);
  const most = input("Capacity", none, weapon.ammo_max);
  const regen = input("Regained each night", none, weapon.ammo_regen);
  const row = h("fieldset", { class: "nested weapon" }, h("legend", {}, "Weapon"), id.box, kind.box, ammo.box, most.box, regen.box);
  const read = () => {
    const out = { id: id.el.value.trim(), kind: kind.el.value };
    const [a, m, r] = [num(ammo.el), num(most.el), num(regen.el)];
    if (a !== undefined || m !== undefined || r !== undefined) out.uses_ammo = true; // ammunition given: it uses some
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
  return { el: h("div", { class: `group ${title}s` }, list, h("button", { type: "button", class: "small", onclick: () => add() }, `Add a ${title}`)), read: () => rows.map((r) => r.read()), rows };
}

function playerRow(player = {}) {
  const id = input("Player id", { required: true, maxlength: 80, class: "player-id" }, player.id);
  const owner = () => id.el.value || "player";
  const pieces = group("piece", (p) => pieceRow(owner, p), player.pieces);
  const weapons = group("weapon", (w) => weaponRow(owner, w), player.weapons);
  // The party's numbers and partner, shown at the sample's values (empty: the server's default).
  const numbers = { type: "number", min: -20, max: 20, placeholder: "default 0" };
  const party = {
    exhaustion: input("Exhaustion", { type: "number", min: 0, max: 100, placeholder: "default 0" }, player.exhaustion),
    luck_mod: input("Luck modifier", numbers, player.luck_mod),
    int_mod: input("INT modifier", numbers, player.int_mod),
    partner: select("Partner", PARTNERS, player.partner, "(none)"),
    relationship: input("Relationship", { type: "number", min: 0, max: 100, placeholder: "default 0" }, player.relationship),
    // G-CB-01: empty leaves fate rerolls uncounted (unlimited).
    fate_rerolls: input("Fate rerolls", { type: "number", min: 0, max: 100, placeholder: "unlimited" }, player.fate_rerolls),
  };
  const row = h("fieldset", { class: "nested player" }, h("legend", {}, "Player"), id.box,
    h("div", { class: "party-numbers" }, Object.values(party).map((p) => p.box)), h("h5", {}, "Pieces"), pieces.el, h("h5", {}, "Weapons"), weapons.el);
  const read = () => {
    const out = { id: id.el.value.trim() };
    for (const [key, part] of Object.entries(party)) put(out, key, key === "partner" ? part.el.value : num(part.el));
    const [p, w] = [pieces.read(), weapons.read()];
    if (p.length) out.pieces = p;
    if (w.length) out.weapons = w;
    return out;
  };
  return { row, read };
}

// The rest of the setup (creatures, annustar, options...) as JSON the owner may edit: the
// sample's, or nothing when the field is emptied.
function restOfSetup(extra) {
  const id = `setup-${++uid}`;
  const el = h("textarea", { id, rows: 3, spellcheck: "false", class: "setup-rest" });
  el.value = Object.keys(extra).length ? JSON.stringify(extra) : "";
  const box = h("div", { class: "field" }, h("label", { for: id }, "The rest of the setup (JSON: creatures, annustar, options)"), el);
  return { box, read: () => (el.value.trim() ? JSON.parse(el.value) : {}) };
}

// Who starts: one of the players as they are named now (a renamed player stays chosen: the
// choice is the row, not the id typed when it was made), or the first by default.
function startingPlayer(players, sampleId) {
  const id = `setup-${++uid}`;
  const el = h("select", { id });
  let chosen = players.rows.find((r) => r.read().id === sampleId) || null;
  const refresh = () => {
    if (chosen && !players.rows.includes(chosen)) chosen = null;
    clear(el, h("option", { value: "" }, "(the first player)"), players.rows.map((r, k) => h("option", { value: String(k), selected: r === chosen }, r.read().id || `player ${k + 1}`)));
  };
  el.addEventListener("change", () => (chosen = el.value === "" ? null : players.rows[Number(el.value)]));
  refresh();
  const box = h("div", { class: "field" }, h("label", { for: id }, "Starting player (holds the starting token)"), el);
  return { el, box, refresh, read: () => (chosen && players.rows.includes(chosen) ? chosen.read().id : undefined) };
}

export function setupBuilder(sample) {
  const players = group("player", playerRow, sample?.players || []);
  const { starting_token: token, ...others } = Object.fromEntries(Object.entries(sample || {}).filter(([k]) => k !== "players"));
  const start = startingPlayer(players, token);
  const rest = restOfSetup(others);
  const el = h("fieldset", { class: "setup-builder" }, h("legend", {}, "Players, their pieces and weapons"), players.el, start.box, rest.box);
  // a player added, removed or renamed: the starting player's choices follow
  el.addEventListener("input", (event) => event.target !== start.el && start.refresh());
  el.addEventListener("click", (event) => event.target !== start.el && queueMicrotask(start.refresh));
  return {
    el,
    read: () => {
      const out = { ...rest.read(), players: players.read() };
      const first = start.read();
      if (first !== undefined) out.starting_token = first;
      return out;
    },
  };
}
