// The table page of one campaign: its state (now or at ?version=N), the pending decision, the
// play forms, the rolls with verdicts computed here, the charts, the timeline and live updates.
import { ApiError, get, headers, post } from "./api.js";
import { calendarBoard, questCalendar } from "./boards.js";
import { guardCampaign } from "./checkpoints.js";
import { eveningExport } from "./evening.js";
import { integrityBadge } from "./integrity.js";
import { dayCharts } from "./figures.js";
import { Live } from "./live.js";
import { buildPlay, showPending } from "./actions.js";
import { ownerCard, updateOwnerCard } from "./owner.js";
import { explain } from "./play.js";
import { showRolls, tally } from "./rolls.js";
import { Timeline, deathNotice, eventSummary, recentDeath } from "./timeline.js";
import { showTurn } from "./turn.js";
import { clear, h } from "./dom.js";
import { ready, toast } from "./ui.js";
import { freshEntropy } from "./verify.js";

const ROLL_WINDOW = 200; // versions of rolls loaded at a time, newest first

// The caller on this campaign (GET /campaigns/{id}/me), as access.js reads it, with `admin`, and
// `plays(seat)`: the seats this page plays in a match, its own and, for an owner or an admin
// (both may manage), every seat no member holds (`held`, read again on every show): the owner
// plays those at its own screen, and the server lets it act and agree for them
// (webapi/http/access.py seat_check, admin_seat_check), never for a seat an invited player holds.
async function whoAmI(campaignId) {
  const me = await get(`/campaigns/${campaignId}/me`);
  const who = {
    role: me.role,
    seat: me.seat ?? null,
    canPlay: me.can_append,
    owner: me.can_manage,
    admin: Boolean(me.admin),
    held: new Set(),
  };
  who.plays = (seat) =>
    seat !== null && seat !== undefined && (seat === who.seat || (who.owner && !who.held.has(seat)));
  return who;
}

// A seat as a reader names it: "owner" is the owner, a seat its name.
const seatName = (seat) => (seat === "owner" ? "the owner" : String(seat));
const seats = (list) => list.map(seatName).join(", ");

// One proposal in words, the same for every reader.
export function proposalWords(p, agreed, waiting) {
  const by = p.proposer === "owner" ? "The owner" : seatName(p.proposer);
  return (
    `${by} proposes going back to version ${p.to_version}: “${p.reason}”. ` +
    `Agreed: ${agreed.length ? seats(agreed) : "nobody yet"}. ` +
    (waiting.length ? `Waiting for ${seats(waiting)} to agree.` : "Every seat has agreed.")
  );
}

export async function campaignPage(main, id) {
  const page = new CampaignPage(main, id);
  await page.open();
  return page;
}

