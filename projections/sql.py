"""Read-only SQL over the analyst's dataset, with DuckDB (``questlog sql``, ``GET /analytics/sql``).

A query runs in a fresh in-memory DuckDB that holds only the tables it names, each registered from
the Arrow table ``projections.dataset`` builds (the same tables, and names, as the Parquet export),
and of those only the columns it names where it names them all (no ``*``). Before anything runs:

- the text must be one SELECT statement (``WITH ... SELECT`` too): DuckDB's own parser says so
  (``extract_statements``), so INSERT, ATTACH, COPY, INSTALL, LOAD, SET, PRAGMA or a second
  statement are refused;
- its syntax tree (``json_serialize_sql``) may name only Questlog tables (and its own CTEs), and
  call no table function but ``unnest``, ``range``, ``generate_series``, ``json_each`` and
  ``json_tree`` and no function that reads a file, a URL, DuckDB's catalogue or its secrets.

Then ``enable_external_access`` is turned off and the configuration locked, so even a way round
those checks reads no file, URL or extension. No DuckDB extension is ever installed or loaded
(``json`` and ``parquet`` are built in). A timer interrupts the query after ``timeout`` seconds,
and at most ``limit`` rows are answered (``truncated`` says if there were more).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

import duckdb
import pyarrow as pa

from domain.facade import Questlog
from projections.dataset import Scope, dataset_tables, snapshot
from projections.event_log import EVENTS_NAME
from projections.store import ViewStore

MAX_ROWS = 10_000
"""The rows answered by default."""
TIMEOUT = 10.0
"""Seconds a query may run by default."""
MAX_QUERY = 20_000
"""The longest query text accepted (characters)."""
TABLE_FUNCTIONS = frozenset({"unnest", "range", "generate_series", "json_each", "json_tree"})
"""The table functions a query may call: none of them reads anything outside the query."""
READERS = ("read_", "parquet_", "glob", "sniff_csv", "iceberg", "delta_", "csv_")
"""Name prefixes of functions that read files or URLs."""
RUNNERS = ("query", "json_execute_serialized_sql")
"""Name prefixes of functions that run SQL of their own."""
CATALOGUE = ("duckdb_", "pragma_", "which_secret", "current_setting", "getenv", "load_")
"""Name prefixes of functions that read DuckDB's own catalogue, settings, secrets or environment."""
REFUSED = "only SELECT over the Questlog tables"


class SqlRefused(Exception):
    """A query that is not one SELECT over the Questlog tables; the message says why."""

    def __init__(self, why: str) -> None:
        super().__init__(f"{REFUSED}: {why}")
        self.message = str(self)


class SqlFailed(Exception):
    """A query DuckDB could not run (a syntax error, an unknown column...)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.message = why


class SqlTimedOut(Exception):
    """A query still running when its time was up; it was interrupted."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            f"the query ran longer than {seconds:g} s and was stopped; narrow it (a WHERE, "
            "fewer joins) or raise the time limit"
        )
        self.message = str(self)
        self.seconds = seconds


