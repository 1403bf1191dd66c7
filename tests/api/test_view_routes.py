"""View routes on SQLite and PostgreSQL: each view, paging, filters, freshness, read-your-writes,
``GET /projections`` and the analytics routes."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from projections.runners import ViewsWorker
from projections.store import ViewStore
from tests.api.test_cli_and_server import QUESTLOG, free_port, request
from tests.projections.conftest import sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week
from webapi.app import create_app
from webapi.http.view_store import close_views, views_store


@pytest.fixture
def api(app: Questlog) -> Iterator[Flask]:
    """The API on this test's store; its view store is closed before the store goes."""
    flask_app = create_app(app, auth=False, rate_limit=0, TESTING=True)
    yield flask_app
    close_views(flask_app)


@pytest.fixture
def client(api: Flask) -> FlaskClient:
    return api.test_client()


@pytest.fixture
def views(api: Flask) -> ViewStore:
    """The API's own view store."""
    with api.app_context():
        return views_store()


@pytest.fixture
def week(app: Questlog) -> str:
    return str(quest_calendar_week(app))


@pytest.fixture
def match(app: Questlog) -> str:
    return str(calendar_board_match(app))


@pytest.fixture
def synced(app: Questlog, views: ViewStore, week: str, match: str) -> dict[str, str]:
    """Both scripted campaigns, every view caught up."""
    sync(app, views)
    return {"week": week, "match": match}


def get(client: FlaskClient, path: str, status: int = 200) -> Any:
    response = client.get(path)
    assert response.status_code == status, response.json
    return response.json


def column(items: list[dict[str, Any]], key: str) -> list[Any]:
    return [item[key] for item in items]


def test_each_campaign_view_answers_with_its_rows_and_how_far_it_got(
    app: Questlog, client: FlaskClient, synced: dict[str, str]
) -> None:
    week, match = synced["week"], synced["match"]
    head = app.recorder.max_notification_id()
    ledger = get(client, f"/campaigns/{week}/views/debt-ledger")
    assert column(ledger["items"], "balance_after") == [3, -2, -4, 2, 1, 0, 4, 2, 4, 7, 3]
    assert (ledger["position"], ledger["head"], ledger["lag"]) == (head, head, 0)
    assert ledger["caught_up"] is True
    (span,) = get(client, f"/campaigns/{week}/views/debt-spans")["items"]
    assert (span["deepest"], span["penalties"]) == (-4, 2)
    hp = get(client, f"/campaigns/{week}/views/hp-virtue?stat=hp")["items"]
    assert column(hp, "value") == [20, 18, 0, 10]
    lives = get(client, f"/campaigns/{week}/views/hp-virtue/lives")["items"]
    assert column(lives, "kind") == ["died", "cloned"]
    ship = get(client, f"/campaigns/{week}/views/ship?compartment=2")["items"]
    assert column(ship, "integrity") == [4, 3, 2, 1, 0, 0]
    (loss,) = get(client, f"/campaigns/{week}/views/ship/losses?kind=crew")["items"]
    assert loss["item_id"] == "vex"
    summary = get(client, f"/campaigns/{week}/views/summary")["summary"]
    assert (summary["game"], summary["pages_played"], summary["deaths"]) == ("quest-calendar", 1, 1)
    history = get(client, f"/campaigns/{match}/views/exhaustion-history")["items"]
    assert column(history, "to") == [5, 4, 1, 3]
    nights = get(client, f"/campaigns/{match}/views/weather-wind")["items"]
    assert column(nights, "weather") == ["rain", "snow"]


def test_views_filter_and_page_with_the_next_cursor(
    client: FlaskClient, synced: dict[str, str]
) -> None:
    week, match = synced["week"], synced["match"]
    base = f"/campaigns/{week}/views/debt-ledger"
    causes, after = [], ""
    while True:
        page = get(client, f"{base}?limit=4{after}")
        assert len(page["items"]) <= 4
        causes += column(page["items"], "cause")
        if page["next"] is None:
            break
        after = f"&after={page['next']}"
    assert causes == column(get(client, base)["items"], "cause")
    penalty = get(client, f"{base}?cause=debtPenalty")["items"]
    assert column(penalty, "delta") == [-2]
    assert column(get(client, f"{base}?entry=opening")["items"], "cause") == ["heroSelected"]
    party = get(client, f"/campaigns/{match}/views/exhaustion-history?party=B&night=2")["items"]
    assert column(party, "cause") == ["nightSleep"]
    snow = get(client, f"/campaigns/{match}/views/weather-wind?weather=snow")["items"]
    assert column(snow, "night") == [2]
    rolls = get(client, f"/campaigns/{week}/views/rolls?purpose=pickpocket")["items"]
    assert column(rolls, "faces") == [[3]]
    board = get(client, "/views/rolls?game=calendar-board&limit=1000")["items"]
    assert {r["campaign_id"] for r in board} == {match}
    everything = get(client, "/views/rolls?source=reported&limit=1000")["items"]
    assert len(everything) == 9 + len(board)
    later = get(client, "/views/rolls?since=2100-01-01T00:00:00Z")["items"]
    assert later == []
    summaries = get(client, "/views/campaigns?game=calendar-board")["items"]
    assert column(summaries, "campaign_id") == [match]


