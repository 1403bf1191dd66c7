"""Campaign routes: creation, reading now and at a version, listing, events and audit."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import stored_state

PROBLEM = "application/problem+json"


def test_create_campaign_answers_201_with_id_version_head_and_commitment(
    client: FlaskClient,
) -> None:
    response = client.post(
        "/campaigns",
        json={
            "game": "calendar-board",
            "name": "Match 1",
            "house_rules": {"dice_mode": "server"},
            "setup": {"players": [{"id": "A"}, {"id": "B"}]},
        },
    )
    assert response.status_code == 201
    body = response.json
    assert body["version"] == 1
    assert len(body["head_hash"]) == 64
    assert len(body["commitment"]) == 64
    assert body["state"]["house_rules"]["dice_mode"] == "server"
    assert response.headers["Location"] == f"/campaigns/{body['id']}"
    assert response.headers["ETag"] == '"1"'


def test_house_rules_are_stored_in_the_creation_event(client: FlaskClient) -> None:
    body = client.post(
        "/campaigns",
        json={"game": "quest-calendar", "name": "x", "house_rules": {"dice_mode": "reported"}},
    ).json
    first = client.get(f"/campaigns/{body['id']}/events").json["items"][0]
    assert first["type"] == "questlog.CampaignCreated"
    assert first["data"]["house_rules"]["dice_mode"] == "reported"
    assert first["data"]["commitment"] == body["commitment"]


def test_get_campaign_has_etag_and_state_at_a_version(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    for _ in range(3):
        client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"})
    now = client.get(f"/campaigns/{cid}")
    assert now.headers["ETag"] == '"4"'
    assert now.json["state"]["rolls"]["count"] == 3
    then = client.get(f"/campaigns/{cid}?version=2")
    assert then.status_code == 200
    assert then.json["version"] == 2
    assert then.json["state"]["rolls"]["count"] == 1
    assert then.headers["ETag"] == '"2"'


@pytest.mark.parametrize("version", ["0", "-1", "abc"])
def test_bad_version_query_is_422(
    client: FlaskClient, campaign: dict[str, Any], version: str
) -> None:
    response = client.get(f"/campaigns/{campaign['id']}?version={version}")
    assert response.status_code == 422
    assert response.mimetype == PROBLEM
    assert "version" in response.json["errors"]


def test_version_beyond_the_head_is_404(client: FlaskClient, campaign: dict[str, Any]) -> None:
    response = client.get(f"/campaigns/{campaign['id']}?version=99")
    assert response.status_code == 404
    assert "head is 1" in response.json["detail"]


def test_campaigns_are_listed_a_page_at_a_time(client: FlaskClient) -> None:
    ids = [
        client.post("/campaigns", json={"game": "quest-calendar", "name": f"c{n}"}).json["id"]
        for n in range(5)
    ]
    first = client.get("/campaigns?limit=2").json
    assert [item["id"] for item in first["items"]] == ids[:2]
    second = client.get(f"/campaigns?limit=2&after={first['next_after']}").json
    assert [item["id"] for item in second["items"]] == ids[2:4]
    third = client.get(f"/campaigns?limit=2&after={second['next_after']}").json
    assert [item["id"] for item in third["items"]] == ids[4:]
    assert third["next_after"] is None


def _canonical_hash(campaign_id: str, event: dict[str, Any]) -> str:
    """The documented serialisation, written here from docs/events.md, not imported."""
    body = {
        "campaign_id": campaign_id,
        "version": event["version"],
        "type": event["type"],
        "timestamp": event["timestamp"],
        "data": event["data"],
        "prev_hash": event["prev_hash"],
    }
    if event.get("actor") is not None:
        body["actor"] = event["actor"]
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_stranger_can_recompute_every_hash_from_the_events_route(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "2d20kh1+3", "purpose": "ünïcode"})
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "d10", "faces": [0]})
    client.post(f"/campaigns/{cid}/dice/client-seed", json={"client_seed": "mine"})
    client.post(f"/campaigns/{cid}/dice/rotate")
    events = client.get(f"/campaigns/{cid}/events").json["items"]
    assert [e["version"] for e in events] == [1, 2, 3, 4, 5]
    prev = "0" * 64
    for event in events:
        assert event["prev_hash"] == prev
        assert _canonical_hash(cid, event) == event["hash"]
        prev = event["hash"]
    head = client.get(f"/campaigns/{cid}").json["head_hash"]
    assert head == prev


def test_events_are_paged_by_version(client: FlaskClient, campaign: dict[str, Any]) -> None:
    cid = campaign["id"]
    for _ in range(4):
        client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"})
    page = client.get(f"/campaigns/{cid}/events?after=1&limit=2").json
    assert [e["version"] for e in page["items"]] == [2, 3]
    assert page["next_after"] == 3
    last = client.get(f"/campaigns/{cid}/events?after=3&limit=2").json
    assert [e["version"] for e in last["items"]] == [4, 5]
    assert last["next_after"] is None


def test_audit_counts_rolls_and_checks_receipts(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    receipt = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}).json["head_hash"]
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20", "faces": [4]})
    before = client.get(f"/campaigns/{cid}/audit").json
    assert before["chain_ok"] is True
    assert before["first_bad_version"] is None
    assert before["rolls"] == {
        "server": 1,
        "verified": 0,
        "awaiting_reveal": 1,
        "failed": 0,
        "reported": 1,
        "with_entropy": 0,
    }
    assert before["nonces_ok"] is True
    assert before["nonce_gaps"] == []
    client.post(f"/campaigns/{cid}/dice/rotate")
    after = client.get(f"/campaigns/{cid}/audit?head={receipt}").json
    assert after["rolls"]["verified"] == 1
    assert after["rolls"]["awaiting_reveal"] == 0
    assert after["receipt"]["in_chain"] is True
    forged = client.get(f"/campaigns/{cid}/audit?head={'ab' * 32}").json
    assert forged["receipt"]["in_chain"] is False
    assert forged["ok"] is False


def test_audit_refuses_a_malformed_receipt(client: FlaskClient, campaign: dict[str, Any]) -> None:
    response = client.get(f"/campaigns/{campaign['id']}/audit?head=xyz")
    assert response.status_code == 422
    assert "head" in response.json["errors"]


def test_audit_resumes_from_the_head_a_verifier_holds(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    for _ in range(3):
        client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"})
    head = client.get(f"/campaigns/{cid}/audit").json["head"]
    client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"})
    query = f"after={head['version']}&after_hash={head['hash']}"
    resumed = client.get(f"/campaigns/{cid}/audit?{query}").json
    assert resumed["ok"] is True
    assert resumed["resumed"] == {
        "after": head["version"],
        "after_hash": head["hash"],
        "read_from": head["version"],
    }
    assert resumed["rolls"]["server"] == 2
    wrong = client.get(f"/campaigns/{cid}/audit?after={head['version']}&after_hash={'ab' * 32}")
    assert wrong.json["ok"] is False


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("after=2", "after_hash"),
        (f"after_hash={'ab' * 32}", "after"),
        (f"after=0&after_hash={'ab' * 32}", "after"),
        ("after=1&after_hash=xyz", "after_hash"),
        (f"after=1&after_hash={'ab' * 32}&head={'cd' * 32}", "head"),
    ],
)
def test_audit_refuses_a_resume_point_it_cannot_use(
    client: FlaskClient, campaign: dict[str, Any], query: str, field: str
) -> None:
    response = client.get(f"/campaigns/{campaign['id']}/audit?{query}")
    assert response.status_code == 422
    assert field in response.json["errors"], response.json


def test_audit_resumed_past_the_head_is_the_campaigns_answer(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    response = client.get(f"/campaigns/{campaign['id']}/audit?after=99&after_hash={'ab' * 32}")
    assert response.status_code == 409
    assert (response.json["rule"], list(response.json["errors"])) == ("known-names", ["after"])


def test_house_rules_listing_describes_each_key(client: FlaskClient) -> None:
    body = client.get("/house-rules?game=quest-calendar").json
    keys = {rule["key"]: rule for rule in body["rules"]}
    assert keys["dice_mode"]["default"] == "either"
    assert keys["dice_mode"]["choices"] == ["server", "reported", "either"]
    assert client.get("/house-rules?game=chess").status_code == 422


def test_unknown_campaign_is_404_problem(client: FlaskClient) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    for path in (f"/campaigns/{missing}", f"/campaigns/{missing}/events", "/campaigns/nope"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.mimetype == PROBLEM
        assert response.json["status"] == 404


def test_refused_create_stores_nothing(client: FlaskClient, campaign: dict[str, Any]) -> None:
    before = stored_state(client, campaign["id"])
    for body in (
        {"game": "chess", "name": "x"},
        {"game": "quest-calendar", "name": "x", "house_rules": {"dice_mode": 7}},
        {"game": "quest-calendar", "name": "x", "house_rules": {"no_such_rule": True}},
        {"game": "quest-calendar", "name": ""},
        {"game": "quest-calendar"},
        {"game": "quest-calendar", "name": "x", "surprise": 1},
    ):
        response = client.post("/campaigns", json=body)
        assert response.status_code == 422, body
        assert response.mimetype == PROBLEM
        assert response.json["errors"], body
    assert stored_state(client, campaign["id"]) == before
