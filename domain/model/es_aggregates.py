"""Compatibility with eventsourcing's aggregate internals: the model's two uses of them.

The campaign aggregate needs two protected parts of eventsourcing 9.5's ``Aggregate``: creating an
aggregate with a known id and timestamp, and giving a copy its own list of pending events. They
are here, apart from ``domain.storage.es_compat`` (the application's and recorders' internals, a
storage adapter), so that the model imports nothing from the storage layer.
``tests/unit/test_es_compat.py`` pins the library behaviour both rely on.
"""

from __future__ import annotations

from typing import Any


def create_aggregate(cls: type[Any], event_class: type[Any], **kwargs: Any) -> Any:
    """A new aggregate from its created-event class and that event's fields (``id`` included).

    ``Aggregate._create`` is eventsourcing's protected way to trigger a created event with a
    given id and timestamp, which the hash chain needs to know before the event exists.
    """
    return cls._create(event_class, **kwargs)


def drop_pending_events(aggregate: Any) -> None:
    """Give an aggregate (a copy) a new, empty list of pending events.

    eventsourcing keeps an aggregate's triggered but not yet collected events in
    ``_pending_events``; a copy must not share that list with the original.
    """
    aggregate._pending_events = []
