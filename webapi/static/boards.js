// @ts-check
// What each game's state shows: the hero and the ship, or the calendar track and the parties,
// each part in words (panels.js), never as JSON.
import { h, s } from "./dom.js";
import { dl, nightStepWords, panel, say, sayWord, words } from "./panels.js";

const list = (items, render = (x) => say(x)) =>
  items && items.length
    ? h(
        "ul",
        { class: "plain" },
        items.map((x) => h("li", {}, render(x))),
      )
    : h("p", { class: "muted" }, "none");

function meter(label, value, max, cls) {
  return h(
    "div",
    { class: `meter ${cls || ""}` },
    h("span", {}, `${label} ${value}${max ? ` / ${max}` : ""}`),
    h("meter", { min: 0, max: max || 1, value: Math.max(0, value), "aria-label": label }),
  );
}

// An equipped item by its name: an id is looked up in the inventory.
function itemName(item, inventory) {
  if (item && typeof item === "object") return item.name || item.id || say(item);
  const found = (inventory || []).find((i) => i.id === item);
  return found?.name || words(item ?? "—");
}

const pool = (p) =>
  p
    ? `${p.name ? words(p.name) : "pool"}: ${Number(p.max ?? 0) - Number(p.spent ?? 0)} of ${p.max ?? 0} left`
    : undefined;

function hero(hero) {
  if (!hero)
    return h(
      "section",
      { class: "card", "aria-label": "Hero" },
      h("h2", {}, "Hero"),
      h("p", { class: "muted" }, "No hero selected yet."),
    );
  const abilities = Object.values(hero.abilities || {});
  return h(
    "section",
    { class: "card", "aria-label": "Hero" },
    h("h2", {}, `${hero.name} `, h("small", {}, `level ${hero.level} · ${hero.phase || ""}`)),
    meter("HP", hero.hp, hero.hp_max, "hp"),
    dl([
      ["Virtue", hero.virtue],
      ["Credits", hero.credits],
      ["Debt", hero.credits < 0 ? -hero.credits : 0],
      ["DEF / ATK", `${hero.def} / +${hero.atk}`],
      ["Damage", `${hero.damage_dice}${hero.damage_mod ? `+${hero.damage_mod}` : ""}`],
      ["Rations", hero.rations],
      ["Pool", pool(hero.pool)],
    ]),
    h("h3", {}, "Traits"),
    h(
      "ul",
      { class: "traits" },
      Object.entries(hero.traits || {}).map(([k, v]) => h("li", {}, h("b", {}, k), ` ${v >= 0 ? "+" : ""}${v}`)),
    ),
    h("h3", {}, "Conditions"),
    list(hero.conditions, (c) => (typeof c === "string" ? words(c) : c.name || c.id || say(c))),
    h("h3", {}, "Injuries"),
    list(hero.injuries, (c) => (typeof c === "string" ? words(c) : c.name || say(c))),
    h("h3", {}, "Equipment"),
    list(Object.entries(hero.equipped || {}), ([slot, item]) => `${words(slot)}: ${itemName(item, hero.inventory)}`),
    h("h3", {}, "Inventory"),
    list(hero.inventory, (i) => `${i.name || i.id}${i.kind ? ` (${i.kind})` : ""}`),
    h("h3", {}, "Abilities"),
    list(
      abilities,
      (a) =>
        `${a.name || a.id}: ` +
        (a.uses ? `${a.uses === 1 ? "once" : `${a.uses} times`} per rest, ${a.used} used` : sayWord(a.usage)) +
        `${a.used_this_page ? ", used this page" : ""}`,
    ),
  );
}

function ship(ship) {
  if (!ship) return null;
  return h(
    "section",
    { class: "card", "aria-label": "Ship" },
    h("h2", {}, "Ship"),
    dl([
      ["AIM", ship.aim],
      ["EVA", ship.eva],
      ["SHD", ship.shd],
    ]),
    h(
      "div",
      { class: "scroll" },
      h(
        "table",
        { class: "grid" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, "#"),
            h("th", {}, "Compartment"),
            h("th", {}, "Integrity"),
            h("th", {}, "Crew"),
            h("th", {}, "Upgrade"),
          ),
        ),
        h(
          "tbody",
          {},
          Object.entries(ship.compartments || {}).map(([n, c]) =>
            h(
              "tr",
              {},
              h("td", {}, n),
              h("td", {}, c.name),
              h("td", {}, `${c.integrity}/${c.integrity_max}`),
              h("td", {}, c.crew ? c.crew.name || c.crew.id || say(c.crew) : "—"),
              h("td", {}, c.upgrade ? c.upgrade.name || c.upgrade.id || say(c.upgrade) : "—"),
            ),
          ),
        ),
      ),
    ),
  );
}

