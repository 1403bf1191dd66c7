"""What an operator expects: /healthz, /readyz, /metrics, request ids and
logs as JSON lines."""

from __future__ import annotations

import io
import json
import logging
import time
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.reads import catch_up_to
from projections.views import ALL_VIEWS
from tests.api.conftest import client_as
from webapi.app import create_app
from webapi.http.observability import configure_logging
from webapi.http.view_store import views_store
from webapi.routes import operations

ROLL = {"dice": "d6", "purpose": "p"}


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape, by name and sorted labels (parsed by prometheus_client)."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def scrape(client: FlaskClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The app's metrics, as the admin client reads them."""
    answer = client.get("/metrics")
    assert answer.status_code == 200, answer.data
    assert answer.mimetype == "text/plain"
    return samples(answer.get_data(as_text=True))


def broken_store(questlog: Questlog, monkeypatch: pytest.MonkeyPatch, how: Any) -> None:
    """Make the log's head query (what readiness and the lag gauges read) behave as ``how``."""
    monkeypatch.setattr(questlog.recorder, "max_notification_id", how)


def refuse(*_: Any) -> int:
    raise OSError("connection refused (a test's store)")


# -- /healthz and /readyz -----------------------------------------------------------------------


def test_healthz_needs_no_token_and_no_store(
    flask_app: Flask, questlog: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken_store(questlog, monkeypatch, refuse)
    answer = client_as(flask_app, None).get("/healthz")
    assert answer.status_code == 200
    assert answer.json == {"status": "ok"}


def test_readyz_is_ready_without_a_token_when_the_store_answers_and_views_are_current(
    flask_app: Flask,
) -> None:
    answer = client_as(flask_app, None).get("/readyz")
    assert answer.status_code == 200, answer.json
    assert answer.json["status"] == "ready"
    assert {view["name"] for view in answer.json["views"]} == {v.name for v in ALL_VIEWS}


def test_readyz_names_each_view_behind_the_bound_until_the_views_catch_up(
    questlog: Questlog, admin_token: str
) -> None:
    app = create_app(questlog, auth=True, rate_limit=0, ready_max_lag=2, TESTING=True)
    client = client_as(app, admin_token)
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "c"}).json["id"]
    for _ in range(3):
        assert client.post(f"/campaigns/{cid}/rolls", json=ROLL).status_code == 201
    answer = client_as(app, None).get("/readyz")
    assert answer.status_code == 503
    assert answer.mimetype == "application/problem+json"
    assert answer.json["max_lag"] == 2
    assert {view["name"]: view["lag"] for view in answer.json["lagging"]} == {
        view.name: 4 for view in ALL_VIEWS
    }
    assert "roll_log (4)" in answer.json["detail"]
    with app.app_context():
        assert catch_up_to(
            questlog, views_store(), ALL_VIEWS, questlog.readable_head(), 30, grace=0
        )
    assert client_as(app, None).get("/readyz").status_code == 200


