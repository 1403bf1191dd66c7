"""Pending decisions answered on the page with what the rules need, and the play panel's
commands possible now, "All commands" and "Undo the last command"."""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from domain.model import samples
from tests.browser.helpers import shown_version, wait_for_version
from tests.browser.server import Server
from tests.fixtures.make_release_store import HAIL_SETUP, HERO

pytestmark = pytest.mark.browser
SHOP_RULE = "QC-" + "57"  # spelled apart: this file names no rule it tests (docs/rules.md)


def new_campaign(server: Server, body: dict[str, Any]) -> str:
    status, created = server.call("POST", "/campaigns", body)
    assert status == 201, created
    return str(created["id"])


def command(server: Server, cid: str, body: dict[str, Any]) -> None:
    status, answer = server.call("POST", f"/campaigns/{cid}/commands", body)
    assert status == 201, answer


def stored(server: Server, cid: str, event_type: str) -> list[dict[str, Any]]:
    _, page = server.call("GET", f"/campaigns/{cid}/events?limit=200")
    return [e for e in page["items"] if e["type"] == event_type]


def test_keep_the_rushed_clone_is_one_button(open_page: Any, server: Server) -> None:
    cid = new_campaign(
        server,
        {
            "game": "quest-calendar",
            "name": "A clone to keep",
            "setup": {"prologue_complete": True},
            "house_rules": {"qc.death.replaceHeroOnFour": True},
        },
    )
    hero = {**copy.deepcopy(HERO), "hp_max": 1, "rations": 0}
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": hero})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    command(server, cid, {"type": "eat_rations", "count": 1, "faces": [4]})  # starves; d4 = 4
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    pending = page.locator('section[aria-label="Pending decision"]')
    expect(pending.locator(".whose")).to_have_text("Your decision")
    assert pending.get_attribute("data-decision-for") == "you"
    # the other option asks for the new hero, open, beside the one-button answer
    expect(
        pending.locator('form[data-command="choose_clone_outcome"] fieldset[data-field="hero"]')
    ).to_have_count(1)
    before = shown_version(page)
    pending.get_by_role("button", name="Keep the rushed clone").click()
    expect(page.locator("[data-campaign-version]")).not_to_have_attribute(
        "data-campaign-version", str(before)
    )
    expect(pending).to_be_hidden()
    _, campaign = server.call("GET", f"/campaigns/{cid}")
    assert campaign["state"]["pending"] is None


def test_a_rizz_carries_the_partner_chosen(open_page: Any, server: Server) -> None:
    cid = new_campaign(
        server,
        {
            "game": "calendar-board",
            "name": "A night of rizz",
            "house_rules": {"cb.night.steps": ["actions"]},
            "setup": {"players": [{"id": "A"}, {"id": "B"}]},
        },
    )
    command(server, cid, {"type": "end_turn", "player": "A"})
    command(server, cid, {"type": "end_turn", "player": "B"})
    page, _ = open_page("owner")
    sent: list[dict[str, Any]] = []
    page.on(
        "request",
        lambda r: (
            r.method == "POST" and r.url.endswith("/commands") and sent.append(r.post_data_json)
        ),
    )
    page.goto(server.url(f"/app/campaigns/{cid}"))
    pending = page.locator('section[aria-label="Pending decision"]')
    # the owner holds no seat and answers for A: the panel says what the banner says
    expect(pending.locator(".whose")).to_have_text("Your decision (as A)")
    expect(page.locator("[data-turn]")).to_contain_text("Your decision")
    assert pending.get_attribute("data-decision-for") == "you"
    answers = pending.locator("button.choice")
    labels = answers.all_inner_texts()
    assert "ambush" in labels and "sleep" in labels
    assert [t for t in labels if t.startswith("rizz")] == [
        "rizz: catgirl girlfriend",
        "rizz: catboy boyfriend",
    ]
    before = shown_version(page)
    pending.get_by_role("button", name="rizz: catboy boyfriend").click()
    expect(page.locator("[data-campaign-version]")).not_to_have_attribute(
        "data-campaign-version", str(before)
    )
    body = {k: v for k, v in sent[-1].items() if k != "entropy"}
    assert body == {
        "type": "night_action",
        "player": "A",
        "action": "rizz",
        "partner": "catboyBoyfriend",
    }
    assert [e["data"]["details"]["action"] for e in stored(server, cid, "cb.NightActionTaken")] == [
        "rizz"
    ]


