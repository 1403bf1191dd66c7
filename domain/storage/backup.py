"""A consistent copy of a SQLite store while it runs (``questlog backup FILE``).

SQLite's online backup API copies the database inside one read transaction: in WAL mode writers
go on meanwhile, and the copy is the store as it was at one instant, every campaign a prefix of
its log with its side rows (seeds, tokens, idempotency keys) from the same instant. The copy is
written under a temporary name beside the target and renamed into place, so a crash never
leaves a half-written file under the target's name.

The views file is not copied: the views are derived from the log and a runner rebuilds them
from the events (a new views file starts at position 0 and catches up).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from uuid import uuid4

from domain.storage.store import StoreConfig

PG_DUMP_HINT = (
    "questlog backup copies a SQLite store; this store is PostgreSQL. Back it up with pg_dump "
    "(pg_dump --format=custom --schema=SCHEMA --file=FILE URL) and restore it with pg_restore, "
    "as docs/operations.md shows."
)


class BackupRefused(Exception):
    """The backup was not taken, and nothing was written; the message says why."""


@dataclass(frozen=True)
class BackupResult:
    """What a backup wrote: the file and its size."""

    path: Path
    bytes: int


def backup_store(config: StoreConfig, target: Path, *, force: bool = False) -> BackupResult:
    """Copy the configured store to ``target``; refuse a PostgreSQL store, a missing store, the
    store itself as target, and an existing target unless ``force``."""
    if config.kind != "sqlite" or config.sqlite_path is None:
        raise BackupRefused(PG_DUMP_HINT)
    source = config.sqlite_path
    if not source.is_file():
        raise BackupRefused(f"No SQLite store at {source} (QUESTLOG_DB): nothing to back up.")
    if target.exists() and target.resolve() == source.resolve():
        raise BackupRefused(f"FILE {target} is the store itself; name another file.")
    if target.is_dir():
        raise BackupRefused(f"FILE {target} is a directory; name a file.")
    if target.exists() and not force:
        raise BackupRefused(f"FILE {target} exists; add --force to replace it.")
    if not target.parent.is_dir():
        raise BackupRefused(f"FILE {target}: the directory {target.parent} does not exist.")
    partial = target.with_name(f".{target.name}.{uuid4().hex}.partial")
    try:
        copy_sqlite(source, partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return BackupResult(target, target.stat().st_size)


def copy_sqlite(source: Path, target: Path) -> None:
    """Copy a live SQLite database in one step (one read transaction: one instant of the store)
    into a self-contained file (rollback journal, no ``-wal`` beside it), synced to disk.

    Read-only on the source, so a wrong path never creates an empty store. A step-by-step copy
    would restart each time a writer changed the source and might never finish under load.
    """
    reading = sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    writing = sqlite3.connect(target)
    try:
        reading.backup(writing)
        writing.execute("PRAGMA journal_mode=DELETE")
        checked = writing.execute("PRAGMA quick_check").fetchone()
        if checked is None or checked[0] != "ok":
            raise BackupRefused(f"The copy failed SQLite's check: {checked}; the store is kept.")
    finally:
        writing.close()
        reading.close()
    with open(target, "rb") as written:
        os.fsync(written.fileno())
