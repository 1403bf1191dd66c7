// @ts-check
// The campaign page's frame: who the caller is on this campaign, the title card with its proof
// (the head hash, the chain, the signed checkpoint, the bundle and the share link), and the empty
// sections the rest of the page fills in (campaign.js), in the order a reader meets them.
import { get, headers, post } from "./api.js";
import { eveningExport } from "./evening.js";
import { integrityBadge } from "./integrity.js";
import { buildPlay } from "./actions.js";
import { ownerCard } from "./owner.js";
import { explain } from "./problems.js";
import { eventActions } from "./proposals.js";
import { Timeline } from "./timeline.js";
import { clear, h } from "./dom.js";
import { toast } from "./ui.js";
import { linkWithPolicy, witnessPanel } from "./witnessing.js";

// The caller on this campaign (GET /campaigns/{id}/me), as access.js reads it, with `admin`, and
// `plays(seat)`: the seats this page plays in a match, its own and, for an owner or an admin
// (both may manage), every seat no member holds (`held`, read again on every show): the owner
// plays those at its own screen, and the server lets it act and agree for them
// (webapi/http/access.py seat_check, admin_seat_check), never for a seat an invited player holds.
/**
 * @typedef {object} Who
 * @property {string} role "owner", "player", "viewer"…
 * @property {string | null} seat its own seat in a match
 * @property {boolean} canPlay
 * @property {boolean} owner may manage
 * @property {boolean} admin
 * @property {Set<string>} held the seats a member holds
 * @property {(seat: string | null | undefined) => boolean} plays
 */

/**
 * @param {string} campaignId
 * @returns {Promise<Who>}
 */
export async function whoAmI(campaignId) {
  const me = await get(`/campaigns/${campaignId}/me`);
  /** @type {Who} */
  const who = {
    role: me.role,
    seat: me.seat ?? null,
    canPlay: me.can_append,
    owner: me.can_manage,
    admin: Boolean(me.admin),
    held: new Set(),
    plays: (seat) =>
      seat !== null && seat !== undefined && (seat === who.seat || (who.owner && !who.held.has(seat))),
  };
  return who;
}

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

