"""The game first, after a new table's trial: the play panel (and a pending decision) at the top,
the proof behind a badge, "Your turn" that goes to the play panel, the open rollback proposals in
view of every reader and the same for each, a death told as the moment it is (QC-41..QC-49), and
timeline headings in words. At 1,280 px and on a phone (390 x 844)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.server import Server
from tests.fixtures.make_release_store import HERO

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
FIRST_SCREEN = 800
"""The first screen of a phone, in CSS pixels: what a player sees without scrolling."""


def ready(page: Any) -> None:
    page.wait_for_selector('body[data-ready="true"]')


def new_campaign(server: Server, body: dict[str, Any]) -> str:
    status, created = server.call("POST", "/campaigns", body)
    assert status == 201, created
    return str(created["id"])


def command(server: Server, cid: str, body: dict[str, Any]) -> dict[str, Any]:
    status, done = server.call("POST", f"/campaigns/{cid}/commands", body)
    assert status == 201, done
    return dict(done)


def hero_on_a_page(server: Server, name: str, **hero: Any) -> str:
    cid = new_campaign(
        server, {"game": "quest-calendar", "name": name, "setup": {"prologue_complete": True}}
    )
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": {**HERO, **hero}})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    return cid


def dying(server: Server, name: str) -> str:
    """A hero at 1 HP and infected on a page: the end-of-page roll can kill them (QC-31, QC-41)."""
    cid = hero_on_a_page(server, name, hp=1)
    command(server, cid, {"type": "apply_condition", "condition": "infected", "source": "a bite"})
    return cid


def opened(open_page: Any, server: Server, cid: str, width: int, token: str = "owner") -> Any:
    page, _ = open_page(token, width=width)
    if width == PHONE["width"]:
        page.set_viewport_size(PHONE)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    return page


def top(page: Any, selector: str) -> float:
    """An element's top, in CSS pixels from the top of the page."""
    return float(page.eval_on_selector(selector, "e => e.getBoundingClientRect().top + scrollY"))


