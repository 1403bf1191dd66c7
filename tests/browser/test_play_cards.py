"""The decision cards and command forms ask everything a command needs, in words: a reroll
ability's roll, Easy mode's abilities per round, the player's own dice (a face per die, more when
the server asks), the night's rolls, and no player field the page already knows."""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from domain.model import samples
from tests.browser.server import Server
from tests.browser.test_accessibility import assert_accessible
from tests.fixtures.make_release_store import HAIL_SETUP, HERO

pytestmark = pytest.mark.browser
# spelled apart: the night roll cards are shown a made-up decision, which proves no rule
BASKETBALL_RULE, CALENDAR_RULE = "CB-" + "06", "CB-" + "09"

FORESIGHT = {
    "id": "foresight",
    "name": "Foresight",
    "usage": "per_rest",
    "uses": 3,
    "context": "combat",
    "effect": {"kind": "reroll"},
}
ROUND = {
    "hit_target": 12,
    "damage_needed": 5,
    "enemy_attack": 5,
    "damage_reduced": 1,
    "damage_full": 2,
}


def new_campaign(server: Server, body: dict[str, Any]) -> str:
    status, created = server.call("POST", "/campaigns", body)
    assert status == 201, created
    return str(created["id"])


def command(server: Server, cid: str, body: dict[str, Any]) -> dict[str, Any]:
    status, answer = server.call("POST", f"/campaigns/{cid}/commands", body)
    assert status == 201, answer
    return dict(answer)


def stored(server: Server, cid: str, event_type: str) -> list[dict[str, Any]]:
    _, page = server.call("GET", f"/campaigns/{cid}/events?limit=200")
    return [e for e in page["items"] if e["type"] == event_type]


def a_combat(server: Server, mode: str, rounds: int, faces: list[int]) -> str:
    """A hero with Foresight (a reroll its effect ties to no roll) in a combat of ``mode``, its
    rounds rolled with ``faces``: the combat card asks for the abilities."""
    cid = new_campaign(
        server,
        {
            "game": "quest-calendar",
            "name": f"A reroll in {mode} mode",
            "setup": {"prologue_complete": True},
            "house_rules": {"qc.combat.mode": mode},
        },
    )
    hero = copy.deepcopy(HERO)
    hero["abilities"] = [*hero["abilities"], FORESIGHT]
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": hero})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    command(server, cid, {"type": "start_combat", "kind": "one_enemy", "rounds": [ROUND] * rounds})
    command(server, cid, {"type": "combat_round", "faces": faces})
    return cid


def answered(response: Any) -> bool:
    """The answer to a command the page posted."""
    return response.request.method == "POST" and response.url.endswith("/commands")


def posted(page: Any) -> list[dict[str, Any]]:
    """Every command body the page posts, as sent."""
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            r.method == "POST" and r.url.endswith("/commands") and sent.append(r.post_data_json)
        ),
    )
    return sent


