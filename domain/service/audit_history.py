"""The time travel in a log, gathered while it is audited: every rollback (who, when, why, which
rolls it undid, approved by whom), the rerolls (an undone roll followed by a later active roll for
the same purpose), the server rolls undone under the ``flag`` policy, and the fate rerolls (a roll
recorded as replacing an earlier one by a game's fate-reroll rule, e.g. G-CB-12)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from typing import Any

from domain.service.timeline import Timeline

ROLLED_BACK = "questlog.RolledBack"
ROLLBACK_PROPOSED = "questlog.RollbackProposed"
ROLLBACK_APPROVED = "questlog.RollbackApproved"


ROLL_FIELDS = ("roll_id", "source", "purpose", "total", "fate_reroll_of")
"""What the findings read of each roll (kept to the audit's end: the rollbacks come later)."""


class History:
    """The rollbacks, proposals and rolls of a log, gathered while it is audited."""

    def __init__(self) -> None:
        self.rollbacks: list[dict[str, Any]] = []
        self.approvals: dict[str, list[str]] = {}
        self.rolls: list[dict[str, Any]] = []
        self.head = 0

    def add(self, topic: str, version: int, fields: Mapping[str, Any]) -> None:
        """Take note of one decoded event."""
        self.head = version
        if topic == ROLLED_BACK:
            to_version = fields.get("to_version")
            if isinstance(to_version, bool) or not isinstance(to_version, int):
                return  # a tampered event: the chain check has already reported it
            self.rollbacks.append(
                {
                    "version": version,
                    "to_version": to_version,
                    "timestamp": fields["timestamp"].isoformat(),
                    "actor": fields.get("actor"),
                    "reason": fields.get("reason"),
                    "policy": fields.get("policy"),
                    "flagged": bool(fields.get("flagged")),
                    "proposal_id": fields.get("proposal_id"),
                    "undone_rolls": list(fields.get("undone_rolls") or []),
                    "server_rolls_undone": fields.get("server_rolls_undone"),
                }
            )
        elif topic == ROLLBACK_PROPOSED:
            self.approvals.setdefault(str(fields.get("proposal_id")), [])
        elif topic == ROLLBACK_APPROVED:
            approvals = self.approvals.setdefault(str(fields.get("proposal_id")), [])
            approvals.append(str(fields.get("player")))
        for record in fields.get("rolls") or []:
            kept = {key: record[key] for key in ROLL_FIELDS if key in record}
            self.rolls.append({**kept, "version": version})

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
                sources = sources or {str(r.get("roll_id")): r.get("source") for r in self.rolls}
                found["flagged_rolls"].extend(
                    roll for roll in rollback["undone_rolls"] if sources.get(roll) == "server"
                )
        found["rerolls"] = rerolls(self.rolls, timeline)
        found["fate_rerolls"] = fate_rerolls(self.rolls, timeline)
        return found


def fate_rerolls(rolls: list[dict[str, Any]], timeline: Timeline) -> list[dict[str, Any]]:
    """Each roll that replaced an earlier one by a fate reroll, with the roll it replaced.

    ``replaced_found`` is False if the named roll is not an earlier roll of the log.
    """
    seen: dict[str, dict[str, Any]] = {}
    found: list[dict[str, Any]] = []
    for record in rolls:
        original = record.get("fate_reroll_of")
        if original is not None:
            replaced = seen.get(str(original))
            found.append(
                {
                    "roll_id": record.get("roll_id"),
                    "fate_reroll_of": original,
                    "replaced_found": replaced is not None,
                    "replaced_total": None if replaced is None else replaced.get("total"),
                    "total": record.get("total"),
                    "purpose": record.get("purpose"),
                    "source": record.get("source"),
                    "version": record["version"],
                    "undone_by": timeline.undone_by(int(record["version"])),
                }
            )
        seen[str(record.get("roll_id"))] = record
    return found


def rerolls(rolls: list[dict[str, Any]], timeline: Timeline) -> list[dict[str, Any]]:
    """Each undone roll followed by a later active roll for the same purpose."""
    if not timeline.gaps:
        return []  # nothing was undone
    active: dict[str, list[tuple[int, str]]] = {}
    for record in rolls:
        if timeline.is_active(int(record["version"])):
            active.setdefault(str(record.get("purpose")), []).append(
                (int(record["version"]), str(record.get("roll_id")))
            )
    found: list[dict[str, Any]] = []
    for record in rolls:
        version = int(record["version"])
        undone_by = timeline.undone_by(version)
        if undone_by is None:
            continue
        later = active.get(str(record.get("purpose")), [])
        index = bisect_right(later, version, key=lambda item: item[0])
        if index < len(later):
            found.append(
                {
                    "roll_id": record.get("roll_id"),
                    "purpose": record.get("purpose"),
                    "source": record.get("source"),
                    "undone_by": undone_by,
                    "rerolled_as": later[index][1],
                }
            )
    return found
