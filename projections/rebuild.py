"""Rebuilding views from scratch while the service runs, and reporting how far views have got.

A rebuild fills a view's ``<table>__new`` tables from the first event, with their own position row
(``<view>__new``) and without secondary indexes, a batch per transaction. Then, in ONE transaction:
lock the live views' position rows, apply whatever the log gained since (so the new tables are at
least as far as the live ones), drop the live tables, rename the new ones, create the indexes and
move the position. The running service's batches wait on the position locks for that moment and
then carry on from the new position: nothing is skipped or applied twice, and readers see the old
tables or the new ones, never a mix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from domain.facade import Questlog, StoreConfig
from projections.batches import Target, apply_in, catch_up, read_batch
from projections.leases import lease_holders
from projections.reads import horizon_report, lag_after
from projections.store import NEW, ViewStore, open_view_store, position_in
from projections.view import View
from projections.views import ALL_VIEWS, resolve

Progress = Callable[[int, int], None]
"""Called with the position reached and the log's head when the rebuild began."""


def rebuild(
    app_config: StoreConfig,
    views: Iterable[type[View] | str] | None = None,
    *,
    views_path: Path | None = None,
    batch_size: int = 5000,
    progress: Progress | None = None,
) -> dict[str, int]:
    """Rebuild views (every view if None) and swap them in; returns each one's new position."""
    app = Questlog(app_config)
    store = open_view_store(app_config, views_path)
    try:
        return rebuild_with(app, store, resolve(views), batch_size=batch_size, progress=progress)
    finally:
        store.close()
        app.close()


def rebuild_with(
    app: Questlog,
    store: ViewStore,
    views: tuple[type[View], ...],
    *,
    batch_size: int = 5000,
    progress: Progress | None = None,
) -> dict[str, int]:
    """Rebuild views of an open application into an open store (see ``rebuild``)."""
    store.ensure(views)
    with store.setup_lock(), store.write() as cursor:
        for view in views:
            store.drop(cursor, view, NEW)
            store.create(cursor, view, NEW, indexes=False)
    targets = [Target(view, NEW) for view in views]
    head = app.recorder.max_notification_id() or 0

    def report(position: int, _count: int) -> None:
        if progress is not None:
            progress(position, head)

    catch_up(app.recorder, app.mapper, store, targets, batch_size=batch_size, on_batch=report)
    with store.write() as cursor:
        for view in sorted(views, key=lambda v: v.name):
            store.lock_position(cursor, view.name)
        position = min(store.lock_position(cursor, t.key)[0] for t in targets)
        while True:
            events = read_batch(app.recorder, app.mapper, position, batch_size)
            if not events:
                break
            apply_in(store, cursor, targets, events)
            position = events[-1].position
        swapped: dict[str, int] = {}
        for view in views:
            new_position, applied = store.lock_position(cursor, view.name + NEW)
            store.swap(cursor, view, new_position, applied)
            swapped[view.name] = new_position.notification
    report(max(swapped.values(), default=0), 0)
    return swapped


def catch_up_views(app: Questlog, store: ViewStore, *, batch_size: int) -> int:
    """Apply, in this process, every event the views have not seen yet; returns how many."""
    store.ensure(ALL_VIEWS)
    targets = [Target(view) for view in ALL_VIEWS]
    return catch_up(app.recorder, app.mapper, store, targets, batch_size=batch_size)


def view_status(store: ViewStore, app: Questlog) -> dict[str, Any]:
    """Each view's position, the log's head, the lag, rebuilds and leases.

    ``head`` is the log's last notification id (``Questlog.log_head``), a view's ``position``
    the notification id of the last event it applied, and its ``lag`` the events after that one
    in the log's order (``domain.storage.log_order``); ``lease`` is who runs the view now
    (``projections.leases.lease_holders``), None if nobody. ``horizon`` is what holds the
    log's horizon back on PostgreSQL (``projections.reads.horizon_report``; None on SQLite).
    """
    head = app.log_head()
    positions = store.positions()
    names = [view.name for view in ALL_VIEWS]
    names += sorted(n for n in positions if not n.endswith(NEW) and n not in names)
    holders = lease_holders(store, names)
    views = []
    for name in names:
        # A view no process has run yet is at position 0.
        row = positions.get(name) or {"position": 0, "applied": 0, "updated_at": None}
        rebuilding = positions.get(name + NEW)
        views.append(
            {
                "name": name,
                "position": int(row["position"]),
                "lag": lag_after(app, position_in(row)),
                "applied": int(row["applied"]),
                "updated_at": row["updated_at"],
                "rebuilding": None
                if rebuilding is None
                else {"position": int(rebuilding["position"])},
                "lease": holders[name],
            }
        )
    return {"head": head, "views": views, "horizon": horizon_report(app)}


def status(app_config: StoreConfig, *, views_path: Path | None = None) -> dict[str, Any]:
    """``view_status`` of a configured store."""
    app = Questlog(app_config)
    store = open_view_store(app_config, views_path)
    try:
        store.ensure(())
        return view_status(store, app)
    finally:
        store.close()
        app.close()
