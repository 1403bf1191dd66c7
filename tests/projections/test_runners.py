"""The runners: embedded (a worker thread), the CLI, status; the log's poller on both stores
(on PostgreSQL ``PostgresRunner``, which opens its own application and fences every batch)."""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from eventsourcing.persistence import OperationalError

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.cli import projections
from projections.rebuild import view_status
from projections.runners import ViewsWorker
from projections.store import ViewStore, open_view_store, views_path_for
from projections.view import ANY
from projections.views import ALL_VIEWS
from projections.views.exhaustion import exhaustion_history
from projections.views.roll_log import RollLog, roll_log
from tests.conftest import StoreFactory
from tests.projections.conftest import last_event, log_size
from tests.projections.scenarios import calendar_board_match, many_rolls, quest_calendar_week

NAMES = [view.name for view in ALL_VIEWS]


def test_the_embedded_worker_follows_the_log(app: Questlog, views: ViewStore) -> None:
    worker = ViewsWorker(app.config, batch_size=100).start()
    try:
        match = calendar_board_match(app)
        assert views.wait_for(last_event(app), NAMES, timeout=10)
        assert len(exhaustion_history(views, str(match))["items"]) == 4
        # A single new roll reaches the views well within the lag target of one second.
        app.dice.roll(match, notation="d20", purpose="initiative")
        started = time.monotonic()
        assert views.wait_for(last_event(app), NAMES, timeout=5)
        assert time.monotonic() - started < 1.0
        assert roll_log(views, purpose="initiative")["items"][0]["notation"] == "1d20"
    finally:
        worker.stop()
    assert not worker.thread.is_alive()
    assert worker.last_error is None
    assert views.positions()["roll_log"]["applied"] == log_size(app)


def test_the_embedded_worker_starts_again_after_a_failure(
    app: Questlog, views: ViewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    many_rolls(app, 50)
    original = RollLog._handlers[ANY]
    failures: list[int] = []

    def fails_once(view: Any, event: Any) -> None:
        if event.id == 30 and not failures:
            failures.append(event.id)
            raise RuntimeError("connection lost")
        original(view, event)

    monkeypatch.setitem(RollLog._handlers, ANY, fails_once)
    worker = ViewsWorker(app.config, batch_size=10, retry_after=0.05).start()
    try:
        assert views.wait_for(last_event(app), NAMES, timeout=10)
    finally:
        worker.stop()
    assert failures == [30]
    assert isinstance(worker.last_error, RuntimeError)
    assert {views.positions()[name]["applied"] for name in NAMES} == {log_size(app)}
    assert len(roll_log(views, limit=1000)["items"]) == 50


def test_status_of_a_views_store_no_process_has_run_lists_every_view_at_zero(
    app: Questlog,
) -> None:
    """Before any views process has made its tables, the status says so instead of failing."""
    quest_calendar_week(app)
    store = open_view_store(app.config)
    try:
        report = view_status(store, app)
    finally:
        store.close()
    head = app.recorder.max_notification_id()
    assert [v["name"] for v in report["views"]] == [view.name for view in ALL_VIEWS]
    assert {(v["position"], v["lag"], v["updated_at"]) for v in report["views"]} == {
        (0, head, None)
    }


def test_status_reports_position_head_and_lag(app: Questlog, views: ViewStore) -> None:
    quest_calendar_week(app)
    report = view_status(views, app)
    head = app.recorder.max_notification_id()
    assert report["head"] == head
    assert [v["name"] for v in report["views"]] == NAMES
    assert {(v["position"], v["lag"], v["rebuilding"]) for v in report["views"]} == {
        (0, head, None)
    }


def _env(config: StoreConfig) -> dict[str, str | None]:
    if config.kind == "postgres":
        return {
            "QUESTLOG_DATABASE_URL": config.database_url,
            "QUESTLOG_PG_SCHEMA": config.postgres_schema,
            "QUESTLOG_DB": None,
            "QUESTLOG_VIEWS_DB": None,
        }
    return {
        "QUESTLOG_DB": str(config.sqlite_path),
        "QUESTLOG_DATABASE_URL": None,
        "QUESTLOG_VIEWS_DB": None,
    }


def test_the_cli_rebuilds_a_view_and_shows_the_status(app: Questlog, views: ViewStore) -> None:
    quest_calendar_week(app)
    head = app.recorder.max_notification_id()
    cli = CliRunner()
    rebuilt = cli.invoke(projections, ["rebuild", "roll_log"], env=_env(app.config))
    assert rebuilt.exit_code == 0, rebuilt.output
    assert f"roll_log: rebuilt and swapped in at position {head}" in rebuilt.output
    shown = cli.invoke(projections, ["status"], env=_env(app.config))
    assert shown.exit_code == 0, shown.output
    assert f"log head {head}" in shown.output
    assert "roll_log" in shown.output and "debt_ledger" in shown.output
    assert views.positions()["roll_log"]["position"] == head
    assert views.positions()["debt_ledger"]["position"] == 0
    refused = cli.invoke(projections, ["rebuild", "nonsense"], env=_env(app.config))
    assert refused.exit_code == 2


def test_the_sqlite_views_live_beside_the_event_store(tmp_path: Path) -> None:
    assert views_path_for(tmp_path / "questlog.db") == tmp_path / "questlog.views.db"
    assert views_path_for(tmp_path / "log") == tmp_path / "log.views.db"


def connections_named(url: str, *names: str) -> int:
    """How many PostgreSQL backends carry one of these application names."""
    with psycopg.connect(url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = ANY(%s)",
            (list(names),),
        ).fetchone()
    return int(row[0]) if row else 0


@pytest.mark.postgres
def test_a_views_runner_that_fails_while_starting_leaves_no_connection_open(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A review found: with its backends terminated, the embedded worker restarted its runner
    # again and again, and each failed start kept the pools it had opened (90 connections).
    from projections import runners
    from projections.runners import PostgresRunner

    def cut(*_args: Any, **_kwargs: Any) -> None:
        raise OperationalError("the connection was cut while opening the views")

    factory = StoreFactory("postgres", tmp_path, postgres_url)
    config = factory.new()
    try:
        Questlog(config).close()  # the store's tables exist
        monkeypatch.setattr(runners, "open_view_store", cut)
        schema = str(config.postgres_schema)
        names = (f"questlog/{schema}",)
        runner = PostgresRunner(config, ALL_VIEWS)
        for _ in range(3):
            with pytest.raises(OperationalError):
                runner.run(threading.Event())
        deadline = time.monotonic() + 5
        while connections_named(postgres_url, *names) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert connections_named(postgres_url, *names) == 0
    finally:
        factory.remove_all()


def test_a_failing_worker_logs_a_line_each_time_and_a_traceback_now_and_then(
    app: Questlog, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A review found: a database that stays away made the worker log a full traceback every
    # retry, hundreds in a few minutes.
    failures: list[int] = []

    def fails(*_args: Any, **_kwargs: Any) -> None:
        failures.append(1)
        raise RuntimeError("the database went away")

    monkeypatch.setattr("projections.runners.run_views", fails)
    caplog.set_level(logging.ERROR, logger="projections.runners")
    worker = ViewsWorker(app.config, retry_after=0.01).start()
    try:
        deadline = time.monotonic() + 10
        while len(failures) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        worker.stop()
    lines = [r for r in caplog.records if "the views runner failed" in r.getMessage()]
    assert len(lines) >= 20
    assert "RuntimeError: the database went away" in lines[0].getMessage()
    assert sum(1 for r in lines if r.exc_info) == 1
