"""The table page's snags found by a new user's trial (the page2 brief), one test each: a half
typed answer wiped by someone else's roll, the chain line's "all 50 events", long words breaking
the layout, the setup builder's bounds, the seats "All commands" offers, rollback proposals from
the page, unhelpful page-side errors, and small form points (date help, faces, link tokens)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import wait_for_version
from tests.browser.page_table import Effort, open_new_campaign
from tests.browser.server import Server
from tests.browser.test_table_flows import created_bodies

pytestmark = pytest.mark.browser
Json = dict[str, Any]
# spelled apart: this file names no rule it tests (docs/rules.md indexes the ones that do)
AMBUSH_RULE, SUPPLY_RULE = "CB-" + "35", "CB-" + "15"
TWO = {"players": [{"id": "A"}, {"id": "B"}]}
THREE = {"players": [{"id": "A"}, {"id": "B"}, {"id": "C"}]}
AMBUSH = {
    "decision": "ambush_target",
    "who": "A",
    "rule": AMBUSH_RULE,
    "commands": ["choose_ambush", "fate_reroll"],
    "options": [
        {"piece": "a1", "target": "b1", "from": 1, "to": 4},
        {"piece": "a1", "target": "b2", "from": 1, "to": 4},
    ],
    "context": {"d6": 3, "order_index": 0, "roll": "ambush", "roll_id": "9-1"},
}
SUPPLY = {
    "decision": "supply_weapon",
    "who": "A",
    "rule": SUPPLY_RULE,
    "commands": ["choose_supply_weapon"],
    "options": ["bow", "crossbow"],
    "context": {"space_index": 5, "may_decline": True},
}


def ready(page: Any) -> None:
    """The page has finished loading or refreshing (body[data-ready], docs/table-page.md)."""
    page.wait_for_selector('body[data-ready="true"]')


def new_campaign(server: Server, body: Json) -> str:
    status, created = server.call("POST", "/campaigns", body)
    assert status == 201, created
    return str(created["id"])


def roll(server: Server, cid: str, purpose: str = "elsewhere") -> int:
    """A roll made by someone else (through the API): the version it made."""
    status, rolled = server.call(
        "POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": purpose}
    )
    assert status == 201, rolled
    return int(rolled["version"])


def invite(server: Server, cid: str, seat: str) -> str:
    """An invite link for ``seat``: its address, with the token after '#'."""
    status, made = server.call(
        "POST", f"/campaigns/{cid}/invites", {"role": "player", "seat": seat, "name": f"p-{seat}"}
    )
    assert status == 201, made
    return server.url(made["url"])


def as_admin(page: Any) -> None:
    """GET /me answers as for the server's admin token, which holds no seat."""

    def answer(route: Any) -> None:
        me = route.fetch().json()
        route.fulfill(json={**me, "admin": True, "role": "admin", "seat": None})

    page.route("**/campaigns/*/me", answer)


def all_commands(page: Any) -> Any:
    """The "All commands" list, open."""
    details = page.locator("details.all-commands")
    details.locator("li[data-command]").first.wait_for(state="attached")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    return details


def toast(page: Any) -> Any:
    return page.locator("#toast")


def settled(page: Any, server: Server, cid: str) -> int:
    """The page shows the campaign's head, and has finished showing it: the head's version."""
    _, now = server.call("GET", f"/campaigns/{cid}")
    wait_for_version(page, now["version"])
    ready(page)
    return int(now["version"])


# -- 1. a half-typed decision answer is wiped when anyone else acts ---------------------------


