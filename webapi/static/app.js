// The table page's entry: sign in, pick a campaign, or verify a bundle; routed by the address.
import { ApiError, get, setToken, token } from "./api.js";
import { verifyPage } from "./bundle.js";
import { campaignPage } from "./campaign.js";
import { clear, h } from "./dom.js";

const main = document.getElementById("main");
const who = document.getElementById("who");

// A share link carries its token in the fragment, which never reaches a server: keep it for this
// tab and take it out of the address bar (and so out of the history and any copied link).
function readShareLink() {
  const match = /^#token=(.+)$/.exec(location.hash);
  if (!match) return;
  setToken(decodeURIComponent(match[1]));
  history.replaceState(null, "", location.pathname + location.search);
}

function signedIn() {
  clear(who, token() ? h("button", { type: "button", class: "small", onclick: () => { setToken(null); location.assign("/app/"); } }, "Sign out") : null);
}

function signIn(message) {
  const input = h("input", { id: "token", name: "token", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
  const error = h("p", { class: "error", role: "alert" }, message || "");
  const form = h("form", { class: "card signin" },
    h("h2", {}, "Sign in"),
    h("p", {}, "Paste your Questlog API token. It stays in this tab only (sessionStorage) and is sent to this server alone."),
    h("div", { class: "field" }, h("label", { for: "token" }, "API token"), input),
    h("button", { type: "submit" }, "Sign in"), error);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    setToken(input.value.trim());
    try {
      await get("/campaigns?limit=1");
      await route();
    } catch (problem) {
      setToken(null);
      error.textContent = problem instanceof ApiError && problem.status === 401 ? "That token is not valid (unknown or revoked)." : `Could not sign in: ${problem.message}`;
    }
  });
  clear(main, form);
  input.focus();
}

async function campaignList() {
  const list = h("ul", { class: "campaigns" });
  const more = h("button", { type: "button", class: "small", hidden: true }, "More campaigns");
  let after = null;
  const load = async () => {
    const page = await get(`/campaigns?limit=50${after !== null ? `&after=${after}` : ""}`);
    for (const c of page.items) {
      list.append(h("li", {}, h("a", { href: `/app/campaigns/${c.id}` }, c.name), ` · ${c.game} · started ${String(c.created_at).slice(0, 10)}`));
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
  clear(main, h("section", { class: "card" }, h("h2", {}, "Your campaigns"), list, more, form));
  await load();
  if (!list.children.length) list.append(h("li", { class: "muted" }, "No campaign this token may see."));
}

async function route() {
  signedIn();
  const path = location.pathname;
  if (path === "/app/verify") return verifyPage(main);
  if (!token()) return signIn();
  const campaign = /^\/app\/campaigns\/([^/]+)$/.exec(path);
  try {
    if (campaign) return await campaignPage(main, decodeURIComponent(campaign[1]));
    return await campaignList();
  } catch (problem) {
    if (problem instanceof ApiError && problem.status === 401) {
      setToken(null);
      return signIn("That token no longer works; sign in again.");
    }
    clear(main, h("section", { class: "card" }, h("h2", {}, "Cannot show this"), h("p", { class: "error", role: "alert" }, problem.message)));
  }
}

readShareLink();
route();
