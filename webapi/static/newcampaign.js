// @ts-check
// "New campaign": choose the game, name it, change house rules if you like (each shows its
// default; only the ones changed are sent), and for a match build the setup from a sample; for
// Quest Calendar choose a hero, or make one on the hero sheet (herosheet.js) and save it for the
// group. The
// body sent holds what the owner chose or accepted, nothing else; then the campaign opens.
import { get, post } from "./api.js";
import { clear, h } from "./dom.js";
import { knownItems } from "./catalogue.js";
import { samples, saveForGroup, savedHeroes } from "./heroes.js";
import { heroSheet } from "./herosheet.js";
import { explain } from "./problems.js";
import { RULE_BOUNDS, setupBuilder } from "./setup.js";
import { ready } from "./ui.js";

const GAMES = { "quest-calendar": "Quest Calendar", "calendar-board": "The Calendar Board (a match)" };
// A match needs two players: the setup offered when the server has no samples.
const FALLBACK = {
  name: "Two players, one piece each",
  setup: {
    players: [
      { id: "A", pieces: [{ id: "a1", location: { kind: "home" } }] },
      { id: "B", pieces: [{ id: "b1", location: { kind: "home" } }] },
    ],
  },
};

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// A house rule's value in words: yes/no, none, a comma list, text without quotes.
export function ruleWords(value) {
  if (value === true) return "yes";
  if (value === false) return "no";
  if (value === null || value === undefined) return "none";
  if (Array.isArray(value)) return value.length ? value.map(ruleWords).join(", ") : "(empty list)";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// The input for one house rule, by its type (GET /house-rules): yes/no for a boolean, a number
// for an integer, a select of its choices, a comma list for a list of words or numbers (a list of
// lists, like cb.wind.table, and an object are JSON), text for text; read() throws
// an Error naming the rule when the value cannot be read.
export function ruleInput(rule, value, id) {
  const bad = (why) => { throw new Error(`${rule.key}: ${why}`); };
  if (rule.choices && rule.kind !== "list") {
    const el = h(
      "select",
      { id },
      rule.nullable ? h("option", { value: "null" }, "none") : null,
      rule.choices.map((c) => h("option", { value: JSON.stringify(c) }, ruleWords(c))),
    );
    el.value = JSON.stringify(value ?? null);
    return { el, read: () => JSON.parse(el.value) };
  }
  if (rule.kind === "int") {
    const el = h("input", {
      id,
      type: "number",
      step: 1,
      min: rule.minimum,
      max: rule.maximum,
      value: value ?? "",
      placeholder: rule.nullable ? "none" : "",
    });
    return { el, read: () => {
      const typed = el.value.trim();
      if (typed === "") return rule.nullable ? null : bad("a whole number is needed");
      // the words typed, not what JavaScript makes of them (1e+26)
      if (!/^[-+]?\d+$/.test(typed)) return bad(`“${typed}” is not a whole number`);
      const n = Number(typed);
      return Number.isSafeInteger(n)
        ? n
        : bad(
            `“${typed}” is not a whole number that fits` +
              `${rule.maximum !== null && rule.maximum !== undefined ? ` (the most is ${rule.maximum})` : ""}`,
          );
    } };
  }
  if (rule.kind === "bool" || typeof rule.default === "boolean") {
    const el = h("select", { id }, h("option", { value: "true" }, "yes"), h("option", { value: "false" }, "no"));
    el.value = String(Boolean(value));
    return { el, read: () => el.value === "true" };
  }
  const flat = (v) => Array.isArray(v) && v.every((item) => typeof item === "string" || typeof item === "number");
  if (rule.kind === "list" && flat(rule.default ?? []) && (value === null || value === undefined || flat(value))) {
    const numbers = Array.isArray(rule.default) && rule.default.some((v) => typeof v === "number");
    const el = h("input", { id, value: (value || []).join(", "), spellcheck: "false" });
    return {
      el,
      read: () =>
        el.value
          .split(",")
          .map((v) => v.trim())
          .filter(Boolean)
          .map((v) => (numbers && /^-?\d+$/.test(v) ? Number(v) : v)),
    };
  }
  if (rule.kind === "str") {
    const el = h("input", { id, value: value ?? "" });
    return { el, read: () => (el.value === "" && rule.nullable ? null : el.value) };
  }
  const el = h("textarea", { id, rows: 3, spellcheck: "false" }, JSON.stringify(value));
  return { el, read: () => {
    try {
      return JSON.parse(el.value);
    } catch {
      return bad("must be written as JSON, like {\"key\": 1}");
    }
  } };
}

// A house rule's title in words, from its key: the game's prefix dropped, camelCase and snake_case
// split, the first part a heading ("qc.death.replaceHeroOnFour": "Death: replace hero on four",
// "dice_mode": "Dice mode"). The key itself stays in small text or a title, for the curious.
export function ruleTitle(key) {
  const parts = String(key)
    .replace(/^(qc|cb)\./, "")
    .split(".")
    .map((p) => p.replaceAll("_", " ").replace(/([a-z0-9])([A-Z])/g, (_, a, b) => `${a} ${b.toLowerCase()}`));
  const [first, ...rest] = parts;
  const text = rest.length ? `${first}: ${rest.join(" ")}` : first;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// One house rule's control, showing its default; read() is undefined while it equals the default.
function ruleControl(rule, start) {
  const id = `rule-${rule.key.replace(/[^a-zA-Z0-9_-]/g, "-")}`;
  const { el, read } = ruleInput(rule, start === undefined ? rule.default : start, id);
  const box = h("div", { class: "field rule", dataset: { rule: rule.key } },
    h("label", { for: id }, ruleTitle(rule.key)), " ", h("small", { class: "rule-key muted" }, rule.key), el,
    h("small", { class: "hint" }, `${rule.description} Default: ${ruleWords(rule.default)}.`));
  // now(): the value the form holds now, the default while it cannot be read
  const now = () => {
    try {
      return read();
    } catch {
      return rule.default;
    }
  };
  return { box, key: rule.key, now, read: () => { const v = read(); return same(v, rule.default) ? undefined : v; } };
}

async function houseRules(slot, game, preset = {}) {
  const { rules } = await get(`/house-rules?game=${game}`);
  const controls = rules.map((r) => ruleControl(r, preset[r.key]));
  clear(
    slot,
    h(
      "details",
      { class: "house-rules" },
      h("summary", {}, `House rules (optional: ${rules.length}, each at its default)`),
      controls.map((c) => c.box),
    ),
  );
  const read = () => {
    const out = {};
    for (const c of controls) {
      const v = c.read();
      if (v !== undefined) out[c.key] = v;
    }
    return out;
  };
  // a rule's value as the form holds it now (the setup builder's bounds follow it)
  read.now = (key) => controls.find((c) => c.key === key)?.now();
  return read;
}

async function matchSetup(slot, rulesSlot, state) {
  const found = (await samples()).setups;
  const options = found.length ? found : [FALLBACK];
  const pick = h("select", { id: "setup-sample" }, options.map((s, k) => h("option", { value: String(k) }, s.name)));
  const builderSlot = h("div", {});
  let builder = null;
  // the builder's bounds that house rules set follow the house-rules form as it is edited
  const follow = () =>
    builder?.bound(
      Object.fromEntries(Object.entries(RULE_BOUNDS).map(([field, key]) => [field, state.rules.now?.(key)])),
    );
  rulesSlot.addEventListener("input", follow);
  rulesSlot.addEventListener("change", follow);
  const use = async () => {
    const sample = options[Number(pick.value)];
    builder = setupBuilder(structuredClone(sample.setup || {}));
    clear(builderSlot, builder.el);
    state.setup = builder.read;
    state.locate = builder.locate;
    state.rules = await houseRules(rulesSlot, "calendar-board", sample.house_rules || {});
    follow();
  };
  pick.addEventListener("change", use);
  clear(
    slot,
    h("div", { class: "field" }, h("label", { for: "setup-sample" }, "Start from the sample setup"), pick),
    builderSlot,
  );
  await use();
}

// The label of a hero to start from, by where it comes from.
const FROM = { sample: " (sample)", group: " (the group's)", mine: " (saved on this device)" };
const NEW_HERO = "new";

// Quest Calendar: the prologue, and a hero to start with (a sample, one of the group's, one saved
// on this device, or a new one made on the hero sheet), sent as the first command (select_hero)
// once the campaign exists; none by default.
async function questSetup(slot, state) {
  const prologue = h("input", { id: "setup-prologue", type: "checkbox" });
  const [heroes, known] = await Promise.all([savedHeroes(), knownItems()]);
  const pick = h(
    "select",
    { id: "setup-hero" },
    h("option", { value: "" }, "no hero yet (choose later)"),
    h("option", { value: NEW_HERO }, "a new hero (make one on the hero sheet)"),
    heroes.map((x, k) => h("option", { value: String(k) }, `${x.name}${FROM[x.source] || ""}`)),
  );
  // The sheet is made when a new hero is chosen (its fields are none of the form's until then).
  let sheet = null;
  const said = h("p", { class: "hint", role: "status", id: "hero-saved" });
  // Save a hero for the group: a new one from the sheet, or one saved on this device before.
  const forGroup = async (name, hero) => {
    said.textContent = "";
    try {
      const saved = await saveForGroup(name, hero);
      heroes.push({ name: saved.name, hero: { phase: "prologue", hero: saved.hero }, source: "group" });
      // offered at once in the Hero list, the choice and the sheet left as they are
      pick.append(h("option", { value: String(heroes.length - 1) }, `${saved.name}${FROM.group}`));
      said.textContent = `Saved for the group as “${saved.name}”: anyone on this server can start from it.`;
    } catch (problem) {
      said.textContent = `Not saved: ${explain(problem)}`;
    }
  };
  const save = h("button", { type: "button", class: "small", id: "save-hero" }, "Save this hero for the group");
  save.addEventListener("click", () => {
    let hero;
    try {
      hero = sheet.read();
    } catch (problem) {
      said.textContent = `Not saved: ${problem.message}`;
      return;
    }
    forGroup(sheet.name(), hero);
  });
  const share = h("button", { type: "button", class: "small" }, "Share this hero with the group");
  share.addEventListener("click", () => {
    const mine = heroes[Number(pick.value)];
    forGroup(mine.name, mine.hero.hero ?? mine.hero);
  });
  const sheetBox = h("div", { class: "sheet-box" }, save);
  const sync = () => {
    sheetBox.hidden = pick.value !== NEW_HERO;
    share.hidden = heroes[Number(pick.value)]?.source !== "mine" || pick.value === "";
    if (pick.value !== NEW_HERO || sheet) return;
    sheet = heroSheet(known);
    sheetBox.prepend(sheet.el);
    sheet.focus();
  };
  pick.addEventListener("change", sync);
  sync();
  clear(
    slot,
    h(
      "p",
      { class: "check" },
      prologue,
      h("label", { for: "setup-prologue" }, " The prologue is complete (start on the calendar)"),
    ),
    h("div", { class: "field" }, h("label", { for: "setup-hero" }, "Hero"), pick),
    share,
    sheetBox,
    said,
  );
  state.setup = () => (prologue.checked ? { prologue_complete: true } : undefined);
  // A new campaign's hero is its prologue hero; once the prologue is complete the rules take
  // only a main or custom hero (QC-02): a sample is sent as a main hero, the group's and a new
  // one as a custom hero.
  state.hero = () => {
    if (pick.value === "") return undefined;
    if (pick.value === NEW_HERO) return { phase: prologue.checked ? "custom" : "prologue", hero: sheet.read() };
    const { hero: chosen, source } = heroes[Number(pick.value)];
    if (!prologue.checked || chosen.phase !== "prologue") return chosen;
    return { ...chosen, phase: source === "sample" ? "main" : "custom" };
  };
}

// A refusal of the new campaign in words: each field of the setup builder the server names
// ("players[0].exhaustion") as the builder shows it ("Player 1 (A), exhaustion: must be …"),
// marked (aria-invalid) and the first of them focused; anything else as explain() says it.
function refusal(problem, locate, error) {
  const errors = problem?.problem?.errors;
  if (!locate || !errors || typeof errors !== "object") return explain(problem);
  const said = (messages) =>
    Array.isArray(messages) && messages.every((m) => typeof m === "string")
      ? messages.join(" ")
      : JSON.stringify(messages);
  const found = Object.entries(errors).map(([path, messages]) => ({
    path,
    messages,
    spot: locate(path.replace(/^setup\./, "")),
  }));
  if (!found.some((f) => f.spot)) return explain(problem);
  const marked = [];
  for (const { spot } of found) {
    if (!spot?.el) continue;
    spot.el.setAttribute("aria-invalid", "true");
    spot.el.setAttribute("aria-errormessage", error.id);
    marked.push(spot.el);
  }
  marked[0]?.focus();
  return found.map(({ path, messages, spot }) => `${spot ? spot.words : path}: ${said(messages)}`).join("; ");
}

// The form, put in `slot`; `opener` (the "New campaign" button) is hidden while it is open.
export async function newCampaign(slot, opener) {
  const game = h("select", { id: "new-game" }, Object.entries(GAMES).map(([k, v]) => h("option", { value: k }, v)));
  const name = h("input", { id: "new-name", required: true, maxlength: 200 });
  let setupSlot = h("div", { class: "setup-slot" });
  let rulesSlot = h("div", { class: "rules-slot" });
  const error = h("p", { class: "error", role: "alert", id: "new-campaign-error" });
  let state = { setup: () => undefined, rules: () => ({}), hero: () => undefined };
  let generation = 0;
  // Built aside and put in place only if the game was not changed again meanwhile.
  const choose = async () => {
    const gen = ++generation;
    const next = { setup: () => undefined, rules: () => ({}), hero: () => undefined, locate: null };
    const [setup, rules] = [h("div", { class: "setup-slot" }), h("div", { class: "rules-slot" })];
    if (game.value === "calendar-board") await matchSetup(setup, rules, next);
    else {
      await questSetup(setup, next);
      next.rules = await houseRules(rules, game.value);
    }
    if (gen !== generation) return;
    state = next;
    setupSlot.replaceWith(setup);
    rulesSlot.replaceWith(rules);
    [setupSlot, rulesSlot] = [setup, rules];
  };
  const chosen = async () => {
    ready(false);
    try {
      await choose();
    } catch (problem) {
      error.textContent = explain(problem);
    } finally {
      ready(true);
    }
  };
  game.addEventListener("change", chosen);
  const cancel = h(
    "button",
    {
      type: "button",
      class: "small",
      onclick: () => {
        slot.replaceChildren();
        opener.hidden = false;
        opener.focus();
      },
    },
    "Cancel",
  );
  const form = h("form", { class: "new-campaign", "aria-label": "New campaign" },
    h("h2", {}, "New campaign"),
    h("div", { class: "field" }, h("label", { for: "new-game" }, "Game"), game),
    h("div", { class: "field" }, h("label", { for: "new-name" }, "Name"), name),
    setupSlot, rulesSlot,
    h("p", {}, h("button", { type: "submit" }, "Create the campaign"), " ", cancel), error);
  // a field the server refused is unmarked once it is changed (or at the next try)
  const unmark = (el) => {
    el.removeAttribute("aria-invalid");
    el.removeAttribute("aria-errormessage");
  };
  form.addEventListener("input", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    return target.getAttribute?.("aria-invalid") && unmark(target);
  });
  // One creation at a time: a double click or a second Enter while the first is in flight
  // would otherwise create a second campaign nobody chose.
  const createButton = /** @type {HTMLButtonElement} */ (form.querySelector("button[type=submit]"));
  let creating = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (creating) return;
    error.textContent = "";
    form.querySelectorAll("[aria-invalid]").forEach(unmark);
    /** @type {{game: string, name: string, setup?: unknown, house_rules?: Record<string, unknown>}} */
    let body;
    let hero;
    try {
      hero = state.hero();
      body = { game: game.value, name: name.value.trim() };
      const setup = state.setup();
      const rules = state.rules();
      if (setup !== undefined) body.setup = setup;
      if (Object.keys(rules).length) body.house_rules = rules;
    } catch (problem) {
      error.textContent = `Could not read the form: ${problem.message}`;
      return;
    }
    creating = true;
    createButton.disabled = true;
    let leaving = false;
    try {
      const created = await post("/campaigns", body, { "Idempotency-Key": crypto.randomUUID() });
      if (hero) {
        try {
          await post(
            `/campaigns/${created.id}/commands`,
            { type: "select_hero", ...hero },
            { "Idempotency-Key": crypto.randomUUID() },
          );
        } catch (problem) {
          error.textContent = `The campaign is made, but not its hero: ${explain(problem)}`;
          return;
        }
      }
      leaving = true;
      location.assign(`/app/campaigns/${created.id}`);
    } catch (problem) {
      error.textContent = refusal(problem, state.locate, error);
    } finally {
      // once created, the page is leaving for the campaign: the button stays off
      if (!leaving) {
        creating = false;
        createButton.disabled = false;
      }
    }
  });
  opener.hidden = true;
  clear(slot, form);
  name.focus();
  await chosen();
}
