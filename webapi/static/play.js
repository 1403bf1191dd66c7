// Forms generated from the command schemas of GET /commands. A form sends exactly what the player
// chose: a field left empty or "(not set)" is left out, an optional object stays out until its
// "Add" button is pressed (and "Remove" takes it out again), an optional list starts empty, and a
// field the catalogue says is picked from the state (`picks`) is a choice among the state's entries.
// Every control is named by its path in the body (`hero.pool.max`, `rounds[0].condition`), and
// the buttons that add or remove a part carry it as `data-add` / `data-remove`.
import { commandTitle } from "./commandtitles.js";
import { Num, parse } from "./canon.js";
import { stockField } from "./catalogue.js";
import { clear, h } from "./dom.js";
import { diceChoice, diceFromText, diceOf } from "./dice.js";
import { checkControl } from "./pagechecks.js";
import { pickEntries } from "./picks.js";

let uid = 0;
const nextId = (path) => `f-${path.replace(/[^a-zA-Z0-9_-]/g, "-")}-${++uid}`;
const words = (name) => String(name).replaceAll("_", " ");
// A label as a sentence: its first letter a capital, "level up day" as "Level-up day".
const sentence = (text) => {
  const said = String(text).replace(/\blevel up\b(?= \w)/g, "level-up");
  return said.charAt(0).toUpperCase() + said.slice(1);
};
// Choices said otherwise than their code word (a stat's name as the rulebook writes it).
const CHOICE_WORDS = { hp_max: "Maximum HP", def: "DEF", atk: "ATK", damage_mod: "Damage bonus" };
const OTHER = "…another…"; // the option of a value typed by hand (no id in the state looks like it)

// A date's format in words ("YYYY-MM-DD or MM-DD"): the date picker asks no format of anyone.
const DATE_FORMAT = /[,:;]?\s*\(?(?:YYYY-MM-DD|MM-DD)(?:\s+or\s+(?:YYYY-MM-DD|MM-DD))?\)?/g;

