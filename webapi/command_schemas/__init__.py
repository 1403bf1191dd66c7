"""The request schema of every game command, declared beside the API that validates with it.

``COMMANDS`` maps each command name (unique across games) to its ``Command``: the API checks a
body against its schema before any rule runs, publishes the schemas in the OpenAPI document and
lists their fields in ``GET /commands``.
"""

from __future__ import annotations

from webapi.command_schemas import calendar_board, quest_calendar
from webapi.command_schemas.registry import Command, describe

COMMANDS: dict[str, Command] = {
    c.name: c for c in (*quest_calendar.COMMANDS, *calendar_board.COMMANDS)
}

__all__ = ["COMMANDS", "Command", "describe"]
