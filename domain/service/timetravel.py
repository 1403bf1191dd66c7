"""Time travel: the state at a time, step-through replay, undo by rollback, proposals and forks.

None of it deletes or rewrites an event. A rollback is one new ``RolledBack`` event that assigns
the state and house rules recorded at an earlier version; the events after that version stay in
the log, marked undone (``domain.service.timeline``). A fork is a new campaign whose creation event
names where it came from. See docs/time-travel.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from copy import deepcopy
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

from domain.model import patch
from domain.model.campaign import Campaign, GameEvent
from domain.model.chain import ENVELOPE_FIELDS
from domain.model.errors import InvalidInput, NotFound, NotHeld, RuleViolation, StaleVersion
from domain.model.event_records import command_versions_of
from domain.model.house_rules import book
from domain.model.text import check_text
from domain.service.application import Campaigns
from domain.service.command_results import Idempotency, Outcome
from domain.service.commands_service import CommandService, Decided, Decision
from domain.service.reading import Reading
from domain.service.timeline import Timeline
from domain.storage.forks import ForkRecord

MAX_REPLAY = 1000
MAX_REASON_LENGTH = 500
MAX_PLAYER_LENGTH = 200
SOLO_PLAYER = "owner"
PAGE = 500
# A result shows the envelope apart, and the restored state is the result's ``state``.
HIDDEN_FIELDS = frozenset({*ENVELOPE_FIELDS, "restored_state"})
PROPOSAL_EVENTS = (Campaign.RollbackProposed.TOPIC, Campaign.RollbackApproved.TOPIC)


def same_command(event: Any, following: Any) -> bool:
    """Whether two consecutive events were recorded by one game command.

    Events carry their command (``command_versions``); of game events stored before they did,
    those recorded by one game command share one timestamp. Only a game command has a middle
    that play cannot resume from: a rollback recorded with the approval that carried it out can
    still be redone by a rollback to that approval.
    """
    if not (isinstance(event, GameEvent) and isinstance(following, GameEvent)):
        return False
    span = command_versions_of(event)
    if span is not None or command_versions_of(following) is not None:
        return span == command_versions_of(following)
    return bool(event.timestamp == following.timestamp)


def _older_game_event(event: Any, moment: datetime) -> bool:
    """Whether an event is a game event recorded at ``moment`` without its command's versions."""
    return (
        isinstance(event, GameEvent)
        and command_versions_of(event) is None
        and event.timestamp == moment
    )


def players_of(campaign: Campaign) -> list[str]:
    """Whose agreement a rollback proposal needs: every player listed in the game state
    (``state["players"]``, as in calendar-board), or the single player ``owner`` of a solo game.
    """
    players = campaign.state.get("players")
    if isinstance(players, list) and players:
        return [str(player) for player in players]
    return [SOLO_PLAYER]


def rollback_facts(
    campaign: Campaign, event: Campaign.RolledBack | None, proposal: dict[str, Any] | None
) -> dict[str, Any]:
    """What a rollback, proposal or approval result says: the RolledBack event's facts (if one
    was appended), the proposal (if any) and the state after the command."""
    rollback = None
    if event is not None:
        data = {k: v for k, v in event.__dict__.items() if k not in HIDDEN_FIELDS}
        rollback = {
            "version": event.originator_version,
            "timestamp": event.timestamp.isoformat(),
            **data,
        }
    return {"rollback": rollback, "proposal": proposal, "state": campaign.view()}


@dataclass(frozen=True)
class ReplayStep:
    """One event of a replay and the RFC 6902 patch from the view before it to the view after."""

    event: Any
    patch: list[dict[str, Any]]


@dataclass(frozen=True)
class Replay:
    """A range of events: the view before the first one, then each event with its patch."""

    before: dict[str, Any]
    steps: list[ReplayStep]
    timeline: Timeline


