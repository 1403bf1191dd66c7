// @ts-check
// The analytics page (/app/analytics): the figures across campaigns (GET /analytics/campaigns) and
// the dice's fairness (GET /analytics/dice) as charts, each with its numbers as a table, for an
// admin or an analyst token. The filters go into both routes' query strings and into the page's
// address (only those filled), so that a view can be shared or reloaded (docs/table-page.md).
import { ApiError, get } from "./api.js";
import { barChart, facesChart, lineChart, numbersTable } from "./charts.js";
import { clear, h } from "./dom.js";
import { ready } from "./ui.js";

const PATH = "/app/analytics";
const GAMES = { "quest-calendar": "Quest Calendar", "calendar-board": "The Calendar Board" };
const ROUTES = { campaigns: "/analytics/campaigns", dice: "/analytics/dice" };
const ROUTE_NAMES = { campaigns: "the figures across campaigns", dice: "the dice" };
const CAMPAIGN_PAGES = 10; // the campaign select lists 500 campaigns at most
const MAX_BARS = 16; // more pages than this are drawn as lines
const PAGE_HINT = "a page's date in the game's calendar"; // a date picker asks no format of anyone
const SINCE_HINT = "ISO-8601: 2026-12-01, or 2026-12-01T18:00Z";

// Each filter: its query parameter, label and control. A filter of one game (its dates) is hidden,
// and not sent, while the other game is chosen. The campaign's note says when the campaigns
// could not be listed.
const FILTERS = [
  { name: "campaign", label: "Campaign", select: true, note: true },
  { name: "game", label: "Game", select: true },
  {
    name: "house_rule",
    label: "House rule",
    hint: "key=value, such as qc.death.replaceHeroOnFour=true: only campaigns playing with it",
  },
  { name: "from_date", label: "Pages from", type: "date", game: "quest-calendar", hint: PAGE_HINT },
  { name: "to_date", label: "Pages to", type: "date", game: "quest-calendar", hint: PAGE_HINT },
  { name: "from_night", label: "Nights from", type: "number", game: "calendar-board", hint: "a night number" },
  { name: "to_night", label: "Nights to", type: "number", game: "calendar-board", hint: "a night number" },
  { name: "since", label: "Recorded since", hint: SINCE_HINT },
  { name: "until", label: "Recorded before", hint: SINCE_HINT },
  { name: "include_undone", label: "Count what a rollback undid too", type: "checkbox" },
];

/** @type {Record<string, any>} the page on screen: {main, root, fields, body, status, summary, listed} */
let shown = null;
let generation = 0; // the latest load: an older one's answers are dropped
let listening = false;

const percent = (share) => Math.round(Number(share) * 1000) / 10;
const asPercent = (v) => `${v}%`;
const has = (value) => value !== null && value !== undefined;
const count = (n, one, many = `${one}s`) => `${n} ${Number(n) === 1 ? one : many}`;

function pValue(p) {
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}

// A die's verdict in words: [data-verdict, the words].
function verdict(die) {
  const p = die.test ? Number(die.test.p_value) : null;
  if (die.unlikely_fair) return ["unfair", `unlikely to be fair (p = ${pValue(p)})`];
  if (!die.enough_samples || p === null) return ["few", "too few dice to tell"];
  return ["fair", `consistent with fair dice (p = ${pValue(p)})`];
}

function control(filter) {
  const id = `filter-${filter.name}`;
  if (filter.select) {
    const options =
      filter.name === "game"
        ? [
            h("option", { value: "" }, "Both games"),
            Object.entries(GAMES).map(([k, v]) => h("option", { value: k }, v)),
          ]
        : [h("option", { value: "" }, "Every campaign")];
    return h("select", { id, name: filter.name }, options);
  }
  const attrs = { id, name: filter.name, type: filter.type || "text", autocomplete: "off" };
  if (filter.type === "number") Object.assign(attrs, { min: 0, step: 1, inputmode: "numeric" });
  if (filter.type === undefined) attrs.spellcheck = "false";
  return h("input", attrs);
}

function field(filter) {
  const input = control(filter);
  const id = input.id;
  const hint = filter.hint ? h("span", { class: "hint", id: `${id}-hint` }, filter.hint) : null;
  const note = filter.note ? h("span", { class: "hint note", id: `${id}-note` }) : null;
  const error = h("span", { class: "error", id: `${id}-error`, "data-filter-error": filter.name });
  input.setAttribute("aria-describedby", [hint, note, error].filter(Boolean).map((e) => e.id).join(" "));
  const label = h("label", { for: id }, filter.label);
  const wrap =
    filter.type === "checkbox"
      ? h("div", { class: "field check", "data-filter": filter.name }, input, " ", label, note, error)
      : h("div", { class: "field", "data-filter": filter.name }, label, input, hint, note, error);
  return { filter, input, note, error, wrap };
}