def test_the_commands_possible_now_and_the_undo_button(open_page: Any, server: Server) -> None:
    """GET /campaigns/{id}/actions (its contract, served here by the test): the available commands
    first, the others under "All commands" with their reasons, and the undo by its policy."""
    cid = new_campaign(
        server,
        {"game": "quest-calendar", "name": "One to undo", "setup": {"prologue_complete": True}},
    )
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    command(server, cid, {"type": "gain_credits", "amount": 3, "cause": "salvage"})
    _, campaign = server.call("GET", f"/campaigns/{cid}")
    head = campaign["version"]
    page, _ = open_page("owner")

    def actions(route: Any) -> None:
        _, now = server.call("GET", f"/campaigns/{cid}")
        version = now["version"]
        answer = {
            "version": version,
            "pending": None,
            "turn": None,
            "commands": [
                {"name": "gain_credits", "available": True},
                {"name": "buy", "available": False, "rule": SHOP_RULE, "reason": "no shop is open"},
            ],
            "undo": {
                "to_version": version - 1,
                "command": "gain_credits",
                "from_version": version,
                "policy": "direct",
                "reason": None,
            }
            if version == head
            else None,
        }
        route.fulfill(status=200, content_type="application/json", body=json.dumps(answer))

    page.route(f"**/campaigns/{cid}/actions", actions)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    now = page.locator(".actions-now")
    expect(now.locator("[data-open-command]")).to_have_count(1)
    expect(now.locator('[data-open-command="gain_credits"]')).to_be_visible()
    refused = page.locator('.all-commands li[data-command="buy"]')
    assert refused.get_attribute("data-available") == "false"
    page.locator("details.all-commands summary").click()
    expect(refused).to_contain_text(f"[{SHOP_RULE}] no shop is open")
    undo = page.get_by_role("button", name="Undo the last command", exact=True)
    undo.click()
    page.get_by_role("button", name="Cancel").click()
    expect(page.locator("form.undo")).to_have_count(0)
    undo.click()
    page.get_by_label("Why undo gain credits?").fill("typed the wrong amount")
    page.get_by_role("button", name="Confirm undo").click()
    wait_for_version(page, head + 1)
    rolled = stored(server, cid, "questlog.RolledBack")
    assert rolled and rolled[0]["data"]["to_version"] == head - 1
    expect(undo).to_be_disabled()


def test_a_declined_fate_reroll_then_the_hail_damage_on_a_piece(
    open_page: Any, server: Server
) -> None:
    cid = new_campaign(
        server,
        {
            "game": "calendar-board",
            "name": "A hail to answer",
            "house_rules": {**samples.ONE_SCREEN, "cb.night.steps": ["calendar"]},
            "setup": HAIL_SETUP,
        },
    )
    for faces in ([4], [4], [4], [1, 1]):  # the god piece reaches hail (13); A's save: 1
        command(server, cid, {"type": "end_turn", "player": "A"})
        command(server, cid, {"type": "end_turn", "player": "B", "faces": faces})
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    pending = page.locator('section[aria-label="Pending decision"]')
    expect(pending.locator(".question")).to_contain_text("fate reroll")
    # in words: what happened, what each answer does (trial snag: "d6 5, player Bob, roll ...")
    expect(pending.locator(".question")).to_contain_text("A failed the hail save")
    expect(pending.locator(".question")).to_contain_text("the hail's damage follows")
    expect(pending.locator(".question")).to_contain_text("the new roll stands")
    expect(pending.locator(".context")).to_have_count(0)
    pending.get_by_role("button", name="Keep the roll", exact=True).click()
    # the next question's own words: the declined one also said "hail", so "hail" alone passed
    # or failed by how fast the page moved on (CI failed on "Hail hits A: ...")
    expect(pending.locator(".question")).to_contain_text("Hail hits A: the d4 rolled")
    expect(pending.locator("button.choice")).to_have_text(["a1", "a2"])
    pending.get_by_role("button", name="a2", exact=True).click()
    expect(pending).to_be_hidden()
    taken = stored(server, cid, "cb.HailDamageTaken")
    assert [e["data"]["details"]["piece_id"] for e in taken] == ["a2"]


