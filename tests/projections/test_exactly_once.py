"""Exactly once: restarts, failed batches, killed processes, concurrent runners and rebuilds.

Every test ends the same way: the views hold exactly what one clean pass over the log gives (a
reference build into ``__ref`` tables beside them), and each view has applied each event once.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from domain.service.questlog import Questlog
from projections.batches import Target, catch_up
from projections.rebuild import rebuild_with
from projections.runners import ViewsWorker
from projections.store import ViewStore, position_in
from projections.view import ANY
from projections.views import ALL_VIEWS
from projections.views.roll_log import RollLog
from tests.projections.conftest import dump, last_event, log_size, sync
from tests.projections.scenarios import calendar_board_match, many_rolls, quest_calendar_week

REF = "__ref"


def reference(app: Questlog, store: ViewStore) -> dict[str, Any]:
    """The views built in one clean pass, into ``__ref`` tables."""
    with store.write() as cursor:
        for view in ALL_VIEWS:
            store.drop(cursor, view, REF)
            store.create(cursor, view, REF, indexes=False)
    sync(app, store, suffix=REF, batch_size=10_000)
    return dump(store, suffix=REF)


def assert_exactly_once(app: Questlog, store: ViewStore) -> None:
    """Every view is at the head, has applied every event once, and equals a clean build."""
    head = last_event(app)
    positions = store.positions()
    events = log_size(app)
    for view in ALL_VIEWS:
        assert position_in(positions[view.name]) == head, view.name
        assert positions[view.name]["applied"] == events, view.name
    assert dump(store) == reference(app, store)


def play(app: Questlog, rolls: int = 600) -> None:
    """Both scripted campaigns and a campaign of many server rolls."""
    quest_calendar_week(app)
    calendar_board_match(app)
    many_rolls(app, rolls)


def test_a_restart_in_the_middle_of_catch_up_resumes_after_the_last_batch(
    app: Questlog, views: ViewStore
) -> None:
    play(app)
    stop = threading.Event()
    batches: list[int] = []

    def stop_after_three(position: int, _count: int) -> None:
        batches.append(position)
        if len(batches) == 3:
            stop.set()

    targets = [Target(view) for view in ALL_VIEWS]
    catch_up(
        app.recorder,
        app.mapper,
        views,
        targets,
        batch_size=50,
        stop=stop,
        on_batch=stop_after_three,
    )
    positions = views.positions()
    assert {positions[v.name]["position"] for v in ALL_VIEWS} == {batches[-1]}
    assert {positions[v.name]["applied"] for v in ALL_VIEWS} == {150}
    assert batches[-1] < app.recorder.max_notification_id()
    sync(app, views, batch_size=70)
    assert_exactly_once(app, views)


def test_a_failed_batch_applies_nothing_and_is_applied_once_later(
    app: Questlog, views: ViewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    play(app)
    fail_at = 260
    original = RollLog._handlers[ANY]

    def failing(view: Any, event: Any) -> None:
        if event.id == fail_at:
            raise RuntimeError("the disk is full")
        original(view, event)

    monkeypatch.setitem(RollLog._handlers, ANY, failing)
    with pytest.raises(RuntimeError, match="disk is full"):
        sync(app, views, batch_size=100)
    assert gc.isenabled(), "the collector, paused for the batch, is back"
    positions = views.positions()
    assert {positions[v.name]["applied"] for v in ALL_VIEWS} == {200}
    committed = positions["roll_log"]["position"]
    assert all(row["event_id"] <= committed for row in dump(views)["rolls"])
    monkeypatch.setitem(RollLog._handlers, ANY, original)
    sync(app, views, batch_size=100)
    assert_exactly_once(app, views)


def _runner_env(app: Questlog) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("QUESTLOG_")}
    config = app.config
    if config.kind == "postgres":
        assert config.database_url is not None
        env["QUESTLOG_DATABASE_URL"] = config.database_url
        env["QUESTLOG_PG_SCHEMA"] = str(config.postgres_schema)
    else:
        env["QUESTLOG_DB"] = str(config.sqlite_path)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def test_a_runner_process_killed_between_batches_skips_nothing_and_repeats_nothing(
    app: Questlog, views: ViewStore
) -> None:
    play(app, rolls=4000)
    head = app.recorder.max_notification_id()
    command = [sys.executable, "-m", "projections", "run", "--batch-size", "5"]
    process = subprocess.Popen(command, env=_runner_env(app), stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            reached = views.positions().get("roll_log", {}).get("position", 0)
            if reached >= 500:
                break
            time.sleep(0.005)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        if process.poll() is None:
            process.kill()
    reached = views.positions()["roll_log"]["position"]
    assert 500 <= reached < head, "the runner was not killed in the middle of its catch-up"
    sync(app, views, batch_size=300)
    assert_exactly_once(app, views)


def test_two_runners_at_once_apply_each_event_once(app: Questlog, views: ViewStore) -> None:
    play(app, rolls=1500)
    errors: list[BaseException] = []

    def runner(batch_size: int) -> None:
        try:
            sync(app, views, batch_size=batch_size)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=runner, args=(size,)) for size in (40, 70)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert_exactly_once(app, views)


def test_a_rebuild_equals_the_incremental_result(app: Questlog, views: ViewStore) -> None:
    play(app, rolls=300)
    app.dice.rotate_seed(next(iter(app.reading.list_campaigns(limit=3)[0]))[1].originator_id)
    sync(app, views, batch_size=7)
    incremental = dump(views)
    swapped = rebuild_with(app, views, ALL_VIEWS, batch_size=1000)
    assert set(swapped.values()) == {app.recorder.max_notification_id()}
    assert dump(views) == incremental
    assert not any(name.endswith("__new") for name in views.positions())
    assert_exactly_once(app, views)


def test_a_rebuild_swaps_in_while_the_embedded_runner_keeps_going(
    app: Questlog, views: ViewStore
) -> None:
    play(app, rolls=1000)
    worker = ViewsWorker(app.config, batch_size=50).start()
    try:
        progress: list[tuple[int, int]] = []
        many_rolls(app, 300, per_save=20)
        rebuild_with(
            app, views, (RollLog,), batch_size=200, progress=lambda p, h: progress.append((p, h))
        )
        many_rolls(app, 200, per_save=20)
        assert views.wait_for(last_event(app), [v.name for v in ALL_VIEWS], timeout=20)
    finally:
        worker.stop()
    assert worker.last_error is None
    assert progress and progress[-1][0] >= progress[0][1]
    positions = views.positions()
    assert positions["roll_log"]["applied"] == log_size(app)
    assert dump(views) == reference(app, views)
