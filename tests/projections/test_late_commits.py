"""Appends take no table lock, and the views still apply every event exactly once.

Without the lock an append that was given an early notification id can commit after appends with
later ids, which a reader by notification id would then pass for good. Each test here holds such
an append open, with real events (a campaign and its rolls, stored by another store and inserted
as the recorder inserts them), while a transaction with a later id commits and the views apply
it. The held one commits (or aborts) only then, and every view must hold each event exactly once
and equal a clean build; one variant kills the views process in the middle.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from uuid import UUID

import psycopg
import pytest

from domain.facade import LogPosition
from domain.service.questlog import Questlog
from projections.runners import PostgresRunner
from projections.store import ViewStore, open_view_store, position_in
from projections.views import ALL_VIEWS
from projections.views.roll_log import RollLog
from tests.application.test_log_order import connect, mark_writer
from tests.conftest import StoreFactory
from tests.projections.conftest import last_event
from tests.projections.scenarios import many_rolls
from tests.projections.test_exactly_once import _runner_env, assert_exactly_once

pytestmark = [pytest.mark.postgres, pytest.mark.holds_transactions]
RUNS = 3
"""Each variant runs this many times in the suite (and 21 in a row by hand: docs/scaling.md)."""
Row = tuple[object, ...]


@pytest.fixture
def app(factory: StoreFactory) -> Iterator[Questlog]:
    opened = Questlog(factory.new())
    yield opened
    opened.close()


@pytest.fixture
def campaigns(factory: StoreFactory) -> Callable[[int], list[Row]]:
    """Real events of a new campaign with some rolls, stored by a scratch store: the rows to
    insert into the test's store as ``(originator_id, version, topic, state)``."""
    scratch = Questlog(factory.new())

    def make(rolls: int) -> list[Row]:
        campaign = scratch.campaigns.create_campaign(game="quest-calendar", name="late").campaign_id
        for number in range(rolls):
            scratch.dice.roll(campaign, notation="d20", purpose=f"late {number}")
        stored = scratch.recorder.select_events(campaign)
        return [(s.originator_id, s.originator_version, s.topic, s.state) for s in stored]

    yield make  # type: ignore[misc]
    scratch.close()


def insert(connection: psycopg.Connection[tuple[object, ...]], rows: list[Row]) -> list[int]:
    """Insert events as the recorder does (a new notification id each), not committing."""
    with connection.cursor() as cursor:
        cursor.executemany(
            "INSERT INTO questlog_events (originator_id, originator_version, topic, state) "
            "VALUES (%s, %s, %s, %s) RETURNING notification_id",
            rows,
            returning=True,
        )
        ids = []
        while True:
            ids.append(int(cursor.fetchone()[0]))  # type: ignore[index]
            if not cursor.nextset():
                return ids


def roll_campaigns(views: ViewStore) -> set[str]:
    with views.read() as cursor:
        found = views.rows(cursor, "SELECT DISTINCT campaign_id FROM {rolls}")
    return {str(row["campaign_id"]) for row in found}


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def applied_up_to(views: ViewStore, position: LogPosition) -> bool:
    current = views.positions()
    return all(position_in(current.get(view.name)) >= position for view in ALL_VIEWS)


def hold_an_early_id(
    app: Questlog, views: ViewStore, campaigns: Callable[[int], list[Row]]
) -> tuple[psycopg.Connection[tuple[object, ...]], UUID, list[int]]:
    """An append given early notification ids, left open while a transaction with later ids
    commits and the views apply it. Returns the open connection, its campaign and its ids."""
    early, late = campaigns(3), campaigns(2)
    older = connect(app.config, autocommit=False)  # begins first: the older transaction id
    mark_writer(older, app)
    older.execute("SELECT pg_current_xact_id()")
    held = connect(app.config, autocommit=False)
    mark_writer(held, app)
    try:
        held_ids = insert(held, early)  # the earlier notification ids, the newer transaction id
        later_ids = insert(older, late)
        older.commit()
    finally:
        older.close()
    try:
        return held, *wait_past(app, views, early, held_ids, later_ids)
    except BaseException:
        held.close()
        raise


