// The table page's entry: sign in, pick or start a campaign, or verify a bundle; routed by the
// address. When a page has finished loading, body[data-ready="true"] (ui.js, ready()).
import { ApiError, LIFETIME_DAYS, dropLinkToken, forgetDevice, get, keepLinkToken, linkToken, linkTokens, setToken, signedInToken, token, useCampaign } from "./api.js";
import { verifyPage } from "./bundle.js";
import { campaignPage } from "./campaign.js";
import { clear, h } from "./dom.js";
import { newCampaign } from "./newcampaign.js";
import { ready } from "./ui.js";

const GAME_NAMES = { "quest-calendar": "Quest Calendar", "calendar-board": "The Calendar Board" };

const main = document.getElementById("main");
const who = document.getElementById("who");
const campaignPath = /^\/app\/campaigns\/([^/]+)$/;

// A share or invite link carries its token in the fragment, which never reaches a server: keep it
// for this campaign on this device (api.js) and take it out of the address bar (and so out of the
// history and any copied link).
function readShareLink() {
  const match = /^#token=(.+)$/.exec(location.hash);
  if (!match) return;
  const secret = decodeURIComponent(match[1]);
  const campaign = campaignPath.exec(location.pathname);
  if (campaign) keepLinkToken(decodeURIComponent(campaign[1]), secret);
  else setToken(secret);
  history.replaceState(null, "", location.pathname + location.search);
}

function signedIn() {
  const out = signedInToken() ? h("button", { type: "button", class: "small", onclick: () => { setToken(null); location.assign("/app/"); } }, "Sign out") : null;
  const forget = h("button", { type: "button", class: "small", onclick: () => { forgetDevice(); location.assign("/app/"); } }, "Forget this device");
  clear(who, out, " ", token() || Object.keys(linkTokens()).length ? forget : null);
}

function linkedCampaigns() {
  const ids = Object.keys(linkTokens());
  if (!ids.length) return null;
  return h("section", { class: "card linked wide" }, h("h2", {}, "Opened by link on this device"),
    h("ul", { class: "campaigns" }, ids.map((id) => h("li", {}, h("a", { href: `/app/campaigns/${id}` }, `campaign ${id.slice(0, 8)}…`)))));
}

function signIn(message) {
  const input = h("input", { id: "token", name: "token", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
  const keep = h("input", { id: "keep-signed-in", type: "checkbox" });
  const error = h("p", { class: "error", role: "alert" }, message || "");
  const form = h("form", { class: "card signin" },
    h("h1", {}, "Sign in"),
    h("p", {}, "Paste your Questlog API token. It stays in this tab only (sessionStorage) and is sent to this server alone."),
    h("div", { class: "field" }, h("label", { for: "token" }, "API token"), input),
    h("p", { class: "check" }, keep, h("label", { for: "keep-signed-in" }, ` Keep me signed in on this device for ${LIFETIME_DAYS} days (localStorage)`)),
    h("button", { type: "submit" }, "Sign in"), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setToken(input.value.trim(), { keep: keep.checked });
    try {
      await get("/campaigns?limit=1");
      await route();
    } catch (problem) {
      setToken(null);
      error.textContent = problem instanceof ApiError && problem.status === 401 ? "That token is not valid (unknown or revoked)." : `Could not sign in: ${problem.message}`;
    }
  });
  clear(main, form, linkedCampaigns());
  input.focus();
  ready(true);
}

async function campaignList() {
  const list = h("ul", { class: "campaigns" });
  const more = h("button", { type: "button", class: "small", hidden: true }, "More campaigns");
  let after = null;
  const load = async () => {
    const page = await get(`/campaigns?limit=50${after !== null ? `&after=${after}` : ""}`);
    for (const c of page.items) {
      list.append(h("li", {}, h("a", { href: `/app/campaigns/${c.id}` }, c.name), ` · ${GAME_NAMES[c.game] || c.game} · started ${String(c.created_at).slice(0, 10)}`));
    }
    after = page.next_after;
    more.hidden = after === null || after === undefined;
  };
  more.addEventListener("click", load);
  const open = h("input", { id: "open-id", placeholder: "campaign id" });
  const form = h("form", { class: "inline" }, h("label", { for: "open-id" }, "Open a campaign by id"), open, h("button", { type: "submit" }, "Open"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    location.assign(`/app/campaigns/${encodeURIComponent(open.value.trim())}`);
  });
  const slot = h("div", { class: "new-slot" });
  const start = h("button", { type: "button", onclick: () => newCampaign(slot, start) }, "New campaign");
  clear(main, h("section", { class: "card wide" }, h("h1", {}, "Your campaigns"), h("p", {}, start), slot, list, more, form), linkedCampaigns());
  await load();
  if (!list.children.length) list.append(h("li", { class: "muted" }, "No campaign this token may see."));
}

async function route() {
  ready(false);
  const path = location.pathname;
  const campaign = campaignPath.exec(path);
  const id = campaign ? decodeURIComponent(campaign[1]) : null;
  useCampaign(id);
  signedIn();
  if (path === "/app/verify") {
    verifyPage(main);
    return ready(true);
  }
  if (!token()) return signIn();
  try {
    if (campaign) await campaignPage(main, id);
    else await campaignList();
    return ready(true);
  } catch (problem) {
    if (problem instanceof ApiError && problem.status === 401) {
      if (id && linkToken()) {
        dropLinkToken(id);
        if (signedInToken()) {
          ready(true);
          return route();
        }
        return signIn("The link's token no longer works (revoked or expired); sign in, or ask for a new link.");
      }
      setToken(null);
      return signIn("That token no longer works; sign in again.");
    }
    clear(main, h("section", { class: "card" }, h("h1", {}, "Cannot show this"), h("p", { class: "error", role: "alert" }, problem.message)));
    ready(true);
  }
}

readShareLink();
route();
