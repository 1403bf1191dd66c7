// @ts-check
// Hand-made SVG charts: lines over versions or pages, grouped bars, and faces against the expected
// counts; each names its numbers in its aria-label, and numbersTable gives them as a table too.
import { h, s } from "./dom.js";

const W = 360;
const H = 180;
const PAD = { l: 34, r: 8, t: 10, b: 24 };

function scale(lo, hi, a, b) {
  const span = hi - lo || 1;
  return (v) => a + ((v - lo) / span) * (b - a);
}

// Evenly spaced whole-number ticks from lo to hi: a step of 1, 2 or 5 times a power of ten, so
// that there are at most six (never "0, 2, 3").
export function integerTicks(lo, hi) {
  const from = Math.ceil(lo);
  const to = Math.floor(hi);
  if (to <= from) return [from];
  let step = 1;
  for (let k = 0; (to - from) / step > 5; k++) step = [2, 5, 10][k % 3] * 10 ** Math.floor(k / 3);
  const ticks = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

function axes(xs, ys, x, y, xlabel) {
  const ticks = integerTicks(Math.min(...ys), Math.max(...ys));
  return [
    s("line", { x1: PAD.l, y1: H - PAD.b, x2: W - PAD.r, y2: H - PAD.b, class: "axis" }),
    s("line", { x1: PAD.l, y1: PAD.t, x2: PAD.l, y2: H - PAD.b, class: "axis" }),
    ticks.map((t) => s("text", { x: PAD.l - 4, y: y(t) + 4, "text-anchor": "end", class: "tick" }, String(t))),
    s("text", { x: PAD.l, y: H - 6, class: "tick" }, String(Math.min(...xs))),
    s("text", { x: W - PAD.r, y: H - 6, "text-anchor": "end", class: "tick" }, `${xlabel} ${Math.max(...xs)}`),
  ];
}

// series: [{name, cls, points: [[x, y], ...]}]; stepped lines, since a value holds until it changes
// (a game's state); not stepped, straight lines from point to point with a dot on each (averages).
export function lineChart(title, series, xlabel = "page", { stepped = true } = {}) {
  const all = series.flatMap((one) => one.points);
  const figure = h("figure", { class: "chart" }, h("figcaption", {}, title));
  if (!all.length) {
    figure.append(h("p", { class: "muted" }, "Nothing recorded yet."));
    return figure;
  }
  const xs = all.map((p) => p[0]);
  if (new Set(xs).size < 2) {
    // one page (or night) so far: no line to draw, so the chart says what there is in a sentence
    const now = series.filter((one) => one.points.length).map((one) => `${one.name} ${one.points.at(-1)[1]}`);
    figure.append(
      h("p", { class: "muted" }, `Too little to draw yet: all so far is at ${xlabel} ${xs[0]} (${now.join(", ")}).`),
    );
    return figure;
  }
  const ys = all.map((p) => p[1]).concat(0);
  const x = scale(Math.min(...xs), Math.max(...xs), PAD.l, W - PAD.r);
  const y = scale(Math.min(...ys), Math.max(...ys), H - PAD.b, PAD.t);
  const paths = series.map((one) => {
    let d = "";
    one.points.forEach(([px, py], k) => {
      const at = `${x(px).toFixed(1)},${y(py).toFixed(1)}`;
      if (k === 0) d += `M${at}`;
      else d += stepped ? `H${x(px).toFixed(1)}V${y(py).toFixed(1)}` : `L${at}`;
    });
    const dots = stepped
      ? []
      : one.points.map(([px, py]) =>
          s(
            "circle",
            { cx: x(px).toFixed(1), cy: y(py).toFixed(1), r: 3, class: `dot ${one.cls}` },
            s("title", {}, `${xlabel} ${px}, ${one.name}: ${py}`),
          ),
        );
    return s("g", {}, s("path", { d, class: `line ${one.cls}` }, s("title", {}, one.name)), dots);
  });
  const summary = series.map((one) => `${one.name}: ${one.points.map((p) => p[1]).join(", ")}`).join("; ");
  figure.append(
    s(
      "svg",
      { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${title}. ${summary}` },
      axes(xs, ys, x, y, xlabel),
      paths,
    ),
    h(
      "p",
      { class: "legend" },
      series.map((one) => h("span", { class: `key ${one.cls}` }, one.name)),
    ),
  );
  return figure;
}

// counts and expected: {face: number}; bars for the counts, a tick for each expected count.
export function facesChart(title, counts, expected) {
  const faces = Object.keys(counts).map(Number).sort((a, b) => a - b);
  const highest = Math.max(1, ...faces.map((f) => Math.max(Number(counts[f]), Number(expected[f] ?? 0))));
  const ticks = integerTicks(0, highest);
  const top = Math.max(highest, ...ticks);
  const band = (W - PAD.l - PAD.r) / faces.length;
  const y = scale(0, top, H - PAD.b, PAD.t);
  const bars = faces.map((f, k) => {
    const x0 = PAD.l + k * band;
    const c = Number(counts[f]);
    const e = Number(expected[f] ?? 0);
    return s(
      "g",
      {},
      s(
        "rect",
        {
          x: (x0 + band * 0.15).toFixed(1),
          y: y(c).toFixed(1),
          width: (band * 0.7).toFixed(1),
          height: (H - PAD.b - y(c)).toFixed(1),
          class: "faces-bar",
        },
        s("title", {}, `face ${f}: ${c} (expected ${e.toFixed(1)})`),
      ),
      s("line", {
        x1: x0.toFixed(1),
        x2: (x0 + band).toFixed(1),
        y1: y(e).toFixed(1),
        y2: y(e).toFixed(1),
        class: "expected",
      }),
      faces.length <= 20
        ? s("text", { x: (x0 + band / 2).toFixed(1), y: H - 10, "text-anchor": "middle", class: "tick" }, String(f))
        : null,
    );
  });
  return h(
    "figure",
    { class: "chart" },
    h("figcaption", {}, title),
    s(
      "svg",
      {
        viewBox: `0 0 ${W} ${H}`,
        role: "img",
        "aria-label": `${title}: ${faces.map((f) => `${f}: ${counts[f]}`).join(", ")}`,
      },
      s("line", { x1: PAD.l, y1: H - PAD.b, x2: W - PAD.r, y2: H - PAD.b, class: "axis" }),
      // the count's scale, as the other charts have
      s("line", { x1: PAD.l, y1: PAD.t, x2: PAD.l, y2: H - PAD.b, class: "axis" }),
      ticks.map((t) => s("text", { x: PAD.l - 4, y: y(t) + 4, "text-anchor": "end", class: "tick" }, String(t))),
      bars,
    ),
    h(
      "p",
      { class: "legend" },
      h("span", { class: "key faces-bar" }, "faces rolled"),
      h("span", { class: "key expected" }, "expected if fair"),
    ),
  );
}

// Grouped bars: categories along the bottom, one bar per series in each (a value of null or
// undefined draws none), the value over each bar when there is room. series: [{name, cls, values}];
// format turns a value into the words of its label and title (a share as "45%"); the axis goes up
// to max at least (100 for percentages: a share is read against the whole).
/**
 * @param {string} title
 * @param {string[]} categories
 * @param {{name: string, cls: string, values: number[]}[]} series
 * @param {{format?: (value: number) => string, max?: number}} [options] how a value is written; the scale's top
 */
export function barChart(title, categories, series, { format = String, max = 1 } = {}) {
  const figure = h("figure", { class: "chart" }, h("figcaption", {}, title));
  const values = series.flatMap((one) => one.values.filter((v) => v !== null && v !== undefined).map(Number));
  if (!categories.length || !values.length) {
    figure.append(h("p", { class: "muted" }, "Nothing recorded yet."));
    return figure;
  }
  const ticks = integerTicks(0, Math.max(max, ...values));
  const top = Math.max(1, ...values, ...ticks);
  const y = scale(0, top, H - PAD.b, PAD.t);
  const band = (W - PAD.l - PAD.r) / categories.length;
  const bar = Math.min((band * 0.8) / series.length, 48); // a lone bar is not a wall
  const groups = categories.map((label, k) => {
    const x0 = PAD.l + k * band + (band - bar * series.length) / 2;
    return s(
      "g",
      {},
      series.map((one, j) => {
        const value = one.values[k];
        if (value === null || value === undefined) return null;
        const v = Number(value);
        const x = x0 + j * bar;
        return s(
          "g",
          {},
          s(
            "rect",
            {
              x: x.toFixed(1),
              y: y(v).toFixed(1),
              width: Math.max(1, bar - 1).toFixed(1),
              height: Math.max(0, H - PAD.b - y(v)).toFixed(1),
              class: `bar ${one.cls}`,
            },
            s("title", {}, `${label}, ${one.name}: ${format(value)}`),
          ),
          bar >= 16
            ? s(
                "text",
                { x: (x + bar / 2).toFixed(1), y: (y(v) - 3).toFixed(1), "text-anchor": "middle", class: "value" },
                format(value),
              )
            : null,
        );
      }),
      categories.length <= 16
        ? s(
            "text",
            { x: (PAD.l + (k + 0.5) * band).toFixed(1), y: H - 8, "text-anchor": "middle", class: "tick" },
            label,
          )
        : null,
    );
  });
  const summary = categories
    .map((label, k) => {
      const said = series.map((one) => {
        const value = one.values[k];
        return `${one.name} ${value === null || value === undefined ? "none" : format(value)}`;
      });
      return `${label}: ${said.join(", ")}`;
    })
    .join("; ");
  figure.append(
    s(
      "svg",
      { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${title}. ${summary}` },
      s("line", { x1: PAD.l, y1: H - PAD.b, x2: W - PAD.r, y2: H - PAD.b, class: "axis" }),
      s("line", { x1: PAD.l, y1: PAD.t, x2: PAD.l, y2: H - PAD.b, class: "axis" }),
      ticks.map((t) => s("text", { x: PAD.l - 4, y: y(t) + 4, "text-anchor": "end", class: "tick" }, format(t))),
      groups,
    ),
    h(
      "p",
      { class: "legend" },
      series.map((one) => h("span", { class: `key ${one.cls}` }, one.name)),
    ),
  );
  return figure;
}

// A chart's numbers as a table, folded under "The numbers": columns are the header cells, rows
// arrays of cells (text, or a number as the server wrote it).
export function numbersTable(caption, columns, rows) {
  return h(
    "details",
    { class: "numbers" },
    h("summary", {}, "The numbers"),
    h(
      "table",
      { class: "grid" },
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        rows.map((row) =>
          h(
            "tr",
            {},
            row.map((cell) => h("td", {}, cell === null || cell === undefined ? "–" : cell)),
          ),
        ),
      ),
    ),
  );
}
