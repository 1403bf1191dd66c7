"""The embedded view store and read-your-writes, for the view and analytics routes.

Each app opens its view store on first use (``views_store``). ``read`` answers a view read: it
waits, if asked, until the view has applied the event ``?wait_for_version=V`` or ``?wait_for=P``
names (at most ``timeout`` seconds), reads, and adds the freshness (``position``, ``head``,
``lag``, ``caught_up``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import UTC
from typing import Any
from uuid import UUID

from flask import Flask, current_app

from domain.facade import START, LogPosition, NotFound, NotHeld, Questlog
from projections.reads import catch_up_to, covering, freshness, position_of
from projections.store import ViewStore, open_view_store
from projections.view import View
from projections.views import ALL_VIEWS
from webapi.http.plumbing import questlog

STORE_KEY = "questlog_views"
WORKER_KEY = "questlog_views_worker"
_opening = threading.Lock()


def views_store() -> ViewStore:
    """This app's view store, opened on first use from the Questlog's store configuration."""
    store: ViewStore | None = current_app.extensions.get(STORE_KEY)
    if store is None:
        with _opening:
            store = current_app.extensions.get(STORE_KEY)
            if store is None:
                store = open_view_store(questlog().config, current_app.config.get("VIEWS_DB"))
                store.ensure(ALL_VIEWS)
                current_app.extensions[STORE_KEY] = store
    return store


def close_views(app: Flask) -> None:
    """Close the app's view store, if it was opened."""
    store: ViewStore | None = app.extensions.pop(STORE_KEY, None)
    if store is not None:
        store.close()


def wanted_position(app: Questlog, query: dict[str, Any], cid: UUID | None) -> LogPosition | None:
    """The position a request asks to wait for: that of the campaign's event at
    ``wait_for_version``, and at least every event up to the notification id ``wait_for``."""
    notification_id: int | None = query.get("wait_for")
    wanted: LogPosition | None = None
    if notification_id is not None:
        if notification_id > (head := app.log_head()):
            raise NotHeld("wait_for", f"position {notification_id} is beyond the log's head {head}")
        wanted = covering(app, notification_id)
    version = query.get("wait_for_version")
    if version is not None and cid is not None:
        found = position_of(app, cid, version)
        if found is None:
            raise NotHeld("wait_for_version", f"campaign {cid} has no version {version}")
        wanted = max(wanted or START, found)
    return wanted


def read(
    views: Sequence[type[View]],
    query: dict[str, Any],
    fetch: Callable[[ViewStore], dict[str, Any]],
    cid: UUID | None = None,
) -> dict[str, Any]:
    """Wait if asked, read through ``fetch`` and add the freshness (position, head, lag).

    A wait that times out still answers 200, with the view as it is and ``caught_up: false``
    (as a blocking query does): the client sees how far the view got and may ask again.
    """
    app = questlog()
    store = views_store()
    if cid is not None and position_of(app, cid, 1) is None:
        raise NotFound(f"Campaign {cid} does not exist.")
    wanted = wanted_position(app, query, cid)
    caught_up = wanted is None or catch_up_to(app, store, views, wanted, query["timeout"])
    result = fetch(store)
    result.update(freshness(app, result["position"]), caught_up=caught_up)
    return result


def iso(moment: Any) -> str | None:
    """A timestamp query value as the views store them (UTC ISO-8601), or None."""
    return None if moment is None else moment.astimezone(UTC).isoformat(timespec="microseconds")
