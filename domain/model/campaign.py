"""The campaign aggregate: one stream of hash-chained events per campaign.

Public methods decide (check rules, roll dice); the nested event classes only assign state in
``assign``. Every event stores ``prev_hash`` and its own ``hash`` (see ``domain.model.chain``), so
the stream is tamper-evident from the first event on. Undo is a ``RolledBack`` event that assigns
the state recorded at an earlier version (docs/time-travel.md); nothing is ever deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from copy import deepcopy
from datetime import datetime
from typing import Any, ClassVar
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.utils import get_topic, register_topic

from domain.model import campaign_payloads as payloads
from domain.model import chain, patch
from domain.model.access import actor_label, current_actor
from domain.model.dice import DiceSource, Draw
from domain.model.dice_notation import DiceExpression
from domain.model.engine import Context, GameRules
from domain.model.errors import InvalidInput, NotFound, RuleViolation
from domain.model.es_aggregates import create_aggregate, drop_pending_events
from domain.model.house_rules import ROLLBACK_OVER_SERVER_ROLLS, book
from domain.model.payload import EventType, Upcaster, declaration


class Campaign(Aggregate):
    """A game log: its game, house rules, dice stream and hash-chain head."""

    TOPIC = "questlog.Campaign"
    # 2: snapshots also hold ``rollbacks`` and ``proposals`` (see ``upcast_v1_v2``).
    class_version = 2

    game: str
    name: str
    house_rules: dict[str, Any]
    dice: dict[str, Any]
    origin: dict[str, Any] | None
    head_hash: str
    state: dict[str, Any]
    rollbacks: list[list[int]]
    proposals: dict[str, dict[str, Any]]

    class Event(Aggregate.Event):
        """Base of every campaign event: it carries the chain fields and its command.

        ``command_id`` is the first version the command that recorded the event appended, and
        ``command_versions`` its first and last versions: the events of one command share them.
        Events stored before commands were recorded have neither (see ``command_versions_of``).
        """

        TOPIC: ClassVar[str]
        """The stable topic it is stored under (``questlog.X``, ``qc.X``, ``cb.X``)."""
        PAYLOAD: ClassVar[EventType]
        """Its declared payload (docs/events.md)."""

        prev_hash: str
        hash: str
        command_id: int
        command_versions: list[int]

        def apply(self, aggregate: Aggregate) -> None:
            """Assign what the event recorded, then move the chain head."""
            assert isinstance(aggregate, Campaign)
            self.assign(aggregate)
            aggregate.head_hash = self.hash

        def assign(self, campaign: Campaign) -> None:
            """Assign the recorded outcome to the campaign (no decisions here)."""

    class Created(Event, Aggregate.Created):
        """A campaign was started, committing to its first dice seed."""

        TOPIC = "questlog.CampaignCreated"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.CampaignCreated)
        game: str
        name: str
        house_rules: dict[str, Any]
        commitment: str
        client_seed: str
        origin: dict[str, Any] | None
        state: dict[str, Any]

        def assign(self, campaign: Campaign) -> None:
            campaign.state = deepcopy(self.state)
            campaign.game = self.game
            campaign.name = self.name
            campaign.house_rules = dict(self.house_rules)
            campaign.origin = self.origin
            campaign.rollbacks = []
            campaign.proposals = {}
            campaign.dice = {
                "commitment": self.commitment,
                "client_seed": self.client_seed,
                "nonce": 0,
                "rolls": 0,
                "revealed": {},
            }

    class ClientSeedChanged(Event):
        """The owner set a new client seed for the rolls that follow."""

        TOPIC = "questlog.ClientSeedChanged"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.ClientSeedChanged)
        client_seed: str

        def assign(self, campaign: Campaign) -> None:
            campaign.dice["client_seed"] = self.client_seed

    class SeedRotated(Event):
        """The server seed was revealed and a new one committed to; the nonce restarts at 0."""

        TOPIC = "questlog.SeedRotated"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.SeedRotated)
        revealed_commitment: str
        revealed_seed: str
        commitment: str

        def assign(self, campaign: Campaign) -> None:
            campaign.dice["commitment"] = self.commitment
            campaign.dice["nonce"] = 0
            campaign.dice["revealed"][self.revealed_commitment] = self.revealed_seed

    class HouseRuleConfigured(Event):
        """A house rule was changed after the campaign started (QC-01); both values are kept."""

        TOPIC = "questlog.HouseRuleConfigured"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.HouseRuleConfigured)
        key: str
        old_value: Any
        new_value: Any
        gap: str | None

        def assign(self, campaign: Campaign) -> None:
            campaign.house_rules[self.key] = self.new_value

    class DiceRolled(Event):
        """Dice were rolled for a stated purpose; faces, totals and proofs are recorded."""

        TOPIC = "questlog.DiceRolled"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.DiceRolled)
        purpose: str
        rolls: list[dict[str, Any]]
        next_nonce: int
        roll_count: int

        def assign(self, campaign: Campaign) -> None:
            campaign.dice["nonce"] = self.next_nonce
            campaign.dice["rolls"] = self.roll_count

    class RolledBack(Event):
        """The state became what it was at ``to_version``; the events after it stay, undone.

        It assigns the recorded state and house rules, notes itself in ``rollbacks`` (from which
        ``domain.service.timeline`` tells what is undone) and closes the proposal it carried out.
        The dice stream is not restored: the nonce keeps counting and the seed stays, so an undone
        roll is never repeated with the same faces.
        """

        TOPIC = "questlog.RolledBack"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.RolledBack)
        to_version: int
        reason: str
        actor: str | None
        restored_state: dict[str, Any]
        restored_house_rules: dict[str, Any]
        undone_versions: list[int]
        undone_rolls: list[str]
        server_rolls_undone: int
        policy: str
        flagged: bool
        proposal_id: str | None

        def assign(self, campaign: Campaign) -> None:
            campaign.state = deepcopy(self.restored_state)
            campaign.house_rules = dict(self.restored_house_rules)
            campaign.rollbacks.append([self.originator_version, self.to_version])
            if self.proposal_id is not None:
                proposal = campaign.proposals[self.proposal_id]
                proposal["status"] = "executed"
                proposal["executed_at"] = self.originator_version

    class RollbackProposed(Event):
        """A player proposed a rollback that needs every player's agreement."""

        TOPIC = "questlog.RollbackProposed"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.RollbackProposed)
        proposal_id: str
        to_version: int
        reason: str
        proposer: str
        players: list[str]

        def assign(self, campaign: Campaign) -> None:
            campaign.proposals[self.proposal_id] = {
                "proposal_id": self.proposal_id,
                "version": self.originator_version,
                "to_version": self.to_version,
                "reason": self.reason,
                "proposer": self.proposer,
                "players": list(self.players),
                "approvals": [],
                "status": "open",
                "executed_at": None,
            }

    class RollbackApproved(Event):
        """A player agreed to a proposed rollback."""

        TOPIC = "questlog.RollbackApproved"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.RollbackApproved)
        proposal_id: str
        player: str

        def assign(self, campaign: Campaign) -> None:
            campaign.proposals[self.proposal_id]["approvals"].append(self.player)

    class Imported(Event):
        """The campaign was imported from another instance's bundle, and plays on here under a
        fresh commitment to a server seed this instance holds (the nonce restarts at 0)."""

        TOPIC = "questlog.CampaignImported"
        PAYLOAD: ClassVar[EventType] = declaration(payloads.CampaignImported)
        bundle_head: dict[str, Any]
        bundle_exported_at: str | None
        checkpoint: str | None
        source: dict[str, Any]
        unrevealed_commitment: str | None
        revealed_seeds: dict[str, str]
        commitment: str

        def assign(self, campaign: Campaign) -> None:
            campaign.dice["commitment"] = self.commitment
            campaign.dice["nonce"] = 0
            campaign.dice["revealed"].update(self.revealed_seeds)

    EVENT_TYPES: ClassVar[tuple[type[Event], ...]] = (
        Created,
        ClientSeedChanged,
        SeedRotated,
        HouseRuleConfigured,
        DiceRolled,
        RolledBack,
        RollbackProposed,
        RollbackApproved,
        Imported,
    )

    def __init__(self) -> None:
        """Fields are assigned by ``Created.assign``."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Campaign:
        """A working copy for one command, cheap enough for every request.

        Containers that events change in place (dice, house rules, rollbacks, proposals) are
        copied. The game state is shared: events only ever replace it (GameEvent applies its
        patch to a copy, RolledBack and Created assign copies), and commands work on a copy of it
        inside their Context, so the cached campaign can never be changed through the clone.
        """
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        drop_pending_events(clone)
        clone.dice = {**self.dice, "revealed": dict(self.dice["revealed"])}
        clone.house_rules = dict(self.house_rules)
        clone.rollbacks = [list(pair) for pair in self.rollbacks]
        clone.proposals = deepcopy(self.proposals, memo)
        return clone

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        """A snapshot taken before time travel: no rollbacks and no proposals yet."""
        state["rollbacks"] = []
        state["proposals"] = {}

    # -- creation ---------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        *,
        campaign_id: UUID,
        game: str,
        name: str,
        house_rules: dict[str, Any],
        commitment: str,
        client_seed: str,
        origin: dict[str, Any] | None = None,
        state: dict[str, Any] | None = None,
    ) -> Campaign:
        """Start a campaign whose rules and dice commitment are fixed in its first event."""
        data = {
            "originator_topic": get_topic(cls),
            "game": game,
            "name": name,
            "house_rules": house_rules,
            "commitment": commitment,
            "client_seed": client_seed,
            "origin": origin,
            "state": state or {},
            "command_id": cls.INITIAL_VERSION,
            "command_versions": [cls.INITIAL_VERSION, cls.INITIAL_VERSION],
        }
        timestamp = cls.Created.create_timestamp()
        digest = chain.event_hash(
            campaign_id=campaign_id,
            version=cls.INITIAL_VERSION,
            event_type=cls.Created.TOPIC,
            timestamp=timestamp,
            data=data,
            prev_hash=chain.GENESIS_HASH,
            actor=actor_label(current_actor()),
        )
        campaign: Campaign = create_aggregate(
            cls,
            cls.Created,
            id=campaign_id,
            timestamp=timestamp,
            prev_hash=chain.GENESIS_HASH,
            hash=digest,
            **data,
        )
        return campaign

    def trigger_event(self, event_class: type[Any], **kwargs: Any) -> None:
        """Trigger an event with its chain fields: the previous head and its own hash."""
        self._trigger(event_class, event_class.create_timestamp(), kwargs)

    @contextmanager
    def command(self, size: int) -> Iterator[None]:
        """Record the next ``size`` events as one command (outside this, each event is one).

        The command's versions are known before its first event, so every event can carry
        them in its hashed data; recording another number of events is a programming error.
        """
        if self._command_span() is not None:
            raise RuntimeError("a command is already being recorded")
        first = self.version + 1
        # Kept only while the command records, never in the aggregate's state or snapshots.
        self.__dict__["_recording_command"] = (first, first + size - 1)
        try:
            yield
            if self.version != first + size - 1:
                raise RuntimeError(
                    f"a command declared {size} event(s) and recorded {self.version - first + 1}"
                )
        finally:
            del self.__dict__["_recording_command"]

    def _within_command(self, size: int) -> AbstractContextManager[None]:
        """The command being recorded, or a new one of ``size`` events if there is none."""
        return nullcontext() if self._command_span() is not None else self.command(size)

    def _command_span(self) -> tuple[int, int] | None:
        span: tuple[int, int] | None = self.__dict__.get("_recording_command")
        return span

    def _trigger(self, event_class: type[Any], timestamp: datetime, data: dict[str, Any]) -> None:
        version = self.version + 1
        first, last = self._command_span() or (version, version)
        if not first <= version <= last:
            raise RuntimeError(f"version {version} is outside its command ({first} to {last})")
        data = {**data, "command_id": first, "command_versions": [first, last]}
        payload_version = getattr(event_class, "class_version", 1)
        # The mapper stores a changed payload's version beside its fields; it is hashed with them.
        hashed = data if payload_version == 1 else {**data, "class_version": payload_version}
        digest = chain.event_hash(
            campaign_id=self.id,
            version=version,
            event_type=event_class.TOPIC,
            timestamp=timestamp,
            data=hashed,
            prev_hash=self.head_hash,
            # The actor is stored beside the event (questlog_actors); hashing it here makes a
            # changed or deleted actor row break the chain like any other edit.
            actor=actor_label(current_actor()),
        )
        super().trigger_event(
            event_class, timestamp=timestamp, prev_hash=self.head_hash, hash=digest, **data
        )

    # -- dice -------------------------------------------------------------------------------

    def set_client_seed(self, client_seed: str) -> None:
        """Use a new client seed for the server rolls that follow."""
        self.trigger_event(self.ClientSeedChanged, client_seed=client_seed)

    def rotate_seed(self, *, revealed_seed: str, new_commitment: str) -> None:
        """Reveal the current server seed and commit to the next one."""
        self.trigger_event(
            self.SeedRotated,
            revealed_commitment=self.dice["commitment"],
            revealed_seed=revealed_seed,
            commitment=new_commitment,
        )

    def record_import(
        self,
        *,
        exported_at: str | None,
        checkpoint: str | None,
        source: dict[str, Any],
        new_commitment: str,
        revealed_seeds: dict[str, str],
    ) -> None:
        """Record that the log up to here came from a bundle, reveal the seeds this instance
        held for its commitments (``revealed_seeds``), and commit to a new server seed."""
        current = self.dice["commitment"]
        self.trigger_event(
            self.Imported,
            bundle_head={"version": self.version, "hash": self.head_hash},
            bundle_exported_at=exported_at,
            checkpoint=checkpoint,
            source=dict(source),
            unrevealed_commitment=None if current in revealed_seeds else current,
            revealed_seeds=dict(revealed_seeds),
            commitment=new_commitment,
        )

    def configure_house_rule(self, key: str, value: Any) -> None:
        """Change one house rule by a recorded event; refuses unknown keys and bad values."""
        rule = book(self.game).rules.get(key)
        if rule is None:
            raise InvalidInput.field("key", f"unknown house rule for {self.game}")
        problems = rule.problems(value, "value")
        if problems:
            raise InvalidInput.of(problems)
        if self.house_rules.get(key) == value:
            rule_id = "QC-01" if self.game == "quest-calendar" else "house-rules"
            raise RuleViolation(rule_id, f"house rule {key} is already {value!r}")
        self.trigger_event(
            self.HouseRuleConfigured,
            key=key,
            old_value=self.house_rules.get(key),
            new_value=value,
            gap=rule.gap,
        )

    def roll(self, expression: DiceExpression, purpose: str, dice: DiceSource) -> dict[str, Any]:
        """Roll dice for a purpose and record faces, total and proof; returns the roll record."""
        context = Context({}, self.house_rules, self.checked_dice(dice))
        context.roll(expression, purpose)
        rolls = self._stamp(context.close_rolls())
        self.trigger_event(self.DiceRolled, purpose=purpose, rolls=rolls, **self._counters(rolls))
        return rolls[0]

    def run_command(self, game: GameRules, command: dict[str, Any], dice: DiceSource) -> list[Any]:
        """Decide a game command and record the events it emitted, as one command; returns them.

        The events share one timestamp, the moment the command was decided, and one
        ``command_id``: that is how a version in the middle of a command is told from the end
        of one (``domain.service.timetravel``).
        """
        emitted = game.run(
            self.state, self.house_rules, command, self.checked_dice(dice), version=self.version
        )
        moment = GameEvent.create_timestamp()
        recorded = []
        with self.command(len(emitted)):
            for pending in emitted:
                if pending.event_type not in game.event_types:
                    raise RuntimeError(f"{game.game} emitted undeclared event {pending.event_type}")
                rolls = self._stamp(pending.rolls)
                data = {
                    "command": dict(command),
                    "details": pending.details,
                    "rolls": rolls,
                    "effects": pending.effects,
                    "figures": pending.figures,
                    **self._counters(rolls),
                }
                declared = game.event_types[pending.event_type]
                event_class = game_event_class(game.game, pending.event_type, declared)
                self._trigger(event_class, moment, data)
                recorded.append(self.pending_events[-1])
        return recorded

    def checked_dice(self, dice: DiceSource) -> DiceSource:
        """The dice source, held to the campaign's dice mode and current commitment."""
        return CheckedDice(self, dice)

    def _stamp(self, rolls: list[dict[str, Any]]) -> list[dict[str, Any]]:
        version = self.version + 1
        return [
            {"roll_id": f"{version}-{n}", "version": version, **record}
            for n, record in enumerate(rolls, start=1)
        ]

    def _counters(self, rolls: list[dict[str, Any]]) -> dict[str, int]:
        nonces = [r["proof"]["nonce"] for r in rolls if "proof" in r]
        return {
            "next_nonce": max(nonces) + 1 if nonces else self.dice["nonce"],
            "roll_count": self.dice["rolls"] + len(rolls),
        }

    # -- time travel ------------------------------------------------------------------------

    def check_rollback_target(self, to_version: int) -> None:
        """Refuse a rollback target that is not an earlier version of this campaign."""
        if isinstance(to_version, bool) or not isinstance(to_version, int):
            raise InvalidInput.field("to_version", "must be an integer")
        if to_version < 1:
            raise InvalidInput.field("to_version", "must be at least 1 (the creation event)")
        if to_version == self.version:
            raise InvalidInput.field("to_version", "is the current version: nothing to undo")
        if to_version > self.version:
            raise InvalidInput.field(
                "to_version", f"no version {to_version}: the head is version {self.version}"
            )

    def rollback_policy(self) -> str:
        """The ``rollback_over_server_rolls`` house rule in force (its default if unset)."""
        default = book(self.game).rules[ROLLBACK_OVER_SERVER_ROLLS].default
        return str(self.house_rules.get(ROLLBACK_OVER_SERVER_ROLLS, default))

    def roll_back(
        self,
        *,
        to_version: int,
        reason: str,
        actor: str | None,
        restored_state: dict[str, Any],
        restored_house_rules: dict[str, Any],
        undone_rolls: list[dict[str, Any]],
        proposal_id: str | None = None,
    ) -> RolledBack:
        """Record a rollback to the state and house rules at ``to_version`` (given as data).

        ``undone_rolls`` are the records of the rolls that were active and that the rollback
        undoes. Under ``forbid``, undoing a server roll needs an agreed proposal.
        """
        self.check_rollback_target(to_version)
        policy = self.rollback_policy()
        server = [r["roll_id"] for r in undone_rolls if r.get("source") == "server"]
        if server and policy == "forbid":
            if proposal_id is None:
                raise RuleViolation(
                    ROLLBACK_OVER_SERVER_ROLLS,
                    f"this rollback would undo {len(server)} server roll(s) "
                    f"({', '.join(server[:5])}{', …' if len(server) > 5 else ''}); "
                    "under 'forbid' every player must agree to it through a rollback proposal",
                )
            if self.missing_approvals(proposal_id):
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
        assert isinstance(event, Campaign.RolledBack)
        return event

    def propose_rollback(
        self, *, proposal_id: str, to_version: int, reason: str, proposer: str, players: list[str]
    ) -> None:
        """Propose a rollback to ``players``; a proposer who is a player agrees by proposing."""
        self.check_rollback_target(to_version)
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

    def approve_rollback(self, proposal_id: str, player: str, *, moved_on_at: int | None) -> None:
        """Record one player's agreement to an open proposal.

        ``moved_on_at`` is the first version after the proposal that is neither a proposal nor
        an approval: a proposal is stale once the campaign has moved on.
        """
        proposal = self.proposal(proposal_id)
        if proposal["status"] != "open":
            raise RuleViolation(
                "rollback-proposal-closed",
                f"proposal {proposal_id} was already carried out at version "
                f"{proposal['executed_at']}",
            )
        if player not in proposal["players"]:
            players = ", ".join(proposal["players"])
            raise InvalidInput.field("player", f"must be one of the players: {players}")
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

    def proposal(self, proposal_id: str) -> dict[str, Any]:
        """A rollback proposal by id (open or carried out)."""
        found = self.proposals.get(proposal_id)
        if found is None:
            raise NotFound(f"Rollback proposal {proposal_id!r} does not exist in {self.id}.")
        return found

    def missing_approvals(self, proposal_id: str) -> list[str]:
        """The players who have not agreed to a proposal yet."""
        proposal = self.proposal(proposal_id)
        return [p for p in proposal["players"] if p not in proposal["approvals"]]

    # -- reading ----------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The campaign's current state as plain JSON."""
        return {
            "house_rules": deepcopy(self.house_rules),
            "dice": {
                "commitment": self.dice["commitment"],
                "client_seed": self.dice["client_seed"],
                "nonce": self.dice["nonce"],
                "revealed_seeds": dict(self.dice["revealed"]),
            },
            "rolls": {"count": self.dice["rolls"]},
            **deepcopy(self.state),
        }


