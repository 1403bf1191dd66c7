"""Exports: any view table, or the event log, as CSV or JSON Lines.

A view table is read in key order from one snapshot (one read transaction, a chunk of rows per
query), so an export never mixes two states of a view. In JSON Lines the columns that hold JSON
(a roll's dice, a ledger entry's context...) are written as JSON values; in CSV they stay the
stored JSON text, and NULL is an empty field. The event log is written in the log's order
(``domain.storage.log_order``: an event that commits while the export runs is never passed, so no
campaign has a hole): ``id`` (the notification id), ``campaign_id``, ``version``, ``topic``,
``timestamp`` and ``data`` (JSON).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Generator, Iterator
from typing import IO, Any

from domain.facade import START, Questlog
from projections.batches import read_batch
from projections.schema import Table
from projections.store import ViewStore
from projections.view import View
from projections.views import ALL_VIEWS

FORMATS = ("csv", "jsonl")
JSON_COLUMNS = {
    logical: spec.json_columns
    for view in ALL_VIEWS
    for logical, spec in view.tables.items()
    if spec.json_columns
}
"""The columns of each table that hold JSON text (the columns of kind ``json``)."""
EVENT_COLUMNS = ("id", "campaign_id", "version", "topic", "timestamp", "data")


def _exports() -> dict[str, tuple[type[View], str]]:
    found: dict[str, tuple[type[View], str]] = {}
    for view in ALL_VIEWS:
        for logical in view.tables:
            found[logical] = (view, logical)
    for view in ALL_VIEWS:
        found.setdefault(view.name, (view, next(iter(view.tables))))
    return found


EXPORTS = _exports()
"""Every exportable name: each view table, and each view's name for its first table."""


def rows_of(
    store: ViewStore, name: str, *, campaign_id: str | None = None, chunk: int = 5000
) -> tuple[tuple[str, ...], Generator[dict[str, Any], None, None]]:
    """The columns of a view table and its rows in key order, from one snapshot.

    Close the generator (or read it to the end) before closing the store.
    """
    if name not in EXPORTS:
        raise KeyError(
            f"nothing to export named {name!r}; choose from {', '.join(sorted(EXPORTS))}"
        )
    view, logical = EXPORTS[name]
    spec = view.tables[logical]
    return spec.names, _read(store, logical, spec, campaign_id, chunk)


def _read(
    store: ViewStore, logical: str, spec: Table, campaign_id: str | None, chunk: int
) -> Generator[dict[str, Any], None, None]:
    key = ", ".join(spec.key)
    marks = ", ".join("?" for _ in spec.key)
    base = f"SELECT * FROM {{{logical}}} WHERE 1 = 1"
    params: list[Any] = []
    if campaign_id is not None:
        base += " AND campaign_id = ?"
        params.append(campaign_id)
    with store.read() as cursor:
        last: tuple[Any, ...] | None = None
        while True:
            statement, values = base, list(params)
            if last is not None:
                statement += f" AND ({key}) > ({marks})"
                values += list(last)
            statement += f" ORDER BY {key} LIMIT ?"
            found = store.rows(cursor, statement, [*values, chunk])
            yield from found
            if len(found) < chunk:
                return
            last = tuple(found[-1][column] for column in spec.key)


def events_of(
    app: Questlog, *, campaign_id: str | None = None, chunk: int = 2000
) -> Iterator[dict[str, Any]]:
    """The event log in its order (one campaign's events, if given)."""
    position = START
    while True:
        events = read_batch(app.recorder, app.mapper, position, chunk)
        for event in events:
            if campaign_id is None or event.campaign_id == campaign_id:
                yield {
                    "id": event.id,
                    "campaign_id": event.campaign_id,
                    "version": event.version,
                    "topic": event.topic,
                    "timestamp": event.timestamp,
                    "data": event.data,
                }
        if len(events) < chunk:
            return
        position = events[-1].position


def write(
    rows: Iterator[dict[str, Any]],
    columns: tuple[str, ...],
    fmt: str,
    out: IO[str],
    *,
    json_columns: tuple[str, ...] = (),
) -> int:
    """Write rows as CSV (with a header) or JSON Lines; returns how many rows.

    ``json_columns`` hold JSON text: JSON Lines writes them as values, CSV as the text.
    """
    if fmt not in FORMATS:
        raise ValueError(f"the format is csv or jsonl, not {fmt!r}")
    count = 0
    if fmt == "jsonl":
        for row in rows:
            for column in json_columns:
                if row.get(column) is not None:
                    row[column] = json.loads(row[column])
            out.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            count += 1
        return count
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(column)) for column in columns])
        count += 1
    return count


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return value


def export_view(
    store: ViewStore, name: str, fmt: str, out: IO[str], *, campaign_id: str | None = None
) -> int:
    """Write a view table (or a view's first table) as CSV or JSON Lines; returns the rows."""
    columns, rows = rows_of(store, name, campaign_id=campaign_id)
    if fmt not in FORMATS:
        raise ValueError(f"the format is csv or jsonl, not {fmt!r}")
    try:
        return write(rows, columns, fmt, out, json_columns=JSON_COLUMNS.get(EXPORTS[name][1], ()))
    finally:
        rows.close()


def export_events(app: Questlog, fmt: str, out: IO[str], *, campaign_id: str | None = None) -> int:
    """Write the event log as CSV or JSON Lines; returns the events written."""
    return write(events_of(app, campaign_id=campaign_id), EVENT_COLUMNS, fmt, out)