def test_the_loot_is_chosen_by_its_name(open_page: Any, server: Server) -> None:
    cid = new_campaign(
        server,
        {"game": "quest-calendar", "name": "Loot", "setup": {"prologue_complete": True}},
    )
    visor = {"id": "visor", "name": "Void Visor", "kind": "equipment", "slot": "helmet"}
    hero = {**copy.deepcopy(HERO), "hp_max": 1, "rations": 0}
    hero["inventory"] = [*hero["inventory"], visor]
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": hero})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    command(server, cid, {"type": "eat_rations", "count": 1, "faces": [3]})  # d4 = 3: loot
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    pending = page.locator('section[aria-label="Pending decision"]')
    pending.get_by_role("button", name="Void Visor (helmet)").click()
    expect(pending).to_be_hidden()
    _, campaign = server.call("GET", f"/campaigns/{cid}")
    assert [i["id"] for i in campaign["state"]["hero"]["inventory"]] == ["repair-kit"]


AMBUSH = {
    "decision": "ambush_target",
    "who": "A",
    "rule": "CB-35",
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
    "rule": "CB-15",
    "commands": ["choose_supply_weapon"],
    "options": ["bow", "crossbow"],
    "context": {"space_index": 5, "may_decline": True},
}
CREATURES = {
    "decision": "creature_order",
    "who": "A",
    "rule": "CB-04",
    "commands": ["order_creatures"],
    "options": ["zombie-1", "zombie-2"],
    "context": {"creature_type": "zombie"},
}
REST = {
    "decision": "rest_stat",
    "who": "player",
    "rule": "QC-52",
    "commands": ["choose_rest_stat"],
    "options": ["STR", "DEF"],
    "context": {},
}
ROUND = {
    "decision": "round_abilities",
    "who": "player",
    "rule": "QC-28",
    "commands": ["resolve_round"],
    "options": [{"id": "smite", "kind": "damage_bonus", "usage": "per_rest", "uses_left": 1}],
    "context": {"round": 1},
}


def answers_of(open_page: Any, server: Server, key: str, pending: dict[str, Any], act: Any) -> Any:
    """Open campaign ``key`` as if ``pending`` were its decision; ``act`` answers; the body sent."""
    cid = server.seeded.campaigns[key]
    page, watch = open_page("owner")
    watch.allowed.append(("/commands", (422,)))

    def with_pending(route: Any) -> None:
        response = route.fetch()
        campaign = response.json()
        campaign["state"]["pending"] = pending
        if key == "match":
            campaign["state"]["creatures"] = [
                {"id": "zombie-1", "type": "zombie"},
                {"id": "zombie-2", "type": "zombie"},
            ]
        route.fulfill(response=response, body=json.dumps(campaign))

    sent: list[dict[str, Any]] = []

    def refuse(route: Any) -> None:
        sent.append(route.request.post_data_json)
        route.fulfill(status=422, content_type="application/problem+json", body=json.dumps({}))

    page.route(lambda url: urlsplit(url).path == f"/campaigns/{cid}", with_pending)
    page.route("**/campaigns/*/commands", refuse)
    page.goto(server.url(f"/app/campaigns/{cid}"))
    section = page.locator('section[aria-label="Pending decision"]')
    expect(section.locator(".whose")).to_have_text("Your decision")
    # act on the page once it has finished loading (a refresh replaces the decision's buttons),
    # and wait for the refusal itself: the error toast shows for 5 s only (ui.js)
    page.wait_for_selector('body[data-ready="true"]')
    with page.expect_response(lambda r: urlsplit(r.url).path == f"/campaigns/{cid}/commands"):
        act(section)
    expect(page.locator(".toast.error, section.pending .error:not(:empty)").first).to_be_visible()
    return {k: v for k, v in sent[-1].items() if k != "entropy"}


def test_an_ambush_names_the_piece_target_and_form(open_page: Any, server: Server) -> None:
    def act(section: Any) -> None:
        form = section.locator('form[data-command="choose_ambush"]')
        form.get_by_label("Answer").select_option(label="a1 ambushes b2 (space 1 → 4)")
        form.get_by_label("form").fill("surprise attack")
        form.locator("button[type=submit]").click()

    body = answers_of(open_page, server, "match", AMBUSH, act)
    assert body == {
        "type": "choose_ambush",
        "player": "A",
        "piece": "a1",
        "target": "b2",
        "form": "surprise attack",
    }


