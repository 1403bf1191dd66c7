"""A witness's state in one SQLite file: its key, the logs it follows, the latest checkpoint it
cosigned for each, and the failed consistency checks it saw.

- ``witness_key``: one row, the witness's name and Ed25519 private key (32 raw bytes).
- ``witness_logs``: each log key the witness trusts (a vkey, its name being the log's origin).
  Rows are only ever added: a trigger refuses to delete one.
- ``witness_latest``: per origin, the size, root and signed checkpoint (with the witness's
  cosignature) it last cosigned. A trigger refuses to delete a row or to lower a size, so even a
  bug or a hand-typed statement cannot make the witness forget or roll back a log.
- ``witness_failures``: the requests that failed a consistency check for a known log with a
  valid signature (each may be proof of the log's misbehaviour), with their bodies: per origin
  the first ``FAILURES_KEPT`` and the latest ``FAILURES_KEPT``, so a log that resubmits a
  refused checkpoint on every tick keeps the evidence without filling the disk;
  ``witness_failure_counts`` counts every one seen.

``transaction`` holds the file's write lock (``BEGIN IMMEDIATE``) from the read of the latest
size to the commit of the new one, so two racing submissions are checked one after the other
and neither can roll the other back (tlog-witness, "add-checkpoint"). One connection per thread.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS witness_key (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    private_key BLOB NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS witness_logs (
    vkey TEXT PRIMARY KEY,
    origin TEXT NOT NULL,
    added TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS witness_latest (
    origin TEXT PRIMARY KEY,
    origin_hash TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    root BLOB NOT NULL,
    checkpoint TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS witness_failures (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    old_size INTEGER NOT NULL,
    size INTEGER NOT NULL,
    reason TEXT NOT NULL,
    request BLOB NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS witness_failures_by_origin ON witness_failures (origin, id);
CREATE TABLE IF NOT EXISTS witness_failure_counts (
    origin TEXT PRIMARY KEY,
    seen INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS witness_logs_kept BEFORE DELETE ON witness_logs
BEGIN SELECT RAISE(ABORT, 'a witness never forgets a log'); END;
CREATE TRIGGER IF NOT EXISTS witness_latest_kept BEFORE DELETE ON witness_latest
BEGIN SELECT RAISE(ABORT, 'a witness never forgets a log'); END;
CREATE TRIGGER IF NOT EXISTS witness_latest_grows BEFORE UPDATE ON witness_latest
WHEN NEW.size < OLD.size
BEGIN SELECT RAISE(ABORT, 'a witness never rolls a log back'); END;
"""


FAILURES_KEPT = 100
"""Failed requests kept per origin at each end: the first ones and the latest ones."""


class StateError(Exception):
    """The state file is missing, already made, or not a witness's state."""


@dataclass(frozen=True)
class Latest:
    """The latest checkpoint a witness cosigned for one log."""

    origin: str
    size: int
    root: bytes
    checkpoint: str


