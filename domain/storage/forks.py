"""The fork index: ``questlog_forks``, the campaigns forked from each campaign.

A fork's row is written with its creation event, in the same transaction (a fork's import too:
``side_tables.side_values``), and a campaign's forks are read by its id, the primary key's prefix:
what the read costs is the forks it lists, whatever the store holds. A store written before the
table existed has its forks indexed once, by the first reader (``index_forks``, one pass over the
creation events); ``questlog_marks`` then says it is done. A fork committed by a process of an
earlier release after that pass has no row: stop every older process before serving this
release, or index again (docs/time-travel.md#forks-in-a-store-from-an-earlier-release).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

FORKS_TABLE = "questlog_forks"
MARKS_TABLE = "questlog_marks"
FORKS_INDEXED = "forks-indexed"
"""The mark of a store whose forks made before ``questlog_forks`` existed are in it."""
_INDEXING = threading.Lock()
"""One backfill at a time in a process (another process's is harmless: its rows are the same)."""


@dataclass(frozen=True)
class ForkRecord:
    """A campaign forked from another: written with its creation event."""

    origin_id: str
    campaign_id: str
    at_version: int
    name: str
    created_at: str

    @classmethod
    def of(cls, created: Any) -> ForkRecord | None:
        """The fork a creation event records (its ``origin``), or None: a new campaign, or an
        origin without a campaign id and a version of at least 1 (a payload takes any object
        there, and one such event must not stop the listing of every other fork)."""
        origin = getattr(created, "origin", None)
        if not isinstance(origin, dict):
            return None
        origin_id, version = origin.get("campaign_id"), origin.get("version")
        if not isinstance(origin_id, str) or isinstance(version, bool):
            return None
        if not isinstance(version, int) or version < 1:
            return None
        return cls(
            origin_id,
            str(created.originator_id),
            version,
            str(created.name),
            created.timestamp.isoformat(),
        )

    def as_row(self) -> tuple[str, str, int, str, str]:
        """The row of ``questlog_forks``, in its columns' order."""
        return (self.origin_id, self.campaign_id, self.at_version, self.name, self.created_at)

    def listed(self) -> dict[str, Any]:
        """As the campaign's answer lists its forks."""
        return {
            "id": self.campaign_id,
            "name": self.name,
            "at_version": self.at_version,
            "created_at": self.created_at,
        }


class ForkIndex:
    """The fork index's statements, on the side tables' connection (``SideTables`` has it)."""

    datastore: Any
    _indexed_seen = False
    """Once the mark is seen it stays: this process never asks the store again."""

    def ensure_forks_indexed(self, scan: Callable[[], list[ForkRecord]]) -> None:
        """Index the forks of a store from before ``questlog_forks`` (``scan`` finds them in the
        creation events) unless its mark says it was done."""
        if self._indexed_seen:
            return
        with _INDEXING:
            if not self.forks_indexed():
                self.index_forks(scan())
            self._indexed_seen = True

    def _table(self, name: str) -> str:
        return name

    def _sql(self, statement: str) -> str:
        raise NotImplementedError

    def _fetch(self, statement: str, params: tuple[Any, ...]) -> list[Any]:
        raise NotImplementedError

    def fork_table_statements(self) -> list[str]:
        """CREATE statements of the fork index and of the store's marks."""
        return [
            f"CREATE TABLE IF NOT EXISTS {self._table(FORKS_TABLE)} ("
            "origin_id TEXT NOT NULL, campaign_id TEXT NOT NULL, at_version INTEGER NOT NULL, "
            "name TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (origin_id, campaign_id))",
            f"CREATE TABLE IF NOT EXISTS {self._table(MARKS_TABLE)} ("
            "name TEXT PRIMARY KEY, value TEXT NOT NULL)",
        ]

    def forks_of(self, origin_id: str) -> list[ForkRecord]:
        """The campaigns forked from ``origin_id``, oldest first (by when each was created, as its
        creation event says: an imported fork by its first host's time)."""
        rows = self._fetch(
            "SELECT origin_id, campaign_id, at_version, name, created_at "
            f"FROM {self._table(FORKS_TABLE)} WHERE origin_id = ?",
            (origin_id,),
        )
        forks = [
            ForkRecord(
                str(row["origin_id"]),
                str(row["campaign_id"]),
                int(row["at_version"]),
                str(row["name"]),
                str(row["created_at"]),
            )
            for row in rows
        ]
        return sorted(forks, key=lambda fork: (fork.created_at, fork.campaign_id))

    def forks_indexed(self) -> bool:
        """Whether the forks made before ``questlog_forks`` existed are in it."""
        rows = self._fetch(
            f"SELECT 1 FROM {self._table(MARKS_TABLE)} WHERE name = ?", (FORKS_INDEXED,)
        )
        return bool(rows)

    def index_forks(self, forks: list[ForkRecord]) -> None:
        """Add the forks a store holds from before ``questlog_forks``, and mark it done, in one
        transaction; a fork already there (written with its event, or by another process doing
        the same) is kept as it is."""
        insert = self._sql(
            f"INSERT INTO {self._table(FORKS_TABLE)} "
            "(origin_id, campaign_id, at_version, name, created_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
        )
        mark = self._sql(
            f"INSERT INTO {self._table(MARKS_TABLE)} (name, value) VALUES (?, ?) "
            "ON CONFLICT DO NOTHING"
        )
        with self.datastore.transaction(commit=True) as cursor:
            if forks:
                cursor.executemany(insert, [fork.as_row() for fork in forks])
            cursor.execute(mark, (FORKS_INDEXED, "1"))
