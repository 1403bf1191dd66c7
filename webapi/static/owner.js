// @ts-check
// The owner's controls: reveal the seed, run the audit, the house rules, seats and invitations.
// `page` is the campaign page (campaign.js): its id, head, who, changed() and share().
import { ApiError, del, get, post } from "./api.js";
import { clear, h } from "./dom.js";
import { ruleInput, ruleTitle, ruleWords } from "./newcampaign.js";
import { explain } from "./problems.js";
import { toast } from "./ui.js";
import { linkWithPolicy } from "./witnessing.js";

/** @typedef {import("./campaign.js").CampaignPage} CampaignPage */

const key = () => ({ "Idempotency-Key": crypto.randomUUID() });

// The audit's verdict in words (GET /campaigns/{id}/audit).
export function auditWords(a) {
  const r = a.rolls || {};
  const lines = [
    a.ok
      ? `Nothing wrong: the chain is intact up to version ${a.head?.version}, every hash recomputed by the server.`
      : `The audit found problems${a.first_bad_version ? `, the first at version ${a.first_bad_version}` : ""}.`,
    a.nonces_ok === false
      ? "Server rolls are missing from the log (a nonce is skipped)."
      : "The server rolls' nonces are in sequence.",
    `Rolls: ${r.verified ?? 0} verified, ${r.awaiting_reveal ?? 0} ` +
      `awaiting the seed's reveal, ${r.reported ?? 0} rolled by hand, ` +
      `${r.failed ?? 0} failed.`,
    `${(a.rollbacks || []).length} rollback(s)` +
      `${a.flagged_rolls?.length ? `; server rolls undone (flagged): ${a.flagged_rolls.join(", ")}` : ""}` +
      `; ${a.rerolls?.count ?? 0} reroll(s), ` +
      `${a.fate_rerolls?.count ?? 0} fate reroll(s).`,
    ...(a.problems || []).map((p) =>
      typeof p === "string" ? p : `version ${p.version ?? "?"}: ${p.why || p.detail || p.message || JSON.stringify(p)}`,
    ),
  ];
  return lines;
}

/** @param {CampaignPage} page */
function diceAndAudit(page) {
  const out = h("div", { class: "audit-out", "aria-live": "polite" });
  const doReveal = async () => {
    reveal.disabled = true;
    try {
      await post(`/campaigns/${page.id}/dice/rotate`, undefined, key());
      toast(
        "Seed revealed: every server roll made with it can now be " +
          "verified here; a new seed is committed for the next rolls.",
      );
      await page.changed();
    } catch (error) {
      toast(explain(error), true);
    } finally {
      reveal.disabled = false;
    }
  };
  // Revealing cannot be undone: asked once more, saying what it does, with a Cancel.
  const reveal = h("button", { type: "button", onclick: () => {
    const box = h(
      "p",
      { class: "confirm", role: "group", "aria-label": "Reveal the seed?" },
      "Reveal the seed? Everyone can then verify the server rolls made " +
        "with it, and the server commits to a new secret seed for the " +
        "next rolls. This cannot be undone. ",
      h(
        "button",
        {
          type: "button",
          class: "small",
          onclick: () => {
            box.replaceWith(reveal);
            doReveal();
          },
        },
        "Reveal",
      ),
      " ",
      h(
        "button",
        {
          type: "button",
          class: "small",
          onclick: () => {
            box.replaceWith(reveal);
            reveal.focus();
          },
        },
        "Cancel",
      ),
    );
    reveal.replaceWith(box);
    box.querySelector("button").focus();
  } }, "Reveal the seed");
  const audit = h("button", { type: "button", onclick: async () => {
    clear(out, h("p", { class: "muted" }, "Auditing…"));
    try {
      const report = await get(`/campaigns/${page.id}/audit`);
      clear(
        out,
        h(
          "div",
          { class: `audit ${report.ok ? "ok" : "broken"}`, dataset: { audit: report.ok ? "ok" : "problems" } },
          auditWords(report).map((line) => h("p", {}, line)),
        ),
      );
    } catch (error) {
      clear(out, h("p", { class: "error" }, explain(error)));
    }
  } }, "Run the audit");
  return h(
    "div",
    { class: "owner-dice" },
    h("h3", {}, "Dice and audit"),
    h(
      "p",
      { class: "hint" },
      "Revealing the seed lets everyone verify the server rolls made so far; " +
        "the server commits to a new secret seed for the next ones.",
    ),
    h("p", { class: "actions" }, reveal, " ", audit),
    out,
  );
}

