"""The eventsourcing behaviour that each override in ``domain.storage.es_compat`` relies on.

Each test fails if an upgrade of eventsourcing (or psycopg_pool) changes what the compatibility
module reaches into: then the override must be looked at again, before a lost commit, a version
conflict or a read retry behaves differently (docs/reliability.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from uuid import uuid4

import psycopg
import psycopg_pool
import pytest
from eventsourcing import utils as es_utils
from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.domain import Aggregate
from eventsourcing.persistence import IntegrityError, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteDatastore
from eventsourcing.utils import get_topic
from psycopg.pq import TransactionStatus

from domain.model.es_aggregates import create_aggregate, drop_pending_events
from domain.storage.es_compat import (
    PostgresRecorderHooks,
    SQLiteRecorderHooks,
    on_new_connections,
    sweep_on_dead_connection,
    translated_errors,
    undecorated,
)
from domain.storage.retries import RETRIED_READS


def _stored(version: int = 1) -> StoredEvent:
    return StoredEvent(originator_id=uuid4(), originator_version=version, topic="t", state=b"{}")


# -- the retry decorator ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["insert_events", *RETRIED_READS])
def test_postgres_methods_are_wrapped_by_a_retry_decorator_exposing_wrapped(name: str) -> None:
    decorated = getattr(PostgresApplicationRecorder, name)

    assert undecorated(PostgresApplicationRecorder, name) is decorated.__wrapped__
    assert decorated.__wrapped__ is not decorated


def test_the_decorated_insert_retries_and_the_undecorated_one_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(es_utils, "sleep", lambda _seconds: None)
    attempts: list[int] = []

    class Datastore:
        enable_db_functions = False
        lock_timeout = 10
        schema = "public"

        def get_connection(self) -> Any:
            attempts.append(1)
            raise OperationalError("connection lost")

    recorder: Any = object.__new__(PostgresRecorderHooks)
    recorder.datastore = Datastore()

    with pytest.raises(OperationalError):
        PostgresApplicationRecorder.insert_events(recorder, [_stored()])
    retried = len(attempts)
    attempts.clear()
    with pytest.raises(OperationalError):
        PostgresRecorderHooks.insert_events(recorder, [_stored()])

    assert (retried, len(attempts)) == (10, 1)


# -- the pipelined insert -----------------------------------------------------------------------


class _Cursor:
    statusmessage = "INSERT 0 1"

    def __init__(self, log: list[Any]) -> None:
        self.log = log

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> None:
        self.log.append(("execute", query, kwargs.get("prepare")))

    def fetchall(self) -> list[dict[str, int]]:
        return [{"notification_id": 7}]


class _Connection:
    """A psycopg connection in autocommit that answers the pipeline's one Sync."""

    def __init__(self, log: list[Any], conflict: bool) -> None:
        self.log = log
        self.conflict = conflict
        self.info = SimpleNamespace(transaction_status=TransactionStatus.IDLE)

    def __enter__(self) -> _Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    @contextmanager
    def pipeline(self) -> Iterator[SimpleNamespace]:
        yield SimpleNamespace()
        self.log.append("sync")
        if self.conflict:
            # The server skipped every statement after the failed insert; BEGIN stays open.
            self.info.transaction_status = TransactionStatus.INERROR
            raise IntegrityError("duplicate key (originator_id, originator_version)")

    def cursor(self) -> _Cursor:
        return _Cursor(self.log)

    def execute(self, query: Any, **kwargs: Any) -> None:
        self.log.append(("connection", query))
        self.info.transaction_status = TransactionStatus.IDLE


class _ProbeRecorder(PostgresRecorderHooks):
    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        cursor.log.append(("side rows", kwargs))


def _probe(log: list[Any], *, conflict: bool = False) -> _ProbeRecorder:
    class Datastore:
        enable_db_functions = False
        lock_timeout = 10
        schema = "public"

        def get_connection(self) -> _Connection:
            return _Connection(log, conflict)

    recorder: Any = object.__new__(_ProbeRecorder)
    recorder.datastore = Datastore()
    recorder.events_table_name = "events"
    recorder.channel_name = "channel"
    recorder.insert_events_statement = "INSERT-EVENTS"
    recorder.construct_pg_stored_event = lambda *fields: fields
    return recorder  # type: ignore[no-any-return]


def _steps(log: list[Any]) -> list[Any]:
    return [
        entry if isinstance(entry, str) else entry[1] if entry[0] != "side rows" else entry[0]
        for entry in log
    ]


