// What each game's state shows: the hero and the ship, or the calendar track and the parties.
import { brief, h, s } from "./dom.js";

const dl = (pairs) => h("dl", { class: "facts" }, pairs.filter(([, v]) => v !== undefined).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v === null || v === "" ? "—" : v)]));
const list = (items, render = (x) => brief(x)) => (items && items.length ? h("ul", { class: "plain" }, items.map((x) => h("li", {}, render(x)))) : h("p", { class: "muted" }, "none"));

function meter(label, value, max, cls) {

  return h("div", { class: `meter ${cls || ""}` }, h("span", {}, `${label} ${value}${max ? ` / ${max}` : ""}`), h("meter", { min: 0, max: max || 1, value: Math.max(0, value), "aria-label": label }));
}

function hero(hero) {
  if (!hero) return h("section", { class: "card", "aria-label": "Hero" }, h("h3", {}, "Hero"), h("p", { class: "muted" }, "No hero selected yet."));
  const abilities = Object.values(hero.abilities || {});
  return h(
    "section",
    { class: "card", "aria-label": "Hero" },
    h("h3", {}, `${hero.name} `, h("small", {}, `level ${hero.level} · ${hero.phase || ""}`)),
    meter("HP", hero.hp, hero.hp_max, "hp"),
    dl([
      ["Virtue", hero.virtue],
      ["Credits", hero.credits],
      ["Debt", hero.credits < 0 ? -hero.credits : 0],
      ["DEF / ATK", `${hero.def} / +${hero.atk}`],
      ["Damage", `${hero.damage_dice}${hero.damage_mod ? `+${hero.damage_mod}` : ""}`],
      ["Rations", hero.rations],
      ["Pool", hero.pool ? brief(hero.pool) : undefined],
    ]),
    h("h4", {}, "Traits"),
    h("ul", { class: "traits" }, Object.entries(hero.traits || {}).map(([k, v]) => h("li", {}, h("b", {}, k), ` ${v >= 0 ? "+" : ""}${v}`))),
    h("h4", {}, "Conditions"),
    list(hero.conditions, (c) => (typeof c === "string" ? c : c.id || c.name || brief(c))),
    h("h4", {}, "Injuries"),
    list(hero.injuries, (c) => (typeof c === "string" ? c : brief(c))),
    h("h4", {}, "Equipment"),
    list(Object.entries(hero.equipped || {}), ([slot, item]) => `${slot}: ${item?.name || item?.id || brief(item)}`),
    h("h4", {}, "Inventory"),
    list(hero.inventory, (i) => `${i.name || i.id}${i.kind ? ` (${i.kind})` : ""}`),
    h("h4", {}, "Abilities"),
    list(abilities, (a) => `${a.name || a.id}: ${a.usage}${a.uses ? `, ${a.used}/${a.uses} used` : ""}${a.used_this_page ? ", used this page" : ""}`),
  );
}

function ship(ship) {
  if (!ship) return null;
  return h(
    "section",
    { class: "card", "aria-label": "Ship" },
    h("h3", {}, "Ship"),
    dl([["AIM", ship.aim], ["EVA", ship.eva], ["SHD", ship.shd]]),
    h("table", { class: "grid" }, h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Compartment"), h("th", {}, "Integrity"), h("th", {}, "Crew"), h("th", {}, "Upgrade"))),
      h("tbody", {}, Object.entries(ship.compartments || {}).map(([n, c]) => h("tr", {}, h("td", {}, n), h("td", {}, c.name), h("td", {}, `${c.integrity}/${c.integrity_max}`), h("td", {}, c.crew ? c.crew.name || c.crew.id || brief(c.crew) : "—"), h("td", {}, c.upgrade ? c.upgrade.name || c.upgrade.id || brief(c.upgrade) : "—"))))),
  );
}

