"""Where the views live: a SQLite file beside the event store, or tables in the PostgreSQL schema.

A ``ViewStore`` runs the views' SQL (written once, with ``?`` placeholders and ``{logical}`` table
names) on either database, keeps one position row per view (the last event applied, by its place in
the log's order: ``domain.storage.log_order``), and creates, drops and swaps a view's tables. Writes
are transactions: a batch's rows and the positions it moves commit together or not at all.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from eventsourcing.postgres import PostgresDatastore

from domain import settings
from domain.facade import (
    EVENTS_TABLE,
    START,
    VIEWS_SETUP_LOCK_KEY,
    LogPosition,
    StoreConfig,
    legacy_positions_statements,
    restart_tlog,
    session_lock,
)
from projections import revisions
from projections.schema import POSITIONS, POSITIONS_TABLE, Table, ViewTables

PREFIX = "view_"
COPY_FROM = 16
"""From this many rows, PostgreSQL inserts go by ``COPY`` (``PostgresViewStore.write_rows``)."""
NEW = "__new"
"""The suffix of the tables a rebuild fills before it swaps them in."""


class _Names(dict[str, str]):
    """Logical table names -> physical names, for ``str.format_map``."""

    def __init__(self, store: ViewStore, suffix: str) -> None:
        super().__init__()
        self.store = store
        self.suffix = suffix

    def __missing__(self, logical: str) -> str:
        suffix = "" if logical == POSITIONS else self.suffix
        return self.store.physical(logical, suffix)


class ViewStore(ABC):
    """The views' database: SQL in one dialect-neutral form, positions, and table management."""

    kind: ClassVar[str]
    placeholder: ClassVar[str] = "?"
    lock_clause: ClassVar[str] = ""

    def __init__(self) -> None:
        self._sql: dict[tuple[str, str], str] = {}

    # -- names and SQL ----------------------------------------------------------------------

    @staticmethod
    def bare(logical: str, suffix: str = "") -> str:
        """The unqualified table name of a logical table: ``view_<logical><suffix>``."""
        return f"{PREFIX}{logical}{suffix}"

    @abstractmethod
    def physical(self, logical: str, suffix: str = "") -> str:
        """The name to use in SQL (quoted and schema-qualified where needed)."""

    def sql(self, template: str, suffix: str = "") -> str:
        """The template with its ``{logical}`` names resolved and placeholders converted."""
        key = (template, suffix)
        statement = self._sql.get(key)
        if statement is None:
            statement = template.format_map(_Names(self, suffix))
            if self.placeholder != "?":
                statement = statement.replace("?", self.placeholder)
            self._sql[key] = statement
        return statement

    # -- transactions -----------------------------------------------------------------------

    @abstractmethod
    @contextmanager
    def write(self) -> Iterator[Any]:
        """A write transaction: commits when the block ends, rolls back if it raises."""

    @abstractmethod
    @contextmanager
    def read(self) -> Iterator[Any]:
        """A read-only transaction with one consistent snapshot."""

    def write_rows(
        self,
        cursor: Any,
        spec: Table,
        logical: str,
        rows: Sequence[tuple[Any, ...]],
        *,
        suffix: str = "",
        upsert: bool = False,
    ) -> None:
        """Insert (or upsert) rows into a logical table with one ``executemany``.

        (psycopg pipelines ``executemany``; multi-row VALUES statements measured slower.)
        """
        name = "{" + logical + "}"
        statement = spec.upsert_sql(name) if upsert else spec.insert_sql(name)
        cursor.executemany(self.sql(statement, suffix), rows)

    def rows(self, cursor: Any, template: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run a query and return its rows as dicts."""
        cursor.execute(self.sql(template), tuple(params))
        return [dict(row) for row in cursor.fetchall()]

    @abstractmethod
    def close(self) -> None:
        """Close the store's connections."""

    # -- positions --------------------------------------------------------------------------

    def lock_position(self, cursor: Any, key: str) -> tuple[LogPosition, int]:
        """A view's position and applied count, locked until the transaction ends."""
        cursor.execute(
            self.sql(
                "SELECT transaction_id, position, applied FROM {positions} WHERE view = ?"
                + self.lock_clause
            ),
            (key,),
        )
        row = cursor.fetchone()
        if row is None:
            return START, 0
        return position_in(row), int(row["applied"])

    def set_position(self, cursor: Any, key: str, position: LogPosition, applied: int) -> None:
        """Record a view's position and applied count (in the caller's transaction)."""
        cursor.execute(
            self.sql(POSITIONS_TABLE.upsert_sql("{positions}")),
            (
                key,
                position.notification,
                applied,
                datetime.now(UTC).isoformat(),
                position.transaction,
            ),
        )

    def positions(self) -> dict[str, dict[str, Any]]:
        """Every position row, by view (rebuilds in progress end in ``__new``); none before any
        views process has made the positions table."""
        try:
            with self.read() as cursor:
                found = self.rows(cursor, "SELECT * FROM {positions} ORDER BY view")
        except Exception as error:
            if _no_such_table(error):
                return {}
            raise
        return {str(row.pop("view")): row for row in found}

    def wait_for(self, position: LogPosition, names: Iterable[str], timeout: float = 5.0) -> bool:
        """Wait until every named view has applied ``position``; False on timeout."""
        wanted = list(names)
        deadline = time.monotonic() + timeout
        delay = 0.005
        while True:
            current = self.positions()
            if all(position_in(current.get(name, {})) >= position for name in wanted):
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, 0.1)

    # -- tables -----------------------------------------------------------------------------

    def create(self, cursor: Any, view: ViewTables, suffix: str = "", *, indexes: bool) -> None:
        """Create a view's tables (and, unless deferred, its indexes) and its position row."""
        for logical, spec in view.all_tables().items():
            bare = self.bare(logical, suffix)
            cursor.execute(spec.create_sql(self.physical(logical, suffix), f"{bare}_pkey"))
            self.add_new_columns(cursor, self.physical(logical, suffix), spec)
            if indexes:
                self.create_indexes(cursor, logical, spec, suffix)
        cursor.execute(
            self.sql(
                "INSERT INTO {positions} (view, position, applied, transaction_id) "
                "VALUES (?, 0, 0, 0) ON CONFLICT (view) DO NOTHING"
            ),
            (view.name + suffix,),
        )

    @staticmethod
    def add_new_columns(cursor: Any, physical: str, spec: Table) -> None:
        """Add the columns a later release gave a table that an earlier release created.

        A column added to a view after its first release is nullable, and NULL in the rows
        written before it (a roll's ``entropy``, say: the rolls before it carried none).
        """
        cursor.execute(f"SELECT * FROM {physical} LIMIT 0")
        present = {column[0] for column in cursor.description}
        for name, kind in spec.columns:
            if name not in present:
                cursor.execute(f"ALTER TABLE {physical} ADD COLUMN {name} {kind}")

    def create_indexes(self, cursor: Any, logical: str, spec: Table, suffix: str = "") -> None:
        """Create the secondary indexes of one table."""
        for name, columns in spec.indexes.items():
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {self.bare(logical, suffix)}_{name} "
                f"ON {self.physical(logical, suffix)} ({', '.join(columns)})"
            )

    def ensure(self, views: Sequence[ViewTables]) -> None:
        """Create the positions table and every view's tables, indexes and position row."""
        with self.setup_lock(), self.write() as cursor:
            positions = self.physical(POSITIONS)
            cursor.execute(POSITIONS_TABLE.create_sql(positions, f"{self.bare(POSITIONS)}_pkey"))
            self.add_new_columns(cursor, positions, POSITIONS_TABLE)
            self.order_legacy_positions(cursor)
            revisions.start_outdated_again(self, cursor, views)
            for view in views:
                self.create(cursor, view, indexes=True)
            revisions.record(self, cursor, views)

    def order_legacy_positions(self, cursor: Any) -> None:
        """Give the positions an earlier release recorded (a notification id alone) their place
        in the log's order. On SQLite the ids are the order: nothing to do."""
        del cursor

    def drop(self, cursor: Any, view: ViewTables, suffix: str = "") -> None:
        """Drop a view's tables and forget its position."""
        self._drop_tables(cursor, view, suffix)
        cursor.execute(self.sql("DELETE FROM {positions} WHERE view = ?"), (view.name + suffix,))

    def _drop_tables(self, cursor: Any, view: ViewTables, suffix: str = "") -> None:
        for logical in view.all_tables():
            cursor.execute(f"DROP TABLE IF EXISTS {self.physical(logical, suffix)}")

    def swap(self, cursor: Any, view: ViewTables, position: LogPosition, applied: int) -> None:
        """Replace a view's tables by its rebuilt ``__new`` tables, in the caller's transaction.

        The live position row is updated in place, never deleted and inserted again: a runner
        waiting on its lock then reads the new position (a deleted row would read as absent).
        """
        self._drop_tables(cursor, view)
        for logical, spec in view.all_tables().items():
            self.rename(cursor, logical)
            self.create_indexes(cursor, logical, spec)
        cursor.execute(self.sql("DELETE FROM {positions} WHERE view = ?"), (view.name + NEW,))
        self.set_position(cursor, view.name, position, applied)

    @abstractmethod
    def rename(self, cursor: Any, logical: str) -> None:
        """Rename a logical table's ``__new`` table (and its key) to the live name."""

    @contextmanager
    def setup_lock(self) -> Iterator[None]:
        """Serialise table creation across processes (a no-op where the write lock suffices)."""
        yield