def test_rows_a_rollback_undid_are_flagged_or_left_out(
    client: FlaskClient, app: Questlog, views: ViewStore
) -> None:
    created = client.post("/campaigns", json={"game": "quest-calendar", "name": "undo"}).json
    cid = created["id"]
    for _ in range(3):
        assert client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}).status_code == 201
    undo = client.post(f"/campaigns/{cid}/rollback", json={"to_version": 2, "reason": "misread"})
    assert undo.status_code == 201, undo.json
    version = undo.json["version"]
    rolls = get(client, f"/campaigns/{cid}/views/rolls?wait_for_version={version}")
    assert rolls["caught_up"] is True
    assert column(rolls["items"], "undone") == [False, True, True]
    assert column(rolls["items"], "undone_by") == [None, version, version]
    kept = get(client, f"/campaigns/{cid}/views/rolls?include_undone=false")["items"]
    assert column(kept, "roll_id") == ["2-1"]


def test_a_request_waits_for_the_embedded_worker_to_apply_its_own_write(
    app: Questlog, client: FlaskClient, views: ViewStore
) -> None:
    worker = ViewsWorker(app.config, app=app if app.config.kind == "sqlite" else None).start()
    try:
        created = client.post("/campaigns", json={"game": "quest-calendar", "name": "ryw"}).json
        cid = created["id"]
        for n in range(5):
            rolled = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6", "purpose": f"r{n}"})
            version = rolled.json["version"]
            # caught up on the first answer: the wait ended when the worker applied the roll (a
            # wait that ran out answers caught_up false); how fast is for the benchmarks
            page = get(client, f"/campaigns/{cid}/views/rolls?wait_for_version={version}")
            assert page["caught_up"] is True
            assert page["items"][-1]["purpose"] == f"r{n}"
        status = get(client, "/projections")
        assert {view["lag"] for view in status["views"]} <= {0, 1, 2}
    finally:
        worker.stop()
    assert worker.last_error is None


def test_without_a_runner_the_request_applies_what_it_waits_for(
    app: Questlog, client: FlaskClient, views: ViewStore, week: str
) -> None:
    version = app.campaign(UUID(week)).version
    behind = get(client, f"/campaigns/{week}/views/debt-ledger?wait_for_version=3&timeout=0")
    assert behind["caught_up"] is False
    assert behind["items"] == [] and behind["lag"] == behind["head"]
    caught = get(client, f"/campaigns/{week}/views/debt-ledger?wait_for_version={version}")
    assert caught["caught_up"] is True and caught["lag"] == 0
    assert len(caught["items"]) == 11
    # Only the view that was asked for moved.
    positions = {v["name"]: v["position"] for v in get(client, "/projections")["views"]}
    assert positions["debt_ledger"] == caught["head"]
    assert positions["roll_log"] == 0


def test_bad_waits_cursors_and_campaigns_are_problems(
    client: FlaskClient, synced: dict[str, str]
) -> None:
    week = synced["week"]
    head = get(client, "/projections")["head"]
    beyond = get(client, f"/views/rolls?wait_for={head + 1}", 409)  # not-held: past the head
    assert "wait_for" in beyond["errors"]
    missing = get(client, f"/campaigns/{week}/views/rolls?wait_for_version=999", 409)
    assert "wait_for_version" in missing["errors"]
    assert "timeout" in get(client, "/views/rolls?timeout=11", 422)["errors"]
    assert "after" in get(client, f"/campaigns/{week}/views/debt-ledger?after=x", 422)["errors"]
    assert "limit" in get(client, "/views/rolls?limit=0", 422)["errors"]
    unknown = "00000000-0000-0000-0000-000000000000"
    assert get(client, f"/campaigns/{unknown}/views/summary", 404)["status"] == 404
    assert get(client, "/campaigns/nope/views/ship", 404)["status"] == 404


def test_projections_shows_each_views_position_the_head_and_the_lag(
    app: Questlog, client: FlaskClient, views: ViewStore, week: str
) -> None:
    sync(app, views)
    status = get(client, "/projections")
    head = app.recorder.max_notification_id()
    assert status["head"] == head
    assert status["worker"] is None
    assert len(status["views"]) >= 8
    assert {(v["position"], v["lag"], v["rebuilding"]) for v in status["views"]} == {
        (head, 0, None)
    }
    app.dice.roll(UUID(week), notation="d20", purpose="after")
    lagging = get(client, "/projections")
    assert {v["lag"] for v in lagging["views"]} == {1}


