"""Compatibility with eventsourcing: every use of the library's private internals by the
application and the recorders, in one place (the aggregate's two are in
``domain.model.es_aggregates``).

Questlog relies on a few parts of eventsourcing 9.5 that are not its public API: protected hooks
of the recorders and of ``Application.save``, the undecorated functions behind its retry
decorator, and the connection pool's configure callback. They are reached only from here, each
behind a small documented function or class, and ``tests/unit/test_es_compat.py`` pins the
library behaviour each one relies on, so that an upgrade which changes it fails a test instead
of silently changing what a lost commit, a version conflict or a read retry does
(docs/reliability.md).
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing import persistence
from eventsourcing.application import Application, ProcessingEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder
from eventsourcing.sqlite import SQLiteApplicationRecorder
from psycopg.pq import TransactionStatus

from domain.model.access import TOKEN_REFUSED, TokenCheck, pending_token_check
from domain.model.errors import TokenRefused
from domain.storage import log_order


def undecorated(cls: type[Any], name: str) -> Callable[..., Any] | None:
    """The function under eventsourcing's ``@retry`` on a method, or None if it has none.

    eventsourcing's ``retry`` decorator keeps the original function as ``__wrapped__``
    (``functools.wraps``).
    """
    method = getattr(cls, name, None)
    function: Callable[..., Any] | None = getattr(method, "__wrapped__", None)
    return function


def on_new_connections(pool: Any, configure: Callable[[Any], None]) -> None:
    """Run ``configure`` on each new connection of a psycopg pool, after the pool's own.

    psycopg_pool keeps its ``configure`` callback as ``_configure`` and calls it on every new
    connection. Call this before the pool opens its first connections.
    """
    previous = pool._configure

    def configure_both(connection: Any) -> None:
        if previous is not None:
            previous(connection)
        configure(connection)

    pool._configure = configure_both


def sweep_on_dead_connection(pool: Any) -> None:
    """Make a psycopg pool's check before use (pre-ping) sweep every idle connection on failure.

    A dead pooled connection rarely dies alone: a database restart or terminated backends take
    every idle one. psycopg_pool finds them one by one, backing off 1 s and then 2 s between
    them, so a request waited out its pool timeout; here the first dead one makes the pool check
    all its idle connections at once (``ConnectionPool.check``) and replace the dead ones.
    psycopg_pool keeps the check as ``_check`` and runs it in ``getconn``.
    """
    check_connection = type(pool).check_connection

    def check(connection: Any) -> None:
        if recently_lent(connection) and not server_has_spoken(connection):
            return
        try:
            check_connection(connection)
        except Exception:
            pool.check()
            raise

    pool._check = check


IDLE_PING_SECONDS = 1.0
"""A pooled connection not lent for this long is pinged before use whatever its socket says."""


def recently_lent(connection: Any) -> bool:
    """Whether the pool lent this connection within ``IDLE_PING_SECONDS`` (and note it lent now).

    A server that dies without a word (its host gone, a failover, a firewall's idle drop) leaves
    the socket silent, so ``server_has_spoken`` cannot tell; a connection idle for a second is
    pinged as before, and under load (every connection lent every few milliseconds) none is.
    """
    now = time.monotonic()
    last = getattr(connection, "_questlog_lent_at", None)
    connection._questlog_lent_at = now
    return last is not None and now - last < IDLE_PING_SECONDS


def server_has_spoken(connection: Any) -> bool:
    """Whether an idle pooled connection's socket has anything to read (or is closed).

    An idle connection receives nothing unless the server ends it: a terminated backend, a
    restart or an idle timeout sends its FATAL error and closes the socket, which then polls
    readable (and a closed or broken connection counts as spoken). So the pool's check pings
    (a round trip) only a connection the server has spoken on, or one idle for a while
    (``recently_lent``), instead of every one: a roll takes two checkouts, and the pings were
    two of its round trips.
    """
    if connection.closed or connection.broken:
        return True
    try:
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        return bool(poller.poll(0))
    except (OSError, ValueError, psycopg.Error):
        return True


def refused_token(failure: Exception) -> bool:
    """Whether an insert failed on its check of a cached token: the cast the check makes fails,
    its marker in the error's own message (not in its detail, which may quote a request's data,
    an ``Idempotency-Key`` say)."""
    if pending_token_check() is None:
        return False
    if not isinstance(failure, psycopg.errors.InvalidTextRepresentation):
        return False
    return TOKEN_REFUSED in (failure.diag.message_primary or "")


class PostgresRecorderHooks(PostgresApplicationRecorder):
    """eventsourcing's PostgreSQL application recorder, with the changes Questlog needs.

    - the insert is sent once: no blind retry after a failure (the commit may have happened);
    - the whole insert transaction goes to the server in one round trip (``insert_events``),
      with ``after_insert_events`` rows queued after the events;
    - an insert may finish a transaction the caller holds open (``open_transaction``);
    - no table lock and no ``NOTIFY``: appends to different campaigns run at the same
      time, and readers follow the log in the order of ``domain.storage.log_order``, which never
      passes an event that commits late. The library's subscription, which reads by
      notification id and waits for ``NOTIFY``, is refused (``subscribe``);
    - every statement runs unprepared;
    - a request let in by a cached token (``domain.model.access.TokenCheck``) has the token
      checked in each insert's transaction: revoked or gone, the insert stores nothing and
      raises ``TokenRefused``.
    """

    INSERT_SAVEPOINT = "questlog_insert"

    def insert_events(self, stored_events: Any, **kwargs: Any) -> Any:
        """Insert events (and their ``after_insert_events`` rows) in one transaction, once.

        eventsourcing retries a failed insert on ``OperationalError``; when the failure was a
        connection lost after the commit, that retry hits the unique key and looks like another
        writer's conflict. Here a failure is raised as it is.

        eventsourcing sends the transaction in two round trips (the table lock and the events,
        then the rest and the commit after reading the notification ids back). Here ``BEGIN``,
        the campaign locks, the events, the side rows and ``COMMIT`` are pipelined and synced
        once, with no table lock. A version conflict is still the events' ``IntegrityError``: the
        server skips every statement after the first that fails.
        """
        held = self.open_transaction()
        if held is not None:
            with translated_errors():
                return self._insert_on(held, stored_events, nested=True, **kwargs)
        with self.datastore.get_connection() as connection:
            return self._insert_on(connection, stored_events, nested=False, **kwargs)

    def open_transaction(self) -> Any | None:
        """A connection whose open transaction this thread's insert should commit (here: none).

        The insert then starts at a savepoint instead of ``BEGIN``; after a conflict
        ``after_failed_nested_insert`` leaves the transaction ready for the next attempt.
        """
        return None

    def _insert_on(
        self, connection: Any, stored_events: Any, *, nested: bool, **kwargs: Any
    ) -> Any:
        events = connection.cursor()
        failure = self._send_insert(connection, events, stored_events, nested=nested, **kwargs)
        if failure is not None:
            if nested:
                self.after_failed_nested_insert(connection)
            else:
                end_open_transaction(connection)
            if refused_token(failure):
                raise TokenRefused("The token is unknown or revoked.") from failure
            raise failure
        return self._fetch_ids_after_insert_events(events, stored_events, **kwargs)

    def _send_insert(
        self, connection: Any, events: Any, stored_events: Any, *, nested: bool, **kwargs: Any
    ) -> Exception | None:
        """Queue the insert transaction and sync it; the error the server answered, if any.

        The error is returned, not raised, so that it is raised after the pipeline has closed
        (psycopg warns when a pipeline is left by an exception).
        """
        start = f"SAVEPOINT {self.INSERT_SAVEPOINT}" if nested else "BEGIN"
        check = pending_token_check()
        try:
            with connection.pipeline() as pipeline, sent_at_sync(pipeline):
                statements = connection.cursor()
                statements.execute(start, prepare=False)
                prologue, params = self.insert_prologue(stored_events, nested=nested, check=check)
                statements.execute(prologue, params, prepare=False)
                PostgresAggregateRecorder._insert_stored_events(self, events, stored_events)
                self.after_insert_events(statements, stored_events, **kwargs)
                statements.execute("COMMIT", prepare=False)
                # Leaving the pipeline sends one Sync and reads every result back.
        except Exception as error:
            return error
        if check is not None:
            check.done = True
        return None

    def token_check(self, token_id: str) -> tuple[str, tuple[Any, ...]]:
        """The statement that fails unless the token is live (``SideTables.token_check``)."""
        raise NotImplementedError

    def insert_prologue(
        self, stored_events: Any, *, nested: bool, check: TokenCheck | None = None
    ) -> tuple[str, tuple[Any, ...]]:
        """The locks ``originator_locks`` asks for (an insert that does not hold them) and the
        library's lock timeout for the rest of the transaction, as one ``SELECT``. PostgreSQL
        evaluates a ``SELECT``'s list from left to right, so each campaign lock waits with its
        own timeout, and the events' insert then waits at most the library's
        ``lock_timeout`` for a lock someone else holds on the table (a migration, a manual
        ``LOCK TABLE``): one statement instead of one per lock and setting, each of which cost
        the client and the server a parse (``bench.postgres.round_trips``). Last, after any wait and
        before the first row, the writer mark (``log_order.writer_mark``), which the readers'
        horizon waits for. First of all, the check of a cached token (``TokenCheck``), so that a
        refused token waits for no lock.
        """
        calls: list[str] = []
        params: list[Any] = []
        if check is not None:
            guard, values = self.token_check(check.token_id)
            calls.append(f"({guard})")
            params.extend(values)
        if not nested:
            for call, values in self.originator_locks(stored_events):
                calls.append(call)
                params.extend(values)
        calls.append("set_config('lock_timeout', %s, true)")
        params.append(f"{self.datastore.lock_timeout}s")
        mark, keys = log_order.writer_mark(self.datastore.schema, self.events_table_name)
        calls.append(mark)
        params.extend(keys)
        return f"SELECT {', '.join(calls)}", tuple(params)

    def after_failed_nested_insert(self, connection: Any) -> None:
        """Undo a failed insert in a held transaction: the whole transaction (``PostgresRecorder``
        then begins it again with the campaign's lock).

        Never back to the insert's savepoint alone: that releases the writer mark taken after
        the savepoint (``log_order.writer_mark``) and keeps the transaction id the failed insert
        was given, so the retry would write rows with an id the readers' horizon no longer
        waits for, behind readers that have moved on: events skipped for good."""
        end_open_transaction(connection)

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Any:
        """Refused: the library's subscription reads by notification id, which an append that
        commits late can fall behind, and waits for a ``NOTIFY`` appends no longer send. Follow
        the log with ``ordered_rows`` (``domain.storage.log_order``), as the views do."""
        raise NotImplementedError(
            "subscriptions by notification id can miss an event that commits late; read the "
            "log in its order with ordered_rows (domain.storage.log_order)"
        )

    def originator_locks(self, stored_events: Any) -> list[tuple[str, tuple[Any, ...]]]:
        """The lock calls (a ``SELECT`` list item and its parameters) to take on the aggregates
        written, before the events, in an insert that does not already hold them (here: none)."""
        return []

    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        """Queue rows that ride along with the events, in their transaction (here: none)."""


@contextmanager
def sent_at_sync(pipeline: Any) -> Iterator[None]:
    """Queue a psycopg pipeline's statements without sending any until it syncs.

    psycopg sends each statement of a pipeline as soon as it is executed (``execute`` ends with
    the pipeline's ``_communicate_gen``), so the server runs the first statements (a campaign's
    lock) and then waits for the client while Python builds and sends the next ones; with other
    request threads holding the GIL that wait lasts milliseconds, with the locks held (in
    earlier releases the events table's lock too: ``python -m bench.postgres.cpu_split --waits``
    showed backends in ``Lock:relation`` and in ``ClientRead`` inside the transaction). Here the
    statements stay in psycopg's queue, are handed to libpq together at the end, and the sync
    sends them in one write: the server then holds the locks only while it runs them.
    ``tests/application/test_pool_check.py`` pins the psycopg behaviour this relies on.
    """

    def queued_only() -> Iterator[None]:
        return
        yield

    pipeline._communicate_gen = queued_only
    try:
        yield
        # Hand every queued statement to libpq, which buffers them in pipeline mode (it flushes
        # by itself only past 64 kB); the sync then sends them in one write.
        queued = getattr(pipeline, "command_queue", ())
        while queued:
            queued.popleft()()
    finally:
        del pipeline._communicate_gen


def end_open_transaction(connection: Any) -> None:
    """Roll back a transaction left open or failed (a lost connection needs nothing)."""
    try:
        if connection.info.transaction_status != TransactionStatus.IDLE:
            connection.execute("ROLLBACK", prepare=False)
    except Exception:  # the connection is gone: the server has rolled back already
        return


@contextmanager
def translated_errors() -> Iterator[None]:
    """Raise psycopg's errors as eventsourcing's, as its ``get_connection`` does.

    Needed where a statement runs on a connection taken out of ``get_connection`` earlier (a held
    transaction), so that callers see one set of exceptions whichever connection was used.
    """
    try:
        yield
    except psycopg.Error as error:
        for driver, library in _ERROR_TRANSLATIONS:
            if isinstance(error, driver):
                raise library(str(error)) from error
        raise


_ERROR_TRANSLATIONS: list[tuple[type[Exception], type[Exception]]] = [
    (psycopg.InterfaceError, persistence.InterfaceError),
    (psycopg.OperationalError, persistence.OperationalError),
    (psycopg.DataError, persistence.DataError),
    (psycopg.IntegrityError, persistence.IntegrityError),
    (psycopg.InternalError, persistence.InternalError),
    (psycopg.ProgrammingError, persistence.ProgrammingError),
    (psycopg.NotSupportedError, persistence.NotSupportedError),
    (psycopg.DatabaseError, persistence.DatabaseError),
    (psycopg.Error, persistence.PersistenceError),
]
"""eventsourcing's order in ``PostgresDatastore.get_connection``: subclasses before bases."""


class SQLiteRecorderHooks(SQLiteApplicationRecorder):
    """eventsourcing's SQLite application recorder, with a hook after the events' insert."""

    def _insert_events(self, c: Any, stored_events: Any, **kwargs: Any) -> Any:
        notification_ids = super()._insert_events(c, stored_events, **kwargs)
        self.after_insert_events(c, stored_events, **kwargs)
        return notification_ids

    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        """Write rows that ride along with the events, in their transaction (here: none)."""


class ApplicationHooks(Application[UUID]):
    """eventsourcing's ``Application``, with its save steps and aggregate cache reachable."""

    def record_aggregates(self, aggregates: Sequence[Any], **kwargs: Any) -> list[Any]:
        """Save aggregates as ``Application.save`` does, without its runtime Protocol checks.

        The aggregates' new events go to the recorder's ``insert_events`` in one call with
        ``kwargs``; then ``after_record`` runs (snapshots) and the application is notified.
        """
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        for aggregate in aggregates:
            processing_event.events.extend(aggregate.collect_events())
            processing_event.aggregates[aggregate.id] = aggregate
        processing_event.saved_kwargs.update(kwargs)
        recordings: list[Any] = self._record(processing_event)
        self.after_record(processing_event.events, processing_event.aggregates)
        self._notify(recordings)
        return recordings

    def _take_snapshots(self, processing_event: Any) -> None:
        # eventsourcing's own save (of anything but the aggregates above) takes snapshots here.
        self.take_due_snapshots(processing_event.events, processing_event.aggregates)

    def after_record(self, events: Sequence[Any], aggregates: dict[UUID, Any]) -> None:
        """Run after a save's events are stored: take the snapshots that are due."""
        self.take_due_snapshots(events, aggregates)

    def take_due_snapshots(self, events: Sequence[Any], aggregates: dict[UUID, Any]) -> None:
        """Take the snapshots due after these events (eventsourcing's own way by default)."""
        processing_event: ProcessingEvent[UUID] = ProcessingEvent()
        processing_event.events.extend(events)
        processing_event.aggregates.update(aggregates)
        super()._take_snapshots(processing_event)

    def cached_aggregate(self, aggregate_id: UUID) -> Any | None:
        """The aggregate in the repository's cache (shared: copy it before changing it)."""
        cache = self.repository.cache
        if cache is None:
            return None
        try:
            return cache.get(aggregate_id)
        except KeyError:
            return None

    def cache_aggregate(self, aggregate: Any) -> None:
        """Put a saved aggregate in the repository's cache (if the application has one)."""
        if self.repository.cache is not None:
            self.repository.cache.put(aggregate.id, aggregate)
