"""Write the screenshots of docs/table-page.md: ``python -m tests.browser.screenshots``.

Seeds a store in a temporary folder, serves it, and saves each game's page (the owner's view,
1280 px wide, the top of the page) as docs/table-page-<game>.png, and the "New campaign" form of a
match as docs/table-page-new-campaign.png. Then the game's flows, played on the page by the
full-game test's helpers (tests/browser/page_table.py) and the game plan, each cropped to its
element: docs/table-page-flow-*.png (FLOWS). Then the screens of SCREENS, each reached by the setup
of the browser test that checks it (the hero sheet, the night roll and combat cards, the proof, the
open proposals, a phone's first screen, the evening's export), each cropped to its element (the
phone's, to its 390 by 844 screen): docs/table-page-<screen>.png; ``python -m
tests.browser.screenshots screens`` writes those alone. And the analytics page, from a store of its
own (tests/browser/analytics_store.py), as docs/table-page-analytics.png; ``python -m
tests.browser.screenshots analytics`` writes that one alone. The witness panel, from a server and
witnesses of its own (tests/browser/test_witness_page.py), as docs/table-page-witnesses.png;
``python -m tests.browser.screenshots witnesses`` writes that one alone.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import expect, sync_playwright

from tests.browser import game_plan as plan
from tests.browser.analytics_store import seed_analytics
from tests.browser.conftest import TOKEN_KEY
from tests.browser.helpers import open_proof
from tests.browser.page_table import (
    Effort,
    PageTable,
    at_version,
    build_setup,
    change_house_rules,
    create,
    open_new_campaign,
    posted,
    ready,
)
from tests.browser.server import Server, running
from tests.browser.test_evening_export import a_page_with_a_check
from tests.browser.test_game_first import PHONE, a_proposal, hero_on_a_page
from tests.browser.test_hero_sheet import fill_sheet
from tests.browser.test_play_cards import a_combat, a_night_at_the_calendar
from tests.browser.test_witness_page import two_of_three

Json = dict[str, Any]
DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = {"quest-calendar": "qc", "calendar-board": "cb"}
FLOWS = {
    "new-quest-calendar": "the new campaign form of a Quest Calendar campaign, a sample hero",
    "setup-builder": "the match setup builder, holding the game plan's three players",
    "owner-card": "the owner's card, with the invitations of seats B and C",
    "play-panel": "the play panel: the commands possible now, All commands, Undo",
    "decision": "B's night action, a decision answered by its buttons (rizz with a partner)",
    "board": "the calendar track drawn from the campaign's six-space layout",
    "timeline": "the timeline, each event's summary in words",
    "rolls-verified": "the rolls after the owner revealed the seed, each verified",
}
"""Each flow's screenshot (docs/table-page-flow-<name>.png) and what it shows."""
SCREENS = {
    "hero-sheet": "the hero sheet: a pool of charges, a Per Rest ability and a reroll ability",
    "night-roll": "the night stopped for the god-token holder's calendar d4, as that seat sees it",
    "combat-reroll": "a combat card: a reroll ticked, which roll it asks, and my own dice",
    "proof": "the integrity badge opened: the head hash, the chain, the checkpoint, the bundle",
    "proposals": "an open rollback proposal, at the top of a player's page",
    "phone": "a phone (390 by 844) on the player's turn: the first screen, the play panel in it",
    "evening": "the Export this evening form, its range prefilled with the page played",
    "witnesses": "the witness panel: the head to read aloud, 2 of 3 witnesses, one down, the QR",
}
"""Each screen's screenshot (docs/table-page-<name>.png) and what it shows."""
WIDE = {"width": 1280, "height": 900}
TALLEST = 900
"""A crop's height at most, in pixels (the top of a long element)."""
CONTENT = (
    "el => Math.max(...[...el.children].map(c => c.getBoundingClientRect().bottom))"
    " - el.getBoundingClientRect().top + 16"
)
"""The height of an element's content: a card stretched by its grid row is cropped to it."""


