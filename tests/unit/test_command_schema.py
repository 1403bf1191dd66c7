"""The command schemas are the domain's contract: a command loads through its schema before any
rule runs, so a handler never sees invalid input, and a nested field's error names its path."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import domain.model.calendar_board
import domain.model.quest_calendar  # noqa: F401  (registers the games)
from domain.model.command_schema import load, takes
from domain.model.dice.draw import ScriptedDice
from domain.model.errors import InvalidInput
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD, QUEST_CALENDAR, book
from domain.model.rules_engine import Context, GameRules
from domain.model.schema_fields import integer, text
from tests.unit.calendar_board.harness import three_players
from tests.unit.quest_calendar.harness import HERO, Table

ALL_COMMANDS = sorted((game, name) for game, rules in RULES.items() for name in rules.commands)


def spy_game() -> tuple[GameRules, list[Any]]:
    """A game of one command, ``hit``, whose handler records what it was called with."""
    calls: list[Any] = []
    game = GameRules("spy")

    @game.command(
        "hit",
        summary="Hit someone.",
        example={"type": "hit", "target": "x"},
        schema=takes(
            None,
            target=text("Who is hit.", required=True, max_length=10),
            amount=integer("How hard.", default=1, minimum=1, maximum=5),
        ),
    )
    def hit(ctx: Context, args: Any) -> None:
        calls.append(dict(args))

    return game, calls


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"type": "hit"}, "target", "is required"),
        ({"type": "hit", "target": None}, "target", "is required"),
        ({"type": "hit", "target": 3}, "target", "must be a string"),
        ({"type": "hit", "target": "x" * 11}, "target", "must be at most 10 characters"),
        ({"type": "hit", "target": "x\x00"}, "target", "must not contain control characters"),
        ({"type": "hit", "target": "x", "amount": True}, "amount", "must be an integer"),
        ({"type": "hit", "target": "x", "amount": 9}, "amount", "must be from 1 to 5"),
        ({"type": "hit", "target": "x", "colour": "red"}, "colour", "unknown field"),
    ],
)
def test_a_handler_is_never_called_with_invalid_input(
    body: dict[str, Any], field: str, message: str
) -> None:
    game, calls = spy_game()
    with pytest.raises(InvalidInput) as invalid:
        game.run({}, {}, body, ScriptedDice([]))
    assert message in invalid.value.errors[field][0]
    assert calls == []


def test_a_handler_receives_every_field_typed_with_its_default() -> None:
    game, calls = spy_game()
    game.run({}, {}, {"type": "hit", "target": "x", "amount": None}, ScriptedDice([]))
    game.run({}, {}, {"type": "hit", "target": "y", "amount": 3}, ScriptedDice([]))
    assert calls == [
        {"type": "hit", "target": "x", "amount": 1, "faces": None, "entropy": None},
        {"type": "hit", "target": "y", "amount": 3, "faces": None, "entropy": None},
    ]


def test_the_schema_refuses_before_the_rule_would() -> None:
    # QC-02 refuses every one of these without a hero; the schema names the field first.
    table = Table(with_hero=False, page=None)
    for body, field in (
        ({"type": "pay", "purpose": "toll", "cost": "5", "required": True}, "cost"),
        ({"type": "gain_credits", "amount": 0}, "amount"),
        ({"type": "use_item", "item": ["visor"]}, "item"),
        ({"type": "start_combat", "kind": "one_enemy", "rounds": []}, "rounds"),
    ):
        assert field in table.invalid(body).errors, body


def test_a_pending_decision_does_not_hide_a_malformed_command() -> None:
    table = Table()
    table.given(lambda state: state.update(pending={"decision": "x", "commands": ["rest"]}))
    assert (
        "cost"
        in table.invalid({"type": "pay", "purpose": "p", "cost": -1, "required": True}).errors
    )


@pytest.mark.parametrize(("game", "name"), ALL_COMMANDS)
def test_every_commands_example_loads_through_its_schema(game: str, name: str) -> None:
    rules = RULES[game]
    spec = rules.commands[name]
    values = rules.values(spec, spec.example)
    assert set(values) == set(rules.schemas[name].schema().fields)


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (
            {"type": "start_combat", "kind": "one_enemy", "rounds": [{"hit_target": 1}]},
            "rounds[0].damage_needed",
        ),
        (
            {
                "type": "start_combat",
                "kind": "one_enemy",
                "rounds": [
                    {
                        "hit_target": 12,
                        "damage_needed": 5,
                        "enemy_attack": 14,
                        "damage_reduced": 1,
                        "damage_full": 3,
                        "condition": {"name": "sleepy", "target": 10},
                    }
                ],
            },
            "rounds[0].condition.name",
        ),
        ({"type": "boost_attack", "abilities": [{"id": "x", "roll": "up"}]}, "abilities[0].roll"),
        ({"type": "boost_attack", "abilities": [7]}, "abilities[0]"),
        (
            {"type": "resolve_rounds", "assignments": {"2": [{"id": "x", "attempt": 3}]}},
            "assignments.2[0].attempt",
        ),
        (
            {"type": "select_hero", "phase": "main", "hero": {**HERO, "traits": {"STR": "2"}}},
            "hero.traits.STR",
        ),
        (
            {
                "type": "select_hero",
                "phase": "main",
                "hero": {**HERO, "abilities": [{"id": "a", "usage": "often", "context": "both"}]},
            },
            "hero.abilities[0].usage",
        ),
        (
            {"type": "select_hero", "phase": "main", "hero": {**HERO, "pool": {"name": "s"}}},
            "hero.pool.max",
        ),
        ({"type": "select_hero", "phase": "main", "hero": {**HERO, "hp": 21}}, "hero.hp"),
        ({"type": "gain_item", "item": {"id": "v", "kind": "equipment"}}, "item.slot"),
        (
            {"type": "enter_shop", "shop_id": "s", "stock": [{"item": {"id": "v"}, "price": 1}]},
            "stock[0].item.kind",
        ),
        (
            {"type": "hire_crew", "crew": {"id": "c", "abilities": [{"id": "a"}]}},
            "crew.abilities[0].usage",
        ),
        ({"type": "dogfight", "rounds": [{"evasion_target": 1}]}, "rounds[0].enemy_aim"),
        ({"type": "level_up", "trait_points": {"STR": 3}}, "trait_points.STR"),
        ({"type": "install_upgrade", "upgrade": {"id": "u"}, "compartment": 1}, "upgrade.kind"),
    ],
)
def test_a_nested_fields_error_names_its_path(body: dict[str, Any], path: str) -> None:
    rules = RULES[QUEST_CALENDAR]
    with pytest.raises(InvalidInput) as invalid:
        rules.values(rules.spec(body["type"]), body)
    assert path in invalid.value.errors, invalid.value.errors


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda s: s["players"][1]["pieces"][0].update(facing="up"), "players[1].pieces[0].facing"),
        (
            lambda s: s["players"][0]["pieces"][0]["location"].pop("space"),
            "players[0].pieces[0].location.space",
        ),
        (
            lambda s: s["players"][2].update(weapons=[{"id": "w", "kind": "melee", "ammo": 2}]),
            "players[2].weapons[0].ammo",
        ),
        (
            lambda s: s.update(options={"active_event": {"id": "e", "special_weather": "sun"}}),
            "options.active_event.special_weather",
        ),
        (lambda s: s.update(starting_token="Z"), "starting_token"),
        (lambda s: s.update(players=s["players"][:1]), "players"),
    ],
)
def test_a_board_setup_error_names_its_path(change: Any, path: str) -> None:
    setup = three_players()
    change(setup)
    with pytest.raises(InvalidInput) as invalid:
        RULES[CALENDAR_BOARD].initial_state(setup, book(CALENDAR_BOARD).resolve({}))
    assert path in invalid.value.errors, invalid.value.errors


def test_a_command_that_is_not_an_object_is_invalid() -> None:
    with pytest.raises(InvalidInput) as invalid:
        load(RULES[QUEST_CALENDAR].schemas["pay"].schema(), ["pay"])
    assert invalid.value.errors == {"command": ["must be a JSON object"]}


@pytest.mark.parametrize(
    ("effect", "path", "message"),
    [
        ({"kind": "heal"}, "item.effect", "a heal effect needs dice or an amount"),
        ({"kind": "heal", "dice": "2x"}, "item.effect.dice", "dice: 2x"),
        ({"kind": "heal", "amount": "3"}, "item.effect.amount", "must be an integer"),
        ({"kind": "heal", "amount": 1001}, "item.effect.amount", "must be from -1000 to 1000"),
        ({"kind": "cure"}, "item.effect.condition", "a cure effect needs condition"),
        ({"kind": "cure", "condition": "sad"}, "item.effect.condition", "must be one of"),
        ({"kind": "booster", "amount": 1}, "item.effect.trait", "a booster effect needs trait"),
        ({"kind": "check_bonus", "traits": ["STR", "LUCK"]}, "item.effect.traits[1]", "must be"),
        ({"kind": "reroll", "keep": "worse"}, "item.effect.keep", "must be one of new, better"),
        ({"kind": "ship_stat", "stat": "aim"}, "item.effect.amount", "a ship_stat effect needs"),
        ({"kind": "ration", "text": "x"}, "item.effect.text", "unknown field"),
        ([1], "item.effect", "must be an object"),
    ],
)
def test_an_items_effect_is_checked_by_its_schema(effect: Any, path: str, message: str) -> None:
    item = {"id": "kit", "kind": "consumable", "effect": effect}
    with pytest.raises(InvalidInput) as error:
        Table().run({"type": "gain_item", "item": item})
    assert list(error.value.errors) == [path]
    assert error.value.errors[path][0].startswith(message)


def test_an_effect_keeps_only_the_keys_it_was_given() -> None:
    item = {"id": "ration", "kind": "other", "effect": {"kind": "ration"}}
    loaded = load(
        RULES[QUEST_CALENDAR].schemas["gain_item"].schema(), {"type": "gain_item", "item": item}
    )
    assert loaded["item"]["effect"] == {"kind": "ration"}


@pytest.mark.parametrize(
    ("uses", "message"),
    [("3", "must be an integer"), (True, "must be an integer"), (101, "must be from 0 to 100")],
)
def test_new_uses_are_integers_checked_by_the_schema(uses: Any, message: str) -> None:
    body = {"type": "level_up", "trait_points": {}, "new_uses": {"second-wind": uses}}
    with pytest.raises(InvalidInput) as error:
        load(RULES[QUEST_CALENDAR].schemas["level_up"].schema(), body)
    assert error.value.errors["new_uses.second-wind"] == [message]


def test_one_schema_instance_per_command_loads_every_thread_its_own_values() -> None:
    """``GameRules.values`` makes a command's schema once and shares it: loads from many threads
    at once each get their own body's values, and a refusal names its own field."""
    game = RULES["quest-calendar"]
    spec = game.spec("trait_check")
    traits = ("STR", "DEX", "CON", "INT", "WIS", "CHA")

    def load_many(worker: int) -> list[bool]:
        held = []
        for i in range(300):
            trait, target = traits[(worker + i) % 6], 1 + (worker * 7 + i) % 30
            body = {"type": "trait_check", "trait": trait, "target": target}
            values = game.values(spec, body)
            held.append(values["trait"] == trait and values["target"] == target)
            with pytest.raises(InvalidInput) as refused:
                game.values(spec, {**body, "target": f"t{worker}"})
            held.append(list(refused.value.errors) == ["target"])
        return held

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = [held for worker in pool.map(load_many, range(8)) for held in worker]
    assert len(results) == 8 * 600 and all(results)
    shared = game.loaders["trait_check"]
    game.values(spec, {"type": "trait_check", "trait": "STR"})
    assert game.loaders["trait_check"] is shared
