"""The order readers follow on PostgreSQL without the table lock: each event's transaction id
(issue 30, first step).

Today every append takes the events table's ``EXCLUSIVE`` lock, so notification ids commit in the
order they are given, and a reader that has seen id *n* never later sees a smaller id commit. The
lock makes every campaign's append wait for every other's. What replaces it (issue 30) must keep
that promise without the lock: ids are then given as appends start, and an append that started
early can commit late.

Each row carries the id of the transaction that wrote it (``transaction_id``, PostgreSQL's
``xid8``, set by its default ``pg_current_xact_id()``). Every transaction older than
``pg_snapshot_xmin(pg_current_snapshot())`` (the oldest transaction still writing, in any
database of the server) has ended, so the rows below that horizon are final: no transaction can
still add one there. A reader that takes only those rows, in the order (transaction id,
notification id), never passes a row that commits later and never reads one twice: its position
is that pair, and it only grows. This is not the order of the commits themselves (a transaction
that began writing first is read first, even when it committed last); it is an order in which
nothing can appear behind a reader. Rows written before the column existed have no transaction id
and sort first, as transaction 0, in their notification ids' order, which was their commit order
under the lock.

``upgrade`` adds the column and its index to a store (a new one and one written by an earlier
release alike, under the setup lock) and clears transaction ids a restore brought from another
server; ``ordered_rows_statement`` reads the log in this order. The lock stays until every reader
of the log has moved to it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NamedTuple

import psycopg

log = logging.getLogger("questlog.store")

COLUMN = "transaction_id"
ORDER = f"COALESCE({COLUMN}, '0'::xid8)"
"""The sort key of a row's transaction: 0 for a row written before the column existed."""
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
        forget_foreign_transactions(cursor, qualified)
    return held


def forget_foreign_transactions(cursor: Any, qualified: str) -> None:
    """Clear every row's transaction id when one is ahead of this server's: the rows came from
    another server (a ``pg_dump`` restored here), whose transaction ids mean nothing here. Their
    notification ids, given in commit order under the table lock, then order them."""
    # pg_current_xact_id() is stable: evaluated once, the index's range scan finds any row.
    statement = f"SELECT 1 FROM {qualified} WHERE {ORDER} >= pg_current_xact_id() LIMIT 1"
    if _exists(cursor, statement, ()):
        cursor.execute(f"UPDATE {qualified} SET {COLUMN} = NULL", prepare=False)
        log.warning(
            "events restored from another server: their transaction ids were cleared, and "
            "their notification ids order them"
        )


def ordered_rows_statement(schema: str, table: str) -> str:
    """The rows after a position that no transaction still writing can precede, in order."""
    return (
        f"SELECT ({ORDER})::text, notification_id, originator_id::text, originator_version, "
        f'topic, state FROM "{schema}"."{table}" '
        f"WHERE (({ORDER}), notification_id) > (%s::xid8, %s) "
        f"AND {ORDER} < pg_snapshot_xmin(pg_current_snapshot()) "
        f"ORDER BY ({ORDER}), notification_id LIMIT %s"
    )


def position_of(row: OrderedRow) -> LogPosition:
    """The position of a row ``ordered_rows`` read."""
    return LogPosition(int(row[0]), int(row[1]))
