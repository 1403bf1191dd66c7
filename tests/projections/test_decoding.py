"""The views' fast decoding reads every stored event as the library's mapper does.

A catch-up reads the stored rows as they are and their JSON with orjson where writing it back
gives the stored bytes (``projections.events.decode_rows``, ``parse_state``); the exact path is
eventsourcing's mapper (its JSON transcoder, the event's class, its upcasters) and
``from_domain_event``. Values are compared with their types (``1``, ``1.0`` and ``True`` differ,
a float by its exact bits), and so is the order of keys.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
import pytest
from eventsourcing.persistence import Notification
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.facade import START
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.batches import read_batch
from projections.events import Recorded, _changed, decode_rows, from_domain_event, parse_state
from projections.views import ALL_VIEWS
from projections.views.roll_log import compact_json
from tests.application.moving import exported
from tests.application.moving import played as moving_house
from tests.conftest import StoreFactory
from tests.projections.scenarios import many_rolls
from tests.projections.test_facts import RELEASE, played

HANDLED = sorted({topic for view in ALL_VIEWS for topic in view._handlers if topic != "*"})
"""Every event type a view has a handler for (the roll log also reads every other one's rolls)."""
CHANGED_NOT_PLAYED = {"qc.HeroReplaced"}
"""The handled type whose shape changed that the played log below has none of."""


def typed(value: Any) -> Any:
    """A value with the type of everything in it, floats by their bits (NaN included)."""
    if isinstance(value, bool | int | str) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, list):
        return ["list", *(typed(item) for item in value)]
    if isinstance(value, dict):
        return ["dict", *((key, typed(item)) for key, item in value.items())]
    return ("other", type(value).__name__, repr(value))


def envelope(event: Recorded) -> tuple[Any, ...]:
    """Everything a view reads of an event, typed."""
    data = typed(event.data)
    return (event.id, event.campaign_id, event.version, event.topic, event.timestamp, data)


def exactly(app: Questlog, notification: Notification) -> Recorded:
    """The event as the library's mapper decodes it."""
    return from_domain_event(app.mapper.to_domain_event(notification), notification.id)


def fast(raw: bytes) -> bool:
    """Whether the stored bytes are read by orjson (not sent to ``json``)."""
    try:
        return orjson.dumps(orjson.loads(raw)) == raw
    except orjson.JSONDecodeError:
        return False


def assert_decoded_exactly(app: Questlog) -> list[Notification]:
    """Every event of the log decodes to the mapper's envelope; returns the log."""
    log = list(app.recorder.select_notifications(start=1, limit=100_000))
    decoded = read_batch(app.recorder, app.mapper, START, 100_000)
    assert [envelope(e) for e in decoded] == [envelope(exactly(app, n)) for n in log]
    return log


@pytest.fixture
def source(stores: StoreFactory) -> Iterator[Questlog]:
    """Another instance, to export a campaign from."""
    app = Questlog(stores.new())
    yield app
    app.close()


def test_every_event_the_views_read_decodes_as_the_mapper_decodes_it(
    app: Questlog, source: Questlog
) -> None:
    week, _match = played(app)  # both games, a rollback, deaths and clones, debt, weather
    app.dice.rotate_seed(week)
    app.bundles.load(exported(source, moving_house(source)))  # a CampaignImported
    many_rolls(app, 5)

    log = assert_decoded_exactly(app)

    # A handled type the log has none of is decoded by the property test below, which takes
    # every type whose shape never changed; one that changed shape must be played here.
    unplayed = set(HANDLED) - {n.topic for n in log}
    assert unplayed - set(UNCHANGED) == CHANGED_NOT_PLAYED
    assert len(unplayed) <= len(HANDLED) // 4, f"the played log misses {sorted(unplayed)}"
    quick = [n for n in log if fast(n.state)]
    assert len(quick) >= 0.9 * len(log), "nearly every event is read by orjson"


