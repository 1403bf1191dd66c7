"""The games Questlog knows, each a ``GameRules`` that its own package fills with commands."""

from __future__ import annotations

from domain.model.command_schema import Command
from domain.model.errors import InvalidInput
from domain.model.house_rules import CALENDAR_BOARD, GAMES, QUEST_CALENDAR
from domain.model.rules_engine import GameRules

RULES: dict[str, GameRules] = {
    QUEST_CALENDAR: GameRules(QUEST_CALENDAR),
    CALENDAR_BOARD: GameRules(CALENDAR_BOARD),
}


def rules_for(game: str) -> GameRules:
    """The rules of a game; an unknown game is invalid input."""
    try:
        return RULES[game]
    except KeyError:
        raise InvalidInput.field("game", f"must be one of {', '.join(GAMES)}") from None


def command_schemas() -> dict[str, Command]:
    """Every game's command schemas by command name (names are unique across games), game by
    game and by name within each: the order the OpenAPI document lists them in."""
    return {name: rules.schemas[name] for rules in RULES.values() for name in sorted(rules.schemas)}