class CampaignPage {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.live = null;
    this.toldRollbacks = new Set(); // the versions of the rollbacks a toast has told
  }

  // A rollback carried out, by this page or by anyone's last agreement, is told as a rollback:
  // where it went and why, once (its version), never as the lines of the events it restored.
  toldRollback(version, data) {
    if (this.toldRollbacks.has(Number(version))) return;
    this.toldRollbacks.add(Number(version));
    toast(`Rolled back to version ${data?.to_version}${data?.reason ? `: ${data.reason}` : ""}`);
    // and a status that stays until the next one, said by whoever reads the page
    this.undone.textContent = `Undone: back to version ${data?.to_version}${data?.reason ? ` (${data.reason})` : ""}.`;
    this.undone.hidden = false;
  }

  // An event announced live (live.js): only a rollback is told; the rest shows as the page moves on.
  heard(event) {
    if (event?.type === "questlog.RolledBack") this.toldRollback(event.version, event.data);
  }

  // The seat a rollback proposal from this page is made by: the first seat it plays (its own,
  // else the first seat no member holds), so that proposing agrees for it; "owner" when it plays
  // none (a Quest Calendar campaign, or a match whose every seat an invited player holds).
  proposer() {
    if (this.who.seat) return this.who.seat;
    if (this.head.game === "quest-calendar") return "owner";
    return (this.head.state?.players || []).find((seat) => this.who.plays(seat)) || "owner";
  }

  // What a proposal's answer means, in words: carried out at once (every seat agreed), or whom it
  // waits for, and the seats this page may agree for too ("agree as B below").
  proposed(result, proposer, what) {
    if (result.rollback) {
      this.toldRollback(result.version, result.rollback);
      return;
    }
    const proposal = result.proposal || {};
    // proposing is agreeing: the proposer is not among those still to agree
    const agreed = [proposer, ...(proposal.approvals || proposal.approved_by || [])];
    const waiting = (proposal.players || []).filter((p) => !agreed.includes(p));
    const mine = this.agreeingSeats(waiting);
    const alsoMine = mine.length
      ? `. You play ${mine.join(" and ")} too: agree as ${mine.join(", ")} above, in the list of proposals`
      : "";
    toast(`Proposed ${what}${waiting.length ? `; waiting for ${waiting.join(", ")} to agree` : ""}${alsoMine}.`);
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
      if (click.target.closest("button")) this.goToPlay(this.turn.dataset.turn);
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
  }

  // The badge follows the chain line and the checkpoint's verdict, at the version shown.
  showIntegrity() {
    const version = this.shown ?? this.head.version;
    this.integrity.update(this.chain.dataset.chain, this.checkpoint.dataset.checkpoint, version);
  }

  layout() {
    const c = this.head;
    this.version = h("span", { class: "version", dataset: { campaignVersion: c.version } }, String(c.version));
    this.chain = h("p", { class: "chain", "aria-live": "polite" }, "Checking the chain…");
    this.checkpoint = h("div", { class: "checkpoint", "aria-live": "polite" }, "Checking the signed checkpoint…");
    this.liveNote = h("span", { class: "muted live" }, "Live: connecting…"); // held from the start
    this.hash = h("code", { dataset: { headHash: c.head_hash } }, c.head_hash);
    this.hashLabel = h("span", {}, "Head hash ");
    this.banner = h("div", { class: "banner", hidden: true });
    this.turn = h("div", { class: "turn", role: "status", "aria-live": "polite", hidden: true });
    // what the last rollback did, in words, until the next one (a toast goes; this stays)
    this.undone = h("p", { class: "undone-status", role: "status", hidden: true });
    this.state = h("div", { class: "state" });
    this.pending = h("section", { class: "card pending", "aria-label": "Pending decision", hidden: true });
    this.play = h("section", { class: "card play", "aria-label": "Play", tabindex: "-1" });
    this.rollList = h("ul", { class: "rolls", "aria-label": "Rolls" });
    this.rollTally = h("p", { class: "muted" });
    this.moreRolls = h(
      "button",
      { type: "button", class: "small", hidden: true, onclick: () => this.loadRolls() },
      "Older rolls",
    );
    this.charts = h("div", { class: "charts" });
    this.events = h("ol", { class: "timeline", reversed: true });
    this.moreEvents = h(
      "button",
      { type: "button", class: "small", hidden: true, onclick: () => this.older() },
      "Older events",
    );
    this.slider = h("input", {
      type: "range",
      id: "version-slider",
      min: 1,
      max: c.version,
      value: c.version,
      step: 1,
    });
    this.sliderValue = h("output", { for: "version-slider" }, String(c.version));
    this.slider.addEventListener("input", () => (this.sliderValue.textContent = this.slider.value));
    this.slider.addEventListener("change", () => this.goTo(Number(this.slider.value)));
    // the open rollback proposals, near the top for every reader, players and viewers alike
    this.proposals = h("section", { class: "card proposals", "aria-label": "Rollback proposals", hidden: true });
    // `mid`: the event is inside a command, where no rollback or fork may start (timeline.js)
    this.timeline = new Timeline(this.id, this.events, this.chain, (event, mid) => this.eventActions(event, mid));
    const bundle = h(
      "button",
      { type: "button", class: "small", onclick: () => this.download() },
      "Download the bundle",
    );
    this.shareOut = h("p", { class: "share", "aria-live": "polite" });
    this.owner = this.who.owner ? ownerCard(this) : null;
    this.integrity = integrityBadge(
      h("p", { class: "hash" }, this.hashLabel, this.hash),
      this.chain,
      this.checkpoint,
      h(
        "p",
        { class: "actions" },
        bundle,
        // sharing is the owner's: a view-only link, with the invitations in the owner's controls
        this.owner
          ? [
              " ",
              h(
                "button",
                { type: "button", class: "small", onclick: () => this.goToSharing() },
                "Sharing and invitations…",
              ),
            ]
          : null,
      ),
    );
    clear(
      this.main,
      h(
        "section",
        { class: "card title" },
        h("h1", {}, c.name),
        h(
          "p",
          { class: "meta" },
          `${c.game === "quest-calendar" ? "Quest Calendar" : "The Calendar Board"} · version `,
          this.version,
          ` · you are ${this.who.role}${this.who.seat ? ` (seat ${this.who.seat})` : ""} · `,
          this.liveNote,
        ),
        this.integrity.element,
        c.origin
          ? h(
              "p",
              { class: "meta" },
              "Forked from ",
              h(
                "a",
                { href: `/app/campaigns/${c.origin.campaign_id}?version=${c.origin.version}` },
                `${c.origin.campaign_id.slice(0, 8)} at version ${c.origin.version}`,
              ),
            )
          : null,
        c.forks?.length
          ? h(
              "p",
              { class: "meta" },
              "Forks: ",
              c.forks.map((f) => [h("a", { href: `/app/campaigns/${f.id}` }, `${f.name} (at v${f.at_version})`), " "]),
            )
          : null,
      ),
      this.turn,
      this.banner,
      this.undone,
      this.proposals,
      // the game first: what is asked and what may be played, beside the board or the hero
      h(
        "div",
        { class: `game${this.who.canPlay ? "" : " watching"}` },
        h(
          "div",
          { class: "acting" },
          // the decision's and the play panel's h3 sit under this heading, heard, not seen
          h("h2", { class: "visually-hidden" }, "Your move"),
          this.pending,
          this.who.canPlay ? this.play : null,
        ),
        this.state,
      ),
      h(
        "section",
        { class: "card travel", "aria-label": "Time travel" },
        h("label", { for: "version-slider" }, "Show the campaign as it was at version "),
        this.sliderValue,
        this.slider,
        h(
          "p",
          {},
          h("button", { type: "button", class: "small", onclick: () => this.goTo(this.shown - 1) }, "◀ Step back"),
          " ",
          h("button", { type: "button", class: "small", onclick: () => this.goTo(this.shown + 1) }, "Step forward ▶"),
          " ",
          h("button", { type: "button", class: "small", onclick: () => this.goTo(null) }, "Now"),
        ),
      ),
      h(
        "section",
        { class: "card", "aria-label": "Rolls" },
        h("h2", {}, "Rolls"),
        this.rollTally,
        this.rollList,
        this.moreRolls,
      ),
      h("section", { class: "card", "aria-label": "Charts" }, h("h2", {}, "Charts"), this.charts),
      h("section", { class: "card", "aria-label": "Timeline" }, h("h2", {}, "Timeline"), this.events, this.moreEvents),
      h(
        "section",
        { class: "card evening-card", "aria-label": "Keep this evening" },
        (this.evening = eveningExport(this)),
      ),
      this.owner,
    );
    if (this.who.canPlay) buildPlay(this);
  }

  // "Your turn" (or "Your decision") tapped: the decision this seat is asked, else the play panel,
  // scrolled to the top of the window and focused, so the keyboard and a screen reader go there too.
  goToPlay(turn) {
    const target = turn === "decision" && !this.pending.hidden ? this.pending : this.play;
    if (!target.isConnected || target.hidden) return;
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }

  // The owner's controls, where a view-only link is made and players are invited.
  goToSharing() {
    const share = [...this.owner.querySelectorAll("button")].find((b) => b.textContent === "Share a view-only link");
    this.owner.scrollIntoView({ block: "start" });
    (share || this.owner).focus({ preventScroll: true });
  }

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

  // The newest window again; the list shown is swapped in one step once the new one is ready, so
  // a reader never sees it empty while a refresh is under way.
  async reloadRolls() {
    this.rollsBelow = this.shown; // in the past view, the rolls up to the version shown only
    this.verdicts = [];
    this.loadedRolls = [];
    await this.loadRolls(true);
  }

  // Rolls of the versions below `rollsBelow`, a window at a time, newest first.
  async loadRolls(fresh = false) {
    const hi = this.rollsBelow;
    const lo = Math.max(0, hi - ROLL_WINDOW);
    const rolls = [];
    let after = lo;
    for (;;) {
      const page = await get(`/campaigns/${this.id}/rolls?after=${after}&limit=200`);
      rolls.push(...page.items.filter((r) => Number(r.version) <= hi));
      if (page.next === null || page.next === undefined || Number(page.next) >= hi) break;
      after = page.next;
    }
    this.rollsBelow = lo;
    this.moreRolls.hidden = lo === 0;
    const target = fresh ? h("ul") : this.rollList;
    this.verdicts.push(...(await showRolls(target, rolls.reverse())));
    if (fresh) this.rollList.replaceChildren(...target.childNodes);
    this.rollTally.textContent = `Verdicts computed in this browser: ${tally(this.verdicts)}.`;
    this.loadedRolls.push(...rolls);
  }

  async showCharts() {
    try {
      clear(this.charts, await dayCharts(this.id, this.loadedRolls));
    } catch (error) {
      clear(this.charts, h("p", { class: "muted" }, `Charts unavailable: ${explain(error)}`));
    }
  }

  async send(body) {
    const result = await this.append("commands", body);
    this.undone.hidden = true; // a new command: the last undo is history now
    const said = (result.events || []).map(eventSummary).filter(Boolean);
    toast(said.length ? said.join(" · ") : `${body.type.replaceAll("_", " ")}: done, now version ${result.version}`);
    await this.changed();
    return result;
  }

  // A roll or command that may draw server dice. It carries entropy from this browser, so that
  // not even the host can foresee its rolls, and an Idempotency-Key. Until it is answered with a
  // success, sending the same request again reuses both: a request the host dropped or failed
  // cannot be turned into a reroll with new entropy (docs/dice-verification.md).
  async append(route, body) {
    const signature = `${route} ${JSON.stringify(body)}`;
    if (this.attempt?.signature !== signature) {
      this.attempt = { signature, key: crypto.randomUUID(), entropy: freshEntropy() };
    }
    const { key, entropy } = this.attempt;
    const sent = body.faces === undefined ? { ...body, entropy } : body;
    // return=minimal (RFC 7240): the answer leaves the state out; the page reads the head again
    // after every append anyway (changed()), so the state would only be downloaded twice.
    const headers = { "Idempotency-Key": key, Prefer: "return=minimal" };
    const result = await post(`/campaigns/${this.id}/${route}`, sent, headers);
    this.attempt = null;
    return result;
  }

  // The buttons on one timeline event, by the rollback policy and the caller's role.
  eventActions(event, mid) {
    if (!this.who.canPlay || this.asOf !== null || mid) return null;
    const v = Number(event.version);
    const buttons = [];
    const isHead = v === this.head.version;
    // a proposal or an agreement is not a place to roll back to: undoing to it would only undo
    // the agreements after it (the trial's "Roll back to v89" on the proposal event)
    const agreement = event.type === "questlog.RollbackProposed" || event.type === "questlog.RollbackApproved";
    if (event.type === "questlog.RolledBack" && !event.undone)
      buttons.push(this.rollbackButton(v - 1, `Redo: undo this rollback`));
    else if (!isHead && !event.undone && !agreement) buttons.push(this.rollbackButton(v, `Roll back to v${v}`));
    if (this.who.owner)
      buttons.push(
        h(
          "button",
          { type: "button", class: "small", onclick: (click) => this.askFork(click.currentTarget, v) },
          `Fork at v${v}`,
        ),
      );
    return buttons.length ? h("p", { class: "event-actions" }, buttons) : null;
  }

  rollbackButton(to, label) {
    return h(
      "button",
      {
        type: "button",
        class: "small",
        dataset: { rollbackTo: to },
        onclick: (click) => this.askReason(click.currentTarget, to),
      },
      label,
    );
  }

  askReason(button, to) {
    const id = `reason-${to}`;
    const reason = h("input", { id, required: true, value: "undo at the table" });
    const cancel = h("button", { type: "button", class: "small", onclick: () => form.replaceWith(button) }, "Cancel");
    // a refusal (a 409: another proposal to this version is open already) stays in the form
    const error = h("p", { class: "error", role: "alert" });
    const form = h(
      "form",
      { class: "inline rollback-reason" },
      h("label", { for: id }, `Why roll back to version ${to}?`),
      reason,
      h("button", { type: "submit" }, "Confirm rollback"),
      cancel,
      error,
    );
    form.addEventListener("submit", async (submit) => {
      submit.preventDefault();
      error.textContent = "";
      try {
        await this.rollback(to, reason.value);
      } catch (problem) {
        error.textContent = `The rollback was refused: ${explain(problem)}`;
        toast(explain(problem), true);
      }
    });
    button.replaceWith(form);
    reason.focus();
  }

  // A direct rollback is the owner's and follows the house rule; in a match, or when the rule
  // forbids undoing server rolls, the page proposes instead and the players agree.
  async rollback(to, reason) {
    const policy = this.head.state?.house_rules?.rollback_over_server_rolls;
    const direct = this.who.owner && this.head.game === "quest-calendar" && policy !== "forbid";
    if (direct) {
      try {
        const result = await post(`/campaigns/${this.id}/rollback`, { to_version: to, reason });
        this.toldRollback(result.version, result.rollback || { to_version: to, reason });
        return this.changed();
      } catch (error) {
        // a rule's 409 (the house rule, a match) turns it into a proposal; a version the log
        // does not hold (409 not-held: the head, the middle of a command) is the answer
        const held = String(error?.problem?.type || "").endsWith(":not-held");
        if (!(error instanceof ApiError) || error.status !== 409 || held) throw error;
      }
    }
    const proposer = this.proposer();
    const result = await post(`/campaigns/${this.id}/rollback/proposals`, { to_version: to, reason, proposer });
    this.proposed(result, proposer, `a rollback to version ${to}`);
    return this.changed();
  }

  // The open proposals, the same list for every reader (who proposed, to which version, why, who
  // has agreed and whom it waits for, each seat named), with "Agree as <seat>" for the seats this
  // page plays that have not agreed yet. In the past view: the proposals, without the buttons.
  async showProposals() {
    let proposals = [];
    try {
      proposals = (await get(`/campaigns/${this.id}/rollback/proposals`)).items || [];
    } catch {
      return;
    }
    const open = proposals.filter((p) => p.status === "open");
    this.openProposals = open;
    this.markUndoProposal();
    this.proposals.hidden = !open.length;
    clear(
      this.proposals,
      open.length ? h("h2", {}, "Open rollback proposals") : null,
      h("ul", { class: "plain" }, open.map((p) => this.proposalItem(p))),
    );
  }

  proposalItem(p) {
    const agreed = p.approvals || p.approved_by || [];
    const waiting = (p.players || []).filter((seat) => !agreed.includes(seat));
    const seats = this.asOf === null ? this.agreeingSeats(waiting) : [];
    return h(
      "li",
      { class: "proposal", dataset: { proposal: p.proposal_id, toVersion: p.to_version } },
      h("span", { class: "said" }, proposalWords(p, agreed, waiting)),
      " ",
      seats.map((seat) => [
        h(
          "button",
          { type: "button", class: "small", onclick: () => this.approve(p.proposal_id, seat) },
          `Agree as ${seat}`,
        ),
        " ",
      ]),
    );
  }

  // An open proposal already asks for the undo the button offers: the button waits, and says
  // to agree to that one (proposing it again is refused: rollback-proposal-open).
  markUndoProposal() {
    const open = (this.openProposals || []).find((p) => p.to_version === this.undoTarget);
    if (!open || !this.undoButton || this.asOf !== null) return;
    this.undoButton.disabled = true;
    this.undoForm?.remove();
    clear(
      this.undoNote,
      `A proposal to undo this is open (by ${seatName(open.proposer)}): agree to it above, in the list ` +
        "of proposals, or wait for the others.",
    );
  }

  // The seats this page agrees for: those still to agree that it plays (its own, and for an
  // owner the seats no member holds), its own first.
  agreeingSeats(players) {
    const waiting = players.filter((seat) => this.who.plays(seat));
    return [...waiting.filter((s) => s === this.who.seat), ...waiting.filter((s) => s !== this.who.seat)];
  }

  // The seats a member holds (owner only: GET /members).
  async heldSeats() {
    if (!this.who.owner) return new Set();
    try {
      const { items } = await get(`/campaigns/${this.id}/members`);
      return new Set(items.map((m) => m.seat).filter(Boolean));
    } catch {
      return new Set();
    }
  }

  async approve(proposalId, seat) {
    try {
      const result = await post(`/campaigns/${this.id}/rollback/proposals/${proposalId}/approve`, { player: seat });
      if (result.rollback) this.toldRollback(result.version, result.rollback);
      else {
        const p = result.proposal || {};
        const waiting = (p.players || []).filter((s) => !(p.approvals || []).includes(s));
        toast(`Agreed as ${seat}${waiting.length ? `; waiting for ${waiting.join(", ")} to agree` : ""}.`);
      }
      await this.changed();
    } catch (error) {
      toast(explain(error), true);
    }
  }

  // A fork makes a new campaign: asked once more, with a Cancel.
  askFork(button, at) {
    const box = h(
      "p",
      { class: "confirm", role: "group", "aria-label": `Fork at version ${at}` },
      `Start a new campaign from version ${at}? `,
      h("button", { type: "button", class: "small", onclick: () => this.fork(at) }, "Confirm fork"),
      " ",
      h(
        "button",
        {
          type: "button",
          class: "small",
          onclick: () => {
            box.replaceWith(button);
            button.focus();
          },
        },
        "Cancel",
      ),
    );
    button.replaceWith(box);
    box.querySelector("button").focus();
  }

  async fork(at) {
    try {
      const fork = await post(`/campaigns/${this.id}/fork`, {
        at_version: at,
        name: `${this.head.name} (fork at v${at})`,
      });
      location.assign(`/app/campaigns/${fork.id}`);
    } catch (error) {
      toast(explain(error), true);
    }
  }

  async download() {
    try {
      const response = await fetch(`/campaigns/${this.id}/bundle`, { headers: headers() });
      if (response.status === 404) throw new Error("this server has no bundle route yet");
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const url = URL.createObjectURL(await response.blob());
      const a = h("a", { href: url, download: `questlog-${this.id}.json` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (error) {
      toast(`No bundle: ${error.message}`, true);
    }
  }

  async share() {
    try {
      const link = await post(`/campaigns/${this.id}/share`, {});
      const url = new URL(link.url, location.origin).href;
      clear(
        this.shareOut,
        h("label", { for: "share-url" }, "View-only link (anyone holding it can read this campaign): "),
        h("input", { id: "share-url", readonly: true, value: url, size: 40 }),
      );
    } catch (error) {
      clear(this.shareOut, `No link: ${error.status === 404 ? "this server has no share route yet" : explain(error)}`);
    }
  }
}
