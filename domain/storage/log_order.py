"""The order readers follow on PostgreSQL without the table lock: each event's transaction id.

Earlier releases took the events table's ``EXCLUSIVE`` lock in every append, so
notification ids committed in the order they were given, and a reader that had seen id *n* never
later saw a smaller id commit; the lock made every campaign's append wait for every other's.
Appends no longer take it: ids are given as appends run, and an append given an early id can
commit after one given a later id.

Each row carries the id of the transaction that wrote it (``transaction_id``, PostgreSQL's
``xid8``, set by its default ``pg_current_xact_id()``), and every append holds a shared advisory
lock, the *writer mark* (``writer_mark``), from before its first row until it ends. The *horizon*
(``horizon_statement``) is the oldest transaction id of an append still holding the mark, or, when
none does, the snapshot's ``xmax`` (every transaction below it had ended or was running when the
snapshot was taken): every append with a smaller id has ended, so the rows below the horizon are
final. A reader that takes only those rows, in the order (transaction
id, notification id), never passes a row that commits later and never reads one twice: its
position is that pair, and it only grows. This is not the order of the commits themselves (a
transaction that began writing first is read first, even when it committed last); it is an order
in which nothing can appear behind a reader. Rows written before the column existed have no
transaction id and sort first, as transaction 0, in their notification ids' order, which was their
commit order under the lock.

Only Questlog's own appends hold the horizon back. Before, it was
``pg_snapshot_xmin(pg_current_snapshot())``, the oldest transaction still writing anywhere on the
server: another application's transaction left open (a session idle in a transaction, a long
migration, in any database) froze every view and live page for as long as it stayed open. The
horizon is read in a statement of its own, before the rows: a writer that ends between the two
is then either still in the horizon's list or already visible to the rows' snapshot, never
neither. On a hot standby, which does not see the primary's locks, it is ``pg_snapshot_xmin``
again (the standby's snapshots follow the primary's running transactions).

``upgrade`` adds the column and its index to a store (a new one and one written by an earlier
release alike, under the setup lock) and clears transaction ids a restore brought from another
server; ``ordered_rows_statement`` reads the log in this order, and every reader of the log (the
views, the API's waits and freshness, the live streams) follows it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NamedTuple
from uuid import UUID

import psycopg

from domain.storage.advisory_locks import writer_keys

log = logging.getLogger("questlog.store")

EVENTS_TABLE = "questlog_events"
"""The events table of a Questlog store (eventsourcing names it after the application)."""
COLUMN = "transaction_id"
ORDER = f"COALESCE({COLUMN}, '0'::xid8)"
"""The sort key of a row's transaction: 0 for a row written before the column existed."""
TLOG_STATE_TABLE = "questlog_tlog_state"
"""The transparency log integrator's state (``domain.storage.tlog_tables``): its last position."""
LOCK_TIMEOUT = "5s"
"""How long an upgrade step waits for the events table's lock before it gives up (a long
transaction, such as a ``pg_dump``, holds it): waiting longer would hold every request queued
behind the upgrade."""


class LogPosition(NamedTuple):
    """Where a reader of the log stands: the last row's transaction id and notification id."""

    transaction: int
    notification: int


START = LogPosition(0, 0)
"""Before the first event."""
HORIZON = object()
"""Stands, in a read's parameters, for the horizon read just before it (``OrderedReads``)."""


class HorizonHolder(NamedTuple):
    """The append that holds the horizon back: what an operator needs to find it."""

    transaction: int
    pid: int
    application: str | None
    state: str | None
    open_seconds: float


OrderedRow = tuple[Any, ...]
"""``(transaction, notification_id, originator_id, version, topic, state)``."""


class UpgradeBlocked(RuntimeError):
    """An upgrade step could not take the events table's lock within ``LOCK_TIMEOUT``."""


def index_name(table: str) -> str:
    return f"{table}_log_order"


def _exists(cursor: Any, statement: str, params: tuple[Any, ...]) -> bool:
    cursor.execute(statement, params, prepare=False)
    return cursor.fetchone() is not None


def has_column(cursor: Any, schema: str, table: str) -> bool:
    """Whether the events table has its transaction id column yet."""
    return _exists(
        cursor,
        "SELECT 1 FROM information_schema.columns "
        "WHERE table_schema = %s AND table_name = %s AND column_name = %s",
        (schema, table, COLUMN),
    )


