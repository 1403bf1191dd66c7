"""Quest Calendar: The Voidspark Chronicles (QC-xx in docs/rules.md) as commands and events.

Importing this package registers the game's house rules, its commands, its event types and
their summaries. A
campaign holds one hero: people who share a calendar each play a campaign of their own, so
nothing one of them rolls, spends or suffers touches another's hero (QC-03).
"""

from __future__ import annotations

from domain.model.campaign import game_event_class
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import (
    abilities,
    availability,
    checks,
    combat,
    command_fields,
    crew,
    death,
    dogfight_rounds,
    economy,
    economy_summaries,
    equipment,
    house_rules,
    pages,
    rest,
    ship,
    ship_summaries,
    shipyard,
    shops,
    state,
    summaries,
)

rules = RULES[QUEST_CALENDAR]
rules.setup = state.initial_state
rules.setup_schema = command_fields.Setup
rules.figures = state.FIGURES
rules.dice_set = house_rules.dice_set
for _event_type in sorted(rules.event_types):
    game_event_class(QUEST_CALENDAR, _event_type, rules.event_types[_event_type])

__all__ = [
    "abilities",
    "availability",
    "checks",
    "combat",
    "command_fields",
    "crew",
    "death",
    "dogfight_rounds",
    "economy",
    "economy_summaries",
    "equipment",
    "house_rules",
    "pages",
    "rest",
    "ship",
    "ship_summaries",
    "shipyard",
    "shops",
    "state",
    "summaries",
]
