// Hand-made SVG charts: lines over versions or pages, and faces against the expected counts.
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

// series: [{name, cls, points: [[x, y], ...]}]; stepped lines, since a value holds until it changes.
export function lineChart(title, series, xlabel = "page") {
  const all = series.flatMap((one) => one.points);
  const figure = h("figure", { class: "chart" }, h("figcaption", {}, title));
  if (!all.length) {
    figure.append(h("p", { class: "muted" }, "Nothing recorded yet."));
    return figure;
  }
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]).concat(0);
  const x = scale(Math.min(...xs), Math.max(...xs), PAD.l, W - PAD.r);
  const y = scale(Math.min(...ys), Math.max(...ys), H - PAD.b, PAD.t);
  const paths = series.map((one) => {
    let d = "";
    one.points.forEach(([px, py], k) => {
      d += k === 0 ? `M${x(px).toFixed(1)},${y(py).toFixed(1)}` : `H${x(px).toFixed(1)}V${y(py).toFixed(1)}`;
    });
    return s("path", { d, class: `line ${one.cls}` }, s("title", {}, one.name));
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
  const top = Math.max(1, ...faces.map((f) => Math.max(Number(counts[f]), Number(expected[f] ?? 0))));
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