def test_readyz_is_503_with_the_stores_error_when_the_store_fails(
    flask_app: Flask,
    questlog: Questlog,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broken_store(questlog, monkeypatch, refuse)
    with caplog.at_level(logging.WARNING, logger="questlog.operations"):
        answer = client_as(flask_app, None).get("/readyz")
    assert answer.status_code == 503
    # The answer needs no token: it names the kind of failure, the log has the detail.
    assert "The store failed" in answer.json["detail"]
    assert "connection refused (a test's store)" not in answer.json["detail"]
    assert "connection refused (a test's store)" in caplog.text


def test_readyz_answers_503_on_time_when_the_store_hangs(
    flask_app: Flask, questlog: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(operations, "READY_TIMEOUT_SECONDS", 0.2)
    broken_store(questlog, monkeypatch, lambda *_: time.sleep(3) or 0)
    answer = client_as(flask_app, None).get("/readyz")
    assert answer.status_code == 503
    assert "did not answer within 0.2 s" in answer.json["detail"]


@pytest.mark.parametrize("value", ["lots", "-1", "1.5"])
def test_a_bad_ready_max_lag_is_refused_by_name(
    questlog: Questlog, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("QUESTLOG_READY_MAX_LAG", value)
    with pytest.raises(ValueError, match="QUESTLOG_READY_MAX_LAG"):
        create_app(questlog, auth=True, rate_limit=0, TESTING=True)


# -- /metrics -----------------------------------------------------------------------------------


def test_metrics_are_admin_only_with_the_same_problems_as_other_admin_routes(
    flask_app: Flask, questlog: Questlog
) -> None:
    _, secret = questlog.access.create_token("player")
    assert client_as(flask_app, None).get("/metrics").status_code == 401
    refused = client_as(flask_app, secret).get("/metrics")
    assert refused.status_code == 403
    assert refused.mimetype == "application/problem+json"


def test_metrics_count_requests_by_route_never_by_path(client: FlaskClient) -> None:
    ids = [
        client.post("/campaigns", json={"game": "quest-calendar", "name": n}).json["id"]
        for n in "ab"
    ]
    for cid in ids:
        assert client.post(f"/campaigns/{cid}/rolls", json=ROLL).status_code == 201
    unknown = str(UUID(int=1))
    client.get(f"/campaigns/{unknown}")  # a campaign id the store does not hold: its route
    client.get("/campaigns/not-a-campaign")  # no campaign id, so no route
    client.get("/no/such/route")
    found = scrape(client)
    rolls = (("method", "POST"), ("route", "/campaigns/<campaign>/rolls"), ("status", "201"))
    assert found[("questlog_http_requests_total", rolls)] == 2
    assert not [key for key in found if any(cid in str(key) for cid in [*ids, unknown])]
    missing = (("method", "GET"), ("route", "/campaigns/<campaign>"), ("status", "404"))
    assert found[("questlog_http_requests_total", missing)] == 1
    unmatched = (("method", "GET"), ("route", "unmatched"), ("status", "404"))
    assert found[("questlog_http_requests_total", unmatched)] == 2
    # An invented method is counted as "other": nobody adds series by inventing methods.
    for method in ("FOO0", "FOO1", "BAR"):
        client.open("/no/such/route", method=method)
    found = scrape(client)
    assert not [key for key in found if "FOO" in str(key) or "BAR" in str(key)]
    assert (
        sum(
            v
            for (name, labels), v in found.items()
            if name == "questlog_http_requests_total" and ("method", "other") in labels
        )
        == 3
    )
    latency = (("method", "POST"), ("route", "/campaigns/<campaign>/rolls"))
    assert found[("questlog_http_request_duration_seconds_count", latency)] == 2
    every = tuple(sorted((*latency, ("le", "+Inf"))))
    assert found[("questlog_http_request_duration_seconds_bucket", every)] == 2


def test_metrics_count_commands_and_events_by_game_and_type(client: FlaskClient) -> None:
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "c"}).json["id"]
    for _ in range(3):
        client.post(f"/campaigns/{cid}/rolls", json=ROLL)
    client.post(f"/campaigns/{cid}/rolls", json=ROLL, headers={"Idempotency-Key": "k"})
    client.post(f"/campaigns/{cid}/rolls", json=ROLL, headers={"Idempotency-Key": "k"})
    found = scrape(client)
    game = (("game", "quest-calendar"),)
    assert found[("questlog_commands_total", game)] == 5  # the replayed key stored nothing
    assert found[("questlog_events_appended_total", (("event", "DiceRolled"), *game))] == 4
    assert found[("questlog_events_appended_total", (("event", "Created"), *game))] == 1


def test_metrics_count_a_conflict_retried_when_another_process_wrote_first(
    client: FlaskClient, questlog: Questlog
) -> None:
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "c"}).json["id"]
    assert client.post(f"/campaigns/{cid}/rolls", json=ROLL).status_code == 201
    other = Questlog(questlog.config)  # another process on the same store
    try:
        other.dice.roll(UUID(cid), notation="d6", purpose="elsewhere")
    finally:
        other.close()
    assert client.post(f"/campaigns/{cid}/rolls", json=ROLL).status_code == 201
    found = scrape(client)
    assert found[("questlog_command_conflicts_retried_total", (("game", "quest-calendar"),))] == 1


def test_metrics_give_each_views_lag_as_the_projections_route_does(client: FlaskClient) -> None:
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "c"}).json["id"]
    client.post(f"/campaigns/{cid}/rolls", json=ROLL)
    status = client.get("/projections").json
    found = scrape(client)
    assert found[("questlog_store_up", ())] == 1
    assert found[("questlog_log_head", ())] == status["head"] == 2
    for view in status["views"]:
        assert found[("questlog_view_lag_events", (("view", view["name"]),))] == view["lag"]


