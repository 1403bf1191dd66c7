"""Game command routes: a typed commands route per campaign, the catalogue, house rules."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate
from werkzeug.exceptions import BadRequest

from domain.model.games import RULES, rules_for
from domain.model.house_rules import GAMES
from domain.service import commands_service
from webapi.http import access
from webapi.http.plumbing import (
    Rendered,
    appended,
    campaign_id,
    expected_version,
    idempotency,
    questlog,
    reply,
)
from webapi.routes.campaigns import summarised
from webapi.routes.dice import APPEND_HEADERS
from webapi.schemas import api as schemas
from webapi.schemas.catalogue import COMMANDS, describe, describe_setup

blp = Blueprint("commands", __name__, description="Game commands and house rules.")


def command_body() -> Any:
    """The request's JSON body as sent: the campaign's game checks it against its own command
    schemas before any rule runs, so every invalid body answers one problem type in the domain's
    wording (an unknown ``type`` names the commands of that game only)."""
    if not request.get_data():
        return None
    try:
        return request.get_json(force=True)
    except BadRequest:
        raise BadRequest("The request body is not valid JSON.") from None


class CommandResult(Schema):
    """A command's result: the events it stored and the state after them."""

    version = fields.Integer()
    head_hash = fields.String()
    checkpoint = schemas.checkpoint_field()
    events = fields.List(
        fields.Nested(schemas.Event),
        metadata={
            "description": "The events the command stored, in the shape of "
            "GET /campaigns/{id}/events (version, type, timestamp, prev_hash, hash, data, "
            "undone, undone_by, actor, summary); data.details is what happened, data.rolls its "
            "rolls, summary the event in words."
        },
    )
    state = fields.Dict(metadata={"description": "The campaign state after the command."})
    pending = fields.Dict(allow_none=True, metadata={"description": "A decision now pending."})


class CommandsQuery(Schema):
    game = fields.String(required=True, validate=validate.OneOf(GAMES))


class CommandField(Schema):
    """One field of a command: type, required, default, bounds or choices, description."""

    name = fields.String()
    type = fields.String(
        metadata={
            "description": "integer, string, boolean, array or object; a field that takes one of "
            "a few shapes names them joined by 'or', such as 'integer or string' (a compartment) "
            "or 'string or object' (an id or a full definition)."
        }
    )
    required = fields.Boolean()
    default = fields.Raw(metadata={"description": "The value used when the field is left out."})
    minimum = fields.Integer()
    maximum = fields.Integer()
    max_length = fields.Integer()
    max_items = fields.Integer()
    choices = fields.List(fields.String())
    description = fields.String()
    picks = fields.Nested(
        lambda: Picks(),
        metadata={"description": "Where a client picks the value from in the campaign state."},
    )
    required_when = fields.Dict(
        metadata={
            "description": "An optional field needed when the command's other fields have "
            'these values (such as a rizz\'s partner: {"action": "rizz"}).'
        }
    )
    own_fields = fields.List(
        fields.Nested(lambda: CommandField()),
        attribute="fields",
        data_key="fields",
        metadata={"description": "An object's own fields."},
    )
    item_shape = fields.Nested(
        lambda: FieldShape(),
        data_key="items",
        metadata={"description": "A list's items, where declared."},
    )
    value_shape = fields.Nested(
        lambda: FieldShape(),
        data_key="values",
        metadata={"description": "An object's values, where declared."},
    )


class Picks(Schema):
    """Where a field's value is picked from: entries of the campaign state, not a typed id."""

    source = fields.String(
        metadata={
            "description": "A JSON pointer into the campaign state (GET /campaigns/{id} `state`); "
            "`{name}` stands for the value of the command's field `name`, `*` for every member."
        }
    )
    value = fields.String(
        metadata={
            "description": "The entry's member sent (default: its `id`, else its key in an "
            "object, else the entry itself); `@key` is its key in an object."
        }
    )
    label = fields.String(
        metadata={"description": "The entry's member shown beside it (dotted if nested)."}
    )
    where = fields.Dict(
        metadata={"description": "Only the entries whose members have these values."}
    )
    free = fields.Boolean(
        metadata={"description": "true: the rules also accept a value the state does not hold."}
    )


class FieldShape(Schema):
    """What a list's items or an object's values are: their type, and fields if objects."""

    type = fields.String()
    picks = fields.Nested(Picks)
    own_fields = fields.List(fields.Nested(CommandField), attribute="fields", data_key="fields")
    item_shape = fields.Nested(lambda: FieldShape(), data_key="items")


