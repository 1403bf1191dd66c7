"""A walk through a game that holds ``GameRules.available`` to the handlers, state by state.

At each state every command is tried with each body the test can build from the state (a trial
run: nothing is kept, and dice stop the run at its first roll, as ``GameRules.own_refusal`` does);
a command the test builds no bodies for is tried with its registered example.
A command marked available must run, for one of its bodies, without a refusal; one marked
unavailable must be refused for every body, and one of the refusals must name the predicate's
rule (unless every body is invalid input: none fits the state). The walk then runs one available
command (a seeded choice, with seeded server dice) and goes on from the state it leaves.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.model import patch
from domain.model.command_schema import load
from domain.model.dice.draw import ServerDice
from domain.model.errors import InvalidInput, NotHeld, RuleViolation
from domain.model.rules_engine import GameRules, _NoDice, _Rolled

Json = dict[str, Any]
Bodies = Callable[[Json, Json], list[Json]]
"""The bodies to try for one command at a state (state, house rules) -> bodies without type."""


def example_body(rules: GameRules, name: str) -> Json:
    """A command's registered example without its type: the one body the walk tries, at every
    state, for a command it has no builder of bodies for."""
    return {key: value for key, value in rules.commands[name].example.items() if key != "type"}


def untried(rules: GameRules, bodies: Mapping[str, Bodies]) -> list[str]:
    """The commands the walk cannot try: no builder of bodies, and an example that its schema
    refuses (or no schema at all)."""
    missing = []
    for name in sorted(rules.commands):
        if name in bodies:
            continue
        schema = rules.schemas.get(name)
        try:
            if schema is None:
                raise InvalidInput.field("type", "no schema")
            load(schema.schema(), {"type": name, **example_body(rules, name)})
        except InvalidInput:
            missing.append(name)
    return missing


def trial(rules: GameRules, state: Json, house: Json, command: Json) -> str | None:
    """None if the command is not refused up to its first roll; else ``rule:<id>`` or
    ``invalid:<fields>`` or ``not-held:<field>``."""
    try:
        # A campaign version, so that rolls get the ids decisions refer to.
        rules.run(state, house, command, _NoDice(), version=1)
    except _Rolled:
        return None
    except NotHeld as refusal:  # the body names what this state does not hold
        return f"not-held:{refusal.field_name}"
    except RuleViolation as refusal:
        return f"rule:{refusal.rule_id}"
    except InvalidInput as refusal:
        return f"invalid:{','.join(sorted(refusal.errors))}"
    return None


def _names(rule: str, results: list[str | None]) -> bool:
    """Whether the refusals name ``rule`` (or none is a rule's: no body fits the state)."""
    rules = [result[5:] for result in results if result and result.startswith("rule:")]
    return not rules or rule in rules


@dataclass
class Walk:
    """One game's walk: its rules, house rules, body builders and what it found."""

    rules: GameRules
    house: Json
    bodies: Mapping[str, Bodies]
    seed: int
    problems: list[str] = field(default_factory=list)
    seen: dict[str, set[bool]] = field(default_factory=dict)
    """Per command, the availabilities the walk saw (both, for most commands)."""

    def bodies_at(self, name: str, state: Json) -> list[Json]:
        """The bodies to try for a command at this state (without type): the ones built for it,
        else its registered example."""
        build = self.bodies.get(name)
        if build is None:
            return [example_body(self.rules, name)]
        return build(state, self.house)

    def check(self, state: Json, step: int) -> list[Json]:
        """Check every command at this state; return the commands that ran (to pick from)."""
        runnable: list[Json] = []
        for name in sorted(self.rules.commands):
            refusal = self.rules.available(name, state, self.house)
            self.seen.setdefault(name, set()).add(refusal is None)
            bodies = [{"type": name, **body} for body in self.bodies_at(name, state)]
            results = [trial(self.rules, state, self.house, body) for body in bodies]
            if refusal is None:
                ok = [body for body, result in zip(bodies, results, strict=True) if not result]
                runnable.extend(ok)
                if not ok:
                    self.problems.append(f"step {step}: {name} available but {results}")
            elif any(result is None for result in results):
                self.problems.append(f"step {step}: {name} unavailable {refusal} but runs")
            elif not _names(refusal[0], results):
                self.problems.append(f"step {step}: {name} {refusal[0]} but {results}")
        return runnable

    def run(
        self, state: Json, steps: int, prefer: Callable[[Json, list[Json]], Json | None]
    ) -> Json:
        """Walk ``steps`` commands from ``state``; returns the last state."""
        chooser = random.Random(self.seed)
        dice = ServerDice("ab" * 32, f"walk-{self.seed}", 0)
        for step in range(steps):
            runnable = self.check(state, step)
            if not runnable:
                self.problems.append(f"step {step}: nothing can run")
                break
            # A command first, then one of its bodies: each command is as likely as another.
            names = sorted({body["type"] for body in runnable})
            name = chooser.choice(names)
            command = prefer(state, runnable) or chooser.choice(
                [body for body in runnable if body["type"] == name]
            )
            try:
                events = self.rules.run(state, self.house, command, dice, version=step + 1)
            except (RuleViolation, InvalidInput) as refusal:
                # A refusal only dice can cause (an optional payment the roll left unaffordable).
                self.problems.append(f"step {step}: {command} refused after rolling: {refusal}")
                continue
            for event in events:
                state = patch.apply(state, event.effects)
        return state