// The shop open on the page: its name (its id in words, a shop has no other), and each item of its
// stock by the item's name, with its price and how many are left (QC-57, G-QC-23).
function shop(open) {
  const name = open.name || open.id || open.shop_id;
  const stock = Object.entries(open.stock || {});
  return h(
    "section",
    { class: "panel", "aria-label": "Shop" },
    h("h3", {}, `Shop${name ? `: ${words(name)}` : ""}`),
    stock.length
      ? h(
          "ul",
          { class: "plain stock" },
          stock.map(([id, entry]) =>
            h(
              "li",
              { dataset: { item: id }, title: id },
              `${entry.item?.name || words(id)}: ${entry.price} credit${Number(entry.price) === 1 ? "" : "s"}` +
                `${entry.quantity === null || entry.quantity === undefined ? "" : `, ${entry.quantity} left`}`,
            ),
          ),
        )
      : h("p", { class: "muted" }, "Nothing in stock."),
    open.sells_upgrades ? h("p", {}, "Sells ship upgrades.") : null,
  );
}

// A combat in words: each round as the page prints it, the round being decided by its rolls, and
// each round's outcome (QC-20..QC-22); never the engine's working fields.
const plus = (n) => (Number(n) > 0 ? ` + ${n}` : Number(n) < 0 ? ` − ${-Number(n)}` : "");
function printedRound(r, k) {
  const condition = r.condition?.name ? `; condition ${words(r.condition.name)}` : "";
  return (
    `Round ${k + 1}${r.enemy ? `, ${r.enemy}` : ""}: hits on ` +
    `${r.hit_target}, ${r.damage_needed} damage needed; enemy attack ` +
    `${r.enemy_attack}, ${r.damage_reduced} damage if DEF beats it, ` +
    `else ${r.damage_full}${condition}`
  );
}
function attemptWords(a) {
  const attack = a.attack || {};
  const damage = a.damage || {};
  const hit = attack.rolled
    ? `attack d20 ${attack.d20}${plus(attack.atk)}${plus(attack.bonus)}` +
      ` = ${attack.total}, ${attack.hit ? "a hit" : "a miss"}`
    : "no attack roll";
  const dealt = damage.rolled
    ? `; damage ${damage.dice || ""} ${damage.dice_total}` +
      `${plus(damage.bonus)}${plus(damage.flat)} = ${damage.total}` +
      `${damage.doubled ? " (doubled)" : ""}`
    : "";
  return `${a.attempt === "extra" ? "Extra attack" : "Attack"}: ${hit}${dealt}`;
}
function resultWords(r) {
  const outcome = r.won ? `won: the enemy is ${sayWord(r.enemy_outcome)}` : "lost";
  const taken = r.damage_taken ? `; the hero takes ${r.damage_taken}` : "";
  const used = r.abilities?.length
    ? `; abilities ${r.abilities.map((a) => (typeof a === "string" ? a : a.id || a.name)).join(", ")}`
    : "";
  return (
    `Round ${r.round}${r.enemy ? `, ${r.enemy}` : ""}: ${outcome}, ` +
    `${r.damage_dealt} damage dealt of ${r.damage_needed} needed` +
    `${taken}${used}`
  );
}
function combat(c) {
  const rounds = c.rounds || [];
  const status =
    c.status === "in_progress"
      ? `in progress: ${(c.results || []).length} of ${rounds.length} rounds played`
      : `${sayWord(c.status)}${c.ended_by ? ` (${sayWord(c.ended_by)})` : ""}`;
  const lines = (items, text) =>
    items.length
      ? h(
          "ol",
          { class: "lines" },
          items.map((x, k) => h("li", {}, text(x, k))),
        )
      : "none";
  return h(
    "section",
    { class: "panel", "aria-label": "Combat" },
    h("h3", {}, "Combat"),
    dl([
      ["Status", status],
      ["Mode", `${sayWord(c.mode)}, ${sayWord(c.kind)}`],
      ["Rounds as printed", lines(rounds, printedRound)],
      [
        "Being decided",
        (c.open || []).length
          ? h(
              "ol",
              { class: "lines" },
              c.open.map((w) =>
                h(
                  "li",
                  {},
                  `Round ${w.round}` +
                    `${w.condition?.name ? ` (${words(w.condition.name)})` : ""}: ` +
                    `${(w.attempts || []).map(attemptWords).join("; ")}`,
                ),
              ),
            )
          : undefined,
      ],
      ["Results", lines(c.results || [], resultWords)],
    ]),
  );
}