def test_a_reroll_names_its_roll_and_my_own_dice_grow_when_short(
    open_page: Any, server: Server
) -> None:
    """QC-28: Foresight on the round just rolled asks which roll to reroll, in words; the
    player's own d20 is asked for by the server's 409 and added as a face of its own."""
    cid = a_combat(server, "standard", 1, [5, 3])  # d20 5 misses; the d6 3
    page, watch = open_page("owner")
    watch.allowed.append(("/commands", (409, 422)))
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    card = page.locator('section[aria-label="Pending decision"]')
    question = card.locator(".question")
    expect(question).to_contain_text("Round 1: missed")
    expect(question).not_to_contain_text("QC-")  # the rule is a details line, not the sentence
    expect(card.locator(".rule-ref")).to_contain_text("Rule QC-28")
    form = card.locator('form[data-command="resolve_round"]')
    form.get_by_label("Foresight (reroll, 3 left)").check()
    roll = form.get_by_label("Foresight: reroll which roll?")
    expect(roll.locator("option")).to_have_text(["(choose)", "the attack roll", "the damage roll"])
    # no roll chosen: refused in the form, nothing sent
    form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text("say which roll to reroll")
    assert sent == []
    roll.select_option(label="the attack roll")
    card.get_by_label("My own dice").check()
    assert_accessible(page, "the combat card, a reroll ticked, my own dice")
    form.locator("button[type=submit]").click()
    note = card.locator(".faces-note")
    expect(note).to_have_text(
        "Your dice ran out: the next roll needs d20. Roll it, type its face and send again."
    )
    assert sent[-1] == {
        "type": "resolve_round",
        "abilities": [{"id": "foresight", "roll": "attack"}],
        "faces": [],
    }
    card.locator('[name="faces[0]"]').fill("15")
    form.locator("button[type=submit]").click()
    expect(card).to_be_hidden()
    assert sent[-1] == {
        "type": "resolve_round",
        "abilities": [{"id": "foresight", "roll": "attack"}],
        "faces": [15],
    }
    assert len(stored(server, cid, "qc.AbilityUsed")) == 1
    _, rolls = server.call("GET", f"/campaigns/{cid}/rolls")
    reported = [r for r in rolls["items"] if r["source"] == "reported"]
    assert [d["face"] for d in reported[-1]["dice"]] == [15]


def test_hard_mode_boosts_the_attack_just_rolled(open_page: Any, server: Server) -> None:
    """QC-30: the card says the attack just rolled; the reroll changes that roll, so no roll
    is asked; my own d20 and then the d6 the server asks for next (the damage)."""
    cid = a_combat(server, "hard", 1, [5])  # the attack's d20 5 misses; the card stops there
    page, watch = open_page("owner")
    watch.allowed.append(("/commands", (409, 422)))
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    card = page.locator('section[aria-label="Pending decision"]')
    expect(card.locator(".question")).to_have_text(
        "Round 1: missed, damage dealt 0, enemy outcome unharmed. "
        "Boost the attack before the damage is rolled, or not."
    )
    form = card.locator('form[data-command="boost_attack"]')
    form.get_by_label("Foresight (reroll, 3 left)").check()
    expect(form.locator("select")).to_have_count(0)
    card.get_by_label("My own dice").check()
    card.locator('[name="faces[0]"]').fill("16")
    form.locator("button[type=submit]").click()
    expect(card.locator(".faces-note")).to_contain_text("the next roll needs d6")
    assert sent[-1] == {"type": "boost_attack", "abilities": ["foresight"], "faces": [16]}
    card.get_by_label("d6", exact=True).fill("4")
    with page.expect_response(answered) as response:
        form.locator("button[type=submit]").click()
    assert response.value.status == 201, response.value.text()
    assert sent[-1] == {"type": "boost_attack", "abilities": ["foresight"], "faces": [16, 4]}


def test_easy_mode_assigns_a_reroll_per_round_with_its_roll(open_page: Any, server: Server) -> None:
    """QC-29: the rounds' abilities are controls, not JSON; a reroll says its roll."""
    cid = a_combat(server, "easy", 2, [5, 3, 15, 4])  # round 1 misses, round 2 hits
    page, _ = open_page("owner")
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    card = page.locator('section[aria-label="Pending decision"]')
    form = card.locator('form[data-command="resolve_rounds"]')
    round_one = form.locator('fieldset[data-round="1"]')
    round_one.get_by_label("Foresight (reroll, 3 left)").check()
    round_one.get_by_label("Foresight: reroll which roll?").select_option(label="the attack roll")
    form.locator("button[type=submit]").click()
    expect(card).to_be_hidden()
    body = {k: v for k, v in sent[-1].items() if k != "entropy"}
    assert body == {
        "type": "resolve_rounds",
        "assignments": {"1": [{"id": "foresight", "roll": "attack"}]},
    }
    assert isinstance(sent[-1]["entropy"], str)  # server dice: the page's fresh entropy
    assert len(stored(server, cid, "qc.AbilityUsed")) == 1