// The query of the filters filled, in FILTERS' order; a game's dates only with that game or both.
function query(fields) {
  const game = fields.game.input.value;
  const params = new URLSearchParams();
  for (const { filter, input } of Object.values(fields)) {
    if (filter.game && game && filter.game !== game) continue;
    if (filter.type === "checkbox") {
      if (input.checked) params.set(filter.name, "true");
    } else if (input.value.trim()) params.set(filter.name, input.value.trim());
  }
  return params;
}

function fill(fields, params) {
  for (const { filter, input } of Object.values(fields)) {
    const value = params.get(filter.name);
    if (filter.type === "checkbox") input.checked = value === "true";
    else if (filter.name === "campaign" && value && ![...input.options].some((o) => o.value === value)) {
      input.append(h("option", { value }, `campaign ${value.slice(0, 8)}…`));
      input.value = value;
    } else input.value = value ?? "";
  }
  showGameDates(fields);
}

function showGameDates(fields) {
  const game = fields.game.input.value;
  for (const { filter, wrap } of Object.values(fields)) {
    if (filter.game) wrap.hidden = Boolean(game) && filter.game !== game;
  }
}

// A 422's messages of one field: a list, or, for a repeatable filter (house_rule), a list per
// value sent ({"0": [...]}).
const messages = (value) =>
  value && typeof value === "object" && !Array.isArray(value)
    ? Object.values(value).flatMap(messages)
    : [value].flat(Infinity).map(String);