def has_index(cursor: Any, schema: str, table: str) -> bool:
    """Whether the index the ordered reads walk exists yet."""
    return _exists(
        cursor,
        "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = %s",
        (schema, index_name(table)),
    )


def _locked_step(cursor: Any, statements: list[str], what: str) -> None:
    """Run DDL under ``LOCK_TIMEOUT``; a lock not had in time is ``UpgradeBlocked``."""
    cursor.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'", prepare=False)
    try:
        for statement in statements:
            cursor.execute(statement, prepare=False)
    except psycopg.errors.LockNotAvailable as error:
        raise UpgradeBlocked(
            f"could not {what} within {LOCK_TIMEOUT}: a long transaction holds the events "
            "table (a pg_dump, or a session idle in a transaction; see pg_stat_activity). "
            "Start again once it has ended."
        ) from error


Transaction = Callable[[], Any]
"""A context manager factory giving a cursor in a transaction that commits on success."""


def upgrade(transaction: Transaction, schema: str, table: str) -> bool:
    """Give the events table its transaction ids and their index, each step in a transaction of
    its own, only where missing; whether the store held events already (written by an earlier
    release). Run under the store's setup lock (``StoreConfig.creation_lock``).

    Adding the column rewrites nothing (the rows there keep no transaction id). Building the
    index over a store written by an earlier release lets reads go on and holds appends: about
    a third of a second a million events.
    """
    qualified = f'"{schema}"."{table}"'
    held = False
    with transaction() as cursor:
        if not has_column(cursor, schema, table):
            held = _exists(cursor, f"SELECT 1 FROM {qualified} LIMIT 1", ())
            add = f"ALTER TABLE {qualified} ADD COLUMN IF NOT EXISTS {COLUMN} xid8"
            default = f"ALTER TABLE {qualified} ALTER COLUMN {COLUMN} SET DEFAULT "
            _locked_step(cursor, [add, default + "pg_current_xact_id()"], "add transaction ids")
    with transaction() as cursor:
        if not has_index(cursor, schema, table):
            index = (
                f'CREATE INDEX "{index_name(table)}" ON {qualified} (({ORDER}), notification_id)'
            )
            _locked_step(cursor, [index], "index the transaction ids")
    with transaction() as cursor:
        forget_foreign_transactions(cursor, schema, table)
    return held


def ensure_index(transaction: Transaction, schema: str, name: str, create: str, what: str) -> None:
    """Create an index of the events table if the schema has none of that name, under
    ``LOCK_TIMEOUT`` (``UpgradeBlocked`` naming ``what`` if a long transaction holds the table):
    ``CREATE INDEX IF NOT EXISTS`` alone would wait for the table's lock even when the index is
    there, and every append would queue behind it."""
    with transaction() as cursor:
        found = "SELECT 1 FROM pg_indexes WHERE schemaname = %s AND indexname = %s"
        if not _exists(cursor, found, (schema, name)):
            _locked_step(cursor, [create], what)


def forget_foreign_transactions(cursor: Any, schema: str, table: str) -> None:
    """Clear every row's transaction id when one is ahead of this server's: the rows came from
    another server (a ``pg_dump`` restored here), whose transaction ids mean nothing here. Their
    notification ids then order them. The views' positions restored with them lose their
    transaction ids too, and are placed again by their notification ids when a view store opens
    (``legacy_positions_statements``); the warning says to rebuild the views to be certain:
    the other server's views followed its own order, so an event they had not applied may
    precede that id, and one they had applied may follow it."""
    qualified = _events(schema, table)
    # pg_current_xact_id() is stable: evaluated once, the index's range scan finds any row.
    statement = f"SELECT 1 FROM {qualified} WHERE {ORDER} >= pg_current_xact_id() LIMIT 1"
    if not _exists(cursor, statement, ()):
        return
    cursor.execute(f"UPDATE {qualified} SET {COLUMN} = NULL", prepare=False)
    restart_tlog(cursor, schema)
    if has_column(cursor, schema, "view_positions"):  # (older releases had none)
        cursor.execute(f'UPDATE "{schema}".view_positions SET {COLUMN} = NULL', prepare=False)
    log.warning(
        "events restored from another server: their transaction ids were cleared, and their "
        "notification ids order them; rebuild the views (python -m projections rebuild) to be "
        "certain they hold every event once"
    )


