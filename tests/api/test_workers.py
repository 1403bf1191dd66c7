"""``questlog serve --workers 2`` on PostgreSQL: two real worker processes behind one port, and
what must hold across them (issue 14, point 1, second bullet).

Each request is sent on a connection that a chosen worker accepted: the test stops the other
worker (SIGSTOP) only while it connects, waits until the kernel shows the accepted socket among
the chosen worker's file descriptors (``/proc``), lets the other worker go again, and only then
sends the request. So "written through worker A, then through worker B" is what happened, seen
from outside, with no debugging header in the server. Everything listens on 127.0.0.1, and every
process started here is stopped by its pid in a ``finally``.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from domain.service.application import Questlog
from domain.storage.store import StoreConfig
from tests.conftest import StoreFactory

QUESTLOG = [sys.executable, "-c", "from webapi.cli import main; main()"]
START_SECONDS = 90
"""Generous: the machine is shared, and each worker opens its own store and views."""
RULES = "/house-rules?game=quest-calendar"
"""A cheap route every token may read: what tells that a worker answers."""
LIMITED_RATE = 0.2
"""The limited token's appends per second: a burst of one, the next one 5 s later."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (the arbiter's workers), from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields_ = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if int(fields_.get("PPid", "0")) == pid and not fields_.get("State", "").startswith("Z"):
            found.add(int(entry))
    return found


def accepted_inode(server_port: int, client_port: int) -> int:
    """The inode of the server's side of a 127.0.0.1 connection (0 until a worker accepts)."""
    local = f"0100007F:{server_port:04X}"
    remote = f"0100007F:{client_port:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        parts = line.split()
        if parts[1] == local and parts[2] == remote:
            return int(parts[9])
    return 0


def owner(pids: set[int], inode: int) -> int | None:
    """The worker among ``pids`` holding the socket ``inode``."""
    target = f"socket:[{inode}]"
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return pid
            except OSError:
                continue
    return None


class NotAccepted(OSError):
    """The chosen worker did not accept the connection (it is not serving yet, or is gone)."""


