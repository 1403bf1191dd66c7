"""Step-through replay and the state at a moment in time, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from uuid import UUID

import pytest

from domain.model import patch
from domain.model.errors import InvalidInput, NotFound
from domain.service.questlog import Questlog
from domain.service.timetravel import MAX_REPLAY
from tests.application.test_rollback import command, qc_campaign, rollback


def played(app: Questlog) -> UUID:
    """A campaign with commands, rolls, a house-rule change, a seed rotation and a rollback."""
    cid = qc_campaign(app)  # 1..3
    command(app, cid, {"type": "trait_check", "trait": "STR", "target": 12})  # 4
    command(app, cid, {"type": "gain_credits", "amount": 5})  # 5
    app.campaigns.configure_house_rule(cid, "qc.combat.mode", "easy")  # 6
    app.dice.roll(cid, notation="2d6", purpose="look")  # 7
    app.dice.rotate_seed(cid)  # 8
    rollback(app, cid, 5)  # 9
    command(app, cid, {"type": "eat_rations", "count": 1})  # 10
    return cid


def test_applying_each_patch_to_the_view_before_gives_the_view_at_each_version(
    app: Questlog,
) -> None:
    cid = played(app)
    head = app.campaign(cid).version

    for first in (1, 2, 5, head):
        replay = app.time_travel.replay(cid, first=first)
        view: Any = replay.before
        assert view == (app.campaign(cid, version=first - 1).view() if first > 1 else {})
        assert [s.event.originator_version for s in replay.steps] == list(range(first, head + 1))
        for step in replay.steps:
            view = patch.apply(view, step.patch)
            assert view == app.campaign(cid, version=step.event.originator_version).view()


def test_a_replay_shows_what_the_rollback_changed(app: Questlog) -> None:
    cid = played(app)
    replay = app.time_travel.replay(cid, first=9, last=9)
    [step] = replay.steps
    paths = {op["path"] for op in step.patch}
    assert "/hero/credits" not in paths  # the credits at 5 were kept
    assert "/house_rules/qc.combat.mode" in paths
    assert not any(path.startswith("/dice") for path in paths)
    assert replay.timeline.undone_by(7) == 9


def test_a_replay_range_is_checked(app: Questlog) -> None:
    cid = played(app)
    travel = app.time_travel
    for first, last, field in [(5, 4, "from"), (0, 3, "from"), (1, 11, "to"), (11, None, "from")]:
        with pytest.raises(InvalidInput) as invalid:
            travel.replay(cid, first=first, last=last)
        assert list(invalid.value.errors) == [field], (first, last)
    with pytest.raises(NotFound):
        travel.replay(UUID(int=3), first=1)


def test_a_replay_covers_at_most_max_replay_events(app: Questlog) -> None:
    cid = played(app)
    with pytest.raises(InvalidInput):
        app.time_travel.replay(cid, first=1, last=1 + MAX_REPLAY)


# -- ?at= -----------------------------------------------------------------------------------------


def test_the_version_at_a_moment_is_the_last_one_recorded_at_or_before_it(app: Questlog) -> None:
    cid = played(app)
    events = app.campaign_events(cid)
    travel = app.time_travel
    for event in events:
        assert travel.version_at(cid, event.timestamp) >= event.originator_version
        later = [e for e in events if e.timestamp <= event.timestamp]
        assert travel.version_at(cid, event.timestamp) == later[-1].originator_version
    last = events[-1].timestamp
    assert travel.version_at(cid, last + timedelta(days=3650)) == len(events)
    at = travel.campaign_at(cid, events[4].timestamp)
    assert at.version >= 5
    assert at.view() == app.campaign(cid, version=at.version).view()


def test_a_moment_before_the_campaign_began_is_not_found(app: Questlog) -> None:
    cid = played(app)
    first = app.campaign_events(cid, limit=1)[0].timestamp
    with pytest.raises(NotFound):
        app.time_travel.version_at(cid, first - timedelta(microseconds=1))


def test_a_moment_without_an_offset_is_invalid(app: Questlog) -> None:
    cid = played(app)
    with pytest.raises(InvalidInput) as invalid:
        app.time_travel.version_at(cid, datetime(2030, 1, 1))
    assert list(invalid.value.errors) == ["at"]


def test_finding_the_version_at_a_moment_reads_a_handful_of_events(
    app: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid = qc_campaign(app)
    for n in range(253):  # 256 versions
        app.dice.roll(cid, notation="d4", purpose=f"{n}")
    stamps = [e.timestamp for e in app.campaign_events(cid)]
    reads: list[tuple[int, int]] = []
    select = app.recorder.select_events

    def counting(*args: Any, **kwargs: Any) -> Any:
        found = select(*args, **kwargs)
        reads.append((kwargs.get("gt") or 0, len(found)))
        return found

    monkeypatch.setattr(app.recorder, "select_events", counting)
    for version in (1, 2, 77, 128, 255):
        reads.clear()
        assert app.time_travel.version_at(cid, stamps[version - 1]) in range(version, 257)
        assert len(reads) <= 12, reads  # 2 ends + log2(256) probes, one event each
        assert all(count <= 1 for _, count in reads)


def test_version_at_uses_utc_offsets(app: Questlog) -> None:
    cid = played(app)
    event = app.campaign_events(cid)[3]
    elsewhere = event.timestamp.astimezone(timezone(timedelta(hours=5)))
    assert app.time_travel.version_at(cid, elsewhere) == app.time_travel.version_at(
        cid, event.timestamp.astimezone(UTC)
    )
