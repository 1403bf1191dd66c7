"""After a new user's trial: rollback agreements for the seats no player holds, the
house-rule form, the seed's confirmation, the page's h1, phone widths and the charts' axes."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.server import Server

pytestmark = pytest.mark.browser


def ready(page: Any) -> None:
    """The page has finished loading or refreshing (body[data-ready], docs/table-page.md)."""
    page.wait_for_selector('body[data-ready="true"]')


def as_admin(page: Any) -> None:
    """GET /me answers as for an admin token without a seat (the trial's match creator)."""

    def answer(route: Any) -> None:
        me = route.fetch().json()
        route.fulfill(json={**me, "admin": True, "role": "admin", "seat": None})

    page.route("**/campaigns/*/me", answer)


def propose_as_b(server: Server, key: str) -> None:
    cid = server.seeded.campaigns[key]
    _, head = server.call("GET", f"/campaigns/{cid}")
    answers = []
    # a rollback may not land inside a command (409 not-held): the newest version where one may
    for to in range(head["version"] - 1, 0, -1):
        status, body = server.call(
            "POST",
            f"/campaigns/{cid}/rollback/proposals",
            {"to_version": to, "reason": "a slip", "proposer": "B"},
        )
        if status == 201:
            return
        answers.append(body)
        assert status == 409 and len(answers) < 30, answers


def test_a_proposal_offers_the_seats_each_caller_may_agree_for(
    open_page: Any, server: Server
) -> None:
    propose_as_b(server, "demo-match")
    page, _ = open_page("owner")
    as_admin(page)
    page.goto(server.campaign_url("demo-match"))
    page.get_by_text("Open rollback proposals").wait_for()
    proposal = page.locator(".proposal")
    expect(proposal.get_by_role("button", name="Agree as A")).to_be_visible()
    assert proposal.get_by_role("button", name="Agree as B").count() == 0  # B proposed
    # an owner's own token without a seat agrees for the seats nobody holds: here A, which it
    # plays at its own screen (webapi/http/access.py seat_check)
    plain, _ = open_page("owner")
    plain.goto(server.campaign_url("demo-match"))
    plain.get_by_text("Open rollback proposals").wait_for()
    expect(plain.locator(".proposal").get_by_role("button", name="Agree as A")).to_be_visible()
    cid = server.seeded.campaigns["demo-match"]
    _, match = server.call("GET", f"/campaigns/{cid}")
    waiting = [seat for seat in match["state"]["players"] if seat != "B"]  # B proposed
    expect(plain.locator(".proposal button")).to_have_text([f"Agree as {s}" for s in waiting])
    # once a player is invited to seat A, only that player agrees for it (the server refuses the
    # owner: tests/api/test_access.py), and the page says whom it waits for
    status, invited = server.call(
        "POST", f"/campaigns/{cid}/invites", {"role": "player", "seat": "A"}
    )
    assert status == 201, invited
    plain.reload()
    plain.get_by_text("Open rollback proposals").wait_for()
    # the same list for every reader: every seat still needed is named, the ones this page plays
    # too, and only those get a button
    still = ", ".join(waiting)
    expect(plain.locator(".proposal .said")).to_contain_text(f"Waiting for {still} to agree.")
    assert "Agree as A" not in plain.locator(".proposal button").all_inner_texts()


def test_the_page_title_is_its_h1_and_no_heading_level_is_skipped(
    open_page: Any, server: Server
) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("qc"))
    ready(page)
    page.wait_for_selector('section[aria-label="Hero"]')
    assert page.locator("h1").all_inner_texts() == [page.locator("section.title h1").inner_text()]
    levels = page.eval_on_selector_all("h1, h2, h3, h4, h5, h6", "hs => hs.map(h => +h.tagName[1])")
    assert levels[0] == 1
    assert all(b <= a + 1 for a, b in itertools.pairwise(levels)), levels
    page.goto(f"{server.base}/app/")
    expect(page.locator("h1")).to_have_text("Your campaigns")


