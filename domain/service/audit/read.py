"""Reading a stored event for the audit: its fields, whether its bytes are canonical, its hash.

The audit's exact path (``stored.audit_stream``) decodes each event with eventsourcing's JSON
transcoder, encodes it again to compare the bytes, and hashes the canonical JSON made by Python's
``json``. ``fast_read`` gives the same three answers several times faster through orjson, for an
event whose stored bytes hold no float and no transcoded value other than the timestamp (nearly
all of them): for such JSON, orjson and ``json`` write the same bytes (a property test holds them
together, ``tests/unit/test_audit_read.py``). It only ever *accepts*: an event it cannot read
that way, whose bytes orjson writes differently, or whose hash does not come out, goes to the
exact path, whose verdict is the one reported.

The exact path's readers (``stored_fields``, ``encoded``, ``read_fields``) are here too, and
``collection_paused``, which keeps Python's cyclic garbage collector from walking an audit's
hundred thousand live rolls again and again.
"""

from __future__ import annotations

import gc
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, NamedTuple
from uuid import UUID

import orjson
from eventsourcing.persistence import Mapper, StoredEvent

from domain.model import chain

_NUMBER_WITH_FRACTION = re.compile(rb"[:,\[]-?[0-9]+[.eE]")
"""A JSON number with a fraction or an exponent (text in a string may look like one too: such an
event just takes the exact path)."""
_TYPED = b'"_type_"'
_TIMESTAMP_TYPE = "datetime_iso"
_STAMPED = b'{"timestamp":{"_type_":"datetime_iso","_data_":"'
"""How the transcoder begins every event: its timestamp (whose text has digits and a dot)."""
_ISO_MICROSECONDS = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\+00:00"
)
"""The form ``datetime.isoformat`` writes for a UTC time with microseconds: every timestamp the
server stores. Only UTC: ``fromisoformat`` reads an offset's minutes of 60 to 99 and writes them
again as hours (``+00:60`` is ``+01:00``), so another offset is compared, never trusted."""


class FastRead(NamedTuple):
    """An event read on the fast path: its fields as stored (the timestamp decoded) and its
    stored hash, which the fast path found to be the hash of its contents."""

    stored_as: dict[str, Any]
    stored_hash: str