def test_the_insert_is_one_round_trip_from_begin_to_commit_with_side_rows_after_events() -> None:
    log: list[Any] = []

    ids = _probe(log).insert_events([_stored()], attempt="a1")

    assert ids == [7]
    steps = _steps(log)
    # No table lock, no NOTIFY; the lock timeout bounds the insert's own waits, and the writer
    # mark (log_order.writer_mark), which the readers' horizon waits for, comes last.
    prologue = "SELECT set_config('lock_timeout', %s, true), pg_advisory_xact_lock_shared(%s, %s)"
    assert steps == ["BEGIN", prologue, "INSERT-EVENTS", "side rows", "COMMIT", "sync"]
    assert ("side rows", {"attempt": "a1"}) in log
    assert all(
        entry[2] is False
        for entry in log
        if entry[0] == "execute" and entry[1] in ("BEGIN", prologue, "COMMIT")
    )


def test_a_version_conflict_raises_integrity_error_and_rolls_the_transaction_back() -> None:
    log: list[Any] = []

    with pytest.raises(IntegrityError):
        _probe(log, conflict=True).insert_events([_stored()], attempt="a1")

    assert _steps(log)[-2:] == ["sync", "ROLLBACK"]


def _held_probe(log: list[Any], *, conflict: bool = False) -> _ProbeRecorder:
    recorder = _probe(log, conflict=conflict)
    held = _Connection(log, conflict)
    held.info.transaction_status = TransactionStatus.INTRANS
    recorder.open_transaction = lambda: held  # type: ignore[method-assign]
    return recorder


def test_an_insert_in_a_held_transaction_starts_at_a_savepoint_and_commits_it() -> None:
    log: list[Any] = []

    ids = _held_probe(log).insert_events([_stored()], attempt="a1")

    assert ids == [7]
    steps = _steps(log)
    assert steps[0] == "SAVEPOINT questlog_insert" and "BEGIN" not in steps
    assert steps[-2:] == ["COMMIT", "sync"]


def test_a_conflict_in_a_held_transaction_rolls_the_whole_transaction_back() -> None:
    """Back to the savepoint alone would release the writer mark and keep the failed insert's
    transaction id, which the retry's rows would carry behind the readers' horizon."""
    log: list[Any] = []

    with pytest.raises(IntegrityError):
        _held_probe(log, conflict=True).insert_events([_stored()], attempt="a1")

    assert _steps(log)[-2:] == ["sync", "ROLLBACK"]


def test_driver_errors_in_a_held_transaction_are_raised_as_the_librarys() -> None:
    with pytest.raises(IntegrityError), translated_errors():
        raise psycopg.errors.UniqueViolation("duplicate key")
    with pytest.raises(OperationalError), translated_errors():
        raise psycopg.errors.LockNotAvailable("lock timeout")


def test_an_insert_that_does_not_hold_its_campaigns_locks_takes_them_first_in_the_prologue() -> (
    None
):
    log: list[Any] = []
    recorder = _probe(log)
    recorder.originator_locks = lambda stored: [("pg_advisory_xact_lock(%s)", (5,))]  # type: ignore[method-assign]

    recorder.insert_events([_stored()], attempt="a1")

    assert (
        _steps(log)[1] == "SELECT pg_advisory_xact_lock(%s), set_config('lock_timeout', %s, true), "
        "pg_advisory_xact_lock_shared(%s, %s)"
    )
    held: list[Any] = []
    nested = _held_probe(held)
    nested.originator_locks = lambda stored: [("pg_advisory_xact_lock(%s)", (5,))]  # type: ignore[method-assign]
    nested.insert_events([_stored()], attempt="a1")
    assert "pg_advisory_xact_lock(" not in _steps(held)[1]  # held already: not asked again
    assert "pg_advisory_xact_lock_shared(" in _steps(held)[1]  # the writer mark: every insert


# -- SQLite -------------------------------------------------------------------------------------


class _SQLiteProbe(SQLiteRecorderHooks):
    seen: list[int]

    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        cursor.execute(f"SELECT COUNT(*) FROM {self.events_table_name}")
        self.seen.append(cursor.fetchone()[0])


def test_sqlite_calls_the_hook_after_inserting_the_events_in_their_transaction(
    tmp_path: Path,
) -> None:
    recorder = _SQLiteProbe(SQLiteDatastore(str(tmp_path / "probe.db")))
    recorder.seen = []
    recorder.create_table()
    first = _stored()

    recorder.insert_events([first])
    with pytest.raises(IntegrityError):
        recorder.insert_events([first])

    assert recorder.seen == [1]


# -- the connection pool ------------------------------------------------------------------------


def test_the_pool_keeps_its_configure_callback_and_runs_ours_after_it() -> None:
    calls: list[str] = []
    pool = psycopg_pool.ConnectionPool(
        "postgresql://nowhere/none", configure=lambda _c: calls.append("pool"), open=False
    )

    on_new_connections(pool, lambda _c: calls.append("ours"))
    pool._configure(object())

    assert calls == ["pool", "ours"]


def test_the_pool_runs_its_configure_callback_on_each_new_connection() -> None:
    source = psycopg_pool.ConnectionPool._connect.__code__

    assert "_configure" in source.co_names