def wait_past(
    app: Questlog, views: ViewStore, early: list[Row], held_ids: list[int], later_ids: list[int]
) -> tuple[UUID, list[int]]:
    assert max(held_ids) < min(later_ids)
    later = app.recorder.position_at(max(later_ids))  # type: ignore[attr-defined]
    wait_until(lambda: applied_up_to(views, later), "the views to apply the later ids")
    # The views went past the held ids (a reader by id would never come back for them) ...
    assert all(
        position_in(views.positions()[v.name]).notification > max(held_ids) for v in ALL_VIEWS
    )
    # ... and hold nothing of the open transaction.
    assert str(UUID(str(early[0][0]))) not in roll_campaigns(views)
    many_rolls(app, 20)  # appends after it commit meanwhile (readable once it ends)
    return UUID(str(early[0][0])), held_ids


def run_views(app: Questlog) -> tuple[threading.Event, threading.Thread, list[BaseException]]:
    stop = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            PostgresRunner(app.config, ALL_VIEWS, batch_size=7, poll_interval=0.01).run(stop)
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return stop, thread, errors


@pytest.mark.parametrize("run", range(RUNS))
@pytest.mark.parametrize("outcome", ["commit", "rollback"])
def test_an_append_that_ends_late_is_applied_exactly_once_or_never(
    app: Questlog,
    views: ViewStore,
    campaigns: Callable[[int], list[Row]],
    outcome: str,
    run: int,
) -> None:
    many_rolls(app, 30)
    stop, thread, errors = run_views(app)
    try:
        # Started (its tables made) before the append is held: see the kill variant.
        wait_until(lambda: applied_up_to(views, last_event(app)), "the runner to start")
        held, campaign, _ = hold_an_early_id(app, views, campaigns)
        getattr(held, outcome)()  # it commits, or it aborts
        held.close()
        wait_until(lambda: applied_up_to(views, last_event(app)), "the views to catch up")
    finally:
        stop.set()
        thread.join(20)
    assert errors == []
    assert (str(campaign) in roll_campaigns(views)) == (outcome == "commit")
    assert_exactly_once(app, views)


@pytest.mark.parametrize("run", range(RUNS))
def test_a_views_process_killed_while_an_append_is_held_skips_nothing(
    app: Questlog, views: ViewStore, campaigns: Callable[[int], list[Row]], run: int
) -> None:
    many_rolls(app, 30)
    command = [sys.executable, "-m", "projections", "run", "--batch-size", "3"]
    first = subprocess.Popen(command, env=_runner_env(app), stdout=subprocess.DEVNULL)
    try:
        # Started (its tables made) before the append is held: a process that opens the store
        # waits for the events table's share lock, which an open insert holds back.
        wait_until(lambda: applied_up_to(views, last_event(app)), "the first process")
        held, campaign, _ = hold_an_early_id(app, views, campaigns)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        held.commit()
        held.close()
        many_rolls(app, 20)
        second = subprocess.Popen(command, env=_runner_env(app), stdout=subprocess.DEVNULL)
        try:
            wait_until(lambda: applied_up_to(views, last_event(app)), "the second process")
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(20)
    finally:
        if first.poll() is None:
            first.kill()
    assert str(campaign) in roll_campaigns(views)
    assert RollLog.name in views.positions()
    assert_exactly_once(app, views)


