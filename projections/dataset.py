"""The analyst's dataset: every view's row tables and the event log, as typed Arrow tables.

One module builds it, and every consumer reads it from here: ``questlog export --all`` (Parquet
files, ``projections.parquet``), ``questlog sql`` and ``GET /analytics/sql`` (DuckDB,
``projections.sql``). It is driven by the ``Table`` definitions of the views (``ALL_VIEWS``): a
column's SQL type and its ``kinds`` give its Arrow type (``projections.columns``), and its
``doc`` the words of the data dictionary. A view added with its ``doc`` and
``kinds`` is in the dataset without a change here; the per-campaign state tables
(``<view>_campaigns``) are internal and left out.

Every table comes from one snapshot of the view store (one read transaction), read in key order a
chunk at a time and built column by column. The event log (``events``) is read in the log's order
up to the position every view had reached in that snapshot, so its events are exactly the ones the
view tables were made from (``projections.event_log``). Its payloads never hold a seed or a
token: a seed reveal's seed is left out (its commitment stays), and an actor is named by its
token's name without the token's id.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from uuid import uuid4

import pyarrow as pa

from domain.facade import START, Questlog
from projections.columns import arrow_schema, record_batch
from projections.event_log import EVENTS, EVENTS_NAME, EventRows
from projections.schema import Table
from projections.store import ViewStore, position_in
from projections.views import ALL_VIEWS

CHUNK = 50_000
"""Rows per query and per record batch: what the export holds in memory at once per table."""


def stream(
    store: ViewStore, cursor: Any, template: str, params: Sequence[Any], size: int
) -> Iterator[list[Any]]:
    """Run a query in the read's transaction and give its rows as plain tuples, ``size`` at a
    time, never all at once: a server-side cursor on PostgreSQL, a second cursor of the
    connection on SQLite (no dict per row: the columns are built from the tuples)."""
    if store.kind == "postgres":
        from psycopg.rows import tuple_row

        reader = cursor.connection.cursor(name=f"dataset_{uuid4().hex}", row_factory=tuple_row)
    else:
        reader = cursor.connection.cursor()
        reader.row_factory = None
    try:
        reader.execute(store.sql(template), tuple(params))
        while rows := reader.fetchmany(size):
            yield rows
    finally:
        reader.close()


INTERNAL_TABLES = frozenset({"command_index"})
"""View tables that are a view's own lookups, not facts for an analyst (the rollbacks view's
index of every command, which ``rollback_commands`` and ``events.command_type`` already show)."""


def row_tables() -> dict[str, Table]:
    """Every view's row tables by name, in the views' order (not their state tables, nor their
    internal lookups)."""
    return {
        name: spec
        for view in ALL_VIEWS
        for name, spec in view.tables.items()
        if name not in INTERNAL_TABLES
    }


def dataset_tables() -> dict[str, Table]:
    """Every table of the dataset by name: the views' row tables, then ``events``."""
    return {**row_tables(), EVENTS_NAME: EVENTS}


def schema_of(name: str, columns: Sequence[str] | None = None) -> pa.Schema:
    """The Arrow schema of a table of the dataset, or of some of its columns (in its order)."""
    tables = dataset_tables()
    if name not in tables:
        raise KeyError(f"no table named {name!r}; the tables are {', '.join(tables)}")
    schema = arrow_schema(name, tables[name])
    if columns is None:
        return schema
    wanted = set(columns)
    return pa.schema([column for column in schema if column.name in wanted])


@dataclass(frozen=True)
class Scope:
    """Which campaigns the dataset holds: one campaign, one game's, or all."""

    campaign_id: str | None = None
    game: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """The condition on a view table's rows (``?`` parameters) and its parameters."""
        conditions, params = ["1 = 1"], []
        if self.campaign_id is not None:
            conditions.append("campaign_id = ?")
            params.append(self.campaign_id)
        if self.game is not None:
            conditions.append("campaign_id IN (SELECT campaign_id FROM {campaigns} WHERE game = ?)")
            params.append(self.game)
        return " AND ".join(conditions), params


class Dataset:
    """One snapshot of the view store, read a table at a time (see ``snapshot``)."""

    def __init__(
        self, app: Questlog, store: ViewStore, cursor: Any, scope: Scope, chunk: int = CHUNK
    ) -> None:
        self.app = app
        self.store = store
        self.cursor = cursor
        self.scope = scope
        self.chunk = chunk
        rows = store.rows(cursor, "SELECT view, position, transaction_id FROM {positions}")
        found = {str(row["view"]): row for row in rows}
        self.positions = {
            view.name: int(found[view.name]["position"]) if view.name in found else 0
            for view in ALL_VIEWS
        }
        """Each view's position in the snapshot (the notification id of its last event)."""
        self.until = min((position_in(found.get(view.name)) for view in ALL_VIEWS), default=START)
        """The events every view had applied: the event log is read up to here."""

    def batches(
        self, name: str, columns: Sequence[str] | None = None, *, ordered: bool = True
    ) -> Iterator[pa.RecordBatch]:
        """A table's rows, a chunk at a time: every column, or only ``columns`` (of a view
        table, in the table's order); in key order (the event log in the log's order), or as the
        store reads them fastest (``ordered=False``, for a query that orders them itself)."""
        schema = schema_of(name, columns)
        if name == EVENTS_NAME:
            log = EventRows(
                self.app,
                self.until,
                self.chunk,
                campaign_id=self.scope.campaign_id,
                game=self.scope.game,
            )
            yield from log.batches(schema_of(name))
            return
        spec = dataset_tables()[name]
        where, params = self.scope.where()
        statement = f"SELECT {', '.join(schema.names)} FROM {{{name}}} WHERE {where}"
        if ordered:
            statement += f" ORDER BY {', '.join(spec.key)}"
        empty = True
        for rows in stream(self.store, self.cursor, statement, params, self.chunk):
            empty = False
            yield record_batch(name, schema, rows)
        if empty:
            yield record_batch(name, schema, [])

    def table(
        self, name: str, columns: Sequence[str] | None = None, *, ordered: bool = True
    ) -> pa.Table:
        """A whole table of the dataset (every column, or only ``columns``)."""
        batches = list(self.batches(name, columns, ordered=ordered))
        if name == EVENTS_NAME and columns is not None:
            return pa.Table.from_batches(batches).select(list(schema_of(name, columns).names))
        return pa.Table.from_batches(batches, schema_of(name, columns))


@contextmanager
def snapshot(app: Questlog, store: ViewStore, scope: Scope | None = None) -> Iterator[Dataset]:
    """The dataset of one snapshot of the views (a read transaction held while the block runs)."""
    with store.read() as cursor:
        yield Dataset(app, store, cursor, scope or Scope())


def tables(
    app: Questlog,
    store: ViewStore,
    *,
    scope: Scope | None = None,
    names: Sequence[str] | None = None,
) -> Iterator[tuple[str, pa.Table]]:
    """Each table of the dataset (``names``, else all) as one Arrow table, from one snapshot."""
    with snapshot(app, store, scope) as data:
        for name in names or list(dataset_tables()):
            yield name, data.table(name)
