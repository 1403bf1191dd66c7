"""The games Questlog knows, each a ``GameRules`` that its own package fills with commands."""

from __future__ import annotations

from domain.engine import GameRules
from domain.errors import InvalidInput
from domain.house_rules import CALENDAR_BOARD, GAMES, QUEST_CALENDAR

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
