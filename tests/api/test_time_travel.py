"""Time-travel routes: rollback, proposals, forks, replay and ?at=, with their status codes,
problem+json errors, If-Match and Idempotency-Key; and ``questlog replay``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask.testing import FlaskClient

from domain.model import patch
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.api.conftest import stored_state

PROBLEM = "application/problem+json"
BOARD = {
    "game": "calendar-board",
    "name": "Match",
    "setup": {"players": [{"id": "A"}, {"id": "B"}, {"id": "C"}]},
}


def rolled(client: FlaskClient, cid: str, n: int, purpose: str = "search") -> None:
    """``n`` server rolls."""
    for _ in range(n):
        response = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20", "purpose": purpose})
        assert response.status_code == 201, response.json


def test_a_rollback_appends_one_event_and_marks_what_it_undid(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    rolled(client, cid, 3)  # versions 2..4
    response = client.post(
        f"/campaigns/{cid}/rollback", json={"to_version": 2, "reason": "misread", "actor": "Sam"}
    )

    assert response.status_code == 201, response.json
    body = response.json
    assert response.headers["ETag"] == '"5"'
    assert body["version"] == 5 and len(body["head_hash"]) == 64
    rollback = body["rollback"]
    assert (rollback["version"], rollback["to_version"], rollback["actor"]) == (5, 2, "Sam")
    assert rollback["undone_versions"] == [3, 4]
    assert rollback["undone_rolls"] == ["3-1", "4-1"]
    assert (rollback["policy"], rollback["flagged"], rollback["server_rolls_undone"]) == (
        "allow",
        False,
        2,
    )
    assert "restored_state" not in rollback
    assert body["state"]["rolls"]["count"] == 3  # the dice stream is not rolled back
    events = client.get(f"/campaigns/{cid}/events").json["items"]
    assert [(e["version"], e["undone"], e["undone_by"]) for e in events] == [
        (1, False, None),
        (2, False, None),
        (3, True, 5),
        (4, True, 5),
        (5, False, None),
    ]
    assert events[-1]["type"] == "questlog.RolledBack"
    rolls = client.get(f"/campaigns/{cid}/rolls").json["items"]
    assert [(r["roll_id"], r["undone"]) for r in rolls] == [
        ("2-1", False),
        ("3-1", True),
        ("4-1", True),
    ]
    assert client.get(f"/campaigns/{cid}/rolls/3-1").json["undone_by"] == 5
    audit = client.get(f"/campaigns/{cid}/audit").json
    assert audit["ok"] and audit["chain_ok"]
    assert [r["version"] for r in audit["rollbacks"]] == [5]
    assert audit["rerolls"] == {"count": 0, "items": []}
    assert audit["flagged_rolls"] == []


@pytest.mark.parametrize("to_version", [0, -1, "abc", None, 2, 3, 99])
def test_a_bad_rollback_target_is_refused_naming_to_version_and_stores_nothing(
    client: FlaskClient, campaign: dict[str, Any], to_version: Any
) -> None:
    cid = campaign["id"]
    rolled(client, cid, 1)  # head 2
    before = stored_state(client, cid)
    response = client.post(
        f"/campaigns/{cid}/rollback", json={"to_version": to_version, "reason": "x"}
    )
    # the head (nothing to undo) or past it is the log's answer: 409 not-held; else 422
    held = isinstance(to_version, int) and to_version >= 2
    assert response.status_code == (409 if held else 422)
    assert response.mimetype == PROBLEM
    assert "to_version" in response.json["errors"]
    assert stored_state(client, cid) == before


def test_a_rollback_without_a_reason_is_422(client: FlaskClient, campaign: dict[str, Any]) -> None:
    rolled(client, campaign["id"], 1)
    response = client.post(f"/campaigns/{campaign['id']}/rollback", json={"to_version": 1})
    assert response.status_code == 422
    assert "reason" in response.json["errors"]


def test_a_rollback_forbidden_by_the_policy_is_409_naming_the_rule(client: FlaskClient) -> None:
    cid = client.post("/campaigns", json=BOARD).json["id"]
    rolled(client, cid, 1)
    before = stored_state(client, cid)
    response = client.post(f"/campaigns/{cid}/rollback", json={"to_version": 1, "reason": "x"})
    assert response.status_code == 409
    assert response.mimetype == PROBLEM
    assert response.json["rule"] == "rollback_over_server_rolls"
    assert stored_state(client, cid) == before


def test_a_rollback_honours_if_match_and_idempotency_key(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    rolled(client, cid, 2)  # head 3
    body = {"to_version": 1, "reason": "x"}
    stale = client.post(f"/campaigns/{cid}/rollback", json=body, headers={"If-Match": '"2"'})
    assert stale.status_code == 412
    headers = {"If-Match": '"3"', "Idempotency-Key": "undo-once"}
    first = client.post(f"/campaigns/{cid}/rollback", json=body, headers=headers)
    assert first.status_code == 201
    again = client.post(f"/campaigns/{cid}/rollback", json=body, headers=headers)
    assert again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json
    assert client.get(f"/campaigns/{cid}").json["version"] == 4


def test_proposals_and_approvals_carry_a_rollback_out_when_every_player_agrees(
    client: FlaskClient,
) -> None:
    cid = client.post("/campaigns", json=BOARD).json["id"]
    rolled(client, cid, 1, "hail")
    proposed = client.post(
        f"/campaigns/{cid}/rollback/proposals",
        json={"to_version": 1, "reason": "wrong goal", "proposer": "A"},
    )
    assert proposed.status_code == 201, proposed.json
    proposal = proposed.json["proposal"]
    assert proposed.json["rollback"] is None
    assert (proposal["approvals"], proposal["status"]) == (["A"], "open")
    base = f"/campaigns/{cid}/rollback/proposals/{proposal['proposal_id']}/approve"

    stranger = client.post(base, json={"player": "Z"})
    assert stranger.status_code == 409 and "player" in stranger.json["errors"]  # not-held
    assert client.post(base, json={"player": "A"}).json["rule"] == "rollback-already-approved"
    assert client.post(base, json={"player": "B"}).json["rollback"] is None
    done = client.post(base, json={"player": "C"}, headers={"Idempotency-Key": "c-agrees"})

    assert done.status_code == 200
    assert done.json["rollback"]["proposal_id"] == proposal["proposal_id"]
    assert done.json["proposal"]["status"] == "executed"
    again = client.post(base, json={"player": "C"}, headers={"Idempotency-Key": "c-agrees"})
    assert again.json == done.json
    closed = client.post(base, json={"player": "C"})
    assert (closed.status_code, closed.json["rule"]) == (409, "rollback-proposal-closed")
    listed = client.get(f"/campaigns/{cid}/rollback/proposals").json["items"]
    assert [p["status"] for p in listed] == ["executed"]
    audit = client.get(f"/campaigns/{cid}/audit").json
    assert audit["rollbacks"][0]["approved_by"] == ["A", "B", "C"]


def test_a_stale_or_unknown_proposal_is_refused(client: FlaskClient) -> None:
    cid = client.post("/campaigns", json=BOARD).json["id"]
    rolled(client, cid, 1)
    proposal = client.post(
        f"/campaigns/{cid}/rollback/proposals",
        json={"to_version": 1, "reason": "r", "proposer": "A"},
    ).json["proposal"]
    rolled(client, cid, 1)
    base = f"/campaigns/{cid}/rollback/proposals"
    stale = client.post(f"{base}/{proposal['proposal_id']}/approve", json={"player": "B"})
    assert (stale.status_code, stale.json["rule"]) == (409, "rollback-proposal-stale")
    unknown = client.post(f"{base}/nope/approve", json={"player": "B"})
    assert unknown.status_code == 404 and unknown.mimetype == PROBLEM


def test_a_fork_is_201_with_its_origin_and_the_original_lists_it(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    rolled(client, cid, 2)
    at = client.get(f"/campaigns/{cid}?version=2").json
    before = stored_state(client, cid)

    response = client.post(f"/campaigns/{cid}/fork", json={"at_version": 2, "name": "what if"})

    assert response.status_code == 201, response.json
    fork = response.json
    assert response.headers["Location"] == f"/campaigns/{fork['id']}"
    assert fork["origin"] == {"campaign_id": cid, "version": 2, "head_hash": at["head_hash"]}
    assert fork["version"] == 1 and fork["commitment"] != at["commitment"]
    assert fork["state"]["rolls"]["count"] == 0
    original = client.get(f"/campaigns/{cid}").json
    assert (original["version"], original["head_hash"]) == before[:2]
    assert [f["id"] for f in original["forks"]] == [fork["id"]]
    assert original["origin"] is None
    assert client.get(f"/campaigns/{fork['id']}").json["origin"]["campaign_id"] == cid


@pytest.mark.parametrize("at_version", [0, 4, "x"])
def test_a_fork_at_a_bad_version_is_refused_and_stores_nothing(
    client: FlaskClient, campaign: dict[str, Any], at_version: Any
) -> None:
    cid = campaign["id"]
    rolled(client, cid, 2)
    before = stored_state(client, cid)
    response = client.post(f"/campaigns/{cid}/fork", json={"at_version": at_version, "name": "f"})
    assert response.status_code == (409 if at_version == 4 else 422)  # 4: past the head
    assert "at_version" in response.json["errors"]
    assert stored_state(client, cid) == before


def test_the_state_at_a_moment(
    client: FlaskClient, campaign: dict[str, Any], questlog: Questlog
) -> None:
    cid = campaign["id"]
    rolled(client, cid, 3)
    events = questlog.campaign_events(UUID(cid))
    moment = events[1].timestamp.isoformat()  # "+00:00", sent unescaped: "+" reads as " "
    response = client.get(f"/campaigns/{cid}?at={moment}")
    assert response.status_code == 200
    assert response.json["version"] == 2
    assert response.headers["ETag"] == '"2"'
    zulu = events[2].timestamp.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert client.get(f"/campaigns/{cid}?at={zulu}").json["version"] == 3
    assert client.get(f"/campaigns/{cid}?at=2999-01-01T00:00:00Z").json["version"] == 4
    early = client.get(f"/campaigns/{cid}?at=2000-01-01T00:00:00Z")
    assert early.status_code == 404 and early.mimetype == PROBLEM


@pytest.mark.parametrize("query", ["at=yesterday", "at=2026-13-01T00:00:00Z", "version=2&at=2026"])
def test_an_unparseable_moment_is_422(
    client: FlaskClient, campaign: dict[str, Any], query: str
) -> None:
    response = client.get(f"/campaigns/{campaign['id']}?{query}")
    assert response.status_code == 422
    assert response.mimetype == PROBLEM
    assert "at" in response.json["errors"]


def test_replay_gives_each_event_with_a_patch_from_the_view_before_to_the_view_after(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    rolled(client, cid, 2)
    client.post(f"/campaigns/{cid}/rollback", json={"to_version": 2, "reason": "x"})
    client.post(f"/campaigns/{cid}/dice/rotate")

    response = client.get(f"/campaigns/{cid}/replay?from=2&to=5")

    assert response.status_code == 200, response.json
    body = response.json
    assert body["before"] == client.get(f"/campaigns/{cid}?version=1").json["state"]
    assert [i["event"]["version"] for i in body["items"]] == [2, 3, 4, 5]
    assert [i["event"]["undone"] for i in body["items"]] == [False, True, False, False]
    view = body["before"]
    for item in body["items"]:
        view = patch.apply(view, item["patch"])
        version = item["event"]["version"]
        assert view == client.get(f"/campaigns/{cid}?version={version}").json["state"]
    assert body["next_from"] is None
    page = client.get(f"/campaigns/{cid}/replay?from=1&to=2").json
    assert page["before"] == {} and page["next_from"] == 3


def test_a_replay_from_past_the_head_is_the_store_s_refusal_and_from_after_to_the_request_s(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    """A version the campaign has not reached yet is what it does not hold (409 not-held); a range
    that ends before it starts is the request's own mistake (422). Both name ``from``."""
    cid = campaign["id"]
    rolled(client, cid, 2)
    head = client.get(f"/campaigns/{cid}").json["version"]
    ahead = client.get(f"/campaigns/{cid}/replay?from={head + 1}")
    assert ahead.status_code == 409 and ahead.json["type"].endswith(":not-held"), ahead.json
    assert ahead.json["errors"]["from"] == [f"no version {head + 1}: the head is version {head}"]
    backwards = client.get(f"/campaigns/{cid}/replay?from=2&to=1")
    assert backwards.status_code == 422 and "from" in backwards.json["errors"]