def test_a_trait_check_with_my_own_d20_then_an_ability_on_it(
    open_page: Any, server: Server
) -> None:
    """A check's form: "My own dice" with a face labelled by its die and purpose; the face is
    the roll's, and no entropy goes with it. Then an ability names that check."""
    cid = new_campaign(
        server,
        {"game": "quest-calendar", "name": "My own d20", "setup": {"prologue_complete": True}},
    )
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": copy.deepcopy(HERO)})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    page, watch = open_page("owner")
    watch.allowed.append(("/commands", (409, 422)))
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    page.wait_for_selector('body[data-ready="true"]')
    details = page.locator("details.all-commands")
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    details.locator('[data-open-command="trait_check"]').click()
    form = page.locator('.form-slot form[data-command="trait_check"]')
    form.locator('[name="trait"]').select_option("DEX")
    form.locator('[name="target"]').fill("10")
    form.get_by_label("My own dice").check()
    # a face no d20 has: the server's refusal names the die as its input does
    form.get_by_label("d20 for the check").fill("25")
    with page.expect_response(answered):
        form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_contain_text(
        "d20 for the check: 25 is not a face of a d20 (1..20)"
    )
    expect(form.locator(".error")).not_to_contain_text("faces[0]")
    form.get_by_label("d20 for the check").fill("17")
    with page.expect_response(answered):
        form.locator("button[type=submit]").click()
    expect(form.locator(".error")).to_have_text("")
    page.wait_for_function("() => document.body.dataset.ready === 'true'")
    assert sent[-1] == {"type": "trait_check", "trait": "DEX", "target": 10, "faces": [17]}
    rolled = stored(server, cid, "qc.CheckRolled")
    assert rolled and rolled[-1]["data"]["details"]["d20"] == 17
    # QC-14: an ability on that check names it in words, not by a 0-based index
    details.locator('[data-open-command="use_ability"]').click()
    form = page.locator('.form-slot form[data-command="use_ability"]')
    form.locator('[name="ability"]').select_option("keen-mind")
    on_roll = form.locator('[name="on_roll"]')
    expect(on_roll.locator("option").nth(1)).to_contain_text("Check 1:")
    expect(on_roll.locator("option").nth(1)).to_contain_text("against 10, passed")
    on_roll.select_option(index=1)
    with page.expect_response(answered) as response:
        form.locator("button[type=submit]").click()
    assert response.value.status == 201, response.value.text()
    body = {k: v for k, v in sent[-1].items() if k != "entropy"}
    assert body == {"type": "use_ability", "ability": "keen-mind", "on_roll": 0}


def test_a_fate_reroll_with_my_own_d20(open_page: Any, server: Server) -> None:
    """The fate reroll card's dice choice: the hail save rolled again with my own d20."""
    cid = new_campaign(
        server,
        {
            "game": "calendar-board",
            "name": "A hail with my dice",
            "house_rules": {**samples.ONE_SCREEN, "cb.night.steps": ["calendar"]},
            "setup": HAIL_SETUP,
        },
    )
    for faces in ([4], [4], [4], [1, 1]):  # the god piece reaches hail (13); A's save: 1
        command(server, cid, {"type": "end_turn", "player": "A"})
        command(server, cid, {"type": "end_turn", "player": "B", "faces": faces})
    page, _ = open_page("owner")
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    card = page.locator('section[aria-label="Pending decision"]')
    expect(card.locator(".question")).to_contain_text("A failed the hail save")
    expect(card.locator(".question")).not_to_contain_text("CB-")
    card.get_by_label("My own dice").check()
    card.get_by_label("d20 for the hail save").fill("19")
    with page.expect_response(answered) as response:
        card.get_by_role("button", name="Use a fate reroll", exact=True).click()
    assert response.value.status == 201, response.value.text()
    assert sent[-1] == {"type": "fate_reroll", "player": "A", "roll": "hail", "faces": [19]}
    used = stored(server, cid, "cb.FateRerollUsed")
    assert [(e["data"]["details"]["player"], e["data"]["details"]["roll"]) for e in used] == [
        ("A", "hail")
    ]
    _, rolls = server.call("GET", f"/campaigns/{cid}/rolls")
    assert any([d["face"] for d in r["dice"]] == [19] for r in rolls["items"])


