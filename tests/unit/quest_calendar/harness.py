"""A Quest Calendar table for rule tests: a campaign aggregate driven with scripted dice."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import domain.model.quest_calendar  # noqa: F401  (registers the game)
from domain.model import samples
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from tests.unit.game_table import GameTable

RULES_QC = RULES[QUEST_CALENDAR]

HERO: dict[str, Any] = samples.variant(samples.BARE_VANGUARD, damage_mod=0, credits=10, rations=2)
"""The sample Vanguard's numbers, with no bonus to damage and some credits and rations."""


class Table(GameTable):
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
        super().__init__(RULES_QC, {"prologue_complete": prologue_complete}, house or {})
        if with_hero:
            chosen = deepcopy(hero if hero is not None else HERO)
            phase = "main" if prologue_complete else "prologue"
            self.run({"type": "select_hero", "phase": phase, "hero": chosen})
        if page is not None:
            self.run({"type": "start_page", "date": page})

    @property
    def hero(self) -> dict[str, Any]:
        """The hero now."""
        result: dict[str, Any] = self.campaign.state["hero"]
        return result
