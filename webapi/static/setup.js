// @ts-check
// The match setup builder: players (ids), their pieces (id, location, facing, adaptability) and
// weapons, seeded from a sample setup. read() gives the setup with only what is filled in: a field
// left empty (or on "default") stays out, so the server's defaults apply and nothing is sent that
// the owner did not choose or accept. Each number field carries the server's bounds (min, max);
// those a house rule sets follow the house-rules form (bound()), and locate() names the field
// a refusal's path points at ("players[0].exhaustion": "Player 1 (A), exhaustion").
import { clear, h } from "./dom.js";
import { sayWord } from "./panels.js";

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
  const el = h(
    "select",
    { id },
    blank ? h("option", { value: "" }, blank) : null,
    options.map((o) => h("option", { value: o }, sayWord(String(o)))),
  );
  if (value !== undefined && value !== null) el.value = String(value);
  return { el, box: h("div", { class: "field" }, h("label", { for: id }, label), el) };
}

const num = (el) => (el.value.trim() === "" ? undefined : Number(el.value));
// The setup schema's bounds (domain/model/calendar_board/commands.py); two of them are the house
// rules' (cb.exhaustion.max, and cb.relationship.floor when the party has a partner).
const AMMO = { type: "number", min: 0, max: 10000, placeholder: "none (no ammunition)" };
export const RULE_BOUNDS = { exhaustion: "cb.exhaustion.max", relationship: "cb.relationship.floor" };
const at = (field, words) => ({ el: field.el, words });
const put = (out, key, value) => {
  if (value !== undefined && value !== "") out[key] = value;
};

function pieceRow(owner, piece = {}) {
  const id = input("Piece id", { required: true, maxlength: 80 }, piece.id);
  const kind = select("Starts", KINDS, piece.location?.kind ?? "home", null);
  const space = input("Pathway space", { type: "number", min: 0, max: 10000 }, piece.location?.space);
  const facing = select("Facing", FACINGS, piece.facing, "(default: N)");
  const adapt = input(
    "Adaptability",
    { type: "number", min: -20, max: 20, placeholder: "default 0" },
    piece.adaptability,
  );
  const sync = () => (space.box.hidden = kind.el.value !== "pathway");
  kind.el.addEventListener("change", sync);
  sync();
  const row = h(
    "fieldset",
    { class: "nested piece" },
    h("legend", {}, "Piece"),
    id.box,
    kind.box,
    space.box,
    facing.box,
    adapt.box,
  );
  const read = () => {
    const out = { id: id.el.value.trim(), location: { kind: kind.el.value } };
    if (kind.el.value === "pathway") out.location.space = num(space.el) ?? 0;
    put(out, "facing", facing.el.value);
    put(out, "adaptability", num(adapt.el));
    return out;
  };
  const named = () => id.el.value.trim() || "no id";
  // a refusal's path inside this piece: "location.space" is its pathway space
  const locate = (rest) => {
    const fields = {
      id: at(id, "id"),
      location: at(kind, "where it starts"),
      "location.kind": at(kind, "where it starts"),
      "location.space": at(space, "pathway space"),
      facing: at(facing, "facing"),
      adaptability: at(adapt, "adaptability"),
    };
    return fields[rest] || at(id, rest || "");
  };
  return { row, read, named, locate };
}

function weaponRow(owner, weapon = {}) {
  const id = input("Weapon id", { required: true, maxlength: 80 }, weapon.id);
  const kind = select("Kind", WEAPONS, weapon.kind ?? "melee", null);
  const ammo = input("Ammunition", AMMO, weapon.ammo);
  const most = input("Capacity", AMMO, weapon.ammo_max);
  const regen = input("Regained each night", AMMO, weapon.ammo_regen);
  const row = h(
    "fieldset",
    { class: "nested weapon" },
    h("legend", {}, "Weapon"),
    id.box,
    kind.box,
    ammo.box,
    most.box,
    regen.box,
  );
  const read = () => {
    const out = { id: id.el.value.trim(), kind: kind.el.value };
    const [a, m, r] = [num(ammo.el), num(most.el), num(regen.el)];
    if (a !== undefined || m !== undefined || r !== undefined) out.uses_ammo = true; // ammunition given: it uses some
    put(out, "ammo", a);
    put(out, "ammo_max", m);
    put(out, "ammo_regen", r);
    return out;
  };
  const named = () => id.el.value.trim() || "no id";
  const locate = (rest) => {
    const fields = {
      id: at(id, "id"),
      kind: at(kind, "kind"),
      ammo: at(ammo, "ammunition"),
      ammo_max: at(most, "capacity"),
      ammo_regen: at(regen, "regained each night"),
      uses_ammo: at(ammo, "ammunition"),
    };
    return fields[rest] || at(id, rest || "");
  };
  return { row, read, named, locate };
}