function describe(field, { date = false } = {}) {
  const bits = [];
  // Help in words: the catalogue's `code` marks and its defaults ("left out: false") are noise.
  let text = (field.description || "").replace(/`([^`]*)`/g, (_, name) => words(name));
  // a picked value is chosen from a list, not typed as an id: "The id of the ability" is "Which ability"
  if (field.picks) text = text.replace(/^the id of (?:the |an? )?/i, "Which ");
  if (date)
    text =
      `${text.replace(DATE_FORMAT, "").replace(/[.\s]+$/, "") || words(field.name)}` +
      `: pick the day in the date picker`;
  if (text) bits.push(text);
  if (field.minimum !== undefined || field.maximum !== undefined)
    bits.push(`range ${field.minimum ?? "…"}–${field.maximum ?? "…"}`);
  if (field.required_when)
    bits.push(
      `needed when ${Object.entries(field.required_when)
        .map(([k, v]) => `${words(k)} is ${v === true ? "yes" : v === false ? "no" : words(v)}`)
        .join(" and ")}`,
    );
  return bits.join(" · ");
}

const isObject = (field) => field.type === "object" && Array.isArray(field.fields);
const isRows = (field) => field.type === "array" && (Array.isArray(field.items?.fields) || field.items?.picks);
const numeric = (text) => /^-?\d+$/.test(text);

// A whole number as typed, refused in the words typed: "99999999999999999999999999" is not
// sent as 1e+26 (which is all JavaScript can make of it) for the server to refuse as that.
export function wholeNumber(text, name = "") {
  const typed = String(text).trim();
  const said = `${name ? `${name}: ` : ""}“${typed}” is not a whole number`;
  if (!/^[-+]?\d+$/.test(typed)) throw new Error(said);
  const value = Number(typed);
  if (!Number.isSafeInteger(value)) throw new Error(`${said} that fits (the most is ${Number.MAX_SAFE_INTEGER})`);
  return value;
}

// A JSON value with every whole number in it one that fits (canon.js keeps the text of any
// other number): the same refusal as wholeNumber's, in the words typed.
function fitting(value, name) {
  if (value instanceof Num) {
    if (/^-?\d+$/.test(value.raw)) wholeNumber(value.raw, name);
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => fitting(v, name));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fitting(v, name)]));
  return value;
}

// Parse a free-text list: JSON when it starts with '[', else values separated by commas.
function listValue(text, itemType, name = "") {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (trimmed.startsWith("[")) return fitting(parse(trimmed), name);
  return trimmed.split(",").map((part) => {
    const value = part.trim();
    if (value.startsWith("{")) return fitting(parse(value), name);
    return itemType === "string" || !numeric(value) ? value : wholeNumber(value, name);
  });
}

// Faces rolled by hand: whole numbers separated by commas, or a JSON list (where a d100 may be
// {"tens": 60, "units": 5}); each refused in the words typed.
export function facesValue(text, name = "faces") {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (trimmed.startsWith("[")) return fitting(parse(trimmed), name);
  return trimmed.split(",").map((part) => wholeNumber(part, name));
}

// Faces that fit the command's dice, for a placeholder: a d6's "4", never an "11".
export function facesExample(dice) {
  const sides = [...new Set([...String(dice || "").matchAll(/(?<![A-Za-z])d(\d+)/g)].map((m) => Number(m[1])))]
    .filter((n) => n > 0)
    .slice(0, 2);
  return sides.length
    ? `e.g. ${sides.map((n) => Math.max(1, Math.round(n * 0.6))).join(", ")}`
    : "in the order the dice were drawn";
}

// The set parts of an object: each field the player set, nothing else.
function readParts(parts) {
  const out = {};
  for (const [name, part] of parts) {
    const value = part.read();
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function build(fields, path, ctx) {
  return fields.map((f) => [f.name, control(f, path ? `${path}.${f.name}` : f.name, ctx)]);
}

// An object: open when required (or `open`), else behind "Add <name>" until the player adds it.
function objectControl(field, path, ctx, open) {
  const label = words(field.name);
  const hint = describe(field);
  let parts = null;
  const fieldset = () => {
    parts = build(field.fields, path, ctx);
    return h(
      "fieldset",
      { class: "nested", dataset: { field: path } },
      h("legend", {}, sentence(label)),
      hint ? h("small", { class: "hint" }, hint) : null,
      parts.map(([, p]) => p.el),
    );
  };
  if (field.required || open) {
    const el = fieldset();
    return { el, read: () => readParts(parts), set: (value) => setParts(parts, value) };
  }
  const slot = h("div", { class: "optional", dataset: { optional: path } });
  const add = h("button", { type: "button", class: "small", dataset: { add: path } }, `Add ${label}`);
  const show = () => {
    const inner = fieldset();
    const remove = h("button", { type: "button", class: "small", dataset: { remove: path } }, `Remove ${label}`);
    remove.addEventListener("click", () => {
      parts = null;
      inner.remove();
      add.hidden = false;
      add.focus();
    });
    inner.append(remove);
    slot.append(inner);
    add.hidden = true;
  };
  add.addEventListener("click", () => {
    show();
    slot.querySelector("input, select, textarea")?.focus();
  });
  slot.append(add);
  return {
    el: slot,
    read: () => (parts ? readParts(parts) : undefined),
    set: (value) => {
      if (!parts) show();
      setParts(parts, value);
    },
  };
}

function setParts(parts, value) {
  for (const [name, part] of parts) if (value && value[name] !== undefined) part.set?.(value[name]);
}

// One row of a list named in the plural ("rounds" -> "round"; "stock" stays).
const single = (label) => label.replace(/ies$/, "y").replace(/([^s])s$/, "$1");
const article = (noun) => (/^[aeiou]/.test(noun) ? "an" : "a");

// A list of objects, or of values picked from the state: rows added and removed one by one.
function rowsControl(field, path, ctx) {
  const label = words(field.name);
  const one = single(label);
  const shape = field.items;
  const rows = [];
  let made = 0;
  const list = h("div", { class: "rows" });
  const add = h(
    "button",
    { type: "button", class: "small", dataset: { add: path } },
    shape.fields && /s$/.test(label) ? `Add ${article(one)} ${one}` : `Add an item to the ${label}`,
  );
  const addRow = () => {
    const at = `${path}[${made++}]`;
    const entry = { at };
    let body;
    if (shape.fields) {
      entry.parts = build(shape.fields, at, ctx);
      body = entry.parts.map(([, p]) => p.el);
    } else {
      entry.part = control(
        { name: `${field.name} item`, type: shape.type, required: true, picks: shape.picks },
        at,
        ctx,
      );
      body = entry.part.el;
    }
    const title = `${one[0].toUpperCase()}${one.slice(1)} ${rows.length + 1}`;
    const row = h("fieldset", { class: "nested", dataset: { field: at, row: path } }, h("legend", {}, title), body);
    const remove = h(
      "button",
      { type: "button", class: "small", dataset: { remove: at } },
      `Remove ${one} ${rows.length + 1}`,
    );
    remove.addEventListener("click", () => {
      rows.splice(rows.indexOf(entry), 1);
      row.remove();
      add.focus();
    });
    row.append(remove);
    entry.row = row;
    rows.push(entry);
    list.append(row);
    return entry;
  };
  add.addEventListener("click", () => addRow().row.querySelector("input, select, textarea")?.focus());
  const hint = describe(field);
  const el = h(
    "div",
    { class: "field", dataset: { field: path } },
    h("span", { class: "label" }, sentence(label)),
    hint ? h("small", { class: "hint" }, hint) : null,
    list,
    add,
  );
  if (field.required) addRow();
  const readRow = (entry) => {
    if (entry.part) return entry.part.read();
    const out = readParts(entry.parts);
    // An item that may be an id or an object: an id alone is sent as the id.
    const first = shape.fields[0]?.name;
    if (shape.type.includes("string") && Object.keys(out).length === 1 && first in out) return out[first];
    return out;
  };
  return {
    el,
    read: () => (!rows.length && !field.required ? undefined : rows.map(readRow)),
    set: (values) => {
      while (rows.length < values.length) addRow();
      values.forEach((v, i) =>
        rows[i].part
          ? rows[i].part.set(v)
          : setParts(rows[i].parts, typeof v === "object" ? v : { [shape.fields[0].name]: v }),
      );
    },
  };
}

// A choice among the state's entries (`picks`), with a typed value where the rules allow one.
function pickControl(field, common, ctx) {
  const input = h("select", common);
  const free = field.picks.free
    ? field.type.includes("object")
      ? h("textarea", {
          rows: 2,
          "aria-label": `${words(field.name)}: another value (an id, or a JSON object)`,
          hidden: true,
        })
      : h("input", { type: "text", "aria-label": `${words(field.name)}: another value`, hidden: true })
    : null;
  let entries = [];
  // In a match, a player is one of the seats this page plays (ctx.plays), never another's.
  const seats = field.name === "player" && ctx.plays ? ctx.plays : null;
  const refresh = () => {
    const chosen = input.value;
    entries = pickEntries(ctx.state(), field.picks, ctx.valueOf);
    if (seats) entries = entries.filter((e) => seats(e.value));
    clear(
      input,
      h(
        "option",
        { value: "" },
        entries.length || free ? "(not set)" : seats ? "(no seat you play)" : "(none in the state now)",
      ),
      entries.map((e) => h("option", { value: String(e.value) }, e.label)),
      free ? h("option", { value: OTHER }, "(another value…)") : null,
    );
    const again = [...input.options].find((o) => o.value === chosen);
    input.value = again ? chosen : "";
    if (free) free.hidden = input.value !== OTHER;
  };
  refresh();
  ctx.refreshers.push(refresh);
  input.addEventListener("change", () => free && (free.hidden = input.value !== OTHER));
  const read = () => {
    if (input.value === "") return undefined;
    if (input.value === OTHER) {
      const text = free.value.trim();
      if (!text) return undefined;
      return text.startsWith("{")
        ? JSON.parse(text)
        : field.type.includes("integer") && numeric(text)
          ? Number(text)
          : text;
    }
    const value = entries.find((e) => String(e.value) === input.value)?.value;
    if (value === undefined) return undefined;
    return field.type.includes("integer") && numeric(String(value)) ? Number(value) : value;
  };
  const set = (value) => {
    if (entries.some((e) => String(e.value) === String(value))) input.value = String(value);
    else if (free) {
      input.value = OTHER;
      free.hidden = false;
      free.value = typeof value === "object" ? JSON.stringify(value) : String(value);
    }
  };
  if (field.name === "player" && ctx.seat) set(ctx.seat);
  return { input, extra: free, read, set };
}

// A field's label; inside a part ("effect.price" beside a row's own "price") it names the part,
// so that two fields of one row never read the same.
function fieldLabel(name, path) {
  const parents = path.split(".").slice(0, -1).map((p) => p.replace(/\[\d+\]$/, ""));
  const inner = parents.slice(1);
  return inner.length ? `${words(inner[inner.length - 1])} ${words(name)}` : words(name);
}

function scalarControl(field, path, ctx) {
  const id = nextId(path);
  const type = field.type;
  const date = field.format === "date" || (field.name === "date" && type === "string");
  const hint = describe(field, { date });
  const name = fieldLabel(field.name, path);
  const hintId = hint ? `${id}-hint` : null;
  const common = { id, name: path, "aria-describedby": hintId };
  let input;
  let read;
  let set = (value) => (input.value = typeof value === "object" ? JSON.stringify(value) : String(value));
  let extra = null;
  if (field.picks) {
    ({ input, read, set, extra } = pickControl(field, common, ctx));
  } else if (field.name === "on_roll") {
    ({ input, read, set } = checkControl(common, ctx));
  } else if (field.choices) {
    input = h(
      "select",
      common,
      h("option", { value: "" }, "(not set)"),
      field.choices.map((c) => h("option", { value: String(c) }, CHOICE_WORDS[c] ?? words(c))),
    );
    read = () => {
      if (input.value === "") return undefined;
      if (type.includes("integer") && numeric(input.value)) return Number(input.value);
      return field.choices.find((c) => String(c) === input.value);
    };
  } else if (type === "boolean") {
    input = h(
      "select",
      common,
      h("option", { value: "" }, "(not set)"),
      h("option", { value: "true" }, "yes"),
      h("option", { value: "false" }, "no"),
    );
    read = () => (input.value === "" ? undefined : input.value === "true");
  } else if (type === "integer") {
    input = h("input", {
      ...common,
      type: "number",
      inputmode: "numeric",
      min: field.minimum,
      max: field.maximum,
      step: 1,
    });
    read = () => (input.value === "" ? undefined : wholeNumber(input.value, name));
  } else if (type === "integer or string") {
    input = h("input", { ...common, type: "text" });
    read = () => (input.value === "" ? undefined : numeric(input.value) ? wholeNumber(input.value, name) : input.value);
  } else if (type === "array") {
    const faces = field.name === "faces";
    input = h("input", {
      ...common,
      type: "text",
      placeholder: faces ? `faces you rolled, ${facesExample(ctx.dice)}` : "values separated by commas, or JSON",
      class: faces ? "faces" : null,
    });
    read = () => (faces ? facesValue(input.value, name) : listValue(input.value, field.items?.type, name));
    set = (value) => (input.value = JSON.stringify(value));
  } else if (type === "object" || type === "string or object") {
    input = h("textarea", {
      ...common,
      rows: 2,
      placeholder: type === "object" ? "JSON object" : "text or JSON object",
    });
    read = () => {
      const text = input.value.trim();
      if (!text) return undefined;
      return type === "object" || text.startsWith("{") ? JSON.parse(text) : text;
    };
  } else if (date) {
    input = h("input", { ...common, type: "date" }); // its value is YYYY-MM-DD, as the API wants
    read = () => (input.value === "" ? undefined : input.value);
  } else {
    input = h("input", { ...common, type: "text", maxlength: field.max_length });
    read = () => (input.value === "" ? undefined : input.value);
  }
  if (field.required) input.setAttribute("required", "");
  const label = h(
    "label",
    { for: id },
    sentence(name),
    field.required ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null,
  );
  const help = hint ? h("small", { id: hintId, class: "hint" }, hint) : null;
  const el = h("div", { class: "field", dataset: { field: path } }, label, input, extra, help);
  if (field.picks && field.name === "player" && ctx.plays) onlySeat(el, input, ctx);
  return { el, read, set };
}

// A player the page already knows: when it plays exactly one seat the field is not shown at all
// (that seat is sent); otherwise its own seat is chosen first (pickControl).
function onlySeat(el, input, ctx) {
  const hide = () => {
    const seats = [...input.options].filter((o) => o.value !== "");
    el.hidden = seats.length === 1;
    if (el.hidden) input.value = seats[0].value;
  };
  hide();
  ctx.refreshers.push(hide);
}

function control(field, path, ctx, open = false) {
  if (isObject(field)) return objectControl(field, path, ctx, open);
  if (ctx.command === "enter_shop" && path === "stock") return stockField(field, path, ctx, rowsControl);
  if (isRows(field)) return rowsControl(field, path, ctx);
  return scalarControl(field, path, ctx);
}

// The form of one command. `send(body)` posts it and returns a promise; `preset` fields are sent
// as given and not shown; `initial` values are shown filled in (the player may change them);
// `open` names optional objects shown open; `answers` ([{label, values}]) is a required choice
// whose values join the body; `state()` is the campaign state the picks come from.
// `plays(seat)`, in a match: the seats this page plays, the only ones its player select offers.
// `dice: false`: no dice choice (the decision card has one for all its answers).
// The dice an ability of the hero rolls, from the state: its effect's dice ("1d6" for Second Wind);
// none known (no ability chosen, or one whose effect rolls no dice of its own): the neutral label.
const ABILITY_DIE = [{ sides: 0, purpose: "", label: "the ability's die" }];
function abilityDice(state, id) {
  if (id === undefined || id === null || id === "") return ABILITY_DIE;
  const abilities = state?.hero?.abilities || {};
  const ability = abilities[id] ?? Object.values(abilities).find((a) => a && a.id === id);
  const notation = ability?.effect?.dice;
  return notation ? diceOf(notation, ability.name || "ability") : ABILITY_DIE;
}

export function commandForm(
  command,
  {
    seat,
    plays = null,
    send,
    preset = {},
    initial = {},
    open = [],
    answers = null,
    state = () => ({}),
    title = null,
    submit = null,
    dice: ownDice = true,
  } = {},
) {
  // The page fills `entropy` itself, at the moment the command is sent (campaign.js).
  // The answer's values are its own: their fields are not asked again.
  const covered = new Set((answers || []).flatMap((a) => Object.keys(a.values)));
  // Faces only for a command that rolls dice (the catalogue's `dice` says which; null: none).
  const rolls = Boolean(command.dice) && !/^None\b/.test(command.dice);
  const fields = command.fields.filter(
    (f) => !(f.name in preset) && !covered.has(f.name) && f.name !== "entropy" && f.name !== "faces",
  );
  // Whose dice: a choice of its own, unless its card has one for all its answers (decisions.js).
  // A command that uses an ability rolls what the ability chosen rolls (abilityDice).
  const byAbility = command.fields.some((f) => f.name === "ability");
  const planned = byAbility ? ABILITY_DIE : diceFromText(command.dice);
  const dice = ownDice && rolls && command.fields.some((f) => f.name === "faces") ? diceChoice(planned) : null;
  let parts = [];
  const ctx = {
    command: command.name,
    seat,
    plays,
    dice: command.dice,
    state,
    refreshers: [],
    valueOf: (name) => (name in preset ? preset[name] : parts.find(([n]) => n === name)?.[1].read()),
  };
  parts = fields.map((f) => [f.name, control(f, f.name, ctx, open.includes(f.name))]);
  if (dice && byAbility) ctx.refreshers.push(() => dice.plan(abilityDice(state(), ctx.valueOf("ability"))));
  for (const [name, part] of parts) if (initial[name] !== undefined) part.set?.(initial[name]);
  // The seat (or an initial value) was set after the fields that depend on it were filled in:
  // fill them again, so that a piece is among the pieces of the player already chosen.
  ctx.refreshers.forEach((refresh) => refresh());
  const answerId = nextId(`${command.name}-answer`);
  const answer = answers
    ? h(
        "select",
        { id: answerId, name: "answer", required: true },
        h("option", { value: "" }, "(choose)"),
        answers.map((a, i) => h("option", { value: String(i) }, a.label)),
      )
    : null;
  const error = h("p", { class: "error", role: "alert" });
  const name = commandTitle(command.name);
  const form = h(
    "form",
    { class: "command", dataset: { command: command.name } },
    h("h4", {}, title || name),
    command.summary ? h("p", { class: "hint" }, command.summary) : null,
    rolls ? h("p", { class: "hint" }, `Dice: ${command.dice.replace(/`([^`]*)`/g, (_, name) => words(name))}`) : null,
    answer ? h("div", { class: "field" }, h("label", { for: answerId }, "Answer"), answer) : null,
    parts.map(([, p]) => p.el),
    dice?.el,
    h("button", { type: "submit" }, submit || `Send: ${name}`),
    error,
  );
  form.addEventListener("change", () => ctx.refreshers.forEach((refresh) => refresh()));
  form.refresh = () => ctx.refreshers.forEach((refresh) => refresh());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    let body;
    try {
      body = {
        type: command.name,
        ...preset,
        ...(answer ? answers[Number(answer.value)].values : {}),
        ...readParts(parts),
      };
      const faces = dice?.read();
      if (faces !== undefined) body.faces = faces;
    } catch (problem) {
      error.textContent = `Could not read the form: ${problem.message}`;
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await send(body);
    } catch (problem) {
      error.textContent = dice?.retry(problem) || problem.shown ? "" : explain(problem);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

// A problem+json answer in one sentence: the rule, the detail and the fields' messages, each once
// (a 422's detail already names its one field: "partner: name the partner…").
export function explain(problem) {
  const p = problem.problem || {};
  const detail = String(p.detail || problem.message || "");
  const bits = [];
  if (p.rule && !detail.includes(p.rule)) bits.push(`[${p.rule}]`);
  if (detail) bits.push(detail);
  if (p.errors && typeof p.errors === "object") {
    const more = Object.entries(p.errors)
      .map(
        ([k, v]) =>
          `${k}: ${Array.isArray(v) && v.every((m) => typeof m === "string") ? v.join(" ") : JSON.stringify(v)}`,
      )
      .filter((line) => !detail.includes(line));
    if (more.length) bits.push(more.join("; "));
  }
  return bits.join(" ");
}
