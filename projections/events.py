"""The recorded events the views read: one plain envelope, however the event was fetched.

The views' poller reads the stored rows and decodes their JSON here. Each topic is resolved
to its class once per process (``_changed``), to learn whether the type has changed shape: an
event stored in an older shape goes through the mapper, so that its class upcasts it, and every
other event is decoded straight from its JSON. An event type this process does not know (written
by a newer release, say) raises the library's ``TopicError`` and stops the views there, so no
view ever skips an event; the views go on once the process runs the release that knows it.

Every runner reads the stored rows as they are (``ordered_rows`` of Questlog's recorders, in the
log's order: ``domain.storage.log_order``), without the library's notification objects and their
UUIDs (the cheaper read); an event the library decoded becomes the same envelope
(``from_domain_event``), so every view sees one shape.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

import orjson
from eventsourcing.persistence import Mapper, Notification
from eventsourcing.utils import get_topic, resolve_topic

from domain.facade import LogPosition, Payload, payload_class

GAMES = {"qc": "quest-calendar", "cb": "calendar-board"}
NotificationRow = tuple[Any, ...]
"""A stored event as read from the store: ``(transaction, id, originator_id, version, topic,
state)`` (``domain.storage.log_order``)."""
_decode = json.JSONDecoder().decode
_orjson_loads = orjson.loads
_orjson_dumps = orjson.dumps
_CHANGED: dict[str, bool] = {}
"""Per topic: whether its event class has changed shape (see ``_changed``)."""
P = TypeVar("P", bound=Payload)


@dataclass(frozen=True, slots=True)
class Recorded:
    """One stored event: its notification id, campaign, version, topic, time and data, and the
    transaction id that orders it in the log (0 on SQLite, and for an event written under the
    table lock)."""

    id: int
    campaign_id: str
    version: int
    topic: str
    timestamp: str
    data: dict[str, Any]
    transaction: int = 0

    @property
    def position(self) -> LogPosition:
        """Its place in the log's order (``domain.storage.log_order``)."""
        return LogPosition(self.transaction, self.id)

    @property
    def kind(self) -> str:
        """The type name without its prefix: ``qc.CreditsChanged`` -> ``CreditsChanged``."""
        return self.topic.rpartition(".")[2]

    @property
    def game(self) -> str | None:
        """The game of a game event (from its topic prefix); None for a core event."""
        return GAMES.get(self.topic.partition(".")[0])

    @property
    def details(self) -> dict[str, Any]:
        """A game event's details (empty for other events)."""
        details: dict[str, Any] = self.data.get("details") or {}
        return details

    def payload(self, cls: type[P]) -> P:
        """The event's payload decoded as ``cls`` (``Payload.decode``: from a game event's
        details, or a campaign event's data); ``TypeError`` or ``ValueError`` when the event
        is not of that class's shape. A view's handler of a payload class is given it decoded;
        an ``ANY`` handler decodes here what it reads of an event of a known type."""
        return cls.decode(self.details if self.game is not None else self.data)

    def decoded(self) -> Payload | None:
        """The event's payload decoded as its own type's class (None for a type that declares
        none), for a handler of every event that reads a fact many types record."""
        cls = payload_class(self.topic)
        return None if cls is None else self.payload(cls)

    @property
    def rolls(self) -> list[dict[str, Any]]:
        """The roll records the event carries (empty when it rolled nothing)."""
        rolls: list[dict[str, Any]] = self.data.get("rolls") or []
        return rolls

    @property
    def effects(self) -> list[dict[str, Any]]:
        """A game event's JSON Patch of the game state (empty for other events)."""
        effects: list[dict[str, Any]] = self.data.get("effects") or []
        return effects


def campaign_key(originator_id: object) -> str:
    """A campaign id as a lower-case hyphenated UUID string, whatever the store returned."""
    if isinstance(originator_id, UUID):
        return str(originator_id)
    return str(UUID(str(originator_id)))


def _plain(value: Any) -> Any:
    """A transcoded top-level value (``{"_type_": ..., "_data_": ...}``) as its plain data."""
    if isinstance(value, dict) and len(value) == 2 and "_type_" in value and "_data_" in value:
        return value["_data_"]
    return value


