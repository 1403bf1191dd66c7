"""The game-command engine: commands loaded through their schemas, a working state, and the events
a command emits.

A game module registers each command on a ``GameRules`` with everything it is: its handler, its
schema and its availability (``GameRules.command``). ``GameRules.run`` loads a command through
its schema before anything else (``InvalidInput`` naming each wrong field; nothing runs), then
calls the handler with the loaded ``Values``. The handler checks only what depends on the state
or the house rules, rolls through ``Context.roll``, changes ``Context.state`` (a working copy) and
calls ``Context.emit`` at each past-tense event boundary. The aggregate then records one event per
``emit`` with the JSON Patch of what changed, so applying an event never decides anything, and
the game's tracked figures that the event changed (``Figures``), so that a reader learns what
changed from the facts of the event instead of following the patch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn

from marshmallow import Schema

from domain.model import patch
from domain.model.command_schema import Command, Takes, Values, load
from domain.model.dice.draw import DiceSource
from domain.model.dice.notation import DiceExpression, evaluate, parse
from domain.model.errors import InvalidInput, NoSuchDecision, NotHeld, QuestlogError, RuleViolation
from domain.model.events.payload import EventType, Payload, PayloadField, declaration

LOG = logging.getLogger(__name__)

DiceSet = tuple[str, set[int]]
"""A rule id and the die sizes a campaign's dice set allows."""


