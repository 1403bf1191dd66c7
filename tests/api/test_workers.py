"""``questlog serve --workers 2`` on PostgreSQL: two real worker processes behind one port, and
what must hold across them.

Every request is answered by the worker the test chose (``workers_harness``: the connection is
one that worker accepted, seen in ``/proc``), so "written through worker A, then through worker
B" is what happened. Every process started here is stopped by its pid in a ``finally``.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.service.questlog import Questlog
from tests.conftest import StoreFactory

from .workers_harness import (
    LIMITED_RATE,
    QUESTLOG,
    RULES,
    START_SECONDS,
    Served,
    accepted_inode,
    free_port,
    owner,
    ready,
    stop,
    two_workers,
)


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
    # One bucket for both: a burst of one, the next token 1 / LIMITED_RATE seconds later. Two
    # buckets (one per worker) would have let the first request on each worker through.
    assert elapsed < 1 / LIMITED_RATE, f"{elapsed:.0f} s: too slow to tell one bucket from two"
    assert statuses == [201, 429, 429, 429, 429, 429], (statuses, elapsed)


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
def test_clients_connecting_at_once_are_shared_between_the_workers(served: Served) -> None:
    """Eight keep-alive clients connect in a burst (as the benchmark's do) while one worker is
    slow to wake (held for a moment, as a busy 2-core machine holds it): each worker still ends up
    with its share (``webapi/cli/fair_worker.py``). Plain ``gthread`` lets the awake worker take all
    eight, and it then serves them alone for as long as they stay connected."""
    late, awake = served.workers
    connections = [
        http.client.HTTPConnection("127.0.0.1", served.port, timeout=60) for _ in range(8)
    ]
    os.kill(late, signal.SIGSTOP)
    try:
        for conn in connections:
            conn.connect()
            conn.request("GET", RULES, headers={"Authorization": f"Bearer {served.admin}"})
        time.sleep(0.5)
    finally:
        os.kill(late, signal.SIGCONT)
    try:
        holders = []
        for conn in connections:
            answer = conn.getresponse()
            answer.read()
            assert answer.status == 200
            # Seen at once: the connection stays open (keep-alive) until the worker's timeout.
            inode = accepted_inode(served.port, conn.sock.getsockname()[1])
            holders.append(owner({late, awake}, inode))
        counts = {pid: holders.count(pid) for pid in (late, awake)}
        assert sum(counts.values()) == 8, holders
        assert abs(counts[late] - counts[awake]) <= 2, f"connections per worker: {counts}"
    finally:
        for conn in connections:
            conn.close()


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
        try:
            # Almost always lost; if the worker answered before it died, the answer stands.
            answered = doomed.getresponse()
            assert answered.status == 201
            answered.read()
        except (OSError, http.client.HTTPException):
            pass
        finally:
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


@pytest.mark.postgres
def test_the_first_start_admin_token_is_made_once_before_the_fork_and_the_metrics_dir_goes(
    postgres_url: str, tmp_path: Path
) -> None:
    factory = StoreFactory("postgres", tmp_path, postgres_url)
    config = factory.new()
    port = free_port()
    env = {
        **os.environ,
        "QUESTLOG_DATABASE_URL": postgres_url,
        "QUESTLOG_PG_SCHEMA": str(config.postgres_schema),
    }
    for name in ("QUESTLOG_AUTH", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(name, None)
    scratch = tmp_path / "scratch"  # the server's temporary directories go here
    scratch.mkdir()
    env["TMPDIR"] = str(scratch)
    log_path = tmp_path / "first-start.log"
    process = None
    try:
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [*QUESTLOG, "serve", "--workers", "2", "--port", str(port)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        served = Served(process, port, "", "")
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            text = log_path.read_text()
            if "Workers: 2" in text and len(served.workers) == 2:
                served.admin = text.split("It is shown this once:")[1].split()[0]
                if all(ready(served, pid) for pid in served.workers):
                    break
            time.sleep(0.5)
        else:
            pytest.fail(f"two workers did not start answering: {log_path.read_text()}")
        assert log_path.read_text().count("First start: created the admin token") == 1
        store = Questlog(config)
        try:
            assert [token.name for token in store.side_tables.tokens()] == ["admin"]
        finally:
            store.close()
        made = list(scratch.glob("questlog-metrics-*"))
        assert len(made) == 1 and made[0].is_dir()
        stop(served)
        assert process.returncode == 0
        assert not list(scratch.iterdir())
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        factory.remove_all()