NIGHT_ROLL = {
    "decision": "night_roll",
    "who": "A",
    "rule": BASKETBALL_RULE,
    "commands": ["roll_night"],
    "options": ["basketball"],
    "context": {"roll": "basketball", "notation": "2d20", "player": "A"},
}


ROLL_NIGHT = {
    "name": "roll_night",
    "summary": "Roll the night's roll the decision asks of this player.",
    "rules": [],
    "fields": [
        {"name": "player", "type": "string", "required": True},
        {"name": "roll", "type": "string", "required": True},
        {"name": "faces", "type": "array", "required": False},
        {"name": "entropy", "type": "string", "required": False},
    ],
    "dice": "The roll asked for: d4 (calendar, hail damage), d20 (wind, hail save, annustaria), "
    "2d20 (basketball).",
    "example": {"type": "roll_night", "player": "A", "roll": "calendar"},
}


def night_page(open_page: Any, server: Server, token: str | None, pending: Any) -> Any:
    """The seeded match's page with ``pending`` as its decision; commands answered 422."""
    cid = server.seeded.campaigns["match"]
    page, watch = open_page(token)
    watch.allowed.append(("/commands", (422,)))

    def with_pending(route: Any) -> None:
        response = route.fetch()
        campaign = response.json()
        if pending is not None:
            campaign["state"]["pending"] = pending
            campaign["state"]["night"] = {"number": 2, "step": pending["context"]["roll"]}
        route.fulfill(response=response, body=json.dumps(campaign))

    def refuse(route: Any) -> None:
        route.fulfill(
            status=422,
            content_type="application/problem+json",
            body=json.dumps({"detail": "refused for the test"}),
        )

    def with_roll_night(route: Any) -> None:
        response = route.fetch()
        catalogue = response.json()
        if not any(c["name"] == "roll_night" for c in catalogue["commands"]):
            catalogue["commands"].append(ROLL_NIGHT)  # until the server has the command
        route.fulfill(response=response, body=json.dumps(catalogue))

    page.route(lambda url: urlsplit(url).path == "/commands", with_roll_night)
    page.route(lambda url: urlsplit(url).path == f"/campaigns/{cid}", with_pending)
    page.route("**/campaigns/*/commands", refuse)
    return page, cid


def test_the_night_roll_is_asked_of_its_roller(open_page: Any, server: Server) -> None:
    """The night stops for A's basketball shot; the card rolls with the server's dice or
    with A's two d20s, each labelled."""
    page, cid = night_page(open_page, server, "owner", NIGHT_ROLL)
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    card = page.locator('section[aria-label="Pending decision"]')
    expect(card.locator(".whose")).to_contain_text("Your roll")
    expect(card.locator(".question")).to_have_text(
        "Night 2: A holds the god token and rolls two d20s for the intergalactic basketball shot."
    )
    page.wait_for_selector('body[data-ready="true"]')
    with page.expect_response(answered):
        card.get_by_role("button", name="Roll with the server's dice").click()
    expect(card.locator(".error")).to_have_text("refused for the test")
    body = sent[-1]
    assert {k: v for k, v in body.items() if k != "entropy"} == {
        "type": "roll_night",
        "player": "A",
        "roll": "basketball",
    }
    assert isinstance(body["entropy"], str)
    card.get_by_text("Enter my dice").click()
    labels = card.locator(".own-dice label")
    expect(labels).to_have_text(
        [
            "d20 for the basketball shot (die 1 of 2)",
            "d20 for the basketball shot (die 2 of 2)",
        ]
    )
    assert_accessible(page, "the night roll card, my dice open")
    card.locator('[name="faces[0]"]').fill("14")
    card.locator('[name="faces[1]"]').fill("17")
    with page.expect_response(answered):
        card.get_by_role("button", name="Send my dice").click()
    assert sent[-1] == {
        "type": "roll_night",
        "player": "A",
        "roll": "basketball",
        "faces": [14, 17],
    }


