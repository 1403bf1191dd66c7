"""The base of the game-rule harnesses: one campaign aggregate driven with scripted dice.

Every run checks that the events it recorded rebuild the live state, so each rule test also
proves that applying its events only assigns what was decided.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import Any
from uuid import uuid4

import pytest

from domain.model.campaign import Campaign
from domain.model.dice.draw import ScriptedDice, commitment_of, new_server_seed
from domain.model.errors import InvalidInput, NotHeld, RuleViolation
from domain.model.house_rules import book
from domain.model.rules_engine import GameRules

Faces = list[int] | tuple[int, ...]


class GameTable:
    """A campaign of one game, scripted dice, and replay checks after every command."""

    def __init__(self, rules: GameRules, setup: dict[str, Any], house: dict[str, Any]) -> None:
        self.rules = rules
        resolved = book(rules.game).resolve(house)
        self.campaign = Campaign.start(
            campaign_id=uuid4(),
            game=rules.game,
            name="rules",
            house_rules=resolved,
            commitment=commitment_of(new_server_seed()),
            client_seed="table",
            state=rules.initial_state(setup, resolved),
        )
        self.history = list(self.campaign.collect_events())
        self.fixtures: list[tuple[int, Callable[[dict[str, Any]], None]]] = []

    @property
    def state(self) -> dict[str, Any]:
        """The game state now."""
        result: dict[str, Any] = self.campaign.state
        return result

    def run(self, command: dict[str, Any], faces: Faces = ()) -> list[Any]:
        """Run a command with scripted server dice; all faces must be used. Returns its events."""
        dice = ScriptedDice(
            list(faces),
            commitment=self.campaign.dice["commitment"],
            nonce=self.campaign.dice["nonce"],
        )
        events = self.campaign.run_command(self.rules, command, dice)
        assert dice.remaining == 0, f"{dice.remaining} scripted faces were not used"
        self.history.extend(self.campaign.collect_events())
        self.check_replay()
        return events

    def refused(self, command: dict[str, Any], faces: Faces = ()) -> RuleViolation:
        """Run a command that a rule must refuse; the state must not change."""
        before = deepcopy(self.campaign.state)
        with pytest.raises(RuleViolation) as refused:
            self.run(command, faces)
        assert self.campaign.collect_events() == []
        assert self.campaign.state == before
        return refused.value

    def invalid(self, command: dict[str, Any]) -> InvalidInput:
        """Run a command with malformed input; returns the error (it names the field)."""
        with pytest.raises(InvalidInput) as invalid:
            self.run(command)
        self.campaign.collect_events()
        return invalid.value

    def not_held(self, command: dict[str, Any]) -> NotHeld:
        """Run a well-formed command naming what the campaign does not hold: a 409 under the
        core rule ``known-names``, naming the field; nothing changes."""
        refused = self.refused(command)
        assert isinstance(refused, NotHeld), refused
        return refused

    def given(self, change: Callable[[dict[str, Any]], None]) -> None:
        """Set up state directly (test fixture only); replay applies it at the same point."""
        change(self.campaign.state)
        self.fixtures.append((len(self.history), change))

    @staticmethod
    def types(events: list[Any]) -> list[str]:
        """The type names of events."""
        return [type(e).__name__ for e in events]

    def check_replay(self) -> None:
        """The state rebuilt from the recorded events equals the live state."""
        rebuilt = None
        for index, event in enumerate(self.history):
            rebuilt = event.mutate(rebuilt)
            for position, change in self.fixtures:
                if position == index + 1:
                    assert rebuilt is not None
                    change(rebuilt.state)
        assert isinstance(rebuilt, Campaign)
        assert rebuilt.state == self.campaign.state
