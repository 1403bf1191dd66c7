"""Reading views with their freshness, and read-your-writes.

``freshness`` says how far views have caught up: their position (the notification id of the last
event applied), the log's head (its last notification id) and the lag (the events after the
position in the log's order, ``domain.storage.log_order``). ``position_of`` finds the position
of a campaign's event at a version, which is what a client knows after a command (the
``version`` of the response). ``catch_up_to``
waits until views have applied a position: first for the runner (embedded or in its own process),
then, if the views are still behind after a short grace period, it applies the missing events
itself, exactly once (the same batches a runner applies; a batch offered twice is applied once),
so a read-your-writes request is answered even when no runner is running.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from domain.facade import START, LogPosition, Questlog
from projections.batches import Target, apply_batch, lowest_position, read_batch
from projections.store import ViewStore
from projections.view import View

GRACE = 0.25
"""How long a read-your-writes request waits for the runner before it helps."""
HELP_BATCH = 500
HORIZON_WAIT = 0.005
"""How long a read-your-writes request first sleeps when the event it waits for is committed but
not yet readable, before it looks again (then twice as long each time, up to 50 ms)."""


HORIZON_WARNING_SECONDS = 10.0
"""An append holding the horizon this long is logged: an append is one pipelined round trip."""
log = logging.getLogger("questlog.views")


def horizon_report(app: Questlog) -> dict[str, Any] | None:
    """What holds the log's horizon back (``domain.storage.log_order``): ``age_seconds`` (how
    long the oldest open append's transaction has been open, 0 when none is) and ``held_by``
    (its transaction id, process, application name and state), logged as a warning from
    ``HORIZON_WARNING_SECONDS`` on. None on SQLite, whose appends commit one at a time."""
    read = getattr(app.recorder, "horizon_holder", None)
    if read is None:
        return None
    holder = read()
    if holder is None:
        return {"age_seconds": 0.0, "held_by": None}
    if holder.open_seconds >= HORIZON_WARNING_SECONDS:
        log.warning(
            "the log's horizon is held by transaction %s (pid %s, application %r, %s), open "
            "%.1f s: the views and live pages wait for it to end",
            holder.transaction,
            holder.pid,
            holder.application,
            holder.state,
            holder.open_seconds,
        )
    return {
        "age_seconds": holder.open_seconds,
        "held_by": {
            "transaction": str(holder.transaction),
            "pid": holder.pid,
            "application_name": holder.application,
            "state": holder.state,
        },
    }


def lag_after(app: Questlog, position: LogPosition) -> int:
    """How many events of the log come after a position, in the log's order."""
    recorder: Any = app.recorder
    return int(recorder.count_after(position))


def freshness(app: Questlog, position: int) -> dict[str, int]:
    """A view's position (a notification id), the log's head and the view's lag."""
    recorder: Any = app.recorder
    lag = lag_after(app, recorder.position_at(position) if position else START)
    return {"position": position, "head": app.log_head(), "lag": lag}


def position_of(app: Questlog, campaign_id: UUID, version: int) -> LogPosition | None:
    """The position of a campaign's event at a version; None if there is none."""
    recorder: Any = app.recorder
    found: LogPosition | None = recorder.event_position(campaign_id, version)
    return found


def covering(app: Questlog, notification_id: int) -> LogPosition:
    """The position a view must reach to have applied every event up to a notification id."""
    recorder: Any = app.recorder
    found: LogPosition = recorder.covering_position(notification_id)
    return found


def catch_up_to(
    app: Questlog,
    store: ViewStore,
    views: Sequence[type[View]],
    position: LogPosition,
    timeout: float,
    *,
    grace: float = GRACE,
) -> bool:
    """Wait until the views have applied ``position``, helping after ``grace``; False on timeout."""
    names = [view.name for view in views]
    deadline = time.monotonic() + timeout
    if store.wait_for(position, names, min(grace, timeout)):
        return True
    targets = [Target(view) for view in views]
    pause = HORIZON_WAIT
    while time.monotonic() < deadline:
        start = lowest_position(store, targets)
        if start >= position:
            return True
        events = read_batch(app.recorder, app.mapper, start, HELP_BATCH)
        if events:
            apply_batch(store, targets, events)
            pause = HORIZON_WAIT
        else:
            # Committed, but not readable yet: a transaction that began before it is still
            # writing (``domain.storage.log_order``); it is readable once that one ends.
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.05)
    return lowest_position(store, targets) >= position