// The page's parts, made once, and the frame that holds them.
/** @param {CampaignPage} page */
export function layout(page) {
  const c = page.head;
  page.version = h("span", { class: "version", dataset: { campaignVersion: c.version } }, String(c.version));
  page.chain = h("p", { class: "chain", "aria-live": "polite" }, "Checking the chain…");
  page.checkpoint = h("div", { class: "checkpoint", "aria-live": "polite" }, "Checking the signed checkpoint…");
  page.liveNote = h("span", { class: "muted live" }, "Live: connecting…"); // held from the start
  page.hash = h("code", { dataset: { headHash: c.head_hash } }, c.head_hash);
  page.hashLabel = h("span", {}, "Head hash ");
  page.banner = h("div", { class: "banner", hidden: true });
  page.turn = h("div", { class: "turn", role: "status", "aria-live": "polite", hidden: true });
  // what the last rollback did, in words, until the next one (a toast goes; this stays)
  page.undone = h("p", { class: "undone-status", role: "status", hidden: true });
  page.state = h("div", { class: "state" });
  page.pending = h("section", { class: "card pending", "aria-label": "Pending decision", hidden: true });
  page.play = h("section", { class: "card play", "aria-label": "Play", tabindex: "-1" });
  page.rollList = h("ul", { class: "rolls", "aria-label": "Rolls" });
  page.rollTally = h("p", { class: "muted" });
  page.moreRolls = h(
    "button",
    { type: "button", class: "small", hidden: true, onclick: () => page.loadRolls() },
    "Older rolls",
  );
  page.charts = h("div", { class: "charts" });
  page.events = h("ol", { class: "timeline", reversed: true });
  page.moreEvents = h(
    "button",
    { type: "button", class: "small", hidden: true, onclick: () => page.older() },
    "Older events",
  );
  page.slider = h("input", {
    type: "range",
    id: "version-slider",
    min: 1,
    max: c.version,
    value: c.version,
    step: 1,
  });
  page.sliderValue = h("output", { for: "version-slider" }, String(c.version));
  page.slider.addEventListener("input", () => (page.sliderValue.textContent = page.slider.value));
  page.slider.addEventListener("change", () => page.goTo(Number(page.slider.value)));
  // the open rollback proposals, near the top for every reader, players and viewers alike
  page.proposals = h("section", { class: "card proposals", "aria-label": "Rollback proposals", hidden: true });
  // `mid`: the event is inside a command, where no rollback or fork may start (timeline.js)
  page.timeline = new Timeline(page.id, page.events, page.chain, (event, mid) => eventActions(page, event, mid));
  const bundle = h(
    "button",
    { type: "button", class: "small", onclick: () => download(page) },
    "Download the bundle",
  );
  page.shareOut = h("p", { class: "share", "aria-live": "polite" });
  page.owner = page.who.owner ? ownerCard(page) : null;
  page.witness = witnessPanel(page);
  page.integrity = integrityBadge(
    page.witness.element,
    h("p", { class: "hash" }, page.hashLabel, page.hash),
    page.chain,
    page.checkpoint,
    h(
      "p",
      { class: "actions" },
      bundle,
      // sharing is the owner's: a view-only link, with the invitations in the owner's controls
      page.owner
        ? [
            " ",
            h(
              "button",
              { type: "button", class: "small", onclick: () => goToSharing(page) },
              "Sharing and invitations…",
            ),
          ]
        : null,
    ),
  );
  clear(
    page.main,
    h(
      "section",
      { class: "card title" },
      h("h1", {}, c.name),
      h(
        "p",
        { class: "meta" },
        `${c.game === "quest-calendar" ? "Quest Calendar" : "The Calendar Board"} · version `,
        page.version,
        ` · you are ${page.who.role}${page.who.seat ? ` (seat ${page.who.seat})` : ""} · `,
        page.liveNote,
      ),
      page.integrity.element,
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
    page.turn,
    page.banner,
    page.undone,
    page.proposals,
    // the game first: what is asked and what may be played, beside the board or the hero
    h(
      "div",
      { class: `game${page.who.canPlay ? "" : " watching"}` },
      h(
        "div",
        { class: "acting" },
        // the decision's and the play panel's h3 sit under this heading, heard, not seen
        h("h2", { class: "visually-hidden" }, "Your move"),
        page.pending,
        page.who.canPlay ? page.play : null,
      ),
      page.state,
    ),
    h(
      "section",
      { class: "card travel", "aria-label": "Time travel" },
      h("label", { for: "version-slider" }, "Show the campaign as it was at version "),
      page.sliderValue,
      page.slider,
      h(
        "p",
        {},
        h("button", { type: "button", class: "small", onclick: () => page.goTo(page.shown - 1) }, "◀ Step back"),
        " ",
        h("button", { type: "button", class: "small", onclick: () => page.goTo(page.shown + 1) }, "Step forward ▶"),
        " ",
        h("button", { type: "button", class: "small", onclick: () => page.goTo(null) }, "Now"),
      ),
    ),
    h(
      "section",
      { class: "card", "aria-label": "Rolls" },
      h("h2", {}, "Rolls"),
      page.rollTally,
      page.rollList,
      page.moreRolls,
    ),
    h("section", { class: "card", "aria-label": "Charts" }, h("h2", {}, "Charts"), page.charts),
    h("section", { class: "card", "aria-label": "Timeline" }, h("h2", {}, "Timeline"), page.events, page.moreEvents),
    h(
      "section",
      { class: "card evening-card", "aria-label": "Keep this evening" },
      (page.evening = eveningExport(page)),
    ),
    page.owner,
  );
  if (page.who.canPlay) buildPlay(page);
}

/** @param {CampaignPage} page */
export async function download(page) {
  try {
    const response = await fetch(`/campaigns/${page.id}/bundle`, { headers: headers() });
    if (response.status === 404) throw new Error("this server has no bundle route yet");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const url = URL.createObjectURL(await response.blob());
    const a = h("a", { href: url, download: `questlog-${page.id}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (error) {
    toast(`No bundle: ${error.message}`, true);
  }
}

/** @param {CampaignPage} page */
export async function share(page) {
  try {
    const link = await post(`/campaigns/${page.id}/share`, {});
    const url = await linkWithPolicy(new URL(link.url, location.origin).href, Boolean(page.linkPolicy?.checked));
    clear(
      page.shareOut,
      h("label", { for: "share-url" }, "View-only link (anyone holding it can read this campaign): "),
      h("input", { id: "share-url", readonly: true, value: url, size: 40 }),
    );
  } catch (error) {
    clear(page.shareOut, `No link: ${error.status === 404 ? "this server has no share route yet" : explain(error)}`);
  }
}

// "Your turn" (or "Your decision") tapped: the decision this seat is asked, else the play panel,
// scrolled to the top of the window and focused, so the keyboard and a screen reader go there too.
/**
 * @param {CampaignPage} page
 * @param {string} turn the banner's data-turn
 */
export function goToPlay(page, turn) {
  const target = turn === "decision" && !page.pending.hidden ? page.pending : page.play;
  if (!target.isConnected || target.hidden) return;
  if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
  target.scrollIntoView({ block: "start" });
  target.focus({ preventScroll: true });
}

// The owner's controls, where a view-only link is made and players are invited.
/** @param {CampaignPage} page */
function goToSharing(page) {
  const share = [...page.owner.querySelectorAll("button")].find((b) => b.textContent === "Share a view-only link");
  page.owner.scrollIntoView({ block: "start" });
  (share || page.owner).focus({ preventScroll: true });
}