// One route's answer: {data}, {forbidden} for a 403 (this token may not read it), or, for a 422,
// {errors: {field: [message]}}.
async function ask(route, params) {
  const q = params.toString();
  try {
    return { data: await get(`${ROUTES[route]}${q ? `?${q}` : ""}`) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return { forbidden: true };
    if (error instanceof ApiError && error.status === 422) return { errors: error.problem.errors || {} };
    throw error;
  }
}

// A card of one figure; one of two charts side by side spans the page's width ("wide").
function card(key, title, ...content) {
  const wide = content.some((c) => c?.classList?.contains("chart-row"));
  return h(
    "section",
    { class: `card analytics-card${wide ? " wide" : ""}`, "data-chart": key },
    h("h2", {}, title),
    content,
  );
}

function creditsCard(figures) {
  const pages = figures.credits_by_page || [];
  const title = "Average credits and average debt at the end of each page number";
  return card(
    "credits-by-page",
    "Credits and debt by page",
    pages.length <= MAX_BARS
      ? barChart(
          title,
          pages.map((p) => `page ${p.page}`),
          [
            { name: "average credits", cls: "credits", values: pages.map((p) => p.average_credits) },
            { name: "average debt", cls: "debt", values: pages.map((p) => p.average_debt) },
          ],
        )
      : lineChart(
          title,
          [
            {
              name: "average credits",
              cls: "credits",
              points: pages.map((p) => [Number(p.page), Number(p.average_credits)]),
            },
            { name: "average debt", cls: "debt", points: pages.map((p) => [Number(p.page), Number(p.average_debt)]) },
          ],
          "page",
          { stepped: false },
        ),
    numbersTable(
      "Credits and debt by page number",
      ["page", "campaigns", "average credits", "average debt", "in debt"],
      pages.map((p) => [p.page, p.campaigns, p.average_credits, p.average_debt, asPercent(percent(p.in_debt))]),
    ),
  );
}

function deathsCard(figures) {
  const levels = figures.deaths_by_level || [];
  const results = figures.clone_results || {};
  const level = (l) => (has(l.level) ? `level ${l.level}` : "no level");
  const outcomes = (counts) =>
    Object.entries(counts || {})
      .map(([k, n]) => `${k}: ${n}`)
      .join(", ") || "none";
  return card(
    "deaths-by-level",
    "Deaths and clones",
    h(
      "div",
      { class: "chart-row" },
      barChart("Deaths by the hero's level", levels.map(level), [
        { name: "deaths", cls: "deaths", values: levels.map((l) => l.deaths) },
      ]),
      barChart(
        "Clone results (the d4 after a death)",
        Object.keys(results).map((k) => `rolled ${k}`),
        [{ name: "clones", cls: "clones", values: Object.values(results) }],
      ),
    ),
    numbersTable(
      "Deaths and clone results by the hero's level",
      ["level", "deaths", "clone results (d4: count)"],
      [...levels.map((l) => [level(l), l.deaths, outcomes(l.clone_results)]), ["every level", "", outcomes(results)]],
    ),
  );
}

function combatCard(figures) {
  const modes = figures.combat_by_mode || [];
  const names = modes.map((m) => String(m.mode));
  return card(
    "combat-by-mode",
    "Combat by difficulty mode",
    h(
      "div",
      { class: "chart-row" },
      barChart("Combats per mode", names, [
        { name: "combats", cls: "combats", values: modes.map((m) => m.combats) },
        { name: "combats won", cls: "won", values: modes.map((m) => m.combats_won) },
      ]),
      barChart(
        "Share of combats won, and of rounds",
        names,
        [
          { name: "combats won", cls: "won", values: modes.map((m) => percent(m.share_won)) },
          {
            name: "rounds won per round played",
            cls: "rounds",
            values: modes.map((m) => percent(m.won_per_round_played)),
          },
        ],
        { format: asPercent, max: 100 },
      ),
    ),
    numbersTable(
      "Combat by difficulty mode",
      [
        "mode",
        "combats",
        "won",
        "share won",
        "rounds",
        "played",
        "rounds won",
        "rounds won per combat",
        "won per round played",
      ],
      modes.map((m) => [
        m.mode,
        m.combats,
        m.combats_won,
        asPercent(percent(m.share_won)),
        m.rounds,
        m.rounds_played,
        m.rounds_won,
        m.rounds_won_per_combat,
        asPercent(percent(m.won_per_round_played)),
      ]),
    ),
  );
}

function exhaustionCard(figures) {
  const nights = figures.exhaustion_by_night || [];
  const levels = [...new Set(nights.flatMap((n) => Object.keys(n.distribution || {})))].sort((a, b) => a - b);
  return card(
    "exhaustion-by-night",
    "Exhaustion by night",
    h(
      "div",
      { class: "chart-row" },
      lineChart(
        "Average exhaustion at the end of each night",
        [
          {
            name: "average exhaustion",
            cls: "party0",
            points: nights.map((n) => [Number(n.night), Number(n.average)]),
          },
        ],
        "night",
        { stepped: false },
      ),
      barChart(
        "Parties by exhaustion at the end of each night",
        nights.map((n) => `night ${n.night}`),
        levels.map((level, k) => ({
          name: `exhaustion ${level}`,
          cls: `s${k % 6}`,
          values: nights.map((n) => n.distribution?.[level] ?? 0),
        })),
      ),
    ),
    numbersTable(
      "Exhaustion at the end of each night",
      ["night", "parties", "parties by exhaustion", "average"],
      nights.map((n) => [
        n.night,
        n.parties,
        Object.entries(n.distribution || {})
          .map(([k, v]) => `${k}: ${v}`)
          .join(", "),
        n.average,
      ]),
    ),
  );
}

function weatherCard(figures) {
  const weather = figures.weather || {};
  const counted = [weather.set, weather.in_force, weather.in_force_tonight];
  const kinds = [...new Set(counted.flatMap((counts) => Object.keys(counts || {})))].sort();
  const column = (counts) => kinds.map((k) => counts?.[k] ?? 0);
  const series = [
    { name: "set by the landed space", cls: "s0", values: column(weather.set) },
    { name: "in force as the night began", cls: "s1", values: column(weather.in_force) },
    { name: "in force that night", cls: "s2", values: column(weather.in_force_tonight) },
  ];
  return card(
    "weather",
    "Weather",
    barChart(`Weather over ${weather.nights ?? 0} nights`, kinds, series),
    h(
      "p",
      { class: "hint" },
      "In force that night: the weather after the night's calendar roll, Normal unless a campaign's " +
        "house rule cb.weather.nightGap keeps the day's weather through the night.",
    ),
    numbersTable(
      `Weather over ${weather.nights ?? 0} nights`,
      ["weather", "set", "share set", "in force as the night began", "in force that night"],
      kinds.map((k) => [
        k,
        weather.set?.[k] ?? 0,
        has(weather.share_set?.[k]) ? asPercent(percent(weather.share_set[k])) : null,
        weather.in_force?.[k] ?? 0,
        weather.in_force_tonight?.[k] ?? 0,
      ]),
    ),
  );
}

function dieFigure(die) {
  const [key, words] = verdict(die);
  const who = has(die.campaign_id) ? `, campaign ${String(die.campaign_id).slice(0, 8)}…` : "";
  const counted = `${count(die.dice, "die", "dice")} in ${count(die.rolls, "roll")}`;
  const title = `d${die.sides}, ${die.source} dice${who}: ${counted}`;
  const chart = facesChart(
    `${title}${die.test ? `, p = ${pValue(Number(die.test.p_value))}` : ""}`,
    die.faces || {},
    die.expected || {},
  );
  const faces = Object.keys(die.faces || {}).sort((a, b) => Number(a) - Number(b));
  return h(
    "div",
    { class: "die-chart", "data-die": `d${die.sides}-${die.source}`, "data-verdict": key },
    chart,
    h("p", { class: `verdict-words ${key}` }, `${words}.`),
    key === "few" && die.test ? h("p", { class: "hint" }, "A verdict needs at least 5 dice per face.") : null,
    numbersTable(
      `${title}: rolled and expected`,
      ["face", "rolled", "expected if fair"],
      faces.map((f) => [f, die.faces[f], has(die.expected?.[f]) ? Number(die.expected[f]).toFixed(1) : null]),
    ),
  );
}

function diceCard(answer) {
  const dice = answer.dice || [];
  return card(
    "dice",
    "Are the dice fair?",
    h(
      "p",
      { class: "hint" },
      "Each die type and source: the faces rolled against what fair dice give, with the chi-square " +
        `test's p-value. Below ${answer.alpha ?? 0.001}, with at least 5 dice per face, the dice are ` +
        "called unlikely to be fair: read it as “look at this”, not as proof.",
    ),
    dice.length ? h("div", { class: "chart-row" }, dice.map(dieFigure)) : h("p", { class: "muted" }, "No dice yet."),
  );
}

// A query parameter's words: its filter's label.
const labelOf = (name) => shown.fields[name]?.filter.label ?? name;

// In place of a route's charts: its filters refused (422), or, when the token may read the other
// route only, its 403.
function refusedCard(route, answer) {
  const fields = Object.keys(answer.errors || {}).map(labelOf).join(", ");
  return h(
    "section",
    { class: "card analytics-card", "data-refused": route },
    h("h2", {}, route === "dice" ? "Are the dice fair?" : "Figures across campaigns"),
    h(
      "p",
      { class: "error" },
      answer.forbidden
        ? `This token cannot read ${ROUTE_NAMES[route]}.`
        : `The server refused the filters of ${ROUTE_NAMES[route]} (${fields}): see the form.`,
    ),
  );
}

// Every filter's error: a 422's messages next to the filter each names, and all of them above the
// form (a parameter the form has no field for is named there only). Both routes take the same
// filters, so a message both give is said once.
function showAnswers(answers) {
  const { fields, summary } = shown;
  for (const f of Object.values(fields)) {
    f.error.textContent = "";
    f.input.removeAttribute("aria-invalid");
  }
  fields.campaign.note.textContent = shown.unlisted || "";
  const said = new Set();
  for (const answer of answers) {
    for (const [name, message] of Object.entries(answer.errors || {})) {
      const text = messages(message).join(" ");
      const f = fields[name];
      if (f && !f.error.textContent.includes(text)) {
        f.error.textContent = `${f.error.textContent} ${text}`.trim();
        f.input.setAttribute("aria-invalid", "true");
      }
      said.add(`${labelOf(name)}: ${text}`);
    }
  }
  summary.textContent = said.size ? `The server refused these filters: ${[...said].join("; ")}` : "";
}

// What the charts show, in a sentence (read out once they are drawn, instead of every chart).
function described(params, answers) {
  const filters = FILTERS.filter((f) => params.has(f.name)).map((f) => {
    const value = params.get(f.name);
    const input = shown.fields[f.name].input;
    const option = f.select ? [...input.options].find((o) => o.value === value) : null;
    return f.type === "checkbox" ? f.label.toLowerCase() : `${f.label.toLowerCase()} ${option?.text ?? value}`;
  });
  const behind = answers.filter((a) => a && a.caught_up === false).map((a) => Number(a.lag ?? 0));
  return (
    `Showing ${filters.length ? filters.join(", ") : "every campaign, with no filter"}.` +
    (behind.length ? ` The views are still reading the log (${Math.max(...behind)} events behind).` : "")
  );
}

async function load() {
  const mine = ++generation;
  ready(false);
  shown.status.textContent = "Loading the figures…";
  try {
    const params = new URLSearchParams(location.search);
    // the campaigns' names too, which the status line says
    const [campaigns, dice] = await Promise.all([ask("campaigns", params), ask("dice", params), shown.listed]);
    if (mine !== generation) return;
    if (campaigns.forbidden && dice.forbidden) return refused();
    showAnswers([campaigns, dice]);
    const figures = campaigns.data;
    clear(
      shown.body,
      figures
        ? [creditsCard, weatherCard, deathsCard, combatCard, exhaustionCard].map((draw) => draw(figures))
        : refusedCard("campaigns", campaigns),
      dice.data ? diceCard(dice.data) : refusedCard("dice", dice),
    );
    shown.root.dataset.analytics = figures && dice.data ? "shown" : "invalid";
    shown.status.textContent =
      figures && dice.data
        ? described(params, [figures, dice.data])
        : "Some figures are not shown (see below).";
  } finally {
    ready(true);
  }
}

function refused() {
  clear(
    shown.main,
    h(
      "section",
      { class: "card", "data-analytics": "refused" },
      h("h1", {}, "Analytics"),
      h(
        "p",
        { class: "error", role: "alert" },
        "This token cannot read the analytics: they are for an admin token or an analyst's.",
      ),
      h("p", {}, h("a", { href: "/app/" }, "Back to your campaigns")),
    ),
  );
}

async function campaignOptions(select) {
  let after = null;
  for (let k = 0; k < CAMPAIGN_PAGES; k++) {
    const page = await get(`/campaigns?limit=50${after !== null ? `&after=${after}` : ""}`);
    for (const c of page.items) {
      const known = [...select.options].find((o) => o.value === String(c.id));
      const text = `${c.name} (${GAMES[c.game] || c.game})`;
      if (known) known.textContent = text;
      else select.append(h("option", { value: String(c.id) }, text));
    }
    after = page.next_after;
    if (after === null || after === undefined) return;
  }
}

function apply() {
  const q = query(shown.fields).toString();
  const address = `${PATH}${q ? `?${q}` : ""}`;
  if (address !== location.pathname + location.search) history.pushState(null, "", address);
  reload();
}

// A load after the first: what goes wrong is said above the form (the first load's failure is
// the router's to show, as on every page).
function reload() {
  load().catch((error) => {
    shown.summary.textContent = `Could not load the analytics: ${error.message}`;
  });
}

function form(fields) {
  const all = Object.values(fields);
  const part = (names) => all.filter((f) => names.includes(f.filter.name)).map((f) => f.wrap);
  const clearButton = h("button", { type: "button", class: "small" }, "Clear the filters");
  const el = h(
    "form",
    { class: "card wide analytics-filters", "aria-labelledby": "filters-title" },
    h("h2", { id: "filters-title" }, "Filters"),
    h("div", { class: "filter-grid" }, part(["campaign", "game", "house_rule"])),
    h(
      "fieldset",
      { class: "nested" },
      h("legend", {}, "The game's dates: Quest Calendar pages, Calendar Board nights"),
      h("div", { class: "filter-grid" }, part(["from_date", "to_date", "from_night", "to_night"])),
    ),
    h(
      "fieldset",
      { class: "nested" },
      h("legend", {}, "When it was recorded"),
      h("div", { class: "filter-grid" }, part(["since", "until"])),
    ),
    part(["include_undone"]),
    h("p", { class: "actions" }, h("button", { type: "submit" }, "Apply"), " ", clearButton),
  );
  el.addEventListener("submit", (event) => {
    event.preventDefault();
    apply();
  });
  // a choice applies at once; typed text on "Apply" (or Enter)
  for (const name of ["campaign", "game", "include_undone"]) {
    fields[name].input.addEventListener("change", () => {
      showGameDates(fields);
      apply();
    });
  }
  clearButton.addEventListener("click", () => {
    fill(fields, new URLSearchParams());
    apply();
  });
  return el;
}

export async function analyticsPage(main) {
  const fields = Object.fromEntries(FILTERS.map((f) => [f.name, field(f)]));
  const summary = h("p", { class: "error", role: "alert", "data-filter-errors": "" });
  const body = h("div", { class: "analytics-charts" });
  const status = h("p", { role: "status", class: "muted", "data-analytics-status": "" });
  const root = h(
    "section",
    { class: "card wide", "data-analytics": "loading" },
    h("h1", {}, "Analytics"),
    h(
      "p",
      {},
      "Figures across every campaign: credits and debt, deaths and clones, combat, exhaustion, " +
        "weather, and whether the dice are fair. Each chart's numbers are under “The numbers”.",
    ),
    status,
    summary,
  );
  shown = { main, fields, body, root, summary, status };
  clear(main, root, form(fields), body);
  fill(fields, new URLSearchParams(location.search));
  shown.listed = campaignOptions(fields.campaign.input).catch(() => {
    shown.unlisted = "The campaigns could not be listed.";
  });
  if (!listening) {
    listening = true;
    addEventListener("popstate", () => {
      if (location.pathname !== PATH || !shown) return;
      fill(shown.fields, new URLSearchParams(location.search));
      reload();
    });
  }
  await load();
}
