"""Fixtures of the projection tests: a view store beside each test's event store.

``views`` is the store of the test's kind: a ``.views.db`` file beside the SQLite event store, or
the tables in the test's own PostgreSQL schema (dropped with it).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from domain.facade import LogPosition
from domain.service.questlog import Questlog
from projections.batches import Target, catch_up
from projections.store import ViewStore, open_view_store
from projections.view import View
from projections.views import ALL_VIEWS


@pytest.fixture
def views(app: Questlog) -> Iterator[ViewStore]:
    """The view store of the test's event store, with every view's tables created."""
    store = open_view_store(app.config)
    store.ensure(ALL_VIEWS)
    yield store
    store.close()


def sync(
    app: Questlog,
    store: ViewStore,
    views: Sequence[type[View]] = ALL_VIEWS,
    *,
    batch_size: int = 500,
    suffix: str = "",
) -> int:
    """Apply everything in the log to the views (what a runner does); returns the events read."""
    readable(app)
    targets = [Target(view, suffix) for view in views]
    return catch_up(app.recorder, app.mapper, store, targets, batch_size=batch_size)


def last_event(app: Questlog) -> LogPosition:
    """The position of the last event committed, in the log's order (not always the last id;
    readable once every transaction older than it has ended, which on PostgreSQL includes other
    tests' transactions)."""
    recorder: Any = app.recorder
    found: LogPosition = recorder.covering_position(app.log_head())
    return found


def readable(app: Questlog, timeout: float = 60.0) -> None:
    """Wait until every event committed so far can be read: on PostgreSQL a reader stops before
    any transaction still writing on the server (``domain.storage.log_order``), and the other
    test worker's transactions are on the same server."""
    last = last_event(app)
    deadline = time.monotonic() + timeout
    while app.readable_head() < last:
        assert time.monotonic() < deadline, "a transaction on the server never ended"
        time.sleep(0.005)


def dump(
    store: ViewStore, views: Sequence[type[View]] = ALL_VIEWS, suffix: str = ""
) -> dict[str, Any]:
    """Every row of every view table, in key order (what two builds must agree on)."""
    tables: dict[str, Any] = {}
    with store.read() as cursor:
        for view in views:
            for logical, spec in view.all_tables().items():
                order = ", ".join(spec.key)
                statement = f"SELECT * FROM {store.physical(logical, suffix)} ORDER BY {order}"
                cursor.execute(statement)
                tables[logical] = [dict(row) for row in cursor.fetchall()]
    return tables


def log_size(app: Questlog) -> int:
    """How many events the log holds."""
    count, start = 0, 0
    while True:
        page = app.recorder.select_notifications(start=start, limit=1000, inclusive_of_start=False)
        if not page:
            return count
        count += len(page)
        start = page[-1].id
