"""A Calendar Board match for rule tests: a campaign aggregate driven with scripted dice."""

from __future__ import annotations

from typing import Any

import domain.model.calendar_board  # noqa: F401  (registers the game)
from domain.model import samples
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from tests.unit.game_table import Faces, GameTable

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


ONE_SCREEN = samples.ONE_SCREEN
"""The house rules the rule tests play by unless they say otherwise (a table at one screen, as a
match stored before these rules existed plays), so that a test of one rule scripts a whole night
in one command. ``test_night_rolls`` plays the defaults."""


class Match(GameTable):
    """One match and scripted dice; every run also checks that replay agrees."""

    def __init__(self, setup: dict[str, Any] | None = None, house: dict[str, Any] | None = None):
        super().__init__(RULES_CB, setup or three_players(), {**ONE_SCREEN, **(house or {})})

    def party(self, player_id: str) -> dict[str, Any]:
        """A party now."""
        result: dict[str, Any] = self.campaign.state["parties"][player_id]
        return result

    def end_turns(self, *players: str, faces: Faces = ()) -> list[Any]:
        """End the turns of these players in order; the last may start the night (uses faces)."""
        events: list[Any] = []
        for n, pid in enumerate(players):
            last = n == len(players) - 1
            events += self.run({"type": "end_turn", "player": pid}, faces if last else ())
        return events
