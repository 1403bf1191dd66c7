// The charts' data: the read models under /campaigns/{id}/views/..., and the dice faces.
import { get } from "./api.js";
import { h } from "./dom.js";
import { facesChart, lineChart } from "./charts.js";

const MAX_PAGES = 3; // at most 3,000 points per chart: enough to draw, never the whole log
let serverAnalytics = true; // until a server without the route answers 404

async function rows(path) {
  const out = [];
  let after = null;
  for (let k = 0; k < MAX_PAGES; k++) {
    const page = await get(`${path}${path.includes("?") ? "&" : "?"}limit=1000${after ? `&after=${after}` : ""}`);
    out.push(...page.items.filter((r) => !r.undone));
    if (!page.next) break;
    after = page.next;
  }
  return out;
}

// The x of each row: the count of pages played up to it (0 before the first page), from the
// rows' page_date; a chart counts pages, not versions.
function byPage(rows) {
  const seen = new Set();
  return rows.map((r) => {
    if (r.page_date) seen.add(r.page_date);
    return [seen.size, r];
  });
}

// One page so far: a line over the pages would be one upright stroke, so the x is each change in
// turn instead (1, 2, 3, ...), and the axis says so.
const pagesIn = (rows) => new Set(rows.map((r) => r.page_date).filter(Boolean)).size;
const byChange = (rows) => rows.map((r, k) => [k + 1, r]);

async function questCalendar(id) {
  const [stats, ledger] = await Promise.all([
    rows(`/campaigns/${id}/views/hp-virtue`),
    rows(`/campaigns/${id}/views/debt-ledger`),
  ]);
  const xOf = (list) => (pagesIn(list) > 1 ? byPage(list) : byChange(list));
  const xLabel = (list) => (pagesIn(list) > 1 ? "page" : "change");
  const at = new Map(xOf(stats).map(([x, r]) => [r, x])); // HP and virtue on one x axis
  const points = (stat) => stats.filter((r) => r.stat === stat).map((r) => [at.get(r), Number(r.value)]);
  const owed = ledger.filter((r) => r.balance_after !== null);
  const balance = xOf(owed).map(([x, r]) => [x, Number(r.balance_after)]);
  return [
    lineChart("HP and virtue, event by event over the pages", [
      { name: "HP", cls: "hp", points: points("hp") },
      { name: "virtue", cls: "virtue", points: points("virtue") },
    ], xLabel(stats)),
    lineChart("Credits and debt", [
      { name: "credits", cls: "credits", points: balance.map(([v, b]) => [v, Math.max(0, b)]) },
      { name: "debt", cls: "debt", points: balance.map(([v, b]) => [v, Math.max(0, -b)]) },
    ], xLabel(owed)),
  ];
}

async function calendarBoard(id) {
  const changes = await rows(`/campaigns/${id}/views/exhaustion-history`);
  const parties = [...new Set(changes.map((r) => r.party))];
  return [
    lineChart(
      "Exhaustion per night, per party",
      parties.map((party, k) => ({
        name: `party ${party}`,
        cls: `party${k % 4}`,
        points: changes.filter((r) => r.party === party).map((r) => [Number(r.night ?? 0), Number(r.to)]),
      })),
      "night",
    ),
  ];
}

// Faces per die type against the counts a fair die gives: the server's fairness analytics of this
// campaign (every roll, for any reader), else counted here from the loaded rolls.
const dice = (n) => `${n} ${Number(n) === 1 ? "die" : "dice"}`;

async function faceCharts(id, rolls) {
  if (serverAnalytics) {
    try {
      const analytics = await get(`/campaigns/${id}/analytics/dice`);
      if (analytics.dice?.length) {
        return analytics.dice.map((d) =>
          facesChart(
            `d${d.sides} (${d.source}), ${dice(d.dice)}${d.test ? `, p = ${Number(d.test.p_value).toFixed(3)}` : ""}`,
            d.faces,
            d.expected,
          ),
        );
      }
    } catch {
      serverAnalytics = false; // no analytics here: count the faces of the rolls this page has loaded
    }
  }
  const bySides = new Map();
  for (const roll of rolls.filter((r) => !r.undone)) {
    for (const die of roll.dice) {
      const sides = Number(die.sides);
      const face = Number(die.face);
      if (!bySides.has(sides)) bySides.set(sides, {});
      const counts = bySides.get(sides);
      counts[face] = (counts[face] || 0) + 1;
    }
  }
  return [...bySides.entries()].sort((a, b) => a[0] - b[0]).map(([sides, seen]) => {
    const total = Object.values(seen).reduce((a, b) => a + b, 0);
    const counts = {};
    const expected = {};
    for (let f = 1; f <= sides; f++) {
      counts[f] = seen[f] || 0;
      expected[f] = total / sides;
    }
    return facesChart(`d${sides}: ${dice(total)} in the loaded rolls`, counts, expected);
  });
}

export async function dayCharts(id, game, rolls = []) {
  const [own, faces] = await Promise.all([
    game === "quest-calendar" ? questCalendar(id) : calendarBoard(id),
    faceCharts(id, rolls),
  ]);
  return [
    h("div", { class: "chart-row" }, own),
    h("h3", {}, "Dice faces against a fair die"),
    faces.length ? h("div", { class: "chart-row" }, faces) : h("p", { class: "muted" }, "No dice yet."),
  ];
}
