"""A Calendar Board match for rule tests: a campaign aggregate driven with scripted dice."""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import Any
from uuid import uuid4

import pytest

import domain.calendar_board  # noqa: F401  (registers the game)
from domain.campaign import Campaign
from domain.dice import ScriptedDice, commitment_of, new_server_seed
from domain.errors import InvalidInput, RuleViolation
from domain.games import RULES
from domain.house_rules import CALENDAR_BOARD, book

RULES_CB = RULES[CALENDAR_BOARD]


def player(pid: str, *pieces: dict[str, Any], **party: Any) -> dict[str, Any]:
    """A player set-up: pieces as dicts, party fields as keywords (weapons, luck_mod, ...)."""
    return {"id": pid, "pieces": list(pieces), **party}


def piece(pid: str, space: int | None = None, **fields: Any) -> dict[str, Any]:
    """A piece on a pathway space, or in the home area when ``space`` is None."""
    location = {"kind": "home"} if space is None else {"kind": "pathway", "space": space}
    return {"id": pid, "location": location, **fields}


def three_players() -> dict[str, Any]:
    """A default set-up: A, B and C, each with a piece on the pathway and one at home."""
    return {
        "players": [
            player("A", piece("a1", 3), piece("a2")),
            player("B", piece("b1", 10), piece("b2")),
            player("C", piece("c1", 14), piece("c2")),
        ],
        "starting_token": "A",
    }


class Match:
    """One match and scripted dice; every run also checks that replay agrees."""

    def __init__(self, setup: dict[str, Any] | None = None, house: dict[str, Any] | None = None):
        rules = book(CALENDAR_BOARD).resolve(house or {})
        self.campaign = Campaign.start(
            campaign_id=uuid4(),
            game=CALENDAR_BOARD,
            name="rules",
            house_rules=rules,
            commitment=commitment_of(new_server_seed()),
            client_seed="table",
            state=RULES_CB.initial_state(setup or three_players(), rules),
        )
        self.history = list(self.campaign.collect_events())
        self.fixtures: list[tuple[int, Callable[[dict[str, Any]], None]]] = []

    @property
    def state(self) -> dict[str, Any]:
        """The game state now."""
        result: dict[str, Any] = self.campaign.state
        return result

    def party(self, player_id: str) -> dict[str, Any]:
        """A party now."""
        result: dict[str, Any] = self.campaign.state["parties"][player_id]
        return result

    def run(self, command: dict[str, Any], faces: list[int] | tuple[int, ...] = ()) -> list[Any]:
        """Run a command with scripted server dice; all faces must be used. Returns its events."""
        dice = ScriptedDice(
            list(faces),
            commitment=self.campaign.dice["commitment"],
            nonce=self.campaign.dice["nonce"],
        )
        events = self.campaign.run_command(RULES_CB, command, dice)
        assert dice.remaining == 0, f"{dice.remaining} scripted faces were not used"
        self.history.extend(self.campaign.collect_events())
        self.check_replay()
        return events

    def end_turns(self, *players: str, faces: list[int] | tuple[int, ...] = ()) -> list[Any]:
        """End the turns of these players in order; the last may start the night (uses faces)."""
        events: list[Any] = []
        for n, pid in enumerate(players):
            last = n == len(players) - 1
            events += self.run({"type": "end_turn", "player": pid}, faces if last else ())
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
