// @ts-check
// The table page of one campaign: its state (now or at ?version=N), the pending decision, the
// play forms, the rolls with verdicts computed here, the charts, the timeline and live updates.
// The frame and the title card are campaignhead.js's; the rollbacks, the proposals and the forks
// proposals.js's; this module holds the page's state and shows it again as the campaign moves on.
import { ApiError, get } from "./api.js";
import { calendarBoard, questCalendar } from "./boards.js";
import { guardCampaign } from "./checkpoints.js";
import { Live } from "./live.js";
import { showPending } from "./actions.js";
import { updateOwnerCard } from "./owner.js";
import { download, goToPlay, layout, share, whoAmI } from "./campaignhead.js";
import * as proposals from "./proposals.js";
import * as rolls from "./rollwindow.js";
import * as sending from "./sending.js";
import { deathNotice, recentDeath } from "./timeline.js";
import { showTurn } from "./turn.js";
import { clear, h } from "./dom.js";
import { ready } from "./ui.js";

/** @typedef {import("./api.js").Campaign} Campaign */
/** @typedef {import("./api.js").Proposal} Proposal */
/** @typedef {import("./campaignhead.js").Who} Who */

/**
 * @param {HTMLElement} main
 * @param {string} id the campaign's id
 */
export async function campaignPage(main, id) {
  const page = new CampaignPage(main, id);
  await page.open();
  return page;
}

// The page's parts are made by layout() (campaignhead.js), the undo box by actions.js.
export class CampaignPage {
  /**
   * @param {HTMLElement} main
   * @param {string} id
   */
  constructor(main, id) {
    this.main = main;
    this.id = id;
    /** @type {import("./live.js").Live} */
    this.live = null;
    this.toldRollbacks = new Set(); // the versions of the rollbacks a toast has told
    /** @type {Campaign} the head, read again on every change */ this.head = undefined;
    /** @type {Who} */ this.who = undefined;
    /** @type {any[]} the game's commands (GET /commands), none for a reader who cannot play */
    this.catalogue = undefined;
    /** @type {number} the version shown (the head's, or ?version=N) */ this.shown = undefined;
    /** @type {string} */ this.shownHash = undefined;
    /** @type {Promise<{actions: any, error?: unknown}>} this show's one GET /actions */
    this.actionsFetch = undefined;
    /** @type {{signature: string, key: string, entropy: string}} the append not answered yet */
    this.attempt = undefined;
    /** @type {Proposal[]} */ this.openProposals = undefined;
    /** @type {HTMLElement} */ this.version = undefined;
    /** @type {HTMLElement} */ this.chain = undefined;
    /** @type {HTMLElement} */ this.checkpoint = undefined;
    /** @type {HTMLElement} */ this.liveNote = undefined;
    /** @type {HTMLElement} */ this.hash = undefined;
    /** @type {HTMLElement} */ this.hashLabel = undefined;
    /** @type {HTMLElement} */ this.banner = undefined;
    /** @type {HTMLElement} */ this.turn = undefined;
    /** @type {HTMLElement} */ this.undone = undefined;
    /** @type {HTMLElement} */ this.state = undefined;
    /** @type {HTMLElement} */ this.pending = undefined;
    /** @type {HTMLElement} */ this.play = undefined;
    /** @type {HTMLElement} */ this.proposals = undefined;
    /** @type {HTMLInputElement} */ this.slider = undefined;
    /** @type {HTMLOutputElement} */ this.sliderValue = undefined;
    /** @type {import("./timeline.js").Timeline} */ this.timeline = undefined;
    /** @type {HTMLElement} */ this.owner = undefined;
    /** @type {ReturnType<typeof import("./integrity.js").integrityBadge>} */ this.integrity = undefined;
    /** @type {ReturnType<typeof import("./evening.js").eveningExport>} */ this.evening = undefined;
    /** @type {HTMLButtonElement} the undo box (actions.js) */ this.undoButton = undefined;
    /** @type {HTMLElement} */ this.undoNote = undefined;
    /** @type {HTMLFormElement} */ this.undoForm = undefined;
    /** @type {number} the version undoing the last command goes back to */ this.undoTarget = undefined;
    /** @type {string} the last command the undo box was shown for: its versions and policy */
    this.undoKey = undefined;
    // the play panel (actions.js)
    /** @type {HTMLElement} the commands possible now */ this.actionsNow = undefined;
    /** @type {HTMLDetailsElement} "All commands" */ this.allCommands = undefined;
    /** @type {HTMLElement} */ this.allList = undefined;
    /** @type {HTMLElement} where the form of the command chosen opens */ this.formSlot = undefined;
    /** @type {HTMLSelectElement} the select labelled "Command" */ this.commandSelect = undefined;
    /** @type {ReturnType<typeof import("./play.js").commandForm>} the form open in formSlot */
    this.openForm = undefined;
    /** @type {string | null} the seat an owner without a seat acts for, whose move it is */
    this.actingFor = undefined;
    /** @type {number} the refreshes of the play panel asked: only the last one's answer is shown */
    this.actionsAsk = undefined;
    /** @type {boolean} this page answered the decision: the next one, if its own, is focused */
    this.answered = undefined;
    /** @type {boolean} the server has no GET /actions (it answered 404): not asked again */
    this.noActionsRoute = undefined;
    /** @type {boolean} changed() is reading the head again */ this.refreshing = undefined;
    /** @type {boolean} a change was announced meanwhile: changed() runs once more */ this.again = undefined;
    /** @type {HTMLElement} */ this.events = undefined;
    /** @type {HTMLElement} */ this.moreEvents = undefined;
    /** @type {HTMLElement} */ this.shareOut = undefined;
    /** @type {ReturnType<typeof import("./witnessing.js").witnessPanel>} the head aloud, the witnesses */
    this.witness = undefined;
    /** @type {HTMLInputElement} the owner's "put the host's witness policy in the links" */
    this.linkPolicy = undefined;
    // the card of rolls (rollwindow.js)
    /** @type {HTMLElement} */ this.rollList = undefined;
    /** @type {HTMLElement} */ this.rollTally = undefined;
    /** @type {HTMLElement} */ this.moreRolls = undefined;
    /** @type {HTMLElement} */ this.charts = undefined;
    /** @type {number} the rolls below this version are the next window */ this.rollsBelow = undefined;
    /** @type {{verdict: string, why: string}[]} */ this.verdicts = undefined;
    /** @type {import("./api.js").Roll[]} */ this.loadedRolls = undefined;
  }