def origin_hash(origin: str) -> str:
    """The lowercase hex SHA-256 of an origin, as the monitoring URL names a log."""
    return hashlib.sha256(origin.encode()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Locked:
    """The state inside a write transaction: read the latest, then record the new one."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def latest(self, origin: str) -> Latest | None:
        """The latest checkpoint cosigned for ``origin`` (None if none yet)."""
        row = self._connection.execute(
            "SELECT size, root, checkpoint FROM witness_latest WHERE origin = ?", (origin,)
        ).fetchone()
        return None if row is None else Latest(origin, int(row[0]), bytes(row[1]), str(row[2]))

    def record(self, latest: Latest) -> None:
        """Make ``latest`` the log's latest cosigned checkpoint."""
        self._connection.execute(
            "INSERT INTO witness_latest (origin, origin_hash, size, root, checkpoint, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (origin) DO UPDATE SET size = excluded.size, "
            "root = excluded.root, checkpoint = excluded.checkpoint, updated = excluded.updated",
            (
                latest.origin,
                origin_hash(latest.origin),
                latest.size,
                latest.root,
                latest.checkpoint,
                _now(),
            ),
        )

    def failure(self, origin: str, old_size: int, size: int, reason: str, request: bytes) -> None:
        """Keep a request that failed a consistency check (committed with the transaction):
        count it, and drop the kept ones of its origin that are neither among the first nor
        among the latest ``FAILURES_KEPT``."""
        self._connection.execute(
            "INSERT INTO witness_failures (origin, old_size, size, reason, request, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (origin, old_size, size, reason, request, _now()),
        )
        self._connection.execute(  # a state made before the count counts the rows it kept
            "INSERT INTO witness_failure_counts (origin, seen) "
            "VALUES (?, (SELECT COUNT(*) FROM witness_failures WHERE origin = ?)) "
            "ON CONFLICT (origin) DO UPDATE SET seen = seen + 1",
            (origin, origin),
        )
        self._connection.execute(
            "DELETE FROM witness_failures WHERE origin = ?1 "
            "AND id > (SELECT id FROM witness_failures WHERE origin = ?1 "
            "ORDER BY id LIMIT 1 OFFSET ?2 - 1) "
            "AND id < (SELECT id FROM witness_failures WHERE origin = ?1 "
            "ORDER BY id DESC LIMIT 1 OFFSET ?2 - 1)",
            (origin, FAILURES_KEPT),
        )


class WitnessState:
    """A witness's SQLite state file."""

    def __init__(self, path: Path | str, *, create: bool = False) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StateError(f"no witness state at {self.path}: make one with `witness init`")
        self._local = threading.local()
        try:
            self._connection().executescript(SCHEMA)
        except sqlite3.DatabaseError as error:
            self.close()
            raise StateError(f"{self.path} is not a witness state ({error})") from None

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            self._local.connection = connection
        return connection

    def close(self) -> None:
        """Close this thread's connection."""
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    def make_key(self, name: str, private_key: bytes) -> None:
        """Store the witness's key; a state has one key for ever."""
        try:
            self._connection().execute(
                "INSERT INTO witness_key (id, name, private_key, created) VALUES (1, ?, ?, ?)",
                (name, private_key, _now()),
            )
        except sqlite3.IntegrityError:
            raise StateError(f"{self.path} already holds a witness key") from None

    def key(self) -> tuple[str, bytes]:
        """The witness's name and private key."""
        row = self._connection().execute("SELECT name, private_key FROM witness_key").fetchone()
        if row is None:
            raise StateError(f"{self.path} holds no witness key: run `witness init`")
        return str(row[0]), bytes(row[1])

    def add_logs(self, logs: list[tuple[str, str]]) -> None:
        """Trust more log keys, each ``(vkey, origin)`` (a key already known stays as it is)."""
        with self._write() as connection:
            for vkey, origin in logs:
                connection.execute(
                    "INSERT OR IGNORE INTO witness_logs (vkey, origin, added) VALUES (?, ?, ?)",
                    (vkey, origin, _now()),
                )

    def logs(self) -> list[str]:
        """Every log key the witness trusts (vkeys), in the order they were added."""
        rows = self._connection().execute("SELECT vkey FROM witness_logs ORDER BY rowid")
        return [str(row[0]) for row in rows]

    def latest_by_hash(self, hashed: str) -> Latest | None:
        """The latest cosigned checkpoint of the log whose origin hashes to ``hashed``."""
        row = (
            self._connection()
            .execute(
                "SELECT origin, size, root, checkpoint FROM witness_latest WHERE origin_hash = ?",
                (hashed,),
            )
            .fetchone()
        )
        if row is None:
            return None
        return Latest(str(row[0]), int(row[1]), bytes(row[2]), str(row[3]))

    def failures(self) -> list[tuple[str, int, int, str]]:
        """The failed consistency checks kept: origin, old size, size and reason."""
        rows = self._connection().execute(
            "SELECT origin, old_size, size, reason FROM witness_failures ORDER BY id"
        )
        return [(str(r[0]), int(r[1]), int(r[2]), str(r[3])) for r in rows]

    def failure_counts(self) -> dict[str, int]:
        """Per origin, how many failed consistency checks the witness has seen (kept or not)."""
        rows = self._connection().execute("SELECT origin, seen FROM witness_failure_counts")
        return {str(r[0]): int(r[1]) for r in rows}

    @contextmanager
    def transaction(self) -> Iterator[Locked]:
        """The state under the file's write lock, committed on a normal exit."""
        with self._write() as connection:
            yield Locked(connection)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        connection = self._connection()
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield connection
            connection.execute("COMMIT")
        except BaseException:
            # A failed COMMIT (a full disk, an I/O error) may leave the transaction open: roll
            # it back, or this connection would read, and serve, what was never persisted.
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
