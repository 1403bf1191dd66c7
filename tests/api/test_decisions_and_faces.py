"""Through the API on SQLite and PostgreSQL: a fate reroll at night
shows in the rolls, the roll log and the audit as the reroll of its roll (CB-10, CB-28, G-CB-12);
a refusal while a decision is pending says what is pending and what is accepted; reported faces
keep what the player saw beside their reading (QC-08, QC-09)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.model import samples
from domain.service.questlog import Questlog
from tests.api.api_calls import command, post
from webapi.app import create_app
from webapi.http.view_store import close_views

Json = dict[str, Any]


@pytest.fixture
def api(app: Questlog) -> Iterator[Flask]:
    flask_app = create_app(app, auth=False, rate_limit=0, TESTING=True)
    yield flask_app
    close_views(flask_app)


@pytest.fixture
def client(api: Flask) -> FlaskClient:
    return api.test_client()


def hail_night(client: FlaskClient) -> tuple[str, Json]:
    """A two-player match whose fourth night lands on Hail 13; A (two pieces on the pathway,
    goal 2) fails the save with a 1 and is offered a fate reroll."""
    created = post(
        client,
        "/campaigns",
        {
            "game": "calendar-board",
            "name": "hail",
            "house_rules": {**samples.ONE_SCREEN, "cb.night.steps": ["calendar"]},
            "setup": {
                "players": [
                    {
                        "id": "A",
                        "pieces": [
                            {"id": "a1", "location": {"kind": "pathway", "space": 1}},
                            {"id": "a2", "location": {"kind": "pathway", "space": 2}},
                        ],
                    },
                    {"id": "B"},
                ]
            },
        },
    )
    cid = created["id"]
    reply: Json = {}
    for faces in ([4], [4], [4], [1, 1]):  # 0 -> 4 -> 8 -> 12 -> 13 (hail); A's d20 1
        command(client, cid, {"type": "end_turn", "player": "A"})
        reply = command(client, cid, {"type": "end_turn", "player": "B", "faces": faces})
    return cid, reply


def test_g_cb12_a_night_fate_reroll_is_shown_as_the_reroll_of_its_roll(client: FlaskClient) -> None:
    cid, offered = hail_night(client)
    pending = offered["state"]["pending"]
    assert (pending["decision"], pending["who"]) == ("fate_reroll", "A")
    original = pending["context"]["roll_id"]

    rerolled = command(
        client, cid, {"type": "fate_reroll", "player": "A", "roll": "hail", "faces": [15]}
    )

    types = [event["type"] for event in rerolled["events"]]
    assert types[:2] == ["cb.FateRerollUsed", "cb.HailSaveRolled"]
    assert rerolled["state"]["pending"] is None
    assert rerolled["state"]["night"] is None  # a save rerolled into success: no damage
    assert "cb.HailDamageTaken" not in types
    rolls = client.get(f"/campaigns/{cid}/rolls?limit=100").json["items"]
    assert [r["purpose"] for r in rolls][-2:] == ["hail", f"hail (fate reroll of {original})"]
    assert rolls[-1]["fate_reroll_of"] == original
    assert rolls[-2]["roll_id"] == original
    audit = client.get(f"/campaigns/{cid}/audit").json
    assert audit["ok"] is True
    assert audit["rerolls"]["count"] == 0  # nothing was undone: this is no reroll by rollback
    assert audit["fate_rerolls"]["count"] == 1
    item = audit["fate_rerolls"]["items"][0]
    assert (item["fate_reroll_of"], item["replaced_found"], item["replaced_total"]) == (
        original,
        True,
        1,
    )
    version = rerolled["version"]
    log = client.get(f"/campaigns/{cid}/views/rolls?wait_for_version={version}&limit=100").json
    row = log["items"][-1]
    assert (row["purpose"], row["event_type"]) == (
        f"hail (fate reroll of {original})",
        "HailSaveRolled",
    )


def test_a_refusal_while_a_decision_is_pending_says_what_to_do(client: FlaskClient) -> None:
    cid, _ = hail_night(client)
    head = client.get(f"/campaigns/{cid}").json["version"]

    refused = command(client, cid, {"type": "end_turn", "player": "A"}, status=409)

    assert refused["rule"] == "G-CB-12"
    assert refused["pending"] == {
        "decision": "fate_reroll",
        "who": "A",
        "rule": "G-CB-12",
        "commands": ["fate_reroll", "decline_fate_reroll"],
        "options": ["fate_reroll", "decline"],
    }
    assert refused["also"] == {  # and it would be refused by its own rule anyway
        "rule": "CB-01",
        "detail": "the night phase is running: no player has a turn",
    }
    damage = {"type": "assign_hail_damage", "player": "A", "piece": "a1"}
    refused = command(client, cid, damage, status=409)
    assert "also" not in refused  # declining leads to exactly that decision
    wind = command(client, cid, {"type": "fate_reroll", "player": "A", "roll": "wind"}, 422)
    assert "roll" in wind["errors"]  # CB-10: never a choice of the command
    assert client.get(f"/campaigns/{cid}").json["version"] == head


def test_qc08_qc09_reported_faces_keep_what_the_player_saw(client: FlaskClient) -> None:
    cid = post(client, "/campaigns", {"game": "quest-calendar", "name": "faces"})["id"]
    d10 = post(client, f"/campaigns/{cid}/rolls", {"dice": "d10", "faces": [0]})
    assert d10["dice"] == [{"sides": 10, "face": 10, "raw": 0, "kept": True}]
    assert d10["total"] == 10
    pair = {"tens": 60, "units": 5}
    d100 = post(client, f"/campaigns/{cid}/rolls", {"dice": "d100", "faces": [pair]})
    assert d100["dice"] == [{"sides": 100, "face": 65, "raw": pair, "kept": True}]
    zeros = post(
        client, f"/campaigns/{cid}/rolls", {"dice": "d100", "faces": [{"tens": 0, "units": 0}]}
    )
    assert (zeros["total"], zeros["dice"][0]["raw"]) == (100, {"tens": 0, "units": 0})
    plain = post(client, f"/campaigns/{cid}/rolls", {"dice": "d10", "faces": [7]})
    assert plain["dice"] == [{"sides": 10, "face": 7, "kept": True}]

    listed = client.get(f"/campaigns/{cid}/rolls").json["items"]
    assert [d["dice"][0].get("raw") for d in listed] == [0, pair, {"tens": 0, "units": 0}, None]
    events = client.get(f"/campaigns/{cid}/events").json["items"]
    assert events[1]["data"]["rolls"][0]["dice"][0]["raw"] == 0
    one = client.get(f"/campaigns/{cid}/rolls/{d10['roll_id']}").json
    assert one["dice"][0] == {"sides": 10, "face": 10, "raw": 0, "kept": True}
    version = plain["version"]
    log = client.get(f"/campaigns/{cid}/views/rolls?wait_for_version={version}").json["items"]
    assert [(row["faces"], row["dice"][0].get("raw")) for row in log] == [
        ([10], 0),
        ([65], pair),
        ([100], {"tens": 0, "units": 0}),
        ([7], None),
    ]
    assert client.get(f"/campaigns/{cid}/audit").json["ok"] is True


def test_a_refusal_names_no_rule_of_its_own_for_a_decision_that_may_come_next(
    client: FlaskClient,
) -> None:
    cid, _ = hail_night(client)
    # Once A declines, the night may well reach the night actions: the command is not refused by
    # a rule of its own, so only the pending decision is named.
    night = command(client, cid, {"type": "night_action", "player": "A", "action": "sleep"}, 409)
    assert night["pending"]["decision"] == "fate_reroll"
    assert "also" not in night
    # The right command from the wrong player names the decision too.
    wrong = command(client, cid, {"type": "decline_fate_reroll", "player": "B"}, 409)
    assert wrong["pending"]["who"] == "A"


def test_a_player_seat_must_be_a_player_of_the_match(client: FlaskClient, app: Questlog) -> None:
    cid, _ = hail_night(client)
    app.access.create_token("bob")
    body = {"token_name": "bob", "role": "player", "seat": "Z"}
    refused = post(client, f"/campaigns/{cid}/members", body, status=409)  # the match holds no Z
    assert refused["type"].endswith(":not-held") and "seat" in refused["errors"]
    post(client, f"/campaigns/{cid}/members", {**body, "seat": "B"})