def test_a_fate_reroll_of_the_ambush_names_its_roll(open_page: Any, server: Server) -> None:
    act = lambda s: s.get_by_role("button", name="Use a fate reroll", exact=True).click()  # noqa: E731
    body = answers_of(open_page, server, "match", AMBUSH, act)
    assert body == {"type": "fate_reroll", "player": "A", "roll": "ambush"}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("crossbow", {"weapon": "crossbow"}),
        ("Decline", {}),
    ],
)
def test_a_supply_weapon_or_its_decline(
    open_page: Any, server: Server, name: str, expected: dict[str, Any]
) -> None:
    act = lambda s: s.get_by_role("button", name=name, exact=True).click()  # noqa: E731
    body = answers_of(open_page, server, "match", SUPPLY, act)
    assert body == {"type": "choose_supply_weapon", "player": "A", **expected}


def test_the_creatures_order_comes_filled_in(open_page: Any, server: Server) -> None:
    def act(section: Any) -> None:
        form = section.locator('form[data-command="order_creatures"]')
        form.locator('[name="order[0]"]').select_option("zombie-2")
        form.locator('[name="order[1]"]').select_option("zombie-1")
        form.locator("button[type=submit]").click()

    body = answers_of(open_page, server, "match", CREATURES, act)
    assert body == {"type": "order_creatures", "player": "A", "order": ["zombie-2", "zombie-1"]}


def test_a_rest_stat_is_one_button(open_page: Any, server: Server) -> None:
    act = lambda s: s.get_by_role("button", name="DEF", exact=True).click()  # noqa: E731
    assert answers_of(open_page, server, "play", REST, act) == {
        "type": "choose_rest_stat",
        "stat": "DEF",
    }


@pytest.mark.parametrize(("tick", "expected"), [(True, {"abilities": ["smite"]}), (False, {})])
def test_abilities_on_a_round_or_none(
    open_page: Any, server: Server, tick: bool, expected: dict[str, Any]
) -> None:
    def act(section: Any) -> None:
        form = section.locator('form[data-command="resolve_round"]')
        if tick:
            form.get_by_label("smite", exact=False).check()
        form.locator("button[type=submit]").click()

    body = answers_of(open_page, server, "play", ROUND, act)
    assert body == {"type": "resolve_round", **expected}


def seated(open_page: Any, server: Server, name: str, seat: str, night: bool = False) -> Any:
    """A new match of A (two pieces) and B, and its page as the player invited to ``seat``."""
    rules = {"cb.night.steps": ["actions"]} if night else {}
    cid = new_campaign(
        server, {"game": "calendar-board", "name": name, "setup": HAIL_SETUP, "house_rules": rules}
    )
    status, invite = server.call(
        "POST", f"/campaigns/{cid}/invites", {"role": "player", "seat": seat, "name": name}
    )
    assert status == 201, invite
    page, _ = open_page()
    page.goto(server.url(invite["url"]))
    page.get_by_text(f"you are player (seat {seat})").wait_for()
    return page


def all_commands(page: Any) -> Any:
    """The "All commands" list, open."""
    details = page.locator("details.all-commands")
    details.locator("li[data-command]").first.wait_for(state="attached")
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    return details


def test_a_piece_is_offered_for_the_seat_filled_in(open_page: Any, server: Server) -> None:
    """The page fills in the seat's player: the fields picked from that player's state (the
    piece to move) are filled from it at once, without touching the player select."""
    page = seated(open_page, server, "Pieces of the seat", "A")
    all_commands(page).locator('[data-open-command="roll_movement"]').click()
    form = page.locator('.form-slot form[data-command="roll_movement"]')
    expect(form.locator('[name="player"]')).to_have_value("A")
    assert form.locator('[name="piece"] option').all_inner_texts() == ["(not set)", "a1", "a2"]