function page(state) {
  const p = state.page;
  const cal = state.calendar || {};
  return h(
    "section",
    { class: "card", "aria-label": "Today's page" },
    h("h2", {}, "Today's page"),
    p
      ? [
          dl([
            ["Date", `${p.date}${p.weekday ? ` (${p.weekday})` : ""}`],
            ["Checks", (p.checks || []).length],
            ["Flags", ["rest", "level_up", "equipment"].filter((k) => p[k] || p[`${k}_day`]).join(", ") || undefined],
          ]),
          p.combat ? combat(p.combat) : null,
          p.shop ? shop(p.shop) : null,
          p.dogfight ? panel("Dogfight", p.dogfight, "Dogfight", ["status", "mode", "round", "rounds", "open"]) : null,
        ]
      : h(
          "p",
          { class: "muted" },
          `No page open. Pages played: ${cal.pages_played ?? 0}` +
            `${cal.last_date ? `, the last on ${cal.last_date}` : ""}.`,
        ),
  );
}

export function questCalendar(state) {
  return [hero(state.hero), page(state), ship(state.ship)];
}

// The calendar's spaces from Start to End: the house rule cb.calendar.layout in force (the state's
// house rules), else the state's calendar, else 32 spaces of unknown type.
export function layoutOf(state) {
  const layout = state.house_rules?.["cb.calendar.layout"] || state.calendar?.layout;
  if (Array.isArray(layout) && layout.length >= 2) return layout.map(String);
  return Array.from({ length: 32 }, (_, k) => (k === 0 ? "start" : k === 31 ? "end" : "normal"));
}

// Each space type's mark: a letter or sign on the space and in the legend (not colour alone).
const MARKS = { start: "S", end: "E", normal: "N", rain: "R", snow: "W", fog: "F", hail: "H", supply: "+", event: "!" };
const mark = (type) => MARKS[type] || type[0].toUpperCase();

