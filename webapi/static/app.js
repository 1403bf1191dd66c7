// @ts-check
// The table page's entry: sign in, pick or start a campaign, verify a bundle, or read the analytics;
// routed by the address. When a page has finished loading, body[data-ready="true"] (ui.js, ready()).
import {
  ApiError,
  LIFETIME_DAYS,
  dropLinkToken,
  forgetDevice,
  get,
  keepLinkOnDevice,
  keepLinkToken,
  linkToken,
  linkTokens,
  setToken,
  signOut,
  signedInToken,
  token,
  useCampaign,
} from "./api.js";
import { analyticsPage } from "./analytics.js";
import { verifyPage } from "./bundle.js";
import { campaignPage } from "./campaign.js";
import { clear, h } from "./dom.js";
import { newCampaign } from "./newcampaign.js";
import { ready } from "./ui.js";
import { keepLinkPolicy } from "./witnessing.js";

const GAME_NAMES = { "quest-calendar": "Quest Calendar", "calendar-board": "The Calendar Board" };

const main = document.getElementById("main");
const who = document.getElementById("who");
const campaignPath = /^\/app\/campaigns\/([^/]+)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A share or invite link carries its token in the fragment, which never reaches a server: keep it
// for this campaign in this tab (api.js; on the device too once "Keep this link on this device" is
// ticked) and take it out of the address bar (and so out of the history and any copied link).
// Beside it, `policy=` (base64url) is the witness policy the table checks this campaign by
// (witnessing.js), kept for the campaign on this device.
const LINK_FRAGMENT = /^#(token|policy)=/;

async function readShareLink() {
  if (!LINK_FRAGMENT.test(location.hash)) return;
  const parts = new Map(
    location.hash
      .slice(1)
      .split("&")
      .map((part) => [part.slice(0, part.indexOf("=")), part.slice(part.indexOf("=") + 1)]),
  );
  const secret = parts.has("token") ? decodeURIComponent(parts.get("token")) : null;
  const campaign = campaignPath.exec(location.pathname);
  const campaignId = campaign ? decodeURIComponent(campaign[1]) : null;
  if (secret && campaignId) keepLinkToken(campaignId, secret);
  else if (secret) setToken(secret);
  history.replaceState(null, "", location.pathname + location.search);
  // checked before it is kept (a broken one is refused, the panel says so): awaited before the page
  if (parts.has("policy") && campaignId) await keepLinkPolicy(campaignId, decodeURIComponent(parts.get("policy")));
}

// The header: "Sign out" (the tokens this tab uses, whether signed in or opened by a link), for a
// campaign opened by a link whether to keep that link on this device (as "Keep me signed in on
// this device" does for a token pasted), and "Forget this device".
function signedIn(campaignId) {
  const out = token()
    ? h(
        "button",
        {
          type: "button",
          class: "small",
          onclick: () => {
            signOut();
            location.assign("/app/");
          },
        },
        "Sign out",
      )
    : null;
  const forget = h(
    "button",
    {
      type: "button",
      class: "small",
      onclick: () => {
        forgetDevice();
        location.assign("/app/");
      },
    },
    "Forget this device",
  );
  const link = campaignId ? linkTokens()[campaignId] : null;
  let keep = null;
  if (link) {
    const box = h("input", { id: "keep-link", type: "checkbox", checked: link.kept });
    box.addEventListener("change", () => keepLinkOnDevice(campaignId, box.checked));
    keep = h(
      "span",
      { class: "check keep-link" },
      box,
      h(
        "label",
        { for: "keep-link", title: "Kept in this browser's localStorage" },
        ` Keep this link on this device for ${LIFETIME_DAYS} days`,
      ),
    );
  }
  clear(who, keep, " ", out, " ", token() || Object.keys(linkTokens()).length ? forget : null);
}

// A token is printable ASCII without spaces: anything else (a tab, a line break, a character a
// document's formatting put in) is refused before it is sent, saying what and where, instead of
// the server's "Bad Request: Invalid header".
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const CONTROLS = { "\t": "a tab", "\n": "a line break", "\r": "a carriage return" };
function tokenProblem(text) {
  const bad = /[^\x21-\x7e]/u.exec(text);
  if (!bad) return null;
  const c = bad[0];
  const code = `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  const what =
    c === " "
      ? "a space"
      : CONTROL.test(c)
        ? `a control character (${CONTROLS[c] ? `${CONTROLS[c]}, ` : ""}${code})`
        : `“${c}” (${code}), which no token holds`;
  return (
    `That is not a token as it was given: it holds ${what} at ` +
    `character ${[...text.slice(0, bad.index)].length + 1}. Paste ` +
    `the token alone, exactly as it was given.`
  );
}

// "Open a campaign by id": a campaign id (a UUID), or a share or invite link of this server; the
// address to open, or {error} in words.
function campaignAddress(text) {
  const typed = text.trim();
  if (UUID.test(typed)) return { path: `/app/campaigns/${typed.toLowerCase()}` };
  let url = null;
  try {
    url = new URL(typed, location.origin);
  } catch {
    url = null;
  }
  const match = url && /^https?:$/.test(url.protocol) && /^\/app\/campaigns\/([^/]+)$/.exec(url.pathname);
  let id = null;
  try {
    id = match ? decodeURIComponent(match[1]) : null;
  } catch {
    id = null;
  }
  if (id && UUID.test(id) && url.origin === location.origin) return { path: url.pathname + url.search + url.hash };
  if (id && UUID.test(id))
    return { error: `That link is for another server (${url.host}): open it in the browser as it is.` };
  return {
    error:
      `“${typed.length > 60 ? `${typed.slice(0, 59)}…` : typed}” is ` +
      `not a campaign id. An id has 36 characters, like ` +
      `8f5e1c2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b; a share or invite link ` +
      `(…/app/campaigns/<id>#token=…) opens too.`,
  };
}

