"""What a campaign's current state accepts: the commands, whose turn it is, and what undo does.

The table page asks this instead of guessing: each command's availability comes from the game's
rules (``GameRules.available``: a pending decision first, then the command's predicate), the turn
from the state, and the last command's undo from the event log and the rollback policy
(docs/time-travel.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from domain.model.campaign import Campaign, GameEvent
from domain.model.event_records import command_versions_of
from domain.model.games import rules_for
from domain.model.house_rules import CALENDAR_BOARD, ROLLBACK_OVER_SERVER_ROLLS
from domain.model.rules_engine import decision_summary
from domain.service.commands_service import CommandService
from domain.service.timetravel import SOLO_PLAYER, TimeTravel, players_of

_LOOK_BACK = 50
"""How many events undo reads at a time, looking back past rollback proposals and votes."""
_VOTES = (Campaign.RollbackProposed, Campaign.RollbackApproved)
_CAMPAIGN_ACTIONS = {
    "DiceRolled": "roll",
    "HouseRuleConfigured": "set_house_rule",
    "ClientSeedChanged": "set_client_seed",
    "SeedRotated": "rotate_seed",
    "RolledBack": "rollback",
    "CampaignImported": "import",
}


@dataclass(frozen=True)
class Caller:
    """Who asks: the seat it acts for (None: none) and whether it may roll back or propose."""

    seat: str | None = None
    can_manage: bool = True
    can_propose: bool = True


class TableActions:
    """The actions query on the core."""

    def __init__(self, app: CommandService, travel: TimeTravel) -> None:
        self.app = app
        self.travel = travel

    def actions(self, campaign_id: UUID, caller: Caller) -> dict[str, Any]:
        """What the campaign's head accepts now, for this caller."""
        campaign = self.app.campaign(campaign_id)
        state, house = campaign.state, campaign.house_rules
        rules = rules_for(campaign.game)
        pending = state.get("pending")
        commands = []
        for name in sorted(rules.commands):
            refusal = rules.available(name, state, house)
            entry: dict[str, Any] = {"name": name, "available": refusal is None}
            if refusal is not None:
                entry["rule"], entry["reason"] = refusal
            commands.append(entry)
        return {
            "version": campaign.version,
            "pending": (
                {**decision_summary(pending), "context": pending.get("context")}
                if pending
                else None
            ),
            "turn": turn(campaign, caller.seat),
            "commands": commands,
            "undo": self.undo(campaign, caller),
        }

    def last_command(self, campaign: Campaign) -> tuple[int, int, str] | None:
        """The first and last versions of the newest game command (or roll), and its name: a
        command's type, ``roll`` for a dice roll (None: only the campaign's creation so far).

        A rollback proposal and its approvals are no command: undo skips them (the rollback
        that undoes the command drops them with it), so Undo never points at one's own vote."""
        head = campaign.version
        newest = head
        last: Any = None
        while newest > 1:
            after = max(0, newest - _LOOK_BACK)
            events = self.app.campaign_events(campaign.id, after=after, limit=newest - after)
            last = next((e for e in reversed(events) if not isinstance(e, _VOTES)), None)
            if last is not None:
                break
            newest = after
        if last is None:
            return None
        newest = int(last.originator_version)
        span = command_versions_of(last)
        if span is None and isinstance(last, GameEvent):
            # Events stored before they named their command: one command shares a timestamp.
            span = self.travel._timestamp_span(campaign.id, newest, last.timestamp)
        first, final = span or (newest, newest)
        if first <= 1:
            return None
        return first, final, command_name(last)

    def undo(self, campaign: Campaign, caller: Caller) -> dict[str, Any] | None:
        """How the newest command is undone: a rollback to the version before it, directly or
        by a proposal as the rollback policy says, or not at all by this caller."""
        found = self.last_command(campaign)
        if found is None:
            return None
        first, _, name = found
        to_version = first - 1
        policy, reason = self._policy(campaign, to_version)
        # A player proposes as its seat (docs/access.md): one without a seat cannot propose.
        may_propose = caller.can_manage or (caller.can_propose and caller.seat is not None)
        if policy == "direct" and not caller.can_manage:
            policy, reason = "proposal", "only the owner rolls back directly; a proposal may"
        if policy == "proposal" and not may_propose:
            policy, reason = "forbidden", "this caller may neither roll back nor propose a rollback"
        return {
            "to_version": to_version,
            "command": name,
            "from_version": first,
            "policy": policy,
            "reason": reason,
        }

    def _policy(self, campaign: Campaign, to_version: int) -> tuple[str, str]:
        """What the rollback policy asks of a rollback to ``to_version``, and why."""
        if campaign.game == CALENDAR_BOARD or players_of(campaign) != [SOLO_PLAYER]:
            return "proposal", "a match rolls back once every player agrees to a proposal"
        rule = campaign.rollback_policy()
        undone = self.travel.rolls_undone_by(campaign, to_version)
        server = sum(1 for roll in undone if roll.get("source") == "server")
        if server and rule == "forbid":
            return (
                "proposal",
                f"it undoes {server} server roll(s), and {ROLLBACK_OVER_SERVER_ROLLS} is forbid",
            )
        flagged = " (the audit flags it)" if server and rule == "flag" else ""
        return "direct", f"{ROLLBACK_OVER_SERVER_ROLLS} is {rule}{flagged}"


def command_name(event: Any) -> str:
    """What undo names: a game command's type, ``roll`` for a dice roll, else what the campaign
    event did (``set_house_rule``), never an event's type."""
    if isinstance(event, GameEvent):
        return str(event.command.get("type"))
    return _CAMPAIGN_ACTIONS.get(type(event).__name__, "campaign change")


def turn(campaign: Campaign, seat: str | None) -> dict[str, Any] | None:
    """Whose move it is in a match: the player a pending decision waits for, else the player
    whose turn it is (None at night with no decision); None for a solo game."""
    if campaign.game != CALENDAR_BOARD:
        return None
    state = campaign.state
    pending = state.get("pending")
    night = state.get("night")
    player = pending.get("who") if pending else (state.get("turn") or {}).get("player")
    return {
        "player": player,
        "phase": "night" if night is not None else "day",
        "step": (night or {}).get("step"),
        "yours": seat is not None and seat == player,
    }