// The calendar track as a ring (hand-made SVG), each space a circle with its type
// (`data-space`, `data-space-type`) and its letter, the god piece on its space.
function track(board, weather, layout) {
  const at = Number(board?.god_piece ?? 0);
  const n = layout.length;
  const name = (k) => `space ${k} (${layout[k] ?? "?"})`;
  const [cx, cy, r] = [120, 120, 96];
  const dot = Math.max(5, Math.min(14, (Math.PI * r) / n - 2));
  const spaces = layout.map((type, k) => {
    const a = (2 * Math.PI * k) / n - Math.PI / 2;
    const [x, y] = [cx + r * Math.cos(a), cy + r * Math.sin(a)];
    return s("g", { class: `space type-${type}${k === at ? " god" : ""}`, "data-space": k, "data-space-type": type },
      s("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: k === at ? dot + 3 : dot }),
      s("text", { x: x.toFixed(1), y: (y + 3.5).toFixed(1), "text-anchor": "middle", class: "mark" }, mark(type)),
      s("title", {}, k === at ? `${name(k)}: the god piece` : name(k)));
  });
  return s(
    "svg",
    {
      viewBox: "0 0 240 240",
      class: "track",
      role: "img",
      "aria-label": `Calendar track of ${n} spaces: the god piece on ${name(at)}, lap ${board?.laps ?? 0}`,
    },
    spaces,
    s("text", { x: cx, y: cy - 6, "text-anchor": "middle", class: "big" }, String(at)),
    s("text", { x: cx, y: cy + 14, "text-anchor": "middle" }, weather?.current || "clear"),
  );
}

function legend(layout) {
  const types = [...new Set(layout)];
  return h(
    "ul",
    { class: "space-legend" },
    types.map((t) => h("li", {}, h("span", { class: `swatch type-${t}`, "aria-hidden": "true" }, mark(t)), ` ${t}`)),
  );
}

function nightStep(night, nights) {
  if (!night) return "no night in progress";
  const order = night.order || [];
  const data = night.data?.[night.step] || {};
  const bits = [
    `night ${night.number ?? nights}, step ` +
      `${night.index !== undefined ? night.index + 1 : "?"} of ` +
      `${order.length}: ${nightStepWords(night.step)}`,
  ];
  if (data.landed !== undefined) bits.push(`the god piece landed on ${data.landed}`);
  if (data.hail?.length) bits.push(`hail saves for ${data.hail.join(", ")}`);
  if (data.firings?.length) bits.push(`supply fires at ${data.firings.map((f) => f.space).join(", ")}`);
  return bits.join("; ");
}

const where = (loc) => (!loc ? "—" : loc.kind === "pathway" ? `pathway space ${loc.space}` : words(loc.kind));

// Who stands where on the pathway (by space), and who is home, elsewhere or eliminated.
function pathway(parties) {
  const at = new Map();
  for (const [party, p] of parties) {
    for (const piece of Object.values(p.pieces || {})) {
      const key = piece.location?.kind === "pathway" ? Number(piece.location.space) : piece.location?.kind || "?";
      if (!at.has(key)) at.set(key, []);
      at.get(key).push(`${piece.id} (${party})`);
    }
  }
  const spaces = [...at.keys()].filter((k) => typeof k === "number").sort((a, b) => a - b);
  const off = [...at.keys()].filter((k) => typeof k !== "number");
  if (!at.size) return h("p", { class: "muted" }, "No pieces.");
  return h("ul", { class: "pathway" },
    spaces.map((k) => h("li", { dataset: { pathwaySpace: k } }, h("b", {}, `space ${k}`), `: ${at.get(k).join(", ")}`)),
    off.map((k) => h("li", { dataset: { pathwayPlace: k } }, h("b", {}, words(k)), `: ${at.get(k).join(", ")}`)));
}

// G-CB-01: the fate rerolls a party has left of those the set-up gave; none given (or a match
// stored before they were counted): not counted.
function fateRerolls(p) {
  const [left, given] = [p.fate_rerolls ?? null, p.fate_rerolls_given ?? null];
  if (left === null) return "not counted (unlimited)";
  return given === null ? `${left} left` : `${left} left of ${given}`;
}

function party(id, p) {
  const weapons = Object.values(p.weapons || {});
  return h(
    "article",
    { class: "party", dataset: { party: id } },
    h("h3", {}, `Party ${id}`),
    dl([
      ["Exhaustion", p.exhaustion],
      ["Fate rerolls", fateRerolls(p)],
      ["Partner", p.partner ? `${words(p.partner)}, relationship ${p.relationship}` : "none"],
      ["Luck / INT", `${p.luck_mod >= 0 ? "+" : ""}${p.luck_mod ?? 0} / ${p.int_mod >= 0 ? "+" : ""}${p.int_mod ?? 0}`],
      [
        "Weapons",
        weapons.length
          ? weapons
              .map(
                (w) =>
                  `${w.id} (${w.kind}` +
                  `${w.uses_ammo ? `, ammo ${w.ammo}/${w.ammo_max}, +${w.ammo_regen} a night` : ""}` +
                  `${w.looted ? ", looted" : ""})`,
              )
              .join("; ")
          : "none",
      ],
      [
        "Pieces",
        Object.values(p.pieces || {})
          .map(
            (x) =>
              `${x.id} on ${where(x.location)}, facing ${x.facing}` +
              `${x.conditions?.length ? `, ${x.conditions.map(say).join(", ")}` : ""}`,
          )
          .join("; ") || "none",
      ],
    ]),
  );
}

export function calendarBoard(state) {
  const parties = Object.entries(state.parties || {});
  const layout = layoutOf(state);
  const turn = state.turn?.player
    ? `${state.turn.player}${state.turn.started ? " (acting)" : ""}`
    : state.night
      ? "night"
      : "—";
  return [
    h(
      "section",
      { class: "card", "aria-label": "Calendar" },
      h("h2", {}, "Calendar"),
      track(state.board, state.weather, layout),
      legend(layout),
      dl([
        [
          "God piece",
          `space ${state.board?.god_piece ?? 0} of ${layout.length - 1} ` +
            `(${layout[state.board?.god_piece ?? 0] ?? "?"})`,
        ],
        ["Laps", state.board?.laps],
        ["Round", state.round],
        ["Nights", state.nights],
        [
          "Weather",
          `${state.weather?.current || "normal"}${state.weather?.pending ? `, ${state.weather.pending} coming` : ""}`,
        ],
        [
          "Wind",
          state.wind
            ? `${state.wind.speed}${state.wind.direction ? ` from the ${state.wind.direction}` : ""}`
            : undefined,
        ],
        ["Turn", turn],
        ["God token", state.god_token],
        ["Night step", nightStep(state.night, state.nights)],
      ]),
    ),
    h(
      "section",
      { class: "card", "aria-label": "Parties" },
      h("h2", {}, "Parties"),
      h(
        "div",
        { class: "parties" },
        parties.map(([id, p]) => party(id, p)),
      ),
      h("h3", {}, "The pathway"),
      pathway(parties),
    ),
  ];
}
