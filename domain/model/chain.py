"""The hash chain: a canonical serialisation of each event, and the SHA-256 linking it to the last.

An event's hash covers everything stored about it. The canonical form is the JSON object

    {"campaign_id": str, "version": int, "type": str, "timestamp": str,
     "data": {...}, "prev_hash": str, "actor": str}

written with sorted keys, no insignificant white space (separators "," and ":"), UTF-8 without
ASCII escaping. UUIDs are written as their lower-case hyphenated string, datetimes with
``datetime.isoformat()``; ``data`` holds every other field the event stores; ``actor`` (who
caused the event, stored beside it in ``questlog_actors``) is present when the event has one. ``GET
/campaigns/{id}/events`` returns exactly these fields, so anyone can recompute each hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any
from uuid import UUID

GENESIS_HASH = "0" * 64
"""The ``prev_hash`` of a campaign's first event."""

ENVELOPE_FIELDS = frozenset(
    {"originator_id", "originator_version", "timestamp", "prev_hash", "hash"}
)
"""Stored event fields that are part of the envelope, not of ``data``."""


def _plain(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not allowed in event data")


def canonical_json(value: Any) -> str:
    """The canonical JSON text of a value (sorted keys, compact, UTF-8)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_plain
    )


def event_body(
    *,
    campaign_id: UUID,
    version: int,
    event_type: str,
    timestamp: datetime,
    data: Mapping[str, Any],
    prev_hash: str,
    actor: str | None = None,
) -> dict[str, Any]:
    """The object whose canonical JSON is hashed (with ``actor`` when the event has one)."""
    body = {
        "campaign_id": str(campaign_id),
        "version": version,
        "type": event_type,
        "timestamp": timestamp.isoformat(),
        "data": dict(data),
        "prev_hash": prev_hash,
    }
    if actor is not None:
        body["actor"] = actor
    return body


def hash_body(body: Mapping[str, Any]) -> str:
    """SHA-256, in hex, of the canonical JSON of an event body."""
    return hash_bytes(canonical_json(body).encode("utf-8"))


def hash_bytes(data: bytes) -> str:
    """SHA-256, in hex, of canonical JSON already written as UTF-8 bytes."""
    return hashlib.sha256(data).hexdigest()


def event_hash(
    *,
    campaign_id: UUID,
    version: int,
    event_type: str,
    timestamp: datetime,
    data: Mapping[str, Any],
    prev_hash: str,
    actor: str | None = None,
) -> str:
    """The hash of one event, from its stored fields and the actor recorded beside it."""
    return hash_body(
        event_body(
            campaign_id=campaign_id,
            version=version,
            event_type=event_type,
            timestamp=timestamp,
            data=data,
            prev_hash=prev_hash,
            actor=actor,
        )
    )


def split_event_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The ``data`` part of a stored event's fields (everything but the envelope), in their
    order: a copy without the envelope's keys (twice as fast as filtering every key)."""
    data = dict(fields)
    for key in ENVELOPE_FIELDS:
        data.pop(key, None)
    return data