@dataclass(frozen=True)
class Figures:
    """The figures of a game's state that every game event records when it changes them.

    ``fields`` is the contract (docs/events.md, "Figures"): each figure's name, JSON type and
    meaning (``payload.figure``); a name with ``<party>`` or ``<compartment>`` stands for one
    figure per party or compartment. ``locate`` gives the figures a state has and where each is
    kept; readers never see those places, only the names and values an event records.
    """

    fields: tuple[PayloadField, ...]
    locate: Callable[[Mapping[str, Any]], dict[str, str]]
    version: int = 1

    def read(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """Every figure of a state by name (None where the state has no such value)."""
        return {name: patch.resolve(state, at) for name, at in self.locate(state).items()}

    def changed(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
        """The figures that differ between two states, with their values after (None: gone)."""
        old, new = self.read(before), self.read(after)
        names = [*new, *(name for name in old if name not in new)]
        return {name: new.get(name) for name in names if old.get(name) != new.get(name)}


@dataclass
class PendingEvent:
    """One event a command emitted: its type, details, the rolls it made and what it changed."""

    event_type: str
    details: dict[str, Any]
    rolls: list[dict[str, Any]]
    effects: list[dict[str, Any]]
    figures: dict[str, Any] = field(default_factory=dict)
    """The tracked figures the event changed, by name, with their values after it."""


class Context:
    """What a command handler works with: the state to change, the house rules, the dice."""

    def __init__(
        self,
        state: Mapping[str, Any],
        house_rules: Mapping[str, Any],
        dice: DiceSource,
        dice_set: DiceSet | None = None,
        version: int | None = None,
        declared: Mapping[str, EventType] | None = None,
        figures: Figures | None = None,
    ) -> None:
        self.state: dict[str, Any] = patch.working_copy(dict(state))
        self.declared = declared
        self.figures = figures
        """The game's tracked figures; every ``emit`` records those it changed."""
        """The game's event types; every ``emit`` is checked against its declaration."""
        self.version = version
        """The campaign's version before this command (None outside a campaign)."""
        self.last_roll_id: str | None = None
        """The id the last roll will have once its event is stored ("<version>-<n>")."""
        self.house = dict(house_rules)
        self.dice = dice
        self.dice_set = dice_set
        self.events: list[PendingEvent] = []
        self._mark: Mapping[str, Any] = state
        """The state as the last event left it (read only: the handler changes ``state``)."""
        self._rolls: list[dict[str, Any]] = []

    def roll(
        self,
        notation: str | DiceExpression,
        purpose: str,
        *,
        fate_reroll_of: str | None = None,
    ) -> dict[str, Any]:
        """Roll dice now; the record (faces, total, source, proof) goes into the next event.

        ``fate_reroll_of`` names the roll this one replaces by a fate reroll: the record keeps it,
        so the roll log and the audit show the new roll as that roll's fate reroll.
        """
        expression = notation if isinstance(notation, DiceExpression) else parse(notation)
        if self.dice_set is not None:
            rule, allowed = self.dice_set
            missing = sorted(set(expression.sides) - allowed)
            if missing:
                names = ", ".join(f"d{n}" for n in missing)
                self.refuse(rule, f"{purpose}: the campaign's dice set has no {names}")
        draw = self.dice.draw(expression.sides)
        outcome = evaluate(expression, draw.faces)
        for die, shown in zip(outcome.dice, draw.raw or (), strict=False):
            if shown != die["face"]:
                die["raw"] = shown  # what the player saw, beside its reading (QC-08, QC-09)
        record: dict[str, Any] = {
            "purpose": purpose,
            "notation": expression.notation,
            "dice": outcome.dice,
            "modifier": outcome.modifier,
            "total": outcome.total,
            "source": draw.source,
        }
        if draw.proof is not None:
            record["proof"] = dict(draw.proof)
        if fate_reroll_of is not None:
            record["fate_reroll_of"] = fate_reroll_of
        self._rolls.append(record)
        if self.version is not None:
            self.last_roll_id = f"{self.version + len(self.events) + 1}-{len(self._rolls)}"
        return record

    def refuse(self, rule_id: str, message: str) -> NoReturn:
        """Stop the command: a rule forbids it (nothing is stored)."""
        raise RuleViolation(rule_id, message)

    def emit(self, payload: Payload) -> None:
        """Close a past-tense event: what happened, its rolls, and the patch of what changed.

        The payload's class must be one of the game's declared event types, and its values of
        the JSON types the class declares (anything else is a programming error).
        """
        event_type = type(payload).__name__
        details = payload.details()
        if self.declared is not None:
            declared = self.declared.get(event_type)
            if declared is None or declared.cls is not type(payload):
                raise RuntimeError(f"{event_type} is not a declared event type of this game")
            declared.check(details)
        effects = patch.diff(self._mark, self.state)
        figures = {} if self.figures is None else self.figures.changed(self._mark, self.state)
        self.events.append(PendingEvent(event_type, details, self._rolls, effects, figures))
        # The mark moves on by the event's own patch: only what changed is copied.
        self._mark = patch.apply(self._mark, effects)
        self._rolls = []

    def payload(self, event_type: str, **details: Any) -> Payload:
        """A payload of one of the game's declared event types, by name: for engine code that
        records an event each game declares in its own shape (``decisions.ask``)."""
        declared = None if self.declared is None else self.declared.get(event_type)
        if declared is None or declared.cls is None:
            raise RuntimeError(f"{event_type} is not a declared event type of this game")
        return declared.cls(**details)

    def close_rolls(self) -> list[dict[str, Any]]:
        """The rolls made so far, for a command that records dice alone."""
        rolls, self._rolls = self._rolls, []
        return rolls

    def close(self) -> list[PendingEvent]:
        """The emitted events; a change or roll left outside any event is a programming error."""
        if self._rolls or patch.diff(self._mark, self.state):
            raise RuntimeError("a command changed state or rolled dice without emitting an event")
        return self.events


Handler = Callable[[Context, Values], None]

Refusal = tuple[str, str]
"""A rule id and why that rule refuses a command now."""
Availability = Callable[[Mapping[str, Any], Mapping[str, Any]], Refusal | None]
"""Whether a state accepts a command (with a valid body): None, or the rule that refuses it.

Each game writes one per command from its handler's guards (``<game>/availability.py``); a test
runs the commands at many states to hold the two together."""


def one_of(name: str, value: str, allowed: Iterable[str]) -> str:
    """A value the state offers (a pending decision's options), or the state's refusal naming it
    (409 not-held: the options are the campaign's, not the body's)."""
    options = list(allowed)
    if value not in options:
        raise NotHeld(name, f"must be one of {', '.join(options)}")
    return value


def decision_summary(pending: Mapping[str, Any]) -> dict[str, Any]:
    """What a refusal shows of the pending decision: its type, who decides, its rule, the commands
    accepted now and the options."""
    return {
        "decision": pending.get("decision"),
        "who": pending.get("who"),
        "rule": pending.get("rule"),
        "commands": list(pending.get("commands", ())),
        "options": pending.get("options"),
    }


class _Rolled(Exception):
    """A trial run of a command reached its first roll (see ``GameRules.own_refusal``)."""


class _NoDice:
    """Dice that end a trial run at its first roll."""

    def draw(self, sides: Any) -> Any:
        raise _Rolled


@dataclass(frozen=True)
class CommandSpec:
    """One command of a game: its handler, summary, example body and the rules it applies."""

    name: str
    handler: Handler
    summary: str
    example: dict[str, Any]
    rules: tuple[str, ...] = ()
    resolves: tuple[str, ...] = ()


@dataclass
class GameRules:
    """A game's commands, its event types and how its state starts."""

    game: str
    event_types: dict[str, EventType] = field(default_factory=dict)
    commands: dict[str, CommandSpec] = field(default_factory=dict)
    schemas: dict[str, Command] = field(default_factory=dict)
    setup: Callable[[Values, Mapping[str, Any]], dict[str, Any]] | None = None
    setup_schema: type[Schema] | None = None
    dice_set: Callable[[Mapping[str, Any]], DiceSet | None] | None = None
    figures: Figures | None = None
    """The figures every event of this game records when it changes them."""
    availability: dict[str, Availability] = field(default_factory=dict)
    """Per command, whether a state accepts it (``available``)."""
    loaders: dict[str, Schema] = field(default_factory=dict, repr=False, compare=False)
    """Per command, one instance of its schema, made at its first use and shared after (a
    schema's ``load`` keeps nothing between calls; making one copies every declared field)."""

    def declare(self, *payloads: type[Payload]) -> None:
        """Declare the payload classes of event types this game emits (each gets a stable topic
        when the game loads).

        A type is declared by the modules that emit it; a second declaration must be the same.
        """
        for payload in payloads:
            declared = declaration(payload)
            known = self.event_types.setdefault(declared.name, declared)
            if known != declared or known.cls is not payload:
                raise RuntimeError(f"{self.game} declares {declared.name} twice, differently")

    def command(
        self,
        name: str,
        *,
        summary: str,
        example: dict[str, Any],
        schema: Takes | None = None,
        available: Availability | None = None,
        rules: tuple[str, ...] = (),
        resolves: tuple[str, ...] = (),
    ) -> Callable[[Handler], Handler]:
        """Register a handler as a command of this game, with everything the command is.

        ``schema`` is what the body takes (``takes(...)``: checked before the handler runs,
        published in ``GET /commands`` and the OpenAPI document); ``available`` whether a state
        accepts the command now (``available``; omitted, a command that answers a decision is
        refused while none is pending and any other is always accepted).
        """

        def register(handler: Handler) -> Handler:
            if name in self.commands:
                raise RuntimeError(f"{self.game} registers the command {name} twice")
            self.commands[name] = CommandSpec(name, handler, summary, example, rules, resolves)
            if schema is not None:
                self.schemas[name] = schema.named(self.game, name)
            if available is not None:
                self.availability[name] = available
            return handler

        return register

    def values(self, spec: CommandSpec, command: Mapping[str, Any]) -> dict[str, Any]:
        """A command's values once its schema loads them, or ``InvalidInput`` naming the field."""
        loader = self.loaders.get(spec.name)
        if loader is None:
            loader = self.loaders[spec.name] = self.schemas[spec.name].schema()
        return load(loader, command)

    def spec(self, name: object) -> CommandSpec:
        """The command named ``name``; anything else is invalid input naming ``type``."""
        if not isinstance(name, str) or name not in self.commands:
            known = ", ".join(sorted(self.commands))
            raise InvalidInput.field("type", f"unknown command; this game knows: {known}")
        return self.commands[name]

    def own_refusal(
        self,
        spec: CommandSpec,
        state: Mapping[str, Any],
        house_rules: Mapping[str, Any],
        command: Mapping[str, Any],
    ) -> dict[str, str] | None:
        """The rule that would refuse a command by itself, with no decision pending.

        The handler runs on a copy of the state without the pending decision, with dice that stop
        it at its first roll: a command that gets as far as rolling is not refused by its own
        rules. Nothing of this run is kept.
        """
        unblocked = {**state, "pending": None}
        try:
            values = self.values(spec, command)
            context = Context(unblocked, house_rules, _NoDice(), declared=self.event_types)
            spec.handler(context, values)
        except NoSuchDecision:
            return None  # it answers a decision: whether one comes next is not known yet
        except RuleViolation as refusal:
            return {"rule": refusal.rule_id, "detail": refusal.reason}
        except (QuestlogError, _Rolled):
            return None
        except Exception:
            # Only a hint beside the real refusal, so it never fails the request; but a handler
            # that crashes on a state without its decision is a bug, so say so in the log.
            LOG.warning("the trial run of %s for the 'also' hint failed", spec.name, exc_info=True)
            return None
        return None

    def available(
        self, name: str, state: Mapping[str, Any], house_rules: Mapping[str, Any]
    ) -> Refusal | None:
        """Whether the state accepts command ``name`` now: None, or the rule that refuses it.

        A pending decision accepts exactly the commands it lists (``run`` refuses the others
        under the decision's rule); otherwise the command's availability predicate decides, and
        a command that only answers a decision is refused while none is pending.
        """
        spec = self.spec(name)
        pending = state.get("pending")
        if pending:
            if spec.name in pending.get("commands", ()):
                return None
            return (
                str(pending.get("rule", "pending-decision")),
                f"a decision is pending ({pending.get('decision')}, for {pending.get('who')})",
            )
        predicate = self.availability.get(spec.name)
        if predicate is not None:
            return predicate(state, house_rules)
        if spec.resolves:
            return ("pending-decision", f"it answers a decision ({', '.join(spec.resolves)})")
        return None

    def initial_state(self, setup: Mapping[str, Any], house_rules: Mapping[str, Any]) -> Any:
        """The state a new campaign of this game starts with."""
        if self.setup is None or self.setup_schema is None:
            return {}
        return self.setup(load(self.setup_schema(), setup, "setup"), house_rules)

    def run(
        self,
        state: Mapping[str, Any],
        house_rules: Mapping[str, Any],
        command: Mapping[str, Any],
        dice: DiceSource,
        *,
        version: int | None = None,
    ) -> list[PendingEvent]:
        """Run one command against a state (at campaign ``version``) and return its events."""
        if not isinstance(command, Mapping):
            raise InvalidInput.field("command", "must be a JSON object")
        spec = self.spec(command.get("type"))
        values = self.values(spec, command)
        pending = state.get("pending")
        if pending and spec.name not in pending.get("commands", ()):
            accepted = list(pending.get("commands", ()))
            raise RuleViolation(
                pending.get("rule", "pending-decision"),
                f"a decision is pending ({pending.get('decision')}, for {pending.get('who')}); "
                f"the next command must be one of {', '.join(accepted)}",
                pending=decision_summary(pending),
                also=self.own_refusal(spec, state, house_rules, command),
            )
        allowed = self.dice_set(house_rules) if self.dice_set else None
        context = Context(
            state, house_rules, dice, allowed, version, self.event_types, self.figures
        )
        spec.handler(context, values)
        return context.close()