def test_a_half_typed_decision_answer_survives_someone_elses_roll(
    open_page: Any, server: Server
) -> None:
    """The ambush's answer and its half-typed form, focus included, stay through a refresh at a
    new version that leaves the decision as it was; a changed decision rebuilds the section."""
    cid = new_campaign(server, {"game": "calendar-board", "name": "Half typed", "setup": TWO})
    asked = {"pending": AMBUSH}
    page, _ = open_page("owner")

    def with_pending(route: Any) -> None:
        response = route.fetch()
        campaign = response.json()
        campaign["state"]["pending"] = asked["pending"]
        route.fulfill(response=response, body=json.dumps(campaign))

    page.route(lambda url: urlsplit(url).path == f"/campaigns/{cid}", with_pending)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    section = page.locator('section[aria-label="Pending decision"]')
    expect(section.locator(".whose")).to_have_text("Your decision (as A)")
    ready(page)
    form = section.locator('form[data-command="choose_ambush"]')
    form.get_by_label("Answer").select_option(label="a1 ambushes b2 (space 1 → 4)")
    typed = form.get_by_label("form")
    typed.fill("surprise att")
    typed.evaluate("e => { e.dataset.mark = 'the same control'; }")
    expect(typed).to_be_focused()
    version = roll(server, cid)
    wait_for_version(page, version)
    ready(page)
    expect(typed).to_have_value("surprise att")
    expect(typed).to_have_attribute("data-mark", "the same control")
    expect(form.get_by_label("Answer")).to_have_value("1")
    expect(typed).to_be_focused()
    # a changed decision is shown as the new one
    asked["pending"] = SUPPLY
    wait_for_version(page, roll(server, cid))
    ready(page)
    expect(section.locator(".question")).to_contain_text("supply weapon")
    expect(section.locator('form[data-command="choose_ambush"]')).to_have_count(0)


# -- 2. the chain line says "all 50 events" when the log has more ---------------------------


def test_the_chain_line_counts_the_newest_events_on_first_load(
    open_page: Any, server: Server
) -> None:
    cid = new_campaign(server, {"game": "quest-calendar", "name": "More than a page"})
    for n in range(60):
        version = roll(server, cid, f"roll {n}")
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    wait_for_version(page, version)
    ready(page)
    chain = page.locator("p.chain")
    expect(chain).to_have_attribute("data-chain", "ok")
    expect(chain).to_contain_text("the newest 50 events")
    assert "all 50" not in chain.inner_text()
    page.get_by_role("button", name="Older events").click()
    expect(chain).to_contain_text(f"all {version} events")


# -- 3. a long word breaks the layout -----------------------------------------------------------


@pytest.mark.parametrize("width", [390, 1280])
def test_long_unbroken_text_wraps_and_the_page_never_scrolls_sideways(
    open_page: Any, server: Server, width: int
) -> None:
    p, q = "P" * 80, "Q" * 80  # the longest ids a setup takes
    setup = {
        "players": [
            {"id": p, "pieces": [{"id": "p" * 80, "location": {"kind": "pathway", "space": 3}}]},
            {"id": q, "weapons": [{"id": "w" * 80, "kind": "melee"}]},
        ]
    }
    name = "N" * 200
    cid = new_campaign(server, {"game": "calendar-board", "name": name, "setup": setup})
    roll(server, cid, "R" * 500)
    roll(server, cid, "S" * 500)
    status, proposed = server.call(
        "POST",
        f"/campaigns/{cid}/rollback/proposals",
        {"to_version": 2, "reason": "W" * 500, "proposer": p},
    )
    assert status == 201, proposed
    page, _ = open_page("owner", width=width)

    def sideways() -> int:
        return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))

    page.goto(server.url(f"/app/campaigns/{cid}"))
    page.get_by_text("Open rollback proposals").wait_for()
    ready(page)
    expect(page.locator(".rolls [data-roll-id]")).to_have_count(2)
    assert sideways() <= 0
    # a toast of a long word (the roll's summary names its purpose) stays inside the window
    page.get_by_label("Dice", exact=True).fill("d6")
    page.get_by_label("Purpose").fill("T" * 500)
    page.get_by_role("button", name="Roll", exact=True).click()
    expect(toast(page)).to_contain_text("T" * 100)
    box = toast(page).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    ready(page)
    assert sideways() <= 0
    page.goto(server.url("/app/"))
    page.locator(f'a[href="/app/campaigns/{cid}"]').wait_for()
    assert sideways() <= 0


# -- 4. the setup builder's limits match the server's -------------------------------------------


