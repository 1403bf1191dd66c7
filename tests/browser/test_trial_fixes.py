"""What a new user's evening at the table page turned up, fixed: a new decision of the page's own
brought into view after its answer (on a phone), house rules and form fields titled in words, the
use-ability form's dice said from the ability chosen, the night banner's steps in words, and the
evening's export range following the state."""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from domain.model import samples
from tests.browser.page_table import Effort, open_new_campaign, ready
from tests.browser.server import Server
from tests.browser.test_play_cards import NIGHT_ROLL, ROLL_NIGHT, command, new_campaign
from tests.fixtures.make_release_store import HERO

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


def test_a_new_decision_after_the_own_answer_is_scrolled_to_and_focused(
    open_page: Any, server: Server
) -> None:
    """On a phone, night rolls in a row: once the basketball shot is sent from the card, A's
    calendar roll is the decision in view, focused (its top not above the screen)."""
    cid = server.seeded.campaigns["match"]
    page, _ = open_page("owner", width=390)
    page.set_viewport_size(PHONE)
    calendar = {
        **NIGHT_ROLL,
        "options": ["calendar"],
        "context": {"roll": "calendar", "notation": "1d4", "player": "A"},
    }
    answered: list[bool] = []
    _, head = server.call("GET", f"/campaigns/{cid}")

    def with_pending(route: Any) -> None:
        response = route.fetch()
        campaign = response.json()
        pending = calendar if answered else NIGHT_ROLL
        campaign["state"]["pending"] = pending
        campaign["state"]["night"] = {"number": 2, "step": pending["context"]["roll"]}
        route.fulfill(response=response, body=json.dumps(campaign))

    def accept(route: Any) -> None:
        answered.append(True)
        version = int(head["version"])
        route.fulfill(
            status=201,
            content_type="application/json",
            body=json.dumps({"version": version, "events": []}),
        )

    def with_roll_night(route: Any) -> None:
        response = route.fetch()
        catalogue = response.json()
        if not any(c["name"] == "roll_night" for c in catalogue["commands"]):
            catalogue["commands"].append(ROLL_NIGHT)
        route.fulfill(response=response, body=json.dumps(catalogue))

    page.route(lambda url: urlsplit(url).path == "/commands", with_roll_night)
    page.route(lambda url: urlsplit(url).path == f"/campaigns/{cid}", with_pending)
    page.route("**/campaigns/*/commands", accept)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    expect(page.locator(".turn")).to_contain_text("Night 2: the basketball shot.")
    # at night no one has a turn: the play panel says what is possible, not "(your turn)"
    expect(page.locator(".actions-now h4")).to_have_text("Possible now")
    card = page.locator('section[aria-label="Pending decision"]')
    card.get_by_role("button", name="Roll with the server's dice").scroll_into_view_if_needed()
    card.get_by_role("button", name="Roll with the server's dice").click()
    expect(card.locator(".question")).to_contain_text("calendar")
    expect(page.locator(".turn")).to_contain_text("Night 2: the calendar roll.")
    page.wait_for_function(
        "() => document.activeElement?.getAttribute('aria-label') === 'Pending decision'"
    )
    top = card.evaluate("e => e.getBoundingClientRect().top")
    assert 0 <= top < PHONE["height"], top


def test_house_rules_are_titled_in_words_with_the_key_in_small(
    open_page: Any, server: Server
) -> None:
    page, _ = open_page("owner")
    page.goto(server.url("/app/"))
    ready(page)
    open_new_campaign(Effort(), page, "quest-calendar", "Rules in words")
    rule = page.locator('[data-rule="dice_mode"]')
    expect(rule.locator("label")).to_have_text("Dice mode")
    expect(rule.locator(".rule-key")).to_have_text("dice_mode")
    death = page.locator('[data-rule^="qc.death."]').first
    expect(death.locator("label")).to_contain_text("Death: ")
    expect(death.locator("label")).not_to_contain_text("qc.")


