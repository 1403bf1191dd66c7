"""Reading a campaign's events: an event as shown (the fields its hash covers), the event class a
stored topic names, the command an event belongs to, and a campaign rebuilt from its events.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.model.campaign import GAME_EVENT_CLASSES, Campaign


def event_record(event: Any, stored: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An event as it is shown: exactly the fields its hash covers (but the campaign id and the
    actor, which are shown beside it), and the hash.

    ``stored`` is the event's fields as stored (``domain.service.audit.read.stored_fields``): an
    event stored at an older payload version is then shown as stored, which is what its hash covers;
    without it, the event's fields as the code reads them (the same for a current event).
    """
    fields = dict(event.__dict__) if stored is None else dict(stored)
    payload_version = getattr(type(event), "class_version", 1)
    if stored is None and payload_version > 1:
        fields["class_version"] = payload_version
    fields.pop("originator_version", None)
    return {
        "version": event.originator_version,
        "type": event.TOPIC,
        "timestamp": fields.pop("timestamp").isoformat(),
        "prev_hash": fields.pop("prev_hash"),
        "hash": fields.pop("hash"),
        "data": {k: v for k, v in fields.items() if k != "originator_id"},
    }


def event_class_of(game: str, topic: str) -> type[Campaign.Event] | None:
    """The event class a stored topic names in a campaign of ``game``: a campaign event or one
    of that game's declared events; None for any other topic (never resolved as a module path,
    so a topic from outside, an imported bundle's say, imports nothing)."""
    for event_class in Campaign.EVENT_TYPES:
        if topic == getattr(event_class, "TOPIC", None):
            return event_class
    prefix = {"quest-calendar": "qc.", "calendar-board": "cb."}.get(game)
    if prefix is None or not topic.startswith(prefix):
        return None
    return GAME_EVENT_CLASSES.get(topic)


def command_versions_of(event: Any) -> tuple[int, int] | None:
    """The first and last versions of the command that recorded an event, or None for an event
    stored before events carried their command (``domain.service.timetravel`` then compares
    timestamps)."""
    versions = getattr(event, "command_versions", None)
    if not isinstance(versions, list) or len(versions) != 2:
        return None
    first, last = versions
    return int(first), int(last)


def project_campaign(campaign: Campaign | None, events: Iterable[Any]) -> Campaign | None:
    """Apply events in order (eventsourcing's projector, without its per-event Protocol check).

    ``project_aggregate`` asserts ``isinstance(event, CanMutateProtocol)`` for every event, a
    ``typing.Protocol`` check that costs about as much as applying a campaign event.
    """
    for event in events:
        campaign = event.mutate(campaign)
    return campaign
