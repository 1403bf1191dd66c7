"""Schemas of the Calendar Board modifier queries."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from webapi.schemas.fields import Text


class ModifierQuery(Schema):
    player = Text(required=True, validate=validate.Length(1, 80))
    piece = Text(validate=validate.Length(1, 80))
    structure = fields.Boolean(load_default=False)
    range = fields.Integer(validate=validate.Range(min=0, max=1000))
    facing = fields.String(validate=validate.OneOf(["N", "E", "S", "W"]))


class Modifiers(Schema):
    """Weather and wind modifiers for a piece or a structure."""

    weather = fields.Dict(metadata={"description": "Tackle, attack, movement and spell effects."})
    wind = fields.Dict(metadata={"description": "Wind relation and damage modifier by facing."})
    version = fields.Integer()
