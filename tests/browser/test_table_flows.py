"""The table page: a campaign started on the page, the owner's controls, the board
drawn from the campaign's layout, the head hash and the past view following the version shown,
and link tokens kept per campaign (on the device when asked) until "Forget this device"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.helpers import shown_version, unlabelled, verdicts, wait_for_version
from tests.browser.page_table import Effort, open_new_campaign
from tests.browser.server import Server
from tests.fixtures.make_release_store import HERO

pytestmark = pytest.mark.browser

PATHWAY_2 = {"kind": "pathway", "space": 2}
LAYOUT = ["start", "normal", "hail", "supply", "fog", "end"]
SAMPLES = {
    "heroes": [],
    "setups": [
        {
            "name": "A short duel",
            "setup": {
                "players": [
                    {"id": "A", "pieces": [{"id": "a1", "location": PATHWAY_2}]},
                    {"id": "B", "pieces": [{"id": "b1", "location": {"kind": "home"}}]},
                ]
            },
            "house_rules": {"cb.calendar.layout": LAYOUT},
        }
    ],
}


def ready(page: Any) -> None:
    """The page has finished loading or refreshing (body[data-ready], docs/table-page.md)."""
    page.wait_for_selector('body[data-ready="true"]')


def created_bodies(page: Any) -> list[dict[str, Any]]:
    """Every POST /campaigns body the page sends, as it sends it."""
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            r.method == "POST"
            and r.url.endswith("/campaigns")
            and sent.append(json.loads(r.post_data or "null"))
        ),
    )
    return sent


def test_a_quest_calendar_campaign_started_on_the_page(open_page: Any, server: Server) -> None:
    """With a hero saved on this device (heroes.js), chosen in the form: the campaign, then its
    select_hero, each body exactly what the form was given."""
    page, _ = open_page("owner")
    sent = created_bodies(page)
    commands: list[Any] = []
    page.on(
        "request",
        lambda r: r.url.endswith("/commands") and commands.append(json.loads(r.post_data or "{}")),
    )
    page.goto(server.url("/app/"))
    ready(page)
    mine = {"phase": "main", "hero": HERO}
    page.evaluate(
        "async (hero) => (await import('/app/static/heroes.js')).saveHero('My scout', hero)", mine
    )
    open_new_campaign(Effort(), page, "quest-calendar", "Started on the page")
    page.get_by_label("The prologue is complete").check()
    page.get_by_label("Hero", exact=True).select_option(label="My scout (saved on this device)")
    page.locator("details.house-rules summary").click()
    rule = page.locator('[data-rule="rollback_over_server_rolls"] select')
    default = rule.input_value()
    other = next(
        json.loads(v)
        for v in rule.locator("option").evaluate_all("os => os.map(o => o.value)")
        if v != default
    )
    rule.select_option(json.dumps(other))
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url("**/app/campaigns/*")
    ready(page)
    assert shown_version(page) == 2
    assert sent == [
        {
            "game": "quest-calendar",
            "name": "Started on the page",
            "setup": {"prologue_complete": True},
            "house_rules": {"rollback_over_server_rolls": other},
        }
    ]
    assert commands == [{"type": "select_hero", **mine}]
    page.locator('section[aria-label="Hero"]').get_by_text(HERO["name"]).wait_for()
    cid = page.url.rsplit("/", 1)[1]
    _, campaign = server.call("GET", f"/campaigns/{cid}")
    assert campaign["state"]["house_rules"]["rollback_over_server_rolls"] == other


def test_a_match_started_on_the_page_from_a_sample_setup(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    sent = created_bodies(page)
    page.route("**/samples", lambda route: route.fulfill(json=SAMPLES))
    page.goto(server.url("/app/"))
    open_new_campaign(Effort(), page, "calendar-board", "A match from the page")
    expect(page.locator(".setup-builder .player")).to_have_count(2)
    first = page.locator(".setup-builder .player").first
    first.get_by_role("button", name="Add a weapon").click()
    first.get_by_label("Weapon id").fill("sword")
    # the starting player is picked from the players as named now (the first by default)
    start = page.get_by_label("Starting player")
    assert start.locator("option").all_inner_texts() == ["(the first player)", "A", "B"]
    first.get_by_label("Player id").fill("Ann")
    expect(start.locator("option")).to_have_text(["(the first player)", "Ann", "B"])
    first.get_by_label("Player id").fill("A")
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url("**/app/campaigns/*")
    ready(page)
    assert sent == [
        {
            "game": "calendar-board",
            "name": "A match from the page",
            "setup": {
                "players": [
                    {
                        "id": "A",
                        "pieces": [{"id": "a1", "location": {"kind": "pathway", "space": 2}}],
                        "weapons": [{"id": "sword", "kind": "melee"}],
                    },
                    {"id": "B", "pieces": [{"id": "b1", "location": {"kind": "home"}}]},
                ]
            },
            "house_rules": {"cb.calendar.layout": LAYOUT},
        }
    ]
    # the board is the campaign's own layout: six spaces, each with its type
    spaces = page.locator(".track [data-space]")
    expect(spaces).to_have_count(len(LAYOUT))
    types = spaces.evaluate_all("gs => gs.map(g => [g.dataset.space, g.dataset.spaceType])")
    assert types == [[str(k), t] for k, t in enumerate(LAYOUT)]
    expect(page.locator('.track [data-space="0"]')).to_have_class("space type-start god")
    expect(page.locator('.pathway [data-pathway-space="2"]')).to_contain_text("a1 (A)")
    # the owner holds no seat and nobody was invited to A: A is to play, at the owner's screen
    expect(page.locator("[data-turn]")).to_have_attribute("data-turn", "yours")
    expect(page.locator("[data-turn]")).to_have_text("A's turn: you play for A")


def test_the_turn_banner_follows_the_seat(open_page: Any, server: Server) -> None:
    owner, _ = open_page("owner")
    owner.goto(server.campaign_url("match"))
    ready(owner)
    banner = owner.locator("[data-turn]")
    expect(banner).to_have_attribute("data-turn", "yours")
    expect(banner).to_have_text("Your turn")
    bee, _ = open_page("bee")
    bee.goto(server.campaign_url("match"))
    ready(bee)
    expect(bee.locator("[data-turn]")).to_have_text("Waiting for A")
    hail, _ = open_page("owner")
    hail.goto(server.campaign_url("hail"))
    ready(hail)
    expect(hail.locator("[data-turn]")).to_have_attribute("data-turn", "decision")
    expect(hail.locator("[data-turn]")).to_contain_text("Night 4: the calendar roll.")
    shown = hail.inner_text('section[aria-label="Calendar"]') + hail.inner_text("[data-turn]")
    assert "null" not in shown


def test_the_owners_controls(open_page: Any, server: Server) -> None:
    status, created = server.call(
        "POST", "/campaigns", {"game": "quest-calendar", "name": "Owner's controls"}
    )
    assert status == 201
    cid = created["id"]
    for n in range(2):
        server.call("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": f"r{n}"})
    page, watch = open_page("owner")
    watch.allowed.append(("/members", (404, 405)))
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    assert set(verdicts(page).values()) == {"awaiting-reveal"}
    card = page.locator('section[aria-label="Owner\'s controls"]')
    card.get_by_role("button", name="Run the audit").click()
    expect(card.locator("[data-audit]")).to_have_attribute("data-audit", "ok")
    expect(card.locator("[data-audit]")).to_contain_text("2 awaiting the seed's reveal")
    card.get_by_role("button", name="Reveal the seed").click()
    card.get_by_role("group", name="Reveal the seed?").get_by_role("button", name="Reveal").click()
    wait_for_version(page, 4)
    ready(page)
    assert set(verdicts(page).values()) == {"verified"}
    card.get_by_label("House rule").select_option("dice_mode")
    card.get_by_label("New value of “Dice mode”").select_option(label="server")
    card.get_by_role("button", name="Change the house rule").click()
    wait_for_version(page, 5)
    expect(card.locator('dd[data-rule="dice_mode"]')).to_have_text("server")
    card.get_by_role("button", name="Share a view-only link").click()
    assert "#token=" in page.get_by_label("View-only link").input_value()
    card.get_by_role("button", name="Invite a viewer").click()
    expect(card.locator(".invites")).to_contain_text("viewer")
    expect(card.locator(".members li").first).to_contain_text("owner")


def test_the_head_hash_and_the_past_view_follow_the_version(open_page: Any, server: Server) -> None:
    cid = server.seeded.campaigns["qc"]
    _, events = server.call("GET", f"/campaigns/{cid}/events?limit=100")
    hashes = {e["version"]: e["hash"] for e in events["items"]}
    page, _ = open_page("owner")
    page.goto(server.campaign_url("qc", "?version=11"))
    wait_for_version(page, 11)
    ready(page)
    expect(page.locator("[data-head-hash]")).to_have_attribute("data-head-hash", hashes[11])
    shown = page.locator(".timeline .event").evaluate_all("es => es.map(e => +e.dataset.version)")
    assert shown and max(shown) == 11
    rolls = verdicts(page)
    assert rolls and all(int(rid.split("-")[0]) <= 11 for rid in rolls)
    page.get_by_role("button", name="Step back").click()
    wait_for_version(page, 10)
    ready(page)
    expect(page.locator("[data-head-hash]")).to_have_attribute("data-head-hash", hashes[10])
    page.get_by_role("button", name="Now").click()
    head = max(hashes)
    wait_for_version(page, head)
    expect(page.locator("[data-head-hash]")).to_have_attribute("data-head-hash", hashes[head])


def test_rollback_and_fork_only_where_a_command_ends(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("cb"))
    ready(page)
    inside = page.locator('.timeline .event[data-ends="false"]')
    assert inside.count() > 0, "the seeded match has commands of several events"
    assert inside.locator("[data-rollback-to], button").count() == 0
    ends = page.locator('.timeline .event[data-ends="true"]')
    assert ends.locator("[data-rollback-to]").count() > 0
    # a rollback's reason can be cancelled, and nothing is sent
    before = shown_version(page)
    button = ends.locator("[data-rollback-to]").first
    target = button.get_attribute("data-rollback-to")
    button.click()
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator(f'[data-rollback-to="{target}"]')).to_have_count(1)
    assert shown_version(page) == before


def test_a_link_survives_a_new_tab_and_a_new_browser_until_forgotten(
    browser: Any, open_page: Any, server: Server
) -> None:
    cid = server.seeded.campaigns["qc"]
    status, link = server.call("POST", f"/campaigns/{cid}/share", {})
    if status == 404:
        pytest.skip("needs the share route")
    guest, _ = open_page()
    guest.goto(server.url(link["url"]))
    guest.get_by_text("you are viewer").wait_for()
    assert "#token" not in guest.url
    # kept on the device only when asked, as "Keep me signed in on this device" does
    assert guest.evaluate("localStorage.getItem('questlog.links')") is None
    guest.get_by_label("Keep this link on this device").check()
    kept = json.loads(guest.evaluate("localStorage.getItem('questlog.links')"))
    assert kept[cid]["token"] == link["token"]
    # a new tab of the same browser: the address alone, no token in it
    tab = guest.context.new_page()
    tab.goto(server.campaign_url("qc"))
    tab.get_by_text("you are viewer").wait_for()
    # a new browser session with what this one kept on disk (its localStorage)
    state = guest.context.storage_state()
    later = browser.new_context(storage_state=state)
    try:
        again = later.new_page()
        again.goto(server.campaign_url("qc"))
        again.get_by_text("you are viewer").wait_for()
        again.get_by_role("button", name="Forget this device").click()
        again.get_by_label("API token").wait_for()
        assert again.evaluate("localStorage.getItem('questlog.links')") is None
        again.goto(server.campaign_url("qc"))
        again.get_by_label("API token").wait_for()
    finally:
        later.close()


@pytest.mark.parametrize("game", ["quest-calendar", "calendar-board"])
def test_the_new_campaign_form_at_390_pixels_wide(
    open_page: Any, server: Server, game: str
) -> None:
    page, _ = open_page("owner", width=390)
    page.goto(server.url("/app/"))
    page.get_by_role("button", name="New campaign").click()
    page.get_by_label("Game").select_option(game)
    page.locator("details.house-rules summary").click()
    ready(page)
    assert unlabelled(page) == []
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0


def test_an_invite_link_seats_its_player_in_a_new_tab_and_browser(
    browser: Any, open_page: Any, server: Server
) -> None:
    cid = server.seeded.campaigns["invite-match"]
    _, campaign = server.call("GET", f"/campaigns/{cid}")
    seat = campaign["state"]["players"][-1]
    status, invite = server.call(
        "POST", f"/campaigns/{cid}/invites", {"role": "player", "seat": seat, "name": "invited"}
    )
    if status in (404, 405):
        pytest.skip("needs the invites route (POST /campaigns/{id}/invites answers 404)")
    assert status == 201, invite
    player, _ = open_page()
    player.goto(server.url(invite["url"]))
    player.get_by_text(f"you are player (seat {seat})").wait_for()
    player.get_by_label("Keep this link on this device").check()  # for a new tab and browser
    tab = player.context.new_page()
    tab.goto(server.url(f"/app/campaigns/{cid}"))
    tab.get_by_text(f"you are player (seat {seat})").wait_for()
    later = browser.new_context(storage_state=player.context.storage_state())
    try:
        again = later.new_page()
        again.goto(server.url(f"/app/campaigns/{cid}"))
        again.get_by_text(f"you are player (seat {seat})").wait_for()
    finally:
        later.close()
