// @ts-check
// The charts: the game's, drawn by the server from its views (/campaigns/{id}/views/charts), and the
// dice faces (counted by facecounts.js when the server has no analytics).
import { get } from "./api.js";
import { h } from "./dom.js";
import { facesChart, lineChart } from "./charts.js";
import { countFaces, loadedFacesTitle, serverFacesTitle } from "./facecounts.js";

let serverAnalytics = true; // until a server without the route answers 404

// The game's charts, drawn by the server from its views: a few hundred points per line however
// long the campaign (the first, the last, and the lowest and highest of each run between them).
async function ownCharts(id) {
  const answer = await get(`/campaigns/${id}/views/charts`);
  return answer.charts.map((chart) => lineChart(chart.title, chart.series, chart.x_label));
}

// Faces per die type against the counts a fair die gives: the server's fairness analytics of this
// campaign (every roll, for any reader), else counted here from the loaded rolls (facecounts.js).
async function faceCharts(id, rolls) {
  if (serverAnalytics) {
    try {
      const analytics = await get(`/campaigns/${id}/analytics/dice`);
      if (analytics.dice?.length) {
        return analytics.dice.map((d) => facesChart(serverFacesTitle(d), d.faces, d.expected));
      }
    } catch {
      serverAnalytics = false; // no analytics here: count the faces of the rolls this page has loaded
    }
  }
  return countFaces(rolls).map((count) => facesChart(loadedFacesTitle(count), count.counts, count.expected));
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
