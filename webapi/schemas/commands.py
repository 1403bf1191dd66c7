"""Schemas of the game command routes: an appended command, the command list and house rules."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from domain.facade import GAMES
from webapi.schemas.campaigns import Event
from webapi.schemas.fields import Text, checkpoint_field
from webapi.schemas.house_rules import VALUE_WORDS, rules_by_key


class CommandResult(Schema):
    """A command's result: the events it stored and the state after them."""

    version = fields.Integer()
    head_hash = fields.String()
    checkpoint = checkpoint_field()
    events = fields.List(
        fields.Nested(Event),
        metadata={
            "description": "The events the command stored, in the shape of "
            "GET /campaigns/{id}/events (version, type, timestamp, prev_hash, hash, data, "
            "undone, undone_by, actor, summary); data.details is what happened, data.rolls its "
            "rolls, summary the event in words."
        },
    )
    state = fields.Dict(
        metadata={
            "description": "The campaign state after the command; left out when the request "
            "asked `Prefer: return=minimal`."
        }
    )
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

    key = Text(
        required=True,
        validate=validate.Length(1, 100),
        metadata={
            "enum": list(rules_by_key()),
            "description": "A house rule of the campaign's game (GET /house-rules?game=).",
        },
    )
    value = fields.Raw(required=True, allow_none=True, metadata={"description": VALUE_WORDS})