def test_the_ship_table_fits_a_phone_and_scrolls_inside_its_card(
    open_page: Any, server: Server
) -> None:
    page, _ = open_page("owner", width=390)
    page.goto(server.campaign_url("qc"))
    ready(page)
    ship = page.locator('section[aria-label="Ship"]')
    ship.wait_for()
    assert ship.bounding_box()["x"] + ship.bounding_box()["width"] <= 390
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    upgrade = ship.get_by_role("columnheader", name="Upgrade")
    upgrade.scroll_into_view_if_needed()
    assert upgrade.bounding_box()["x"] + upgrade.bounding_box()["width"] <= 390


def test_revealing_the_seed_asks_first(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("undo"))
    ready(page)
    card = page.locator("section.owner")
    card.get_by_role("button", name="Reveal the seed").click()
    box = card.get_by_role("group", name="Reveal the seed?")
    expect(box).to_contain_text("cannot be undone")
    box.get_by_role("button", name="Cancel").click()
    expect(card.get_by_role("button", name="Reveal the seed")).to_be_focused()


def test_credits_ticks_are_evenly_spaced_whole_numbers(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("qc"))
    ready(page)
    page.wait_for_selector(".charts svg .tick")
    for chart in page.locator(".charts figure:has(path.line)").all():
        ticks = chart.locator("text.tick").all_text_contents()[:-2]  # the x axis' two labels last
        values = [int(t) for t in ticks]
        steps = {b - a for a, b in itertools.pairwise(values)}
        assert len(steps) <= 1, ticks


def test_a_decision_box_is_as_tall_as_its_content(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("hail"))
    ready(page)
    pending = page.locator("section.pending")
    pending.wait_for()
    align = "getComputedStyle(document.querySelector('section.pending')).alignSelf"
    assert page.evaluate(align) == "start"


def test_a_house_rule_is_changed_by_its_type_and_shown_in_words(
    open_page: Any, server: Server
) -> None:
    status, created = server.call(
        "POST", "/campaigns", {"game": "quest-calendar", "name": "House rules in words"}
    )
    assert status == 201
    page, watch = open_page("owner")
    watch.allowed.append(("/house-rules", (422,)))
    page.goto(server.url(f"/app/campaigns/{created['id']}"))
    ready(page)
    card = page.locator('section[aria-label="Owner\'s controls"]')
    pick = card.get_by_label("House rule", exact=True)
    labels = pick.locator("option").all_inner_texts()
    assert "Boosters: stack — Boosters for the same trait add up." in labels
    pick.select_option("qc.boosters.stack")
    value = card.get_by_label("New value of “Boosters: stack”")
    assert value.locator("option").all_inner_texts() == ["yes", "no"]
    expect(card.locator('dd[data-rule="qc.boosters.stack"]')).to_have_text("yes")
    value.select_option(label="no")
    card.get_by_role("button", name="Change the house rule").click()
    expect(card.locator('dd[data-rule="qc.boosters.stack"]')).to_have_text("no")
    pick.select_option("qc.calendar.year")
    year = card.get_by_label("New value of “Calendar: year”")
    assert year.get_attribute("type") == "number"
    year.fill("1800")
    year.evaluate("e => e.removeAttribute('min')")  # past the browser's own check: the server's
    card.get_by_role("button", name="Change the house rule").click()
    expect(card.get_by_role("alert")).to_contain_text("qc.calendar.year")
    assert "true" not in card.locator("dl.rules").inner_text()


def test_members_and_games_are_named_in_words(open_page: Any, server: Server) -> None:
    status, created = server.call(
        "POST", "/campaigns", {"game": "quest-calendar", "name": "Members in words"}
    )
    assert status == 201
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{created['id']}"))
    ready(page)
    card = page.locator('section[aria-label="Owner\'s controls"]')
    card.get_by_role("button", name="Invite a viewer").click()
    # the server names an unnamed invitation by its role ("viewer", "viewer (2)" once taken)
    expect(card.locator(".members li[data-role=viewer]")).to_contain_text(re.compile(r"^viewer"))
    assert "invite-" not in card.locator(".members").inner_text()
    page.goto(server.url("/app/"))
    listed = page.locator("main li").filter(has_text="Members in words")
    more = page.get_by_role("button", name="More campaigns")
    ready(page)
    items = page.locator("main li")
    while not listed.count() and more.is_visible():  # the list pages 50 campaigns at a time
        shown = items.count()
        more.click()
        expect(items).not_to_have_count(shown)
    expect(listed).to_contain_text("Quest Calendar")