def restart_tlog(cursor: Any, schema: str) -> None:
    """In the caller's transaction, the one that rewrites events' transaction ids: send the
    transparency log's integrator back to the start of the log, keeping its tree (size, root,
    nodes, leaves). The rewrite can move events the tree does not hold yet before its position,
    and events it holds after it; from the start it reads every event again, appends those the
    tree does not hold and skips the others (``domain.service.transparency.integrator``)."""
    table = f'"{schema}".{TLOG_STATE_TABLE}'
    if not _exists(cursor, "SELECT 1 WHERE to_regclass(%s) IS NOT NULL", (table,)):
        return  # (a store of a release with no log yet)
    cursor.execute(f"UPDATE {table} SET position_transaction = 0, position_id = 0", prepare=False)
    log.warning(
        "the transparency log reads the events again from the start: their order was rewritten"
    )


def writer_mark(schema: str, table: str) -> tuple[str, tuple[int, int]]:
    """The ``SELECT`` list call (and its keys) every append of the events makes before its first
    row: a shared transaction lock, so appends never wait for each other over it, held until the
    append ends. The horizon waits only for the transactions that hold it."""
    return "pg_advisory_xact_lock_shared(%s, %s)", writer_keys(schema, table)


_WRITERS = """locks AS MATERIALIZED (
    SELECT locktype, database, classid, objid, objsubid, virtualtransaction, transactionid, mode,
        granted, pid FROM pg_locks),
writers AS (
    SELECT own.transactionid::text::bigint AS xid, mark.pid FROM locks AS mark
    LEFT JOIN locks AS own ON own.virtualtransaction = mark.virtualtransaction
        AND own.locktype = 'transactionid' AND own.mode = 'ExclusiveLock'
    WHERE mark.locktype = 'advisory' AND mark.granted AND mark.classid = %s
    AND mark.objid::bigint = %s AND mark.objsubid = 2
    AND mark.database = (SELECT oid FROM pg_database WHERE datname = current_database()))"""
"""Each transaction holding the writer mark: its transaction id (``pg_locks`` shows it as a
32-bit ``xid``) and its process. ``pg_locks`` is read once (``MATERIALIZED``), so both sides are
the same moment. A transaction takes its own id's lock just after it is given the id, not at
once: in between it holds the mark with no id in ``pg_locks`` (``xid`` is NULL), and its id may
already be below the snapshot's ``xmax``."""

_FULL_ID = (
    "(newest + (mod(mod(writers.xid - newest, 4294967296) + 6442450944, 4294967296) - 2147483648))"
)
"""A 32-bit transaction id as ``xid8``: ``newest`` (the snapshot's ``xmax``, 64 bits) plus the
signed distance from it, in -2^31..2^31 (a transaction still running is that near; one given its
id after the snapshot may be above ``xmax``)."""


def horizon_statement() -> str:
    """The horizon (module docstring) as ``xid8`` text; parameters: ``writer_mark``'s keys.

    The snapshot is taken when the statement starts and ``pg_locks`` is read after: an append
    given its id after the snapshot has an id from its ``xmax`` on, and one given it before and
    still writing holds the mark in ``pg_locks``, with its id, or, in the moment before it locks
    its id, without: then the horizon goes no further than the snapshot's ``xmin`` (the oldest
    transaction running anywhere), which is below any id given before the snapshot and still
    running. Run it before the statement that reads rows below it, never inside it (that
    statement's snapshot must be the later one)."""
    return f"""WITH taken AS (
    SELECT pg_current_snapshot() AS snapshot,
        pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS oldest,
        pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS newest),
{_WRITERS}
SELECT CASE WHEN pg_is_in_recovery() THEN pg_snapshot_xmin(snapshot)::text
    ELSE COALESCE(
        (SELECT min(CASE WHEN writers.xid IS NULL THEN oldest ELSE {_FULL_ID} END) FROM writers),
        newest)::text END
FROM taken"""