class TimeTravel:
    """Time-travel commands and queries, on the core, the campaigns and the reading."""

    def __init__(self, app: CommandService, campaigns: Campaigns, reading: Reading) -> None:
        self.app = app
        self.campaigns = campaigns
        self.reading = reading

    # -- rollback -----------------------------------------------------------------------------

    def rollback(
        self,
        campaign_id: UUID,
        *,
        to_version: int,
        reason: str,
        actor: str | None = None,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Append one ``RolledBack`` event: from now on the state is the state at ``to_version``."""
        check_text("reason", reason, MAX_REASON_LENGTH, free_text=True)
        if actor is not None:
            check_text("actor", actor, MAX_PLAYER_LENGTH)
        decision = Rollback(self, to_version, reason, actor)
        return self.app.execute(campaign_id, decision, expected_version, idempotency)

    def propose_rollback(
        self,
        campaign_id: UUID,
        *,
        to_version: int,
        reason: str,
        proposer: str,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Propose a rollback to every player; it is carried out once all of them agree."""
        check_text("reason", reason, MAX_REASON_LENGTH, free_text=True)
        check_text("proposer", proposer, MAX_PLAYER_LENGTH)
        decision = RollbackProposal(self, to_version, reason, proposer)
        return self.app.execute(campaign_id, decision, expected_version, idempotency)

    def approve_rollback(
        self,
        campaign_id: UUID,
        proposal_id: str,
        *,
        player: str,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Record a player's agreement; the last one carries the rollback out in the same save."""
        check_text("player", player, MAX_PLAYER_LENGTH)
        decision = RollbackApproval(self, proposal_id, player)
        return self.app.execute(campaign_id, decision, expected_version, idempotency)

    def carry_out_if_agreed(self, campaign: Campaign, proposal_id: str) -> dict[str, Any]:
        """The proposal's facts, after the rollback it asks for if every player agreed."""
        proposal = campaign.proposal(proposal_id)
        rolled_back = None
        if not campaign.missing_approvals(proposal_id):
            rolled_back = self.roll_back(
                campaign,
                proposal["to_version"],
                proposal["reason"],
                proposal["proposer"],
                proposal_id,
            )
        return rollback_facts(campaign, rolled_back, deepcopy(campaign.proposal(proposal_id)))

    def roll_back(
        self,
        campaign: Campaign,
        to_version: int,
        reason: str,
        actor: str | None,
        proposal_id: str | None,
    ) -> Campaign.RolledBack:
        """Decide a rollback: the state at the target and the rolls it undoes, given as data."""
        campaign.check_rollback_target(to_version)
        self.check_between_commands(campaign.id, to_version, "to_version")
        restored = self.app.campaign(campaign.id, version=to_version)
        rolled_back = campaign.roll_back(
            to_version=to_version,
            reason=reason,
            actor=actor,
            restored_state=restored.state,
            restored_house_rules=restored.house_rules,
            undone_rolls=self.rolls_undone_by(campaign, to_version),
            proposal_id=proposal_id,
        )
        if not isinstance(rolled_back, Campaign.RolledBack):
            raise TypeError(f"roll_back recorded {type(rolled_back).__name__}, not RolledBack")
        return rolled_back

    def rolls_undone_by(self, campaign: Campaign, to_version: int) -> list[dict[str, Any]]:
        """The roll records that are active now and that a rollback to ``to_version`` undoes."""
        timeline = Timeline.of(campaign.rollbacks, campaign.version)
        rolls: list[dict[str, Any]] = []
        for first, last in timeline.newly_undone(to_version):
            for event in self._events(campaign, first, last):
                rolls.extend(getattr(event, "rolls", None) or [])
        return rolls

    def _events(self, campaign: Campaign, first: int, last: int) -> Iterator[Any]:
        """Events ``first..last``: stored ones a page at a time, then this command's own."""
        cursor = first - 1
        while cursor < last:
            batch = self.app.campaign_events(
                campaign.id, after=cursor, limit=min(PAGE, last - cursor)
            )
            if not batch:
                break
            yield from batch
            cursor = batch[-1].originator_version
        for event in campaign.pending_events:
            if cursor < event.originator_version <= last:
                yield event

    def command_span(self, campaign_id: UUID, version: int) -> tuple[int, int] | None:
        """The first and last versions of the game command whose events run on past
        ``version``, or None when ``version`` ends a command (or is no game event).

        An event names its command's versions (``command_versions``); events stored before
        they did are grouped by timestamp, as their game command recorded them all at once.
        """
        pair = self.app.recorder.select_events(campaign_id, gt=version - 1, lte=version + 1)
        events: list[Any] = [self.app.mapper.to_domain_event(stored) for stored in pair]
        if len(events) < 2 or not same_command(events[0], events[1]):
            return None
        span = command_versions_of(events[0])
        if span is not None:
            return span
        return self._timestamp_span(campaign_id, version, events[0].timestamp)

    def _timestamp_span(self, campaign_id: UUID, version: int, moment: datetime) -> tuple[int, int]:
        """The versions around ``version`` of older game events recorded at ``moment``."""
        after = self.app.recorder.select_events(campaign_id, gt=version, limit=PAGE)
        before = self.app.recorder.select_events(campaign_id, lte=version, desc=True, limit=PAGE)
        last = first = version
        for stored in after:
            event: Any = self.app.mapper.to_domain_event(stored)
            if not _older_game_event(event, moment):
                break
            last = event.originator_version
        for stored in before:
            event = self.app.mapper.to_domain_event(stored)
            if not _older_game_event(event, moment):
                break
            first = event.originator_version
        return first, last

    def check_between_commands(self, campaign_id: UUID, version: int, field: str) -> None:
        """Refuse a version in the middle of a game command: play can only resume between
        commands (a rollback target, a fork point). Which versions are between commands is the
        log's: a 409 not-held naming ``field``, as a version past the head is."""
        span = self.command_span(campaign_id, version)
        if span is not None:
            first, last = span
            raise NotHeld(
                field,
                f"version {version} is in the middle of a command (its events are versions "
                f"{first} to {last}); play resumes only between commands: use {first - 1} "
                f"or {last}",
            )

    def check_no_open_proposal(self, campaign: Campaign, to_version: int) -> None:
        """Refuse a second proposal to the version an open, current proposal already asks for:
        the players agree to that one (a stale one, after the campaign moved on, does not count)."""
        for proposal_id, proposal in campaign.proposals.items():
            if proposal["status"] != "open" or proposal["to_version"] != to_version:
                continue
            if self.moved_on(campaign, proposal) is None:
                agreed = ", ".join(proposal["approvals"]) or "nobody yet"
                raise RuleViolation(
                    "rollback-proposal-open",
                    f"proposal {proposal_id} to roll back to version {to_version} is open (by "
                    f"{proposal['proposer']}; agreed: {agreed}): agree to it instead",
                )

    def moved_on(self, campaign: Campaign, proposal: dict[str, Any]) -> int | None:
        """The first version after a proposal that is not a proposal or an approval, if any."""
        cursor = int(proposal["version"])
        while cursor < campaign.version:
            batch = self.app.stored_events(campaign.id, after=cursor, limit=PAGE)
            if not batch:
                break
            for stored in batch:
                if stored.topic not in PROPOSAL_EVENTS:
                    return int(stored.originator_version)
            cursor = batch[-1].originator_version
        return None

    # -- forks --------------------------------------------------------------------------------

    def fork(
        self,
        campaign_id: UUID,
        *,
        at_version: int,
        name: str,
        client_seed: str | None = None,
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Outcome:
        """Start a new campaign from the state and house rules at ``at_version``, with its own
        seed; its creation event's ``origin`` names the campaign, version and head hash.
        """
        replay = self.app.replayed(idempotency)
        if replay is not None:
            return replay
        original = self.app.campaign(campaign_id)
        if expected_version is not None and original.version != expected_version:
            raise StaleVersion(expected_version, original.version)
        if isinstance(at_version, bool) or not isinstance(at_version, int) or at_version < 1:
            raise InvalidInput.field("at_version", "must be an integer of at least 1")
        if at_version > original.version:
            raise NotHeld(
                "at_version", f"no version {at_version}: the head is version {original.version}"
            )
        self.check_between_commands(campaign_id, at_version, "at_version")
        at = self.app.campaign(campaign_id, version=at_version)
        origin = {"campaign_id": str(campaign_id), "version": at_version, "head_hash": at.head_hash}
        return self.campaigns.start_campaign(
            game=at.game,
            name=name,
            # Rules added to the game since the original started apply at their defaults.
            house_rules={**book(at.game).resolve({}), **at.house_rules},
            state=at.state,
            client_seed=client_seed,
            origin=origin,
            idempotency=idempotency,
        )

    def forks(self, campaign_id: UUID) -> list[dict[str, Any]]:
        """The campaigns forked from this one, oldest first: read by the campaign's id from
        ``questlog_forks``, written with each fork's creation event. A store older than that
        table has its forks indexed once, by the first reader (``old_forks``)."""
        side_tables = self.app.side_tables
        side_tables.ensure_forks_indexed(self.old_forks)
        return [fork.listed() for fork in side_tables.forks_of(str(campaign_id))]

    def old_forks(self) -> list[ForkRecord]:
        """Every fork the store's creation events record: one pass over all campaigns, made
        once per store, for the forks stored before ``questlog_forks`` existed."""
        mapper = self.app.mapper
        found: list[ForkRecord] = []
        start = 1
        while True:
            page = self.app.recorder.select_notifications(
                start=start, limit=PAGE, topics=[Campaign.Created.TOPIC]
            )
            for notification in page:
                fork = ForkRecord.of(mapper.to_domain_event(notification))
                if fork is not None:
                    found.append(fork)
            if len(page) < PAGE:
                return found
            start = page[-1].id + 1

    # -- reading the past ---------------------------------------------------------------------

    def version_at(self, campaign_id: UUID, at: datetime) -> int:
        """The last version recorded at or before ``at``: a binary search, O(log n) small reads."""
        if at.tzinfo is None:
            raise InvalidInput.field("at", "needs a UTC offset, such as Z or +02:00")
        head = self.app.campaign(campaign_id).version
        if self._timestamp(campaign_id, head) <= at:
            return head
        if self._timestamp(campaign_id, 1) > at:
            raise NotFound(f"Campaign {campaign_id} did not exist yet at {at.isoformat()}.")
        low, high = 1, head  # timestamp(low) <= at < timestamp(high)
        while high - low > 1:
            middle = (low + high) // 2
            if self._timestamp(campaign_id, middle) <= at:
                low = middle
            else:
                high = middle
        return low

    def campaign_at(self, campaign_id: UUID, at: datetime) -> Campaign:
        """The campaign as it was at a moment in time."""
        return self.app.campaign(campaign_id, version=self.version_at(campaign_id, at))

    def _timestamp(self, campaign_id: UUID, version: int) -> datetime:
        stored = self.app.recorder.select_events(campaign_id, gt=version - 1, lte=version, limit=1)
        if not stored:
            raise NotFound(f"Campaign {campaign_id} has no stored version {version}.")
        event: Any = self.app.mapper.to_domain_event(stored[0])
        timestamp: datetime = event.timestamp
        return timestamp

    def replay(self, campaign_id: UUID, *, first: int = 1, last: int | None = None) -> Replay:
        """Events ``first..last`` (default: up to the head, at most ``MAX_REPLAY``), each with
        the patch of what it changed in the campaign view.

        The state before ``first`` is loaded once (from a snapshot); the events are then applied
        forward to that copy, so a replay costs one load plus the events in the range.
        """
        head = self.app.campaign(campaign_id)
        if last is None:
            last = min(head.version, first + MAX_REPLAY - 1)
        if first < 1:
            raise InvalidInput.field("from", "must be at least 1")
        if first > head.version:
            raise NotHeld("from", f"no version {first}: the head is version {head.version}")
        if first > last:
            raise InvalidInput.field("from", f"must not be after to ({last})")
        if last > head.version:
            raise NotHeld("to", f"no version {last}: the head is version {head.version}")
        if last - first >= MAX_REPLAY:
            raise InvalidInput.field("to", f"a replay covers at most {MAX_REPLAY} events")
        current: Any = self.app.campaign(campaign_id, version=first - 1) if first > 1 else None
        start: dict[str, Any] = current.view() if current is not None else {}
        before = start
        steps: list[ReplayStep] = []
        for event in self._events(head, first, last):
            current = event.mutate(current)
            after = current.view()
            steps.append(ReplayStep(event, patch.diff(before, after)))
            before = after
        return Replay(before=start, steps=steps, timeline=self.reading.timeline(head))


@dataclass(frozen=True)
class Rollback(Decision):
    """A rollback to a version, for a reason (by an actor, if named)."""

    travel: TimeTravel
    to_version: int
    reason: str
    actor: str | None

    def decide(self, campaign: Campaign) -> Decided:
        rolled_back = self.travel.roll_back(
            campaign, self.to_version, self.reason, self.actor, None
        )
        return Decided(rollback_facts(campaign, rolled_back, None))


@dataclass(frozen=True)
class RollbackProposal(Decision):
    """A rollback proposed to every player (a new proposal id each attempt)."""

    travel: TimeTravel
    to_version: int
    reason: str
    proposer: str

    def decide(self, campaign: Campaign) -> Decided:
        proposal_id = str(uuid4())
        campaign.check_rollback_target(self.to_version)
        self.travel.check_between_commands(campaign.id, self.to_version, "to_version")
        players = players_of(campaign)
        self.travel.check_no_open_proposal(campaign, self.to_version)
        # The proposal, the proposer's agreement if a player, the rollback if that was all.
        size = 1 + (self.proposer in players) + (set(players) <= {self.proposer})
        with campaign.command(size):
            campaign.propose_rollback(
                proposal_id=proposal_id,
                to_version=self.to_version,
                reason=self.reason,
                proposer=self.proposer,
                players=players,
            )
            return Decided(self.travel.carry_out_if_agreed(campaign, proposal_id))


@dataclass(frozen=True)
class RollbackApproval(Decision):
    """A player's agreement to a proposal; the last one missing carries the rollback out."""

    travel: TimeTravel
    proposal_id: str
    player: str

    def decide(self, campaign: Campaign) -> Decided:
        proposal = campaign.proposal(self.proposal_id)
        open_ = proposal["status"] == "open"
        moved_on = self.travel.moved_on(campaign, proposal) if open_ else None
        # The agreement, and the rollback when it was the last one missing.
        size = 1 + (campaign.missing_approvals(self.proposal_id) == [self.player])
        with campaign.command(size):
            campaign.approve_rollback(self.proposal_id, self.player, moved_on_at=moved_on)
            return Decided(self.travel.carry_out_if_agreed(campaign, self.proposal_id))