def test_the_setup_builders_bounds_follow_the_house_rules_and_a_refusal_names_the_field(
    open_page: Any, server: Server
) -> None:
    page, watch = open_page("owner")
    watch.allowed.append(("/campaigns", (422,)))
    page.goto(server.url("/app/"))
    page.get_by_role("button", name="New campaign").click()
    ready(page)
    page.get_by_label("Game").select_option("calendar-board")
    ready(page)
    page.get_by_label("Name").fill("Bounded")
    first = page.locator(".setup-builder fieldset.player").first
    exhaustion = first.get_by_label("Exhaustion", exact=True)
    _, rules = server.call("GET", "/house-rules?game=calendar-board")
    most = next(r for r in rules["rules"] if r["key"] == "cb.exhaustion.max")
    expect(exhaustion).to_have_attribute("max", str(most["default"]))
    page.locator("details.house-rules summary").click()
    rule = page.locator('[data-rule="cb.exhaustion.max"] input')
    rule.fill("8")
    expect(exhaustion).to_have_attribute("max", "8")
    # a player added now is bounded as well, and the other numbers as the server bounds them
    page.get_by_role("button", name="Add a player").click()
    added = page.locator(".setup-builder fieldset.player").last
    expect(added.get_by_label("Exhaustion", exact=True)).to_have_attribute("max", "8")
    expect(added.get_by_label("Relationship")).to_have_attribute("max", "1000")
    added.get_by_role("button", name="Remove this player").last.click()
    exhaustion.fill("9")
    assert exhaustion.evaluate("e => e.validity.rangeOverflow")
    # past the browser's own check, the server's refusal names the field in words
    exhaustion.evaluate("e => e.removeAttribute('max')")
    page.get_by_role("button", name="Create the campaign").click()
    alert = page.locator("form.new-campaign .error")
    expect(alert).to_contain_text("Player 1 (A), exhaustion: must be at most 8")
    assert "players[0]" not in alert.inner_text()
    expect(exhaustion).to_have_attribute("aria-invalid", "true")
    expect(exhaustion).to_be_focused()


# -- 5. "All commands" offers only the seats this page plays -----------------------------------


def test_all_commands_offer_only_the_seats_this_page_plays(open_page: Any, server: Server) -> None:
    cid = new_campaign(server, {"game": "calendar-board", "name": "Seats offered", "setup": THREE})
    link = invite(server, cid, "B")

    def offered(page: Any) -> list[str]:
        all_commands(page).locator('[data-open-command="end_turn"]').click()
        select = page.locator('.form-slot form[data-command="end_turn"] [name="player"]')
        values: list[str] = select.locator("option").evaluate_all("os => os.map(o => o.value)")
        return values

    owner, _ = open_page("owner")
    owner.goto(server.url(f"/app/campaigns/{cid}"))
    ready(owner)
    assert offered(owner) == ["", "A", "C"]  # B has a player of its own
    admin, _ = open_page("owner")
    as_admin(admin)
    admin.goto(server.url(f"/app/campaigns/{cid}"))
    admin.get_by_text("you are admin").wait_for()
    ready(admin)
    assert offered(admin) == ["", "A", "C"]
    player, _ = open_page()
    player.goto(link)
    player.get_by_text("you are player (seat B)").wait_for()
    ready(player)
    assert offered(player) == ["", "B"]


# -- 6. rollback proposals from the page --------------------------------------------------------


def test_an_owner_proposes_as_the_first_seat_it_plays_and_is_told_whom_it_waits_for(
    open_page: Any, server: Server
) -> None:
    cid = new_campaign(server, {"game": "calendar-board", "name": "Proposed", "setup": THREE})
    roll(server, cid)
    head = roll(server, cid)
    link = invite(server, cid, "C")
    owner, _ = open_page("owner")
    owner.goto(server.url(f"/app/campaigns/{cid}"))
    ready(owner)
    owner.locator('[data-rollback-to="2"]').click()
    owner.get_by_label("Why roll back to version 2?").fill("a slip")
    with owner.expect_request(lambda r: r.url.endswith("/rollback/proposals")) as sent:
        owner.get_by_role("button", name="Confirm rollback").click()
    assert sent.value.post_data_json["proposer"] == "A"  # not "owner", which agrees for nobody
    expect(toast(owner)).to_contain_text("waiting for B, C to agree")
    expect(toast(owner)).to_contain_text("agree as B above")
    settled(owner, server, cid)
    owner.get_by_role("button", name="Agree as B").click()
    expect(toast(owner)).to_contain_text("Agreed as B; waiting for C to agree.")
    settled(owner, server, cid)
    # C's own agreement carries it out: C's page and the owner's (live) say it was a rollback
    player, _ = open_page()
    player.goto(link)
    player.get_by_text("you are player (seat C)").wait_for()
    ready(player)
    player.get_by_role("button", name="Agree as C").click()
    expect(toast(player)).to_have_text("Rolled back to version 2: a slip")
    assert settled(owner, server, cid) > head
    expect(toast(owner)).to_have_text("Rolled back to version 2: a slip")
    # and a status that stays says what the undo did, on both pages
    for page in (player, owner):
        expect(page.locator(".undone-status")).to_have_text("Undone: back to version 2 (a slip).")


