"""Storage: where the log lives, on a SQLite file (the default) or PostgreSQL.

``StoreConfig`` turns the configuration into the eventsourcing environment of the recorders
(``domain.storage.recorders``), which keep the side tables (``domain.storage.side_tables``).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from eventsourcing.postgres import PostgresDatastore

from domain import settings
from domain.storage.advisory_locks import (
    SETUP_LOCK_KEY,
    session_lock,
)


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``<path>.lock`` beside ``path``, across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True)
class StoreConfig:
    """Where the log lives: a SQLite file (default) or a PostgreSQL URL.

    ``sqlite_path`` may be given as a ``str`` or any path-like; it is kept as a ``Path``.
    """

    sqlite_path: Path | None = None
    database_url: str | None = None
    postgres_schema: str | None = None
    signing_key: Path | None = None
    """The signing key ring's file (default: beside a SQLite store; PostgreSQL: a table)."""
    log_name: str | None = None
    """The log's name, given to a new key ring (``domain.storage.keys``)."""

    def __init__(
        self,
        sqlite_path: str | os.PathLike[str] | None = None,
        database_url: str | None = None,
        postgres_schema: str | None = None,
        signing_key: str | os.PathLike[str] | None = None,
        log_name: str | None = None,
    ) -> None:
        path = None if sqlite_path is None else Path(sqlite_path)
        object.__setattr__(self, "sqlite_path", path)
        object.__setattr__(self, "database_url", database_url)
        object.__setattr__(self, "postgres_schema", postgres_schema)
        object.__setattr__(self, "signing_key", None if signing_key is None else Path(signing_key))
        object.__setattr__(self, "log_name", log_name)

    @classmethod
    def from_environ(cls, environ: dict[str, str] | None = None) -> StoreConfig:
        """Read ``QUESTLOG_DATABASE_URL`` (PostgreSQL) or ``QUESTLOG_DB`` (SQLite file), and
        ``QUESTLOG_SIGNING_KEY`` and ``QUESTLOG_LOG_NAME`` (the key ring)."""
        chosen = settings.read(environ)
        keys: dict[str, Any] = {"signing_key": chosen.signing_key, "log_name": chosen.log_name}
        if chosen.database_url:
            return cls(database_url=chosen.database_url, postgres_schema=chosen.pg_schema, **keys)
        return cls(sqlite_path=chosen.sqlite_file, **keys)

    @property
    def kind(self) -> str:
        """'postgres' or 'sqlite'."""
        return "postgres" if self.database_url else "sqlite"

    def describe(self) -> str:
        """Where the store is, without any password."""
        if self.database_url:
            parts = urlsplit(self.database_url)
            return f"postgresql://{parts.hostname}:{parts.port or 5432}{parts.path}"
        return f"sqlite:{self.sqlite_path}"

    def application_env(self, prefix: str) -> dict[str, str]:
        """The eventsourcing environment for this store, with keys prefixed by the app name."""
        env: dict[str, str] = {}
        if self.database_url:
            parts = urlsplit(self.database_url)
            if parts.scheme not in ("postgresql", "postgres"):
                raise ValueError("QUESTLOG_DATABASE_URL must start with postgresql://")
            env.update(
                PERSISTENCE_MODULE="eventsourcing.postgres",
                POSTGRES_DBNAME=unquote(parts.path.lstrip("/")) or "postgres",
                POSTGRES_HOST=parts.hostname or "127.0.0.1",
                POSTGRES_PORT=str(parts.port or 5432),
                POSTGRES_USER=unquote(parts.username or "postgres"),
                POSTGRES_PASSWORD=unquote(parts.password or ""),
                POSTGRES_POOL_SIZE="4",
                POSTGRES_MAX_OVERFLOW="16",
                POSTGRES_LOCK_TIMEOUT="10",
                POSTGRES_CONNECT_TIMEOUT="3",
                POSTGRES_PRE_PING="y",
                POSTGRES_ENABLE_DB_FUNCTIONS="no",
                APPLICATION_RECORDER_TOPIC="domain.storage.recorders:PostgresRecorder",
            )
            if self.postgres_schema:
                env["POSTGRES_SCHEMA"] = self.postgres_schema
        else:
            assert self.sqlite_path is not None
            env.update(
                PERSISTENCE_MODULE="eventsourcing.sqlite",
                SQLITE_DBNAME=str(self.sqlite_path),
                SQLITE_LOCK_TIMEOUT="30",
                APPLICATION_RECORDER_TOPIC="domain.storage.recorders:SQLiteRecorder",
            )
        return {f"{prefix}_{key}": value for key, value in env.items()}

    @contextmanager
    def _postgres_setup_lock(self) -> Iterator[None]:
        """A PostgreSQL advisory lock, so concurrent first starts do not race on CREATE TABLE."""
        env = self.application_env("LOCK")
        datastore = PostgresDatastore(
            dbname=env["LOCK_POSTGRES_DBNAME"],
            host=env["LOCK_POSTGRES_HOST"],
            port=env["LOCK_POSTGRES_PORT"],
            user=env["LOCK_POSTGRES_USER"],
            password=env["LOCK_POSTGRES_PASSWORD"],
        )
        try:
            with (
                datastore.get_connection() as connection,
                session_lock(connection, (SETUP_LOCK_KEY,)),
            ):
                yield
        finally:
            datastore.close()

    @contextmanager
    def creation_lock(self) -> Iterator[None]:
        """Serialise first-time setup of a SQLite file across processes (no-op on PostgreSQL).

        Two processes that open a new file together would both switch it to WAL mode and create
        tables; SQLite then answers "database is locked" to one of them. An exclusive ``flock`` on
        a lock file beside the database makes the second wait until the first is done.
        """
        if self.sqlite_path is None:
            with self._postgres_setup_lock():
                yield
            return
        with file_lock(self.sqlite_path):
            yield
