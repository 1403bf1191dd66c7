"""The command schemas: part of the domain's contract, checked before any rule runs.

Every game command has a schema (``command``), declared in its game's ``commands`` module. A game
runs a command only once its body loads through that schema (``load``): a missing, unknown or
mistyped field is ``InvalidInput`` naming it (a nested one by its path: ``players[1].facing``),
and nothing is stored. The handler then receives the loaded values, every declared field present
(``None`` when left out without a default). The API publishes the same schemas in its OpenAPI
document and in ``GET /commands``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from marshmallow import (
    Schema,
    ValidationError,
    fields,
    missing,
    post_load,
    pre_load,
    validate,
    validates_schema,
)

from domain.model.errors import InvalidInput
from domain.model.text import has_control_characters, not_unicode

REQUIRED: dict[str, str | list[Any] | dict[Any, Any]] = {
    "required": "is required",
    "null": "is required",
}
"""A required field missing or null: null counts as left out."""

Values = Mapping[str, Any]
"""A command's loaded values, as a handler receives them: every field of its schema present."""


class StrictInteger(fields.Integer):
    """An integer, never a boolean or a float."""

    default_error_messages = {"invalid": "must be an integer"}

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return value


class StrictBoolean(fields.Boolean):
    """true or false, never 0, 1 or a string."""

    default_error_messages = {"invalid": "must be true or false"}

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class Text(fields.String):
    """A string without control characters; ``free_text`` may hold tabs and line breaks."""

    def __init__(self, *, free_text: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.free_text = free_text

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        text = super()._deserialize(value, attr, data, **kwargs)
        if has_control_characters(text, free_text=self.free_text):
            allowed = " other than tab, line feed and carriage return" if self.free_text else ""
            raise ValidationError(f"must not contain control characters{allowed}")
        return text


class OneOfShapes(fields.Raw):
    """A value of one of a few JSON shapes (``metadata["oneOf"]``), checked by ``check``."""

    def __init__(self, check: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        message = self.check(value)
        if message:
            raise ValidationError(message)
        return value


def _common(description: str, required: bool, default: Any) -> dict[str, Any]:
    """The keyword arguments every field shares: required, or nullable with its default."""
    if required:
        return {
            "required": True,
            "error_messages": REQUIRED,
            "metadata": {"description": description},
        }
    options: dict[str, Any] = {"allow_none": True, "metadata": {"description": description}}
    if default is not None:
        options["load_default"] = default
    return options


def _range(minimum: int | None, maximum: int | None) -> list[validate.Validator]:
    """A range check worded as the domain words it."""
    if minimum is None and maximum is None:
        return []
    if maximum is None:
        error = f"must be at least {minimum}"
    elif minimum is None:
        error = f"must be at most {maximum}"
    else:
        error = f"must be from {minimum} to {maximum}"
    return [validate.Range(min=minimum, max=maximum, error=error)]


def text(
    description: str,
    *,
    required: bool = False,
    default: str | None = None,
    max_length: int = 200,
    choices: Iterable[str] | None = None,
    free_text: bool = False,
) -> fields.Field[Any]:
    """A string of at most ``max_length`` characters, maybe one of ``choices``; ``free_text``
    may hold tabs and line breaks."""
    checks: list[validate.Validator] = [
        validate.Length(max=max_length, error=f"must be at most {max_length} characters")
    ]
    if choices is not None:
        allowed = list(choices)
        checks.append(validate.OneOf(allowed, error=f"must be one of {', '.join(allowed)}"))
    field = Text(validate=checks, free_text=free_text, **_common(description, required, default))
    field.error_messages["invalid"] = "must be a string"
    return field


def integer(
    description: str,
    *,
    required: bool = False,
    default: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
    data_key: str | None = None,
) -> fields.Field[Any]:
    """An integer within bounds (``data_key``: its name in JSON, where that is a keyword)."""
    return StrictInteger(
        validate=_range(minimum, maximum),
        data_key=data_key,
        **_common(description, required, default),
    )


def flag(
    description: str, *, required: bool = False, default: bool | None = None
) -> fields.Field[Any]:
    """true or false."""
    return StrictBoolean(**_common(description, required, default))


def items(
    description: str,
    *,
    required: bool = False,
    default: list[Any] | None = None,
    max_items: int = 100,
    item: fields.Field[Any] | None = None,
    at_least_one: str | None = None,
    not_a_list: str = "must be a list",
    check: Callable[[list[Any]], None] | None = None,
) -> fields.Field[Any]:
    """A JSON list of at most ``max_items`` (each an ``item``, default any JSON value);
    ``at_least_one`` is the message for an empty list, if one must not be empty. An item's errors
    are named ``name[n]``."""
    checks: list[Callable[[Any], Any]] = [
        validate.Length(max=max_items, error=f"must have at most {max_items} items")
    ]
    if at_least_one is not None:
        checks.append(validate.Length(min=1, error=at_least_one))
    if check is not None:
        checks.append(check)
    options = _common(description, required, default)
    field = fields.List(item or fields.Raw(), validate=checks, **options)
    field.error_messages["invalid"] = not_a_list
    return field


def nested(
    description: str,
    schema: type[Schema],
    *,
    required: bool = False,
    default: dict[str, Any] | None = None,
) -> fields.Field[Any]:
    """An object with its own schema (its fields are named ``name.field`` in errors)."""
    return fields.Nested(schema, **_common(description, required, default))


def item_of(schema: type[Schema]) -> fields.Field[Any]:
    """A list's item: an object with its own schema."""
    return fields.Nested(schema, error_messages=REQUIRED)


def mapping(
    description: str,
    *,
    required: bool = False,
    default: dict[str, Any] | None = None,
    keys: fields.Field[Any] | None = None,
    values: fields.Field[Any] | None = None,
) -> fields.Field[Any]:
    """A JSON object of any keys (each a ``keys``, if given) and values (each a ``values``)."""
    field = fields.Dict(keys=keys, values=values, **_common(description, required, default))
    field.error_messages["invalid"] = "must be an object"
    return field


def compartment(description: str) -> fields.Field[Any]:
    """A ship compartment 1..6, as an integer or a string."""
    numbers = [str(n) for n in range(1, 7)]

    def check(value: Any) -> str | None:
        if isinstance(value, int) and not isinstance(value, bool):
            return None if 1 <= value <= 6 else "must be from 1 to 6"
        if isinstance(value, str):
            return None if value in numbers else f"must be one of {', '.join(numbers)}"
        return "must be an integer from 1 to 6"

    shapes = [{"type": "integer", "minimum": 1, "maximum": 6}, {"type": "string", "enum": numbers}]
    options = _common(description, True, None)
    options["metadata"]["oneOf"] = shapes
    return OneOfShapes(check, **options)


def picks(
    field: fields.Field[Any],
    source: str,
    *,
    value: str | None = None,
    label: str | None = None,
    where: Mapping[str, Any] | None = None,
    free: bool = False,
) -> fields.Field[Any]:
    """Mark ``field`` as picked from the campaign state, so that a client offers the entries at
    ``source`` instead of asking for a typed id (``GET /commands`` lists it as ``picks``).

    ``source`` is a JSON pointer into the state; ``{name}`` stands for the value of the command's
    field ``name`` (such as ``{player}``) and ``*`` for every member of an object or list. The
    entries found there are a list or an object's values; ``value`` is the member sent (default:
    an entry's ``id``, else its key in an object, else the entry itself; ``@key`` is its key in an
    object) and ``label`` the member shown beside it (dotted for a nested one). ``where`` keeps
    the entries whose members have those values; ``free`` says the rules also accept a value the
    state does not hold.
    """
    hint: dict[str, Any] = {"source": source}
    if value is not None:
        hint["value"] = value
    if label is not None:
        hint["label"] = label
    if where:
        hint["where"] = dict(where)
    if free:
        hint["free"] = True
    field.metadata = {**field.metadata, "picks": hint}
    return field


def required_when(field: fields.Field[Any], **values: Any) -> fields.Field[Any]:
    """Mark an optional ``field`` as needed when the command's other fields have ``values`` (a
    check of the command enforces it; ``GET /commands`` lists it as ``required_when``)."""
    field.metadata = {**field.metadata, "required_when": values}
    return field


class IdOrObject(fields.Raw):
    """An id (a string) or an object that ``nested_schema`` loads."""

    def __init__(self, nested_schema: type[Schema] | None, max_length: int, **kwargs: Any):
        super().__init__(**kwargs)
        self.nested_schema = nested_schema
        self.max_length = max_length

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            if len(value) > self.max_length:
                raise ValidationError(f"must be at most {self.max_length} characters")
            return value
        if not isinstance(value, dict):
            raise ValidationError("must be a string or an object")
        if self.nested_schema is None:
            return value
        return self.nested_schema().load(value)


def id_or_object(
    description: str,
    schema: type[Schema] | None = None,
    *,
    required: bool = True,
    max_length: int = 80,
) -> fields.Field[Any]:
    """An id (a string) or a full definition (an object, of ``schema`` if given: the OpenAPI
    document then has it as a component of that name)."""
    shapes: list[dict[str, Any]] = [{"type": "string", "maxLength": max_length}]
    if schema is None:
        shapes.append({"type": "object"})
    else:
        shapes.append({"$ref": f"#/components/schemas/{schema.__name__}"})
    options = _common(description, required, None)
    options["metadata"]["oneOf"] = shapes
    return IdOrObject(schema, max_length, **options)


class Strict(Schema):
    """A schema that refuses unknown keys and gives every declared field a value once loaded:
    its default, or ``None`` when it has none (null counts as left out)."""

    error_messages = {"unknown": "unknown field for this command", "type": "must be an object"}

    @pre_load
    def null_is_left_out(self, data: Any, **_: Any) -> Any:
        """A declared field sent as null is dropped before it loads, so that the checks of the
        fields together see its default (``"ammo": null`` is ammo 0), as the handler will."""
        if not isinstance(data, Mapping):
            return data
        declared = {field.data_key or name for name, field in self.fields.items()}
        return {
            key: value for key, value in data.items() if value is not None or key not in declared
        }

    @post_load
    def fill(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """Every field present: a fresh copy of its default where it was left out or null."""
        for name, field in self.fields.items():
            key = field.attribute or name
            default = None if field.load_default is missing else field.load_default
            if data.get(key) is None or data[key] is default:
                value = deepcopy(default)
                if isinstance(field, fields.Nested) and isinstance(value, dict):
                    value = field.schema.load(value)  # a default object gets its own defaults
                data[key] = value
        return data


class CommandSchema(Strict):
    """What every command accepts besides its own fields: ``type``, hand-rolled ``faces`` and the
    player's ``entropy`` for server dice."""

    faces = fields.List(
        fields.Raw(
            metadata={
                "description": "A die's face; a d100 may be given as its tens and units dice.",
                "oneOf": [
                    {"type": "integer"},
                    {
                        "type": "object",
                        "properties": {
                            "tens": {
                                "type": "integer",
                                "minimum": 0,
                                "maximum": 90,
                                "multipleOf": 10,
                            },
                            "units": {"type": "integer", "minimum": 0, "maximum": 9},
                        },
                        "required": ["tens", "units"],
                        "additionalProperties": False,
                    },
                ],
            }
        ),
        allow_none=True,
        error_messages={"invalid": "must be a list of faces"},
        metadata={
            "description": "Hand-rolled faces for this command's dice, in draw order (see `dice`)."
        },
    )
    entropy = fields.String(
        allow_none=True,
        validate=validate.Regexp(
            r"^[A-Za-z0-9_-]{1,64}$",
            error="must be 1 to 64 characters, each a letter, a digit, '_' or '-'",
        ),
        metadata={
            "description": "The player's entropy for this command's server dice: 1 to 64 "
            "characters from [A-Za-z0-9_-], chosen at the moment of rolling, mixed into every "
            "server roll it draws so that not even the host can foresee them "
            "(docs/dice-verification.md). Not with `faces`."
        },
    )


@dataclass(frozen=True)
class Command:
    """One game command's contract: its request schema and the dice it may draw, in draw order
    (``None``: it draws no dice and uses no ``faces``)."""

    game: str
    name: str
    schema: type[Schema]
    dice: str | None

    @property
    def component(self) -> str:
        """The schema's name in the OpenAPI document."""
        return "".join(part.title() for part in self.name.split("_")) + "Command"


Check = Callable[[dict[str, Any]], None]
"""A check of a command's fields together (raises ``ValidationError`` naming the field)."""


def command(
    game: str,
    name: str,
    dice: str | None,
    *,
    checks: Iterable[Check] = (),
    **own: fields.Field[Any],
) -> Command:
    """Declare a command's schema: ``type`` (this command's name), ``faces``, its own fields and
    the ``checks`` of its fields together (run once every field is valid)."""
    kind = fields.String(
        required=True,
        validate=validate.OneOf([name]),
        error_messages=REQUIRED,
        metadata={"description": "The command."},
    )
    together = tuple(checks)

    def whole(self: Schema, data: dict[str, Any], **_: Any) -> None:
        for check in together:
            check(data)

    schema = type(
        "".join(part.title() for part in name.split("_")) + "Command",
        (CommandSchema,),
        {
            "__doc__": f"The body of a {name} command.",
            "type": kind,
            "whole_command": validates_schema(whole),
            **own,
        },
    )
    return Command(game, name, schema, dice)


def load(schema: Schema, raw: object, name: str = "command") -> dict[str, Any]:
    """The values of ``raw`` as ``schema`` loads them, or ``InvalidInput`` naming each field that
    is wrong (a nested one by its path).

    Text anywhere in the body, keys included, must be valid Unicode first: JSON can carry a lone
    surrogate ("\\ud800") that no field type refuses but that the hash chain, the store and every
    reader would fail on, whether the schema declares the field or keeps it as raw JSON.
    """
    if not isinstance(raw, Mapping):
        raise InvalidInput.field(name, "must be a JSON object")
    body = dict(raw)
    not_text = not_unicode(body)
    if not_text:
        raise InvalidInput.of(not_text)
    try:
        loaded: dict[str, Any] = schema.load(body)
    except ValidationError as error:
        raise InvalidInput.of(flatten(schema, error.messages)) from None
    return loaded


def flatten(schema: Schema | None, messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """Marshmallow's nested messages as one level: ``players[1].pieces[0].facing`` -> messages.

    A list's items are named ``name[n]``, everywhere; an object's values (a ``fields.Dict``)
    ``name.key``.
    """
    if not isinstance(messages, dict):
        return {prefix or "_schema": [str(m) for m in messages]}
    flat: dict[str, list[str]] = {}
    by_key = {f.data_key or n: f for n, f in schema.fields.items()} if schema else {}
    for key, value in messages.items():
        if key == "_schema":
            name = prefix or "_schema"
        else:
            name = f"{prefix}.{key}" if prefix else str(key)
        flat.update(_flatten_field(by_key.get(str(key)), value, name))
    return flat


def _flatten_field(field: fields.Field[Any] | None, messages: Any, name: str) -> Any:
    """One field's messages, flattened under ``name``."""
    if not isinstance(messages, dict):
        return {name: [str(m) for m in messages]}
    flat: dict[str, list[str]] = {}
    if isinstance(field, fields.List):
        for index, inner in messages.items():
            flat.update(_flatten_field(field.inner, inner, f"{name}[{index}]"))
    elif isinstance(field, fields.Dict):
        for key, inner in messages.items():
            if isinstance(inner, dict) and set(inner) <= {"key", "value"}:
                # A wrong key is the mapping's error; a wrong value is named by its key.
                flat.update(_flatten_field(None, inner.get("key", []), name))
                found = inner.get("value", [])
                flat.update(_flatten_field(field.value_field, found, f"{name}.{key}"))
            else:
                flat.update(_flatten_field(None, inner, f"{name}.{key}"))
    else:
        flat.update(flatten(_schema_of(field), messages, name))
    return {path: found for path, found in flat.items() if found}


def _schema_of(field: fields.Field[Any] | None) -> Schema | None:
    """The schema a nested field loads with, if it is one."""
    if isinstance(field, fields.Nested):
        return field.schema
    if isinstance(field, IdOrObject) and field.nested_schema is not None:
        return field.nested_schema()
    return None