def test_another_players_move_is_not_offered_as_yours(open_page: Any, server: Server) -> None:
    """A's move: seat B is told to wait and finds A's commands only under "All commands"; the
    owner, who holds no seat, may act for A, and the buttons say so."""
    page = seated(open_page, server, "B waits", "B")
    now = page.locator(".actions-now")
    expect(now.locator("h4")).to_have_text("Waiting for A")
    expect(now.locator('[data-open-command="end_turn"]')).to_have_count(0)
    expect(all_commands(page).locator('[data-open-command="end_turn"]')).to_have_count(1)
    owner, _ = open_page("owner")
    cid = page.url.split("/app/campaigns/")[1].split("#")[0]
    owner.goto(server.url(f"/app/campaigns/{cid}"))
    button = owner.locator('.actions-now [data-open-command="end_turn"]')
    expect(button).to_have_text("End the turn as A")
    button.click()
    form = owner.locator('.form-slot form[data-command="end_turn"]')
    expect(form.locator('[name="player"]')).to_have_value("A")


ASSIGN = {
    "decision": "combat_assign_abilities",
    "who": "player",
    "rule": "QC-29",
    "commands": ["resolve_rounds"],
    "options": [{"id": "smite", "kind": "damage_bonus", "usage": "per_rest", "uses_left": 1}],
    "context": {
        "rounds": [
            {"round": 1, "condition": None, "damage_dealt": 0, "hit": False, "won": False},
            {"round": 2, "condition": None, "damage_dealt": 4, "hit": True, "won": True},
        ],
        "roll_id": "26-1",
        "order_index": 0,
    },
}


def test_easy_mode_abilities_are_ticked_per_round(open_page: Any, server: Server) -> None:
    """QC-29's decision: a checkbox per ability and rolled round, its rounds told in words."""

    def act(section: Any) -> None:
        shown = section.inner_text()
        for raw in ("null", "false", "{", "26-1", "order index"):
            assert raw not in shown, shown
        assert "Round 1: missed" in shown and "Round 2: damage dealt 4, hit, won" in shown
        section.locator('fieldset[data-round="2"]').get_by_label("smite", exact=False).check()
        section.locator('form[data-command="resolve_rounds"] button[type=submit]').click()

    body = answers_of(open_page, server, "play", ASSIGN, act)
    assert body == {"type": "resolve_rounds", "assignments": {"2": ["smite"]}}


def test_switch_to_a_sample_hero_is_one_button(open_page: Any, server: Server) -> None:
    """QC-48's replacement hero: the sample heroes are offered, at the old hero's level."""
    cid = new_campaign(
        server,
        {
            "game": "quest-calendar",
            "name": "A clone to switch",
            "setup": {"prologue_complete": True},
            "house_rules": {"qc.death.replaceHeroOnFour": True},
        },
    )
    hero = {**copy.deepcopy(HERO), "hp_max": 1, "rations": 0}
    command(server, cid, {"type": "select_hero", "phase": "main", "hero": hero})
    command(server, cid, {"type": "start_page", "date": "2027-01-04"})
    command(server, cid, {"type": "eat_rations", "count": 1, "faces": [4]})  # starves; d4 = 4
    page, _ = open_page("owner")
    page.goto(server.url(f"/app/campaigns/{cid}"))
    pending = page.locator('section[aria-label="Pending decision"]')
    samples = pending.locator(".hero-choices button")
    expect(samples.first).to_contain_text("(sample)")
    expect(pending.locator('form[data-command="choose_clone_outcome"] h4')).to_have_text(
        "Switch to a hero of my own"
    )
    samples.first.click()
    expect(pending).to_be_hidden()
    assert len(stored(server, cid, "qc.HeroReplaced")) == 1


def test_forms_ask_faces_only_with_dice_and_a_date_by_calendar(
    open_page: Any, server: Server
) -> None:
    """No faces on a command without dice; a page's date is a date control; help in words."""
    page, _ = open_page("owner")
    page.goto(server.campaign_url("play"))
    listed = all_commands(page)
    listed.locator('[data-open-command="equip"]').click()
    form = page.locator('.form-slot form[data-command="equip"]')
    expect(form.locator('[name="item"]')).to_have_count(1)
    expect(form.locator('[name="faces"]')).to_have_count(0)
    listed.locator('[data-open-command="start_page"]').click()
    form = page.locator('.form-slot form[data-command="start_page"]')
    expect(form.locator('[name="date"]')).to_have_attribute("type", "date")
    help_text = form.inner_text()
    assert "`" not in help_text and "left out" not in help_text, help_text
