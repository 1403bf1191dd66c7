"""Leases: each view is run by one process at a time, and another
takes over within seconds when the holder is killed.

On PostgreSQL the lease is a session advisory lock per view on a dedicated connection; on SQLite an
``flock`` on a lock file per view beside the views file. See ``projections/leases.py``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zlib import crc32

import psycopg
import pytest

from domain.model.dice.notation import parse
from domain.service.questlog import Questlog
from domain.storage.advisory_locks import VIEW_LEASE_SPACE, view_lease_keys
from domain.storage.store import StoreConfig
from projections.leases import (
    FileLeases,
    LeaseLost,
    PostgresLeases,
    holder_label,
    lease_holders,
    lease_retry,
    run_leased,
)
from projections.rebuild import view_status
from projections.runners import ViewsWorker, run_views
from projections.store import SQLiteViewStore, ViewStore
from projections.view import View
from projections.views import ALL_VIEWS
from tests.projections.conftest import log_size
from tests.projections.scenarios import many_rolls
from tests.projections.test_exactly_once import assert_exactly_once, play

NAMES = [view.name for view in ALL_VIEWS]
postgres_only = pytest.mark.parametrize(
    "store_config", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
sqlite_only = pytest.mark.parametrize("store_config", ["sqlite"], indirect=True)


def wait_until(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll ``condition`` until it is truthy; fail naming ``what`` after a generous timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def runner_env(config: StoreConfig, retry: float = 0.5) -> dict[str, str]:
    """The environment of a ``python -m projections run`` process on the test's store."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUESTLOG_")}
    if config.kind == "postgres":
        assert config.database_url is not None
        env["QUESTLOG_DATABASE_URL"] = config.database_url
        env["QUESTLOG_PG_SCHEMA"] = str(config.postgres_schema)
    else:
        env["QUESTLOG_DB"] = str(config.sqlite_path)
    env["QUESTLOG_VIEWS_LEASE_RETRY"] = str(retry)
    env["PYTHONUNBUFFERED"] = "1"  # its lines arrive as it prints them
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def start_runner(config: StoreConfig, *, batch_size: int = 50) -> subprocess.Popen[bytes]:
    """A separate views process (``python -m projections run``) on the test's store.

    Its output (a few lines: what it runs, each time that changes) goes to a pipe; read it with
    ``Output``, or after the process has stopped.
    """
    command = [sys.executable, "-m", "projections", "run", "--batch-size", str(batch_size)]
    return subprocess.Popen(
        command, env=runner_env(config), stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


class Output:
    """Collects a process's output lines in a thread, so a test can wait for one."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        self.stream = process.stdout
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for line in self.stream:
            self.lines.append(line.decode().rstrip("\n"))

    def text(self) -> str:
        """Everything printed so far."""
        return "\n".join(self.lines)


def stop_all(processes: list[subprocess.Popen[bytes]]) -> None:
    """Stop each process this test started, by its pid; kill it if it does not stop."""
    for process in processes:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)


def holder_pids(store: ViewStore) -> dict[str, int | None]:
    """The OS pid of the process holding each view's lease (from its application_name)."""
    holders = lease_holders(store, NAMES)
    return {
        name: None if lease is None else int(lease["application_name"].rsplit(":", 1)[1])
        for name, lease in holders.items()
    }


class Writer:
    """Load while the views run: a thread appending server rolls until stopped."""

    def __init__(self, app: Questlog) -> None:
        self.app = app
        self.campaign = app.campaigns.create_campaign(
            game="quest-calendar", name="Load"
        ).campaign_id
        self.stop = threading.Event()
        self.saved = 0
        self.thread = threading.Thread(target=self._write, daemon=True)

    def _write(self) -> None:
        expression = parse("1d20+1")
        while not self.stop.is_set():
            campaign = self.app.campaign(self.campaign)
            for _ in range(5):
                campaign.roll(expression, "load", self.app.dice.server_dice(campaign))
            self.app.save(campaign)
            self.saved += 5
            time.sleep(0.01)

    def __enter__(self) -> Writer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(60)


def caught_up(app: Questlog, store: ViewStore) -> bool:
    """Every view has applied the log up to its head."""
    head = app.recorder.max_notification_id()
    positions = store.positions()
    return all(positions.get(n, {}).get("position", 0) == head for n in NAMES)


# -- keys and settings ------------------------------------------------------------------------


def test_a_views_lease_key_is_stable_and_scoped_by_schema() -> None:
    expected = crc32(b"public/roll_log") & 0x7FFF_FFFF
    assert view_lease_keys("public", "roll_log") == (VIEW_LEASE_SPACE, expected)
    assert view_lease_keys("a", "roll_log") != view_lease_keys("b", "roll_log")
    keys = {view_lease_keys("public", name) for name in NAMES}
    assert len(keys) == len(NAMES)


@pytest.mark.parametrize("raw", ["0", "-1", "soon", "99999"])
def test_a_bad_lease_retry_names_the_variable(raw: str) -> None:
    with pytest.raises(ValueError, match="QUESTLOG_VIEWS_LEASE_RETRY"):
        lease_retry({"QUESTLOG_VIEWS_LEASE_RETRY": raw})
    assert lease_retry({}) == 1.0
    assert lease_retry({"QUESTLOG_VIEWS_LEASE_RETRY": "0.25"}) == 0.25


# -- PostgreSQL advisory locks ----------------------------------------------------------------


@postgres_only
def test_one_process_holds_a_lease_and_the_other_takes_it_when_released(
    app: Questlog, views: ViewStore
) -> None:
    first, second = PostgresLeases(app.config), PostgresLeases(app.config)
    try:
        assert first.acquire(NAMES[:3]) == frozenset(NAMES[:3])
        assert second.acquire(NAMES) == frozenset(NAMES[3:])
        holders = lease_holders(views, NAMES)
        assert {holders[n]["pid"] for n in NAMES[:3]} == {first.backend_pid}  # type: ignore[index]
        assert holders[NAMES[0]]["application_name"] == f"questlog-views {holder_label()}"  # type: ignore[index]
        first.close()  # the server drops the locks when its backend has ended: soon, not at once
        wait_until(lambda: second.acquire(NAMES) == frozenset(NAMES), 15, "second to take all")
    finally:
        first.close()
        second.close()


@postgres_only
def test_a_lost_lease_connection_fences_writes_at_once(app: Questlog, views: ViewStore) -> None:
    """A process whose lease connection is gone writes nothing more."""
    leases, other = PostgresLeases(app.config), PostgresLeases(app.config)
    try:
        leases.acquire(NAMES)
        with views.write() as cursor:
            leases.fence(cursor, NAMES)
        assert app.config.database_url is not None
        with psycopg.connect(app.config.database_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s, 10000)", (leases.backend_pid,))
        with pytest.raises(LeaseLost), views.write() as cursor:
            leases.fence(cursor, ["roll_log"])
        assert other.acquire(NAMES) == frozenset(NAMES)
        assert leases.acquire(NAMES) == frozenset()
    finally:
        leases.close()
        other.close()


@postgres_only
def test_the_postgres_runner_catches_up_by_fenced_batches(app: Questlog, views: ViewStore) -> None:
    """The backlog is applied by the engine's batches, each behind the fence."""
    from projections.runners import PostgresRunner

    play(app, rolls=300)
    fenced: list[list[str]] = []
    batches: list[int] = []
    lost = threading.Event()

    def fence(_cursor: Any, names: Any) -> None:
        fenced.append(sorted(names))
        if lost.is_set():
            raise LeaseLost("the lease connection is gone")

    stop = threading.Event()
    runner = PostgresRunner(
        app.config, ALL_VIEWS, batch_size=100, fence=fence, on_batch=lambda _p, n: batches.append(n)
    )
    runner.catch_up(stop)
    assert sum(batches) == log_size(app)  # (by count: ids may have gaps)
    assert batches[:-1] == [100] * (len(batches) - 1) and len(fenced) == len(batches)
    assert fenced[0] == sorted(NAMES)
    assert_exactly_once(app, views)

    many_rolls(app, 50)
    positions = views.positions()
    lost.set()
    with pytest.raises(LeaseLost):
        runner.run(stop)
    assert views.positions() == positions, "a lost lease applies nothing"


@postgres_only
def test_two_leased_loops_split_the_views_and_a_lost_holder_stops_at_once(
    app: Questlog, views: ViewStore
) -> None:
    """Each view is written by one loop at a time; none after its lease connection was cut."""
    writes: list[tuple[str, str, float]] = []
    loops = {"a": PostgresLeases(app.config), "b": PostgresLeases(app.config)}
    stops = {name: threading.Event() for name in loops}
    running: dict[str, set[str]] = {"a": set(), "b": set()}

    def fake_runner(who: str) -> Callable[[tuple[type[View], ...], threading.Event], None]:
        def run(chosen: tuple[type[View], ...], until: threading.Event) -> None:
            names = [view.name for view in chosen]
            running[who] = set(names)
            try:
                while not until.is_set():
                    with views.write() as cursor:
                        fenced_at = time.monotonic()
                        loops[who].fence(cursor, names)
                    writes.extend((who, name, fenced_at) for name in names)
                    until.wait(0.02)
            finally:
                running[who] = set()

        return run

    threads = [
        threading.Thread(
            target=run_leased,
            args=(ALL_VIEWS, stops[who], loops[who], fake_runner(who)),
            kwargs={"retry": 0.2},
            daemon=True,
        )
        for who in ("a", "b")
    ]
    try:
        threads[0].start()
        wait_until(lambda: running["a"] == set(NAMES), 15, "loop a to run every view")
        threads[1].start()
        time.sleep(1)
        assert running["b"] == set(), "b ran views whose leases a holds"
        assert {who for who, _n, _t in writes} == {"a"}
        assert app.config.database_url is not None
        with psycopg.connect(app.config.database_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s, 10000)", (loops["a"].backend_pid,))
        cut = time.monotonic()
        wait_until(lambda: running["b"] == set(NAMES), 15, "loop b to take every view over")
        late = [w for w in writes if w[0] == "a" and w[2] > cut]
        assert late == [], "a wrote after its lease connection was cut"
        assert any(who == "b" for who, _n, _t in writes)
    finally:
        for event in stops.values():
            event.set()
        for thread in threads:
            thread.join(30)


@postgres_only
def test_a_real_runner_whose_lease_connection_is_cut_commits_no_batch_after_the_cut(
    app: Questlog, views: ViewStore
) -> None:
    """The lease connection lost, the runner stops writing at once."""
    play(app, rolls=100)
    batches: list[float] = []
    announced: list[frozenset[str]] = []
    stop = threading.Event()
    runner = threading.Thread(
        target=run_views,
        args=(app.config, None, stop),
        # A slow retry, so that the other holder below takes the freed leases first.
        kwargs={
            "retry": 2.0,
            "on_batch": lambda _p, _n: batches.append(time.monotonic()),
            "on_leases": announced.append,
        },
        daemon=True,
    )
    other = PostgresLeases(app.config)
    runner.start()
    try:
        wait_until(lambda: caught_up(app, views), 60, "the runner to catch up")
        pid = lease_holders(views, NAMES)["roll_log"]["pid"]  # type: ignore[index]
        assert app.config.database_url is not None
        with psycopg.connect(app.config.database_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s, 10000)", (pid,))
        cut = time.monotonic()
        wait_until(lambda: other.acquire(NAMES) == frozenset(NAMES), 15, "the leases to free")
        positions = views.positions()
        with Writer(app) as writer:
            wait_until(lambda: writer.saved >= 100, 60, "load to be written")
        wait_until(lambda: announced[-1] == frozenset(), 15, "the runner to give its views up")
        assert [at for at in batches if at > cut] == [], "a batch was committed after the cut"
        assert views.positions() == positions
        other.close()
        wait_until(lambda: caught_up(app, views), 60, "the runner to take its views back")
        assert_exactly_once(app, views)
    finally:
        other.close()
        stop.set()
        runner.join(60)


@pytest.mark.parametrize(
    "store_config", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
def test_embedded_workers_lease_too_one_runs_and_the_other_takes_over_when_it_stops(
    app: Questlog, views: ViewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every API process (or worker of one) embeds a ViewsWorker: only one of them runs a view."""
    monkeypatch.setenv("QUESTLOG_VIEWS_LEASE_RETRY", "0.3")
    play(app, rolls=100)
    first = ViewsWorker(app.config).start()
    second: ViewsWorker | None = None
    try:
        wait_until(lambda: caught_up(app, views), 60, "the first worker to catch up")
        second = ViewsWorker(app.config).start()
        with Writer(app) as writer:
            wait_until(lambda: writer.saved >= 50, 60, "load to be written")
            assert first.held == frozenset(NAMES) and second.held == frozenset()
            first.stop()
            wait_until(lambda: second.held == frozenset(NAMES), 15, "the second to take over")
            assert first.held == frozenset(), "a stopped worker still claims views"
            wait_until(lambda: writer.saved >= 100, 60, "load after the takeover")
        wait_until(lambda: caught_up(app, views), 60, "the second worker to catch up")
        assert_exactly_once(app, views)
        assert second.current_error is None and first.current_error is None
    finally:
        first.stop()
        if second is not None:
            second.stop()


@postgres_only
def test_two_runner_processes_each_view_run_by_one_and_no_event_applied_twice(
    app: Questlog, views: ViewStore
) -> None:
    """Two views processes on one schema; every lease held by exactly one."""
    play(app, rolls=300)
    processes = [start_runner(app.config), start_runner(app.config)]
    pids = {process.pid for process in processes}
    try:
        with Writer(app) as writer:
            held = wait_until(
                lambda: (h := holder_pids(views)) and all(h.values()) and h,
                30,
                "every view's lease to be held",
            )
            assert set(held.values()) <= pids
            wait_until(lambda: writer.saved >= 200, 60, "load to be written")
        status = view_status(views, app)
        assert {v["name"]: v["lease"]["pid"] > 0 for v in status["views"]} == dict.fromkeys(
            NAMES, True
        )
        wait_until(lambda: caught_up(app, views), 60, "the views to catch up")
        assert_exactly_once(app, views)
    finally:
        stop_all(processes)


@postgres_only
def test_a_killed_holder_is_taken_over_within_seconds_and_nothing_is_lost_or_doubled(
    app: Questlog, views: ViewStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """SIGKILL the holder under load, the other takes over."""
    play(app, rolls=300)
    first = start_runner(app.config, batch_size=20)
    processes = [first]
    try:
        wait_until(
            lambda: set(holder_pids(views).values()) == {first.pid}, 30, "the first to hold all"
        )
        second = start_runner(app.config, batch_size=20)
        processes.append(second)
        with Writer(app) as writer:
            wait_until(lambda: writer.saved >= 100, 60, "load to be written")
            os.kill(first.pid, signal.SIGKILL)
            first.wait(10)
            killed = time.monotonic()
            wait_until(
                lambda: set(holder_pids(views).values()) == {second.pid},
                15,
                "the second process to hold every lease",
            )
            takeover = time.monotonic() - killed
            wait_until(lambda: writer.saved >= 200, 60, "more load after the takeover")
        wait_until(lambda: caught_up(app, views), 60, "the views to catch up")
        assert_exactly_once(app, views)
        with capsys.disabled():
            print(f"\ntakeover after SIGKILL: {takeover:.2f} s")
    finally:
        stop_all(processes)


# -- SQLite lock files ------------------------------------------------------------------------


@sqlite_only
def test_a_second_runner_on_the_same_views_file_waits_for_the_lock(
    app: Questlog, views: ViewStore
) -> None:
    assert isinstance(views, SQLiteViewStore)
    many_rolls(app, 200)
    holder = FileLeases(Path(views.path))
    assert holder.acquire(NAMES) == frozenset(NAMES)
    process = start_runner(app.config)
    output = Output(process)
    waiting = f"running: none; waiting for the lease of: {', '.join(sorted(NAMES))}"
    try:
        wait_until(lambda: waiting in output.text(), 60, "the runner to say it waits")
        time.sleep(2)
        assert process.poll() is None, "the second runner stopped instead of waiting"
        positions = views.positions()
        assert all(positions.get(n, {}).get("position", 0) == 0 for n in NAMES)
        assert set(holder_pids(views).values()) == {os.getpid()}
        holder.close()
        wait_until(lambda: caught_up(app, views), 30, "the runner to take over and catch up")
        assert set(holder_pids(views).values()) == {process.pid}
        assert_exactly_once(app, views)
    finally:
        holder.close()
        stop_all([process])
    output.thread.join(10)
    assert f"running: {', '.join(sorted(NAMES))}" in output.lines
    assert set(holder_pids(views).values()) == {None}, "a stopped runner gave its leases up"


def test_a_bad_lease_retry_stops_the_runner_before_it_touches_anything(tmp_path: Path) -> None:
    config = StoreConfig(sqlite_path=tmp_path / "questlog.db")
    env = {**runner_env(config), "QUESTLOG_VIEWS_LEASE_RETRY": "never"}
    command = [sys.executable, "-m", "projections", "run"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "QUESTLOG_VIEWS_LEASE_RETRY" in done.stderr and "'never'" in done.stderr
    assert list(tmp_path.iterdir()) == []
