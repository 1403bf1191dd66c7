"""The Calendar Board: Chapter 9 of the board game (docs/rules.md Part A), as commands and events.

Importing this package registers the game's house rules, its commands, its night steps, its
event types and their summaries. Each command declares its schema and availability beside its
handler (``@rules.command(schema=..., available=...)``).
"""

from __future__ import annotations

from domain.model.calendar_board import (
    actions,
    availability,
    calendar,
    command_fields,
    day_actions,
    day_sleep,
    house_rules,
    night,
    night_rolls,
    setup_schema,
    state,
    steps,
    summaries,
)
from domain.model.campaign import game_event_class
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD

rules = RULES[CALENDAR_BOARD]
rules.setup = state.initial_state
rules.setup_schema = setup_schema.Setup
rules.figures = state.FIGURES
for _event_type in sorted(rules.event_types):
    game_event_class(CALENDAR_BOARD, _event_type, rules.event_types[_event_type])

__all__ = [
    "actions",
    "availability",
    "calendar",
    "command_fields",
    "day_actions",
    "day_sleep",
    "house_rules",
    "night",
    "night_rolls",
    "setup_schema",
    "state",
    "steps",
    "summaries",
]