class SQLiteViewStore(ViewStore):
    """Views in their own SQLite file (WAL), one connection per thread."""

    kind = "sqlite"

    def __init__(self, path: Any) -> None:
        super().__init__()
        self.path = str(path)
        self._local = threading.local()
        self._connections: list[Any] = []
        self._guard = threading.Lock()

    def physical(self, logical: str, suffix: str = "") -> str:
        """SQLite names need no quoting or schema."""
        return self.bare(logical, suffix)

    def _connection(self) -> Any:
        import sqlite3

        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
            connection.row_factory = _dict_row
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            self._local.connection = connection
            with self._guard:
                self._connections.append(connection)
        return connection

    @contextmanager
    def write(self) -> Iterator[Any]:
        """``BEGIN IMMEDIATE``: the write lock is taken up front, so positions read are final."""
        connection = self._connection()
        cursor = connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        try:
            yield cursor
        except BaseException:
            connection.rollback()
            raise
        connection.commit()

    @contextmanager
    def read(self) -> Iterator[Any]:
        """A deferred transaction: WAL gives it one snapshot from its first read."""
        connection = self._connection()
        cursor = connection.cursor()
        cursor.execute("BEGIN")
        try:
            yield cursor
        finally:
            connection.rollback()

    def rename(self, cursor: Any, logical: str) -> None:
        """``ALTER TABLE ... RENAME``: SQLite renames the key's automatic index with it."""
        cursor.execute(
            f"ALTER TABLE {self.physical(logical, NEW)} RENAME TO {self.physical(logical)}"
        )

    def close(self) -> None:
        """Close every thread's connection."""
        with self._guard:
            for connection in self._connections:
                connection.close()
            self._connections.clear()
        self._local = threading.local()


