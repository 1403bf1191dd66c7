"""The command schemas: part of the domain's contract, checked before any rule runs.

Every game command has a schema (``command``), declared where its handler is registered
(``GameRules.command(schema=takes(...))``, named there by the engine). A game runs a command only
once its body loads through that schema (``load``): a missing, unknown or mistyped field is
``InvalidInput`` naming it (a nested one by its path: ``players[1].facing``), and nothing is
stored. The handler then receives the loaded values, every declared field present
(``None`` when left out without a default). The API publishes the same schemas in its OpenAPI
document and in ``GET /commands``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from copy import deepcopy
from dataclasses import dataclass
from typing import Any, ClassVar

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
from domain.model.schema_fields import REQUIRED, IdOrObject
from domain.model.text import not_unicode

Values = Mapping[str, Any]
"""A command's loaded values, as a handler receives them: every field of its schema present."""


Document = dict[str, Any]
"""JSON Schema that a schema's checks of its fields together add to its OpenAPI component (an
``allOf`` entry each: ``not``, ``anyOf``), or that a field's own entry adds to (``properties``)."""


FACE_DOCUMENT: dict[str, Any] = {
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
"""How the document shows one hand-rolled face, in a command and in a free roll alike."""


class Strict(Schema):
    """A schema that refuses unknown keys and gives every declared field a value once loaded:
    its default, or ``None`` when it has none (null counts as left out).

    ``document``: what its checks of fields together refuse, as JSON Schema for the OpenAPI
    document (see ``Document``)."""

    error_messages = {"unknown": "unknown field for this command", "type": "must be an object"}
    document: ClassVar[Document] = {}

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
        fields.Raw(metadata=FACE_DOCUMENT),
        allow_none=True,
        error_messages={"invalid": "must be a list of faces"},
        metadata={
            "description": "Hand-rolled faces for this command's dice, in draw order (see "
            "`dice`): how many, and which dice they are, depends on the campaign's state, and "
            "each face must fit its die."
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


FACES_OR_ENTROPY: Document = {
    "not": {
        "required": ["faces", "entropy"],
        "properties": {"faces": {"type": "array"}, "entropy": {"type": "string"}},
    }
}
"""Hand-rolled faces and the player's entropy never come together (either may be null)."""
NO_FACES: Document = {"properties": {"faces": {"maxItems": 0}}}
"""A command that draws no dice takes no faces."""


def given(name: str, kind: str) -> Document:
    """JSON Schema for: the field ``name`` is given, not null (a value of type ``kind``)."""
    return {"required": [name], "properties": {name: {"type": kind}}}


def exactly_one(first: Document, second: Document) -> Document:
    """JSON Schema for: exactly one of these holds, as the shapes a body must not have (both,
    or neither): client generators build their models from the properties and leave a ``not``
    to the server, where a union would change the model."""
    both = {"allOf": [first, second]}
    neither = {"allOf": [{"not": first}, {"not": second}]}
    return {"not": {"anyOf": [both, neither]}}


@dataclass(frozen=True)
class Command:
    """One game command's contract: its request schema, the dice it may draw, in draw order
    (``None``: it draws no dice and uses no ``faces``), and what its checks of fields together
    refuse as the OpenAPI document states it (``document``)."""

    game: str
    name: str
    schema: type[Schema]
    dice: str | None
    document: tuple[Document, ...] = ()

    @property
    def component(self) -> str:
        """The schema's name in the OpenAPI document."""
        return "".join(part.title() for part in self.name.split("_")) + "Command"

    @property
    def takes_no_faces(self) -> bool:
        """Whether the command never draws dice, and so takes no ``faces`` (the document says
        ``maxItems: 0``): a Quest Calendar command that declares none. A Calendar Board command
        may move the night on (``night.advance``), which rolls the next step's dice with the
        faces sent."""
        return self.dice is None and self.game != "calendar-board"


Check = Callable[[dict[str, Any]], None]
"""A check of a command's fields together (raises ``ValidationError`` naming the field)."""


def command(
    game: str,
    name: str,
    dice: str | None,
    *,
    checks: Iterable[Check] = (),
    document: Iterable[Document] = (),
    **own: fields.Field[Any],
) -> Command:
    """Declare a command's schema: ``type`` (this command's name), ``faces``, its own fields and
    the ``checks`` of its fields together (run once every field is valid), with ``document``
    saying in JSON Schema what those checks refuse, where it can."""
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
    bare = Command(game, name, schema, dice)
    stated = (FACES_OR_ENTROPY, *((NO_FACES,) if bare.takes_no_faces else ()), *document)
    return Command(game, name, schema, dice, stated)


@dataclass(frozen=True)
class Takes:
    """What a command takes, declared beside its handler (``GameRules.command(schema=...)``):
    the dice it may draw, in draw order, its own fields, the checks of its fields together and
    what those checks refuse in JSON Schema. The engine names it when it registers the command."""

    dice: str | None
    own: Mapping[str, fields.Field[Any]]
    checks: tuple[Check, ...] = ()
    document: tuple[Document, ...] = ()

    def named(self, game: str, name: str) -> Command:
        """The command's contract under its game and name."""
        return command(
            game, name, self.dice, checks=self.checks, document=self.document, **self.own
        )


def takes(
    dice: str | None,
    *,
    checks: Iterable[Check] = (),
    document: Iterable[Document] = (),
    **own: fields.Field[Any],
) -> Takes:
    """A command's schema as its handler declares it: ``dice`` (``None``: it draws none), its
    own fields and the ``checks`` of its fields together, with ``document`` saying in JSON
    Schema what those checks refuse (see ``command``)."""
    return Takes(dice, own, tuple(checks), tuple(document))


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
