"""Every game command has a request schema that names exactly the fields its handler reads,
and the API checks a body against it before any rule runs."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.model.games import RULES
from webapi.doctools import reference
from webapi.schemas.catalogue import COMMANDS

ALL_COMMANDS = sorted((game, name) for game, rules in RULES.items() for name in rules.commands)


def fields_read(function: Callable[..., Any]) -> set[str]:
    """The fields a handler reads from its loaded values: ``args["name"]`` in its body, and
    nowhere else (``args`` is never handed on whole, so its body names every field it reads)."""
    found: set[str] = set()
    reads = uses = 0
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(function)))):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "args"
        ):
            assert isinstance(node.slice, ast.Constant), ast.unparse(node)
            found.add(node.slice.value)
            reads += 1
        elif isinstance(node, ast.Name) and node.id == "args":
            uses += 1
    assert uses == reads, f"{function.__name__} uses args other than as args[name]"
    return found


def test_every_command_has_a_schema_and_every_schema_a_command() -> None:
    registered = {name for _, name in ALL_COMMANDS}
    assert len(registered) == len(ALL_COMMANDS), "command names must be unique across games"
    assert set(COMMANDS) == registered
    for game, name in ALL_COMMANDS:
        assert COMMANDS[name].game == game


@pytest.mark.parametrize(("game", "name"), ALL_COMMANDS)
def test_a_schema_names_exactly_the_fields_its_handler_reads(game: str, name: str) -> None:
    spec = RULES[game].commands[name]
    schema = COMMANDS[name].schema()
    assert set(schema.fields) - {"type", "faces", "entropy"} == fields_read(spec.handler)
    assert schema.validate(spec.example) == {}
    for field in schema.fields.values():
        assert field.metadata.get("description"), (name, field)
    assert COMMANDS[name].dice is None or COMMANDS[name].dice.strip()


def test_a_body_is_checked_against_its_schema_before_any_rule(client: FlaskClient) -> None:
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "c"}).json["id"]
    before = client.get(f"/campaigns/{cid}").json
    for body, field, message in (
        ({"type": "trait_check", "trait": 3}, "trait", "must be a string"),
        ({"type": "trait_check", "trait": "STR", "target": True}, "target", "integer"),
        ({"type": "trait_check", "trait": "STR", "bonus": 101}, "bonus", "from -100 to 100"),
        ({"type": "pay", "purpose": "toll", "cost": 5}, "required", "is required"),
        ({"type": "pay", "purpose": "toll", "cost": 5, "required": 1}, "required", "true or"),
        ({"type": "buy", "item": "x", "color": "red"}, "color", "unknown field"),
        ({"type": "assign_crew", "crew": "vex", "compartment": 7}, "compartment", "1 to 6"),
    ):
        # No hero is selected: a rule would refuse each of these (409) had the schema let it by.
        response = client.post(f"/campaigns/{cid}/commands", json=body)
        assert response.status_code == 422, (body, response.json)
        assert message in response.json["errors"][field][0], response.json
    assert client.get(f"/campaigns/{cid}").json == before


def test_faces_are_allowed_on_every_command() -> None:
    for name, entry in COMMANDS.items():
        errors = entry.schema().validate({"type": name, "faces": [3, 4]})
        assert "faces" not in errors and "type" not in errors, name


def test_the_catalogue_lists_each_commands_fields_and_dice(client: FlaskClient) -> None:
    body = client.get("/commands?game=quest-calendar").json
    check = next(c for c in body["commands"] if c["name"] == "trait_check")
    by_name = {f["name"]: f for f in check["fields"]}
    assert by_name["trait"] == {
        "name": "trait",
        "type": "string",
        "required": True,
        "choices": ["STR", "DEX", "CON", "INT", "WIS", "CHA"],
        "max_length": 200,
        "description": "The trait checked.",
    }
    assert by_name["bonus"]["default"] == 0
    assert (by_name["bonus"]["minimum"], by_name["bonus"]["maximum"]) == (-100, 100)
    assert by_name["target"]["required"] is False
    assert [f["name"] for f in check["fields"][-2:]] == ["faces", "entropy"]
    assert check["dice"].startswith("d20")
    board = client.get("/commands?game=calendar-board").json
    movement = next(c for c in board["commands"] if c["name"] == "roll_movement")
    assert movement["dice"] == "d6."
    assert [f["name"] for f in movement["fields"]] == ["player", "piece", "faces", "entropy"]


def test_the_generated_command_docs_list_each_commands_fields() -> None:
    table = reference.commands_markdown("quest-calendar")
    assert "| `trait` | string | yes |  | `STR`, `DEX`, `CON`, `INT`, `WIS`, `CHA` |" in table
    assert "| `bonus` | integer | no | 0 | -100..100 |" in table
    for name, entry in COMMANDS.items():
        markdown = reference.commands_markdown(entry.game)
        assert f"### `{name}`" in markdown
        assert f"Dice: {entry.dice or 'none.'}" in markdown


def test_a_command_that_draws_no_dice_says_null(client: FlaskClient) -> None:
    listed = client.get("/commands?game=quest-calendar").json["commands"]
    dice = {command["name"]: command["dice"] for command in listed}
    assert dice["leave_shop"] is None
    assert dice["trait_check"].startswith("d20 for the check")
    assert "None." not in dice.values()


def test_every_schema_component_has_a_description(client: FlaskClient) -> None:
    document = client.get("/openapi.json").json
    schemas = document["components"]["schemas"]
    assert [name for name, schema in schemas.items() if not schema.get("description")] == []
    summary = RULES["quest-calendar"].commands["trait_check"].summary
    assert schemas["TraitCheckCommand"]["description"] == summary
    assert schemas["Hero"]["description"].startswith("A hero as the player defines them")
    faces = schemas["TraitCheckCommand"]["properties"]["faces"]["items"]
    assert [shape["type"] for shape in faces["oneOf"]] == ["integer", "object"]


def test_the_catalogue_names_each_shape_of_a_one_of_shapes_field(client: FlaskClient) -> None:
    listed = client.get("/commands?game=quest-calendar").json["commands"]
    fields = {c["name"]: {f["name"]: f for f in c["fields"]} for c in listed}
    assert fields["assign_crew"]["compartment"]["type"] == "integer or string"
    assert fields["trait_check"]["faces"]["items"]["type"] == "integer or object"


def test_the_catalogue_shows_nested_fields(client: FlaskClient) -> None:
    body = client.get("/commands?game=quest-calendar").json
    by_command = {c["name"]: {f["name"]: f for f in c["fields"]} for c in body["commands"]}
    rounds = by_command["start_combat"]["rounds"]
    assert rounds["items"]["type"] == "object"
    round_fields = {f["name"]: f for f in rounds["items"]["fields"]}
    assert round_fields["hit_target"]["required"] is True
    assert (round_fields["hit_target"]["minimum"], round_fields["hit_target"]["maximum"]) == (
        -1000,
        1000,
    )
    condition = {f["name"]: f for f in round_fields["condition"]["fields"]}
    assert condition["name"]["choices"] == ["frightened", "restrained", "weakened", "confused"]
    hero = {f["name"]: f for f in by_command["select_hero"]["hero"]["fields"]}
    assert hero["def"]["type"] == "integer"
    assert {f["name"] for f in hero["traits"]["fields"]} == {
        "STR",
        "DEX",
        "CON",
        "INT",
        "WIS",
        "CHA",
    }
    assert hero["abilities"]["items"]["fields"][0]["name"] == "id"
    uses = by_command["boost_attack"]["abilities"]
    assert uses["items"]["type"] == "string or object"
    assert {f["name"] for f in uses["items"]["fields"]} == {"id", "attempt", "roll"}
    stock = {f["name"]: f for f in by_command["enter_shop"]["stock"]["items"]["fields"]}
    assert stock["item"]["fields"][0]["name"] == "id"


def test_a_nested_field_is_named_by_its_path_over_http(client: FlaskClient) -> None:
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "c"}).json["id"]
    bad_round = {"hit_target": 12, "damage_needed": "5"}
    response = client.post(
        f"/campaigns/{cid}/commands",
        json={"type": "start_combat", "kind": "one_enemy", "rounds": [bad_round]},
    )
    assert response.status_code == 422, response.json
    assert response.json["errors"]["rounds[0].damage_needed"] == ["must be an integer"]
    assert response.json["errors"]["rounds[0].enemy_attack"] == ["is required"]
    board = client.post(
        "/campaigns",
        json={
            "game": "calendar-board",
            "name": "m",
            "setup": {
                "players": [{"id": "A", "pieces": [{"id": "a", "facing": "N"}]}, {"id": "B"}]
            },
        },
    )
    assert board.status_code == 422, board.json
    assert "players[0].pieces[0].location" in board.json["errors"], board.json


def test_each_games_setup_schema_is_published(client: FlaskClient) -> None:
    document = client.get("/openapi.json").json
    schemas = document["components"]["schemas"]
    setup = schemas["CampaignCreate"]["properties"]["setup"]
    assert [shape["$ref"].rsplit("/", 1)[1] for shape in setup["oneOf"]] == [
        "CalendarBoardSetup",
        "QuestCalendarSetup",
    ]
    board = schemas["CalendarBoardSetup"]
    assert board["required"] == ["players"]
    assert board["properties"]["players"]["items"] == {"$ref": "#/components/schemas/Player"}
    assert schemas["Player"]["properties"]["pieces"]["items"]["$ref"].endswith("/Piece")
    assert "prologue_complete" in schemas["QuestCalendarSetup"]["properties"]


def test_the_catalogue_lists_each_games_setup_fields(client: FlaskClient) -> None:
    board = client.get("/commands?game=calendar-board").json["setup"]
    players = next(f for f in board if f["name"] == "players")
    assert players["required"] is True
    pieces = next(f for f in players["items"]["fields"] if f["name"] == "pieces")
    facing = next(f for f in pieces["items"]["fields"] if f["name"] == "facing")
    assert facing["choices"] == ["N", "E", "S", "W"]
    quest = client.get("/commands?game=quest-calendar").json["setup"]
    assert [f["name"] for f in quest] == ["prologue_complete"]