class CommandInfo(Schema):
    """One command of a game: summary, rule IDs, fields, dice and an example body."""

    name = fields.String()
    summary = fields.String()
    rules = fields.List(fields.String())
    own_fields = fields.List(
        fields.Nested(CommandField),
        attribute="fields",
        data_key="fields",
        metadata={"description": "Its own fields, then `faces` and `entropy`."},
    )
    dice = fields.String(
        allow_none=True,
        metadata={
            "description": "The dice it may draw, in order: what `faces` must supply; null if it "
            "draws no dice."
        },
    )
    example = fields.Dict()


class CommandList(Schema):
    """Every command of a game, and the fields of its campaigns' setup."""

    game = fields.String()
    commands = fields.List(fields.Nested(CommandInfo))
    setup = fields.List(
        fields.Nested(CommandField),
        metadata={
            "description": "The fields of a new campaign's `setup` (POST /campaigns) in this game."
        },
    )


class HouseRuleChange(Schema):
    """A change of one house rule, recorded as an event."""

    key = schemas.Text(required=True, validate=validate.Length(1, 100))
    value = fields.Raw(required=True, allow_none=True)


def command_body_doc() -> dict[str, Any]:
    """The request body as OpenAPI shows it: one of the command schemas, told apart by ``type``."""
    refs = {name: f"#/components/schemas/{entry.component}" for name, entry in COMMANDS.items()}
    schema = {
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "type", "mapping": refs},
    }
    content = {"schema": schema, "examples": command_examples()}
    return {"required": True, "content": {"application/json": content}}


def command_examples() -> dict[str, Any]:
    """One OpenAPI example per command of every game."""
    return {
        f"{game}:{name}": {"summary": spec.summary, "value": spec.example}
        for game, game_rules in sorted(RULES.items())
        for name, spec in sorted(game_rules.commands.items())
    }


def render_command(result: commands_service.CommandResult) -> Rendered:
    """A game command's response: the events it stored and the state after them."""
    state = result.value["state"]
    # The summaries are made here, not in the result: an idempotency row keeps the result, and
    # a summary is never stored.
    events = [summarised(event) for event in result.value["events"]]
    body = {"events": events, "state": state, "pending": state.get("pending")}
    return appended(201, result, body)


def render_house_rules(result: commands_service.CommandResult) -> Rendered:
    """A house-rule change's response."""
    return appended(200, result, result.value)


@blp.route("/campaigns/<campaign>/commands")
class Commands(MethodView):
    @blp.response(201, CommandResult)
    @blp.doc(parameters=APPEND_HEADERS, requestBody=command_body_doc())
    @access.requires(
        "append", seat="player", seat_binds_owner=True, seat_games=("calendar-board",), appends=True
    )
    def post(self, campaign: str) -> Any:
        """Run a game command; 409 names the rule that forbids it, 422 the field that is wrong."""
        outcome = questlog().command(
            campaign_id(campaign),
            command_body(),
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_command)


@blp.route("/commands")
class CommandCatalogue(MethodView):
    @blp.arguments(CommandsQuery, location="query")
    @blp.response(200, CommandList)
    @access.requires("any")
    def get(self, query: dict[str, Any]) -> Any:
        """Every command of a game: summary, rule IDs, fields, dice and an example body."""
        game_rules = rules_for(query["game"])
        return {
            "game": query["game"],
            "commands": [
                {
                    "name": s.name,
                    "summary": s.summary,
                    "rules": list(s.rules),
                    "fields": describe(COMMANDS[s.name]),
                    "dice": COMMANDS[s.name].dice,
                    "example": s.example,
                }
                for _, s in sorted(game_rules.commands.items())
            ],
            "setup": describe_setup(query["game"]),
        }


@blp.route("/campaigns/<campaign>/house-rules")
class CampaignHouseRules(MethodView):
    @blp.arguments(HouseRuleChange, example={"key": "qc.combat.mode", "value": "easy"})
    @blp.response(200, schemas.Appended)
    @blp.doc(parameters=APPEND_HEADERS)
    @access.requires("manage", appends=True)
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Change one house rule; the change is a recorded event with the old and new values."""
        outcome = questlog().configure_house_rule(
            campaign_id(campaign),
            body["key"],
            body["value"],
            expected_version=expected_version(),
            idempotency=idempotency(),
        )
        return reply(outcome, render_house_rules)