  // An event announced live (live.js): only a rollback is told; the rest shows as the page moves on.
  /** @param {import("./api.js").LoggedEvent} event */
  heard(event) {
    if (event?.type === "questlog.RolledBack") this.toldRollback(event.version, event.data);
  }

  get asOf() {
    const v = new URLSearchParams(location.search).get("version");
    return v && /^\d+$/.test(v) ? Number(v) : null;
  }

  async open() {
    clear(this.main, h("p", { class: "muted" }, "Loading the campaign…"));
    const head = get(`/campaigns/${this.id}`);
    const catalogue = head.then((c) => get(`/commands?game=${c.game}`));
    [this.head, this.who, this.catalogue] = await Promise.all([
      head,
      whoAmI(this.id),
      catalogue.then((c) => c.commands),
    ]);
    if (!this.who.canPlay) this.catalogue = [];
    this.layout();
    // ready only once the checkpoint is checked too: its verdict changes the title card's height,
    // and nothing may move under a reader's (or a test's) click after the page says it is ready
    ready(false);
    try {
      await Promise.all([this.show(), this.guard()]);
    } finally {
      ready(true);
    }
    this.live = new Live(this.id, this.head.version, (event) => {
      this.heard(event);
      this.changed();
    }, (mode) => {
      this.liveNote.textContent =
        mode === "stream" ? "Live: new events appear as they happen." : "Live: checking for new events every second.";
      this.liveNote.dataset.live = mode;
    }).start();
    this.turn.addEventListener("click", (click) => {
      if (/** @type {Element} */ (click.target).closest("button")) this.goToPlay(this.turn.dataset.turn);
    });
    addEventListener("popstate", () => this.show());
  }