def test_the_release_store_s_older_events_decode_as_the_mapper_upcasts_them(
    tmp_path: Path,
) -> None:
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    try:
        log = assert_decoded_exactly(app)
    finally:
        app.close()
    assert any(_changed(n.topic) for n in log), "the fixture has events of a changed type"


# -- any payload --------------------------------------------------------------------------------

ENVELOPE_FIELDS = {"timestamp", "originator_id", "originator_version", "class_version"}
keys = st.text(max_size=8).filter(lambda k: k not in ENVELOPE_FIELDS and k != "_type_")
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.sampled_from([0.1, 1e16, 1e-05, -0.0, 1.5, 123456789.125, 5e-324])
    | st.text(st.characters(exclude_categories=["Cs"])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)
UNCHANGED = [topic for topic in [*HANDLED, "questlog.DiceRolled"] if not _changed(topic)]


@pytest.fixture(scope="module")
def mapper_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Questlog]:
    """An application for its mapper (the transcoder and the event classes)."""
    app = Questlog(StoreConfig(sqlite_path=tmp_path_factory.mktemp("mapper") / "questlog.db"))
    yield app
    app.close()


@given(
    payload=st.dictionaries(keys, values, max_size=6),
    topic=st.sampled_from(UNCHANGED),
    moment=st.datetimes(timezones=st.just(UTC)),
)
@settings(max_examples=400, deadline=None)
def test_any_payload_decodes_as_the_mapper_decodes_it(
    mapper_app: Questlog, payload: dict[str, Any], topic: str, moment: datetime
) -> None:
    campaign = UUID("1b4e28ba-2fa1-11d2-883f-0016d3cca427")
    state = mapper_app.mapper.transcoder.encode({"timestamp": moment, **payload})
    [decoded] = decode_rows(mapper_app.mapper, [(0, 7, campaign.hex, 3, topic, state)])
    stored = Notification(
        id=7, originator_id=campaign, originator_version=3, topic=topic, state=state
    )
    assert envelope(decoded) == envelope(exactly(mapper_app, stored))


@given(value=values)
@settings(max_examples=300, deadline=None)
def test_json_written_any_way_is_read_as_json_reads_it(value: Any) -> None:
    for raw in (
        json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode(),
        json.dumps(value).encode(),  # spaces, and text escaped
        json.dumps(value, indent=1, sort_keys=True).encode(),
    ):
        assert typed(parse_state(raw)) == typed(json.loads(raw))


def test_what_orjson_reads_otherwise_goes_to_json() -> None:
    for raw, why in [
        (b'{"a":1,"a":2}', "a duplicate key"),
        (b'{"a":1e-07}', "a float orjson writes as 1e-7"),
        (b'{"a":1e-05}', "a float orjson writes as 0.00001"),
        (b'{"a":NaN,"b":Infinity}', "no JSON to orjson"),
        (b'{"a":123456789012345678901234567890}', "beyond 64 bits"),
        (b'{"a":"caf\\u00e9"}', "escaped text"),
    ]:
        assert not fast(raw), why
        assert typed(parse_state(raw)) == typed(json.loads(raw)), why


dice = st.lists(st.fixed_dictionaries({"sides": values, "face": values, "kept": values}))


@given(value=values | dice)
@settings(max_examples=400, deadline=None)
def test_the_roll_log_writes_dice_as_json_writes_them(value: Any) -> None:
    assert compact_json(value) == json.dumps(value, separators=(",", ":"))


def test_dice_orjson_writes_otherwise_are_written_by_json() -> None:
    for value in ([1e-07], [float("nan")], [float("inf")], ["\x7f"], ["é"], ["\x1f\n"], [2**70]):
        assert compact_json(value) == json.dumps(value, separators=(",", ":")), value


def test_an_event_type_this_process_does_not_know_stops_the_views_instead_of_being_skipped(
    app: Questlog,
) -> None:
    from eventsourcing.utils import TopicError

    row = (0, 1, UUID(int=1), 1, "domain.model.events:WrittenByANewerRelease", b'{"x": 1}')
    with pytest.raises(TopicError, match="WrittenByANewerRelease"):
        decode_rows(app.mapper, [row])
