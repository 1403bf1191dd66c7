"""Every game command has a title in words on the table page (webapi/static/commandtitles.js):
what a player reads on its form, its decision buttons and the lists of commands, never the
command's name in snake_case, and no title is left for a command the games no longer have."""

from __future__ import annotations

import re
from pathlib import Path

import domain.model.calendar_board
import domain.model.quest_calendar  # noqa: F401  (registers the game)
from domain.model.games import RULES

TITLES = Path(__file__).resolve().parents[2] / "webapi" / "static" / "commandtitles.js"


def titles() -> dict[str, str]:
    """The titles the page's module declares, by command name."""
    return dict(re.findall(r'^  (\w+): "([^"]+)",$', TITLES.read_text(), re.M))


def test_every_command_of_both_games_has_a_title_in_words() -> None:
    commands = {name for rules in RULES.values() for name in rules.commands}
    found = titles()
    assert sorted(commands - set(found)) == []
    assert sorted(set(found) - commands) == []


def test_a_title_is_a_sentence_not_a_name() -> None:
    for name, title in titles().items():
        assert title[0].isupper(), (name, title)
        assert "_" not in title, (name, title)
