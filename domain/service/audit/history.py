"""The time travel in a log, gathered while it is audited: every rollback (who, when, why, which
rolls it undid, approved by whom), the rerolls (an undone roll followed by a later active roll for
the same purpose), the server rolls undone under the ``flag`` policy, and the fate rerolls (a roll
recorded as replacing an earlier one by a game's fate-reroll rule, e.g. G-CB-12)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from domain.service.timeline import Timeline

ROLLED_BACK = "questlog.RolledBack"
ROLLBACK_PROPOSED = "questlog.RollbackProposed"
ROLLBACK_APPROVED = "questlog.RollbackApproved"


class RollSeen(NamedTuple):
    """What the findings read of each roll (kept to the audit's end: the rollbacks come later);
    a field the roll lacks is None."""

    version: int
    roll_id: Any
    source: Any
    purpose: Any
    total: Any
    fate_reroll_of: Any


class History:
    """The rollbacks, proposals and rolls of a log, gathered while it is audited."""

    def __init__(self) -> None:
        self.rollbacks: list[dict[str, Any]] = []
        self.approvals: dict[str, list[str]] = {}
        self.rolls: list[RollSeen] = []
        self.head = 0
        self._texts: dict[str, str] = {}
        """One copy of each source and purpose the kept rolls name (not one a roll)."""

    def add(
        self,
        topic: str,
        version: int,
        fields: Mapping[str, Any],
        rolls: Sequence[Mapping[str, Any]] = (),
    ) -> str | None:
        """Take note of one decoded event and its rolls (``stored.roll_records``); what is wrong
        with a rollback's own fields, if anything (a tampered event: reported at its version)."""
        self.head = version
        problem = None
        if topic == ROLLED_BACK:
            to_version = fields.get("to_version")
            if isinstance(to_version, bool) or not isinstance(to_version, int):
                return None  # a tampered event: the chain check has already reported it
            undone = fields.get("undone_rolls") or []
            proposal = fields.get("proposal_id")
            if not isinstance(undone, list) or not all(type(r) is str for r in undone):
                undone, problem = [], "the rollback's undone_rolls are not a list of roll ids"
            if proposal is not None and type(proposal) is not str:
                proposal, problem = None, "the rollback's proposal_id is not a text"
            self.rollbacks.append(
                {
                    "version": version,
                    "to_version": to_version,
                    "timestamp": fields["timestamp"].isoformat(),
                    "actor": fields.get("actor"),
                    "reason": fields.get("reason"),
                    "policy": fields.get("policy"),
                    "flagged": bool(fields.get("flagged")),
                    "proposal_id": proposal,
                    "undone_rolls": list(undone),
                    "server_rolls_undone": fields.get("server_rolls_undone"),
                }
            )
        elif topic == ROLLBACK_PROPOSED:
            self.approvals.setdefault(str(fields.get("proposal_id")), [])
        elif topic == ROLLBACK_APPROVED:
            approvals = self.approvals.setdefault(str(fields.get("proposal_id")), [])
            approvals.append(str(fields.get("player")))
        texts = self._texts
        for record in rolls:
            get = record.get
            source, purpose = get("source"), get("purpose")
            if type(source) is str:
                source = texts.setdefault(source, source)
            if type(purpose) is str:
                purpose = texts.setdefault(purpose, purpose)
            roll = (version, get("roll_id"), source, purpose, get("total"), get("fate_reroll_of"))
            self.rolls.append(tuple.__new__(RollSeen, roll))  # (not RollSeen(): a Python call)
        return problem

    def findings(self) -> dict[str, list[Any]]:
        """The rollbacks, flagged rolls, rerolls and fate rerolls, by the report's names."""
        found: dict[str, list[Any]] = {"rollbacks": [], "flagged_rolls": []}
        timeline = Timeline.of([(r["version"], r["to_version"]) for r in self.rollbacks], self.head)
        sources: dict[str, Any] = {}
        for rollback in self.rollbacks:
            proposal = rollback["proposal_id"]
            found["rollbacks"].append(
                {
                    **rollback,
                    "approved_by": self.approvals.get(proposal, []) if proposal else None,
                    "undone_by": timeline.undone_by(rollback["version"]),
                }
            )
            if rollback["flagged"]:
                sources = sources or {str(r.roll_id): r.source for r in self.rolls}
                found["flagged_rolls"].extend(
                    roll for roll in rollback["undone_rolls"] if sources.get(roll) == "server"
                )
        found["rerolls"] = rerolls(self.rolls, timeline)
        found["fate_rerolls"] = fate_rerolls(self.rolls, timeline)
        return found


def fate_rerolls(rolls: list[RollSeen], timeline: Timeline) -> list[dict[str, Any]]:
    """Each roll that replaced an earlier one by a fate reroll, with the roll it replaced.

    ``replaced_found`` is False if the named roll is not an earlier roll of the log.
    """
    seen: dict[str, RollSeen] = {}
    found: list[dict[str, Any]] = []
    for record in rolls:
        original = record.fate_reroll_of
        if original is not None:
            replaced = seen.get(str(original))
            found.append(
                {
                    "roll_id": record.roll_id,
                    "fate_reroll_of": original,
                    "replaced_found": replaced is not None,
                    "replaced_total": None if replaced is None else replaced.total,
                    "total": record.total,
                    "purpose": record.purpose,
                    "source": record.source,
                    "version": record.version,
                    "undone_by": timeline.undone_by(int(record.version)),
                }
            )
        seen[str(record.roll_id)] = record
    return found


def rerolls(rolls: list[RollSeen], timeline: Timeline) -> list[dict[str, Any]]:
    """Each undone roll followed by a later active roll for the same purpose."""
    if not timeline.gaps:
        return []  # nothing was undone
    active: dict[str, list[tuple[int, str]]] = {}
    for record in rolls:
        if timeline.is_active(int(record.version)):
            active.setdefault(str(record.purpose), []).append(
                (int(record.version), str(record.roll_id))
            )
    found: list[dict[str, Any]] = []
    for record in rolls:
        version = int(record.version)
        undone_by = timeline.undone_by(version)
        if undone_by is None:
            continue
        later = active.get(str(record.purpose), [])
        index = bisect_right(later, version, key=lambda item: item[0])
        if index < len(later):
            found.append(
                {
                    "roll_id": record.roll_id,
                    "purpose": record.purpose,
                    "source": record.source,
                    "undone_by": undone_by,
                    "rerolled_as": later[index][1],
                }
            )
    return found