def fast_read(
    item: StoredEvent, actor: str | None, campaign_id: str | None = None
) -> FastRead | None:
    """The event's fields if its bytes are canonical and its hash is the hash of its contents,
    both established through orjson; None: use the exact path (which may still accept it).
    ``campaign_id``: ``str(item.originator_id)``, for a caller that reads many events of one."""
    raw = item.state
    if not isinstance(raw, bytes) or not _plain(raw):
        return None
    try:
        fields = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # NaN, an integer beyond 64 bits, or not JSON at all
    if orjson.dumps(fields) != raw:
        return None
    stamp = fields.get("timestamp") if type(fields) is dict else None
    if not (
        type(stamp) is dict
        and len(stamp) == 2
        and stamp.get("_type_") == _TIMESTAMP_TYPE
        and "_data_" in stamp
    ):
        return None  # (any other key would be stored but not hashed)
    text = stamp["_data_"]
    try:
        timestamp = datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if timestamp is None or not is_isoformat(timestamp, text):
        return None
    stored_hash = fields.get("hash")
    body = {
        "campaign_id": campaign_id or str(item.originator_id),
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
    return tuple.__new__(FastRead, (fields, stored_hash))  # (not FastRead(): a Python call)


def is_isoformat(timestamp: datetime, text: str) -> bool:
    """Whether ``text``, which ``datetime.fromisoformat`` read as ``timestamp``, is what
    ``timestamp.isoformat()`` writes. A text of the usual form is (each number written at the
    width isoformat writes it, the fraction not zero: isoformat leaves a zero one out), without
    writing it again, which costs several times as much; any other text is compared."""
    if _ISO_MICROSECONDS.fullmatch(text) is not None and text[20:26] != "000000":
        return True
    return timestamp.isoformat() == text


def _plain(raw: bytes) -> bool:
    """Whether stored bytes begin as the transcoder begins every event, and hold no other
    transcoded value and no float (json writes every float with a "." or "e+" or "e-")."""
    if not raw.startswith(_STAMPED) or raw.find(_TYPED, len(_STAMPED)) >= 0:
        return False
    stamp_end = raw.find(b'"', len(_STAMPED))
    if stamp_end < 0:
        return False
    return not (
        (
            raw.find(b".", stamp_end) >= 0
            or raw.find(b"+", stamp_end) >= 0
            or raw.find(b"e-", stamp_end) >= 0
        )
        and _NUMBER_WITH_FRACTION.search(raw, stamp_end) is not None
    )


def canonical_bytes(value: Any) -> bytes:
    """``chain.canonical_json`` as UTF-8 bytes, by orjson: the same bytes for JSON without
    floats (which is all ``fast_read`` gives it)."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def read_as(fields: dict[str, Any], originator_id: UUID | str, version: int) -> dict[str, Any]:
    """The fields as the code reads them, for an event at its class's payload version: made
    in place (the caller's dict is its own, fresh from the bytes) and answered."""
    fields.pop("class_version", None)
    fields["originator_id"] = originator_id
    fields["originator_version"] = version
    return fields


def stored_fields(mapper: Mapper[Any], item: StoredEvent) -> dict[str, Any]:
    """A stored event's fields exactly as stored: decoded but never upcast, with the
    ``class_version`` of a changed payload (the envelope's ids are the row's, not in here)."""
    state = item.state
    if mapper.cipher is not None:
        state = mapper.cipher.decrypt(state)
    if mapper.compressor is not None:
        state = mapper.compressor.decompress(state)
    fields: dict[str, Any] = mapper.transcoder.decode(state)
    return fields


def encoded(mapper: Mapper[Any], fields: dict[str, Any]) -> bytes:
    """The stored bytes of an event's fields, encoded the way the mapper stores them."""
    state = mapper.transcoder.encode(fields)
    if mapper.compressor is not None:
        state = mapper.compressor.compress(state)
    if mapper.cipher is not None:
        state = mapper.cipher.encrypt(state)
    return state


def read_fields(
    mapper: Mapper[Any], item: StoredEvent, stored_as: dict[str, Any], event_class: type[Any]
) -> dict[str, Any]:
    """An event's fields as the code reads them: the stored fields when they are at the class's
    payload version (decoded once), else the mapper's upcast event."""
    if stored_as.get("class_version", 1) != getattr(event_class, "class_version", 1):
        return dict(mapper.to_domain_event(item).__dict__)
    fields = {k: v for k, v in stored_as.items() if k != "class_version"}
    fields["originator_id"] = item.originator_id
    fields["originator_version"] = item.originator_version
    return fields


class CollectorPause:
    """Python's cyclic garbage collector paused while a log is read in bulk: an audit, or a
    views' batch (``projections.batches.catch_up``). An audit keeps each roll of the log until its
    end, and a batch its events and rows until they are written, so every full collection
    walked them all again: a third of the time of a 100,000-event audit, a fifth of catch-up's.
    Reference counting still frees what they drop; the collector runs again when the
    last of the concurrent pauses ends (had it been disabled before the first, it stays so):
    other threads' cyclic garbage waits until then, which under overlapping audits and batches
    can be longer than any one of them."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._audits = 0
        self._enabled_before = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._guard:
            self._audits += 1
            if self._audits == 1:
                self._enabled_before = gc.isenabled()
                gc.disable()
        try:
            yield
        finally:
            with self._guard:
                self._audits -= 1
                if self._audits == 0 and self._enabled_before:
                    gc.enable()


collection_paused = CollectorPause()
