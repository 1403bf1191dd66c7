"""Counted fate rerolls on the table page (G-CB-01): the setup builder gives a player a number,
and each party's card shows how many are left of it, or that they are not counted."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.hail_night import hail_night
from tests.browser.page_table import Effort, open_new_campaign
from tests.browser.server import Server
from tests.browser.test_table_flows import SAMPLES, created_bodies, ready
from tests.fixtures.make_release_store import HAIL_SETUP

pytestmark = pytest.mark.browser


def fate_rerolls(page: Any, party: str) -> Any:
    """The "Fate rerolls" value on a party's card."""
    card = page.locator(f'section[aria-label="Parties"] [data-party="{party}"]')
    return card.locator('dt:text-is("Fate rerolls") + dd')


def test_g_cb01_a_match_set_up_with_fate_rerolls_shows_them_left_on_each_party_card(
    open_page: Any, server: Server
) -> None:
    page, _ = open_page("owner")
    sent = created_bodies(page)
    page.route("**/samples", lambda route: route.fulfill(json=SAMPLES))
    page.goto(server.url("/app/"))
    open_new_campaign(Effort(), page, "calendar-board", "Counted fate rerolls")
    first = page.locator(".setup-builder .player").first
    first.get_by_label("Fate rerolls", exact=True).fill("2")
    page.get_by_role("button", name="Create the campaign").click()
    page.wait_for_url("**/app/campaigns/*")
    ready(page)

    [body] = sent
    assert [p.get("fate_rerolls") for p in body["setup"]["players"]] == [2, None]
    expect(fate_rerolls(page, "A")).to_have_text("2 left of 2")
    expect(fate_rerolls(page, "B")).to_have_text("not counted (unlimited)")


def test_g_cb01_g_cb12_a_fate_reroll_spent_on_a_hail_save_takes_one_off_the_card(
    open_page: Any, server: Server
) -> None:
    setup = deepcopy(HAIL_SETUP)
    setup["players"][0]["fate_rerolls"] = 2
    cid = hail_night(server, "Counted fate rerolls on a hail night", setup)
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    expect(fate_rerolls(page, "A")).to_have_text("2 left of 2")

    status, answer = server.call(
        "POST",
        f"/campaigns/{cid}/commands",
        {"type": "fate_reroll", "player": "A", "roll": "hail", "faces": [15]},
    )
    assert status == 201, answer
    expect(fate_rerolls(page, "A")).to_have_text("1 left of 2")  # the page follows the log
