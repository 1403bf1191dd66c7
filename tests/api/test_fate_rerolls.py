"""Through the API on SQLite and PostgreSQL: fate rerolls a match's set-up counts (G-CB-01, with
CB-10 and G-CB-12). The count shows in the state, each one spent takes one off and says how many
are left, a player with none left is not asked at night and their ``fate_reroll`` is a 409 naming
G-CB-01 that stores nothing, and a reroll CB-10 refuses costs nothing."""

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
def client(app: Questlog) -> Iterator[FlaskClient]:
    flask_app: Flask = create_app(app, auth=False, rate_limit=0, TESTING=True)
    yield flask_app.test_client()
    close_views(flask_app)


def counted_match(client: FlaskClient, a_has: int) -> str:
    """Two players; A's two pieces on the pathway make A's hail save need 2; the set-up gives A
    ``a_has`` fate rerolls and B none counted; each night is the calendar roll alone."""
    a = {
        "id": "A",
        "fate_rerolls": a_has,
        "pieces": [
            {"id": "a1", "location": {"kind": "pathway", "space": 1}},
            {"id": "a2", "location": {"kind": "pathway", "space": 2}},
        ],
    }
    body = {
        "game": "calendar-board",
        "name": "counted",
        "house_rules": {**samples.ONE_SCREEN, "cb.night.steps": ["calendar"]},
        "setup": {"players": [a, {"id": "B"}]},
    }
    cid: str = post(client, "/campaigns", body)["id"]
    return cid


def to_hail(client: FlaskClient, cid: str, *then: int) -> Json:
    """Four rounds: the god piece goes 0 -> 4 -> 8 -> 12 -> 13 (Hail) and A's d20 is a 1; then
    the faces of whatever the night rolls next."""
    reply: Json = {}
    for faces in ([4], [4], [4], [1, 1, *then]):
        command(client, cid, {"type": "end_turn", "player": "A"})
        reply = command(client, cid, {"type": "end_turn", "player": "B", "faces": faces})
    return reply


def party(client: FlaskClient, cid: str, who: str) -> Json:
    found: Json = client.get(f"/campaigns/{cid}").json["state"]["parties"][who]
    return found


def test_g_cb01_g_cb12_the_count_shows_in_the_state_and_each_reroll_takes_one(
    client: FlaskClient,
) -> None:
    cid = counted_match(client, 1)
    assert (
        party(client, cid, "A")["fate_rerolls"],
        party(client, cid, "A")["fate_rerolls_given"],
    ) == (
        1,
        1,
    )
    assert party(client, cid, "B")["fate_rerolls"] is None

    offered = to_hail(client, cid)
    assert offered["state"]["pending"]["decision"] == "fate_reroll"
    rerolled = command(
        client, cid, {"type": "fate_reroll", "player": "A", "roll": "hail", "faces": [15]}
    )

    [used] = [e for e in rerolled["events"] if e["type"] == "cb.FateRerollUsed"]
    assert used["data"]["details"]["left"] == 0
    assert used["summary"] == "A spends a fate reroll on the hail roll at night (none left)"
    assert party(client, cid, "A")["fate_rerolls"] == 0


def test_g_cb01_a_player_with_none_left_is_refused_with_a_409_naming_the_rule(
    client: FlaskClient,
) -> None:
    cid = counted_match(client, 1)
    to_hail(client, cid)  # A's save fails and A spends their one fate reroll on it
    command(client, cid, {"type": "fate_reroll", "player": "A", "roll": "hail", "faces": [15]})
    head = client.get(f"/campaigns/{cid}").json["version"]

    refused = command(client, cid, {"type": "fate_reroll", "player": "A", "roll": "ambush"}, 409)

    assert refused["rule"] == "G-CB-01"
    assert refused["detail"] == (
        "A has no fate reroll left (the match gave them 1, for the whole match)"
    )
    assert client.get(f"/campaigns/{cid}").json["version"] == head
    actions = client.get(f"/campaigns/{cid}/actions").json["commands"]
    [entry] = [e for e in actions if e["name"] == "fate_reroll"]
    assert (entry["available"], entry["rule"], entry["reason"]) == (
        False,
        "G-CB-01",
        refused["detail"],
    )


def test_cb10_a_refused_reroll_costs_nothing_the_player_keeps_their_fate_reroll(
    client: FlaskClient,
) -> None:
    cid = counted_match(client, 1)
    wind = command(client, cid, {"type": "fate_reroll", "player": "A", "roll": "wind"}, 422)
    assert "roll" in wind["errors"]  # never a choice of the command
    assert party(client, cid, "A")["fate_rerolls"] == 1
    reply = to_hail(client, cid)  # A's save fails: the reroll is offered, and still there
    assert reply["pending"]["decision"] == "fate_reroll"
    used = command(
        client, cid, {"type": "fate_reroll", "player": "A", "roll": "hail", "faces": [20]}
    )
    assert used["events"][0]["data"]["details"]["left"] == 0


def test_g_cb12_with_none_left_the_hail_night_does_not_ask_and_the_damage_follows(
    client: FlaskClient,
) -> None:
    cid = counted_match(client, 0)
    reply = to_hail(client, cid, 3)  # the damage d4, rolled at once
    decisions = [
        e["data"]["details"]["decision"]
        for e in reply["events"]
        if e["type"] == "cb.DecisionRequested"
    ]
    assert decisions == ["hail_damage"]
    assert reply["state"]["pending"]["commands"] == ["assign_hail_damage"]
    refused = command(client, cid, {"type": "fate_reroll", "player": "A", "roll": "hail"}, 409)
    assert (refused["rule"], refused["also"]["rule"]) == ("CB-28", "G-CB-01")


def test_g_cb01_a_set_up_count_out_of_range_is_a_422_naming_the_field(
    client: FlaskClient,
) -> None:
    body = {
        "game": "calendar-board",
        "name": "wrong",
        "setup": {"players": [{"id": "A", "fate_rerolls": -1}, {"id": "B"}]},
    }
    refused = post(client, "/campaigns", body, 422)
    assert list(refused["errors"]) == ["players[0].fate_rerolls"]
    assert client.get("/campaigns").json["items"] == []
