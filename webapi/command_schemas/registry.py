"""A command's schema with the dice it draws, and how both are described to clients."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marshmallow import Schema, fields, missing, validate

from webapi.command_schemas.fields import (
    REQUIRED,
    CommandSchema,
    OneOfShapes,
    StrictBoolean,
    StrictInteger,
)


@dataclass(frozen=True)
class Command:
    """One game command as the API publishes it: its request schema and its dice."""

    game: str
    name: str
    schema: type[Schema]
    dice: str

    @property
    def component(self) -> str:
        """The schema's name in the OpenAPI document."""
        return "".join(part.title() for part in self.name.split("_")) + "Command"


def command(game: str, name: str, dice: str, **own: fields.Field) -> Command:
    """Declare a command's schema: ``type`` (this command's name), ``faces`` and its own fields."""
    kind = fields.String(
        required=True,
        validate=validate.OneOf([name]),
        error_messages=REQUIRED,
        metadata={"description": "The command."},
    )
    schema = type(
        "".join(part.title() for part in name.split("_")) + "Command",
        (CommandSchema,),
        {"__doc__": f"The body of a {name} command.", "type": kind, **own},
    )
    return Command(game, name, schema, dice)


def field_type(field: fields.Field) -> str:
    """The JSON type of a field, as the catalogue names it."""
    if isinstance(field, StrictInteger):
        return "integer"
    if isinstance(field, StrictBoolean):
        return "boolean"
    if isinstance(field, fields.String):
        return "string"
    if isinstance(field, fields.List):
        return "array"
    if isinstance(field, fields.Dict):
        return "object"
    if isinstance(field, OneOfShapes):
        return " or ".join(shape["type"] for shape in field.metadata["oneOf"])
    return "any"


def describe_field(name: str, field: fields.Field) -> dict[str, Any]:
    """One field of a command: name, type, required, default, bounds or choices, description."""
    info: dict[str, Any] = {
        "name": name,
        "type": field_type(field),
        "required": field.required,
        "description": field.metadata.get("description", ""),
    }
    if field.load_default is not missing:
        info["default"] = field.load_default
    for check in field.validators:
        if isinstance(check, validate.Range):
            if check.min is not None:
                info["minimum"] = check.min
            if check.max is not None:
                info["maximum"] = check.max
        elif isinstance(check, validate.OneOf):
            info["choices"] = list(check.choices)
        elif isinstance(check, validate.Length) and check.max is not None:
            info["max_items" if isinstance(field, fields.List) else "max_length"] = check.max
    for shape in field.metadata.get("oneOf", ()):
        if "enum" in shape:
            info["choices"] = shape["enum"]
        if "minimum" in shape:
            info["minimum"], info["maximum"] = shape["minimum"], shape["maximum"]
    return info


def describe(entry: Command) -> list[dict[str, Any]]:
    """A command's own fields (``type`` aside, ``faces`` last), as GET /commands lists them."""
    own = entry.schema().fields
    names = [n for n in own if n not in ("type", "faces")] + ["faces"]
    return [describe_field(n, own[n]) for n in names]
