// The play panel of a campaign page: the pending decision and its answers, and the command forms.
// Each function takes the campaign page (campaign.js) and reads what it needs from it.
import { clear, h } from "./dom.js";
import { commandForm, explain } from "./play.js";
import { toast } from "./ui.js";

// The pending decision: what it asks, and an answer for each option the rules allow.
export function showPending(page, pending, past) {
  page.pending.hidden = !pending;
  if (!pending) return;
  const forMe = page.who.canPlay && !past && (!page.who.seat || !pending.who || pending.who === page.who.seat || page.head.game === "quest-calendar");
  const options = (pending.options || []).map(String);
  const context = pending.context || {};
  const quick = [];
  const forms = [];
  for (const command of page.catalogue.filter((c) => (pending.commands || []).includes(c.name))) {
    // what the decision already says: who answers, and any field its context names (the roll…)
    const preset = {};
    for (const field of command.fields) {
      if (field.name === "player" && pending.who && page.head.game === "calendar-board") preset.player = pending.who;
      else if (field.name in context && field.name !== "faces") preset[field.name] = context[field.name];
    }
    const choice = command.fields.find((f) => f.choices && !(f.name in preset) && options.some((o) => f.choices.map(String).includes(o)));
    const open = command.fields.filter((f) => f.required && f !== choice && !(f.name in preset));
    const answer = (extra) => () => page.send({ type: command.name, ...preset, ...extra }).catch((error) => toast(explain(error), true));
    if (open.length) forms.push(commandForm(command, { seat: page.who.seat, preset, send: (body) => page.send(body) }));
    else if (choice) {
      for (const option of options.filter((o) => choice.choices.map(String).includes(o))) {
        const value = choice.choices.find((c) => String(c) === option);
        quick.push(h("button", { type: "button", class: "choice", dataset: { command: command.name, option }, onclick: answer({ [choice.name]: value }) }, option.replaceAll("_", " ")));
      }
    } else quick.push(h("button", { type: "button", class: "choice", dataset: { command: command.name }, onclick: answer({}) }, command.name.replaceAll("_", " ")));
  }
  clear(page.pending,
    h("h3", {}, "A decision is pending"),
    h("p", { class: "question" }, `${pending.decision.replaceAll("_", " ")}${pending.who ? `: ${pending.who} decides` : ""}${pending.rule ? ` (${pending.rule})` : ""}`),
    Object.keys(context).length ? h("p", { class: "hint" }, Object.entries(context).map(([k, v]) => `${k.replaceAll("_", " ")} ${typeof v === "object" ? JSON.stringify(v) : v}`).join(" · ")) : null,
    h("p", {}, `Options: ${options.join(", ") || "see the commands"}`),
    forMe ? [h("div", { class: "choices", role: "group", "aria-label": "Answers" }, quick), forms] : null);
}

// The play panel: a command chosen from the catalogue and its form, and the roll form.
export function buildPlay(page) {
  const select = h("select", { id: "command-select" }, h("option", { value: "" }, "Choose a command…"), page.catalogue.map((c) => h("option", { value: c.name }, c.name.replaceAll("_", " "))));
  const slot = h("div", { class: "form-slot" });
  select.addEventListener("change", () => {
    const command = page.catalogue.find((c) => c.name === select.value);
    clear(slot, command ? commandForm(command, { seat: page.who.seat, send: (body) => page.send(body) }) : null);
    slot.querySelector("input, select, textarea")?.focus();
  });
  const dice = h("input", { id: "roll-dice", name: "dice", required: true, placeholder: "2d20kh1+3" });
  const purpose = h("input", { id: "roll-purpose", name: "purpose", required: true, placeholder: "what it is for" });
  const faces = h("input", { id: "roll-faces", name: "faces", placeholder: "leave empty for server dice", class: "faces" });
  const rollError = h("p", { class: "error", role: "alert" });
  const rollForm = h("form", { class: "command roll-form" },
    h("h4", {}, "Roll dice"),
    h("div", { class: "field" }, h("label", { for: "roll-dice" }, "Dice"), dice),
    h("div", { class: "field" }, h("label", { for: "roll-purpose" }, "Purpose"), purpose),
    h("div", { class: "field" }, h("label", { for: "roll-faces" }, "Faces rolled by hand (optional, e.g. 3, 17)"), faces),
    h("button", { type: "submit" }, "Roll"), rollError);
  rollForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    rollError.textContent = "";
    const body = { dice: dice.value, purpose: purpose.value };
    if (faces.value.trim()) body.faces = faces.value.trim().startsWith("[") ? JSON.parse(faces.value) : faces.value.split(",").map((f) => Number(f.trim()));
    try {
      const roll = await page.append("rolls", body);
      toast(`Rolled ${roll.notation}: ${roll.total}`);
      await page.changed();
    } catch (error) {
      rollError.textContent = explain(error);
    }
  });
  clear(page.play, h("h3", {}, "Play"),
    h("div", { class: "field" }, h("label", { for: "command-select" }, "Command"), select), slot, rollForm);
}
