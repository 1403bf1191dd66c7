"""Through the API on SQLite and PostgreSQL: a fate reroll is spent on a roll the night offers
(G-CB-12, CB-10). At the start of a day no roll is on offer, so ``GET /actions`` does not offer
``fate_reroll`` and the command is a 409 naming G-CB-12 that leaves the event log as it was and
the party's fate rerolls untouched; the command's ``roll`` offers only the rolls a fate reroll can
touch (the party's own night rolls), never the calendar, wind, basketball or Annustaria roll."""

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


def new_day(client: FlaskClient) -> str:
    """A match at the start of its first day: A, with one fate reroll, and B; nothing rolled."""
    a = {"id": "A", "fate_rerolls": 1, "pieces": [{"id": "a1", "location": {"kind": "home"}}]}
    body = {
        "game": "calendar-board",
        "name": "a new day",
        "house_rules": samples.ONE_SCREEN,
        "setup": {"players": [a, {"id": "B"}]},
    }
    cid: str = post(client, "/campaigns", body)["id"]
    return cid


def events(client: FlaskClient, cid: str) -> list[Json]:
    """The campaign's event log, in full."""
    found: list[Json] = client.get(f"/campaigns/{cid}/events?limit=1000").json["items"]
    return found


def test_g_cb12_at_the_start_of_a_day_a_fate_reroll_is_not_offered(client: FlaskClient) -> None:
    cid = new_day(client)
    offered = client.get(f"/campaigns/{cid}/actions").json["commands"]
    [entry] = [e for e in offered if e["name"] == "fate_reroll"]
    assert (entry["available"], entry["rule"]) == (False, "G-CB-12")


@pytest.mark.parametrize("roll", ["ambush", "rizz", "hail"])
def test_g_cb12_a_fate_reroll_with_nothing_to_reroll_is_refused_and_stores_nothing(
    client: FlaskClient, roll: str
) -> None:
    cid = new_day(client)
    before = events(client, cid)

    refused = command(client, cid, {"type": "fate_reroll", "player": "A", "roll": roll}, 409)

    assert refused["rule"] == "G-CB-12"
    assert refused["detail"].startswith(f"no {roll} roll is on offer to fate-reroll")
    assert events(client, cid) == before
    state = client.get(f"/campaigns/{cid}").json["state"]
    assert state["parties"]["A"]["fate_rerolls"] == 1


@pytest.mark.parametrize("roll", ["calendar", "wind", "basketball", "annustaria"])
def test_cb10_g_cb12_a_roll_never_fate_rerolled_is_no_choice_of_the_command(
    client: FlaskClient, roll: str
) -> None:
    cid = new_day(client)
    before = events(client, cid)

    invalid = command(client, cid, {"type": "fate_reroll", "player": "A", "roll": roll}, 422)

    assert invalid["errors"]["roll"] == ["must be one of ambush, rizz, hail"]
    assert events(client, cid) == before


def test_cb10_g_cb12_the_document_offers_only_the_rolls_a_fate_reroll_can_touch(
    client: FlaskClient,
) -> None:
    document = client.get("/openapi.json").json
    roll = document["components"]["schemas"]["FateRerollCommand"]["properties"]["roll"]
    assert roll["enum"] == ["ambush", "rizz", "hail"]
