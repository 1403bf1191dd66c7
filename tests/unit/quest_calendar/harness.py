"""A Quest Calendar table for rule tests: a campaign aggregate driven with scripted dice."""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import Any
from uuid import uuid4

import pytest

import domain.quest_calendar  # noqa: F401  (registers the game)
from domain.campaign import Campaign
from domain.dice import ScriptedDice, commitment_of, new_server_seed
from domain.errors import InvalidInput, RuleViolation
from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR, book

RULES_QC = RULES[QUEST_CALENDAR]

HERO: dict[str, Any] = {
    "id": "vanguard",
    "name": "The Vanguard",
    "level": 1,
    "traits": {"STR": 2, "DEX": 1, "CON": 1, "INT": 2, "WIS": 0, "CHA": -1},
    "hp_max": 20,
    "def": 12,
    "atk": 3,
    "damage_dice": "1d8",
    "damage_mod": 0,
    "credits": 10,
    "rations": 2,
}


class Table:
    """One campaign, a hero and scripted dice; every run also checks that replay agrees."""

    def __init__(
        self,
        house: dict[str, Any] | None = None,
        *,
        hero: dict[str, Any] | None = None,
        prologue_complete: bool = True,
        page: str | None = "2027-01-04",
        with_hero: bool = True,
    ) -> None:
        rules = book(QUEST_CALENDAR).resolve(house or {})
        self.campaign = Campaign.start(
            campaign_id=uuid4(),
            game=QUEST_CALENDAR,
            name="rules",
            house_rules=rules,
            commitment=commitment_of(new_server_seed()),
            client_seed="table",
            state=RULES_QC.initial_state({"prologue_complete": prologue_complete}, rules),
        )
        self.history = list(self.campaign.collect_events())
        self.fixtures: list[tuple[int, Callable[[dict[str, Any]], None]]] = []
        if with_hero:
            chosen = deepcopy(hero if hero is not None else HERO)
            phase = "main" if prologue_complete else "prologue"
            self.run({"type": "select_hero", "phase": phase, "hero": chosen})
        if page is not None:
            self.run({"type": "start_page", "date": page})

    @property
    def state(self) -> dict[str, Any]:
        """The game state now."""
        result: dict[str, Any] = self.campaign.state
        return result

    @property
    def hero(self) -> dict[str, Any]:
        """The hero now."""
        result: dict[str, Any] = self.campaign.state["hero"]
        return result

    def run(self, command: dict[str, Any], faces: list[int] | tuple[int, ...] = ()) -> list[Any]:
        """Run a command with scripted server dice; all faces must be used. Returns its events."""
        dice = ScriptedDice(
            list(faces),
            commitment=self.campaign.dice["commitment"],
            nonce=self.campaign.dice["nonce"],
        )
        events = self.campaign.run_command(RULES_QC, command, dice)
        assert dice.remaining == 0, f"{dice.remaining} scripted faces were not used"
        self.history.extend(self.campaign.collect_events())
        self.check_replay()
        return events

    def refused(
        self, command: dict[str, Any], faces: list[int] | tuple[int, ...] = ()
    ) -> RuleViolation:
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

    def given(self, change: Callable[[dict[str, Any]], None]) -> None:
        """Set up state directly (test fixture only); replay applies it at the same point."""
        change(self.campaign.state)
        self.fixtures.append((len(self.history), change))

    def types(self, events: list[Any]) -> list[str]:
        """The type names of events."""
        return [type(e).__name__ for e in events]

    def _rebuild(self) -> Campaign:
        rebuilt = None
        for index, event in enumerate(self.history):
            rebuilt = event.mutate(rebuilt)
            for position, change in self.fixtures:
                if position == index + 1:
                    assert rebuilt is not None
                    change(rebuilt.state)
        assert isinstance(rebuilt, Campaign)
        return rebuilt

    def check_replay(self) -> None:
        """The state rebuilt from the recorded events equals the live state."""
        assert self._rebuild().state == self.campaign.state