def _dict_row(cursor: Any, row: tuple[Any, ...]) -> dict[str, Any]:
    return {column[0]: value for column, value in zip(cursor.description, row, strict=True)}


class PostgresViewStore(ViewStore):
    """Views as tables in the event store's PostgreSQL schema, through a connection pool."""

    kind = "postgres"
    placeholder = "%s"
    lock_clause = " FOR UPDATE"

    def __init__(self, datastore: Any, *, owns: bool = True) -> None:
        super().__init__()
        self.datastore = datastore
        self.schema = datastore.schema
        self.owns = owns

    def _quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def write_rows(
        self,
        cursor: Any,
        spec: Table,
        logical: str,
        rows: Sequence[tuple[Any, ...]],
        *,
        suffix: str = "",
        upsert: bool = False,
    ) -> None:
        """Insert many rows with ``COPY ... FROM STDIN``, upsert or insert a few with
        ``executemany``.

        ``COPY`` checks the rows as an INSERT does (a duplicate key fails it) and costs the
        client a sixth of ``executemany``'s pipelined statements, but a round trip more: the two
        took the same time for 16 rows on this machine, ``COPY`` half as long for 64.
        """
        if upsert or len(rows) < COPY_FROM:
            super().write_rows(cursor, spec, logical, rows, suffix=suffix, upsert=upsert)
            return
        columns = ", ".join(spec.names)
        with cursor.copy(f"COPY {self.physical(logical, suffix)} ({columns}) FROM STDIN") as copy:
            write = copy.write_row
            for row in rows:
                write(row)

    def physical(self, logical: str, suffix: str = "") -> str:
        """``"schema"."view_<logical><suffix>"``."""
        return f"{self._quote(self.schema)}.{self._quote(self.bare(logical, suffix))}"

    @contextmanager
    def write(self) -> Iterator[Any]:
        """A pooled connection's transaction, committed when the block ends."""
        with self.datastore.transaction(commit=True) as cursor:
            yield cursor

    @contextmanager
    def read(self) -> Iterator[Any]:
        """A repeatable-read, read-only transaction: every query sees one snapshot."""
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield cursor

    @contextmanager
    def setup_lock(self) -> Iterator[None]:
        """An advisory lock, so two processes never race on ``CREATE TABLE``."""
        with (
            self.datastore.get_connection() as connection,
            session_lock(connection, (VIEWS_SETUP_LOCK_KEY,)),
        ):
            yield

    def order_legacy_positions(self, cursor: Any) -> None:
        """``log_order.legacy_positions_statements`` on this schema's events table, where a
        position has no transaction id yet (so a view store with no events table opens too)."""
        positions = self.physical(POSITIONS)
        cursor.execute(f"SELECT 1 FROM {positions} WHERE transaction_id IS NULL LIMIT 1")
        if cursor.fetchone() is not None:
            events, *others = legacy_positions_statements(self.schema, EVENTS_TABLE, positions)
            cursor.execute(events)
            if cursor.rowcount > 0:  # (events moved: the log's integrator reads them again)
                restart_tlog(cursor, self.schema)
            for statement in others:
                cursor.execute(statement)

    def rename(self, cursor: Any, logical: str) -> None:
        """Rename the table and its key's index (index names are schema-wide)."""
        cursor.execute(
            f"ALTER TABLE {self.physical(logical, NEW)} RENAME TO {self._quote(self.bare(logical))}"
        )
        cursor.execute(
            f"ALTER INDEX {self._quote(self.schema)}."
            f"{self._quote(self.bare(logical, NEW) + '_pkey')} "
            f"RENAME TO {self._quote(self.bare(logical) + '_pkey')}"
        )

    def close(self) -> None:
        """Close the pool, if this store opened it."""
        if self.owns:
            self.datastore.close()


