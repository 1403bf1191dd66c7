"""Exactly-once application of event batches to views.

One batch is one transaction. Inside it, each view's position row is read (and, on PostgreSQL,
locked); the view applies only the batch's events after its position, then its position moves to
the batch's last event. Rows and positions commit together, so a batch is applied whole or not at
all, a restart resumes after the last committed event, and a batch offered twice (two runners, a
runner racing a rebuild's swap) is applied once.

The log is read in its order (``domain.storage.log_order``): by (transaction id, notification id)
and only as far as no transaction still writing can precede, so an event that commits late is
never passed. A position is that pair, never a count, so the gaps PostgreSQL leaves in its ids
are harmless.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from threading import Event
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, Mapper

from domain.facade import LogPosition, collection_paused
from projections.events import Recorded, decode_notification, decode_rows
from projections.leases import Fence
from projections.store import ViewStore, position_in
from projections.view import View

BatchCallback = Callable[[int, int], None]
"""Called after each committed batch with its last notification id and its number of events."""
PassCallback = Callable[[], None]
"""Called when a runner has caught up with the log without a failure."""


@dataclass(frozen=True)
class Target:
    """A view being written: live (no suffix) or a rebuild's ``__new`` tables."""

    view: type[View]
    suffix: str = ""

    @property
    def key(self) -> str:
        """The view's row in the positions table."""
        return self.view.name + self.suffix


def apply_in(
    store: ViewStore, cursor: Any, targets: Sequence[Target], events: Sequence[Recorded]
) -> None:
    """Apply events to each target past its position, in the caller's transaction."""
    last = events[-1].position
    # A fixed order of position locks, so two writers can never deadlock on them.
    for target in sorted(targets, key=lambda t: t.key):
        position, applied = store.lock_position(cursor, target.key)
        if position >= last:
            continue
        todo = (
            events
            if events[0].position > position
            else [e for e in events if e.position > position]
        )
        target.view(store, cursor, target.suffix).apply(todo)
        store.set_position(cursor, target.key, last, applied + len(todo))


def apply_batch(
    store: ViewStore,
    targets: Sequence[Target],
    events: Sequence[Recorded],
    fence: Fence | None = None,
) -> None:
    """Apply a batch to the targets in one transaction: all of it, or none of it (nothing at all
    when ``fence`` finds the views' leases lost, in the same transaction)."""
    if events:
        with store.write() as cursor:
            if fence is not None:
                fence(cursor, [target.key for target in targets])
            apply_in(store, cursor, targets, events)


def read_batch(
    recorder: ApplicationRecorder, mapper: Mapper[Any], after: LogPosition, limit: int
) -> list[Recorded]:
    """The next events of the log after a position, in the log's order.

    Questlog's recorders give the stored rows as they are (``ordered_rows``), without the
    library's notification objects and UUIDs; another recorder (one event store written by a
    single process at a time) is read the library's way, by notification id.
    """
    read_rows = getattr(recorder, "ordered_rows", None)
    if read_rows is not None:
        return decode_rows(mapper, read_rows(after, limit))
    notifications = recorder.select_notifications(
        start=after.notification, limit=limit, inclusive_of_start=False
    )
    return [decode_notification(mapper, n) for n in notifications]


def lowest_position(store: ViewStore, targets: Sequence[Target]) -> LogPosition:
    """Where reading must resume: the lowest committed position among the targets."""
    positions = store.positions()
    return min(position_in(positions.get(t.key)) for t in targets)


def catch_up(
    recorder: ApplicationRecorder,
    mapper: Mapper[Any],
    store: ViewStore,
    targets: Sequence[Target],
    *,
    batch_size: int,
    stop: Event | None = None,
    on_batch: BatchCallback | None = None,
    fence: Fence | None = None,
) -> int:
    """Apply every event after the targets' positions, a batch per transaction; returns how many."""
    position = lowest_position(store, targets)
    total = 0
    while stop is None or not stop.is_set():
        with collection_paused():  # (a batch's events live until it is written)
            events = read_batch(recorder, mapper, position, batch_size)
            if not events:
                break
            apply_batch(store, targets, events, fence)
            count, position = len(events), events[-1].position
            del events  # freed before the collector is back: it then finds nothing to promote
        total += count
        if on_batch is not None:
            on_batch(position.notification, count)
    return total
