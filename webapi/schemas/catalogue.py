"""The command catalogue: the domain's command schemas as the API describes them to clients.

``COMMANDS`` maps each command name (unique across games) to its ``Command``, its schema and its
dice, declared in the game's ``commands`` module; ``GET /commands``, the OpenAPI document and the
generated docs list their fields from here.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, missing, validate

from domain.facade import (
    RULES,
    Command,
    IdOrObject,
    StrictBoolean,
    StrictInteger,
    command_schemas,
)

COMMANDS: dict[str, Command] = command_schemas()


def setup_schemas() -> dict[str, type[Schema]]:
    """Each game's setup schema (a new campaign's ``setup``) by its OpenAPI component name,
    ``QuestCalendarSetup`` or ``CalendarBoardSetup``."""
    return {
        setup_component(game): rules.setup_schema
        for game, rules in sorted(RULES.items())
        if rules.setup_schema is not None
    }


def setup_component(game: str) -> str:
    """The OpenAPI component name of a game's setup schema."""
    return "".join(part.title() for part in game.split("-")) + "Setup"


def describe_setup(game: str) -> list[dict[str, Any]]:
    """A game's setup fields, as GET /commands lists them (``[]`` for a game without setup)."""
    schema = RULES[game].setup_schema
    if schema is None:
        return []
    return [describe_field(f.data_key or n, f) for n, f in schema().fields.items()]


def inline_schemas() -> dict[str, type[Schema]]:
    """The schemas of the objects a field may give instead of an id (``id_or_object``), by name:
    the OpenAPI document needs them as components."""
    found: dict[str, type[Schema]] = {}
    for entry in COMMANDS.values():
        for field in entry.schema().fields.values():
            inner = field.inner if isinstance(field, fields.List) else field
            if isinstance(inner, IdOrObject) and inner.nested_schema is not None:
                found[inner.nested_schema.__name__] = inner.nested_schema
    return found


def field_type(field: fields.Field[Any]) -> str:
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
    if isinstance(field, fields.Nested):
        return "object"
    if "oneOf" in field.metadata:
        return " or ".join(shape.get("type", "object") for shape in field.metadata["oneOf"])
    return "any"


def nested_schema(field: fields.Field[Any]) -> Schema | None:
    """The schema of an object a field holds, if it declares one."""
    if isinstance(field, fields.Nested):
        return field.schema
    if isinstance(field, IdOrObject) and field.nested_schema is not None:
        return field.nested_schema()
    return None


def describe_shape(field: fields.Field[Any] | None) -> dict[str, Any] | None:
    """What a list's items or an object's values are: their type, and their fields if objects."""
    if field is None:
        return None
    schema = nested_schema(field)
    if schema is None and isinstance(field, fields.Raw) and "oneOf" not in field.metadata:
        return None
    shape: dict[str, Any] = {"type": field_type(field)}
    if "picks" in field.metadata:
        shape["picks"] = field.metadata["picks"]
    if schema is not None:
        shape["fields"] = [describe_field(f.data_key or n, f) for n, f in schema.fields.items()]
    elif isinstance(field, fields.List) and (items := describe_shape(field.inner)) is not None:
        shape["item_shape"] = items
    return shape


def describe_field(name: str, field: fields.Field[Any]) -> dict[str, Any]:
    """One field of a command: name, type, required, default, bounds or choices, description,
    where a client picks it from in the state (``picks``); an object's own ``fields``, a list's
    ``item_shape`` and an object's ``value_shape`` (shown as ``items`` and ``values``) where
    declared."""
    info: dict[str, Any] = {
        "name": name,
        "type": field_type(field),
        "required": field.required,
        "description": field.metadata.get("description", ""),
    }
    if field.load_default is not missing:
        info["default"] = field.load_default
    if "picks" in field.metadata:
        info["picks"] = field.metadata["picks"]
    if "required_when" in field.metadata:
        info["required_when"] = field.metadata["required_when"]
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
    schema = nested_schema(field)
    if schema is not None:
        info["fields"] = [describe_field(f.data_key or n, f) for n, f in schema.fields.items()]
    if isinstance(field, fields.List) and (items := describe_shape(field.inner)) is not None:
        info["item_shape"] = items
    values = describe_shape(field.value_field) if isinstance(field, fields.Dict) else None
    if values is not None:
        info["value_shape"] = values
    return info


def describe(entry: Command) -> list[dict[str, Any]]:
    """A command's own fields (``type`` aside; ``faces`` and ``entropy`` last), as GET
    /commands lists them."""
    own = entry.schema().fields
    names = [n for n in own if n not in ("type", "faces", "entropy")] + ["faces", "entropy"]
    return [describe_field(n, own[n]) for n in names]