function page(state) {
  const p = state.page;
  const cal = state.calendar || {};
  return h(
    "section",
    { class: "card", "aria-label": "Today's page" },
    h("h3", {}, "Today's page"),
    p
      ? dl([
          ["Date", `${p.date}${p.weekday ? ` (${p.weekday})` : ""}`],
          ["Checks", (p.checks || []).length],
          ["Shop", p.shop ? p.shop.shop_id || brief(p.shop, 60) : undefined],
          ["Combat", p.combat ? brief(p.combat, 80) : undefined],
          ["Dogfight", p.dogfight ? brief(p.dogfight, 80) : undefined],
          ["Flags", ["rest", "level_up", "equipment"].filter((k) => p[k] || p[`${k}_day`]).join(", ") || undefined],
        ])
      : h("p", { class: "muted" }, `No page open. Pages played: ${cal.pages_played ?? 0}${cal.last_date ? `, the last on ${cal.last_date}` : ""}.`),
  );
}

export function questCalendar(state) {
  return [hero(state.hero), page(state), ship(state.ship)];
}

// The calendar track as a ring (hand-made SVG): Start (0), the day spaces 1..30 and End (31),
// with the god piece on its space.
function track(board, weather) {
  const at = Number(board?.god_piece ?? 0);
  const spaces = Math.max(32, at + 1);
  const name = (k) => (k === 0 ? "Start" : k === spaces - 1 ? "End" : `space ${k}`);
  const cx = 110;
  const cy = 110;
  const r = 90;
  const dots = [];
  for (let k = 0; k < spaces; k++) {
    const a = (2 * Math.PI * k) / spaces - Math.PI / 2;
    const x = cx + r * Math.cos(a);
    const y = cy + r * Math.sin(a);
    const cls = k === at ? "god" : k === 0 || k === spaces - 1 ? "space ends" : "space";
    dots.push(s("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: k === at ? 9 : 5, class: cls }, s("title", {}, k === at ? `${name(k)}: the god piece` : name(k))));
  }
  return s("svg", { viewBox: "0 0 220 220", class: "track", role: "img", "aria-label": `Calendar track: the god piece on ${name(at)}, lap ${board?.laps ?? 0}` },
    dots,
    s("text", { x: cx, y: cy - 6, "text-anchor": "middle", class: "big" }, String(at)),
    s("text", { x: cx, y: cy + 14, "text-anchor": "middle" }, weather?.current || "clear"));
}

export function calendarBoard(state) {
  const parties = Object.entries(state.parties || {});
  return [
    h("section", { class: "card", "aria-label": "Calendar" }, h("h3", {}, "Calendar"), track(state.board, state.weather),
      dl([
        ["God piece", state.board?.god_piece],
        ["Laps", state.board?.laps],
        ["Round", state.round],
        ["Nights", state.nights],
        ["Weather", state.weather?.current || "clear"],
        ["Wind", state.wind ? `${state.wind.speed}${state.wind.direction ? ` from ${state.wind.direction}` : ""}` : undefined],
        ["Turn", state.turn ? `${state.turn.player}${state.turn.started ? " (acting)" : ""}` : undefined],
        ["God token", state.god_token],
        ["Night step", state.night ? brief(state.night, 100) : "no night in progress"],
      ])),
    h("section", { class: "card", "aria-label": "Parties" }, h("h3", {}, "Parties"),
      h("table", { class: "grid" }, h("thead", {}, h("tr", {}, ["Party", "Exhaustion", "Partner", "Relationship", "Weapons", "Pieces"].map((t) => h("th", {}, t)))),
        h("tbody", {}, parties.map(([id, p]) => h("tr", { dataset: { party: id } }, h("td", {}, id), h("td", {}, p.exhaustion), h("td", {}, p.partner ?? "—"), h("td", {}, p.relationship ?? "—"),
          h("td", {}, Object.keys(p.weapons || {}).length ? Object.entries(p.weapons).map(([w, v]) => `${w} ${brief(v, 40)}`).join("; ") : "—"),
          h("td", {}, Object.values(p.pieces || {}).map((piece) => `${piece.id}@${piece.location?.space ?? piece.location?.kind}`).join(", ") || "—")))))),
  ];
}
