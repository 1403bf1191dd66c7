"""What a security review asked for: no-store and nosniff headers, no probing of token names or
of the whole log, short echoes, quiet logs under a storm of failures, a worker's health."""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from projections.runners import ViewsWorker
from projections.view import ANY
from projections.views.roll_log import RollLog
from tests.api.conftest import api_routes, client_as
from webapi.app import create_app
from webapi.http.errors import TRACEBACKS_KEY
from webapi.http.view_store import WORKER_KEY, close_views

PROBLEM = "application/problem+json"


def test_projections_are_for_admin_tokens_only(store_app: Flask, app: Questlog) -> None:
    _, player = app.access.create_token("player")
    _, admin = app.access.create_token("ops", admin=True)
    refused = client_as(store_app, player).get("/projections")
    assert refused.status_code == 403 and refused.mimetype == PROBLEM
    assert "head" not in refused.json and "views" not in refused.json
    shown = client_as(store_app, admin).get("/projections")
    assert shown.status_code == 200 and "head" in shown.json


def test_answers_to_a_token_are_not_stored_and_no_answer_is_sniffed(
    store_app: Flask, store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    for response in (
        store_client.get(f"/campaigns/{cid}"),
        store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"}),
        store_client.get(f"/campaigns/{cid}/rolls/99-1"),
        store_client.post("/campaigns", json={"game": "chess"}),
        store_client.post("/campaigns", data="[" * 100, content_type="application/json"),
    ):
        assert response.headers["Cache-Control"] == "no-store", response.status_code
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    anonymous = client_as(store_app, None)
    for response in (anonymous.get("/openapi.json"), anonymous.get(f"/campaigns/{cid}")):
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert "no-store" not in response.headers.get("Cache-Control", "")


def test_without_auth_every_answer_is_still_nosniff(questlog: Questlog) -> None:
    client = create_app(questlog, auth=False, rate_limit=0, TESTING=True).test_client()
    for response in (client.get("/campaigns"), client.get("/nowhere")):
        assert response.headers["X-Content-Type-Options"] == "nosniff"


def member_answer(client: FlaskClient, cid: str, field: str, name: str) -> tuple[int, str]:
    """The status and body of adding a token as a viewer, with the name blanked out."""
    response = client.post(f"/campaigns/{cid}/members", json={field: name, "role": "viewer"})
    return response.status_code, response.get_data(as_text=True).replace(name, "NAME")


@pytest.mark.parametrize("field", ["token_name", "token_id"])
def test_an_owner_cannot_tell_an_unknown_token_from_one_it_may_not_add(
    store_app: Flask, app: Questlog, field: str
) -> None:
    _, owner_secret = app.access.create_token("owner")
    gone, _ = app.access.create_token("gone")
    app.access.revoke_token("gone")
    ops, _ = app.access.create_token("ops", admin=True)
    friend, _ = app.access.create_token("friend")
    owner = client_as(store_app, owner_secret)
    cid = owner.post("/campaigns", json={"game": "quest-calendar", "name": "mine"}).json["id"]

    def ident(token: Any) -> str:
        return str(token.name if field == "token_name" else token.id)

    unknown = member_answer(owner, cid, field, "ghost-token")
    assert unknown[0] == 409 and "not-held" in unknown[1]  # the store's answer, naming the field
    assert member_answer(owner, cid, field, ident(gone)) == unknown
    assert member_answer(owner, cid, field, ident(ops)) == unknown
    assert member_answer(owner, cid, field, ident(friend))[0] == 201


@pytest.mark.parametrize("field", ["token_name", "token_id"])
def test_an_admin_learns_why_a_token_may_not_be_a_member(
    store_client: FlaskClient, store_campaign: dict[str, Any], app: Questlog, field: str
) -> None:
    gone, _ = app.access.create_token("gone")
    app.access.revoke_token("gone")
    ops, _ = app.access.create_token("ops", admin=True)
    path = f"/campaigns/{store_campaign['id']}/members"
    for token, why in ((gone, "revoked"), (ops, "admin")):
        ident = token.name if field == "token_name" else token.id
        response = store_client.post(path, json={field: ident, "role": "viewer"})
        assert response.status_code == 409 and response.mimetype == PROBLEM
        assert response.json["type"].endswith(":not-held")
        assert why in response.json["errors"][field][0]
    unknown = store_client.post(path, json={field: "ghost-token", "role": "viewer"})
    assert unknown.status_code == 409
    assert "no token named or numbered" in unknown.json["errors"][field][0]
    assert store_client.get(path).json["items"] == [
        {
            "token_id": store_client_token_id(app),
            "role": "owner",
            "seat": None,
            "name": "store-admin",
        }
    ]


def store_client_token_id(app: Questlog) -> str:
    """The id of the admin token ``store_client`` acts as (the campaign's owner)."""
    token = app.side_tables.find_token("store-admin")
    assert token is not None
    return token.id


ROUTES_WITH_PARAMETERS = [(rule, method) for rule, method in api_routes() if "<" in rule]


@pytest.mark.parametrize(("rule", "method"), ROUTES_WITH_PARAMETERS)
def test_a_404_quotes_a_long_path_parameter_cut_short(
    client: FlaskClient, campaign: dict[str, Any], rule: str, method: str
) -> None:
    long = "x" * 5000
    for name in re.findall(r"<(\w+)>", rule):
        path = rule
        for other in re.findall(r"<(\w+)>", rule):
            path = path.replace(f"<{other}>", long if other == name else campaign["id"])
        response = client.open(path, method=method, json={} if method == "POST" else None)
        assert response.status_code == 404, (name, response.json)
        body = response.get_data(as_text=True)
        assert len(body) < 1000 and "x" * 300 not in body, (name, body[:300])
        assert response.json["instance"].endswith("…")


def test_a_404_for_an_unknown_route_cuts_its_instance_short(client: FlaskClient) -> None:
    response = client.get("/nowhere/" + "y" * 5000)
    assert response.status_code == 404 and response.mimetype == PROBLEM
    instance = response.json["instance"]
    assert instance.startswith("/nowhere/yyy") and instance.endswith("…") and len(instance) <= 200


def test_a_storm_of_failures_logs_a_line_each_and_a_traceback_now_and_then(
    flask_app: Flask,
    client: FlaskClient,
    questlog: Questlog,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [1000.0]
    flask_app.extensions[TRACEBACKS_KEY].clock = lambda: now[0]

    def fails_with(error: Exception) -> None:
        def fail(**_: Any) -> Any:
            raise error

        monkeypatch.setattr(questlog.reading, "list_campaigns", fail)

    def storm(count: int) -> list[logging.LogRecord]:
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="questlog.api"):
            for _ in range(count):
                assert client.get("/campaigns").status_code == 500
        return [r for r in caplog.records if r.name == "questlog.api"]

    fails_with(RuntimeError("disk on fire"))
    lines = storm(300)
    assert len(lines) == 300
    assert all("RuntimeError" in r.getMessage() and "/campaigns" in r.getMessage() for r in lines)
    assert [bool(r.exc_info) for r in lines] == [True] + [False] * 299
    fails_with(KeyError("another kind"))
    assert [bool(r.exc_info) for r in storm(2)] == [True, False]
    now[0] += 9.9
    fails_with(RuntimeError("still on fire"))
    assert [bool(r.exc_info) for r in storm(1)] == [False]
    now[0] += 0.1
    assert [bool(r.exc_info) for r in storm(2)] == [True, False]


def test_projections_clear_the_workers_error_once_it_is_healthy_again(
    store_app: Flask,
    store_client: FlaskClient,
    store_campaign: dict[str, Any],
    app: Questlog,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = threading.Event()
    broken.set()
    original = RollLog._handlers[ANY]

    def fails_while_broken(view: Any, event: Any) -> None:
        if broken.is_set():
            raise RuntimeError("connection lost")
        original(view, event)

    monkeypatch.setitem(RollLog._handlers, ANY, fails_while_broken)
    reader = app if app.config.kind == "sqlite" else None
    worker = ViewsWorker(app.config, app=reader, retry_after=0.05)
    store_app.extensions[WORKER_KEY] = worker.start()

    def worker_error() -> Any:
        response = store_client.get("/projections")
        assert response.status_code == 200, response.json
        return response.json["worker"]["last_error"]

    try:
        store_client.post(f"/campaigns/{store_campaign['id']}/rolls", json={"dice": "d6"})
        assert wait_until(lambda: worker_error() is not None)
        assert "connection lost" in worker_error()
        broken.clear()
        assert wait_until(lambda: worker_error() is None)
        assert worker.thread.is_alive()
    finally:
        worker.stop()
        close_views(store_app)
    assert isinstance(worker.last_error, RuntimeError)  # the record of the last failure stays


def wait_until(condition: Callable[[], bool], timeout: float = 15.0) -> bool:
    """Whether the condition came true within the timeout (polled)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