// The house rules in force, in words, and a form to change one: the select names each rule by
// its description (GET /house-rules), and the value's control follows the rule's type.
/** @param {CampaignPage} page */
function houseRules(page) {
  const box = h(
    "div",
    { class: "owner-rules" },
    h("h3", {}, "House rules"),
    h("p", { class: "muted" }, "Loading the house rules…"),
  );
  get(`/house-rules?game=${page.head.game}`)
    .then(({ rules }) => clear(box, h("h3", {}, "House rules"), ...ruleForm(page, rules)))
    .catch((error) =>
      clear(box, h("h3", {}, "House rules"), h("p", { class: "error" }, `House rules unavailable: ${explain(error)}`)),
    );
  return box;
}

/**
 * @param {CampaignPage} page
 * @param {Record<string, any>[]} described the rules GET /house-rules describes
 */
function ruleForm(page, described) {
  const rules = page.head.state?.house_rules || {};
  const known = new Map(described.map((r) => [r.key, r]));
  const keys = Object.keys(rules).sort();
  const about = (k) => known.get(k)?.description || "";
  const short = (k) => (about(k).length > 70 ? `${about(k).slice(0, 67)}…` : about(k));
  const pick = h(
    "select",
    { id: "rule-key" },
    keys.map((k) => h("option", { value: k, title: k }, short(k) ? `${ruleTitle(k)} — ${short(k)}` : ruleTitle(k))),
  );
  const slot = h("div", { class: "field" });
  const hint = h("small", { class: "hint", id: "rule-about" });
  let input;
  const fill = () => {
    const rules = page.head.state?.house_rules || {}; // as of now: a change or rollback moves it
    const rule = known.get(pick.value) || { key: pick.value, kind: "object", default: rules[pick.value] };
    input = ruleInput(rule, rules[pick.value], "rule-value");
    input.el.setAttribute("aria-describedby", "rule-about");
    clear(slot, h("label", { for: "rule-value" }, `New value of “${ruleTitle(pick.value)}”`), input.el);
    hint.textContent =
      `${about(pick.value)} Now: ${ruleWords(rules[pick.value])}.` +
      `${rule.default !== undefined ? ` Default: ${ruleWords(rule.default)}.` : ""}`;
  };
  pick.addEventListener("change", fill);
  fill();
  const error = h("p", { class: "error", role: "alert" });
  const form = h("form", { class: "rule-change" },
    h("div", { class: "field" }, h("label", { for: "rule-key" }, "House rule"), pick), hint, slot,
    h("button", { type: "submit" }, "Change the house rule"), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const rule = pick.value;
    try {
      const value = input.read();
      await post(`/campaigns/${page.id}/house-rules`, { key: rule, value }, key());
      toast(`House rule “${ruleTitle(rule)}” is now ${ruleWords(value)}`);
      await page.changed();
      // the live stream may have shown the change first and the owner moved on to another rule:
      // re-filling then would put back the rule's current value in place of what is being typed
      if (pick.value === rule) fill();
    } catch (problem) {
      // the server names the field ("value"); the owner needs the rule's name
      const why = problem instanceof ApiError ? explain(problem) : problem.message;
      const said = why.startsWith(rule) ? why.slice(rule.length).replace(/^:\s*/, "") : why;
      error.textContent = `House rule “${ruleTitle(rule)}” (${rule}): ${said}`;
    }
  });
  return [
    h(
      "details",
      {},
      h("summary", {}, `The ${keys.length} rules in force`),
      h(
        "dl",
        { class: "facts rules" },
        keys.map((k) => [
          h("dt", { title: `${k}: ${about(k)}` }, ruleTitle(k)),
          h("dd", { dataset: { rule: k } }, ruleWords(rules[k])),
        ]),
      ),
    ),
    form,
  ];
}

// A member by a name a person gave: the token's name, unless it is the random one the server
// gives an invitation's or a share link's token ("invite-…", "share-…"): then what it is for.
export function memberName(m) {
  const name = m.name || "";
  if (/^invite-/.test(name)) return m.seat ? `seat ${m.seat} (invited)` : `${m.role} (invited)`;
  if (/^share-/.test(name)) return "viewer link";
  return name || m.token_id;
}

