"""Time travel on a campaign: rollbacks, and the proposals every player must agree to.

``RollbackMixin`` is mixed into ``domain.model.campaign.Campaign``: its methods decide (the target,
the ``rollback_over_server_rolls`` house rule, a proposal's approvals) and then record through the
campaign's own events (``RolledBack``, ``RollbackProposed``, ``RollbackApproved``), which only
assign. ``RollbackHost`` is what they use of the campaign (docs/time-travel.md).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from copy import deepcopy
from typing import Any, Protocol
from uuid import UUID

from domain.model.errors import InvalidInput, NotFound, NotHeld, RuleViolation
from domain.model.house_rules import ROLLBACK_OVER_SERVER_ROLLS, book


class RollbackHost(Protocol):
    """What time travel reads of a campaign, and how it records (``Campaign`` provides it)."""

    game: str
    house_rules: dict[str, Any]
    proposals: dict[str, dict[str, Any]]

    @property
    def id(self) -> UUID: ...

    @property
    def version(self) -> int: ...

    @property
    def RolledBack(self) -> type[Any]: ...

    @property
    def RollbackProposed(self) -> type[Any]: ...

    @property
    def RollbackApproved(self) -> type[Any]: ...

    @property
    def pending_events(self) -> list[Any]: ...

    def trigger_event(self, event_class: type[Any], **kwargs: Any) -> None: ...

    def _within_command(self, size: int) -> AbstractContextManager[None]: ...


class RollbackMixin:
    """Rollbacks and rollback proposals of a campaign (mixed into ``Campaign``)."""

    def check_rollback_target(self: RollbackHost, to_version: int) -> None:
        """Refuse a rollback target that is not an earlier version of this campaign."""
        check_target(self.version, to_version)

    def rollback_policy(self: RollbackHost) -> str:
        """The ``rollback_over_server_rolls`` house rule in force (its default if unset)."""
        return policy_of(self.game, self.house_rules)

    def roll_back(
        self: RollbackHost,
        *,
        to_version: int,
        reason: str,
        actor: str | None,
        restored_state: dict[str, Any],
        restored_house_rules: dict[str, Any],
        undone_rolls: list[dict[str, Any]],
        proposal_id: str | None = None,
    ) -> Any:
        """Record a rollback to the state and house rules at ``to_version`` (given as data).

        ``undone_rolls`` are the records of the rolls that were active and that the rollback
        undoes. Under ``forbid``, undoing a server roll needs an agreed proposal.
        """
        check_target(self.version, to_version)
        policy = policy_of(self.game, self.house_rules)
        server = [r["roll_id"] for r in undone_rolls if r.get("source") == "server"]
        if server and policy == "forbid":
            if proposal_id is None:
                raise RuleViolation(
                    ROLLBACK_OVER_SERVER_ROLLS,
                    f"this rollback would undo {len(server)} server roll(s) "
                    f"({', '.join(server[:5])}{', …' if len(server) > 5 else ''}); "
                    "under 'forbid' every player must agree to it through a rollback proposal",
                )
            if missing(found(self, proposal_id)):
                raise RuleViolation(
                    ROLLBACK_OVER_SERVER_ROLLS, f"proposal {proposal_id} is not agreed yet"
                )
        self.trigger_event(
            self.RolledBack,
            to_version=to_version,
            reason=reason,
            actor=actor,
            restored_state=deepcopy(restored_state),
            restored_house_rules=dict(restored_house_rules),
            undone_versions=list(range(to_version + 1, self.version + 1)),
            undone_rolls=[r["roll_id"] for r in undone_rolls],
            server_rolls_undone=len(server),
            policy=policy,
            flagged=policy == "flag" and bool(server),
            proposal_id=proposal_id,
        )
        event = self.pending_events[-1]
        assert isinstance(event, self.RolledBack)
        return event

    def propose_rollback(
        self: RollbackHost,
        *,
        proposal_id: str,
        to_version: int,
        reason: str,
        proposer: str,
        players: list[str],
    ) -> None:
        """Propose a rollback to ``players``; a proposer who is a player agrees by proposing."""
        check_target(self.version, to_version)
        if proposal_id in self.proposals:
            raise ValueError(f"proposal id {proposal_id} is already taken")
        agrees = proposer in players
        with self._within_command(2 if agrees else 1):
            self.trigger_event(
                self.RollbackProposed,
                proposal_id=proposal_id,
                to_version=to_version,
                reason=reason,
                proposer=proposer,
                players=list(players),
            )
            if agrees:
                self.trigger_event(self.RollbackApproved, proposal_id=proposal_id, player=proposer)

    def approve_rollback(
        self: RollbackHost, proposal_id: str, player: str, *, moved_on_at: int | None
    ) -> None:
        """Record one player's agreement to an open proposal.

        ``moved_on_at`` is the first version after the proposal that is neither a proposal nor
        an approval: a proposal is stale once the campaign has moved on.
        """
        proposal = found(self, proposal_id)
        if proposal["status"] != "open":
            raise RuleViolation(
                "rollback-proposal-closed",
                f"proposal {proposal_id} was already carried out at version "
                f"{proposal['executed_at']}",
            )
        if player not in proposal["players"]:
            players = ", ".join(proposal["players"])
            raise NotHeld("player", f"must be one of the players: {players}")
        if player in proposal["approvals"]:
            raise RuleViolation(
                "rollback-already-approved", f"{player} already agreed to proposal {proposal_id}"
            )
        if moved_on_at is not None:
            raise RuleViolation(
                "rollback-proposal-stale",
                f"proposal {proposal_id} (version {proposal['version']}) is stale: the campaign "
                f"moved on at version {moved_on_at}; propose the rollback again",
            )
        self.trigger_event(self.RollbackApproved, proposal_id=proposal_id, player=player)

    def proposal(self: RollbackHost, proposal_id: str) -> dict[str, Any]:
        """A rollback proposal by id (open or carried out)."""
        return found(self, proposal_id)

    def missing_approvals(self: RollbackHost, proposal_id: str) -> list[str]:
        """The players who have not agreed to a proposal yet."""
        return missing(found(self, proposal_id))


def check_target(version: int, to_version: int) -> None:
    """Refuse a rollback target that is not an earlier version than ``version``: a target that
    is no version at all is invalid input (422); the head or past it is the log's answer (409)."""
    if isinstance(to_version, bool) or not isinstance(to_version, int):
        raise InvalidInput.field("to_version", "must be an integer")
    if to_version < 1:
        raise InvalidInput.field("to_version", "must be at least 1 (the creation event)")
    if to_version == version:  # the state's answer: a version later would be a fine target
        raise NotHeld("to_version", "is the current version: nothing to undo")
    if to_version > version:
        raise NotHeld("to_version", f"no version {to_version}: the head is version {version}")


def policy_of(game: str, house_rules: dict[str, Any]) -> str:
    """The ``rollback_over_server_rolls`` house rule in force (its default if unset)."""
    default = book(game).rules[ROLLBACK_OVER_SERVER_ROLLS].default
    return str(house_rules.get(ROLLBACK_OVER_SERVER_ROLLS, default))


def found(campaign: RollbackHost, proposal_id: str) -> dict[str, Any]:
    """A campaign's rollback proposal by id, or ``NotFound``."""
    proposal = campaign.proposals.get(proposal_id)
    if proposal is None:
        raise NotFound(f"Rollback proposal {proposal_id!r} does not exist in {campaign.id}.")
    return proposal


def missing(proposal: dict[str, Any]) -> list[str]:
    """The players who have not agreed to a proposal yet."""
    return [p for p in proposal["players"] if p not in proposal["approvals"]]
