"""Reading views with their freshness, and read-your-writes.

``freshness`` says how far views have caught up: their position, the log's head and the lag, in
notification ids. ``position_of`` finds the notification id of a campaign's event at a version,
which is what a client knows after a command (the ``version`` of the response). ``catch_up_to``
waits until views have applied a position: first for the runner (embedded or in its own process),
then, if the views are still behind after a short grace period, it applies the missing events
itself, exactly once (the same batches a runner applies; a batch offered twice is applied once),
so a read-your-writes request is answered even when no runner is running.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from domain.facade import Questlog
from projections.engine import Target, apply_batch, lowest_position, read_batch
from projections.store import ViewStore
from projections.view import View

GRACE = 0.25
"""How long a read-your-writes request waits for the runner before it helps."""
HELP_BATCH = 500


def freshness(app: Questlog, position: int, head: int | None = None) -> dict[str, int]:
    """A view's position, the log's head and the lag between them (never negative)."""
    top = app.log_head() if head is None else head
    return {"position": position, "head": top, "lag": max(0, top - position)}


def position_of(app: Questlog, campaign_id: UUID, version: int) -> int | None:
    """The notification id of a campaign's event at a version; None if there is none."""
    recorder: Any = app.recorder
    table = recorder.events_table_name
    if app.config.kind == "postgres":
        datastore = recorder.datastore
        originator: Any = (
            campaign_id if datastore.originator_id_type == "uuid" else str(campaign_id)
        )
        schema = datastore.schema.replace('"', '""')
        statement = (
            f'SELECT notification_id AS id FROM "{schema}"."{table}" '
            "WHERE originator_id = %s AND originator_version = %s"
        )
    else:
        originator = campaign_id.hex
        statement = (
            f"SELECT rowid AS id FROM {table} WHERE originator_id = ? AND originator_version = ?"
        )
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute(statement, (originator, version))
        row = cursor.fetchone()
    return None if row is None else int(row["id"])


def catch_up_to(
    app: Questlog,
    store: ViewStore,
    views: Sequence[type[View]],
    position: int,
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
    while time.monotonic() < deadline:
        start = lowest_position(store, targets)
        if start >= position:
            return True
        events = read_batch(app.recorder, app.mapper, start, HELP_BATCH)
        if not events:
            return False
        apply_batch(store, targets, events)
    return lowest_position(store, targets) >= position