def test_projections_shows_which_process_holds_each_views_lease(
    app: Questlog, client: FlaskClient, views: ViewStore
) -> None:
    """The embedded worker leases the views; GET /projections names it."""
    assert {v["lease"] for v in get(client, "/projections")["views"]} == {None}
    worker = ViewsWorker(app.config, app=app if app.config.kind == "sqlite" else None).start()
    try:
        deadline = time.monotonic() + 20
        leases = [v["lease"] for v in get(client, "/projections")["views"]]
        while None in leases and time.monotonic() < deadline:
            time.sleep(0.1)
            leases = [v["lease"] for v in get(client, "/projections")["views"]]
        names = {lease["application_name"] for lease in leases}
        assert names == {f"questlog-views {socket.gethostname()}:{os.getpid()}"}
    finally:
        worker.stop()
    assert {v["lease"] for v in get(client, "/projections")["views"]} == {None}


def test_analytics_routes_flag_a_loaded_die_and_give_the_campaign_figures(
    app: Questlog, client: FlaskClient, synced: dict[str, str]
) -> None:
    created = client.post("/campaigns", json={"game": "quest-calendar", "name": "loaded"}).json
    for _ in range(40):
        loaded = client.post(f"/campaigns/{created['id']}/rolls", json={"dice": "d6", "faces": [6]})
        assert loaded.status_code == 201
    head = app.recorder.max_notification_id()
    dice = get(client, f"/analytics/dice?source=reported&wait_for={head}")
    (d6,) = [entry for entry in dice["dice"] if entry["sides"] == 6]
    assert d6["faces"]["6"] >= 40 and d6["unlikely_fair"] is True
    assert d6["test"]["p_value"] < 1e-10
    (reported,) = dice["sources"]
    assert reported["unlikely_fair"] is True and reported["flagged_die_types"] == [6]
    per_campaign = get(client, f"/analytics/dice?by_campaign=true&campaign={created['id']}")
    assert {e["campaign_id"] for e in per_campaign["dice"]} == {created["id"]}
    assert get(client, "/analytics/dice?alpha=0", 422)["errors"]
    figures = get(client, f"/analytics/campaigns?wait_for={head}")
    assert figures["caught_up"] is True
    assert figures["deaths_by_level"] == [{"level": 1, "deaths": 1, "clone_results": {"1": 1}}]
    assert figures["weather"]["set"] == {"rain": 1, "snow": 1}
    assert [n["night"] for n in figures["exhaustion_by_night"]] == [1, 2]


def test_questlog_serve_runs_the_views_inside_and_projections_is_a_subcommand(
    tmp_path: Path,
) -> None:
    port = free_port()
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path / "served.db")}
    env.pop("QUESTLOG_DATABASE_URL", None)
    env.pop("QUESTLOG_VIEWS_DB", None)
    env["QUESTLOG_AUTH"] = "off"  # loopback only; tests/api/test_access.py serves with tokens
    process = subprocess.Popen([*QUESTLOG, "serve", "--port", str(port)], env=env)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                status, body = request(port, "GET", "/projections")
                break
            except OSError:
                assert time.monotonic() < deadline, "questlog serve did not start"
                time.sleep(0.1)
        assert status == 200 and body["worker"]["running"] and not body["worker"]["last_error"]
        while body["worker"]["leases"] != sorted(v["name"] for v in body["views"]):
            assert time.monotonic() < deadline + 20, "the embedded worker took no lease"
            time.sleep(0.1)
            _, body = request(port, "GET", "/projections")
        assert {v["lease"]["application_name"] for v in body["views"]} == {
            f"questlog-views {socket.gethostname()}:{process.pid}"
        }
        _, created = request(port, "POST", "/campaigns", {"game": "quest-calendar", "name": "s"})
        _, rolled = request(port, "POST", f"/campaigns/{created['id']}/rolls", {"dice": "d20"})
        path = f"/campaigns/{created['id']}/views/rolls?wait_for_version={rolled['version']}"
        status, page = request(port, "GET", path)
        assert status == 200 and page["caught_up"] and len(page["items"]) == 1
    finally:
        process.terminate()
        assert process.wait(timeout=15) == 0
    shown = subprocess.run(
        [*QUESTLOG, "projections", "status"], env=env, capture_output=True, text=True, check=False
    )
    assert shown.returncode == 0, shown.stderr
    assert "roll_log" in shown.stdout and "log head 2" in shown.stdout