def test_others_wait_for_the_night_roll(open_page: Any, server: Server) -> None:
    """The player at seat B, whose roll it is not, is told whose roll it is, in words,
    and offered nothing."""
    calendar = {
        **NIGHT_ROLL,
        "rule": CALENDAR_RULE,
        "options": ["calendar"],
        "context": {"roll": "calendar", "notation": "1d4", "player": "A"},
    }
    page, cid = night_page(open_page, server, "bee", calendar)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    card = page.locator('section[aria-label="Pending decision"]')
    expect(card.locator(".whose")).to_have_text("Waiting for A to roll the calendar d4")
    expect(card.locator(".question")).to_have_text(
        "Night 2: A holds the god token and rolls the calendar d4 to move the god piece."
    )
    expect(card.locator("button")).to_have_count(0)


def test_the_only_seat_is_sent_unasked(open_page: Any, server: Server) -> None:
    """The player at seat B plays that seat alone: no form asks "player", and B is sent."""
    page, cid = night_page(open_page, server, "bee", None)
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    page.wait_for_selector('body[data-ready="true"]')
    details = page.locator("details.all-commands")
    if not details.evaluate("d => d.open"):
        details.locator("summary").click()
    details.locator('[data-open-command="end_turn"]').click()
    form = page.locator('.form-slot form[data-command="end_turn"]')
    expect(form.locator('[data-field="player"]')).to_be_hidden()
    with page.expect_response(answered):
        form.locator("button[type=submit]").click()
    assert {k: v for k, v in sent[-1].items() if k != "entropy"} == {
        "type": "end_turn",
        "player": "B",
    }


def a_night_at_the_calendar(server: Server) -> str:
    """A match of A and B whose first night stops for A's calendar d4, rolled by the players."""
    cid = new_campaign(
        server,
        {
            "game": "calendar-board",
            "name": "A night of my own dice",
            "house_rules": {"cb.night.steps": ["calendar"], "cb.night.rolls": "players"},
            "setup": {"players": [{"id": "A"}, {"id": "B"}]},
        },
    )
    command(server, cid, {"type": "end_turn", "player": "A"})
    asked = command(server, cid, {"type": "end_turn", "player": "B"})["state"]["pending"]
    assert asked["decision"] == "night_roll" and asked["who"] == "A"
    return cid


def test_a_real_night_stops_for_the_calendar_d4_and_takes_my_own(
    open_page: Any, server: Server
) -> None:
    """CB-09: the night asks A, the god-token holder, for the calendar d4; the owner, who holds
    no seat, rolls it for A with a die of A's own, and the god piece moves by it."""
    cid = a_night_at_the_calendar(server)
    page, _ = open_page("owner")
    sent = posted(page)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    card = page.locator('section[aria-label="Pending decision"]')
    expect(card.locator(".whose")).to_have_text("Your roll (as A)")
    expect(card.locator(".question")).to_have_text(
        "Night 1: A holds the god token and rolls the calendar d4 to move the god piece."
    )
    card.get_by_text("Enter my dice").click()
    card.get_by_label("d4 for the calendar roll").fill("3")
    with page.expect_response(answered) as response:
        card.get_by_role("button", name="Send my dice").click()
    assert response.value.status == 201, response.value.text()
    assert sent[-1] == {"type": "roll_night", "player": "A", "roll": "calendar", "faces": [3]}
    rolled = stored(server, cid, "cb.CalendarRolled")
    assert [e["data"]["details"].get("d4") for e in rolled] == [3], rolled
    expect(card).to_be_hidden()