def test_metrics_say_the_store_is_down_and_still_answer(
    client: FlaskClient, questlog: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken_store(questlog, monkeypatch, refuse)
    found = scrape(client)
    assert found[("questlog_store_up", ())] == 0
    assert not [key for key in found if key[0] == "questlog_view_lag_events"]


# -- request ids and JSON logs ------------------------------------------------------------------


@pytest.fixture
def json_log() -> Any:
    """Log records as JSON lines into a buffer, as `serve --log-format json` writes them."""
    stream = io.StringIO()
    handler = configure_logging("json", stream)
    try:
        yield stream
    finally:
        logging.getLogger().removeHandler(handler)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    """Every line written, each parsed as one JSON object (a line that is not fails)."""
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_a_sane_request_id_is_sent_back_and_logged_with_the_access_line(
    client: FlaskClient, admin_token: str, json_log: io.StringIO
) -> None:
    answer = client.get("/campaigns", headers={"X-Request-Id": "lb-7f3a.2"})
    assert answer.headers["X-Request-Id"] == "lb-7f3a.2"
    access = [line for line in lines(json_log) if line["logger"] == "questlog.access"]
    assert len(access) == 1
    assert access[0]["request_id"] == "lb-7f3a.2"
    assert access[0]["method"] == "GET"
    assert access[0]["route"] == access[0]["path"] == "/campaigns"
    assert access[0]["status"] == 200
    assert access[0]["duration_ms"] >= 0
    assert access[0]["token"] == "test-admin"
    assert admin_token not in json_log.getvalue()


@pytest.mark.parametrize("sent", ["", "x" * 129, "two words", "tab\there", "é"], ids=repr)
def test_an_insane_request_id_is_replaced_by_a_new_one(client: FlaskClient, sent: str) -> None:
    answer = client.get("/healthz", headers={"X-Request-Id": sent})
    rid = answer.headers["X-Request-Id"]
    assert rid != sent and len(rid) == 32 and int(rid, 16) >= 0


def test_every_answer_has_a_request_id_even_a_refusal(flask_app: Flask) -> None:
    answer = client_as(flask_app, None).get("/campaigns")
    assert answer.status_code == 401
    assert len(answer.headers["X-Request-Id"]) == 32


def test_a_record_logged_while_handling_a_request_carries_its_id(
    client: FlaskClient, questlog: Questlog, monkeypatch: pytest.MonkeyPatch, json_log: io.StringIO
) -> None:
    broken_store(questlog, monkeypatch, refuse)
    client.get("/metrics", headers={"X-Request-Id": "scrape-1"})
    warnings = [line for line in lines(json_log) if line["logger"] == "questlog.metrics"]
    assert warnings and warnings[0]["level"] == "WARNING"
    assert {line["request_id"] for line in lines(json_log)} == {"scrape-1"}


def test_text_logs_carry_the_request_id_too(client: FlaskClient) -> None:
    stream = io.StringIO()
    handler = configure_logging("text", stream)
    try:
        client.get("/healthz", headers={"X-Request-Id": "t-1"})
    finally:
        logging.getLogger().removeHandler(handler)
    assert "INFO questlog.access [t-1] GET /healthz 200" in stream.getvalue()


def test_an_unknown_log_format_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUESTLOG_LOG_FORMAT", "xml")
    with pytest.raises(ValueError, match="QUESTLOG_LOG_FORMAT"):
        configure_logging(None, io.StringIO())


def test_the_routes_are_in_the_openapi_document_and_the_health_checks_ask_no_token(
    client: FlaskClient,
) -> None:
    paths = client.get("/openapi.json").json["paths"]
    for path in ("/healthz", "/readyz"):
        assert paths[path]["get"]["security"] == []
        assert "401" not in paths[path]["get"]["responses"]
    assert "403" in paths["/metrics"]["get"]["responses"]


def test_a_store_opened_twice_counts_in_each_apps_own_registry(tmp_path: Path) -> None:
    """Two apps in one process (tests, embedded use) never collide on metric names."""
    first = Questlog(StoreConfig(sqlite_path=tmp_path / "one.db"))
    second = Questlog(StoreConfig(sqlite_path=tmp_path / "two.db"))
    try:
        apps = [create_app(q, auth=False, rate_limit=0, TESTING=True) for q in (first, second)]
        apps[0].test_client().get("/healthz")
        text = apps[1].test_client().get("/metrics").get_data(as_text=True)
        assert 'route="/healthz",status="503"} 0.0' in text  # primed at 0
        assert 'route="/healthz",status="200"' not in text
    finally:
        first.close()
        second.close()