@pytest.mark.parametrize(
    ("query", "field", "status"),
    [("from=3&to=2", "from", 422), ("from=0", "from", 422), ("to=9", "to", 409)],
)
def test_a_bad_replay_range_is_refused(
    client: FlaskClient, campaign: dict[str, Any], query: str, field: str, status: int
) -> None:
    rolled(client, campaign["id"], 2)
    response = client.get(f"/campaigns/{campaign['id']}/replay?{query}")
    assert response.status_code == status  # 409 not-held: no version 9
    assert field in response.json["errors"]


def test_the_time_travel_routes_are_in_the_openapi_document(client: FlaskClient) -> None:
    paths = client.get("/openapi.json").json["paths"]
    for path in [
        "/campaigns/{campaign}/rollback",
        "/campaigns/{campaign}/rollback/proposals",
        "/campaigns/{campaign}/rollback/proposals/{proposal_id}/approve",
        "/campaigns/{campaign}/fork",
        "/campaigns/{campaign}/replay",
    ]:
        assert path in paths


def test_questlog_replay_prints_one_line_per_event(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    app = Questlog(StoreConfig(sqlite_path=db))
    try:
        created = app.campaigns.create_campaign(game="quest-calendar", name="cli")
        cid = created.campaign_id
        app.dice.roll(cid, notation="d20", purpose="open the door")
        app.dice.roll(cid, notation="d20", purpose="open the door")
        app.time_travel.rollback(cid, to_version=2, reason="wrong door", actor="Sam")
    finally:
        app.close()
    env = {**os.environ, "QUESTLOG_DB": str(db), "COLUMNS": "200"}
    env.pop("QUESTLOG_DATABASE_URL", None)
    command = [sys.executable, "-c", "from webapi.cli.main import main; main()", "replay", str(cid)]

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4
    # Each line is the event's summary, the line the API shows (domain.model.events.summaries).
    assert "Created" in lines[0] and "quest-calendar campaign “cli” started" in lines[0]
    assert "open the door: " in lines[1] and "(1d20)" in lines[1]
    assert "undone by 4" in lines[2]
    assert "Rolled back to version 2 by Sam: “wrong door”; undid 1 event and 1 roll" in lines[3]
    part = subprocess.run(
        [*command, "--from", "3", "--to", "4"], env=env, capture_output=True, text=True, timeout=60
    )
    assert len(part.stdout.splitlines()) == 2
    bad = subprocess.run(
        [*command, "--from", "4", "--to", "3"], env=env, capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "--from" in bad.stdout


def test_a_replayed_event_is_the_event_exactly_as_the_event_list_shows_it(
    client: FlaskClient, campaign: dict[str, Any]
) -> None:
    """docs/time-travel.md: each step's ``event`` is the event as ``GET /events`` shows it,
    ``actor`` included."""
    cid = campaign["id"]
    for notation in ("d20", "2d6"):
        assert client.post(f"/campaigns/{cid}/rolls", json={"dice": notation}).status_code == 201
    events = client.get(f"/campaigns/{cid}/events").json["items"]
    replayed = [step["event"] for step in client.get(f"/campaigns/{cid}/replay").json["items"]]
    assert replayed == events
    assert all(event["actor"] for event in replayed)