@dataclass
class Plan:
    """What a query reads: per table, the columns it names (None: every column)."""

    tables: dict[str, set[str] | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """A query's answer: its columns (name and DuckDB type), rows, whether cut at the limit, and
    the position of each view it read."""

    columns: list[tuple[str, str]]
    rows: list[list[Any]]
    truncated: bool
    positions: dict[str, int]
    tables: list[str]


# -- checking a query -----------------------------------------------------------------------------


def check(query: str) -> Plan:
    """The tables and columns a query reads; raises ``SqlRefused`` if it may not run."""
    text = query.strip()
    if not text:
        raise SqlRefused("the query is empty")
    if len(text) > MAX_QUERY:
        raise SqlRefused(f"the query is longer than {MAX_QUERY} characters")
    with duckdb.connect(":memory:") as con:
        try:
            statements = con.extract_statements(text)
        except duckdb.Error as error:
            raise SqlFailed(_first_line(error)) from None
        if len(statements) != 1:
            raise SqlRefused(f"{len(statements)} statements; send one SELECT")
        kind = statements[0].type
        if kind != duckdb.StatementType.SELECT:
            article = "an" if kind.name[:1] in "AEIOU" else "a"
            raise SqlRefused(f"{article} {kind.name} statement; send one SELECT")
        serialized = con.execute("SELECT json_serialize_sql(?)", [text]).fetchone()
    tree = json.loads(serialized[0] if serialized else "{}")
    if tree.get("error"):
        raise SqlRefused(str(tree.get("error_message") or "not a plain SELECT"))
    return _plan(tree)


def _plan(tree: dict[str, Any]) -> Plan:
    known = dataset_tables()
    ctes: set[str] = set()
    tables: set[str] = set()
    columns: set[str] = set()
    everything = False
    for node in _nodes(tree):
        for entry in (node.get("cte_map") or {}).get("map", []) if "cte_map" in node else []:
            ctes.add(str(entry.get("key", "")).lower())
        kind = node.get("type")
        if kind == "BASE_TABLE":
            if node.get("catalog_name") or node.get("schema_name") not in ("", "main", None):
                raise SqlRefused(f"{_dotted(node)} is not a Questlog table")
            tables.add(str(node.get("table_name")))
        elif kind == "TABLE_FUNCTION":
            name = str((node.get("function") or {}).get("function_name", "")).lower()
            if name not in TABLE_FUNCTIONS:
                raise SqlRefused(_why_function(name, table=True))
        elif node.get("class") == "FUNCTION":
            _check_function(str(node.get("function_name", "")).lower())
        elif node.get("class") == "COLUMN_REF":
            columns.update(str(part).lower() for part in node.get("column_names", []))
        elif node.get("class") in ("STAR", "POSITIONAL_REFERENCE"):
            everything = True
        for name in node.get("using_columns") or []:
            columns.add(str(name).lower())
    plan = Plan()
    # DuckDB's names are case-insensitive, quoted or not.
    for given in sorted(tables):
        name = given.lower()
        if name in ctes:
            continue
        if name not in known:
            raise SqlRefused(f"no table named {given!r}; the tables are {', '.join(sorted(known))}")
        names = known[name].names
        whole = everything or name in columns or name == EVENTS_NAME
        named = [c for c in names if c in columns]
        # A query that names none of its columns (count(*)) still needs one to count rows by.
        plan.tables[name] = None if whole else set(named or names[:1])
    return plan


def _nodes(tree: Any) -> Iterator[dict[str, Any]]:
    """Every object in a syntax tree, depth first."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _check_function(name: str) -> None:
    if name.startswith((*READERS, *RUNNERS, *CATALOGUE)):
        raise SqlRefused(_why_function(name, table=False))


def _why_function(name: str, *, table: bool) -> str:
    if name.startswith(READERS):
        return f"{name} reads a file"
    if name.startswith(RUNNERS):
        return f"{name} runs SQL of its own"
    if name.startswith(CATALOGUE):
        return f"{name} reads DuckDB's own settings, catalogue or secrets"
    if table:
        allowed = ", ".join(sorted(TABLE_FUNCTIONS))
        return f"the table function {name} is not one of {allowed}"
    return f"{name} may not be called"


def _dotted(node: dict[str, Any]) -> str:
    parts = [node.get("catalog_name"), node.get("schema_name"), node.get("table_name")]
    return ".".join(str(p) for p in parts if p)


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


# -- running a query ------------------------------------------------------------------------------


def run_sql(
    app: Questlog,
    store: ViewStore,
    query: str,
    *,
    scope: Scope | None = None,
    limit: int = MAX_ROWS,
    timeout: float = TIMEOUT,
) -> Answer:
    """Run one read-only SELECT over the dataset's tables (only those it names)."""
    if limit < 1:
        raise ValueError("the row limit is at least 1")
    plan = check(query)
    with snapshot(app, store, scope) as data:
        loaded = {
            name: data.table(name, None if columns is None else sorted(columns), ordered=False)
            for name, columns in plan.tables.items()
        }
        positions = dict(data.positions)
    with _connection(loaded) as con, _interrupted(con, timeout) as timer:
        try:
            reader = con.sql(query.strip()).to_arrow_reader(min(limit + 1, 100_000))
            batches, count = [], 0
            for batch in reader:
                batches.append(batch)
                count += batch.num_rows
                if count > limit:
                    break
            result = pa.Table.from_batches(batches, reader.schema)
        except duckdb.InterruptException:
            raise SqlTimedOut(timeout) from None
        except duckdb.PermissionException as error:
            raise SqlRefused(_first_line(error)) from None
        except duckdb.Error as error:
            if timer.fired.is_set():
                raise SqlTimedOut(timeout) from None
            raise SqlFailed(_first_line(error)) from None
    types = [_sql_type(column.type) for column in result.schema]
    rows = [[plain(value) for value in row] for row in _rows(result.slice(0, limit))]
    return Answer(
        columns=list(zip(result.schema.names, types, strict=True)),
        rows=rows,
        truncated=result.num_rows > limit,
        positions=positions,
        tables=sorted(loaded),
    )


@contextmanager
def _connection(tables: dict[str, pa.Table]) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB with these tables, locked down before any user SQL runs."""
    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False})
    try:
        for name, arrow in tables.items():
            con.register(name, arrow)
        con.execute("SET autoload_known_extensions = false")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        yield con
    finally:
        con.close()


@dataclass
class _Timer:
    fired: threading.Event


@contextmanager
def _interrupted(con: duckdb.DuckDBPyConnection, seconds: float) -> Iterator[_Timer]:
    """Interrupt the connection's query after ``seconds``."""
    timer = _Timer(threading.Event())

    def fire() -> None:
        timer.fired.set()
        con.interrupt()

    clock = threading.Timer(seconds, fire)
    clock.daemon = True
    clock.start()
    try:
        yield timer
    finally:
        clock.cancel()


def _sql_type(data_type: pa.DataType) -> str:
    """A column's type as SQL names it, from the Arrow type DuckDB answered with."""
    if pa.types.is_boolean(data_type):
        return "BOOLEAN"
    if pa.types.is_integer(data_type):
        return "BIGINT" if data_type.bit_width == 64 else f"INT{data_type.bit_width}"
    if pa.types.is_floating(data_type):
        return "DOUBLE"
    if pa.types.is_decimal(data_type):
        return f"DECIMAL({data_type.precision},{data_type.scale})"
    if pa.types.is_string(data_type) or pa.types.is_large_string(data_type):
        return "VARCHAR"
    if pa.types.is_string_view(data_type):
        return "VARCHAR"
    if pa.types.is_date(data_type):
        return "DATE"
    if pa.types.is_timestamp(data_type):
        return "TIMESTAMP WITH TIME ZONE" if data_type.tz else "TIMESTAMP"
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return f"{_sql_type(data_type.value_type)}[]"
    if pa.types.is_struct(data_type):
        inner = ", ".join(f"{f.name} {_sql_type(f.type)}" for f in data_type)
        return f"STRUCT({inner})"
    return str(data_type).upper()


def _rows(table: pa.Table) -> Iterator[tuple[Any, ...]]:
    columns = [column.to_pylist() for column in table.columns]
    return zip(*columns, strict=True) if columns else iter(())


def plain(value: Any) -> Any:
    """A value as JSON writes it: times in ISO 8601, decimals as numbers, nested values too."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Decimal):  # a sum of integers is a 128-bit integer in DuckDB
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return str(value)