// A group of rows that can be added and removed.
function group(title, make, initial) {
  const rows = [];
  const list = h("div", { class: "rows" });
  const add = (value) => {
    const entry = make(value);
    entry.row.append(
      h(
        "button",
        {
          type: "button",
          class: "small",
          onclick: () => {
            rows.splice(rows.indexOf(entry), 1);
            entry.row.remove();
          },
        },
        `Remove this ${title}`,
      ),
    );
    rows.push(entry);
    list.append(entry.row);
  };
  (initial || []).forEach(add);
  return {
    el: h(
      "div",
      { class: `group ${title}s` },
      list,
      h("button", { type: "button", class: "small", onclick: () => add() }, `Add a ${title}`),
    ),
    read: () => rows.map((r) => r.read()),
    rows,
  };
}

function playerRow(player = {}, bounds = {}) {
  const id = input("Player id", { required: true, maxlength: 80, class: "player-id" }, player.id);
  const owner = () => id.el.value || "player";
  const pieces = group("piece", (p) => pieceRow(owner, p), player.pieces);
  const weapons = group("weapon", (w) => weaponRow(owner, w), player.weapons);
  // The party's numbers and partner, shown at the sample's values (empty: the server's default),
  // each bounded as the server bounds it.
  const numbers = { type: "number", min: -20, max: 20, placeholder: "default 0" };
  const party = {
    exhaustion: input("Exhaustion", { type: "number", min: 0, max: 20, placeholder: "default 0" }, player.exhaustion),
    luck_mod: input("Luck modifier", numbers, player.luck_mod),
    int_mod: input("INT modifier", numbers, player.int_mod),
    partner: select("Partner", PARTNERS, player.partner, "(none)"),
    relationship: input(
      "Relationship",
      { type: "number", min: 0, max: 1000, placeholder: "default 0" },
      player.relationship,
    ),
    // G-CB-01: empty leaves fate rerolls uncounted (unlimited).
    fate_rerolls: input(
      "Fate rerolls",
      { type: "number", min: 0, max: 100, placeholder: "unlimited" },
      player.fate_rerolls,
    ),
  };
  // The house rules' bounds, as the house-rules form holds them now: exhaustion at most
  // cb.exhaustion.max; a partner's relationship at least cb.relationship.floor.
  const bound = () => {
    if (bounds.exhaustion !== undefined) party.exhaustion.el.max = String(bounds.exhaustion);
    const floor = party.partner.el.value && bounds.relationship !== undefined ? bounds.relationship : 0;
    party.relationship.el.min = String(floor);
  };
  party.partner.el.addEventListener("change", bound);
  bound();
  const row = h(
    "fieldset",
    { class: "nested player" },
    h("legend", {}, "Player"),
    id.box,
    h(
      "div",
      { class: "party-numbers" },
      Object.values(party).map((p) => p.box),
    ),
    h("h5", {}, "Pieces"),
    pieces.el,
    h("h5", {}, "Weapons"),
    weapons.el,
  );
  const read = () => {
    const out = { id: id.el.value.trim() };
    for (const [key, part] of Object.entries(party)) put(out, key, key === "partner" ? part.el.value : num(part.el));
    const [p, w] = [pieces.read(), weapons.read()];
    if (p.length) out.pieces = p;
    if (w.length) out.weapons = w;
    return out;
  };
  const WORDS = {
    id: "id",
    exhaustion: "exhaustion",
    luck_mod: "luck modifier",
    int_mod: "INT modifier",
    partner: "partner",
    relationship: "relationship",
    fate_rerolls: "fate rerolls",
  };
  // "pieces[1].location.space": the second piece's pathway space, and so on.
  const locate = (rest, name) => {
    if (!rest || rest === "id") return at(id, rest ? `${name}, id` : name);
    if (rest in party) return at(party[rest], `${name}, ${WORDS[rest]}`);
    const inner = /^(pieces|weapons)\[(\d+)\](?:\.(.+))?$/.exec(rest);
    const rows = inner ? (inner[1] === "pieces" ? pieces : weapons).rows : null;
    const one = rows?.[Number(inner[2])];
    if (one) {
      const spot = one.locate(inner[3]);
      return {
        el: spot.el,
        words:
          `${name}, ${inner[1] === "pieces" ? "piece" : "weapon"} ` +
          `${Number(inner[2]) + 1} (${one.named()})` +
          `${spot.words ? `, ${spot.words}` : ""}`,
      };
    }
    return at(id, `${name}, ${rest.replaceAll("_", " ")}`);
  };
  return { row, read, bound, locate, id: () => id.el.value.trim() };
}

