// @ts-check
// The charts: the game's, drawn by the server from its views (/campaigns/{id}/views/charts), and the dice faces.
import { get } from "./api.js";
import { h } from "./dom.js";
import { facesChart, lineChart } from "./charts.js";

let serverAnalytics = true; // until a server without the route answers 404

// The game's charts, drawn by the server from its views: a few hundred points per line however
// long the campaign (the first, the last, and the lowest and highest of each run between them).
async function ownCharts(id) {
  const answer = await get(`/campaigns/${id}/views/charts`);
  return answer.charts.map((chart) => lineChart(chart.title, chart.series, chart.x_label));
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

export async function dayCharts(id, rolls = []) {
  const [own, faces] = await Promise.all([
    ownCharts(id),
    faceCharts(id, rolls),
  ]);
  return [
    h("div", { class: "chart-row" }, own),
    h("h3", {}, "Dice faces against a fair die"),
    faces.length ? h("div", { class: "chart-row" }, faces) : h("p", { class: "muted" }, "No dice yet."),
  ];
}