def position_in(row: Any) -> LogPosition:
    """The position of a row of the positions table (a view not yet run: the start)."""
    if not row:
        return START
    return LogPosition(int(row.get("transaction_id") or 0), int(row["position"]))


def views_path_for(sqlite_path: Path) -> Path:
    """The default views file beside an event store: ``questlog.db`` -> ``questlog.views.db``."""
    return sqlite_path.with_name(f"{sqlite_path.stem}.views{sqlite_path.suffix or '.db'}")


def postgres_datastore(config: StoreConfig, *, pool_size: int = 2) -> PostgresDatastore:
    """A small connection pool on the event store's PostgreSQL database and schema."""
    env = config.application_env("VIEWS")
    return PostgresDatastore(
        dbname=env["VIEWS_POSTGRES_DBNAME"],
        host=env["VIEWS_POSTGRES_HOST"],
        port=env["VIEWS_POSTGRES_PORT"],
        user=env["VIEWS_POSTGRES_USER"],
        password=env["VIEWS_POSTGRES_PASSWORD"],
        pool_size=pool_size,
        max_overflow=4,
        lock_timeout=int(env["VIEWS_POSTGRES_LOCK_TIMEOUT"]),
        schema=config.postgres_schema or "",
    )


def _no_such_table(error: BaseException) -> bool:
    """Whether a query failed because its table does not exist (SQLite or PostgreSQL; the
    driver's error may be wrapped by eventsourcing's)."""
    cause: BaseException | None = error
    while cause is not None:
        if getattr(cause, "sqlstate", None) == "42P01":  # PostgreSQL: undefined_table
            return True
        if "no such table" in str(cause):
            return True
        cause = cause.__cause__
    return False


def open_view_store(config: StoreConfig, views_path: Path | None = None) -> ViewStore:
    """The view store of an event store: its ``.views.db`` file, or its PostgreSQL schema.

    ``views_path`` (or ``QUESTLOG_VIEWS_DB``) puts the SQLite views elsewhere.
    """
    if config.kind == "postgres":
        return PostgresViewStore(postgres_datastore(config))
    assert config.sqlite_path is not None
    path = views_path or settings.read().views_db or views_path_for(config.sqlite_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return SQLiteViewStore(path)
