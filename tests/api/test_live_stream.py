"""The live stream: SSE messages of every event, resumable, fed by one poller that also
sees other processes' appends, and capped so that streams never starve the commands."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest
from flask import Flask, json

from domain.service.questlog import Questlog
from tests.api.conftest import TokenClient, client_as
from webapi.app import create_app
from webapi.http.live import LIVE_KEY, Live

Message = dict[str, Any]


class Reader(threading.Thread):
    """Reads an open stream in a thread of its own until it has ``want`` messages (or the
    timeout), then closes it from that same thread."""

    def __init__(self, response: Any, want: int, timeout: float = 10.0) -> None:
        super().__init__(daemon=True)
        self.response = response
        self.want = want
        self.timeout = timeout
        self.messages: list[Message] = []
        self.comments: list[str] = []
        self.arrived: list[float] = []

    def run(self) -> None:
        """Parse SSE blocks (``id``, ``event``, ``data`` lines, or ``:`` comments)."""
        buffer = ""
        deadline = time.monotonic() + self.timeout
        try:
            for chunk in self.response.response:
                buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
                while "\n\n" in buffer:
                    block, buffer = buffer.split("\n\n", 1)
                    self.take(block)
                if len(self.messages) >= self.want or time.monotonic() > deadline:
                    break
        finally:
            self.response.close()

    def take(self, block: str) -> None:
        """One SSE block."""
        if block.startswith(":"):
            self.comments.append(block[1:].strip())
            return
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        self.messages.append(
            {"id": int(fields["id"]), "event": fields["event"], "data": json.loads(fields["data"])}
        )
        self.arrived.append(time.monotonic())

    def done(self, timeout: float = 10.0) -> list[Message]:
        """Wait for the reader; its messages."""
        self.join(timeout)
        assert not self.is_alive(), f"the stream sent only {len(self.messages)} message(s)"
        return self.messages


def roll(client: TokenClient, cid: str) -> None:
    response = client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20", "purpose": "live"})
    assert response.status_code == 201, response.json


def open_stream(client: TokenClient, cid: str, **headers: str) -> Any:
    response = client.get(f"/campaigns/{cid}/stream", headers=headers, buffered=False)
    assert response.status_code == 200, response.get_data()
    assert response.mimetype == "text/event-stream"
    return response


def test_a_stream_resumes_after_last_event_id_with_each_event_as_the_events_route_shows_it(
    client: TokenClient, campaign: dict[str, Any]
) -> None:
    cid = campaign["id"]
    for _ in range(4):
        roll(client, cid)
    reader = Reader(open_stream(client, cid, **{"Last-Event-ID": "2"}), want=3)
    reader.start()
    messages = reader.done()
    assert [m["id"] for m in messages] == [3, 4, 5]
    assert {m["event"] for m in messages} == {"event"}
    listed = client.get(f"/campaigns/{cid}/events?after=2").json["items"]
    assert [m["data"] for m in messages] == listed


def test_after_in_the_query_resumes_too(client: TokenClient, campaign: dict[str, Any]) -> None:
    cid = campaign["id"]
    roll(client, cid)
    response = client.get(f"/campaigns/{cid}/stream?after=1", buffered=False)
    reader = Reader(response, want=1)
    reader.start()
    assert [m["id"] for m in reader.done()] == [2]


def test_a_roll_appended_by_another_process_arrives_within_a_second(
    store_app: Flask, store_client: TokenClient, make_app: Callable[[], Questlog]
) -> None:
    cid = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "live"}).json[
        "id"
    ]
    reader = Reader(open_stream(store_client, cid), want=3)
    reader.start()
    time.sleep(0.5)  # the stream is open and has sent the backlog (version 1)
    roll(store_client, cid)  # this process
    other = make_app()  # another process on the same store
    appended = time.monotonic()
    other.dice.roll(UUID(cid), notation="d6", purpose="from elsewhere")
    messages = reader.done()
    assert [m["id"] for m in messages] == [1, 2, 3]
    assert messages[2]["data"]["data"]["rolls"][0]["purpose"] == "from elsewhere"
    assert reader.arrived[2] - appended < 1.0


def test_a_quiet_stream_sends_keep_alive_comments(
    client: TokenClient, flask_app: Flask, campaign: dict[str, Any]
) -> None:
    live: Live = flask_app.extensions[LIVE_KEY]
    live.keep_alive = 0.2
    reader = Reader(open_stream(client, campaign["id"]), want=2, timeout=1.0)
    reader.start()
    reader.join(5)
    assert "keep-alive" in reader.comments


def test_a_private_campaign_streams_to_nobody_without_a_role(
    flask_app: Flask, questlog: Questlog, campaign: dict[str, Any]
) -> None:
    path = f"/campaigns/{campaign['id']}/stream"
    anonymous = client_as(flask_app, None).get(path)
    assert anonymous.status_code == 401
    assert anonymous.mimetype == "application/problem+json"
    _, outsider = questlog.access.create_token("outsider")
    refused = client_as(flask_app, outsider).get(path)
    assert refused.status_code == 404
    assert refused.json["type"] == "urn:questlog:problem:not-found"


def test_an_unknown_campaign_and_a_bad_last_event_id_are_refused(
    client: TokenClient, campaign: dict[str, Any]
) -> None:
    missing = client.get("/campaigns/00000000-0000-0000-0000-000000000000/stream")
    assert missing.status_code == 404
    bad = client.get(f"/campaigns/{campaign['id']}/stream", headers={"Last-Event-ID": "x"})
    assert bad.status_code == 422
    assert "Last-Event-ID" in bad.json["errors"]


def test_the_stream_cap_answers_503_and_a_closed_stream_frees_its_slot(
    questlog: Questlog, admin_token: str
) -> None:
    app = create_app(questlog, auth=True, rate_limit=0, max_streams=1, TESTING=True)
    client = client_as(app, admin_token)
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "cap"}).json["id"]
    first = open_stream(client, cid)
    refused = client.get(f"/campaigns/{cid}/stream")
    assert refused.status_code == 503
    assert refused.json["type"] == "urn:questlog:problem:too-many-streams"
    assert refused.json["limit"] == "QUESTLOG_MAX_STREAMS"
    assert refused.headers["Retry-After"]
    roll(client, cid)  # commands still work with every stream slot taken
    first.close()
    open_stream(client, cid).close()


def test_the_stream_cap_is_read_from_the_environment(
    questlog: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUESTLOG_MAX_STREAMS", "3")
    assert create_app(questlog, auth=False).extensions[LIVE_KEY].cap == 3
    monkeypatch.setenv("QUESTLOG_MAX_STREAMS", "none")
    with pytest.raises(ValueError, match="QUESTLOG_MAX_STREAMS"):
        create_app(questlog, auth=False)


def test_an_open_stream_ends_at_once_when_the_server_stops(
    client: TokenClient, flask_app: Flask, campaign: dict[str, Any]
) -> None:
    """Trial snag 20: on SIGTERM ``questlog serve`` stops the watcher, and every open stream
    ends, so waitress does not wait 5 s for the threads the streams hold."""
    live: Live = flask_app.extensions[LIVE_KEY]
    reader = Reader(open_stream(client, campaign["id"]), want=1000, timeout=30.0)
    reader.start()
    time.sleep(0.3)
    assert reader.is_alive()
    started = time.monotonic()
    live.watcher.stop()
    reader.join(5)
    assert not reader.is_alive() and time.monotonic() - started < 2.0