def shoot(locator: Any, name: str, down_to: Any = None) -> None:
    """Save the element (its top TALLEST pixels; with ``down_to``, down to that element's
    bottom) as docs/table-page-flow-<name>.png, or for a name of SCREENS as
    docs/table-page-<name>.png."""
    assert name in FLOWS or name in SCREENS
    stem = f"flow-{name}" if name in FLOWS else name
    page = locator.page
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    top = page.evaluate("() => window.scrollY")
    if down_to is None:
        height = min(box["height"], locator.evaluate(CONTENT), TALLEST)
    else:
        end = down_to.bounding_box()
        height = end["y"] + end["height"] - box["y"] + 16
    clip = {"x": box["x"], "y": box["y"] + top, "width": box["width"], "height": height}
    path = DOCS / f"table-page-{stem}.png"
    page.screenshot(path=str(path), full_page=True, clip=clip)
    print(f"wrote {path}")


def signed_in(
    browser: Any, server: Server, token: str | None = "owner", viewport: Json = WIDE
) -> Any:
    """A page in a context of its own, signed in with the seeded ``token`` (None: none)."""
    context = browser.new_context(viewport=viewport)
    if token is not None:
        secret = json.dumps(server.seeded.tokens[token])
        context.add_init_script(f"sessionStorage.setItem('{TOKEN_KEY}', {secret})")
    page = context.new_page()
    page.set_default_timeout(15_000)
    return page


def owner_page(browser: Any, server: Server) -> Any:
    """A context of its own, signed in as the seeded owner, on the campaign list."""
    page = signed_in(browser, server)
    page.goto(server.url("/app/"))
    ready(page)
    return page


class ShootingTable(PageTable):
    """The page's table, which shoots B's night action before answering it."""

    def send(self, body: plan.Json) -> plan.Json:
        pending = self.state.get("pending") or {}
        if pending.get("decision") == "night_action" and pending.get("who") == "B":
            at_version(self.pages["B"], self.version)
            shoot(self.pages["B"].locator('section[aria-label="Pending decision"]'), "decision")
        return super().send(body)


def quest_calendar_flows(browser: Any, server: Server) -> None:
    """The new campaign form with a sample hero; the play panel once page 1 is open."""
    effort = Effort()
    page = owner_page(browser, server)
    open_new_campaign(effort, page, "quest-calendar", plan.QC_CAMPAIGN["name"])
    page.get_by_label("The prologue is complete").check()
    page.get_by_label("Hero", exact=True).select_option(label="The Scout (sample)")
    change_house_rules(effort, page, plan.QC_CAMPAIGN["house_rules"])
    shoot(page.locator("form.new-campaign"), "new-quest-calendar")
    create(effort, page)
    table = PageTable(effort, {"owner": page}, 2)
    plan.play(plan.qc_steps()[1:3], table, plan.qc_answer)
    shoot(page.locator('section[aria-label="Play"]'), "play-panel")
    page.context.close()


def calendar_board_flows(browser: Any, server: Server) -> None:
    """The setup builder, the owner's card with invitations, a decision, the board, the
    timeline, and the rolls verified after the reveal."""
    effort = Effort()
    owner = owner_page(browser, server)
    open_new_campaign(effort, owner, "calendar-board", plan.CB_CAMPAIGN["name"])
    build_setup(effort, owner, plan.CB_CAMPAIGN["setup"])
    shoot(owner.locator(".setup-builder"), "setup-builder")
    change_house_rules(effort, owner, plan.CB_CAMPAIGN["house_rules"])
    create(effort, owner)
    pages = {"owner": owner, "A": owner}
    for seat in ("B", "C"):
        owner.get_by_role("button", name=f"Invite seat {seat}").click()
        link = owner.locator(f'p[data-invite-seat="{seat}"] input')
        link.wait_for()
        player = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        player.set_default_timeout(15_000)
        player.goto(link.input_value())
        ready(player)
        pages[seat] = player
    shoot(owner.locator('section[aria-label="Owner\'s controls"]'), "owner-card")
    table = ShootingTable(effort, pages, 1)
    plan.play(plan.cb_steps(), table, plan.cb_answer)
    at_version(owner, table.version)
    shoot(owner.locator('section[aria-label="Calendar"]'), "board")
    shoot(owner.locator('section[aria-label="Timeline"]'), "timeline")
    owner.get_by_role("button", name="Reveal the seed").click()
    with owner.expect_response(posted("/dice/rotate")) as answered:  # asked once more first
        owner.get_by_role("button", name="Reveal", exact=True).click()
    at_version(owner, int(answered.value.json()["version"]))
    expect(owner.locator('[data-roll-id]:not([data-verdict="verified"])')).to_have_count(0)
    shoot(owner.locator('section[aria-label="Rolls"]'), "rolls-verified")
    for page in {id(p): p for p in pages.values()}.values():
        page.context.close()


