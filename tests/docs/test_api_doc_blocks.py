"""The JSON and header blocks of the API docs that are not answers of a walkthrough, read from
the docs and checked against what the code really answers: the same fields (a doc block may
leave values out with ``…``), and the values it shows where they are not an example's own."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import OperationalError
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from tests.docs.examples import checked_block, schematic_json
from webapi.app import create_app
from webapi.http.errors import TooManyStreams, streams_problem
from webapi.http.live import max_streams_setting, sse

HERE = Path(__file__).resolve()
TEST = HERE.relative_to(HERE.parents[2]).as_posix()


def like(shown: str, actual: str) -> bool:
    """Whether ``actual`` is what ``shown`` writes, each ``…`` standing for anything (with the
    hex digits before it: ``6f1c…`` is an id cut short)."""
    pattern = ".*".join(re.escape(part) for part in re.split(r"[0-9a-f]*…", shown))
    return re.fullmatch(pattern, actual, re.S) is not None


@pytest.fixture
def campaign(client: FlaskClient) -> str:
    """A campaign with one server roll (version 2), as the doc examples assume."""
    answer = client.post("/campaigns", json={"game": "quest-calendar", "name": "docs"})
    cid: str = answer.json["id"]
    assert client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}).status_code == 201
    return cid


def events(client: FlaskClient, cid: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = client.get(f"/campaigns/{cid}/events").json["items"]
    return items


# -- events.md ------------------------------------------------------------------------------------


def test_the_canonical_serialisation_has_the_fields_that_are_hashed(
    client: FlaskClient, campaign: str
) -> None:
    shown = schematic_json(checked_block("events.md", TEST, '"prev_hash"'))
    event = events(client, campaign)[1]
    body = {key: event[key] for key in shown if key != "campaign_id"}
    body["campaign_id"] = campaign
    # The doc's rules: sorted keys, `,` and `:` with no white space, UTF-8 without escaping.
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(text.encode()).hexdigest() == event["hash"]
    assert shown["type"] == "questlog.DiceRolled" == event["type"]


# -- reliability.md -------------------------------------------------------------------------------


def test_the_store_unavailable_body_is_the_real_one(
    app: Questlog, client: FlaskClient, campaign: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = schematic_json(checked_block("reliability.md", TEST, '"stored"'))

    def gone(*_: Any, **__: Any) -> None:
        raise OperationalError("the store went away (a test)")

    monkeypatch.setattr(app, "save", gone)
    answer = client.post(f"/campaigns/{campaign}/rolls", json={"dice": "d20"})
    assert answer.status_code == shown["status"] == 503
    assert set(answer.json) == set(shown)
    for key, value in shown.items():
        assert like(value, answer.json[key]) if key == "instance" else answer.json[key] == value


# -- time-travel.md -------------------------------------------------------------------------------


def test_the_replay_answer_has_the_documented_shape(client: FlaskClient, campaign: str) -> None:
    shown = schematic_json(checked_block("time-travel.md", TEST, '"patch"'))
    real = client.get(f"/campaigns/{campaign}/replay?from=2&to=2").json
    assert set(real) == set(shown)
    assert set(shown["before"]) <= set(real["before"])
    (item,) = real["items"]
    assert set(item) == set(shown["items"][0])
    # "the event exactly as GET /events shows it"
    assert set(shown["items"][0]["event"]) == set(item["event"]) == set(events(client, campaign)[1])
    for change in shown["items"][0]["patch"] + item["patch"]:
        assert set(change) == {"op", "path", "value"}
        assert change["op"] in {"add", "remove", "replace"}  # the JSON Patch operations used
    for key in ("undone", "undone_by"):
        assert shown["items"][0]["event"][key] == item["event"][key]
        assert type(shown["items"][0]["event"][key]) is type(item["event"][key])
    assert set(shown["before"]["rolls"]) <= set(real["before"]["rolls"])
    # "next_from": the version after the last one returned (null at the head).
    assert shown["next_from"] == shown["items"][-1]["event"]["version"] + 1
    assert real["next_from"] in (None, item["event"]["version"] + 1)


# -- table-page.md --------------------------------------------------------------------------------


def test_the_html_routes_send_the_documented_headers(client: FlaskClient) -> None:
    shown = checked_block("table-page.md", TEST, "Content-Security-Policy")
    answer = client.get("/app/")
    assert answer.status_code == 200
    for line in shown.strip().splitlines():
        name, value = line.split(": ", 1)
        assert answer.headers[name] == value, name


def test_a_share_answer_is_as_documented(client: FlaskClient, campaign: str) -> None:
    shown = schematic_json(checked_block("table-page.md", TEST, '"token_id"'))
    real = client.post(f"/campaigns/{campaign}/share", json={"name": "for the players"}).json
    assert set(real) == set(shown)
    assert real["role"] == shown["role"]
    assert real["url"] == f"/app/campaigns/{campaign}#token={real['token']}"
    for key in ("token", "campaign_id", "url"):
        assert like(shown[key], real[key]), key
    assert re.fullmatch(r"[0-9a-f]{12}", real["token_id"]) and len(shown["token_id"]) == 12


def test_a_stream_message_is_as_documented(client: FlaskClient, campaign: str) -> None:
    shown = checked_block("table-page.md", TEST, "event: event")
    item = events(client, campaign)[1]
    real = sse(json.dumps, item)
    assert shown.endswith("\n\n") and real.endswith("\n\n")
    fields = [line.split(": ", 1) for line in shown.strip().splitlines()]
    assert [name for name, _ in fields] == [line.split(": ")[0] for line in real.split("\n")[:3]]
    assert fields[1][1] == "event"
    data = schematic_json(fields[2][1])
    assert set(data) == set(item)
    assert int(fields[0][1]) == data["version"]


def test_the_stream_cap_answer_is_the_real_one(client: FlaskClient, campaign: str) -> None:
    shown = schematic_json(checked_block("table-page.md", TEST, "too-many-streams"))
    path = f"/campaigns/{campaign}/stream"
    assert client.application is not None
    with client.application.test_request_context(path):
        real = streams_problem(TooManyStreams(max_streams_setting(None))).json
    assert real is not None and set(real) == set(shown)
    for key, value in shown.items():
        assert like(value, real[key]) if isinstance(value, str) else real[key] == value, key


def test_a_stream_beyond_the_cap_gets_that_answer(app: Questlog, campaign: str) -> None:
    # The same refusal from a real second stream, with a cap of one.
    client = create_app(app, auth=False, rate_limit=0, max_streams=1, TESTING=True).test_client()
    first = client.get(f"/campaigns/{campaign}/stream", buffered=False)
    try:
        refused = client.get(f"/campaigns/{campaign}/stream")
        assert refused.status_code == 503
        assert refused.json["type"] == "urn:questlog:problem:too-many-streams"
        assert refused.json["max_streams"] == 1
    finally:
        first.close()


def test_the_bundle_has_the_documented_fields(client: FlaskClient, campaign: str) -> None:
    shown = schematic_json(checked_block("table-page.md", TEST, '"questlog-bundle/1"'))
    real = client.get(f"/campaigns/{campaign}/bundle").json
    assert set(real) == set(shown)
    assert real["format"] == shown["format"]
    assert like(shown["genesis_hash"], real["genesis_hash"]) and real["genesis_hash"] == "0" * 64
    assert set(real["head"]) == set(shown["head"])
    assert set(real["keys"][0]) == set(shown["keys"][0])
    # Each exactly as GET /events shows it, less its summary (computed when read, never bundled).
    shown_events = [
        {k: v for k, v in e.items() if k != "summary"} for e in events(client, campaign)
    ]
    assert real["events"] == shown_events


# -- trust.md -------------------------------------------------------------------------------------


def test_the_key_listing_is_as_documented(client: FlaskClient) -> None:
    shown = schematic_json(checked_block("trust.md", TEST, '"log_name"'))
    real = client.get("/.well-known/questlog-key").json
    assert set(real) == set(shown)
    assert [set(key) for key in real["keys"]] == [set(key) for key in shown["keys"]]
    for listing in (shown, real):
        assert listing["key"] == listing["keys"][-1]["key"]
        assert listing["key"].startswith(listing["log_name"] + "+")
