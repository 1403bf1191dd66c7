// Forms generated from the command schemas of GET /commands: one control per field, nested
// objects as fieldsets, lists of objects as groups that can be added and removed.
import { h } from "./dom.js";

let uid = 0;
const nextId = (name) => `f-${name.replace(/[^a-zA-Z0-9_-]/g, "-")}-${++uid}`;

function describe(field) {
  const bits = [];
  if (field.description) bits.push(field.description);
  if (field.minimum !== undefined || field.maximum !== undefined) bits.push(`range ${field.minimum ?? "…"}–${field.maximum ?? "…"}`);
  if (field.default !== undefined) bits.push(`default ${JSON.stringify(field.default)}`);
  return bits.join(" · ");
}

// Parse a free-text list: JSON when it starts with '[', else values separated by commas.
function listValue(text, itemType) {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (trimmed.startsWith("[")) return JSON.parse(trimmed);
  return trimmed.split(",").map((part) => {
    const value = part.trim();
    if (value.startsWith("{")) return JSON.parse(value);
    return itemType === "string" || Number.isNaN(Number(value)) ? value : Number(value);
  });
}

// One field: returns {el, read()} where read() gives the value or undefined (left out).
function control(field, seat) {
  const id = nextId(field.name);
  const label = h("label", { for: id }, field.name.replaceAll("_", " "), field.required ? h("span", { class: "req", "aria-hidden": "true" }, " *") : null);
  const hint = describe(field);
  const hintId = hint ? `${id}-hint` : null;
  const help = hint ? h("small", { id: hintId, class: "hint" }, hint) : null;
  const type = field.type;

  if (type === "object" && field.fields) {
    const parts = field.fields.map((f) => control(f, seat));
    const el = h("fieldset", { class: "nested" }, h("legend", {}, field.name.replaceAll("_", " ")), help, parts.map((p) => p.el));
    return {
      el,
      read() {
        const out = {};
        for (const [k, p] of parts.entries()) {
          const v = p.read();
          if (v !== undefined) out[field.fields[k].name] = v;
        }
        return Object.keys(out).length || field.required ? out : undefined;
      },
    };
  }
  if (type === "array" && field.items?.fields) {
    const rows = [];
    const list = h("div", { class: "rows" });
    const add = () => {
      const parts = field.items.fields.map((f) => control(f, seat));
      const row = h("fieldset", { class: "nested" }, h("legend", {}, `${field.name.replaceAll("_", " ")} ${rows.length + 1}`), parts.map((p) => p.el));
      const entry = { row, parts };
      row.append(h("button", { type: "button", class: "small", onclick: () => { rows.splice(rows.indexOf(entry), 1); row.remove(); } }, "Remove"));
      rows.push(entry);
      list.append(row);
    };
    const el = h("div", { class: "field" }, h("span", { class: "label" }, field.name.replaceAll("_", " ")), help, list, h("button", { type: "button", class: "small", onclick: add }, `Add ${field.name.replaceAll("_", " ")}`));
    if (field.required) add();
    return {
      el,
      read() {
        if (!rows.length && !field.required) return undefined;
        return rows.map(({ parts }) => {
          const out = {};
          for (const [k, p] of parts.entries()) {
            const v = p.read();
            if (v !== undefined) out[field.items.fields[k].name] = v;
          }
          return out;
        });
      },
    };
  }
  let input;
  let read;
  const common = { id, name: field.name, "aria-describedby": hintId };
  if (field.choices) {
    input = h("select", common, field.required ? null : h("option", { value: "" }, "(default)"), field.choices.map((c) => h("option", { value: String(c) }, String(c))));
    read = () => {
      if (input.value === "") return undefined;
      const original = field.choices.find((c) => String(c) === input.value);
      return type === "integer" ? Number(input.value) : original;
    };
    if (field.name === "player" && seat && field.choices.map(String).includes(seat)) input.value = seat;
  } else if (type === "boolean") {
    input = h("select", common, h("option", { value: "" }, "(default)"), h("option", { value: "true" }, "yes"), h("option", { value: "false" }, "no"));
    read = () => (input.value === "" ? undefined : input.value === "true");
  } else if (type === "integer") {
    input = h("input", { ...common, type: "number", inputmode: "numeric", min: field.minimum, max: field.maximum, step: 1 });
    read = () => (input.value === "" ? undefined : Number(input.value));
  } else if (type === "integer or string") {
    input = h("input", { ...common, type: "text" });
    read = () => (input.value === "" ? undefined : /^-?\d+$/.test(input.value) ? Number(input.value) : input.value);
  } else if (type === "array") {
    const placeholder = field.name === "faces" ? "faces you rolled, e.g. 11, 6" : "values separated by commas, or JSON";
    input = h("input", { ...common, type: "text", placeholder, class: field.name === "faces" ? "faces" : null });
    read = () => listValue(input.value, field.items?.type);
  } else if (type === "object" || type === "string or object") {
    input = h("textarea", { ...common, rows: 2, placeholder: type === "object" ? "JSON object" : "text or JSON object" });
    read = () => {
      const text = input.value.trim();
      if (!text) return undefined;
      return type === "object" || text.startsWith("{") ? JSON.parse(text) : text;
    };
  } else {
    input = h("input", { ...common, type: "text", maxlength: field.max_length });
    if (field.name === "player" && seat) input.value = seat;
    read = () => (input.value === "" ? undefined : input.value);
  }
  if (field.required) input.setAttribute("required", "");
  return { el: h("div", { class: "field" }, label, input, help), read };
}

// The form of one command; `send(body)` posts it and returns a promise.
export function commandForm(command, { seat, send, preset = {} }) {
  // The page fills `entropy` itself, at the moment the command is sent (campaign.js).
  const fields = command.fields.filter((f) => !(f.name in preset) && f.name !== "entropy");
  const parts = fields.map((f) => control(f, seat));
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "command", dataset: { command: command.name } },
    h("h4", {}, command.name.replaceAll("_", " ")),
    command.summary ? h("p", { class: "hint" }, command.summary) : null,
    command.dice && command.dice !== "None." ? h("p", { class: "hint" }, `Dice: ${command.dice}`) : null,
    parts.map((p) => p.el),
    h("button", { type: "submit" }, `Send ${command.name.replaceAll("_", " ")}`),
    error,
  );
  form.addEventListener("submit", async (submit) => {
    submit.preventDefault();
    error.textContent = "";
    const body = { type: command.name, ...preset };
    try {
      for (const [k, p] of parts.entries()) {
        const v = p.read();
        if (v !== undefined) body[fields[k].name] = v;
      }
    } catch (problem) {
      error.textContent = `Could not read the form: ${problem.message}`;
      return;
    }
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await send(body);
    } catch (problem) {
      error.textContent = explain(problem);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

// A problem+json answer in one sentence: the rule, the detail and the fields' messages.
export function explain(problem) {
  const p = problem.problem || {};
  const bits = [];
  if (p.rule) bits.push(`[${p.rule}]`);
  bits.push(p.detail || problem.message);
  if (p.errors) bits.push(Object.entries(p.errors).map(([k, v]) => `${k}: ${Array.isArray(v) && v.every((m) => typeof m === "string") ? v.join(" ") : JSON.stringify(v)}`).join("; "));
  return bits.join(" ");
}