def horizon_holder_statement() -> str:
    """The append that holds the horizon, if one does: its transaction id, process,
    ``application_name``, state and how long its transaction has been open (seconds).
    Parameters: ``writer_mark``'s keys."""
    return f"""WITH taken AS (
    SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS newest),
{_WRITERS}
SELECT {_FULL_ID}::text, writers.pid, activity.application_name, activity.state,
    EXTRACT(EPOCH FROM clock_timestamp() - activity.xact_start)::float8
FROM taken, writers LEFT JOIN pg_stat_activity AS activity ON activity.pid = writers.pid
WHERE writers.xid IS NOT NULL ORDER BY {_FULL_ID} LIMIT 1"""


def ordered_rows_statement(schema: str, table: str) -> str:
    """The rows after a position and below a horizon, in order; parameters: the position's
    transaction and notification ids, the horizon (``horizon_statement``) and the limit."""
    return (
        f"SELECT ({ORDER})::text, notification_id, originator_id::text, originator_version, "
        f'topic, state FROM "{schema}"."{table}" '
        f"WHERE (({ORDER}), notification_id) > (%s::xid8, %s) "
        f"AND {ORDER} < %s::xid8 "
        f"ORDER BY ({ORDER}), notification_id LIMIT %s"
    )


def position_of(row: OrderedRow) -> LogPosition:
    """The position of a row ``ordered_rows`` read."""
    return LogPosition(int(row[0]), int(row[1]))


def _events(schema: str, table: str) -> str:
    return f'"{schema}"."{table}"'


def event_position_statement(schema: str, table: str) -> str:
    """The position of a campaign's event at a version."""
    return (
        f"SELECT ({ORDER})::text, notification_id FROM {_events(schema, table)} "
        "WHERE originator_id = %s AND originator_version = %s"
    )


def row_position_statement(schema: str, table: str) -> str:
    """The position of the event at a notification id."""
    return (
        f"SELECT ({ORDER})::text, notification_id FROM {_events(schema, table)} "
        "WHERE notification_id = %s"
    )


def covering_position_statement(schema: str, table: str) -> str:
    """The position a reader must reach to have read every committed event up to a notification
    id: the last, in the log's order, of the events with that id or a smaller one. Walked down
    the order's index from its end, so a recent id is found in a few rows."""
    return (
        f"SELECT ({ORDER})::text, notification_id FROM {_events(schema, table)} "
        f"WHERE notification_id <= %s ORDER BY ({ORDER}) DESC, notification_id DESC LIMIT 1"
    )


LAG_COUNTED = 100_000
"""A reader's lag is counted up to this many events: a view further behind shows this many."""


def count_after_statement(schema: str, table: str) -> str:
    """How many committed events come after a position (a reader's lag), up to ``LAG_COUNTED``:
    the count walks the index, so it costs what it counts."""
    return (
        f"SELECT count(*) FROM (SELECT 1 FROM {_events(schema, table)} "
        f"WHERE (({ORDER}), notification_id) > (%s::xid8, %s) LIMIT {LAG_COUNTED}) AS after"
    )


def head_statement(schema: str, table: str) -> str:
    """The position of the last event below a horizon (its one parameter)."""
    return (
        f"SELECT ({ORDER})::text, notification_id FROM {_events(schema, table)} "
        f"WHERE {ORDER} < %s::xid8 "
        f"ORDER BY ({ORDER}) DESC, notification_id DESC LIMIT 1"
    )


def legacy_positions_statements(schema: str, table: str, positions: str) -> list[str]:
    """Place the views' positions an earlier release recorded as a bare notification id (it read
    the log in notification id order, under the table lock) in the log's order.

    Every event up to the furthest such position was written under the lock, so the ids are
    their commit order; but their transaction ids need not be (an insert retried in the same
    transaction after a conflict kept the id its failed try was given). So those events lose
    their transaction ids and sort as transaction 0, in their ids' order, and each such position
    becomes exactly (0, id). Events written since carry newer transaction ids and come after.
    """
    legacy = f"SELECT max(position) FROM {positions} WHERE {COLUMN} IS NULL"
    return [
        f"UPDATE {_events(schema, table)} SET {COLUMN} = NULL "
        f"WHERE notification_id <= ({legacy}) AND {COLUMN} IS NOT NULL",
        f"UPDATE {positions} SET {COLUMN} = 0 WHERE {COLUMN} IS NULL",
    ]


