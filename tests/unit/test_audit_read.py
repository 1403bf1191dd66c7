"""The audit's fast path (``domain/service/audit/read.py``) writes exactly the bytes the exact path
writes, for the JSON it accepts, and hands everything else to the exact path."""

from __future__ import annotations

import gc
import json
import threading
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from uuid import uuid4

import orjson
import pytest
from eventsourcing.persistence import StoredEvent
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.model import chain
from domain.service.audit.read import (
    canonical_bytes,
    collection_paused,
    fast_read,
    is_isoformat,
)

# Everything JSON holds but floats: the fast path never meets a float (it sends them on).
float_free = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(st.characters(exclude_categories=["Cs"])),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(exclude_categories=["Cs"])), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(value=float_free)
@settings(max_examples=600)
def test_orjson_writes_what_json_writes_for_float_free_json(value: Any) -> None:
    stored = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    assert orjson.dumps(value) == stored
    assert canonical_bytes(value) == chain.canonical_json(value).encode()


def _zero_fraction(text: str) -> str:
    """The text with its fraction of a second written as zeros (added where there was none)."""
    date, _, rest = text.partition("T")
    clock, sign, offset = rest[:8], rest[-6:-5], rest[-5:]
    return f"{date}T{clock}.000000{sign}{offset}"


VARIANTS = [
    lambda text: text,
    lambda text: text.replace("T", " "),
    lambda text: text.replace("+00:00", "Z").replace("+00:00", "-00:00"),
    lambda text: text.replace("+00:00", "-00:00"),
    _zero_fraction,
    lambda text: text[:23] + text[26:] if "." in text else text,  # milliseconds only
    lambda text: text.replace(":", "", 1),
    # Found in review: offset minutes that fromisoformat reads and isoformat writes as hours.
    lambda text: text[:-6] + "+00:60" if text[-6] in "+-" else text,
    lambda text: text[:-6] + "+01:75" if text[-6] in "+-" else text,
]
# The one form the server writes, and texts near it that fromisoformat also reads.
iso_texts = st.builds(
    lambda moment, variant: VARIANTS[variant](moment.isoformat()),
    st.datetimes(
        min_value=datetime(1000, 1, 1),
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=3))]
        ),
    ),
    st.integers(0, len(VARIANTS) - 1),
)


@given(text=iso_texts)
@settings(max_examples=1000)
def test_a_timestamp_is_in_isoformat_exactly_when_isoformat_writes_it(text: str) -> None:
    try:
        timestamp = datetime.fromisoformat(text)
    except ValueError:
        return
    assert is_isoformat(timestamp, text) == (timestamp.isoformat() == text), text


@pytest.mark.parametrize(
    "text", ["2026-12-07T03:00:00.123456+00:60", "2026-12-07T03:00:00.123456+22:99"]
)
def test_an_offset_written_again_by_isoformat_is_never_taken_as_written(text: str) -> None:
    timestamp = datetime.fromisoformat(text)
    assert timestamp.isoformat() != text
    assert not is_isoformat(timestamp, text)


def event(fields: dict[str, Any], actor: str | None = "owner#1") -> tuple[StoredEvent, str]:
    """A stored event as the transcoder writes it, with its true hash."""
    campaign = uuid4()
    moment = datetime(2026, 12, 4, 13, 53, 37, 30559, tzinfo=UTC)
    data = {k: v for k, v in fields.items() if k not in chain.ENVELOPE_FIELDS}
    digest = chain.event_hash(
        campaign_id=campaign,
        version=2,
        event_type="questlog.DiceRolled",
        timestamp=moment,
        data=data,
        prev_hash="a" * 64,
        actor=actor,
    )
    stored = {
        "timestamp": {"_type_": "datetime_iso", "_data_": moment.isoformat()},
        "prev_hash": "a" * 64,
        "hash": digest,
        **data,
    }
    raw = json.dumps(stored, separators=(",", ":"), ensure_ascii=False).encode()
    return StoredEvent(campaign, 2, "questlog.DiceRolled", raw), digest


def test_an_ordinary_event_is_read_on_the_fast_path() -> None:
    item, digest = event({"purpose": "élan: 3d6", "rolls": [{"total": 11}], "next_nonce": 1})
    found = fast_read(item, "owner#1")
    assert found is not None
    assert found.stored_hash == digest
    assert found.stored_as["timestamp"] == datetime(2026, 12, 4, 13, 53, 37, 30559, tzinfo=UTC)


def test_the_fast_path_never_accepts_what_it_cannot_prove() -> None:
    item, _ = event({"purpose": "x", "ratio": 0.5})
    assert fast_read(item, "owner#1") is None, "a float goes to the exact path"
    item, _ = event({"purpose": "x"})
    assert fast_read(item, "someone else") is None, "another actor: the hash does not come out"
    spaced = StoredEvent(
        item.originator_id, 2, item.topic, item.state.replace(b'"purpose":', b'"purpose": ')
    )
    assert fast_read(spaced, "owner#1") is None, "bytes that are not canonical"
    edited = StoredEvent(item.originator_id, 2, item.topic, item.state.replace(b'"x"', b'"y"'))
    assert fast_read(edited, "owner#1") is None, "contents that do not match the hash"
    noted = item.state.replace(b'+00:00"}', b'+00:00","note":"not hashed"}', 1)
    assert noted != item.state
    noted_event = StoredEvent(item.originator_id, 2, item.topic, noted)
    assert fast_read(noted_event, "owner#1") is None, "a key beside the timestamp's text"
    other_time = StoredEvent(item.originator_id, 2, item.topic, item.state.replace(b"+00:00", b"Z"))
    assert fast_read(other_time, "owner#1") is None, "a timestamp in another ISO form"


def test_the_collector_is_paused_while_any_audit_runs_and_restored_after() -> None:
    """``collection_paused``: nested and concurrent audits count, and a collector
    that was off before stays off."""
    assert gc.isenabled()
    inside = threading.Event()
    release = threading.Event()

    def other_audit() -> None:
        with collection_paused():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=other_audit)
    with collection_paused():
        assert not gc.isenabled()
        worker.start()
        assert inside.wait(5)
    assert not gc.isenabled(), "the other audit still runs"
    release.set()
    worker.join(5)
    assert gc.isenabled()
    gc.disable()
    try:
        with collection_paused():
            pass
        assert not gc.isenabled(), "off before, off after"
    finally:
        gc.enable()