def test_use_ability_names_abilities_and_labels_the_dice_the_ability_rolls(
    open_page: Any, server: Server
) -> None:
    """Second Wind heals 1d6: with "My own dice" its face is a d6's, never "d20 for the
    check"; the abilities are offered by name only, the labels as sentences."""
    hero = copy.deepcopy(HERO)
    hero["abilities"].append(copy.deepcopy(samples.SECOND_WIND))
    cid = new_campaign(
        server,
        {"game": "quest-calendar", "name": "Second wind", "setup": {"prologue_complete": True}},
    )
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": hero})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    details = page.locator("details.all-commands")
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    details.locator('[data-open-command="use_ability"]').click()
    form = page.locator('.form-slot form[data-command="use_ability"]')
    ability = form.locator('[name="ability"]')
    expect(ability.locator("option", has_text="Second Wind")).to_have_text("Second Wind")
    expect(form.locator('label[for="' + ability.get_attribute("id") + '"]')).to_contain_text(
        "Ability"
    )
    form.get_by_label("My own dice").check()
    expect(form.locator(".own-dice label").first).to_have_text("the ability's die")
    ability.select_option("second-wind")
    expect(form.locator(".own-dice label").first).to_have_text("d6 for the Second Wind")
    expect(form.locator(".own-dice")).not_to_contain_text("d20")


def test_the_evening_range_follows_a_page_begun_after_opening(
    open_page: Any, server: Server
) -> None:
    """The campaign opened before any page: the dates fill in once a page begins."""
    cid = new_campaign(
        server,
        {"game": "quest-calendar", "name": "Later page", "setup": {"prologue_complete": True}},
    )
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": copy.deepcopy(HERO)})
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    form = page.get_by_role("form", name="Export this evening")
    assert form.get_by_label("From the page of").input_value() == ""
    form.get_by_label("to the page of").fill("2027-02-01")
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    expect(form.get_by_label("From the page of")).to_have_value("2027-01-04", timeout=20_000)
    assert form.get_by_label("to the page of").input_value() == "2027-02-01"  # typed: kept


def test_the_setup_builder_says_partners_in_words(open_page: Any, server: Server) -> None:
    """The partner choice reads "catgirl girlfriend"; the value sent stays the rules' id."""
    page, _ = open_page("owner")
    page.goto(server.url("/app/"))
    ready(page)
    open_new_campaign(Effort(), page, "calendar-board", "Partners in words")
    partner = page.get_by_label("Partner").first
    option = partner.locator('option[value="catgirlGirlfriend"]')
    expect(option).to_have_text("catgirl girlfriend")


def test_a_rollbacks_own_proposal_reads_carried_out_not_undone(
    open_page: Any, server: Server
) -> None:
    """B proposes going back to version 2, A's agreement carries it out: the proposal and the
    agreements inside the range it undid say so, and are not dimmed as undone."""
    cid = new_campaign(
        server,
        {
            "game": "calendar-board",
            "name": "Carried out",
            "setup": {"players": [{"id": "A"}, {"id": "B"}]},
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
    proposal = made["proposal"]["proposal_id"]
    status, done = server.call(
        "POST", f"/campaigns/{cid}/rollback/proposals/{proposal}/approve", {"player": "A"}
    )
    assert status in (200, 201), done
    _, head = server.call("GET", f"/campaigns/{cid}")
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    ready(page)
    proposed = page.locator('.timeline .event[data-type="questlog.RollbackProposed"]')
    expect(proposed).to_have_count(1)
    expect(proposed).to_contain_text(f"carried out by the rollback at version {head['version']}")
    expect(proposed).not_to_have_class("undone")
    assert "undone" not in (proposed.get_attribute("class") or "").split()
    rolls = page.locator('.timeline .event.undone[data-type="questlog.DiceRolled"]')
    expect(rolls.first).to_contain_text("undone by v")