def parse_state(raw: bytes) -> Any:
    """Stored JSON as ``json`` reads it, through orjson where that is provably the same.

    orjson reads an event several times faster than ``json``. Its reading is taken only when
    writing it back with orjson gives the stored bytes again: then every string, integer and
    float reads as ``json`` reads it (a float orjson writes back as the same text is the double
    that text rounds to, which is what ``json`` reads too), and there was no duplicate key. Any
    other bytes (a float Python writes as ``1e-05``, text ``json`` escaped, an integer beyond
    64 bits, NaN) are read by ``json`` (``tests/projections/test_decoding.py``).
    """
    try:
        fields = _orjson_loads(raw)
    except orjson.JSONDecodeError:
        return _decode(raw.decode("utf-8"))
    if _orjson_dumps(fields) == raw:
        return fields
    return _decode(raw.decode("utf-8"))


def _changed(topic: str) -> bool:
    """Whether an event type has changed shape (its class is past version 1), cached by topic."""
    found = _CHANGED.get(topic)
    if found is None:
        found = _CHANGED[topic] = getattr(resolve_topic(topic), "class_version", 1) > 1
    return found


def decode_rows(mapper: Mapper[Any], rows: Iterable[NotificationRow]) -> list[Recorded]:
    """Decode stored notifications ``(transaction, id, originator_id, version, topic, state)`` as
    read from the store, with the application's cipher and compressor, into envelopes."""
    keys: dict[Any, str] = {}
    decoded = []
    plain = mapper.cipher is None and mapper.compressor is None
    for transaction, notification_id, originator_id, version, topic, stored in rows:
        state = stored
        if not plain:
            if mapper.cipher is not None:
                state = mapper.cipher.decrypt(state)
            if mapper.compressor is not None:
                state = mapper.compressor.decompress(state)
        data: dict[str, Any] = parse_state(state)
        if "class_version" in data or _changed(topic):
            # A changed event type (stored at an older version, or with its version): the class
            # upcasts it and drops the version.
            notification = Notification(
                id=notification_id,
                originator_id=UUID(str(originator_id)),
                originator_version=version,
                topic=topic,
                state=stored,
            )
            event = mapper.to_domain_event(notification)
            decoded.append(from_domain_event(event, notification_id, transaction))
            continue
        key = keys.get(originator_id)
        if key is None:
            key = keys[originator_id] = campaign_key(originator_id)
        timestamp = str(_plain(data.pop("timestamp", "")))
        data.pop("originator_id", None)
        data.pop("originator_version", None)
        decoded.append(Recorded(notification_id, key, version, topic, timestamp, data, transaction))
    return decoded


def decode_notification(mapper: Mapper[Any], notification: Notification) -> Recorded:
    """Decode a stored notification's state with the application's cipher and compressor."""
    row = (
        0,
        notification.id,
        notification.originator_id,
        notification.originator_version,
        notification.topic,
        notification.state,
    )
    return decode_rows(mapper, [row])[0]


def from_domain_event(event: Any, notification_id: int, transaction: int = 0) -> Recorded:
    """The envelope of a domain event the library decoded, at its position."""
    fields = dict(vars(event))
    timestamp = fields.pop("timestamp")
    originator_id = fields.pop("originator_id")
    version = fields.pop("originator_version")
    return Recorded(
        id=notification_id,
        campaign_id=campaign_key(originator_id),
        version=int(version),
        topic=get_topic(type(event)),
        timestamp=timestamp.isoformat() if isinstance(timestamp, datetime) else str(timestamp),
        data=fields,
        transaction=transaction,
    )


_TOKEN_ID = re.compile(r"#[0-9a-f]{12}$")


def without_token_id(actor: Any) -> Any:
    """An actor as the log names it (``name#id``) without its token's id: ``name``. What the
    analyst's dataset shows: a token's id is an access secret's handle, not a name."""
    if isinstance(actor, str):
        return _TOKEN_ID.sub("", actor)
    return actor