class GameEvent(Campaign.Event):
    """Base of every game event: the command, what happened, its rolls and the state patch.

    ``figures`` holds the game's tracked figures the event changed (``engine.Figures``); events
    stored before events recorded them have none (a reader then follows ``effects``).
    """

    command: dict[str, Any]
    details: dict[str, Any]
    rolls: list[dict[str, Any]]
    effects: list[dict[str, Any]]
    figures: dict[str, Any]
    next_nonce: int
    roll_count: int

    def assign(self, campaign: Campaign) -> None:
        campaign.state = patch.apply(campaign.state, self.effects)
        campaign.dice["nonce"] = self.next_nonce
        campaign.dice["rolls"] = self.roll_count


def event_record(event: Any, stored: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An event as it is shown: exactly the fields its hash covers (but the campaign id and the
    actor, which are shown beside it), and the hash.

    ``stored`` is the event's fields as stored (``domain.service.audit.stored_fields``): an event
    stored at an older payload version is then shown as stored, which is what its hash covers;
    without it, the event's fields as the code reads them (the same for a current event).
    """
    fields = dict(event.__dict__) if stored is None else dict(stored)
    payload_version = getattr(type(event), "class_version", 1)
    if stored is None and payload_version > 1:
        fields["class_version"] = payload_version
    fields.pop("originator_version", None)
    return {
        "version": event.originator_version,
        "type": event.TOPIC,
        "timestamp": fields.pop("timestamp").isoformat(),
        "prev_hash": fields.pop("prev_hash"),
        "hash": fields.pop("hash"),
        "data": {k: v for k, v in fields.items() if k != "originator_id"},
    }


class CheckedDice:
    """A dice source held to the campaign's ``dice_mode`` and ``player_entropy`` house rules and
    its current commitment."""

    def __init__(self, campaign: Campaign, dice: DiceSource) -> None:
        self.campaign = campaign
        self.dice = dice

    def draw(self, sides: Sequence[int]) -> Draw:
        """Draw, refusing dice the campaign does not accept."""
        draw = self.dice.draw(sides)
        mode = self.campaign.house_rules.get("dice_mode", "either")
        if mode != "either" and draw.source != mode:
            raise RuleViolation(
                "house_rules.dice_mode",
                f"this campaign takes only {mode} dice, not {draw.source} dice",
            )
        if draw.proof is not None and draw.proof["commitment"] != self.campaign.dice["commitment"]:
            raise ValueError("dice source is not on the campaign's current commitment")
        required = self.campaign.house_rules.get("player_entropy") == "required"
        if required and draw.source == "server" and (draw.proof or {}).get("entropy") is None:
            raise InvalidInput.field(
                "entropy",
                "this campaign's house rule player_entropy is 'required': a command that rolls "
                "server dice must carry the player's entropy (1 to 64 characters of A-Z, a-z, "
                "0-9, '_' and '-')",
            )
        return draw


_GAME_EVENT_CLASSES: dict[str, type[GameEvent]] = {}


def event_class_of(game: str, topic: str) -> type[Campaign.Event] | None:
    """The event class a stored topic names in a campaign of ``game``: a campaign event or one
    of that game's declared events; None for any other topic (never resolved as a module path,
    so a topic from outside, an imported bundle's say, imports nothing)."""
    for event_class in Campaign.EVENT_TYPES:
        if topic == getattr(event_class, "TOPIC", None):
            return event_class
    prefix = {"quest-calendar": "qc.", "calendar-board": "cb."}.get(game)
    if prefix is None or not topic.startswith(prefix):
        return None
    return _GAME_EVENT_CLASSES.get(topic)


def _details_upcaster(upcaster: Upcaster) -> staticmethod[[dict[str, Any]], None]:
    """An eventsourcing upcaster of a game event's stored fields from one of its ``details``."""

    def upcast(fields: dict[str, Any]) -> None:
        upcaster(fields["details"])

    return staticmethod(upcast)


def command_versions_of(event: Any) -> tuple[int, int] | None:
    """The first and last versions of the command that recorded an event, or None for an event
    stored before events carried their command (``domain.service.timetravel`` then compares
    timestamps)."""
    versions = getattr(event, "command_versions", None)
    if not isinstance(versions, list) or len(versions) != 2:
        return None
    first, last = versions
    return int(first), int(last)


def project_campaign(campaign: Campaign | None, events: Iterable[Any]) -> Campaign | None:
    """Apply events in order (eventsourcing's projector, without its per-event Protocol check).

    ``project_aggregate`` asserts ``isinstance(event, CanMutateProtocol)`` for every event, a
    ``typing.Protocol`` check that costs about as much as applying a campaign event.
    """
    for event in events:
        campaign = event.mutate(campaign)
    return campaign


def game_event_class(
    game: str, event_type: str, declared: EventType | None = None
) -> type[GameEvent]:
    """The event class of a game event type, with a stable topic such as ``qc.TraitChecked``.

    Its ``class_version`` is the declared payload version, and ``upcast_vN_vM`` apply the
    declaration's upcasters to the ``details`` of an event stored at an older version.
    """
    prefix = {"quest-calendar": "qc", "calendar-board": "cb"}[game]
    topic = f"{prefix}.{event_type}"
    cls = _GAME_EVENT_CLASSES.get(topic)
    if cls is None:
        attributes: dict[str, Any] = {
            "TOPIC": topic,
            "__module__": __name__,
            "__qualname__": f"Campaign.{event_type}",
        }
        if declared is not None and declared.version > 1:
            attributes["class_version"] = declared.version
            for number, upcaster in enumerate(declared.upcasters, start=1):
                attributes[f"upcast_v{number}_v{number + 1}"] = _details_upcaster(upcaster)
        cls = type(event_type, (GameEvent,), attributes)
        register_topic(topic, cls)
        _GAME_EVENT_CLASSES[topic] = cls
    return cls