def readable_version_statement(schema: str, table: str) -> str:
    """A campaign's last event below a horizon: the last version a reader can see now.
    Parameters: the campaign's id and the horizon."""
    return (
        f"SELECT originator_version FROM {_events(schema, table)} WHERE originator_id = %s "
        f"AND {ORDER} < %s::xid8 "
        "ORDER BY originator_version DESC LIMIT 1"
    )


class OrderedReads:
    """The reads of the log in its order, for a PostgreSQL recorder (``PostgresRecorder``), which
    gives ``datastore``, ``events_table_name`` and ``_log_rows`` (one autocommit binary read)."""

    datastore: Any
    events_table_name: str

    def _log_rows(self, statement: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """One autocommit read; where ``HORIZON`` is among the parameters, the horizon is read
        first, on the same connection, and put in its place."""
        raise NotImplementedError

    def writer_keys(self) -> tuple[int, int]:
        """The keys of this store's writer mark (``writer_mark``)."""
        return writer_mark(self.datastore.schema, self.events_table_name)[1]

    def horizon(self) -> int:
        """The horizon now: the oldest transaction id of an append still writing, or the first
        id not yet given when none is."""
        return int(self._log_rows(horizon_statement(), self.writer_keys())[0][0])

    def horizon_holder(self) -> HorizonHolder | None:
        """The append holding the horizon back now, if one is."""
        rows = self._log_rows(horizon_holder_statement(), self.writer_keys())
        if not rows:
            return None
        transaction, pid, application, state, seconds = rows[0]
        # (A prepared transaction has no process: pid 0.)
        return HorizonHolder(
            int(transaction), int(pid or 0), application, state, float(seconds or 0)
        )

    def ordered_rows(self, after: LogPosition, limit: int) -> list[OrderedRow]:
        """The log after a position, in (transaction id, notification id) order, as far as no
        append still writing can precede it: ``(transaction, id, originator_id, version,
        topic, state)``."""
        statement = ordered_rows_statement(self.datastore.schema, self.events_table_name)
        params = (str(after.transaction), after.notification, HORIZON, limit)
        rows = self._log_rows(statement, params)
        return [(int(row[0]), *row[1:]) for row in rows]

    def _position(
        self, make: Callable[[str, str], str], params: tuple[Any, ...]
    ) -> LogPosition | None:
        rows = self._log_rows(make(self.datastore.schema, self.events_table_name), params)
        return position_of(rows[0]) if rows else None

    def event_position(self, originator_id: UUID, version: int) -> LogPosition | None:
        """The position of a campaign's event at a version; None if there is none."""
        uuid = self.datastore.originator_id_type == "uuid"
        originator: Any = originator_id if uuid else str(originator_id)
        return self._position(event_position_statement, (originator, version))

    def covering_position(self, notification_id: int) -> LogPosition:
        """The position a reader must reach to have read every committed event up to a
        notification id (``covering_position_statement``)."""
        found = self._position(covering_position_statement, (notification_id,))
        return found or START

    def position_at(self, notification_id: int) -> LogPosition:
        """The position of the event at a notification id (the start if there is none)."""
        found = self._position(row_position_statement, (notification_id,))
        return found or START

    def readable_head(self) -> LogPosition:
        """The position of the last event a reader can read now (below the horizon)."""
        return self._position(head_statement, (HORIZON,)) or START

    def count_after(self, position: LogPosition) -> int:
        """How many committed events come after a position, up to ``LAG_COUNTED``."""
        statement = count_after_statement(self.datastore.schema, self.events_table_name)
        rows = self._log_rows(statement, (str(position.transaction), position.notification))
        return int(rows[0][0])

    def readable_version(self, originator_id: UUID) -> int:
        """The last version of a campaign a reader of the log can see now (0 if none)."""
        uuid = self.datastore.originator_id_type == "uuid"
        originator: Any = originator_id if uuid else str(originator_id)
        statement = readable_version_statement(self.datastore.schema, self.events_table_name)
        rows = self._log_rows(statement, (originator, HORIZON))
        return int(rows[0][0]) if rows else 0