@dataclass
class Served:
    """A running ``questlog serve --workers 2`` and the tokens to call it with."""

    process: subprocess.Popen[bytes]
    port: int
    admin: str
    limited: str
    served_by: dict[int, int] = field(default_factory=dict)

    @property
    def workers(self) -> list[int]:
        return sorted(children(self.process.pid))

    def connect(self, pid: int, wait: float = 30) -> http.client.HTTPConnection:
        """A connection that worker ``pid`` has accepted (the other workers held meanwhile);
        ``NotAccepted`` if it did not within ``wait`` seconds."""
        others = [other for other in self.workers if other != pid]
        for other in others:
            os.kill(other, signal.SIGSTOP)
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            conn.connect()
            client_port = conn.sock.getsockname()[1]
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                inode = accepted_inode(self.port, client_port)
                if inode and owner({pid}, inode) == pid:
                    break
                time.sleep(0.01)
            else:
                conn.close()
                raise NotAccepted(f"worker {pid} did not accept a connection within {wait} s")
        finally:
            for other in others:
                os.kill(other, signal.SIGCONT)
        self.served_by[pid] = self.served_by.get(pid, 0) + 1
        return conn

    def call(
        self,
        pid: int,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        """One request answered by worker ``pid``: status, headers, JSON body."""
        conn = self.connect(pid)
        try:
            sent = {"Authorization": f"Bearer {token or self.admin}", **(headers or {})}
            if body is not None:
                sent["Content-Type"] = "application/json"
            conn.request(
                method, path, body=None if body is None else json.dumps(body), headers=sent
            )
            response = conn.getresponse()
            data = json.loads(response.read() or b"null")
            return response.status, dict(response.getheaders()), data
        finally:
            conn.close()


def start(config_schema: str, url: str, tmp_path: Path) -> Served:
    """Make the tokens, then start two workers on the schema and wait until both answer."""
    env_store = {"QUESTLOG_DATABASE_URL": url, "QUESTLOG_PG_SCHEMA": config_schema}
    setup = Questlog(StoreConfig(database_url=url, postgres_schema=config_schema))
    try:
        admin, admin_secret = setup.create_token("tester", admin=True)
        _, limited_secret = setup.create_token("limited", admin=True)
    finally:
        setup.close()
    port = free_port()
    env = {
        **os.environ,
        **env_store,
        "QUESTLOG_RATE_LIMIT": str(LIMITED_RATE),
        "QUESTLOG_RATE_LIMIT_EXEMPT": admin.id,
    }
    env.pop("QUESTLOG_AUTH", None)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    log = (tmp_path / f"serve-{port}.log").open("wb")
    process = subprocess.Popen(
        [*QUESTLOG, "serve", "--workers", "2", "--port", str(port), "--threads", "4"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    served = Served(process, port, admin_secret, limited_secret)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"questlog serve exited: {(tmp_path / f'serve-{port}.log').read_text()}")
        workers = served.workers
        if len(workers) == 2 and all(ready(served, pid) for pid in workers):
            return served
        time.sleep(0.5)
    stop(served)
    pytest.fail("two workers did not start answering")


def ready(served: Served, pid: int) -> bool:
    """Whether worker ``pid`` answers (its app is built)."""
    try:
        conn = served.connect(pid, wait=2)
    except OSError:
        return False
    try:
        conn.request("GET", RULES, headers={"Authorization": f"Bearer {served.admin}"})
        status = conn.getresponse().status
    except OSError:
        return False
    finally:
        conn.close()
    return status == 200


def stop(served: Served) -> None:
    """SIGTERM the arbiter (a graceful stop of both workers), SIGKILL if it lingers."""
    if served.process.poll() is None:
        served.process.send_signal(signal.SIGTERM)
        try:
            served.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait(timeout=10)


@contextmanager
def two_workers(postgres_url: str, tmp_path: Path) -> Iterator[Served]:
    """Two workers on a fresh schema, stopped and the schema dropped afterwards."""
    factory = StoreFactory("postgres", tmp_path, postgres_url)
    config = factory.new()
    assert config.postgres_schema is not None
    served = None
    try:
        served = start(config.postgres_schema, postgres_url, tmp_path)
        yield served
    finally:
        if served is not None:
            stop(served)
        factory.remove_all()


@pytest.fixture(scope="module")
def served(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with two_workers(postgres_url, tmp_path_factory.mktemp("workers")) as running:
        yield running


def new_campaign(served: Served, pid: int, name: str) -> str:
    status, _, created = served.call(
        pid, "POST", "/campaigns", {"game": "quest-calendar", "name": name}
    )
    assert status == 201, created
    return str(created["id"])


@pytest.mark.postgres
def test_both_workers_answer_and_are_separate_processes(served: Served) -> None:
    first, second = served.workers
    assert first != second
    for pid in (first, second):
        status, _, rules = served.call(pid, "GET", RULES)
        assert status == 200 and rules
    assert served.served_by[first] >= 1 and served.served_by[second] >= 1


@pytest.mark.postgres
def test_a_campaign_written_through_both_workers_never_answers_from_a_stale_copy(
    served: Served,
) -> None:
    first, second = served.workers
    cid = new_campaign(served, first, "Alternating")
    versions = []
    for n in range(8):
        pid = (first, second)[n % 2]
        status, _, roll = served.call(pid, "POST", f"/campaigns/{cid}/rolls", {"dice": "d20"})
        assert status == 201, roll  # never a 409 or a 500
        versions.append(roll["version"])
        # A read on the other worker already has the write.
        other = second if pid == first else first
        _, _, campaign = served.call(other, "GET", f"/campaigns/{cid}")
        assert campaign["version"] == roll["version"]
    assert versions == list(range(versions[0], versions[0] + 8))
    # The first worker's cached copy is behind; If-Match with the version the second answered
    # is accepted, and a stale one is a 412 on either worker.
    _, _, head = served.call(second, "GET", f"/campaigns/{cid}")
    status, _, roll = served.call(
        first,
        "POST",
        f"/campaigns/{cid}/rolls",
        {"dice": "d6"},
        headers={"If-Match": f'"{head["version"]}"'},
    )
    assert status == 201, roll
    status, _, stale = served.call(
        second,
        "POST",
        f"/campaigns/{cid}/rolls",
        {"dice": "d6"},
        headers={"If-Match": f'"{head["version"]}"'},
    )
    assert status == 412, stale
    # A seed rotated on one worker: the other rolls on the new seed, and every roll verifies.
    status, _, rotated = served.call(second, "POST", f"/campaigns/{cid}/dice/rotate", {})
    assert status == 200, rotated
    status, _, roll = served.call(first, "POST", f"/campaigns/{cid}/rolls", {"dice": "2d6"})
    assert status == 201, roll
    assert roll["version"] == rotated["version"] + 1
    _, _, audit = served.call(second, "GET", f"/campaigns/{cid}/audit")
    assert audit["ok"] is True, audit
    assert audit["chain_ok"] is True


@pytest.mark.postgres
def test_an_idempotency_key_retried_on_the_other_worker_replays_the_same_answer(
    served: Served,
) -> None:
    first, second = served.workers
    cid = new_campaign(served, first, "Retried")
    key = {"Idempotency-Key": "workers-retry-1"}
    path = f"/campaigns/{cid}/rolls"
    status, _, original = served.call(first, "POST", path, {"dice": "d20"}, headers=key)
    assert status == 201
    status, headers, replayed = served.call(second, "POST", path, {"dice": "d20"}, headers=key)
    assert status == 201
    assert headers.get("Idempotent-Replayed") == "true"
    assert replayed == original
    _, _, campaign = served.call(second, "GET", f"/campaigns/{cid}")
    assert campaign["version"] == original["version"]


@pytest.mark.postgres
def test_the_rate_limit_over_both_workers_is_the_configured_rate(served: Served) -> None:
    first, second = served.workers
    cid = new_campaign(served, first, "Limited")
    path = f"/campaigns/{cid}/rolls"
    statuses = []
    started = time.monotonic()
    for n in range(6):
        pid = (first, second)[n % 2]
        status, headers, body = served.call(pid, "POST", path, {"dice": "d4"}, token=served.limited)
        statuses.append(status)
        if status == 429:
            assert int(headers["Retry-After"]) >= 1
            assert body["status"] == 429
    elapsed = time.monotonic() - started
    allowed = statuses.count(201)
    # One bucket for both: a burst of one, then LIMITED_RATE per second. Two buckets (one per
    # worker) would have let the first request on each worker through.
    assert 1 <= allowed <= 1 + math.floor(LIMITED_RATE * elapsed), (statuses, elapsed)
    assert set(statuses) <= {201, 429}


def read_until(response: http.client.HTTPResponse, marker: bytes, seconds: float) -> bytes:
    """Read a stream until ``marker`` shows up (or fail after ``seconds``)."""
    seen = b""
    deadline = time.monotonic() + seconds
    while marker not in seen:
        if time.monotonic() > deadline:
            pytest.fail(f"the stream never sent {marker!r}; it sent {seen[-500:]!r}")
        chunk = response.read1(4096)
        if not chunk:
            pytest.fail(f"the stream ended before {marker!r}")
        seen += chunk
    return seen


@pytest.mark.postgres
def test_a_live_stream_on_one_worker_sees_events_appended_on_the_other(served: Served) -> None:
    first, second = served.workers
    cid = new_campaign(served, first, "Streamed")
    stream = served.connect(first)
    try:
        stream.request(
            "GET",
            f"/campaigns/{cid}/stream",
            headers={"Authorization": f"Bearer {served.admin}", "Last-Event-ID": "1"},
        )
        response = stream.getresponse()
        assert response.status == 200
        status, _, roll = served.call(second, "POST", f"/campaigns/{cid}/rolls", {"dice": "d8"})
        assert status == 201
        read_until(response, f"id: {roll['version']}\n".encode(), 60)
    finally:
        stream.close()


@pytest.mark.postgres
def test_killing_a_worker_loses_nothing_and_the_arbiter_replaces_it(
    postgres_url: str, tmp_path: Path
) -> None:
    with two_workers(postgres_url, tmp_path) as running:
        first, second = running.workers
        cid = new_campaign(running, first, "Killed")
        path = f"/campaigns/{cid}/rolls"
        acknowledged: dict[str, dict[str, Any]] = {}
        # A roll is sent to the first worker, which is killed before it can answer.
        doomed = running.connect(first)
        doomed.request(
            "POST",
            path,
            body=json.dumps({"dice": "d20"}),
            headers={
                "Authorization": f"Bearer {running.admin}",
                "Content-Type": "application/json",
                "Idempotency-Key": "roll-0",
            },
        )
        os.kill(first, signal.SIGKILL)
        with pytest.raises((OSError, http.client.HTTPException)):
            doomed.getresponse().read()
        doomed.close()
        # The client sends it again with the same key (to the survivor), then goes on.
        for n in range(6):
            key = {"Idempotency-Key": f"roll-{n}"}
            status, _, roll = running.call(second, "POST", path, {"dice": "d20"}, headers=key)
            assert status == 201, roll
            acknowledged[f"roll-{n}"] = roll
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            workers = running.workers
            if len(workers) == 2 and first not in workers:
                replacement = next(pid for pid in workers if pid != second)
                if ready(running, replacement):
                    break
            time.sleep(0.5)
        else:
            pytest.fail(f"the arbiter did not replace worker {first}: {running.workers}")
        status, _, roll = running.call(replacement, "POST", path, {"dice": "d20"})
        assert status == 201
        _, _, campaign = running.call(replacement, "GET", f"/campaigns/{cid}")
        # Created, then seven rolls: roll-0 stored once however many times it was sent.
        assert campaign["version"] == 8 == roll["version"]
        versions = sorted(r["version"] for r in acknowledged.values())
        assert versions == list(range(2, 8))
        _, _, audit = running.call(second, "GET", f"/campaigns/{cid}/audit")
        assert audit["ok"] is True, audit


def test_more_than_one_worker_is_refused_on_sqlite_and_nothing_is_created(tmp_path: Path) -> None:
    db = tmp_path / "refused.db"
    env = {**os.environ, "QUESTLOG_DB": str(db)}
    env.pop("QUESTLOG_DATABASE_URL", None)
    refused = subprocess.run(
        [*QUESTLOG, "serve", "--workers", "2", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert "'--workers'" in refused.stderr
    assert "more than one worker needs PostgreSQL" in refused.stderr
    assert "QUESTLOG_DATABASE_URL" in refused.stderr
    assert not db.exists()


@pytest.mark.parametrize("workers", ["0", "-1", "two"])
def test_a_bad_workers_value_is_refused_naming_the_option(tmp_path: Path, workers: str) -> None:
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path / "bad.db")}
    env.pop("QUESTLOG_DATABASE_URL", None)
    refused = subprocess.run(
        [*QUESTLOG, "serve", "--workers", workers],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert "'--workers'" in refused.stderr
    assert not (tmp_path / "bad.db").exists()