function linkedCampaigns() {
  const ids = Object.keys(linkTokens());
  if (!ids.length) return null;
  return h(
    "section",
    { class: "card linked wide" },
    h("h2", {}, "Opened by link on this device"),
    h(
      "ul",
      { class: "campaigns" },
      ids.map((id) => h("li", {}, h("a", { href: `/app/campaigns/${id}` }, `campaign ${id.slice(0, 8)}…`))),
    ),
  );
}

function signIn(message) {
  const input = h("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    required: true,
    spellcheck: "false",
  });
  const keep = h("input", { id: "keep-signed-in", type: "checkbox" });
  const error = h("p", { class: "error", role: "alert" }, message || "");
  const form = h(
    "form",
    { class: "card signin" },
    h("h1", {}, "Sign in"),
    h(
      "p",
      {},
      "Paste your Questlog API token. It stays in this tab only " +
        "(sessionStorage) and is sent to this server alone. Invited by a " +
        "link? Open that link again (or tick “Keep this link on this " +
        "device” when you do, so that new tabs find it).",
    ),
    h("div", { class: "field" }, h("label", { for: "token" }, "API token"), input),
    h(
      "p",
      { class: "check" },
      keep,
      h(
        "label",
        { for: "keep-signed-in", title: "Kept in this browser's localStorage" },
        ` Keep me signed in on this device for ${LIFETIME_DAYS} days`,
      ),
    ),
    h("button", { type: "submit" }, "Sign in"),
    error,
  );
  input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const problem = tokenProblem(input.value.trim());
    if (problem) {
      error.textContent = problem;
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    setToken(input.value.trim(), { keep: keep.checked });
    try {
      await get("/campaigns?limit=1");
      await route();
    } catch (problem) {
      setToken(null);
      error.textContent =
        problem instanceof ApiError && problem.status === 401
          ? "That token is not valid (unknown or revoked)."
          : `Could not sign in: ${problem.message}`;
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
      list.append(
        h(
          "li",
          {},
          h("a", { href: `/app/campaigns/${c.id}` }, c.name),
          ` · ${GAME_NAMES[c.game] || c.game} · started ${String(c.created_at).slice(0, 10)}`,
        ),
      );
    }
    after = page.next;
    more.hidden = after === null || after === undefined;
  };
  more.addEventListener("click", load);
  const open = h("input", {
    id: "open-id",
    placeholder: "campaign id, or a share link",
    required: true,
    spellcheck: "false",
    "aria-errormessage": "open-id-error",
  });
  const openError = h("p", { class: "error", role: "alert", id: "open-id-error" });
  const form = h(
    "form",
    { class: "inline open-by-id" },
    h("label", { for: "open-id" }, "Open a campaign by id"),
    open,
    h("button", { type: "submit" }, "Open"),
    openError,
  );
  open.addEventListener("input", () => open.removeAttribute("aria-invalid"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const address = campaignAddress(open.value);
    openError.textContent = address.error || "";
    if (address.error) {
      open.setAttribute("aria-invalid", "true");
      open.focus();
      return;
    }
    location.assign(address.path);
  });
  const slot = h("div", { class: "new-slot" });
  const start = h("button", { type: "button", onclick: () => newCampaign(slot, start) }, "New campaign");
  clear(
    main,
    h("section", { class: "card wide" }, h("h1", {}, "Your campaigns"), h("p", {}, start), slot, list, more, form),
    linkedCampaigns(),
  );
  await load();
  if (!list.children.length) list.append(h("li", { class: "muted" }, "No campaign this token may see."));
}

async function route() {
  ready(false);
  const path = location.pathname;
  const campaign = campaignPath.exec(path);
  const id = campaign ? decodeURIComponent(campaign[1]) : null;
  useCampaign(id);
  signedIn(id);
  if (path === "/app/verify") {
    verifyPage(main);
    return ready(true);
  }
  if (!token()) return signIn();
  try {
    if (campaign) await campaignPage(main, id);
    else if (path === "/app/analytics") await analyticsPage(main);
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
    clear(
      main,
      h(
        "section",
        { class: "card" },
        h("h1", {}, "Cannot show this"),
        h("p", { class: "error", role: "alert" }, problem.message),
      ),
    );
    ready(true);
  }
}

readShareLink().then(route);
// A link pasted over the address this tab shows already changes only the fragment: no new page
// is loaded. Its token is kept all the same, and the page starts again with it.
addEventListener("hashchange", () => {
  if (!LINK_FRAGMENT.test(location.hash)) return;
  readShareLink().then(() => location.reload());
});
