"""``Prefer: return=minimal`` (RFC 7240) on commands and rolls: the answer without the state,
sized by what changed; the full answer stays the default, and a replay follows the request's own
preference."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.test_command_routes import qc_campaign

MINIMAL = {"Prefer": "return=minimal"}


def qc(client: FlaskClient) -> str:
    """A Quest Calendar campaign with a hero, on a page."""
    cid = qc_campaign(client)
    page = {"type": "start_page", "date": "01-03"}
    assert client.post(f"/campaigns/{cid}/commands", json=page).status_code == 201
    return cid


def check() -> dict[str, Any]:
    return {"type": "trait_check", "trait": "INT", "target": 5, "faces": [4]}


def test_a_command_asked_minimal_answers_without_the_state(client: FlaskClient) -> None:
    cid = qc(client)
    full = client.post(f"/campaigns/{cid}/commands", json=check())
    minimal = client.post(f"/campaigns/{cid}/commands", json=check(), headers=MINIMAL)

    assert full.status_code == minimal.status_code == 201
    assert "state" in full.json and "Preference-Applied" not in full.headers
    assert minimal.headers["Preference-Applied"] == "return=minimal"
    assert set(minimal.json) == set(full.json) - {"state"}
    assert [e["type"] for e in minimal.json["events"]] == [e["type"] for e in full.json["events"]]
    assert minimal.json["version"] == full.json["version"] + 1
    assert minimal.json["checkpoint"] and minimal.json["head_hash"]
    assert "Prefer" in minimal.headers["Vary"] and "Prefer" in full.headers["Vary"]
    assert len(minimal.data) < len(full.data) / 2  # the state is most of an answer
    # what was stored is the same either way: the state read afterwards holds both checks
    state = client.get(f"/campaigns/{cid}").json["state"]
    assert len(state["page"]["checks"]) == 2


@pytest.mark.parametrize(
    "prefer",
    [
        "return=minimal",
        'return="minimal"',
        "respond-async, return=minimal",
        "RETURN=minimal; x=1",
        "handling=strict, return=minimal",
        'return=minimal;a="b,c", wait=10',
    ],
)
def test_the_preference_is_read_as_rfc_7240_writes_it(client: FlaskClient, prefer: str) -> None:
    cid = qc(client)
    answer = client.post(f"/campaigns/{cid}/commands", json=check(), headers={"Prefer": prefer})
    assert answer.status_code == 201 and "state" not in answer.json, prefer


@pytest.mark.parametrize(
    "prefer",
    [
        "return=representation",
        "minimal",
        "return=minimalist",
        "",
        "return=representation, return=minimal",  # the first instance counts (RFC 7240)
        'foo="a, return=minimal"',  # inside a quoted value
        "return=minimal\x84",
    ],
)
def test_any_other_preference_gets_the_full_answer(client: FlaskClient, prefer: str) -> None:
    cid = qc(client)
    answer = client.post(f"/campaigns/{cid}/commands", json=check(), headers={"Prefer": prefer})
    assert answer.status_code == 201 and "state" in answer.json, prefer
    assert "Preference-Applied" not in answer.headers


def test_a_replay_follows_the_retry_s_own_preference(client: FlaskClient) -> None:
    cid = qc(client)
    key = {"Idempotency-Key": "minimal-replay-1"}
    first = client.post(f"/campaigns/{cid}/commands", json=check(), headers={**key, **MINIMAL})
    again = client.post(f"/campaigns/{cid}/commands", json=check(), headers=key)
    assert "state" not in first.json and "state" in again.json
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json["version"] == first.json["version"]
    assert {k: v for k, v in again.json.items() if k != "state"} == first.json


def test_a_roll_asked_minimal_is_the_same_answer_and_says_so(client: FlaskClient) -> None:
    cid = qc(client)
    roll = {"dice": "2d6", "purpose": "minimal", "faces": [3, 4]}
    full = client.post(f"/campaigns/{cid}/rolls", json=roll)
    minimal = client.post(f"/campaigns/{cid}/rolls", json=roll, headers=MINIMAL)
    assert minimal.headers["Preference-Applied"] == "return=minimal"
    assert set(minimal.json) == set(full.json) and "state" not in full.json
    assert json.loads(minimal.data)["total"] == 7


def test_the_document_names_the_header_on_both_routes(client: FlaskClient) -> None:
    paths = client.get("/openapi.json").json["paths"]
    for path in ("/campaigns/{campaign}/commands", "/campaigns/{campaign}/rolls"):
        names = [p["name"] for p in paths[path]["post"].get("parameters", [])]
        assert "Prefer" in names, path