@pytest.mark.parametrize("events_had_transactions", [False, True])
def test_views_an_earlier_release_tracked_go_on_exactly_once_after_the_upgrade(
    factory: StoreFactory, events_had_transactions: bool
) -> None:
    """A store and views made by an earlier release, whose appends took a table lock: their
    positions are notification ids alone (and in the earliest, the events had no transaction ids
    either). After the upgrade
    the views resume where they were and hold each event once, and every campaign audits and its
    checkpoints signed before the upgrade still verify."""
    config = factory.new()
    app = Questlog(config)
    views = open_view_store(config)
    try:
        views.ensure(ALL_VIEWS)
        first = many_rolls(app, 40)
        _, signed = app.reading.head_checkpoint(first)
        wait_until(lambda: sync_once(app, views) == 0, "the views to catch up")
        before = {name: row["position"] for name, row in views.positions().items()}
        second = many_rolls(app, 10)  # after the views' positions: not applied by the old views
        app.close()
        tracked = max(before.values())
        with connect(config, autocommit=False) as shell:  # as the earlier release left them
            shell.execute("ALTER TABLE view_positions DROP COLUMN transaction_id")
            if events_had_transactions:
                # An insert retried in its transaction after a conflict kept the transaction
                # id of its failed try: an older transaction id than the event before it.
                shell.execute(
                    "UPDATE questlog_events SET transaction_id = ((SELECT transaction_id::text"
                    "::bigint FROM questlog_events WHERE notification_id = %s) - 1)::text::xid8 "
                    "WHERE notification_id = (SELECT min(notification_id) FROM questlog_events "
                    "WHERE notification_id > %s)",
                    (tracked, tracked),
                )
            else:
                shell.execute("ALTER TABLE questlog_events DROP COLUMN transaction_id")
        app = Questlog(config)  # upgrades the events table
        views.ensure(ALL_VIEWS)  # places the positions in the log's order
        after = views.positions()
        assert {name: row["position"] for name, row in after.items()} == before
        assert all(row["transaction_id"] is not None for row in after.values())
        third = many_rolls(app, 20)
        wait_until(lambda: sync_once(app, views) == 0, "the views to catch up again")
        assert_exactly_once(app, views)
        assert all(app.reading.audit(campaign).ok for campaign in (first, second, third))
        assert app.reading.check_checkpoint(first, signed).ok
        _, now = app.reading.head_checkpoint(second)
        assert app.reading.check_checkpoint(second, now).ok
    finally:
        views.close()
        app.close()


def sync_once(app: Questlog, views: ViewStore) -> int:
    """One catch-up pass; how many events it applied."""
    from tests.projections.conftest import sync

    return sync(app, views)


def test_a_live_stream_announces_no_event_a_view_cannot_see_yet(app: Questlog) -> None:
    """While an older transaction still writes, an event committed after it is not yet in the
    log's readable order: the stream holds it back, and sends it once it can be read."""
    from webapi.http.live import Live

    live = Live(app, cap=4)
    campaign = app.campaigns.create_campaign(game="quest-calendar", name="live").campaign_id
    assert [v for v, _ in live.messages(campaign, 0, 0, json.dumps)] == [1]
    older = connect(app.config, autocommit=False)
    try:
        mark_writer(older, app)  # an append writing: the horizon stays before it
        older.execute("SELECT pg_current_xact_id()")
        app.dice.roll(campaign, notation="d20", purpose="behind the horizon")
        assert app.campaign(campaign).version == 2  # committed, read by version ...
        assert live.messages(campaign, 1, 1, json.dumps) == []  # ... but not announced
    finally:
        older.rollback()
        older.close()
    wait_until(lambda: app.readable_version(campaign) == 2, "the roll to be readable")
    assert [v for v, _ in live.messages(campaign, 1, 2, json.dumps)] == [2]


def test_another_client_s_open_transaction_holds_neither_views_nor_streams(
    app: Questlog,
) -> None:
    """Another application's write transaction left open on the same server (an insert into a
    temporary table, idle in its transaction) is not an append: the views apply the rolls
    committed meanwhile, and the live stream announces them, at once."""
    from webapi.http.live import Live

    views = open_view_store(app.config)
    views.ensure(ALL_VIEWS)
    live = Live(app, cap=50)
    campaign = app.campaigns.create_campaign(game="quest-calendar", name="shared").campaign_id
    stranger = connect(app.config, autocommit=False)
    try:
        stranger.execute("CREATE TEMPORARY TABLE scratch (n int)")
        stranger.execute("INSERT INTO scratch VALUES (1)")
        for number in range(20):
            app.dice.roll(campaign, notation="d20", purpose=f"beside a stranger {number}")
        assert sync_once(app, views) == 21  # the campaign's creation and its 20 rolls
        assert str(campaign) in roll_campaigns(views)
        announced = [v for v, _ in live.messages(campaign, 0, 21, json.dumps)]
        assert announced == list(range(1, 22))
    finally:
        stranger.rollback()
        stranger.close()
        views.close()
