"""The events the transparency log's integrator finds rewritten under the tree.

The integrator asks, for each batch of events it reads, which of them the tree holds already
(``tlog_held``: one statement joining the batch's (campaign, version) pairs to the leaves'
unique index), so that it appends only the others (the tree stays append-only when the store's
order is rewritten or a store is restored). An event the tree holds with another chain hash
means the store was rewritten under the log: it is kept in ``questlog_tlog_conflicts`` (in the
batch's transaction), never appended.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CONFLICTS_TABLE = "questlog_tlog_conflicts"
LEAVES_TABLE = "questlog_tlog_leaves"


@dataclass(frozen=True, slots=True)
class LeafConflict:
    """An event whose (campaign, version) the tree holds with another chain hash: the store was
    rewritten under the log. ``found``: when the integrator found it (ISO)."""

    campaign_id: str
    version: int
    tree_hash: str
    store_hash: str
    found: str


class TlogConflicts:
    """The integrator's reads of the leaves it holds, and the conflicts it keeps (a part of
    ``TlogTables``)."""

    inserts_arrays = False
    """Whether a statement takes a list as one array parameter (PostgreSQL)."""

    def _table(self, name: str) -> str:
        return name

    def _sql(self, statement: str) -> str:
        return statement

    def _rows(self, statement: str, params: tuple[Any, ...], cursor: Any | None) -> list[Any]:
        raise NotImplementedError

    def conflicts_table_statement(self) -> str:
        """The CREATE statement of the conflicts' table."""
        return (
            f"CREATE TABLE IF NOT EXISTS {self._table(CONFLICTS_TABLE)} ("
            "campaign_id TEXT NOT NULL, version INTEGER NOT NULL, tree_hash TEXT NOT NULL, "
            "store_hash TEXT NOT NULL, found TEXT NOT NULL, PRIMARY KEY (campaign_id, version))"
        )

    def tlog_held(
        self, events: Sequence[tuple[str, int]], *, cursor: Any | None = None
    ) -> dict[tuple[str, int], str]:
        """The chain hash of each of these events (campaign id, version) the tree holds, in one
        statement: the events asked joined to the leaves' unique index."""
        if not events:
            return {}
        leaves = self._table(LEAVES_TABLE)
        if self.inserts_arrays:
            wanted = "unnest(?::text[], ?::int[]) AS wanted(c, v)"
            params: tuple[Any, ...] = ([c for c, _ in events], [v for _, v in events])
            statement = f"SELECT l.campaign_id, l.version, l.event_hash FROM {wanted} "
        else:
            values = ", ".join(["(?, ?)"] * len(events))
            params = tuple(value for pair in events for value in pair)
            statement = (
                f"WITH wanted(c, v) AS (VALUES {values}) "
                "SELECT l.campaign_id, l.version, l.event_hash FROM wanted "
            )
        statement += f"JOIN {leaves} AS l ON l.campaign_id = wanted.c AND l.version = wanted.v"
        rows = self._rows(statement, params, cursor)
        return {(str(r["campaign_id"]), int(r["version"])): str(r["event_hash"]) for r in rows}

    def write_leaf_conflicts(self, cursor: Any, conflicts: Sequence[LeafConflict]) -> None:
        """In the caller's transaction: keep each conflict found (the first one of an event)."""
        for found in conflicts:
            cursor.execute(
                self._sql(
                    f"INSERT INTO {self._table(CONFLICTS_TABLE)} "
                    "(campaign_id, version, tree_hash, store_hash, found) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (campaign_id, version) DO NOTHING"
                ),
                (found.campaign_id, found.version, found.tree_hash, found.store_hash, found.found),
            )

    def tlog_conflicts(self) -> list[LeafConflict]:
        """Every event found rewritten under the log, by campaign and version."""
        statement = (
            "SELECT campaign_id, version, tree_hash, store_hash, found "
            f"FROM {self._table(CONFLICTS_TABLE)} ORDER BY campaign_id, version"
        )
        return [
            LeafConflict(
                str(r["campaign_id"]),
                int(r["version"]),
                str(r["tree_hash"]),
                str(r["store_hash"]),
                str(r["found"]),
            )
            for r in self._rows(statement, (), None)
        ]