def test_an_open_proposal_holds_the_undo_button_and_a_second_one_shows_the_servers_refusal(
    open_page: Any, server: Server
) -> None:
    """Trial snag: the same undo could be proposed twice. The server refuses a second open
    proposal to one version (409, rollback-proposal-open); the page's Undo button waits while one
    is open, and a rollback asked again from the timeline shows the server's words in its form."""
    cid = new_campaign(server, {"game": "calendar-board", "name": "Twice", "setup": TWO})
    roll(server, cid)
    head = roll(server, cid)
    body = {"to_version": head - 1, "reason": "the last roll", "proposer": "A"}
    status, proposed = server.call("POST", f"/campaigns/{cid}/rollback/proposals", body)
    assert status == 201, proposed
    page, watch = open_page("owner")
    watch.allowed.append(("/rollback/proposals", (409,)))
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    expect(page.locator("button.undo-last")).to_be_disabled()
    expect(page.locator(".undo-note")).to_contain_text("A proposal to undo this is open (by A)")
    page.locator(f'[data-rollback-to="{head - 1}"]').click()
    page.get_by_role("button", name="Confirm rollback").click()
    expect(page.locator("form.rollback-reason [role=alert]")).to_contain_text(
        "is open (by A; agreed: A): agree to it instead"
    )


# -- 7. page-side error messages -----------------------------------------------------------------

HUGE = "99999999999999999999999999"


def test_faces_too_big_are_refused_in_the_words_typed(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    posts: list[str] = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
    page.goto(server.campaign_url("play"))
    ready(page)
    page.get_by_label("Dice", exact=True).fill("d6")
    page.get_by_label("Purpose").fill("too big")
    page.get_by_label("Faces rolled by hand").fill(HUGE)
    page.get_by_role("button", name="Roll", exact=True).click()
    alert = page.locator("form.roll-form .error")
    expect(alert).to_contain_text(f"“{HUGE}” is not a whole number that fits")
    assert "e+" not in alert.inner_text()
    all_commands(page).locator('[data-open-command="play_lottery"]').click()
    form = page.locator('.form-slot form[data-command="play_lottery"]')
    form.get_by_label("My own dice").check()
    form.locator('[name="faces[0]"]').fill(HUGE)
    form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text(f"“{HUGE}” is not a whole number that fits")
    assert posts == []


def test_open_by_id_takes_an_id_or_a_link_and_says_what_else_is_not(
    open_page: Any, server: Server
) -> None:
    page, _ = open_page("owner")
    page.goto(server.url("/app/"))
    ready(page)
    field = page.get_by_label("Open a campaign by id")
    field.fill("my campaign?!")
    page.get_by_role("button", name="Open", exact=True).click()
    expect(page.locator("form.open-by-id [role=alert]")).to_contain_text(
        "“my campaign?!” is not a campaign id"
    )
    assert urlsplit(page.url).path == "/app/"
    cid = server.seeded.campaigns["qc"]
    status, link = server.call("POST", f"/campaigns/{cid}/share", {})
    assert status == 201, link
    field.fill(server.url(link["url"]))
    page.get_by_role("button", name="Open", exact=True).click()
    page.get_by_text("you are viewer").wait_for()
    assert urlsplit(page.url).path == f"/app/campaigns/{cid}"


@pytest.mark.parametrize(("typed", "said"), [("\x01", "a control character (U+0001)")])
def test_a_token_with_a_control_character_is_refused_before_it_is_sent(
    open_page: Any, server: Server, typed: str, said: str
) -> None:
    page, _ = open_page()
    page.goto(server.url("/app/"))
    ready(page)
    asked: list[str] = []
    page.on("request", lambda r: "/campaigns" in r.url and asked.append(r.url))
    secret = server.seeded.tokens["owner"]
    page.get_by_label("API token").fill(f"{secret[:6]}{typed}{secret[6:]}")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("form.signin [role=alert]")).to_contain_text(f"{said} at character 7")
    assert asked == []


