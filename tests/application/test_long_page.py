"""A long page costs what a command changes: a trait check on a page of many checks copies and
compares none of the earlier checks (QC-10, QC-14), and the snapshots of a campaign whose state
grows with its events grow as the events do, not with their square."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from domain.model import patch, samples
from domain.service import campaign_store
from domain.service.questlog import Questlog
from tests.application.test_qc_property import PLAY_HERO
from tests.application.test_rollback import command, created, qc_campaign

CHECK = {"type": "trait_check", "trait": "INT", "purpose": "decode", "target": 12}


def reached(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The items of long lists that commands copy, as they copy them."""
    copied: list[Any] = []
    reach = patch.SharedItems._reach

    def counted(self: patch.SharedItems, index: int) -> Any:
        item = reach(self, index)
        copied.append(item)
        return item

    monkeypatch.setattr(patch.SharedItems, "_reach", counted)
    return copied


def test_a_check_on_a_long_page_reaches_none_of_the_earlier_checks(
    app: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid = qc_campaign(app)
    for _ in range(patch.SHARED_FROM + 5):
        command(app, cid, dict(CHECK))
    copied = reached(monkeypatch)
    (event,) = command(app, cid, dict(CHECK))
    assert copied == []
    assert [op["path"] for op in event.effects] == [f"/page/checks/{patch.SHARED_FROM + 5}"]
    assert len(app.campaign(cid).state["page"]["checks"]) == patch.SHARED_FROM + 6


def test_an_ability_on_a_long_page_copies_the_one_check_it_changes(
    app: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QC-14: ``use_ability`` with ``on_roll`` changes an earlier check; only that one is copied,
    and the campaign read before the command is left as it was."""
    cid = created(app, "quest-calendar", {"prologue_complete": True}, None)
    hero = {**PLAY_HERO, "abilities": [*PLAY_HERO["abilities"], samples.KEEN_MIND]}
    command(app, cid, {"type": "select_hero", "phase": "main", "hero": hero})
    command(app, cid, {"type": "start_page", "date": "2027-01-04"})
    for _ in range(patch.SHARED_FROM + 2):
        command(app, cid, dict(CHECK))
    before = app.campaign(cid).state
    kept = orjson.dumps(before)
    copied = reached(monkeypatch)
    events = command(app, cid, {"type": "use_ability", "ability": "keen-mind", "on_roll": 3})
    assert type(events[-1]).__name__.endswith("AbilityUsed")
    assert len(copied) == 1 and copied[0]["ability_bonus"] > 0
    assert orjson.dumps(before) == kept
    after = app.campaign(cid).state["page"]["checks"]
    assert after[3]["ability_bonus"] == copied[0]["ability_bonus"]
    assert [c for i, c in enumerate(after) if i != 3] == [
        c for i, c in enumerate(before["page"]["checks"]) if i != 3
    ]


def test_snapshot_stride_doubles_with_each_doubling_of_the_state() -> None:
    small = {"page": {"checks": []}}
    large = {"page": {"checks": ["x" * 100] * (3 * campaign_store.SNAPSHOT_BYTES // 100)}}
    interval = campaign_store.SNAPSHOT_INTERVAL
    assert [v for v in range(1, 801) if campaign_store.snapshot_due(v, small)] == [
        interval * n for n in range(1, 9)
    ]
    assert [v for v in range(1, 801) if campaign_store.snapshot_due(v, large)] == [
        2 * interval * n for n in range(1, 5)
    ]


def test_the_snapshots_of_a_growing_page_grow_as_its_events_do(
    app: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a small threshold, a page of 400 checks is snapshot at strides that double: the
    snapshots' bytes stay within a small multiple of the events' bytes, and the campaign loads
    the same from them."""
    monkeypatch.setattr(campaign_store, "SNAPSHOT_INTERVAL", 10)
    monkeypatch.setattr(campaign_store, "SNAPSHOT_BYTES", 4096)
    cid = qc_campaign(app)
    for _ in range(400):
        command(app, cid, dict(CHECK))
    assert app.snapshots is not None
    snapshots = list(app.snapshots.get(cid))
    versions = [s.originator_version for s in snapshots]
    strides = [b - a for a, b in zip([0, *versions], versions, strict=False)]
    assert strides == sorted(strides) and strides[-1] >= 8 * strides[0], strides
    state_bytes = [len(orjson.dumps(s.state["state"])) for s in snapshots]
    events = list(app.events.get(cid))
    event_bytes = sum(len(orjson.dumps(e.effects)) for e in events if hasattr(e, "effects"))
    assert sum(state_bytes) < 8 * event_bytes, (sum(state_bytes), event_bytes)
    head = app.campaign(cid)
    earlier = app.campaign(cid, version=head.version - 1)  # the last snapshot and events after it
    assert earlier.state["page"]["checks"] == head.state["page"]["checks"][:-1]