  // The kept checkpoint still in the log, the head's signed (checkpoints.js); a failure to check
  // is shown, never thrown: the page works on without it.
  async guard() {
    try {
      await guardCampaign(this.id, this.checkpoint);
    } catch (error) {
      this.checkpoint.textContent = `The checkpoint could not be checked: ${error.message}`;
      this.checkpoint.dataset.checkpoint = "unchecked";
    }
    this.showIntegrity();
    await this.witness.refresh(); // says its own failures
  }

  // The badge follows the chain line and the checkpoint's verdict, at the version shown, and the
  // witness panel's verdict on the head when the head is shown.
  showIntegrity() {
    const version = this.shown ?? this.head.version;
    const witness = version >= this.head.version ? this.witness?.state : undefined;
    this.integrity.update(this.chain.dataset.chain, this.checkpoint.dataset.checkpoint, version, witness);
  }

  /** @param {number | null} version null: now */
  async goTo(version) {
    const head = this.head.version;
    const url = new URL(location.href);
    if (version === null || version >= head) url.searchParams.delete("version");
    else url.searchParams.set("version", String(Math.max(1, version)));
    history.pushState(null, "", url);
    await this.show();
  }

  // The state as of ?version= (or now), then everything that hangs on it: the head hash, the turn,
  // the rolls and the events up to that version only. body[data-ready] is "false" meanwhile.
  async show() {
    ready(false);
    try {
      await this.showNow();
    } finally {
      ready(true);
    }
  }

  async showNow() {
    const at = this.asOf;
    if (this.who.owner && this.head.game !== "quest-calendar") this.who.held = await this.heldSeats();
    const campaign = at ? await get(`/campaigns/${this.id}?version=${at}`) : this.head;
    this.shown = campaign.version;
    this.shownHash = campaign.head_hash;
    this.hash.textContent = campaign.head_hash;
    this.hash.dataset.headHash = campaign.head_hash;
    this.hashLabel.textContent =
      at !== null && campaign.version < this.head.version ? `Hash of version ${campaign.version} ` : "Head hash ";
    this.version.textContent = String(campaign.version);
    this.version.dataset.campaignVersion = String(campaign.version);
    this.slider.max = String(this.head.version);
    this.slider.value = String(campaign.version);
    this.sliderValue.textContent = String(campaign.version);
    const past = at !== null && campaign.version < this.head.version;
    this.banner.hidden = !past;
    clear(
      this.banner,
      past
        ? [
            `You are looking at version ${campaign.version} of ${this.head.version}; nothing can be played here. `,
            h("a", { href: location.pathname }, "Back to now"),
          ]
        : [],
    );
    this.main.dataset.past = past ? "true" : "false";
    const state = campaign.state || {};
    clear(this.state, this.head.game === "quest-calendar" ? questCalendar(state) : calendarBoard(state));
    // GET /actions once per show: the turn banner and the play panel both read this answer
    this.actionsFetch = past || this.noActionsRoute
      ? Promise.resolve({ actions: null })
      : get(`/campaigns/${this.id}/actions`).then((actions) => ({ actions }), (error) => {
        if (error instanceof ApiError && error.status === 404) this.noActionsRoute = true;
        return { actions: null, error };
      });
    const acting = showPending(this, state.pending, past);
    this.play.hidden = past;
    if (this.owner) updateOwnerCard(this.owner, this.head.state);
    this.evening?.refresh(this.head.state); // the range follows the state, unless typed in
    await Promise.all([
      acting,
      this.showTurn(state, past),
      this.timeline.loadNewest(this.shown).then(() => this.afterTimeline()),
      this.reloadRolls().then(() => this.showCharts()),
      this.showProposals(),
    ]);
  }

  // The turn banner: the actions route's `turn` when the server has the route, else the state.
  /**
   * @param {Record<string, any>} state
   * @param {boolean} past
   */
  async showTurn(state, past) {
    const { actions } = await this.actionsFetch;
    showTurn(this.turn, this.head.game, state, this.who, actions, past);
  }