@pytest.mark.parametrize("width", [390, 1280])
def test_the_play_panel_is_within_the_first_screen_on_the_players_turn(
    open_page: Any, server: Server, width: int
) -> None:
    cid = hero_on_a_page(server, "Game first")
    page = opened(open_page, server, cid, width)
    expect(page.locator("[data-turn]")).to_have_attribute("data-turn", "yours")
    page.locator(".actions-now button").first.wait_for()
    # the play panel's top, and its first command, within the first screen
    assert top(page, 'section[aria-label="Play"]') < FIRST_SCREEN
    assert top(page, ".actions-now button") < FIRST_SCREEN
    # the game comes before the time travel, the proof is folded away in the title
    assert top(page, 'section[aria-label="Play"]') < top(page, 'section[aria-label="Time travel"]')
    assert top(page, 'section[aria-label="Hero"]') < top(page, 'section[aria-label="Time travel"]')
    expect(page.locator("p.chain")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 0


@pytest.mark.parametrize("width", [390, 1280])
def test_a_pending_decision_is_within_the_first_screen_and_your_turn_goes_to_it(
    open_page: Any, server: Server, width: int
) -> None:
    cid = hero_on_a_page(server, "A decision first")
    command(server, cid, {"type": "pickpocket", "icon_id": "alley", "faces": [4]})
    page = opened(open_page, server, cid, width)
    turn = page.locator("[data-turn]")
    expect(turn).to_have_attribute("data-turn", "decision")
    decision = page.locator('section[aria-label="Pending decision"]')
    expect(decision).to_be_visible()
    assert top(page, 'section[aria-label="Pending decision"]') < FIRST_SCREEN
    page.evaluate("scrollTo(0, document.body.scrollHeight)")
    turn.get_by_role("button").click()
    expect(decision).to_be_focused()
    box = decision.bounding_box()
    assert box is not None and 0 <= box["y"] < 844


@pytest.mark.parametrize("width", [390, 1280])
def test_your_turn_scrolls_to_and_focuses_the_play_panel(
    open_page: Any, server: Server, width: int
) -> None:
    cid = hero_on_a_page(server, "Tap your turn")
    page = opened(open_page, server, cid, width)
    page.evaluate("scrollTo(0, document.body.scrollHeight)")
    assert page.evaluate("scrollY") > 0
    page.locator("[data-turn]").get_by_role("button", name="Your turn").click()
    expect(page.locator('section[aria-label="Play"]')).to_be_focused()
    box = page.locator('section[aria-label="Play"]').bounding_box()
    assert box is not None and 0 <= box["y"] < 100  # scrolled to the top of the window


def test_the_badge_says_the_proof_in_words_and_opens_it(open_page: Any, server: Server) -> None:
    cid = hero_on_a_page(server, "A badge")
    _, head = server.call("GET", f"/campaigns/{cid}")
    page = opened(open_page, server, cid, 1280)
    badge = page.locator("details.integrity > summary")
    expect(badge).to_have_attribute("data-integrity", "ok")
    expect(badge).to_contain_text(f"Verified ✓ v{head['version']}")
    expect(badge).to_contain_text("chain intact, checkpoint signed")
    for hidden in ("[data-head-hash]", "p.chain", "[data-checkpoint]"):
        expect(page.locator(hidden)).to_be_hidden()
    badge.click()
    expect(page.locator("[data-head-hash]")).to_have_text(head["head_hash"])
    expect(page.locator("p.chain")).to_have_attribute("data-chain", "ok")
    expect(page.locator("[data-checkpoint]")).to_have_attribute("data-checkpoint", "ok")
    expect(page.get_by_role("button", name="Download the bundle")).to_be_visible()
    # sharing is the owner's: the proof leads to it
    page.get_by_role("button", name="Sharing and invitations…").click()
    expect(page.get_by_role("button", name="Share a view-only link")).to_be_focused()
    # the version in the title is outside the proof, always shown
    expect(page.locator("[data-campaign-version]")).to_have_text(str(head["version"]))


def a_proposal(server: Server) -> tuple[str, dict[str, Any]]:
    """A match of A, B and C with B's open proposal to go back to version 2, and C's invitation."""
    cid = new_campaign(
        server,
        {
            "game": "calendar-board",
            "name": "One list",
            "setup": {"players": [{"id": "A"}, {"id": "B"}, {"id": "C"}]},
        },
    )
    for _ in range(2):
        server.call("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "a roll"})
    status, made = server.call(
        "POST",
        f"/campaigns/{cid}/rollback/proposals",
        {"to_version": 2, "reason": "a slip", "proposer": "B"},
    )
    assert status == 201, made
    status, link = server.call("POST", f"/campaigns/{cid}/invites", {"role": "player", "seat": "C"})
    assert status == 201, link
    return cid, link


def test_the_open_proposals_are_the_same_list_for_every_reader(
    open_page: Any, server: Server
) -> None:
    cid, link = a_proposal(server)
    owner = opened(open_page, server, cid, 1280)
    player, _ = open_page(None, width=390)
    player.set_viewport_size(PHONE)
    player.goto(server.url(link["url"]))
    ready(player)
    status, shared = server.call("POST", f"/campaigns/{cid}/share", {})
    assert status == 201, shared
    viewer, _ = open_page(None)
    viewer.goto(server.url(shared["url"]))
    ready(viewer)
    said = []
    for page in (owner, player, viewer):
        proposal = page.locator(".proposals .proposal")
        expect(proposal).to_have_count(1)
        said.append(proposal.locator(".said").inner_text())
        # near the top: before the game, within the first screen
        assert top(page, ".proposals") < FIRST_SCREEN
    assert said[0] == said[1] == said[2], said
    assert said[0] == (
        "B proposes going back to version 2: “a slip”. Agreed: B. Waiting for A, C to agree."
    )
    # each page offers the seats it plays: the owner A (nobody holds it), the player its C
    expect(owner.locator(".proposal button")).to_have_text(["Agree as A"])
    expect(player.locator(".proposal button")).to_have_text(["Agree as C"])
    expect(viewer.locator(".proposal button")).to_have_count(0)


def test_qc41_qc43_qc49_a_death_shows_its_moment_in_the_timeline_and_on_the_hero_card(
    open_page: Any, server: Server
) -> None:
    cid = dying(server, "A death")
    # the end-of-page CON roll fails (9 + CON 1 = 10: 1 HP lost), the d4 shows 2, the d10 5
    command(server, cid, {"type": "end_page", "faces": [9, 2, 5]})
    page = opened(open_page, server, cid, 1280)
    notice = page.locator('section[aria-label="Hero"] .notice.death')
    expect(notice).to_contain_text("The hero died")
    lines = notice.locator("li").all_inner_texts()
    assert lines[0] == "Killed by infection on 2027-01-04.", lines
    assert "Clone cost roll: the d4 shows 2: a physical injury." in lines
    assert any(line.startswith("The price: Clone injury") for line in lines), lines
    assert lines[-1] == "Cloned back to life with HP 8 of 16.", lines
    died = page.locator('.timeline li[data-type="qc.Died"]')
    expect(died.locator(".type")).to_have_text("The hero died")
    expect(died.locator(".moment li")).to_have_text(lines)
    # the death's own line no longer gives the clone's HP as if it were the death's
    assert "HP 8 of 16" not in died.locator(".what").inner_text()
    # a new page begun: the notice has done its work
    command(server, cid, {"type": "start_page", "date": "2027-01-05"})
    expect(notice).to_have_count(0)


def test_no_timeline_heading_is_a_bare_class_name(open_page: Any, server: Server) -> None:
    cid = dying(server, "Headings")
    command(server, cid, {"type": "end_page", "faces": [9, 4]})
    page = opened(open_page, server, cid, 1280)
    headings = page.locator(".timeline .event .type")
    expect(headings.first).to_be_visible()
    for element in headings.all():
        said, kind = element.inner_text(), element.get_attribute("title") or ""
        assert not re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]+)+", said), said
        assert said != kind.split(".")[-1], said
    expect(
        page.locator('.timeline li[data-type="qc.PerRestAbilitiesExhausted"] .type')
    ).to_have_text("Per-rest abilities spent")