def test_the_pool_checks_a_connection_before_use_with_its_check_attribute() -> None:
    source = psycopg_pool.ConnectionPool._check_connection.__code__

    assert "_check" in source.co_names
    assert "_getconn_with_check_loop" in psycopg_pool.ConnectionPool.getconn.__code__.co_names


def test_a_dead_connection_makes_the_pool_sweep_its_idle_ones() -> None:
    swept: list[str] = []
    pool = psycopg_pool.ConnectionPool("postgresql://nowhere/none", open=False)
    pool.check = lambda: swept.append("swept")  # type: ignore[method-assign]
    sweep_on_dead_connection(pool)

    class Dead:
        closed = True

    with pytest.raises(Exception):  # noqa: B017 - whatever the pool's own check raises
        pool._check(Dead())
    assert swept == ["swept"]
    assert callable(psycopg_pool.ConnectionPool.check)


# -- the application's save ---------------------------------------------------------------------


class _Dog(Aggregate):
    def __init__(self, name: str) -> None:
        self.name = name


def test_record_stores_a_processing_event_with_its_saved_kwargs_and_returns_recordings() -> None:
    app: Application[Any] = Application(env={"AGGREGATE_CACHE_MAXSIZE": "10"})
    seen: dict[str, Any] = {}
    insert = app.recorder.insert_events

    def spy(stored_events: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        return insert(stored_events, **kwargs)

    app.recorder.insert_events = spy  # type: ignore[method-assign]
    dog = _Dog("Rex")
    processing_event: ProcessingEvent[Any] = ProcessingEvent()
    processing_event.events.extend(dog.collect_events())
    processing_event.aggregates[dog.id] = dog
    processing_event.saved_kwargs.update(attempt="a1")

    recordings = app._record(processing_event)

    assert [r.domain_event.originator_id for r in recordings] == [dog.id]
    assert seen["attempt"] == "a1"
    assert app.repository.get(dog.id).name == "Rex"


def test_the_repository_cache_gets_puts_and_raises_key_error_when_missing() -> None:
    app: Application[Any] = Application(env={"AGGREGATE_CACHE_MAXSIZE": "10"})
    cache = app.repository.cache
    dog = _Dog("Rex")

    assert cache is not None
    with pytest.raises(KeyError):
        cache.get(dog.id)
    cache.put(dog.id, dog)
    assert cache.get(dog.id) is dog


def test_notify_and_take_snapshots_are_still_the_save_steps_after_record() -> None:
    steps: list[str] = []

    class Probe(Application[Any]):
        def _record(self, processing_event: Any) -> Any:
            steps.append("record")
            return super()._record(processing_event)

        def _take_snapshots(self, processing_event: Any) -> None:
            steps.append("snapshots")

        def _notify(self, recordings: Any) -> None:
            steps.append("notify")

    Probe().save(_Dog("Rex"))

    assert steps == ["record", "snapshots", "notify"]


def test_pending_events_live_in_a_list_that_a_copy_must_replace() -> None:
    dog = _Dog("Rex")
    copy: Any = object.__new__(_Dog)
    copy.__dict__.update(dog.__dict__)

    drop_pending_events(copy)

    assert len(dog.collect_events()) == 1
    assert copy.collect_events() == []


def test_create_takes_the_id_and_timestamp_of_the_created_event() -> None:
    dog_id = uuid4()
    timestamp = _Dog.Created.create_timestamp()

    dog = create_aggregate(
        _Dog,
        _Dog.Created,
        id=dog_id,
        timestamp=timestamp,
        originator_topic=get_topic(_Dog),
        name="Rex",
    )

    (created,) = dog.collect_events()
    assert (dog.id, dog.name, dog.version) == (dog_id, "Rex", 1)
    assert (created.originator_id, created.timestamp) == (dog_id, timestamp)


def test_a_few_side_rows_go_in_one_statement_and_many_one_each() -> None:
    from domain.storage.recorders import COMBINED_SIDE_ROWS, PostgresRecorder

    recorder: Any = object.__new__(PostgresRecorder)
    log: list[Any] = []
    rows = [(f"INSERT INTO t{n} (a) VALUES (%s)", (n,)) for n in range(3)]
    recorder.execute_side_rows(_Cursor(log), rows)
    assert [entry[1] for entry in log] == [
        "WITH side_0 AS (INSERT INTO t0 (a) VALUES (%s)), side_1 AS (INSERT INTO t1 (a) "
        "VALUES (%s)) INSERT INTO t2 (a) VALUES (%s)"
    ]
    log.clear()
    # An import's actor rows (one per event): never one statement of thousands of queries.
    many = [("INSERT INTO t (a) VALUES (%s)", (n,)) for n in range(COMBINED_SIDE_ROWS + 1)]
    recorder.execute_side_rows(_Cursor(log), many)
    assert len(log) == COMBINED_SIDE_ROWS + 1
