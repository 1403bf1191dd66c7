"""Table definitions of the views, written once for both SQLite and PostgreSQL.

Only portable types are used: ``TEXT``, ``INTEGER`` (small numbers and 0/1 flags) and ``BIGINT``
(notification ids and positions; SQLite stores every integer in 64 bits anyway). JSON values are
``TEXT``. Every table of a view has the campaign id first in its primary key, so a view's own
reads and rollback updates use the key even while a rebuild defers the secondary indexes.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

POSITIONS = "positions"
"""The logical name of the table of view positions (one row per view, and per rebuild)."""


class ViewTables(Protocol):
    """What the view store needs of a view class: its name and its tables by logical name."""

    @property
    def name(self) -> str:
        """The view's name (its row in the positions table)."""
        ...

    @property
    def revision(self) -> int:
        """The revision of what the view's rows hold: a view built at a lower one is rebuilt."""
        ...

    def all_tables(self) -> dict[str, Table]:
        """The view's tables by logical name."""
        ...


KINDS = ("bool", "date", "timestamp", "json")
"""What a column holds beyond its SQL type, for the analyst's dataset (``projections.dataset``):
``bool`` an INTEGER 0/1 flag, ``date`` an ISO date in TEXT, ``timestamp`` an ISO-8601 time in
TEXT, ``json`` JSON text."""


@dataclass(frozen=True)
class Table:
    """A view table: its columns in order, its primary key and its secondary indexes.

    ``doc`` says in words what each column holds (the data dictionary of the analyst's dataset);
    ``kinds`` names the columns whose SQL type does not say what they hold (``KINDS``);
    ``defaults`` the value a row has in a column it is not given (``row``).
    """

    columns: tuple[tuple[str, str], ...]
    key: tuple[str, ...]
    indexes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    doc: Mapping[str, str] = field(default_factory=dict)
    kinds: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """The column names in order."""
        return tuple(name for name, _ in self.columns)

    @property
    def json_columns(self) -> tuple[str, ...]:
        """The columns that hold JSON text (kind ``json``), in order."""
        return tuple(name for name in self.names if self.kinds.get(name) == "json")

    @cached_property
    def row(self) -> Callable[..., tuple[Any, ...]]:
        """A row from its values by column name, as a tuple in column order (what
        ``executemany`` writes): ``EXHAUSTION.row(campaign_id=..., party="A", ...)``.

        Every column without a default must be given, and only columns: a missing or an unknown
        one raises ``TypeError`` naming it (a programming error).
        """
        return row_maker(self.names, self.defaults)

    def create_sql(self, physical: str, constraint: str) -> str:
        """``CREATE TABLE IF NOT EXISTS`` with a named primary key constraint."""
        columns = ", ".join(f"{name} {kind}" for name, kind in self.columns)
        key = ", ".join(self.key)
        return (
            f"CREATE TABLE IF NOT EXISTS {physical} ({columns}, "
            f"CONSTRAINT {constraint} PRIMARY KEY ({key}))"
        )

    def insert_sql(self, physical: str) -> str:
        """An INSERT of every column, with ``?`` placeholders."""
        marks = ", ".join("?" for _ in self.columns)
        return f"INSERT INTO {physical} ({', '.join(self.names)}) VALUES ({marks})"

    def upsert_sql(self, physical: str) -> str:
        """An INSERT that updates every non-key column when the key exists."""
        return f"{self.insert_sql(physical)} {self._on_conflict()}"

    def _on_conflict(self) -> str:
        updates = ", ".join(f"{n} = excluded.{n}" for n in self.names if n not in self.key)
        return f"ON CONFLICT ({', '.join(self.key)}) DO UPDATE SET {updates}"


def row_maker(names: Sequence[str], defaults: Mapping[str, Any]) -> Callable[..., tuple[Any, ...]]:
    """A function of keyword-only arguments, one per column (with its default, if any), that
    returns them as a tuple in column order.

    Python binds the arguments, so a row is made as fast as a tuple written out by hand and a
    missing or unknown column is the interpreter's own ``TypeError``, naming it.
    """
    if not all(name.isidentifier() and not keyword.iskeyword(name) for name in names):
        raise ValueError(f"not column names: {', '.join(names)}")
    parameters = ", ".join(f"{n}=_defaults[{n!r}]" if n in defaults else n for n in names)
    source = f"def row(*, {parameters}):\n    return ({', '.join(names)},)\n"
    namespace: dict[str, Any] = {"_defaults": dict(defaults)}
    exec(source, namespace)  # the parameters are the columns' names, checked above
    made: Callable[..., tuple[Any, ...]] = namespace["row"]
    return made


def table(
    *columns: str,
    key: tuple[str, ...],
    doc: Mapping[str, str] | None = None,
    kinds: Mapping[str, str] | None = None,
    defaults: Mapping[str, Any] | None = None,
    **indexes: tuple[str, ...],
) -> Table:
    """A table from ``"name TYPE"`` column strings, its key, its named indexes, and what its
    columns hold: ``doc`` in words, ``kinds`` where the SQL type does not say it, ``defaults``
    where a row may leave a column out (``Table.row``)."""
    pairs = tuple((c.split(" ", 1)[0], c.split(" ", 1)[1]) for c in columns)
    names = {name for name, _ in pairs}
    for given in (doc or {}, kinds or {}, defaults or {}):
        unknown = set(given) - names
        if unknown:
            raise ValueError(f"no such column: {', '.join(sorted(unknown))}")
    wrong = {k for k in (kinds or {}).values() if k not in KINDS}
    if wrong:
        raise ValueError(f"a column kind is one of {', '.join(KINDS)}, not {', '.join(wrong)}")
    return Table(
        pairs, key, dict(indexes), dict(doc or {}), dict(kinds or {}), dict(defaults or {})
    )


POSITIONS_TABLE = table(
    "view TEXT NOT NULL",
    "position BIGINT NOT NULL",
    "applied BIGINT NOT NULL",
    "updated_at TEXT",
    "transaction_id BIGINT",
    key=("view",),
)
"""Per view: the last event applied (its notification id, and its transaction id: together its
place in the log's order, ``domain.storage.log_order``), how many events it applied, and when.
A position an earlier release recorded has no transaction id yet (``ViewStore.ensure``)."""

REVISIONS = "view_revisions"
"""The logical name of the table of the revision each view's rows were built at."""
REVISIONS_TABLE = table("view TEXT NOT NULL", "revision INTEGER NOT NULL", key=("view",))
"""Per view: the revision (``View.revision``) of the release that built its rows. A view an
earlier release built (no row: revision 1) below its class's revision starts again from the
beginning of the log (``ViewStore.ensure``)."""
