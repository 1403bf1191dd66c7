"""A campaign's active history: which versions a rollback undid, and which one undid them.

Every version has a parent in the history. A normal event at version v follows v - 1; a rollback
at version r to version n follows n, because its state is the state at n. The *active* history
of a head is the chain of parents from the head down to version 1. Walking that chain, each
rollback jumps over the versions between its target and itself: those versions are *undone*, by
that rollback. Every version below the head is either on the chain or inside exactly one such
jump, so "undone by" is well defined. A redo is a rollback to the version just before a rollback:
its jump covers the rollback, and the versions the rollback had undone are on the chain again.

Only the ``(version, to_version)`` pairs of the rollbacks are needed, so this is cheap to work
out for a campaign of any length.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Range = tuple[int, int]
"""An inclusive range of versions, ``(first, last)``."""


@dataclass(frozen=True)
class Gap:
    """Versions ``first..last`` that the active history jumps over, undone by rollback ``by``."""

    first: int
    last: int
    by: int


@dataclass(frozen=True)
class Timeline:
    """The active history of a campaign at ``head``, given its rollbacks."""

    head: int
    rollbacks: tuple[tuple[int, int], ...] = ()
    gaps: tuple[Gap, ...] = field(init=False, repr=False, compare=False)
    _starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        gaps = tuple(_gaps(self.head, self.rollbacks))
        object.__setattr__(self, "gaps", gaps)
        object.__setattr__(self, "_starts", tuple(gap.first for gap in gaps))

    @classmethod
    def of(cls, rollbacks: Iterable[Sequence[int]], head: int) -> Timeline:
        """The timeline from ``[version, to_version]`` pairs (any order; later ones ignored)."""
        pairs = sorted((int(v), int(to)) for v, to in rollbacks if int(v) <= head)
        return cls(head, tuple(pairs))

    def undone_by(self, version: int) -> int | None:
        """The rollback that undid ``version``, or None while it is on the active history."""
        index = bisect_right(self._starts, version) - 1
        if index >= 0 and version <= self.gaps[index].last:
            return self.gaps[index].by
        return None

    def marked(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """An event record in the one shape the API shows events in: the record
        (``Reading.event_records``) and whether a rollback undid it (``undone``, ``undone_by``)."""
        undone_by = self.undone_by(record["version"])
        return {**record, "undone": undone_by is not None, "undone_by": undone_by}

    def is_active(self, version: int) -> bool:
        """Whether ``version`` (at most the head) is on the active history."""
        return 1 <= version <= self.head and self.undone_by(version) is None

    def active_ranges(self, first: int, last: int) -> list[Range]:
        """The active versions within ``first..last``, as ranges in ascending order."""
        ranges: list[Range] = []
        cursor = max(first, 1)
        last = min(last, self.head)
        for gap in self.gaps:
            if gap.last < cursor:
                continue
            if gap.first > last:
                break
            if gap.first > cursor:
                ranges.append((cursor, gap.first - 1))
            cursor = gap.last + 1
        if cursor <= last:
            ranges.append((cursor, last))
        return ranges

    def with_rollback(self, to_version: int) -> Timeline:
        """The timeline after a rollback to ``to_version`` is appended at ``head + 1``."""
        return Timeline(self.head + 1, (*self.rollbacks, (self.head + 1, to_version)))

    def newly_undone(self, to_version: int) -> list[Range]:
        """The versions active now that a rollback to ``to_version`` would undo.

        Normally the active versions after ``to_version``; when ``to_version`` is itself on an
        undone branch, also active versions below it that are not on its history.
        """
        after = self.with_rollback(to_version)
        ranges: list[Range] = []
        for gap in after.gaps:
            ranges.extend(self.active_ranges(gap.first, min(gap.last, self.head)))
        return sorted(ranges)


def _gaps(head: int, rollbacks: Sequence[tuple[int, int]]) -> list[Gap]:
    """The jumps of the active history from ``head``, in ascending order of version."""
    versions = [version for version, _ in rollbacks]
    gaps: list[Gap] = []
    cursor, upper = head, len(versions)
    while True:
        # The latest rollback at or below the cursor: everything between it and the cursor is a
        # normal event, so the chain walks straight down to it and then jumps to its target.
        upper = bisect_right(versions, cursor, 0, upper) - 1
        if upper < 0:
            break
        version, to_version = rollbacks[upper]
        if to_version < version - 1:
            gaps.append(Gap(to_version + 1, version - 1, version))
        cursor = to_version
    gaps.reverse()
    return gaps
