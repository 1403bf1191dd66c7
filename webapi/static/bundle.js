// @ts-check
// /app/verify: a bundle file checked entirely in this browser, with no request to any server.
import { parse } from "./canon.js";
import { bundleCheckpoints } from "./checkpoints.js";
import { clear, h } from "./dom.js";
import { showRolls, tally } from "./rolls.js";
import { checkChain, diceInForce, nonceProblems, rollsOf, seedsFromEvents } from "./verify.js";

export function verifyPage(main) {
  const input = h("input", { type: "file", id: "bundle-file", accept: ".json,application/json" });
  const out = h("div", { class: "bundle-result", "aria-live": "polite" });
  const zone = h("div", { class: "drop", tabindex: "-1" }, "…or drop the bundle file here.");
  const run = async (file) => {
    clear(out, h("p", { class: "muted" }, `Checking ${file.name}…`));
    try {
      clear(out, await verifyBundle(parse(await file.text())));
    } catch (error) {
      clear(
        out,
        h(
          "p",
          { class: "error", dataset: { bundle: "unreadable" } },
          `Not a bundle this page can read: ${error.message}`,
        ),
      );
    }
  };
  input.addEventListener("change", () => input.files[0] && run(input.files[0]));
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    const file = event.dataTransfer.files[0];
    if (file) run(file);
  });
  clear(
    main,
    h(
      "section",
      { class: "card" },
      h("h2", {}, "Verify a bundle"),
      h(
        "p",
        {},
        "A bundle is a campaign's whole log with its revealed seeds " +
          "(“Download the bundle” on a campaign's page). This page checks " +
          "it here, with WebCrypto: every event's hash, every link of the " +
          "chain, the head, and every revealed server roll derived again " +
          "from its seed. Nothing is sent anywhere.",
      ),
      h("div", { class: "field" }, h("label", { for: "bundle-file" }, "Bundle file"), input),
      zone,
      out,
    ),
  );
}

export async function verifyBundle(bundle) {
  if (bundle.format !== "questlog-bundle/1") throw new Error(`unknown format ${JSON.stringify(bundle.format)}`);
  const events = bundle.events.slice().sort((a, b) => a.version - b.version);
  const chain = await checkChain(bundle.campaign_id, events, "0".repeat(64));
  const last = events.at(-1);
  const headOk =
    chain.ok && last && Number(last.version) === Number(bundle.head.version) && last.hash === bundle.head.hash;
  const seeds = { ...seedsFromEvents(events), ...(bundle.revealed_seeds || {}) };
  const rolls = events.flatMap((e) => rollsOf(e).map((r) => ({ ...r, undone: e.undone, undone_by: e.undone_by })));
  const list = h("ul", { class: "rolls", "aria-label": "Rolls in the bundle" });
  const gaps = nonceProblems(events);
  const verdict = chain.ok && headOk ? "ok" : "broken";
  const box = h(
    "div",
    {},
    h(
      "p",
      { class: `chain ${verdict}`, dataset: { chain: verdict } },
      chain.ok
        ? headOk
          ? `Chain intact: ${chain.checked} events, every hash recomputed, ` +
            `head ${bundle.head.hash.slice(0, 12)}… at version ${bundle.head.version}.`
          : "The events do not end at the bundle's head."
        : `Chain broken at version ${chain.version}: ${chain.why}.`,
    ),
    await bundleCheckpoints(bundle, events),
    gaps.length === 0
      ? h(
          "p",
          { class: "nonces ok", dataset: { nonces: "ok" } },
          "Nonces in sequence: no server roll is missing from the log.",
        )
      : h(
          "div",
          { class: "nonces broken", dataset: { nonces: "broken" } },
          h("p", {}, "Server rolls are missing from the log (a nonce is skipped or out of order):"),
          h("ul", {}, ...gaps.map((gap) => h("li", {}, `version ${gap.version}: ${gap.why}`))),
        ),
    h("p", { class: "muted" }, `Campaign ${bundle.campaign_id}, exported ${bundle.exported_at}.`),
    list,
  );
  const verdicts = await showRolls(list, rolls.reverse(), seeds, diceInForce(events));
  box.insertBefore(h("p", { class: "tally" }, `Rolls: ${tally(verdicts)}.`), list);
  return box;
}