# -- 8. small form points ------------------------------------------------------------------------


def test_the_date_help_fits_the_picker_and_the_faces_placeholder_fits_the_die(
    open_page: Any, server: Server
) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("play"))
    ready(page)
    listed = all_commands(page)
    listed.locator('[data-open-command="start_page"]').click()
    form = page.locator('.form-slot form[data-command="start_page"]')
    expect(form.locator('[name="date"]')).to_have_attribute("type", "date")
    help_text = form.locator('[data-field="date"] .hint').inner_text()
    assert "YYYY" not in help_text and "MM-DD" not in help_text, help_text
    assert "date picker" in help_text
    for command, sides in (("play_lottery", 6), ("pickpocket", 4)):
        listed.locator(f'[data-open-command="{command}"]').click()
        faces = page.locator(f'.form-slot form[data-command="{command}"] [name="faces[0]"]')
        shown = [int(n) for n in re.findall(r"\d+", faces.get_attribute("placeholder") or "")]
        assert shown and all(1 <= face <= sides for face in shown), (command, shown)


def test_an_invite_link_is_kept_on_the_device_only_when_asked_and_signs_out(
    open_page: Any, server: Server
) -> None:
    cid = new_campaign(server, {"game": "calendar-board", "name": "Kept or not", "setup": TWO})
    link = invite(server, cid, "A")
    player, _ = open_page()
    player.goto(link)
    player.get_by_text("you are player (seat A)").wait_for()
    assert player.evaluate("localStorage.getItem('questlog.links')") is None
    assert cid in json.loads(player.evaluate("sessionStorage.getItem('questlog.tablinks')"))
    keep = player.get_by_label("Keep this link on this device")
    expect(keep).not_to_be_checked()
    expect(player.get_by_role("button", name="Sign out")).to_be_visible()
    # a reload of this tab still opens it; a new tab with the address alone asks to sign in, and
    # the link itself still opens it in a fresh tab
    player.reload()
    player.get_by_text("you are player (seat A)").wait_for()
    tab = player.context.new_page()
    tab.goto(server.url(f"/app/campaigns/{cid}"))
    tab.get_by_label("API token").wait_for()
    tab.goto(link)
    tab.get_by_text("you are player (seat A)").wait_for()
    # kept on the device when asked: a new tab opens it with the address alone
    player.get_by_label("Keep this link on this device").check()
    kept = json.loads(player.evaluate("localStorage.getItem('questlog.links')"))
    assert set(kept) == {cid}
    other = player.context.new_page()
    other.goto(server.url(f"/app/campaigns/{cid}"))
    other.get_by_text("you are player (seat A)").wait_for()
    # "Sign out" forgets it, here and on the device
    other.get_by_role("button", name="Sign out").click()
    other.get_by_label("API token").wait_for()
    assert other.evaluate("localStorage.getItem('questlog.links')") is None
    other.goto(server.url(f"/app/campaigns/{cid}"))
    other.get_by_label("API token").wait_for()


def test_a_double_click_on_create_makes_one_campaign(open_page: Any, server: Server) -> None:
    """A double click on "Create the campaign" sends one creation, not two: the button is off
    while the first is in flight (a fresh helper's trial made two identical campaigns)."""
    page, _ = open_page("owner")
    sent = created_bodies(page)
    page.goto(server.url("/app/"))
    open_new_campaign(Effort(), page, "quest-calendar", "Created once")
    page.get_by_role("button", name="Create the campaign").dblclick()
    page.wait_for_url("**/app/campaigns/*")
    ready(page)
    assert len(sent) == 1, sent
    status, listed = server.call("GET", "/campaigns?limit=100")
    assert status == 200, listed
    assert [c["name"] for c in listed["items"]].count("Created once") == 1
