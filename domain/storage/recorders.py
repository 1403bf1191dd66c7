"""The application recorders: eventsourcing's SQLite and PostgreSQL recorders with the side
tables (``domain.storage.side_tables``) written in the events' transaction."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing import postgres as es_postgres
from eventsourcing.persistence import StoredEvent
from psycopg.pq import TransactionStatus
from psycopg.rows import tuple_row

from domain.storage import log_order
from domain.storage.advisory_locks import (
    KEY_RING_LOCK_KEY,
    begin_with_transaction_lock,
    campaign_lock_keys,
    session_lock,
)
from domain.storage.creations import CREATIONS_INDEX
from domain.storage.es_compat import (
    PostgresRecorderHooks,
    SQLiteRecorderHooks,
    end_open_transaction,
    on_new_connections,
    sweep_on_dead_connection,
)
from domain.storage.library import LibraryTables
from domain.storage.retries import TRANSIENT_ERRORS, read_with_retries
from domain.storage.side_tables import KEYS_TABLE, RATE_TABLE

log = logging.getLogger("questlog.store")
CAMPAIGN_LOCK_TIMEOUT = "2s"
"""How long a command waits for another process's command on the same campaign before it goes on
without the lock (the events' unique version key still refuses a stale write)."""
APPLICATION_NAME = "questlog"
"""PostgreSQL ``application_name`` of every connection (``questlog/<schema>``), so an operator
can tell the service's connections apart in ``pg_stat_activity``."""


class SQLiteRecorder(LibraryTables, SQLiteRecorderHooks):
    """The SQLite application recorder with the side tables; side-table reads go through each
    thread's own reading connection (``_fetch``)."""

    notification_column = "rowid"
    creations_key = "topic"

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        pool = datastore.pool
        # eventsourcing queues every request for a connection behind one semaphore, and a writer
        # waiting for the write lock holds it: readers (an access token's lookup, the views'
        # poll) then waited for other commands' commits. SQLite's WAL lets them read meanwhile;
        # writers still take turns on the pool's write lock.
        pool._get_semaphore = threading.Semaphore(pool.pool_size + pool.max_overflow)
        super().__init__(datastore, **kwargs)
        self._readers = threading.local()
        self._reader_connections: list[Any] = []
        self._readers_guard = threading.Lock()
        close = datastore.close

        def close_all() -> None:
            with self._readers_guard:
                readers, self._reader_connections = self._reader_connections, []
            for connection in readers:
                connection.close()
            close()

        datastore.close = close_all

    def _fetch(self, statement: str, params: tuple[Any, ...], *, tuples: bool = False) -> list[Any]:
        """One SELECT in autocommit on this thread's own reading connection: a SQLite statement
        outside a transaction reads the last committed state, like a transaction of its own,
        without the pool and the BEGIN and ROLLBACK around it (a third of a roll's side-table
        cost). An in-memory database has one connection's worth of data: it reads
        through the pool. ``tuples``: plain tuples instead of ``sqlite3.Row`` objects."""
        if self.datastore.pool.is_sqlite_memory_mode:
            return super()._fetch(statement, params)

        def read() -> list[Any]:
            connection = getattr(self._readers, "connection", None)
            if connection is None:
                connection = self.datastore.pool._create_connection()._sqlite_conn
                with self._readers_guard:
                    self._reader_connections.append(connection)
                self._readers.connection = connection
            cursor = connection.cursor()
            if tuples:
                cursor.row_factory = None
            return list(cursor.execute(self._sql(statement), params).fetchall())

        return read_with_retries(read)

    def stored_events_after(
        self, originator_id: UUID, after: int, limit: int | None = None
    ) -> list[StoredEvent]:
        """``select_events(originator_id, gt=after, limit=limit)`` as one autocommit SELECT on
        this thread's reading connection, each row's id the one given (the audit reads 100,000
        events in one call)."""
        if self.datastore.pool.is_sqlite_memory_mode:
            return list(self.select_events(originator_id, gt=after, limit=limit))
        statement = (
            f"SELECT originator_version, topic, state FROM {self.events_table_name} "
            "WHERE originator_id = ? AND originator_version > ? ORDER BY originator_version"
        )
        params: tuple[Any, ...] = (originator_id.hex, after)
        if limit is not None:
            statement, params = statement + " LIMIT ?", (*params, limit)
        rows = self._fetch(statement, params, tuples=True)
        return [StoredEvent(originator_id, *row) for row in rows]

    def ordered_rows(self, after: log_order.LogPosition, limit: int) -> list[log_order.OrderedRow]:
        """The log after a position, as plain rows: ``(0, id, originator_id, version, topic,
        state)``, read like ``_fetch`` (the originator id as stored: hex text). SQLite has one
        writer at a time, so the ids commit in order: every position is (0, notification id)."""
        return self._fetch(
            f"SELECT 0, rowid, originator_id, originator_version, topic, state "
            f"FROM {self.events_table_name} WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (after.notification, limit),
            tuples=True,
        )

    def _position(self, statement: str, params: tuple[Any, ...]) -> log_order.LogPosition | None:
        rows = self._fetch(statement, params, tuples=True)
        return log_order.LogPosition(0, int(rows[0][0])) if rows and rows[0][0] else None

    def event_position(self, originator_id: UUID, version: int) -> log_order.LogPosition | None:
        """The position of a campaign's event at a version; None if there is none."""
        return self._position(
            f"SELECT rowid FROM {self.events_table_name} "
            "WHERE originator_id = ? AND originator_version = ?",
            (originator_id.hex, version),
        )

    def covering_position(self, notification_id: int) -> log_order.LogPosition:
        """Where a reader has read every event up to a notification id: that id."""
        return log_order.LogPosition(0, notification_id)

    def position_at(self, notification_id: int) -> log_order.LogPosition:
        """The position of the event at a notification id."""
        return log_order.LogPosition(0, notification_id)

    def readable_head(self) -> log_order.LogPosition:
        """The position of the last event stored."""
        found = self._position(f"SELECT max(rowid) FROM {self.events_table_name}", ())
        return found or log_order.START

    def count_after(self, position: log_order.LogPosition) -> int:
        """How many events come after a position, up to ``log_order.LAG_COUNTED``."""
        statement = (
            f"SELECT count(*) FROM (SELECT 1 FROM {self.events_table_name} WHERE rowid > ? "
            f"LIMIT {log_order.LAG_COUNTED})"
        )
        return int(self._fetch(statement, (position.notification,), tuples=True)[0][0])

    def construct_create_table_statements(self) -> list[str]:
        """Events table, then the side tables."""
        return [*super().construct_create_table_statements(), *self.side_table_statements()]

    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        """The side rows, in the events' transaction after the events."""
        self.insert_side_rows(cursor, stored_events, **kwargs)


COMBINED_SIDE_ROWS = 8
"""At most this many side rows go in one PostgreSQL statement (a command writes 2 to 5)."""


class PostgresRecorder(LibraryTables, log_order.OrderedReads, PostgresRecorderHooks):
    """The PostgreSQL application recorder with the side tables.

    Inserts are sent once, never retried blindly: after a failure the application asks
    ``attempt_stored`` what happened (``PostgresRecorderHooks.insert_events``).
    """

    placeholder = "%s"
    blob_type = "BYTEA"
    locks_integrator = True
    shares_rate_buckets = True
    checks_tokens_in_appends = True
    # These rows are written inside eventsourcing's pipelined insert. psycopg prepares a statement
    # after a few executions, and a pipeline that fails (a version conflict) can drop the prepared
    # statement while psycopg still believes it exists ("prepared statement ... does not exist").
    write_options: dict[str, Any] = {"prepare": False}

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        # Before super().__init__, which opens the pool's first connections.
        configure_pool(datastore, APPLICATION_NAME, unprepared=True)
        super().__init__(datastore, **kwargs)
        self._held = threading.local()
        sql: Any = es_postgres.SQL  # type: ignore[attr-defined]  # psycopg's, via eventsourcing
        statements = [
            *self.side_table_statements(),
            self.rate_table_statement(),
            f"CREATE TABLE IF NOT EXISTS {self._table(KEYS_TABLE)} ("
            "id TEXT PRIMARY KEY, ring TEXT NOT NULL)",
        ]
        self.sql_create_statements.extend(sql(s) for s in statements)

    def _table(self, name: str) -> str:
        return f'"{self.datastore.schema}".{name}'

    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        """The side rows, queued after the events' insert (a conflict there skips them)."""
        self.insert_side_rows(cursor, stored_events, **kwargs)

    def execute_side_rows(self, cursor: Any, rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Every side row in one statement: the INSERTs but the last as data-modifying ``WITH``
        queries of the last (PostgreSQL runs each exactly once, in the one statement), which
        costs the client and the server one statement instead of one per row."""
        if len(rows) == 1 or len(rows) > COMBINED_SIDE_ROWS:
            # An import writes a row per event: one statement each, as many as there are, since
            # a WITH of thousands of queries plans slowly and can exceed 65,535 parameters.
            super().execute_side_rows(cursor, rows)
            return
        *leading, (last, last_params) = rows
        queries = ", ".join(
            f"side_{n} AS ({statement})" for n, (statement, _) in enumerate(leading)
        )
        params = tuple(value for _, values in leading for value in values) + last_params
        cursor.execute(f"WITH {queries} {last}", params, **self.write_options)

    def originator_locks(self, stored_events: Any) -> list[tuple[str, tuple[Any, ...]]]:
        """Each written campaign's advisory lock, for an insert that does not hold it.

        A process takes the campaign lock for a whole command only where it has met another
        process (``CommandService.execute``); its insert still waits here, in the same round
        trip, for a process that holds the lock while it decides. So a writer that has never
        conflicted cannot slip its insert between another's read and write: it waits, then meets
        the version key, and from then on takes the lock for its commands too. The locks are
        taken in id order (no deadlock between two multi-campaign inserts), each waiting at
        most ``CAMPAIGN_LOCK_TIMEOUT``.
        """
        calls: list[tuple[str, tuple[Any, ...]]] = []
        for campaign_id in sorted({stored.originator_id for stored in stored_events}):
            keys = campaign_lock_keys(campaign_id)
            calls.append(("set_config('lock_timeout', %s, true)", (CAMPAIGN_LOCK_TIMEOUT,)))
            calls.append((f"pg_advisory_xact_lock({', '.join(['%s'] * len(keys))})", keys))
        return calls

    @contextmanager
    def campaign_write_lock(self, campaign_id: UUID) -> Iterator[None]:
        """A transaction-scoped advisory lock on the campaign, held while a command runs.

        Without it, two processes writing one campaign race: the one that just wrote holds the
        newest state and keeps winning, while the other reloads, conflicts and backs off. With
        it they take turns (PostgreSQL grants waiting locks in order). It is for fairness, not
        correctness: if it cannot be had within ``CAMPAIGN_LOCK_TIMEOUT`` (or its connection is
        lost), the command goes on without it and the unique version key refuses a stale write.

        The lock's transaction is begun and the lock taken in one round trip, and the command's
        insert commits it (``open_transaction``): the lock costs no connection and no round trip
        of its own beyond that first one. A command that stores nothing rolls it back.
        """
        held = ExitStack()
        try:
            connection = held.enter_context(self.datastore.get_connection())
            held.callback(end_open_transaction, connection)
            begin_with_transaction_lock(
                connection, campaign_lock_keys(campaign_id), timeout=CAMPAIGN_LOCK_TIMEOUT
            )
        except (*TRANSIENT_ERRORS, psycopg.OperationalError, psycopg.InterfaceError) as error:
            # Raised inside the held connection, a driver error is not yet translated.
            log.warning("campaign %s: going on without its lock: %s", campaign_id, error)
            _release(held)
        except BaseException:
            # Any other failure (or an interrupt) must not keep the connection, nor its lock.
            _release(held)
            raise
        else:
            self._held.connection = connection
            self._held.keys = campaign_lock_keys(campaign_id)
        try:
            yield
        finally:
            self._held.connection = None
            _release(held)

    def after_failed_nested_insert(self, connection: Any) -> None:
        """Roll the held transaction back whole and begin it again with the campaign's lock.

        Rolling back to the insert's savepoint would release the writer mark and keep the
        transaction id the failed insert was given: the retry's rows would carry an id the
        readers' horizon no longer waits for, and could be passed for good (``log_order``). The
        lock
        is let go for the moment between the two; if it cannot be had again, the command goes
        on without it (as ``campaign_write_lock`` does) and the version key still guards it.
        """
        end_open_transaction(connection)
        keys = getattr(self._held, "keys", None)
        if keys is None:
            return
        try:
            begin_with_transaction_lock(connection, keys, timeout=CAMPAIGN_LOCK_TIMEOUT)
        except (*TRANSIENT_ERRORS, psycopg.Error) as error:
            log.warning("going on without the campaign's lock after a conflict: %s", error)
            end_open_transaction(connection)

    def open_transaction(self) -> Any | None:
        """The connection of this thread's campaign lock, while its transaction is open."""
        connection = getattr(self._held, "connection", None)
        if connection is None or connection.info.transaction_status != TransactionStatus.INTRANS:
            return None
        return connection

    def _fetch(self, statement: str, params: tuple[Any, ...]) -> list[Any]:
        """One SELECT in autocommit: one round trip, where a transaction would add two."""

        def read() -> list[Any]:
            with self.datastore.get_connection() as connection:
                return list(connection.execute(self._sql(statement), params).fetchall())

        return read_with_retries(read)

    def _log_rows(self, statement: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """One autocommit SELECT of the log, its rows as plain tuples, read in binary: the
        states come as they are stored, not as hex text to decode. A read below the horizon
        (``log_order.HORIZON`` among the parameters) reads the horizon first, on the same
        connection: two statements, two snapshots, in that order."""

        def read() -> list[tuple[Any, ...]]:
            with (
                self.datastore.get_connection() as connection,
                connection.cursor(row_factory=tuple_row) as cursor,
            ):
                values = params
                if log_order.HORIZON in params:
                    # Its own statement, before the rows' (log_order.horizon_statement).
                    cursor.execute(log_order.horizon_statement(), self.writer_keys())
                    horizon = str(cursor.fetchone()[0])
                    values = tuple(horizon if v is log_order.HORIZON else v for v in params)
                cursor.execute(statement, values, binary=True)
                rows: list[tuple[Any, ...]] = cursor.fetchall()
                return rows

        return read_with_retries(read)

    def create_table(self) -> None:
        """The library's tables and ours, then the events' transaction ids (``log_order``):
        added once to a store that has none yet, whichever release wrote it."""
        super().create_table()

        def transaction() -> Any:
            return self.datastore.transaction(commit=True)

        if log_order.upgrade(transaction, self.datastore.schema, self.events_table_name):
            log.info("events table upgraded: each new event records its transaction id")
        log_order.ensure_index(
            transaction,
            self.datastore.schema,
            CREATIONS_INDEX,
            self.creations_index_statement(),
            "index the campaigns' creation events",
        )

    def creation_index_statements(self) -> list[str]:
        """None with the tables' others: ``create_table`` builds it under a lock timeout."""
        return []

    def signing_ring(self) -> str | None:
        """The signing key ring's JSON kept in the store, if any."""
        rows = self._fetch(f"SELECT ring FROM {self._table(KEYS_TABLE)} WHERE id = 'ring'", ())
        return str(rows[0]["ring"]) if rows else None

    def write_signing_ring(self, ring: str) -> None:
        """Keep the signing key ring's JSON in the store (its one row)."""
        self._write(
            f"INSERT INTO {self._table(KEYS_TABLE)} (id, ring) VALUES ('ring', ?) "
            "ON CONFLICT (id) DO UPDATE SET ring = excluded.ring",
            (ring,),
        )

    @contextmanager
    def ring_lock(self) -> Iterator[None]:
        """An advisory lock held while the key ring is made or rotated, across processes."""
        with (
            self.datastore.get_connection() as connection,
            session_lock(connection, (KEY_RING_LOCK_KEY,)),
        ):
            yield

    def rate_table_statement(self) -> str:
        """CREATE statement of the rate-limit buckets: tokens left at ``stamp`` (epoch seconds,
        the database's clock) and whether the last take was allowed."""
        return (
            f"CREATE TABLE IF NOT EXISTS {self._table(RATE_TABLE)} ("
            "key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, "
            "stamp DOUBLE PRECISION NOT NULL, allowed BOOLEAN NOT NULL)"
        )

    def take_rate_token(self, key: str, rate: float, burst: float) -> float:
        """Take one append from ``key``'s bucket, shared by every process on this store: 0 if
        allowed, else the seconds until one is allowed.

        One statement refills the bucket from its stored stamp at ``rate`` per second (at most
        ``burst``) and takes a token if one is there. PostgreSQL locks the row for the upsert, so
        N processes taking at once are served one after the other and together get exactly the
        rate. The time is the database's (one clock for every process and host); a stamp a
        racing statement already moved past never refills backwards.
        """
        table = self._table(RATE_TABLE)
        available = (
            "LEAST(%(burst)s, bucket.tokens + %(rate)s * GREATEST(0, "
            "extract(epoch FROM statement_timestamp()) - bucket.stamp))"
        )
        statement = (
            f"INSERT INTO {table} AS bucket (key, tokens, stamp, allowed) "
            "VALUES (%(key)s, %(burst)s - 1, extract(epoch FROM statement_timestamp()), true) "
            "ON CONFLICT (key) DO UPDATE SET "
            f"tokens = CASE WHEN {available} >= 1 THEN {available} - 1 ELSE {available} END, "
            "stamp = GREATEST(bucket.stamp, extract(epoch FROM statement_timestamp())), "
            f"allowed = {available} >= 1 "
            "RETURNING tokens, allowed"
        )
        params = {"key": key, "rate": float(rate), "burst": float(burst)}
        # One statement on an autocommit connection: one round trip, no BEGIN and COMMIT.
        with self.datastore.cursor() as cursor:
            cursor.execute(statement, params, prepare=False)
            row = cursor.fetchone()
        if row["allowed"]:
            return 0.0
        return (1.0 - float(row["tokens"])) / rate

    def wait_for_writers(self, cursor: Any) -> None:
        """Take a lock that conflicts with the events table's write lock, and so waits for it."""
        cursor.execute("SET LOCAL lock_timeout = '5s'", prepare=False)
        cursor.execute(
            f'LOCK TABLE "{self.datastore.schema}"."{self.events_table_name}" IN SHARE MODE',
            prepare=False,
        )


def configure_pool(datastore: Any, name: str, *, unprepared: bool) -> None:
    """Set up an eventsourcing PostgreSQL datastore's pool before it opens its connections.

    Every connection is named ``<name>/<schema>`` (``application_name``); a dead pooled
    connection makes the pool sweep all its idle ones (``es_compat.sweep_on_dead_connection``);
    with ``unprepared`` every statement runs unprepared (see ``_unprepared_cursor``).
    """
    label = f"{name}/{datastore.schema}"[:63]

    def on_connect(connection: Any) -> None:
        connection.execute("SELECT set_config('application_name', %s, false)", (label,))
        if unprepared:
            connection.prepare_threshold = None
            connection.cursor_factory = _unprepared_cursor(connection.cursor_factory)

    on_new_connections(datastore.pool, on_connect)
    sweep_on_dead_connection(datastore.pool)


def _release(held: ExitStack) -> None:
    """End the lock's transaction; a lost connection has released the lock already."""
    try:
        held.close()
    except TRANSIENT_ERRORS as error:
        log.warning("campaign lock released with its connection: %s", error)


_UNPREPARED: dict[type[Any], type[Any]] = {}


def _unprepared_cursor(base: type[Any]) -> type[Any]:
    """psycopg's cursor class, with every statement run unprepared.

    eventsourcing asks psycopg to prepare its statements. After a pipelined insert fails on a
    version conflict, psycopg can believe in a prepared statement the server no longer has
    ("prepared statement _pg3_1 does not exist"), and a later read fails. Unprepared statements
    cost a parse each, which is small beside the round trip.
    """
    if base in _UNPREPARED.values():
        return base
    if base not in _UNPREPARED:

        class UnpreparedCursor(base):  # type: ignore[misc]
            def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
                kwargs["prepare"] = False
                return super().execute(query, params, **kwargs)

        _UNPREPARED[base] = UnpreparedCursor
    return _UNPREPARED[base]
