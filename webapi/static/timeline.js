// @ts-check
// The timeline: every event newest first, with the patch of what it changed (GET /replay), the
// rollbacks and what they undid, forks, and the chain checked over the loaded events.
import { get } from "./api.js";
import { brief, h } from "./dom.js";
import { heading } from "./headings.js";
import { checkChain } from "./verify.js";

export const PAGE = 50;

function change(op) {
  const path = op.path.replace(/^\//, "").replaceAll("/", " › ");
  if (op.op === "remove") return h("li", { class: "op remove" }, `${path} removed`);
  return h("li", { class: `op ${op.op}` }, `${path}: `, h("code", {}, brief(op.value, 80)));
}

// The event in one line of English: the server's `summary` (computed when the event is read), else
// the page's own words, for a server that does not send one yet.
// An actor ("name#token-id", as the hash covers it) by the name a person gave: a token the server
// named for an invitation or a share link says so; the whole actor stays in the title.
/**
 * @param {string} actor
 * @returns {string}
 */
export function actorName(actor) {
  const name = String(actor).split("#")[0];
  if (/^invite-/.test(name)) return "an invited member";
  if (/^share-/.test(name)) return "a viewer link";
  return name || String(actor);
}

/**
 * @param {import("./api.js").LoggedEvent} event
 * @returns {string}
 */
export function eventSummary(event) {
  if (typeof event.summary === "string" && event.summary) return event.summary;
  return localSummary(event);
}

function localSummary(event) {
  const d = event.data || {};
  switch (event.type) {
    case "questlog.RolledBack":
      return (
        `rolled back to version ${d.to_version}: “${d.reason}”` +
        `${d.actor ? ` by ${actorName(d.actor)}` : ""}; undid ` +
        `${d.undone_versions?.length ?? 0} event(s)` +
        `${d.undone_versions?.length ? ` (${d.undone_versions[0]}–${d.undone_versions.at(-1)})` : ""}` +
        `${d.undone_rolls?.length ? ` and rolls ${d.undone_rolls.join(", ")}` : ""}` +
        `${d.flagged ? " (flagged: server rolls undone)" : ""}` +
        `${d.proposal_id ? " by agreed proposal" : ""}`
      );
    case "questlog.RollbackProposed":
      return (
        `proposal to roll back to version ${d.to_version}: “${d.reason}” ` +
        `by ${d.proposer}; needs ${(d.players || []).join(", ")}`
      );
    case "questlog.RollbackApproved":
      return `${d.player} agreed to the rollback`;
    case "questlog.CampaignCreated":
      return d.origin
        ? `forked from ${d.origin.campaign_id} at version ${d.origin.version}`
        : `campaign “${d.name}” started (${d.game})`;
    case "questlog.SeedRotated":
      return `seed revealed (${String(d.revealed_seed).slice(0, 12)}…) and a new one committed`;
    case "questlog.CampaignImported":
      return `imported from a bundle ending at version ${d.bundle_head?.version}; a new seed committed on this host`;
    case "questlog.ClientSeedChanged":
      return `client seed set to “${d.client_seed}”`;
    case "questlog.HouseRuleConfigured":
      return `house rule ${d.key}: ${brief(d.old_value, 30)} → ${brief(d.new_value, 30)}`;
    default:
      if (d.command)
        return `${d.command.type}${d.details && Object.keys(d.details).length ? `: ${brief(d.details, 100)}` : ""}`;
      return d.purpose || "";
  }
}

const AGREEING = new Set(["questlog.RollbackProposed", "questlog.RollbackApproved"]);

// One event of the timeline; `actions(event, mid)` gives the buttons the caller may use on it
// (`mid`: the event is in the middle of a command, where no rollback or fork may start).
export function eventElement(item, actions, mid = false, moment = null) {
  const { event, patch } = item;
  // A rollback's proposal and agreements fall in the range the rollback they led to undoes: they
  // were carried out by it, not cancelled, so they are not dimmed as undone.
  const carried = event.undone && AGREEING.has(event.type);
  const undone = event.undone && !carried;
  // a roll the event's summary already tells is not told again; a roll's own summary when it has one
  const rolls = event.summary
    ? []
    : (event.data?.rolls || []).map(
        (r) =>
          r.summary ||
          `${r.roll_id} ${r.purpose}: ${r.notation} [${r.dice.map((d) => d.face).join(", ")}] = ${r.total}`,
      );
  const raw = { ...event };
  delete raw.summary;
  return h(
    "li",
    {
      class:
        `event${undone ? " undone" : ""}${carried ? " carried-out" : ""}` +
        `${event.type === "questlog.RolledBack" ? " rollback" : ""}` +
        `${moment ? " death" : ""}`,
      dataset: { version: event.version, type: event.type, ends: mid ? "false" : "true" },
    },
    h(
      "div",
      { class: "head" },
      h(
        "a",
        { href: `?version=${event.version}`, class: "v", "aria-label": `open version ${event.version}` },
        `v${event.version}`,
      ),
      // the heading in words; the recorded type is in its title, and in the raw event below
      h("span", { class: "type", title: event.type }, heading(event.type)),
      h("time", { datetime: event.timestamp }, event.timestamp.replace("T", " ").slice(0, 19)),
      event.actor ? h("span", { class: "actor", title: event.actor }, actorName(event.actor)) : null,
      undone ? h("span", { class: "badge" }, `undone by v${event.undone_by}`) : null,
      carried ? h("span", { class: "badge" }, `carried out by the rollback at version ${event.undone_by}`) : null,
    ),
    h("p", { class: "what" }, eventSummary(event)),
    moment ? momentElement(moment) : null,
    rolls.length ? h("p", { class: "rolls-line" }, rolls.join(" · ")) : null,
    patch && patch.length
      ? h(
          "details",
          {},
          h("summary", {}, `${patch.length} change(s)`),
          h("ul", { class: "patch" }, patch.slice(0, 40).map(change)),
        )
      : null,
    h(
      "details",
      { class: "raw" },
      h("summary", {}, "the raw event"),
      h(
        "pre",
        { class: "raw-event" },
        JSON.stringify(raw, (_k, v) => (v && v.raw !== undefined ? Number(v.raw) : v), 2),
      ),
    ),
    actions(event, mid),
  );
}

// Loads pages of the timeline from the head backwards and checks the chain over what it loaded.
export class Timeline {
  constructor(campaignId, list, status, actions) {
    this.id = campaignId;
    this.list = list;
    this.status = status;
    this.actions = actions;
    this.oldest = null; // the oldest loaded event (ascending order is checked page by page)
    this.newest = null;
    this.checked = 0;
    this.broken = null;
  }

  // The newest page again; the list shown is swapped in one step once the new one is ready, so
  // it never stands empty (with "Older events" jumping up under it) while a refresh is under way.
  async loadNewest(head) {
    this.oldest = this.newest = null;
    this.checked = 0;
    this.broken = null;
    this.loaded = [];
    await this.loadBefore(head + 1, true);
  }

  async loadBefore(stop, fresh = false) {
    const to = stop - 1;
    if (to < 1) {
      if (fresh) this.list.replaceChildren();
      return;
    }
    const from = Math.max(1, to - PAGE + 1);
    const { items, events } = await this.range(from, to);
    const check = await checkChain(this.id, events);
    const after = this.oldest; // the event just after this page (the oldest loaded before it)
    // what is loaded now, before the chain line is written: it says "all N events" only when
    // nothing older is left (on the first load too)
    this.oldest = events[0];
    this.newest = this.newest || events.at(-1);
    this.note(check);
    if (after && check.ok && after.prev_hash !== check.last)
      this.note({ ok: false, version: after.version, why: "does not link to the page before it" });
    // the events of one command share a timestamp: all but its last are mid-command
    const next = (k) => (k + 1 < events.length ? events[k + 1] : after);
    const mid = events.map((event, k) => next(k) !== null && next(k).timestamp === event.timestamp);
    this.loaded = [...events, ...(this.loaded || [])];
    const shown = [];
    for (let k = items.length - 1; k >= 0; k--)
      shown.push(eventElement(items[k], this.actions, mid[k], deathMoment(events, k)));
    if (fresh) this.list.replaceChildren(...shown);
    else this.list.append(...shown);
    return from;
  }

  // Versions from..to: the events as GET /events gives them (with the actor the hash covers) and
  // the patch of each from GET /replay (whose events carry no actor).
  async range(from, to) {
    const [replay, page] = await Promise.all([
      get(`/campaigns/${this.id}/replay?from=${from}&to=${to}`),
      get(`/campaigns/${this.id}/events?after=${from - 1}&limit=${to - from + 1}`),
    ]);
    const patches = new Map(replay.items.map((i) => [Number(i.event.version), i.patch]));
    const events = page.items;
    return { events, items: events.map((event) => ({ event, patch: patches.get(Number(event.version)) })) };
  }

  note(check) {
    if (!check.ok && !this.broken) this.broken = check;
    this.checked += check.checked || 0;
    const over = this.more
      ? `the newest ${this.checked} events (older ones are checked as they load)`
      : `all ${this.checked} events`;
    const text = this.broken
      ? `Chain broken at version ${this.broken.version}: ${this.broken.why}.`
      : `Chain intact over ${over}: every hash recomputed here, every link followed.`;
    this.status.textContent = text;
    this.status.dataset.chain = this.broken ? "broken" : "ok";
  }

  get more() {
    return this.oldest ? Number(this.oldest.version) > 1 : false;
  }
}

// -- a death and its cloning, told as one moment (QC-41 .. QC-49) ---------------------------------

// The events of the cloning that follow a death, in the same command: the clone cost rolls, the
// price paid, a decision asked (clone result 3 or 4), and the hero back at its new HP.
const CLONING = new Set([
  "qc.CloneRollMade",
  "qc.CreditsChanged",
  "qc.InjurySuffered",
  "qc.EquipmentSacrificed",
  "qc.PerRestAbilitiesExhausted",
  "qc.HeroReplaced",
  "qc.ConditionCleared",
  "qc.DecisionRequested",
  "qc.Cloned",
]);

// The moment of the death at `events[k]` (ascending), or null when that event is no death.
/**
 * @typedef {{died: import("./api.js").LoggedEvent, after: import("./api.js").LoggedEvent[]}} DeathMoment
 * @param {import("./api.js").LoggedEvent[]} events ascending
 * @param {number} k
 * @returns {DeathMoment | null}
 */
export function deathMoment(events, k) {
  const died = events[k];
  if (died?.type !== "qc.Died") return null;
  const after = [];
  for (const event of events.slice(k + 1)) {
    if (event.timestamp !== died.timestamp || !CLONING.has(event.type)) break;
    after.push(event);
    if (event.type === "qc.Cloned") break;
  }
  return { died, after };
}

const sayWords = (value) =>
  String(value ?? "")
    .replaceAll("_", " ")
    .replace(/([a-z])([A-Z])/g, (_, a, b) => `${a} ${b.toLowerCase()}`);

// "The hero loses …" inside a line: "the hero loses …" (a name or "HP" stays as written).
const lower = (line) => (/^[A-Z][a-z]/.test(line) ? line[0].toLowerCase() + line.slice(1) : line);

// The moment as lines a player reads: what killed the hero, each clone roll, the price, the new HP.
/**
 * @param {DeathMoment} moment
 * @returns {string[]}
 */
export function momentLines({ died, after }) {
  const d = died.data?.details || {};
  const lines = [`Killed by ${sayWords(d.cause) || "something unnamed"}${d.page_date ? ` on ${d.page_date}` : ""}.`];
  let cloned = null;
  for (const event of after) {
    if (event.type === "qc.Cloned") cloned = event.data?.details || {};
    else if (event.type === "qc.CloneRollMade") lines.push(`${eventSummary(event)}.`);
    else if (event.type === "qc.ConditionCleared") lines.push(`Also: ${lower(eventSummary(event))}.`);
    else if (event.type === "qc.DecisionRequested") lines.push(`The price waits for a choice: ${eventSummary(event)}.`);
    else lines.push(`The price: ${eventSummary(event)}.`);
  }
  if (cloned)
    lines.push(
      `Cloned back to life with HP ${cloned.hp_after} of ${cloned.hp_max}` +
        `${cloned.replaced ? ", as a new hero" : ""}.`,
    );
  return lines;
}

function momentElement(moment) {
  return h(
    "div",
    { class: "moment", dataset: { moment: "death" } },
    h("p", { class: "moment-title" }, "Death and cloning"),
    h("ol", { class: "moment-lines" }, momentLines(moment).map((line) => h("li", {}, line))),
  );
}

// The newest death among the loaded events that no page has begun since and no rollback undid:
// the hero card's notice (campaign.js).
/**
 * @param {import("./api.js").LoggedEvent[]} events ascending
 * @returns {DeathMoment | null}
 */
export function recentDeath(events) {
  for (let k = events.length - 1; k >= 0; k--) {
    const event = events[k];
    if (event.undone) continue;
    if (event.type === "qc.PageStarted") return null;
    if (event.type === "qc.Died") return deathMoment(events, k);
  }
  return null;
}

export function deathNotice(moment) {
  return h(
    "div",
    { class: "notice death", role: "note", "aria-label": "The hero died", dataset: { moment: "death" } },
    h("p", { class: "moment-title" }, `The hero died (v${moment.died.version}) and was cloned`),
    h("ol", { class: "moment-lines" }, momentLines(moment).map((line) => h("li", {}, line))),
  );
}
