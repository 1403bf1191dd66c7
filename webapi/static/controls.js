// @ts-check
// The controls of the command forms (play.js), one per field of a command's schema: an object
// behind "Add <name>", rows added and removed one by one, a choice among the state's entries
// (`picks`), and a scalar's input, select or textarea. Each is `{el, read(), set(value)}`:
// `read()` is what the player chose (undefined: left out), `set(value)` fills it in.
import { clear, h } from "./dom.js";
import { stockField } from "./catalogue.js";
import { checkControl } from "./pagechecks.js";
import { pickEntries } from "./picks.js";
import {
  CHOICE_WORDS,
  article,
  describe,
  facesExample,
  facesValue,
  fieldLabel,
  isObject,
  isRows,
  listValue,
  numeric,
  sentence,
  single,
  wholeNumber,
  words,
} from "./fieldtext.js";

let uid = 0;
export const nextId = (path) => `f-${path.replace(/[^a-zA-Z0-9_-]/g, "-")}-${++uid}`;
const OTHER = "…another…"; // the option of a value typed by hand (no id in the state looks like it)

// The set parts of an object: each field the player set, nothing else.
export function readParts(parts) {
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
    /** @type {HTMLElement} */ (slot.querySelector("input, select, textarea"))?.focus();
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
  /** @type {(value: any) => unknown} */
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

export function control(field, path, ctx, open = false) {
  if (isObject(field)) return objectControl(field, path, ctx, open);
  if (ctx.command === "enter_shop" && path === "stock") return stockField(field, path, ctx, rowsControl);
  if (isRows(field)) return rowsControl(field, path, ctx);
  return scalarControl(field, path, ctx);
}