def new_campaign(browser: Any, server: Server) -> None:
    """The "New campaign" form of a match, its setup builder open (the top of the form)."""
    page = signed_in(browser, server, viewport={"width": 1280, "height": 1100})
    page.goto(server.url("/app/"))
    page.get_by_role("button", name="New campaign").click()
    page.get_by_label("Game").select_option("calendar-board")
    page.get_by_label("Name").fill("Friday's match")
    page.wait_for_selector(".setup-builder .player")
    page.wait_for_selector('body[data-ready="true"]')
    path = DOCS / "table-page-new-campaign.png"
    page.screenshot(path=str(path))
    print(f"wrote {path}")
    page.context.close()


def analytics(browser: Any) -> None:
    """The analytics page as the admin sees it, the whole page, on a store of its own."""
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "questlog.db"
        with running(Path(folder), seeded=seed_analytics(db)) as server:
            page = signed_in(browser, server, "admin")
            # the views read the seeded log first: the figures are shown once they have all of it
            for route in ("/analytics/campaigns", "/analytics/dice"):
                while not server.call("GET", route, token="admin")[1].get("caught_up"):
                    page.wait_for_timeout(200)
            page.goto(server.url("/app/analytics"))
            page.wait_for_selector('body[data-ready="true"]')
            path = DOCS / "table-page-analytics.png"
            page.screenshot(path=str(path), full_page=True)
            print(f"wrote {path}")
            page.context.close()


def opened(page: Any, server: Server, url: str) -> Any:
    """``page`` at ``url`` (a path of the server), once it is ready."""
    page.goto(server.url(url))
    ready(page)
    return page


def hero_sheet(browser: Any, server: Server) -> None:
    """ "New campaign" of Quest Calendar, a new hero filled in on the sheet."""
    page = owner_page(browser, server)
    open_new_campaign(Effort(), page, "quest-calendar", "A hero of our own")
    fill_sheet(page, "Ayla")
    sheet = page.get_by_role("group", name="A new hero")
    shoot(sheet, "hero-sheet", down_to=sheet.get_by_role("button", name="Add an ability"))
    page.context.close()


def night_roll(browser: Any, server: Server) -> None:
    """A's calendar d4 at night, on the page of the player invited to seat A, "Enter my dice"
    open."""
    cid = a_night_at_the_calendar(server)
    _, link = server.call("POST", f"/campaigns/{cid}/invites", {"role": "player", "seat": "A"})
    page = opened(signed_in(browser, server, None), server, link["url"])
    card = page.locator('section[aria-label="Pending decision"]')
    expect(card.locator(".whose")).to_contain_text("Your roll")
    card.get_by_text("Enter my dice").click()
    card.get_by_label("d4 for the calendar roll").wait_for()
    shoot(card, "night-roll")
    page.context.close()


def combat_reroll(browser: Any, server: Server) -> None:
    """Standard mode's combat card: Foresight ticked on the attack roll, my own dice chosen."""
    cid = a_combat(server, "standard", 1, [5, 3])
    page = opened(signed_in(browser, server), server, f"/app/campaigns/{cid}")
    card = page.locator('section[aria-label="Pending decision"]')
    card.get_by_label("Foresight (reroll, 3 left)").check()
    card.get_by_label("Foresight: reroll which roll?").select_option(label="the attack roll")
    card.get_by_label("My own dice").check()
    shoot(card, "combat-reroll")
    page.context.close()


