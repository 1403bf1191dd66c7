"""The campaign aggregate: one stream of hash-chained events per campaign.

Public methods decide (check rules, roll dice); the nested event classes only assign state in
``assign``. Every event stores ``prev_hash`` and its own ``hash`` (see ``domain.model.chain``), so
the stream is tamper-evident from the first event on. Undo is a ``RolledBack`` event that assigns
the state recorded at an earlier version (docs/time-travel.md); nothing is ever deleted.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from copy import deepcopy
from datetime import datetime
from typing import Any, ClassVar
from uuid import UUID

from eventsourcing.domain import Aggregate
from eventsourcing.utils import get_topic, register_topic

from domain.model import chain, patch
from domain.model.access import actor_label, current_actor
from domain.model.dice.draw import DiceSource
from domain.model.dice_stream import DiceStreamMixin, counters, stamp
from domain.model.es_aggregates import create_aggregate, drop_pending_events
from domain.model.events import campaign_payloads as payloads
from domain.model.events.payload import EventType, declaration, details_upcaster, register_payload
from domain.model.house_rules import book
from domain.model.rollbacks import RollbackMixin
from domain.model.rules_engine import GameRules


class Campaign(Aggregate, DiceStreamMixin, RollbackMixin):
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
        Events stored before commands were recorded have neither (see ``command_versions_of``)."""

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
            campaign.state = patch.copy_json(self.state)
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
            campaign.state = patch.copy_json(self.restored_state)
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

    def configure_house_rule(self, key: str, value: Any) -> None:
        """Change one house rule by a recorded event; refuses unknown keys and bad values."""
        rule = book(self.game).change(self.house_rules, key, value)
        self.trigger_event(
            self.HouseRuleConfigured,
            key=key,
            old_value=self.house_rules.get(key),
            new_value=value,
            gap=rule.gap,
        )

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
                rolls = stamp(self.version + 1, pending.rolls)
                data = {
                    "command": dict(command),
                    "details": pending.details,
                    "rolls": rolls,
                    "effects": pending.effects,
                    "figures": pending.figures,
                    **counters(self.dice, rolls),
                }
                declared = game.event_types[pending.event_type]
                event_class = game_event_class(game.game, pending.event_type, declared)
                self._trigger(event_class, moment, data)
                recorded.append(self.pending_events[-1])
        return recorded

    # -- reading ----------------------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The campaign's current state as plain JSON, to read: the game state's values are the
        campaign's own (never changed in place, as every event replaces the state), so a caller
        that wants to change one copies it first (``patch.copy_json``)."""
        return {
            "house_rules": patch.copy_json(self.house_rules),
            "dice": {
                "commitment": self.dice["commitment"],
                "client_seed": self.dice["client_seed"],
                "nonce": self.dice["nonce"],
                "revealed_seeds": dict(self.dice["revealed"]),
            },
            "rolls": {"count": self.dice["rolls"]},
            **self.state,
        }


class GameEvent(Campaign.Event):
    """Base of every game event: the command, what happened, its rolls and the state patch.

    ``figures`` holds the tracked figures the event changed (``rules_engine.Figures``); events
    stored before events recorded them have none (a reader then follows ``effects``)."""

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


GAME_EVENT_CLASSES: dict[str, type[GameEvent]] = {}
GAME_PREFIXES = {"quest-calendar": "qc", "calendar-board": "cb"}


def game_event_class(
    game: str, event_type: str, declared: EventType | None = None
) -> type[GameEvent]:
    """The event class of a game event type, with a stable topic such as ``qc.TraitChecked``.

    Its ``class_version`` is the declared payload version, and ``upcast_vN_vM`` apply the
    declaration's upcasters to the ``details`` of an event stored at an older version.
    """
    topic = f"{GAME_PREFIXES[game]}.{event_type}"
    cls = GAME_EVENT_CLASSES.get(topic)
    if cls is None:
        attributes: dict[str, Any] = {
            "TOPIC": topic,
            "__module__": __name__,
            "__qualname__": f"Campaign.{event_type}",
        }
        if declared is not None and declared.version > 1:
            attributes["class_version"] = declared.version
            for number, upcaster in enumerate(declared.upcasters, start=1):
                attributes[f"upcast_v{number}_v{number + 1}"] = details_upcaster(upcaster)
        cls = type(event_type, (GameEvent,), attributes)
        register_topic(topic, cls)
        GAME_EVENT_CLASSES[topic] = cls
        if declared is not None:
            register_payload(topic, declared)
    return cls


for _event_class in Campaign.EVENT_TYPES:
    register_payload(get_topic(_event_class), _event_class.PAYLOAD)