  afterTimeline() {
    this.moreEvents.hidden = !this.timeline.more;
    if (this.timeline.newest && this.timeline.newest.hash !== this.shownHash && !this.timeline.broken) {
      this.chain.textContent = "The newest event's hash is not the hash the campaign reports for this version.";
      this.chain.dataset.chain = "broken";
    }
    this.showIntegrity();
    this.showDeath();
  }

  // A death the newest events tell, and no page has begun since: a notice on the hero card with
  // the whole moment (what killed the hero, the clone roll, its price, the new HP).
  showDeath() {
    const hero = this.state.querySelector('section[aria-label="Hero"]');
    if (!hero) return;
    hero.querySelector(".notice.death")?.remove();
    const moment = recentDeath(this.timeline.loaded || []);
    if (moment) hero.querySelector("h2").after(deathNotice(moment));
  }

  async older() {
    const from = await this.timeline.loadBefore(Number(this.timeline.oldest.version));
    this.moreEvents.hidden = !this.timeline.more || from === undefined;
    this.showIntegrity();
  }

  // Something was appended (by this page or anyone else): read the head again and show it.
  async changed() {
    if (this.refreshing) {
      this.again = true;
      return;
    }
    this.refreshing = true;
    ready(false); // until the checkpoint below is checked as well (see open)
    try {
      // A change announced while the checkpoint is checked is shown too (the loop runs again),
      // not dropped until the next one.
      do {
        this.again = false;
        this.head = await get(`/campaigns/${this.id}`);
        await this.show();
        // The checkpoint kept for this campaign moves on with what the page now shows (only if
        // the log still extends the one kept before: a warning stays).
        if (!this.again && this.asOf === null) await this.guard();
      } while (this.again);
    } finally {
      this.refreshing = false;
      ready(true);
    }
  }

  // The card of rolls (rollwindow.js).
  reloadRolls() {
    return rolls.reloadRolls(this);
  }

  /** @param {boolean} [fresh] the newest window again */
  loadRolls(fresh = false) {
    return rolls.loadRolls(this, fresh);
  }

  showCharts() {
    return rolls.showCharts(this);
  }

  // What the page sends (sending.js), and the rollbacks and proposals (proposals.js), as the
  // page's own methods: actions.js and the timeline call them on the page.
  /** @param {Record<string, any>} body the command, `type` first */
  send(body) {
    return sending.send(this, body);
  }

  // "Your turn" tapped, or a new decision after this page's answer (decisions.js).
  /** @param {string} turn the banner's data-turn, or "decision" */
  goToPlay(turn) {
    goToPlay(this, turn);
  }

  /**
   * @param {"commands" | "rolls"} route
   * @param {Record<string, any>} body
   */
  append(route, body) {
    return sending.append(this, route, body);
  }

  /**
   * @param {number} version the rollback's
   * @param {{to_version?: number, reason?: string}} data what it did
   */
  toldRollback(version, data) {
    proposals.toldRollback(this, version, data);
  }

  proposer() {
    return proposals.proposingSeat(this);
  }

  /**
   * @param {Record<string, any>} result the answer to the proposal
   * @param {string} proposer the seat, or "owner"
   * @param {string} what the rollback in words
   */
  proposed(result, proposer, what) {
    proposals.proposed(this, result, proposer, what);
  }

  /**
   * @param {import("./api.js").LoggedEvent} event
   * @param {boolean} mid inside a command
   */
  eventActions(event, mid) {
    return proposals.eventActions(this, event, mid);
  }

  showProposals() {
    return proposals.showProposals(this);
  }

  markUndoProposal() {
    proposals.markUndoProposal(this);
  }

  /** @param {string[]} players */
  agreeingSeats(players) {
    return proposals.agreeingSeats(this, players);
  }

  heldSeats() {
    return proposals.heldSeats(this);
  }

  layout() {
    layout(this);
  }

  download() {
    return download(this);
  }

  share() {
    return share(this);
  }
}