def proof_and_evening(browser: Any, server: Server) -> None:
    """A Quest Calendar page with a check: the proof opened, the evening's export under it."""
    cid = a_page_with_a_check(server)
    page = opened(signed_in(browser, server), server, f"/app/campaigns/{cid}")
    open_proof(page)
    expect(page.locator("[data-checkpoint]")).to_have_attribute("data-checkpoint", "ok")
    expect(page.locator("[data-witness]")).not_to_have_attribute("data-witness", "checking")
    shoot(page.locator("details.integrity"), "proof")
    shoot(page.get_by_role("form", name="Export this evening"), "evening")
    page.context.close()


def witnesses(browser: Any) -> None:
    """The witness panel of a host asking 2 of 3 witnesses, one down, from a server of its own."""
    with tempfile.TemporaryDirectory() as folder, two_of_three(Path(folder)) as (server, cid):
        page = opened(signed_in(browser, server), server, f"/app/campaigns/{cid}")
        open_proof(page)
        expect(page.locator("[data-witness]")).to_have_attribute("data-witness", "witnessed")
        expect(page.locator("img[data-checkpoint-qr]")).to_be_visible()
        shoot(page.locator(".witness-panel"), "witnesses")
        page.context.close()


def proposals(browser: Any, server: Server) -> None:
    """B's open proposal, at the top of the page of the player at seat C."""
    _, link = a_proposal(server)
    page = opened(signed_in(browser, server, None), server, link["url"])
    expect(page.locator(".proposals .proposal")).to_have_count(1)
    shoot(page.locator(".proposals"), "proposals")
    page.context.close()


def phone(browser: Any, server: Server) -> None:
    """The first screen of a phone on the player's turn, the play panel within it."""
    cid = hero_on_a_page(server, "On a phone")
    page = signed_in(browser, server, viewport=PHONE)
    opened(page, server, f"/app/campaigns/{cid}")
    expect(page.locator("[data-turn]")).to_have_attribute("data-turn", "yours")
    page.locator(".actions-now button").first.wait_for()
    path = DOCS / "table-page-phone.png"
    page.screenshot(path=str(path))
    print(f"wrote {path}")
    page.context.close()


def screens(browser: Any, server: Server) -> None:
    """Every shot of SCREENS."""
    hero_sheet(browser, server)
    night_roll(browser, server)
    combat_reroll(browser, server)
    proof_and_evening(browser, server)
    proposals(browser, server)
    phone(browser, server)
    witnesses(browser)


def main() -> None:
    chromium = os.environ.get("QUESTLOG_CHROMIUM", "/usr/bin/chromium")
    if sys.argv[1:] == ["screens"]:
        with (
            tempfile.TemporaryDirectory() as folder,
            running(Path(folder)) as server,
            sync_playwright() as playwright,
        ):
            browser = playwright.chromium.launch(executable_path=chromium)
            screens(browser, server)
            browser.close()
        return
    if sys.argv[1:] == ["witnesses"]:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium)
            witnesses(browser)
            browser.close()
        return
    if sys.argv[1:] == ["analytics"]:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium)
            analytics(browser)
            browser.close()
        return
    with (
        tempfile.TemporaryDirectory() as folder,
        running(Path(folder)) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=chromium)
        for game, key in PAGES.items():
            page = signed_in(browser, server, viewport={"width": 1280, "height": 1400})
            page.goto(server.campaign_url(key))
            page.wait_for_selector("[data-roll-id]")
            expect(page.locator(".rolls [data-roll-id]:not([data-verdict])")).to_have_count(0)
            page.wait_for_selector(".chart svg")
            path = DOCS / f"table-page-{game}.png"
            page.screenshot(path=str(path))
            print(f"wrote {path}")
            page.context.close()
        new_campaign(browser, server)
        quest_calendar_flows(browser, server)
        calendar_board_flows(browser, server)
        screens(browser, server)
        analytics(browser)
        browser.close()


if __name__ == "__main__":
    main()
