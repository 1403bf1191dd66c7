"""Every event names the command that recorded it; older stores are grouped by timestamp.

A command's events carry ``command_id`` (its first version) and ``command_versions`` (its first
and last), in their hashed data. Events written before that (the release fixture) carry neither,
and one game command's events are then told apart by their shared timestamp.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.model.errors import InvalidInput
from domain.model.event_records import command_versions_of
from domain.service.audit.stored import Commands
from domain.service.questlog import Questlog
from domain.service.timetravel import same_command
from domain.storage.store import StoreConfig
from tests.application.test_rollback import cb_campaign, command, qc_campaign

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "release-2026-12-01.sqlite3"
QC = UUID("ff360452-9cd1-4609-8014-1e0ac5c7c715")
CB = UUID("3266de82-66e8-4d5e-a185-3a51e40bf46c")


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[Questlog]:
    """The application on a copy of the release fixture (the committed file is never opened)."""
    copy_path = tmp_path / FIXTURE.name
    shutil.copyfile(FIXTURE, copy_path)
    app = Questlog(StoreConfig(sqlite_path=copy_path))
    yield app
    app.close()


def spans(app: Questlog, cid: UUID, first: int, last: int) -> dict[int, tuple[int, int] | None]:
    """``command_span`` of each version ``first..last``."""
    travel = app.time_travel
    return {v: travel.command_span(cid, v) for v in range(first, last + 1)}


def test_every_event_of_a_command_names_the_command(app: Questlog) -> None:
    cid = cb_campaign(app)
    command(app, cid, {"type": "end_turn", "player": "A"})
    command(app, cid, {"type": "end_turn", "player": "B"})
    before = app.campaign(cid).version
    events = command(app, cid, {"type": "end_turn", "player": "C"})
    first, last = before + 1, before + len(events)

    assert [(e.command_id, e.command_versions) for e in events] == [(first, [first, last])] * len(
        events
    )
    stored = app.campaign_events(cid)
    assert all(command_versions_of(e) is not None for e in stored)
    assert stored[0].command_id == 1 and stored[0].command_versions == [1, 1]
    assert app.reading.audit(cid).ok


def test_a_roll_a_seed_rotation_and_a_rollback_are_each_one_command(app: Questlog) -> None:
    cid = qc_campaign(app)
    target = app.campaign(cid).version
    app.dice.roll(cid, notation="d20", purpose="x")
    app.dice.rotate_seed(cid)
    app.time_travel.rollback(cid, to_version=target, reason="r")

    for event in app.campaign_events(cid, after=target):
        version = event.originator_version
        assert (event.command_id, event.command_versions) == (version, [version, version])


def test_a_proposal_its_agreements_and_its_rollback_are_one_command_each_save(
    app: Questlog,
) -> None:
    cid = cb_campaign(app)
    target = app.campaign(cid).version
    app.dice.roll(cid, notation="d20", purpose="hail")
    travel = app.time_travel
    proposal = travel.propose_rollback(cid, to_version=target, reason="r", proposer="A")
    pid = proposal.value["proposal"]["proposal_id"]
    travel.approve_rollback(cid, pid, player="B")
    travel.approve_rollback(cid, pid, player="C")

    events = app.campaign_events(cid, after=target + 1)
    assert [(e.TOPIC, e.command_versions) for e in events] == [
        ("questlog.RollbackProposed", [target + 2, target + 3]),
        ("questlog.RollbackApproved", [target + 2, target + 3]),
        ("questlog.RollbackApproved", [target + 4, target + 4]),
        ("questlog.RollbackApproved", [target + 5, target + 6]),
        ("questlog.RolledBack", [target + 5, target + 6]),
    ]
    assert app.reading.audit(cid).ok


def test_the_command_id_not_the_timestamp_groups_new_events(app: Questlog) -> None:
    cid = cb_campaign(app)
    [ended, started] = command(app, cid, {"type": "end_turn", "player": "A"})
    [next_ended, _] = command(app, cid, {"type": "end_turn", "player": "B"})[:2]
    assert same_command(ended, started)

    same_moment = copy.copy(next_ended)
    object.__setattr__(
        same_moment, "__dict__", {**vars(next_ended), "timestamp": started.timestamp}
    )
    assert not same_command(started, same_moment)
    later = copy.copy(started)
    object.__setattr__(later, "__dict__", {**vars(started), "timestamp": next_ended.timestamp})
    assert same_command(ended, later)


def test_an_older_store_is_grouped_by_timestamp_and_new_commands_by_their_id(
    old_store: Questlog,
) -> None:
    app = old_store
    assert all(command_versions_of(e) is None for e in app.campaign_events(QC))
    # Quest Calendar: use_item recorded ItemUsed and ConditionCleared at 14 and 15.
    assert spans(app, QC, 13, 16) == {13: None, 14: (14, 15), 15: None, 16: None}
    # Calendar Board: end_turn of B (21-32); a proposal, two agreements and a rollback (15-18),
    # which older releases recorded as separate moments, stay separate.
    expected = {20: None, **{v: (21, 32) for v in range(21, 32)}, 32: None, 33: (33, 34)}
    assert spans(app, CB, 20, 33) == expected
    assert spans(app, CB, 14, 18) == {14: None, 15: None, 16: None, 17: None, 18: None}
    with pytest.raises(InvalidInput):
        app.time_travel.rollback(CB, to_version=25, reason="r")

    head = app.campaign(CB).version
    events = command(app, CB, {"type": "end_turn", "player": "A"})
    first, last = head + 1, head + len(events)
    assert len(events) > 1
    assert all(e.command_versions == [first, last] for e in events)
    assert spans(app, CB, head, last) == {head: None} | {
        v: (first, last) for v in range(first, last)
    } | {last: None}
    report = app.reading.audit(CB)
    assert report.ok and report.chain_ok, report.as_dict()


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ([(1, 1, [1, 1]), (2, 2, [2, 3]), (3, 2, [2, 3])], None),
        ([(1, None, None), (2, 2, [2, 2])], None),
        ([(1, 1, [1, 2]), (2, None, None)], "unfinished"),
        ([(1, 1, [1, 1]), (2, 3, [3, 4])], "do not name its version"),
        ([(1, 1, [1, 1]), (2, 2, [2, 3]), (3, 3, [3, 3])], "is missing"),
        ([(1, 1, [1, 1]), (3, 2, [2, 3])], "first events"),
        ([(1, 1, [1, 1]), (2, 1, [1, 2])], "first events"),
    ],
)
def test_the_audit_checks_that_each_command_is_stored_whole(
    events: list[tuple[int, Any, Any]], problem: str | None
) -> None:
    commands = Commands()
    found = []
    for version, command_id, versions in events:
        fields = (
            {} if command_id is None else {"command_id": command_id, "command_versions": versions}
        )
        found.append(commands.add(version, fields))
    problems = [p for p in found if p]
    if problem is None:
        assert problems == [] and commands.open is None
    else:
        assert len(problems) == 1 and problem in problems[0], problems
