// @ts-check
// The known items (GET /library/items): the rulebook's and those the group added, each with what
// it does in words, and the words of the hero sheet's choices. The shop's stock field offers
// them with one price per line (stockField, called by controls.js for enter_shop's stock); an item
// typed in full there can be added to the group's list.
import { get, post } from "./api.js";
import { clear, h } from "./dom.js";

let cached = null;

// GET /library/items, once per page (again after the group adds one); none if it cannot be read.
export function knownItems({ fresh = false } = {}) {
  if (!cached || fresh)
    cached = get("/library/items").catch(() => ({
      items: [],
      words: { traits: [], usages: [], contexts: [], item_kinds: [], effect_kinds: [], conditions: [] },
    }));
  return cached;
}

// Add an item to the group's list (POST /library/items); the list is read again after.
export async function addKnownItem(item) {
  const added = await post("/library/items", { item });
  await knownItems({ fresh: true });
  return added;
}

// An item's option label: its name and what it does.
export const itemLabel = (entry) =>
  `${entry.item.name || entry.id} — ${entry.words}${entry.source === "group" ? " (the group's)" : ""}`;

let uid = 0;
const nextId = (stem) => `${stem}-${++uid}`;

// A select of the known items ("" while none is chosen); fill(entries) puts them in.
export function itemSelect(id, blank = "(choose an item)") {
  const el = h("select", { id }, h("option", { value: "" }, blank));
  const fill = (entries) => {
    clear(
      el,
      h("option", { value: "" }, blank),
      ["rulebook", "group"].map((source) => {
        const some = entries.filter((e) => e.source === source);
        if (!some.length) return null;
        return h(
          "optgroup",
          { label: source === "rulebook" ? "The rulebook's items" : "The group's items" },
          some.map((e) => h("option", { value: e.id }, itemLabel(e))),
        );
      }),
    );
  };
  return { el, fill };
}

// One stock line: the item (named and said in words), its one price and how many.
function stockLine(entry, onRemove) {
  const priceId = nextId("stock-price");
  const quantityId = nextId("stock-quantity");
  const price = h("input", { id: priceId, type: "number", min: 0, max: 1000000, step: 1, required: true });
  if (entry.item.price !== undefined) price.value = String(entry.item.price);
  const quantity = h("input", {
    id: quantityId,
    type: "number",
    min: 0,
    max: 10000,
    step: 1,
    placeholder: "as the house rule says",
  });
  const name = entry.item.name || entry.id;
  const row = h(
    "li",
    { class: "stock-line", dataset: { item: entry.id } },
    h("span", { class: "stock-item" }, h("strong", {}, name), h("small", { class: "hint" }, entry.words)),
    h("span", { class: "field" }, h("label", { for: priceId }, `Price of ${name} (credits)`), price),
    h("span", { class: "field" }, h("label", { for: quantityId }, "How many (optional)"), quantity),
    h("button", { type: "button", class: "small", onclick: () => onRemove(row) }, `Remove ${name}`),
  );
  // The item as the shop sells it: its own price is the line's, so it is not sent twice.
  const item = { ...entry.item };
  delete item.price;
  const read = () => {
    if (!/^\d+$/.test(price.value.trim())) throw new Error(`Price of ${name}: a whole number of credits is needed`);
    const line = { item, price: Number(price.value) };
    if (quantity.value.trim() !== "") line.quantity = Number(quantity.value);
    return line;
  };
  return { row, read };
}

// Rows of the generic form that hold nothing at all (the empty row a required list starts with).
const blank = (row) => !row || (!row.item?.id && row.price === undefined && row.quantity === undefined);

// The shop's stock (enter_shop's `stock`): lines picked from the known items, then any typed in
// full in the form's own rows control (`rows(field, path, ctx)`, controls.js's), which starts with no
// row here. read() gives both, in that order.
export function stockField(field, path, ctx, rows) {
  const generic = rows({ ...field, required: false }, path, ctx);
  const pickId = nextId("stock-pick");
  const pick = itemSelect(pickId);
  const lines = [];
  const list = h("ol", { class: "stock-lines", "aria-label": "Stock from the known items" });
  const note = h("p", { class: "hint", role: "status" });
  const remove = (row) => {
    lines.splice(lines.findIndex((l) => l.row === row), 1);
    row.remove();
    pick.el.focus();
  };
  let entries = [];
  const add = h("button", { type: "button", class: "small", onclick: () => {
    const entry = entries.find((e) => e.id === pick.el.value);
    if (!entry) {
      note.textContent = "Choose an item first.";
      return;
    }
    note.textContent = "";
    const line = stockLine(entry, remove);
    lines.push(line);
    list.append(line.row);
    line.row.querySelector("input").focus();
  } }, "Add to the stock");
  knownItems().then((known) => {
    entries = known.items;
    pick.fill(entries);
  });
  const share = h("button", { type: "button", class: "small", onclick: async () => {
    const typed = (generic.read() || []).filter((row) => !blank(row)).map((row) => row.item);
    if (!typed.length) {
      note.textContent = "No item is typed below.";
      return;
    }
    const said = [];
    for (const item of typed) {
      try {
        await addKnownItem(item);
        said.push(`${item.name || item.id} is on the group's list now`);
      } catch (problem) {
        said.push(`${item.name || item.id || "an item"}: ${problem.message}`);
      }
    }
    entries = (await knownItems()).items;
    pick.fill(entries);
    note.textContent = `${said.join("; ")}.`;
  } }, "Add the items typed below to the group's list");
  const el = h(
    "div",
    { class: "stock-field" },
    h(
      "fieldset",
      { class: "nested stock-known" },
      h("legend", {}, "Stock from the known items (one price per line)"),
      h("div", { class: "field" }, h("label", { for: pickId }, "Item"), pick.el),
      add,
      list,
    ),
    h("p", { class: "hint" }, "Or type an item in full:"),
    generic.el,
    share,
    note,
  );
  return {
    el,
    read: () => {
      const typed = (generic.read() || []).filter((row) => !blank(row));
      return [...lines.map((l) => l.read()), ...typed];
    },
    set: generic.set,
  };
}
