"""Pending decisions answered on the page with what the rules need, and the play panel's
commands possible now, "All commands" and "Undo the last command" (issue 26)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from playwright.sync_api import expect

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
    expect(pending.locator(".whose")).to_have_text("Waiting for A")  # the owner holds no seat
    answers = pending.locator("button.choice")
    labels = answers.all_inner_texts()
    assert "ambush" in labels and "sleep" in labels
    assert [t for t in labels if t.startswith("rizz")] == [
        "rizz: catgirlGirlfriend",
        "rizz: catboyBoyfriend",
    ]
    before = shown_version(page)
    pending.get_by_role("button", name="rizz: catboyBoyfriend").click()
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
    cid = server.seeded.campaigns["undo"]
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
            "house_rules": {"cb.night.steps": ["calendar"]},
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
    pending.get_by_role("button", name="decline fate reroll", exact=True).click()
    expect(pending.locator(".question")).to_contain_text("hail")
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
