"""The group's library: heroes and items the people of this server saved for reuse.

One side table, ``questlog_library``, beside the campaigns (no campaign's log holds it): each row
is an entry of a kind (``hero`` or ``item``) with its id, its name, its body as JSON, the token
that added it and when. Entries are added and removed one at a time; nothing else changes them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from domain.storage.side_tables import SideTables

LIBRARY_TABLE = "questlog_library"


@dataclass(frozen=True)
class LibraryEntry:
    """One saved hero or item: ``body`` is what was saved, ``added_by`` the token's id."""

    kind: str
    id: str
    name: str
    body: dict[str, Any]
    added_by: str
    added_at: str


class LibraryTables(SideTables):
    """The side tables with the group's library."""

    def side_table_statements(self) -> list[str]:
        """The side tables' CREATE statements, the library's last."""
        return [
            *super().side_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {self._table(LIBRARY_TABLE)} ("
            "kind TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL, "
            "added_by TEXT NOT NULL, added_at TEXT NOT NULL, PRIMARY KEY (kind, id))",
        ]

    @staticmethod
    def _entry(row: Any) -> LibraryEntry:
        return LibraryEntry(
            str(row["kind"]),
            str(row["id"]),
            str(row["name"]),
            json.loads(row["body"]),
            str(row["added_by"]),
            str(row["added_at"]),
        )

    def library(self, kind: str) -> list[LibraryEntry]:
        """Every entry of a kind, oldest first."""
        rows = self._fetch(
            f"SELECT kind, id, name, body, added_by, added_at FROM {self._table(LIBRARY_TABLE)} "
            "WHERE kind = ? ORDER BY added_at, id",
            (kind,),
        )
        return [self._entry(row) for row in rows]

    def library_entry(self, kind: str, entry_id: str) -> LibraryEntry | None:
        """One entry, if there is one by that id."""
        rows = self._fetch(
            f"SELECT kind, id, name, body, added_by, added_at FROM {self._table(LIBRARY_TABLE)} "
            "WHERE kind = ? AND id = ?",
            (kind, entry_id),
        )
        return self._entry(rows[0]) if rows else None

    def add_library_entry(self, entry: LibraryEntry) -> bool:
        """Store a new entry; False (and nothing stored) if its id is taken already."""
        table = self._table(LIBRARY_TABLE)
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(
                self._sql(f"SELECT 1 FROM {table} WHERE kind = ? AND id = ?"),
                (entry.kind, entry.id),
            )
            if cursor.fetchone() is not None:
                return False
            # Two adds of one id at once: the second does nothing and reports the id taken.
            cursor.execute(
                self._sql(
                    f"INSERT INTO {table} (kind, id, name, body, added_by, added_at) "
                    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (kind, id) DO NOTHING"
                ),
                (
                    entry.kind,
                    entry.id,
                    entry.name,
                    json.dumps(entry.body),
                    entry.added_by,
                    entry.added_at,
                ),
            )
        return self.library_entry(entry.kind, entry.id) == entry

    def remove_library_entry(self, kind: str, entry_id: str) -> None:
        """Remove an entry (nothing if there is none)."""
        self._write(
            f"DELETE FROM {self._table(LIBRARY_TABLE)} WHERE kind = ? AND id = ?",
            (kind, entry_id),
        )
