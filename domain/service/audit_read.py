"""Reading a stored event for the audit: its fields, whether its bytes are canonical, its hash.

The audit's exact path (``audit.audit_stream``) decodes each event with eventsourcing's JSON
transcoder, encodes it again to compare the bytes, and hashes the canonical JSON made by Python's
``json``. ``fast_read`` gives the same three answers several times faster through orjson, for an
event whose stored bytes hold no float and no transcoded value other than the timestamp (nearly
all of them): for such JSON, orjson and ``json`` write the same bytes (a property test holds them
together, ``tests/unit/test_audit_read.py``). It only ever *accepts*: an event it cannot read
that way, whose bytes orjson writes differently, or whose hash does not come out, goes to the
exact path, whose verdict is the one reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson
from eventsourcing.persistence import StoredEvent

from domain.model import chain

_NUMBER_WITH_FRACTION = re.compile(rb"[:,\[]-?[0-9]+[.eE]")
"""A JSON number with a fraction or an exponent (text in a string may look like one too: such an
event just takes the exact path)."""
_TYPED = b'"_type_"'
_TIMESTAMP_TYPE = "datetime_iso"
_STAMPED = b'{"timestamp":{"_type_":"datetime_iso","_data_":"'
"""How the transcoder begins every event: its timestamp (whose text has digits and a dot)."""


@dataclass(frozen=True)
class FastRead:
    """An event read on the fast path: its fields as stored (the timestamp decoded) and its
    stored hash, which the fast path found to be the hash of its contents."""

    stored_as: dict[str, Any]
    stored_hash: str


def fast_read(item: StoredEvent, actor: str | None) -> FastRead | None:
    """The event's fields if its bytes are canonical and its hash is the hash of its contents,
    both established through orjson; None: use the exact path (which may still accept it)."""
    raw = item.state
    if not isinstance(raw, bytes) or not raw.startswith(_STAMPED) or raw.count(_TYPED) != 1:
        return None
    stamp_end = raw.find(b'"', len(_STAMPED))
    if stamp_end < 0:
        return None
    if (
        raw.find(b".", stamp_end) >= 0
        or raw.find(b"e+", stamp_end) >= 0
        or raw.find(b"e-", stamp_end) >= 0
    ) and _NUMBER_WITH_FRACTION.search(raw, stamp_end) is not None:
        return None  # (json writes every float with a "." or an exponent sign)
    try:
        fields = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # NaN, an integer beyond 64 bits, or not JSON at all
    if orjson.dumps(fields) != raw:
        return None
    stamp = fields.get("timestamp") if isinstance(fields, dict) else None
    if not (
        isinstance(stamp, dict)
        and stamp.keys() == {"_type_", "_data_"}
        and stamp["_type_"] == _TIMESTAMP_TYPE
    ):
        return None  # (any other key would be stored but not hashed)
    text = stamp.get("_data_")
    try:
        timestamp = datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if timestamp is None or timestamp.isoformat() != text:
        return None
    stored_hash = fields.get("hash")
    body = {
        "campaign_id": str(item.originator_id),
        "version": item.originator_version,
        "type": item.topic,
        "timestamp": text,
        "data": chain.split_event_fields(fields),
        "prev_hash": fields.get("prev_hash", ""),
    }
    if actor is not None:
        body["actor"] = actor
    if not isinstance(stored_hash, str) or chain.hash_bytes(canonical_bytes(body)) != stored_hash:
        return None
    fields["timestamp"] = timestamp
    return FastRead(fields, stored_hash)


def canonical_bytes(value: Any) -> bytes:
    """``chain.canonical_json`` as UTF-8 bytes, by orjson: the same bytes for JSON without
    floats (which is all ``fast_read`` gives it)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def read_as(fields: dict[str, Any], originator_id: UUID | str, version: int) -> dict[str, Any]:
    """The fields as the code reads them, for an event at its class's payload version."""
    read = {k: v for k, v in fields.items() if k != "class_version"}
    read["originator_id"] = originator_id
    read["originator_version"] = version
    return read
