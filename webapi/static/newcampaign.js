// "New campaign": choose the game, name it, change house rules if you like (each shows its
// default; only the ones changed are sent), and for a match build the setup from a sample. The
// body sent holds what the owner chose or accepted, nothing else; then the campaign opens.
import { get, post } from "./api.js";
import { clear, h } from "./dom.js";
import { samples, savedHeroes } from "./heroes.js";
import { explain } from "./play.js";
import { setupBuilder } from "./setup.js";
import { ready } from "./ui.js";

const GAMES = { "quest-calendar": "Quest Calendar", "calendar-board": "The Calendar Board (a match)" };
// A match needs two players: the setup offered when the server has no samples.
const FALLBACK = { name: "Two players, one piece each", setup: { players: [{ id: "A", pieces: [{ id: "a1", location: { kind: "home" } }] }, { id: "B", pieces: [{ id: "b1", location: { kind: "home" } }] }] } };

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// One house rule's control, showing its default; read() is undefined while it equals the default.
function ruleControl(rule, start) {
  const id = `rule-${rule.key.replace(/[^a-zA-Z0-9_-]/g, "-")}`;
  const value = start === undefined ? rule.default : start;
  let el;
  let read;
  if (rule.choices && rule.kind !== "list") {
    el = h("select", { id }, rule.choices.map((c) => h("option", { value: JSON.stringify(c) }, String(c))));
    el.value = JSON.stringify(value);
    read = () => JSON.parse(el.value);
  } else if (rule.kind === "int" && !rule.nullable) {
    el = h("input", { id, type: "number", min: rule.minimum, max: rule.maximum, value: value });
    read = () => (el.value === "" ? rule.default : Number(el.value));
  } else if (rule.kind === "bool" || typeof rule.default === "boolean") {
    el = h("select", { id }, h("option", { value: "true" }, "yes"), h("option", { value: "false" }, "no"));
    el.value = String(value);
    read = () => el.value === "true";
  } else {
    el = h("input", { id, value: JSON.stringify(value), spellcheck: "false" });
    read = () => JSON.parse(el.value);
  }
  const box = h("div", { class: "field rule", dataset: { rule: rule.key } },
    h("label", { for: id }, rule.key), el,
    h("small", { class: "hint" }, `${rule.description} Default: ${JSON.stringify(rule.default)}.`));
  return { box, key: rule.key, read: () => { const v = read(); return same(v, rule.default) ? undefined : v; } };
}

async function houseRules(slot, game, preset = {}) {
  const { rules } = await get(`/house-rules?game=${game}`);
  const controls = rules.map((r) => ruleControl(r, preset[r.key]));
  clear(slot, h("details", { class: "house-rules" }, h("summary", {}, `House rules (optional: ${rules.length}, each at its default)`), controls.map((c) => c.box)));
  return () => {
    const out = {};
    for (const c of controls) {
      const v = c.read();
      if (v !== undefined) out[c.key] = v;
    }
    return out;
  };
}

async function matchSetup(slot, rulesSlot, state) {
  const found = (await samples()).setups;
  const options = found.length ? found : [FALLBACK];
  const pick = h("select", { id: "setup-sample" }, options.map((s, k) => h("option", { value: String(k) }, s.name)));
  const builderSlot = h("div", {});
  const use = async () => {
    const sample = options[Number(pick.value)];
    const builder = setupBuilder(structuredClone(sample.setup || {}));
    clear(builderSlot, builder.el);
    state.setup = builder.read;
    state.rules = await houseRules(rulesSlot, "calendar-board", sample.house_rules || {});
  };
  pick.addEventListener("change", use);
  clear(slot, h("div", { class: "field" }, h("label", { for: "setup-sample" }, "Start from the sample setup"), pick), builderSlot);
  await use();
}

// Quest Calendar: the prologue, and a hero to start with (a sample or one saved on this device),
// sent as the first command (select_hero) once the campaign exists; none by default.
async function questSetup(slot, state) {
  const prologue = h("input", { id: "setup-prologue", type: "checkbox" });
  const heroes = await savedHeroes();
  const pick = h("select", { id: "setup-hero" }, h("option", { value: "" }, "no hero yet (choose later)"),
    heroes.map((x, k) => h("option", { value: String(k) }, `${x.name}${x.source === "mine" ? " (saved on this device)" : " (sample)"}`)));
  clear(slot, h("p", { class: "check" }, prologue, h("label", { for: "setup-prologue" }, " The prologue is complete (start on the calendar)")),
    heroes.length ? h("div", { class: "field" }, h("label", { for: "setup-hero" }, "Hero"), pick) : null);
  state.setup = () => (prologue.checked ? { prologue_complete: true } : undefined);
  state.hero = () => (pick.value === "" ? undefined : heroes[Number(pick.value)].hero);
}

// The form, put in `slot`; `opener` (the "New campaign" button) is hidden while it is open.
export async function newCampaign(slot, opener) {
  const game = h("select", { id: "new-game" }, Object.entries(GAMES).map(([k, v]) => h("option", { value: k }, v)));
  const name = h("input", { id: "new-name", required: true, maxlength: 200 });
  let setupSlot = h("div", { class: "setup-slot" });
  let rulesSlot = h("div", { class: "rules-slot" });
  const error = h("p", { class: "error", role: "alert" });
  let state = { setup: () => undefined, rules: () => ({}), hero: () => undefined };
  let generation = 0;
  // Built aside and put in place only if the game was not changed again meanwhile.
  const choose = async () => {
    const gen = ++generation;
    const next = { setup: () => undefined, rules: () => ({}), hero: () => undefined };
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
  const cancel = h("button", { type: "button", class: "small", onclick: () => { slot.replaceChildren(); opener.hidden = false; opener.focus(); } }, "Cancel");
  const form = h("form", { class: "new-campaign", "aria-label": "New campaign" },
    h("h2", {}, "New campaign"),
    h("div", { class: "field" }, h("label", { for: "new-game" }, "Game"), game),
    h("div", { class: "field" }, h("label", { for: "new-name" }, "Name"), name),
    setupSlot, rulesSlot,
    h("p", {}, h("button", { type: "submit" }, "Create the campaign"), " ", cancel), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
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
    try {
      const created = await post("/campaigns", body, { "Idempotency-Key": crypto.randomUUID() });
      if (hero) {
        try {
          await post(`/campaigns/${created.id}/commands`, { type: "select_hero", ...hero }, { "Idempotency-Key": crypto.randomUUID() });
        } catch (problem) {
          error.textContent = `The campaign is made, but not its hero: ${explain(problem)}`;
          return;
        }
      }
      location.assign(`/app/campaigns/${created.id}`);
    } catch (problem) {
      error.textContent = explain(problem);
    }
  });
  opener.hidden = true;
  clear(slot, form);
  name.focus();
  await chosen();
}
