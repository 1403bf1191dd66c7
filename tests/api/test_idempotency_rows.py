"""What an ``Idempotency-Key`` stores: the command's domain result, rendered again on a replay;
and rows written by an earlier release, which stored the HTTP response, replayed as they were."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from domain.storage.side_tables import IDEMPOTENCY_TABLE
from tests.application.qc_week_data import HERO


def stored_rows(questlog: Questlog) -> list[tuple[str, str, dict[str, Any]]]:
    """Every idempotency row: scope, key and the stored JSON."""
    path = questlog.config.sqlite_path
    assert path is not None
    connection = sqlite3.connect(path)
    try:
        rows = connection.execute(f"SELECT scope, key, response FROM {IDEMPOTENCY_TABLE}")
        return [(str(s), str(k), json.loads(r)) for s, k, r in rows.fetchall()]
    finally:
        connection.close()


def overwrite_row(questlog: Questlog, key: str, stored: dict[str, Any]) -> None:
    """Replace what a row stores, as an earlier release would have written it."""
    path = questlog.config.sqlite_path
    assert path is not None
    connection = sqlite3.connect(path)
    try:
        with connection:
            connection.execute(
                f"UPDATE {IDEMPOTENCY_TABLE} SET response = ? WHERE key = ?",
                (json.dumps(stored), key),
            )
    finally:
        connection.close()


def test_a_key_stores_the_domain_result_not_the_http_response(
    client: FlaskClient, campaign: dict[str, Any], questlog: Questlog
) -> None:
    cid = campaign["id"]
    first = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d20"}, headers={"Idempotency-Key": "r-1"}
    )
    [(_scope, _key, stored)] = stored_rows(questlog)
    assert set(stored) == {"result"}
    result = stored["result"]
    assert result["campaign_id"] == cid
    assert (result["first_version"], result["version"]) == (2, 2)
    assert result["head_hash"] == first.json["head_hash"]
    assert result["value"]["roll_id"] == first.json["roll_id"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/rolls", {"dice": "d20"}),
        ("/dice/client-seed", {"client_seed": "a lucky string"}),
        ("/dice/rotate", None),
        ("/commands", {"type": "select_hero", "phase": "main", "hero": HERO}),
        ("/house-rules", {"key": "qc.combat.mode", "value": "easy"}),
        ("/fork", {"at_version": 1, "name": "what if"}),
    ],
)
def test_a_replay_renders_the_same_response_as_the_first_answer(
    client: FlaskClient, path: str, body: dict[str, Any] | None
) -> None:
    created = client.post(
        "/campaigns",
        json={"game": "quest-calendar", "name": "replays", "setup": {"prologue_complete": True}},
    )
    url = f"/campaigns/{created.json['id']}{path}"
    headers = {"Idempotency-Key": "same"}
    first = client.post(url, json=body, headers=headers)
    again = client.post(url, json=body, headers=headers)
    assert first.status_code == again.status_code
    assert first.status_code in (200, 201), first.json
    assert again.json == first.json
    assert again.headers["ETag"] == first.headers["ETag"]
    assert again.headers.get("Location") == first.headers.get("Location")
    assert again.headers["Idempotent-Replayed"] == "true"


def test_a_row_with_the_earlier_release_shape_replays_exactly_as_stored(
    client: FlaskClient, campaign: dict[str, Any], questlog: Questlog
) -> None:
    cid = campaign["id"]
    url = f"/campaigns/{cid}/rolls"
    headers = {"Idempotency-Key": "old-1"}
    client.post(url, json={"dice": "d20"}, headers=headers)
    old_shape = {
        "status": 201,
        "body": {"roll_id": "2-1", "total": 17, "verified": None, "version": 2, "head_hash": "h"},
        "headers": {"ETag": '"2"', "X-Earlier": "kept"},
    }
    overwrite_row(questlog, "old-1", old_shape)

    again = client.post(url, json={"dice": "d20"}, headers=headers)

    assert again.status_code == 201
    assert again.json == old_shape["body"]
    assert again.headers["ETag"] == '"2"'
    assert again.headers["X-Earlier"] == "kept"
    assert again.headers["Idempotent-Replayed"] == "true"
    assert client.get(f"/campaigns/{cid}").json["version"] == 2


def test_a_campaign_creation_row_of_the_earlier_release_replays_as_stored(
    client: FlaskClient, questlog: Questlog
) -> None:
    body = {"game": "quest-calendar", "name": "once"}
    headers = {"Idempotency-Key": "create-old"}
    first = client.post("/campaigns", json=body, headers=headers)
    old_shape = {
        "status": 201,
        "body": first.json,
        "headers": {"Location": f"/campaigns/{first.json['id']}", "ETag": '"1"'},
    }
    overwrite_row(questlog, "create-old", old_shape)

    again = client.post("/campaigns", json=body, headers=headers)

    assert (again.status_code, again.json) == (201, first.json)
    assert again.headers["Location"] == f"/campaigns/{first.json['id']}"
    assert again.headers["Idempotent-Replayed"] == "true"
    assert len(client.get("/campaigns").json["items"]) == 1
