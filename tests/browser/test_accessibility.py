"""axe-core on every view of the table page: no finding of impact "serious" or "critical".

axe-core comes inside the axe-playwright-python package (its axe.min.js), so nothing is fetched
while the tests run. Each view is checked once the page says it is ready (body[data-ready]).
"""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.hail_night import hail_night
from tests.browser.server import Server

pytestmark = pytest.mark.browser
BLOCKING = ("serious", "critical")
"""The impacts that fail a test; "moderate" and "minor" findings are left to review."""
AXE = Axe()


def ready(page: Any) -> None:
    """The page has finished loading or refreshing (body[data-ready], docs/table-page.md)."""
    page.wait_for_selector('body[data-ready="true"]')


def findings(violations: list[dict[str, Any]]) -> str:
    """axe's violations in words: the rule, its help, and each element's selector and why."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} ({v['helpUrl']})")
        for node in v["nodes"]:
            why = "; ".join(c["message"] for c in node["any"] + node["all"] + node["none"])
            lines.append(f"    {', '.join(map(str, node['target']))}: {why}")
    return "\n".join(lines)


def assert_accessible(page: Any, view: str) -> None:
    """axe finds nothing serious or critical on the page as it is now."""
    ready(page)
    violations = AXE.run(page).response["violations"]
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"axe on {view}:\n{findings(blocking)}"


def test_the_sign_in_page(open_page: Any, server: Server) -> None:
    page, _ = open_page()
    page.goto(server.url("/app/"))
    page.get_by_label("API token").wait_for()
    assert_accessible(page, "the sign-in page")


@pytest.mark.parametrize("game", ["quest-calendar", "calendar-board"])
def test_the_campaign_list_with_the_new_campaign_form(
    open_page: Any, server: Server, game: str
) -> None:
    page, _ = open_page("owner")
    page.goto(server.url("/app/"))
    ready(page)
    page.get_by_role("button", name="New campaign").click()
    page.get_by_label("Game").select_option(game)
    page.locator("details.house-rules summary").click()
    if game == "calendar-board":  # the match set-up builder, with a weapon added
        first = page.locator(".setup-builder .player").first
        first.get_by_role("button", name="Add a weapon").click()
    assert_accessible(page, f"the new campaign form ({game})")


def test_a_quest_calendar_campaign_as_its_owner(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("play"))
    ready(page)
    card = page.locator('section[aria-label="Owner\'s controls"]')
    card.get_by_role("button", name="Run the audit").click()
    expect(card.locator("[data-audit]")).to_be_visible()
    for summary in card.locator("details > summary").all():
        summary.click()
    page.locator("details.all-commands > summary").click()
    page.get_by_label("Command").select_option("gain_credits")
    page.locator('form[data-command="gain_credits"]').wait_for()
    assert_accessible(page, "a Quest Calendar campaign (owner, a command form open)")


def seated_on_a_hail_night(server: Server, name: str) -> str:
    """A match whose seat A must decide on a fate reroll: its invite link for seat A."""
    cid = hail_night(server, "Hail, for axe")
    status, invite = server.call(
        "POST", f"/campaigns/{cid}/invites", {"role": "player", "seat": "A", "name": name}
    )
    assert status == 201, invite
    return str(invite["url"])


@pytest.mark.parametrize("width", [1280, 390])
def test_a_calendar_board_match_as_a_seated_player_with_a_decision(
    open_page: Any, server: Server, width: int
) -> None:
    link = seated_on_a_hail_night(server, f"axe at {width} px")
    page, _ = open_page(width=width)
    page.goto(server.url(link))
    page.get_by_text("you are player (seat A)").wait_for()
    pending = page.locator('section[aria-label="Pending decision"]')
    pending.get_by_text("Your decision").wait_for()
    page.locator(".track [data-space]").first.wait_for()
    assert_accessible(page, f"a Calendar Board match, seat A with a decision, {width} px wide")


def test_the_past_view(open_page: Any, server: Server) -> None:
    page, _ = open_page("owner")
    page.goto(server.campaign_url("qc", "?version=11"))
    page.wait_for_selector('[data-campaign-version="11"]')
    assert_accessible(page, "the past view (?version=11)")


def test_the_verify_page(open_page: Any, server: Server) -> None:
    page, _ = open_page()
    page.goto(server.url("/app/verify"))
    assert_accessible(page, "/app/verify")