// The rest of the setup (creatures, annustar, options...) as JSON the owner may edit: the
// sample's, or nothing when the field is emptied.
function restOfSetup(extra) {
  const id = `setup-${++uid}`;
  const el = h("textarea", { id, rows: 3, spellcheck: "false", class: "setup-rest" });
  el.value = Object.keys(extra).length ? JSON.stringify(extra) : "";
  const box = h(
    "div",
    { class: "field" },
    h("label", { for: id }, "The rest of the setup (JSON: creatures, annustar, options)"),
    el,
  );
  return { el, box, read: () => (el.value.trim() ? JSON.parse(el.value) : {}) };
}

// Who starts: one of the players as they are named now (a renamed player stays chosen: the
// choice is the row, not the id typed when it was made), or the first by default.
function startingPlayer(players, sampleId) {
  const id = `setup-${++uid}`;
  const el = h("select", { id });
  let chosen = players.rows.find((r) => r.read().id === sampleId) || null;
  const refresh = () => {
    if (chosen && !players.rows.includes(chosen)) chosen = null;
    clear(
      el,
      h("option", { value: "" }, "(the first player)"),
      players.rows.map((r, k) =>
        h("option", { value: String(k), selected: r === chosen }, r.read().id || `player ${k + 1}`),
      ),
    );
  };
  el.addEventListener("change", () => (chosen = el.value === "" ? null : players.rows[Number(el.value)]));
  refresh();
  const box = h("div", { class: "field" }, h("label", { for: id }, "Starting player (holds the starting token)"), el);
  return { el, box, refresh, read: () => (chosen && players.rows.includes(chosen) ? chosen.read().id : undefined) };
}

export function setupBuilder(sample) {
  const bounds = {}; // the house rules' bounds now (bound())
  const players = group("player", (p) => playerRow(p, bounds), sample?.players || []);
  const { starting_token: token, ...others } = Object.fromEntries(
    Object.entries(sample || {}).filter(([k]) => k !== "players"),
  );
  const start = startingPlayer(players, token);
  const rest = restOfSetup(others);
  const el = h(
    "fieldset",
    { class: "setup-builder" },
    h("legend", {}, "Players, their pieces and weapons"),
    players.el,
    start.box,
    rest.box,
  );
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
    // The house rules' values now ({exhaustion, relationship}: cb.exhaustion.max and
    // cb.relationship.floor): every player's fields, and those of players added later, follow.
    bound: (values) => {
      Object.assign(bounds, values);
      players.rows.forEach((r) => r.bound());
    },
    // The field a refusal's path names ("players[0].exhaustion", "starting_token"), in words and
    // as the control to mark, or null when the path is not the builder's.
    locate: (path) => {
      const player = /^players\[(\d+)\](?:\.(.+))?$/.exec(path);
      if (player) {
        const row = players.rows[Number(player[1])];
        if (!row) return null;
        const name = `Player ${Number(player[1]) + 1}${row.id() ? ` (${row.id()})` : ""}`;
        return row.locate(player[2], name);
      }
      if (path === "players") return { el: null, words: "Players" };
      if (path === "starting_token") return { el: start.el, words: "Starting player" };
      const top = /^(annustar|creatures|options)\b/.exec(path);
      if (top) return { el: rest.el, words: `The rest of the setup, ${path.replaceAll("_", " ")}` };
      return null;
    },
  };
}
