// @ts-check
// The campaign page's card of rolls (campaign.js): the rolls of a window of versions at a time,
// newest first, each with the verdict this browser computes (rolls.js), and the charts drawn
// from the rolls loaded. Each function takes the campaign page.
import { get } from "./api.js";
import { dayCharts } from "./figures.js";
import { explain } from "./problems.js";
import { showRolls, tally } from "./rolls.js";
import { clear, h } from "./dom.js";

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

const ROLL_WINDOW = 200; // versions of rolls loaded at a time, newest first

// The newest window again; the list shown is swapped in one step once the new one is ready, so
// a reader never sees it empty while a refresh is under way.
/** @param {CampaignPage} page */
export async function reloadRolls(page) {
  page.rollsBelow = page.shown; // in the past view, the rolls up to the version shown only
  page.verdicts = [];
  page.loadedRolls = [];
  await loadRolls(page, true);
}

// Rolls of the versions below `rollsBelow`, a window at a time, newest first.
/** @param {CampaignPage} page */
export async function loadRolls(page, fresh = false) {
  const hi = page.rollsBelow;
  const lo = Math.max(0, hi - ROLL_WINDOW);
  const rolls = [];
  let after = lo;
  for (;;) {
    const answer = await get(`/campaigns/${page.id}/rolls?after=${after}&limit=200`);
    rolls.push(...answer.items.filter((r) => Number(r.version) <= hi));
    if (answer.next === null || answer.next === undefined || Number(answer.next) >= hi) break;
    after = answer.next;
  }
  page.rollsBelow = lo;
  page.moreRolls.hidden = lo === 0;
  const target = fresh ? h("ul") : page.rollList;
  page.verdicts.push(...(await showRolls(target, rolls.reverse())));
  if (fresh) page.rollList.replaceChildren(...target.childNodes);
  page.rollTally.textContent = `Verdicts computed in this browser: ${tally(page.verdicts)}.`;
  page.loadedRolls.push(...rolls);
}

/** @param {CampaignPage} page */
export async function showCharts(page) {
  try {
    clear(page.charts, await dayCharts(page.id, page.loadedRolls));
  } catch (error) {
    clear(page.charts, h("p", { class: "muted" }, `Charts unavailable: ${explain(error)}`));
  }
}
