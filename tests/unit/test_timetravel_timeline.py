"""The active history after rollbacks: which versions are undone, and by which rollback."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.service.timeline import Gap, Timeline


def brute_force_parents(head: int, rollbacks: dict[int, int]) -> set[int]:
    """The active history by definition: follow parents from the head (v-1, or a rollback's N)."""
    active: set[int] = set()
    version = head
    while version >= 1:
        active.add(version)
        version = rollbacks.get(version, version - 1)
    return active


@st.composite
def histories(draw: st.DrawFn) -> tuple[int, dict[int, int]]:
    """A random log: normal events and rollbacks, each to an earlier version (undone or not)."""
    head = 1
    rollbacks: dict[int, int] = {}
    for _ in range(draw(st.integers(0, 40))):
        head += 1
        if head > 2 and draw(st.integers(0, 3)) == 0:
            rollbacks[head] = draw(st.integers(1, head - 2))
    return head, rollbacks


def test_without_rollbacks_every_version_is_active() -> None:
    timeline = Timeline.of([], 10)
    assert timeline.gaps == ()
    assert all(timeline.is_active(v) for v in range(1, 11))
    assert timeline.active_ranges(1, 10) == [(1, 10)]


def test_a_rollback_undoes_the_versions_between_its_target_and_itself() -> None:
    timeline = Timeline.of([[6, 3]], 7)
    assert timeline.gaps == (Gap(4, 5, 6),)
    assert [timeline.undone_by(v) for v in range(1, 8)] == [None, None, None, 6, 6, None, None]
    assert timeline.active_ranges(1, 7) == [(1, 3), (6, 7)]


def test_a_redo_undoes_the_rollback_and_brings_back_what_it_undid() -> None:
    # 1..5, rollback at 6 to 3, redo at 7 to 5 (the version just before the rollback).
    timeline = Timeline.of([[6, 3], [7, 5]], 7)
    assert [timeline.undone_by(v) for v in range(1, 8)] == [None] * 5 + [7, None]


def test_a_rollback_onto_an_undone_branch_undoes_the_versions_off_its_history() -> None:
    # 1..3, rollback at 4 to 1, 5, rollback at 6 to 2 (back onto the undone branch), 7;
    # a rollback at 8 to 5 goes back through 4's jump, so 2 and 3 are undone by 4 again.
    before = Timeline.of([[4, 1], [6, 2]], 7)
    assert before.active_ranges(1, 7) == [(1, 2), (6, 7)]
    assert before.newly_undone(5) == [(2, 2), (6, 7)]
    after = before.with_rollback(5)
    assert after.head == 8
    assert [after.undone_by(v) for v in range(1, 9)] == [None, 4, 4, None, None, 8, 8, None]


def test_newly_undone_is_the_active_versions_after_the_target() -> None:
    timeline = Timeline.of([[6, 3]], 9)
    assert timeline.newly_undone(7) == [(8, 9)]
    assert timeline.newly_undone(2) == [(3, 3), (6, 9)]


def test_rollbacks_after_the_head_are_ignored() -> None:
    timeline = Timeline.of([[6, 3]], 5)
    assert timeline.gaps == ()


@given(histories())
def test_undone_by_matches_the_parent_chain_definition(history: tuple[int, dict[int, int]]) -> None:
    head, rollbacks = history
    timeline = Timeline.of(rollbacks.items(), head)
    active = brute_force_parents(head, rollbacks)
    for version in range(1, head + 1):
        assert timeline.is_active(version) == (version in active)
        by = timeline.undone_by(version)
        if by is not None:
            # The rollback that undid it is on the active history and jumps over it.
            assert by in active
            assert rollbacks[by] < version < by
    covered = {v for first, last in timeline.active_ranges(1, head) for v in range(first, last + 1)}
    assert covered == active


@given(histories(), st.data())
def test_newly_undone_is_what_leaves_the_active_history(
    history: tuple[int, dict[int, int]], data: st.DataObject
) -> None:
    head, rollbacks = history
    if head < 2:
        return
    target = data.draw(st.integers(1, head - 1))
    timeline = Timeline.of(rollbacks.items(), head)
    before = brute_force_parents(head, rollbacks)
    after = brute_force_parents(head + 1, {**rollbacks, head + 1: target})
    newly = {v for first, last in timeline.newly_undone(target) for v in range(first, last + 1)}
    assert newly == before - after
