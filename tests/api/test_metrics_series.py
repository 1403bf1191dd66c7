"""The series the documented PromQL expressions read exist at 0 from the start (so that
``rate()`` sees the first failure after a start), and the latency buckets reach past the store's
longest wait. tests/api/test_prometheus.py shows both through a real Prometheus."""

from __future__ import annotations

import re
from pathlib import Path

from flask.testing import FlaskClient

from domain.service.commands_service import STORE_RETRY_SECONDS
from domain.storage.recorders import CAMPAIGN_LOCK_TIMEOUT
from domain.storage.store import StoreConfig
from tests.api.test_board_routes import match
from tests.api.test_command_routes import qc_campaign
from tests.api.test_operations import scrape
from webapi.http.metrics import LATENCY_BUCKETS

GAMES = ("quest-calendar", "calendar-board")
REQUESTS = "questlog_http_requests_total"


def documented_operations(client: FlaskClient) -> dict[tuple[str, str], set[str]]:
    """Every operation of the OpenAPI document, as the metrics label it (method, URL rule), with
    the statuses it documents."""
    found = {}
    for path, item in client.get("/openapi.json").json["paths"].items():
        rule = re.sub(r"\{(\w+)\}", r"<\1>", path)
        for method, operation in item.items():
            if method in ("get", "put", "post", "delete", "patch"):
                found[(method.upper(), rule)] = set(operation["responses"])
    return found


def test_every_documented_failure_of_every_route_is_counted_from_zero(
    client: FlaskClient,
) -> None:
    """A 503 or 507 on any route, and a 429 on each route the rate limit counts (the ones whose
    OpenAPI operation lists 429), show in rate() from the first one on."""
    found = scrape(client)
    operations = documented_operations(client)
    assert len(operations) > 40
    throttled = set()
    for (method, rule), statuses in operations.items():
        for status in ("500", "503", "507"):
            labels = (("method", method), ("route", rule), ("status", status))
            assert found[(REQUESTS, labels)] == 0, (method, rule, status)
        latency = (("method", method), ("route", rule))
        assert found[("questlog_http_request_duration_seconds_count", latency)] == 0
        if "429" in statuses:
            throttled.add((method, rule))
            assert found[(REQUESTS, (("method", method), ("route", rule), ("status", "429")))] == 0
    assert ("POST", "/campaigns/<campaign>/rolls") in throttled
    # A 429 only where the rate limit counts: the labels stay the bounded set they were.
    primed_429 = {
        (dict(labels)["method"], dict(labels)["route"])
        for name, labels in found
        if name == REQUESTS and ("status", "429") in labels
    }
    assert primed_429 == throttled


def test_each_game_counts_commands_conflicts_and_events_from_zero(client: FlaskClient) -> None:
    found = scrape(client)
    for game in GAMES:
        labels = (("game", game),)
        assert found[("questlog_commands_total", labels)] == 0
        assert found[("questlog_command_conflicts_retried_total", labels)] == 0
        assert found[("questlog_events_appended_total", (("event", "Created"), *labels))] == 0


def test_every_event_a_played_game_stores_was_counted_from_zero(client: FlaskClient) -> None:
    """The events of a Quest Calendar page and a Calendar Board night are all among the series
    primed at the start: no event makes a series at its first increment."""

    def events() -> set[tuple[tuple[str, str], ...]]:
        return {labels for name, labels in scrape(client) if name.startswith("questlog_events_")}

    primed = events()
    cid = qc_campaign(client)
    for command in (
        {"type": "start_page", "date": "01-03"},
        {"type": "trait_check", "trait": "INT", "target": 5},
    ):
        answer = client.post(f"/campaigns/{cid}/commands", json=command)
        assert answer.status_code == 201, answer.json
    cid = match(client)
    for player in ("A", "B", "C"):
        answer = client.post(
            f"/campaigns/{cid}/commands", json={"type": "end_turn", "player": player}
        )
        assert answer.status_code == 201, answer.json
    faces = {"basketball": [14, 17], "calendar": [2], "wind": [17]}
    while (pending := answer.json["pending"]) and pending["decision"] == "night_roll":
        kind = pending["context"]["roll"]
        body = {"type": "roll_night", "player": pending["who"], "roll": kind, "faces": faces[kind]}
        answer = client.post(f"/campaigns/{cid}/commands", json=body)
        assert answer.status_code == 201, answer.json
    assert client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"}).status_code == 201
    counted = scrape(client)
    stored = {
        labels
        for (name, labels), value in counted.items()
        if name == "questlog_events_appended_total" and value
    }
    assert len(stored) >= 8
    assert {("event", "BasketballShotRolled"), ("game", "calendar-board")} <= {
        pair for labels in stored for pair in labels
    }
    assert events() == primed


def seconds(value: str) -> float:
    """A PostgreSQL-style duration (``'2s'``) or a number of seconds."""
    return float(value.removesuffix("s"))


def test_the_latency_buckets_reach_past_the_stores_longest_wait(tmp_path: Path) -> None:
    """A request held by a stalled store lands in a bucket of its own instead of reading as the
    largest bucket's bound: SQLite waits out its lock timeout, PostgreSQL its campaign lock, then
    its table lock, then the retry window."""
    sqlite = StoreConfig(sqlite_path=tmp_path / "x.db").application_env("Q")
    postgres = StoreConfig(database_url="postgresql://u@h/db").application_env("Q")
    waits = {
        "SQLite lock": seconds(sqlite["Q_SQLITE_LOCK_TIMEOUT"]),
        "PostgreSQL locks": seconds(CAMPAIGN_LOCK_TIMEOUT)
        + seconds(postgres["Q_POSTGRES_LOCK_TIMEOUT"])
        + STORE_RETRY_SECONDS,
        "PostgreSQL pool": seconds(postgres["Q_POSTGRES_CONNECT_TIMEOUT"]) + STORE_RETRY_SECONDS,
    }
    longest = max(waits.values())
    assert longest == 30  # the SQLite lock, as the issue measured it
    assert tuple(sorted(LATENCY_BUCKETS)) == LATENCY_BUCKETS
    for name, wait in waits.items():
        # The request's bucket: at most twice the wait, and never the last one (longer stalls
        # still read as longer).
        above = [bound for bound in LATENCY_BUCKETS if bound > wait]
        assert len(above) > 1 and above[0] <= 2 * wait, (name, wait, LATENCY_BUCKETS)
    assert LATENCY_BUCKETS[-1] >= 2 * longest  # two such waits in one request still fit


def test_the_scrape_has_the_buckets(client: FlaskClient) -> None:
    found = scrape(client)
    bounds = {
        float(dict(labels)["le"])
        for name, labels in found
        if name == "questlog_http_request_duration_seconds_bucket"
    }
    assert bounds == {*LATENCY_BUCKETS, float("inf")}
