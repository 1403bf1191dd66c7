"""The events' commit order on PostgreSQL: each row's transaction id (issue 30, first step).

Today every append takes the events table's ``EXCLUSIVE`` lock, so notification ids commit in the
order they are given, and a reader that has seen id *n* never later sees a smaller id commit. The
lock makes every campaign's append wait for every other's. What replaces it (issue 30) must keep
that promise without the lock: ids are then given as appends start, and an append that started
early can commit late.

Each row carries the id of the transaction that wrote it (``transaction_id``, PostgreSQL's
``xid8``, set by its default ``pg_current_xact_id()``). Every transaction older than
``pg_snapshot_xmin(pg_current_snapshot())`` has ended, so the rows below that horizon are final:
no transaction can still add one there. A reader that takes only those rows, in the order
(transaction id, notification id), never passes a row that commits later: the commit position is
that pair, and it only grows. Rows written before the column existed have no transaction id and
sort first, as transaction 0, in their notification ids' order, which was their commit order
under the lock.

This module adds the column and its index to a store (``upgrade``: a new store and one written
by an earlier release alike, once, under the setup lock) and reads the log in commit order
(``committed_rows``). The lock stays until every reader of the log has moved to this order.
"""

from __future__ import annotations

from typing import Any, NamedTuple

COLUMN = "transaction_id"
ORDER = f"COALESCE({COLUMN}, '0'::xid8)"
"""The sort key of a row's transaction: 0 for a row written before the column existed."""


class CommitPosition(NamedTuple):
    """Where a reader of the log stands: the last row's transaction id and notification id."""

    transaction: int
    notification: int


START = CommitPosition(0, 0)
"""Before the first event."""

CommittedRow = tuple[Any, ...]
"""``(transaction, notification_id, originator_id, version, topic, state)``."""


def has_column(cursor: Any, schema: str, table: str) -> bool:
    """Whether the events table has its transaction id column yet."""
    cursor.execute(
        "SELECT 1 FROM information_schema.columns "
        "WHERE table_schema = %s AND table_name = %s AND column_name = %s",
        (schema, table, COLUMN),
        prepare=False,
    )
    return cursor.fetchone() is not None


def upgrade_statements(schema: str, table: str) -> list[str]:
    """Add the column (no default for the rows there: no rewrite of the table), its default for
    new rows, and the index the commit-order reads walk."""
    qualified = f'"{schema}"."{table}"'
    return [
        f"ALTER TABLE {qualified} ADD COLUMN IF NOT EXISTS {COLUMN} xid8",
        f"ALTER TABLE {qualified} ALTER COLUMN {COLUMN} SET DEFAULT pg_current_xact_id()",
        f'CREATE INDEX IF NOT EXISTS "{table}_commit_order" ON {qualified} '
        f"(({ORDER}), notification_id)",
    ]


def upgrade(cursor: Any, schema: str, table: str) -> bool:
    """Give the events table its transaction ids, if it has none yet; whether it held events
    then (a store written by an earlier release, not a new one).

    Run in one transaction under the store's setup lock (``StoreConfig.creation_lock``). On a
    store written by an earlier release, the index is built over every row while appends wait:
    a few seconds a million events.
    """
    if has_column(cursor, schema, table):
        return False
    for statement in upgrade_statements(schema, table):
        cursor.execute(statement, prepare=False)
    cursor.execute(f'SELECT 1 AS found FROM "{schema}"."{table}" LIMIT 1', prepare=False)
    return cursor.fetchone() is not None


def committed_rows_statement(schema: str, table: str) -> str:
    """The rows after a commit position that no open transaction can precede, in commit order."""
    return (
        f"SELECT ({ORDER})::text, notification_id, originator_id::text, originator_version, "
        f'topic, state FROM "{schema}"."{table}" '
        f"WHERE (({ORDER}), notification_id) > (%s::xid8, %s) "
        f"AND {ORDER} < pg_snapshot_xmin(pg_current_snapshot()) "
        f"ORDER BY ({ORDER}), notification_id LIMIT %s"
    )


def position_of(row: CommittedRow) -> CommitPosition:
    """The commit position of a row ``committed_rows`` read."""
    return CommitPosition(int(row[0]), int(row[1]))