@pytest.mark.parametrize(("width", "tallest"), [(1280, 50), (390, 130)])
def test_the_header_with_a_kept_link_stays_compact(
    open_page: Any, server: Server, width: int, tallest: int
) -> None:
    """One line at 1,280 px, "Keep this link on this device" included; a few on a phone."""
    cid = hero_on_a_page(server, "A link's header")
    status, link = server.call("POST", f"/campaigns/{cid}/invites", {"role": "player"})
    assert status == 201, link
    page, _ = open_page(None, width=width)
    if width == PHONE["width"]:
        page.set_viewport_size(PHONE)
    page.goto(server.url(link["url"]))
    ready(page)
    expect(page.get_by_label("Keep this link on this device", exact=False)).to_be_visible()
    height = page.eval_on_selector("header.bar", "e => e.getBoundingClientRect().height")
    assert height <= tallest, height
    if width == 1280:
        tops = page.eval_on_selector_all(
            "header.bar > *", "els => els.map(e => Math.round(e.getBoundingClientRect().top))"
        )
        assert max(tops) - min(tops) <= 12, tops


def test_an_undo_says_what_it_did_and_the_next_undo_says_it_would_redo(
    open_page: Any, server: Server
) -> None:
    cid = hero_on_a_page(server, "Undo and redo")
    before = command(server, cid, {"type": "gain_credits", "amount": 3, "cause": "salvage"})
    page = opened(open_page, server, cid, 390)
    page.get_by_role("button", name="Undo the last command").click()
    page.get_by_label("Why undo gain credits?").fill("misread the page")
    page.get_by_role("button", name="Confirm undo").click()
    status = page.locator(".undone-status")
    expect(status).to_have_text(
        f"Undone: back to version {before['version'] - 1} (misread the page)."
    )
    # the last command is now that rollback: undoing it brings back what it undid, and says so
    expect(page.get_by_role("button", name="Redo: undo the last rollback")).to_be_enabled()
    expect(page.locator(".undo-note")).to_contain_text("what it undid comes back")


def test_older_events_never_shows_while_every_event_is_loaded(
    open_page: Any, server: Server
) -> None:
    """A short campaign has no older events: the button never shows, not even for a moment while
    the page loads or while a command of several events comes in live."""
    cid = dying(server, "No older events")
    page, _ = open_page("owner")
    page.add_init_script(
        """
        window.olderSeen = 0;
        new MutationObserver(() => {
          for (const b of document.querySelectorAll("button")) {
            if (b.textContent === "Older events" && !b.hidden && b.isConnected) window.olderSeen++;
          }
        }).observe(document, { subtree: true, childList: true, attributes: true });
        """
    )
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    done = command(server, cid, {"type": "end_page", "faces": [9, 4]})  # a death: 8 events
    page.wait_for_selector(f'[data-campaign-version="{done["version"]}"]')
    ready(page)
    expect(page.locator('.timeline li[data-type="qc.Cloned"]')).to_have_count(1)
    assert page.evaluate("window.olderSeen") == 0
    expect(page.get_by_role("button", name="Older events")).to_be_hidden()
