"""Every game command is declared whole where its handler is: a schema for every command and a
command for every schema, with an example body its schema accepts, in every game.

The checks read each game's registry (``GameRules.commands`` and ``.schemas``), so they hold
however a game declares its commands."""

from __future__ import annotations

import pytest

import domain.model.calendar_board
import domain.model.quest_calendar  # noqa: F401  (registers the games)
from domain.model.command_schema import load
from domain.model.games import RULES

GAMES = sorted(RULES)
ALL_COMMANDS = sorted((game, name) for game in GAMES for name in RULES[game].commands)


def test_both_games_declare_commands() -> None:
    assert {"quest-calendar", "calendar-board"} <= set(GAMES)
    assert all(RULES[game].commands for game in GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_every_command_has_a_schema_and_every_schema_a_command(game: str) -> None:
    rules = RULES[game]
    assert sorted(set(rules.commands) - set(rules.schemas)) == []
    assert sorted(set(rules.schemas) - set(rules.commands)) == []
    for name, schema in rules.schemas.items():
        assert (schema.game, schema.name) == (game, name)


@pytest.mark.parametrize("game", GAMES)
def test_every_availability_is_a_commands(game: str) -> None:
    rules = RULES[game]
    assert sorted(set(rules.availability) - set(rules.commands)) == []


def test_a_command_name_belongs_to_one_game() -> None:
    names = [name for _, name in ALL_COMMANDS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize(("game", "name"), ALL_COMMANDS)
def test_every_commands_example_is_a_body_its_schema_accepts(game: str, name: str) -> None:
    rules = RULES[game]
    example = rules.commands[name].example
    assert example["type"] == name
    loaded = load(rules.schemas[name].schema(), example)
    assert loaded["type"] == name
