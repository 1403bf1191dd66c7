"""The command catalogue: the domain's command schemas as the API describes them to clients.

``COMMANDS`` maps each command name (unique across games) to its ``Command``, its schema and its
dice, declared beside the command's handler in its game's package; ``GET /commands``, the
OpenAPI document and the generated docs list their fields from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from marshmallow import Schema, fields, missing, validate

from domain.facade import (
    RULES,
    Command,
    Document,
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


NULL_ONLY: dict[str, Any] = {"type": "object", "nullable": True, "enum": [None]}
"""The null branch of a nullable nested object: null alone (OpenAPI 3.0 spells null as a
nullable type whose only value is null)."""


def command_components() -> list[str]:
    """The OpenAPI components of the command and setup schemas and of every schema nested in
    them."""
    setups = setup_schemas()
    roots = [entry.schema for entry in COMMANDS.values()] + list(setups.values())
    return (
        [entry.component for entry in COMMANDS.values()]
        + list(setups)
        + [schema.__name__ for schema in _reachable(roots, set())]
    )


def null_alone(component: dict[str, Any]) -> None:
    """A nullable nested object of a command or setup takes its schema or null, not any object: the
    null branch apispec writes (``{"type": "object", "nullable": true}``) becomes ``NULL_ONLY``
    (the server drops a null field before it loads, and loads an object by its schema)."""
    for entry in component.get("properties", {}).values():
        branches = entry.get("anyOf")
        if branches and branches[-1] == {"type": "object", "nullable": True}:
            entry["anyOf"] = [*branches[:-1], dict(NULL_ONLY)]


def stated_together() -> dict[str, tuple[Document, ...]]:
    """What the checks of fields together refuse, as JSON Schema, by OpenAPI component: each
    command's (``Command.document``) and each nested schema's (``Strict.document``)."""
    found: dict[str, tuple[Document, ...]] = {
        entry.component: entry.document for entry in COMMANDS.values() if entry.document
    }
    roots = [entry.schema for entry in COMMANDS.values()] + list(setup_schemas().values())
    for schema in _reachable(roots, set()):
        document = getattr(schema, "document", None)
        if document:
            found.setdefault(schema.__name__, (document,))
    return found


def _reachable(schemas: Iterable[type[Schema]], seen: set[type[Schema]]) -> Iterator[type[Schema]]:
    """The schemas nested in these, at any depth (each once)."""
    for schema in schemas:
        for field in schema().fields.values():
            inner = _nested_class(field)
            if inner is not None and inner not in seen:
                seen.add(inner)
                yield inner
                yield from _reachable([inner], seen)


def _nested_class(field: fields.Field[Any] | None) -> type[Schema] | None:
    """The schema class a field (a list's items, an object's values) holds, if any."""
    if isinstance(field, fields.List):
        return _nested_class(field.inner)
    if isinstance(field, fields.Dict):
        return _nested_class(field.value_field)
    if isinstance(field, IdOrObject):
        return field.nested_schema
    if isinstance(field, fields.Nested):
        nested = field.nested
        return nested if isinstance(nested, type) and issubclass(nested, Schema) else None
    return None


def state_together(component: dict[str, Any], documents: Iterable[Document]) -> None:
    """Add to an OpenAPI component what its checks of fields together refuse: ``properties``
    into its fields' own entries, and the shapes a body must not have (``not``) as one ``not``
    (of their ``anyOf`` when there are several): client generators build their models from the
    properties and leave a ``not`` alone, where a union would change the model."""
    barred: list[Any] = []
    for document in documents:
        for key, value in document.items():
            if key == "properties":
                for name, more in value.items():
                    _state_field(component["properties"][name], more)
            elif key == "not":
                barred.append(value)
            else:
                raise ValueError(f"a command's document adds properties or not, not {key}")
    if barred:
        component["not"] = barred[0] if len(barred) == 1 else {"anyOf": barred}


def _state_field(entry: dict[str, Any], more: Document) -> None:
    """Add to a field's entry; keys from a fixed set (``propertyNames`` with an ``enum``, which
    OpenAPI 3.0 lacks) become its properties, each with the schema its values have, and no
    other key."""
    more = dict(more)
    names = more.pop("propertyNames", None)
    if names is not None:
        value = entry.pop("additionalProperties", {})
        entry["properties"] = {name: value for name in names["enum"]}
        entry["additionalProperties"] = False
    entry.update(more)


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
