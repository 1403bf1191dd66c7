// @ts-check
// "Export this evening": what was played on a range of pages (Quest Calendar) or of days and nights
// (The Calendar Board) as a file the table keeps, Markdown or HTML, from GET /campaigns/{id}/evening
// (docs/table-page.md, "Exporting an evening"). The range starts on the page or night being
// played; the file comes by fetch with the bearer token, then a Blob download.
import { headers } from "./api.js";
import { clear, h } from "./dom.js";

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

// The range inputs of each game, prefilled from the state: the page date, or the day and night
// being played (during a night its number; by day the night to come, after `nights` of them).
function rangeFields(game, state) {
  if (game === "quest-calendar") {
    const today = state?.page?.date || "";
    return [
      { name: "from_date", label: "From the page of", type: "date", value: today },
      { name: "to_date", label: "to the page of", type: "date", value: today },
    ];
  }
  const night = state?.night?.number ?? (Number(state?.nights) || 0) + 1;
  return [
    { name: "from_night", label: "From day and night", type: "number", value: night },
    { name: "to_night", label: "to day and night", type: "number", value: night },
  ];
}

// The attachment's file name from Content-Disposition, or a plain one.
function fileName(response, fallback) {
  const found = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  return found ? found[1] : fallback;
}

// What a refusal says: each parameter the server named, with its messages.
async function refusal(response) {
  try {
    const problem = await response.json();
    const errors = problem.errors?.query || problem.errors || {};
    const named = Object.entries(errors).map(([field, messages]) => `${field}: ${[messages].flat().join("; ")}`);
    return named.join(" · ") || problem.detail || `HTTP ${response.status}`;
  } catch {
    return `HTTP ${response.status}`;
  }
}

/** @param {CampaignPage} campaignPage */
export function eveningExport(campaignPage) {
  const { id } = campaignPage;
  const { game, state } = campaignPage.head;
  const inputs = rangeFields(game, state).map((field) =>
    h("input", {
      id: `evening-${field.name}`,
      name: field.name,
      type: field.type,
      value: field.value,
      min: field.type === "number" ? 1 : null,
      required: true,
      // typed in by the user: left as typed when the state moves on
      oninput: (event) => (event.target.dataset.typed = "true"),
    }),
  );
  const status = h("p", { class: "evening-status", role: "status", "aria-live": "polite" });
  const download = async (format) => {
    const query = new URLSearchParams({ format });
    for (const input of inputs) if (input.value) query.set(input.name, input.value);
    clear(status, `Preparing the ${format === "html" ? "HTML" : "Markdown"} file…`);
    try {
      const accept = format === "html" ? "text/html" : "text/markdown";
      const response = await fetch(`/campaigns/${id}/evening?${query}`, { headers: headers({ Accept: accept }) });
      if (!response.ok) {
        clear(status, h("span", { class: "error", dataset: { eveningError: "" } }, await refusal(response)));
        return;
      }
      const name = fileName(response, `questlog-${id}-evening.${format === "html" ? "html" : "md"}`);
      const url = URL.createObjectURL(await response.blob());
      const a = h("a", { href: url, download: name });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      clear(status, `Downloaded ${name}.`);
    } catch (error) {
      clear(status, h("span", { class: "error", dataset: { eveningError: "" } }, `No export: ${error.message}`));
    }
  };
  const button = (format, label) =>
    h(
      "button",
      { type: "button", class: "small", dataset: { eveningFormat: format }, onclick: () => download(format) },
      label,
    );
  const form = h(
    "form",
    { class: "evening inline", "aria-label": "Export this evening", onsubmit: (event) => event.preventDefault() },
    h(
      "fieldset",
      {},
      h("legend", {}, "Export this evening"),
      h(
        "div",
        { class: "confirm" },
        rangeFields(game, state).map((field, i) => [
          h("label", { for: `evening-${field.name}` }, field.label),
          inputs[i],
        ]),
        button("markdown", "Markdown"),
        button("html", "HTML"),
      ),
      status,
    ),
  );
  // Each refresh of the page (campaign.js): the range follows the state (a page begun after the
  // campaign opened fills the dates left empty), except in an input the user typed in.
  form.refresh = (now) => {
    rangeFields(game, now).forEach((field, i) => {
      const input = inputs[i];
      if (input.dataset.typed !== "true" && field.value !== "" && input.value !== String(field.value))
        input.value = String(field.value);
    });
  };
  return form;
}