// Seats and invitations: the members, an invitation per seat and role, the viewer link.
/** @param {CampaignPage} page */
function seats(page) {
  const list = h("ul", { class: "members plain" });
  const links = h("div", { class: "invites", "aria-live": "polite" });
  const load = async () => {
    let members = [];
    try {
      members = (await get(`/campaigns/${page.id}/members`)).items || [];
    } catch (error) {
      clear(list, h("li", { class: "muted" }, `Members unavailable: ${explain(error)}`));
      return;
    }
    // owners first, then the seats in order, then viewers and auditors
    const rank = { owner: 0, player: 1, auditor: 2, viewer: 3 };
    members.sort(
      (a, b) => (rank[a.role] ?? 9) - (rank[b.role] ?? 9) || String(a.seat ?? "").localeCompare(String(b.seat ?? "")),
    );
    const held = new Set(members.map((m) => m.seat).filter(Boolean));
    for (const button of seatButtons) button.hidden = held.has(button.dataset.seat); // invited already
    clear(
      list,
      members.map((m) =>
        h(
          "li",
          { dataset: { member: m.token_id, role: m.role, seat: m.seat ?? "" } },
          `${memberName(m)}: ${m.role}` +
            `${m.seat && !memberName(m).includes(`seat ${m.seat}`) ? `, seat ${m.seat}` : ""} `,
          m.role === "owner"
            ? null
            : h("button", { type: "button", class: "small", onclick: () => remove(m) }, `Remove ${memberName(m)}`),
        ),
      ),
    );
  };
  const remove = async (m) => {
    try {
      await del(`/campaigns/${page.id}/members/${encodeURIComponent(m.token_id)}`);
      toast(`${memberName(m)} is no longer a member`);
    } catch (error) {
      toast(
        error instanceof ApiError && (error.status === 404 || error.status === 405)
          ? "This server cannot remove members yet."
          : explain(error),
        true,
      );
    }
    await load();
  };
  const invite = async (role, seat) => {
    const what = seat ? `seat ${seat}` : `a ${role}`;
    try {
      const made = await post(`/campaigns/${page.id}/invites`, seat ? { role, seat } : { role }, key());
      const url = await linkWithPolicy(new URL(made.url, location.origin).href, page.linkPolicy.checked);
      const id = `invite-${role}-${seat || made.token_id}`;
      links.append(
        h(
          "p",
          { class: "invite", dataset: { inviteRole: role, inviteSeat: seat || "" } },
          h("label", { for: id }, `Invite link for ${what}: `),
          h("input", { id, readonly: true, value: url, size: 40 }),
          " ",
          h(
            "button",
            {
              type: "button",
              class: "small",
              onclick: () =>
                navigator.clipboard?.writeText(url).then(
                  () => toast(`Copied the link for ${what}`),
                  () => toast("Copy it from the box: this browser does not let the page copy", true),
                ),
            },
            "Copy",
          ),
        ),
      );
      await load();
      // The seat is held now: the page's own forms stop offering it (GET /members, again).
      if (seat) await page.show();
    } catch (error) {
      links.append(
        h(
          "p",
          { class: "error" },
          `No invitation for ${what}: ` +
            `${error.status === 404 ? "this server cannot make invitations yet" : explain(error)}`,
        ),
      );
    }
  };
  const players = page.head.game === "calendar-board" ? page.head.state?.players || [] : [null];
  const seatButtons = players.map((seat) =>
    h(
      "button",
      { type: "button", class: "small", dataset: { seat: seat ?? "" }, onclick: () => invite("player", seat) },
      seat ? `Invite seat ${seat}` : "Invite a player",
    ),
  );
  const buttons = [
    ...seatButtons,
    h("button", { type: "button", class: "small", onclick: () => invite("viewer") }, "Invite a viewer"),
    h("button", { type: "button", class: "small", onclick: () => invite("auditor") }, "Invite an auditor"),
    h("button", { type: "button", class: "small", onclick: () => page.share() }, "Share a view-only link"),
  ];
  // the host's witness policy (GET /log/policy) in the links' fragment, for the table to check by
  page.linkPolicy = h("input", { type: "checkbox", id: "link-policy", dataset: { linkPolicy: "" } });
  const withPolicy = h(
    "p",
    { class: "check" },
    page.linkPolicy,
    " ",
    h("label", { for: "link-policy" }, "Put the host's witness policy in the links made below"),
  );
  load();
  return h("div", { class: "owner-seats" }, h("h3", {}, "Seats and invitations"), list, withPolicy,
    h("p", { class: "actions" }, buttons.map((b) => [b, " "])), links, page.shareOut);
}

/** @param {CampaignPage} page */
export function ownerCard(page) {
  return h("section", { class: "card owner", tabindex: "-1", "aria-label": "Owner's controls" },
    h("h2", {}, "Owner's controls"), diceAndAudit(page), houseRules(page), seats(page));
}

// The house rules shown follow the campaign (a change, a rollback): their values are written again.
export function updateOwnerCard(card, state) {
  const rules = state?.house_rules || {};
  for (const dd of card.querySelectorAll("dd[data-rule]")) dd.textContent = ruleWords(rules[dd.dataset.rule]);
}
