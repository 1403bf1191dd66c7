"""Signed checkpoints on the API: every appending answer carries one (replays the same), the
service's keys are served without a token, and a campaign's head checkpoint is read access."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.model.signed_note import Checkpoint, open_checkpoint, parse_verifier_key
from tests.api.conftest import client_as


def served_keys(client: FlaskClient) -> list[Any]:
    body = client.get("/.well-known/questlog-key").json
    return [parse_verifier_key(listed["key"]) for listed in body["keys"]]


def assert_signed_head(client: FlaskClient, cid: str, body: dict[str, Any]) -> None:
    """The answer's checkpoint is the served key's signature over its version and head hash."""
    log_name = client.get("/.well-known/questlog-key").json["log_name"]
    found, _ = open_checkpoint(body["checkpoint"], served_keys(client))
    assert found == Checkpoint(log_name, UUID(cid), body["version"], body["head_hash"])


def test_campaign_creation_carries_a_checkpoint_of_version_1(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    assert store_campaign["version"] == 1
    assert_signed_head(store_client, store_campaign["id"], store_campaign)


APPENDS = [
    ("rolls", {"dice": "d20", "purpose": "search"}, 201),
    ("house-rules", {"key": "qc.combat.mode", "value": "easy"}, 200),
    ("commands", {"type": "start_page", "date": "01-03"}, 201),
    ("dice/client-seed", {"client_seed": "table-seed"}, 200),
    ("dice/rotate", None, 200),
    ("rollback", {"to_version": 1, "reason": "misread"}, 201),
]


@pytest.mark.parametrize(("route", "body", "status"), APPENDS, ids=[a[0] for a in APPENDS])
def test_every_appending_answer_carries_a_checkpoint_of_its_head(
    client: FlaskClient,
    campaign: dict[str, Any],
    route: str,
    body: dict[str, Any] | None,
    status: int,
) -> None:
    cid = campaign["id"]
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6", "purpose": "something to undo"})
    response = client.post(f"/campaigns/{cid}/{route}", json=body)
    assert response.status_code == status, response.json
    assert_signed_head(client, cid, response.json)
    head = client.get(f"/campaigns/{cid}").json
    assert (response.json["version"], response.json["head_hash"]) == (
        head["version"],
        head["head_hash"],
    )


def test_a_fork_carries_a_checkpoint_of_the_new_campaign(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    response = client.post(
        f"/campaigns/{campaign['id']}/fork", json={"name": "Fork", "at_version": 1}
    )
    assert response.status_code == 201, response.json
    assert_signed_head(client, response.json["id"], response.json)


def test_a_replayed_answer_carries_the_same_checkpoint(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    headers = {"Idempotency-Key": "roll-once"}
    body = {"dice": "d20", "purpose": "search"}
    first = store_client.post(f"/campaigns/{cid}/rolls", json=body, headers=headers)
    again = store_client.post(f"/campaigns/{cid}/rolls", json=body, headers=headers)
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json["checkpoint"] == first.json["checkpoint"]
    assert_signed_head(store_client, cid, again.json)


def test_the_well_known_key_needs_no_token(
    flask_app: Flask, client: FlaskClient, campaign: dict[str, Any]
) -> None:
    anonymous = client_as(flask_app, None)
    response = anonymous.get("/.well-known/questlog-key")
    assert response.status_code == 200
    body = response.json
    assert body["key"] == body["keys"][-1]["key"]
    assert body["key"].startswith(body["log_name"] + "+")
    assert body["keys"][-1]["retired"] is None and body["keys"][-1]["created"]
    assert anonymous.get(f"/campaigns/{campaign['id']}/checkpoint").status_code == 401


def test_the_checkpoint_route_signs_the_current_head(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20", "purpose": "search"})
    response = store_client.get(f"/campaigns/{cid}/checkpoint")
    assert response.status_code == 200
    head = store_client.get(f"/campaigns/{cid}").json
    assert (response.json["version"], response.json["head_hash"]) == (2, head["head_hash"])
    assert response.headers["ETag"] == '"2"'
    assert_signed_head(store_client, cid, response.json)


def test_the_checkpoint_of_an_unknown_campaign_is_404(client: FlaskClient) -> None:
    response = client.get("/campaigns/00000000-0000-4000-8000-000000000000/checkpoint")
    assert response.status_code == 404


def test_checkpoints_are_in_the_openapi_document(client: FlaskClient) -> None:
    spec = client.get("/openapi.json").json
    assert "/.well-known/questlog-key" in spec["paths"]
    assert spec["paths"]["/.well-known/questlog-key"]["get"]["security"] == []
    assert "/campaigns/{campaign}/checkpoint" in spec["paths"]
    for schema in ("Roll", "Appended", "RollbackResult", "Campaign", "CommandResult"):
        assert "checkpoint" in spec["components"]["schemas"][schema]["properties"], schema
