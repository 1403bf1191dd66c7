"""The building blocks of the command schemas: fields that check what ``domain.engine.Args``
checks, with the same messages, and a base schema that every command schema extends.

A command schema validates a request body before any rule runs; the domain still checks its
``Args`` as a second line (an example of each command passes both, see the tests).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

REQUIRED = {"required": "is required", "null": "is required"}
"""A required field missing or null, in the domain's words (``Args`` treats null as missing)."""


class StrictInteger(fields.Integer):
    """An integer, never a boolean or a float (as ``Args.integer`` reads it)."""

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
) -> fields.Field:
    """A string (``Args.text``) of at most ``max_length`` characters, maybe one of ``choices``."""
    checks: list[validate.Validator] = [
        validate.Length(max=max_length, error=f"must be at most {max_length} characters")
    ]
    if choices is not None:
        allowed = list(choices)
        checks.append(validate.OneOf(allowed, error=f"must be one of {', '.join(allowed)}"))
    field = fields.String(validate=checks, **_common(description, required, default))
    field.error_messages["invalid"] = "must be a string"
    return field


def integer(
    description: str,
    *,
    required: bool = False,
    default: int | None = None,
    minimum: int | None = None,
    maximum: int | None = None,
) -> fields.Field:
    """An integer (``Args.integer``) within bounds."""
    return StrictInteger(
        validate=_range(minimum, maximum), **_common(description, required, default)
    )


def flag(description: str, *, required: bool = False, default: bool | None = None) -> fields.Field:
    """true or false (``Args.flag``)."""
    return StrictBoolean(**_common(description, required, default))


def items(
    description: str,
    *,
    required: bool = False,
    default: list[Any] | None = None,
    max_items: int = 100,
    item: fields.Field | None = None,
) -> fields.Field:
    """A JSON list (``Args.items``) of at most ``max_items``; the domain checks each item."""
    field = fields.List(
        item or fields.Raw(),
        validate=validate.Length(max=max_items, error=f"must have at most {max_items} items"),
        **_common(description, required, default),
    )
    field.error_messages["invalid"] = "must be a list"
    return field


def mapping(
    description: str, *, required: bool = False, default: dict[str, Any] | None = None
) -> fields.Field:
    """A JSON object (``Args.mapping``); the domain checks what is inside."""
    field = fields.Dict(**_common(description, required, default))
    field.error_messages["invalid"] = "must be an object"
    return field


def compartment(description: str) -> fields.Field:
    """A ship compartment 1..6, as an integer or a string (``read_compartment``)."""
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


def id_or_object(description: str, *, max_length: int = 80) -> fields.Field:
    """An id (a string) or a full definition (an object)."""

    def check(value: Any) -> str | None:
        if isinstance(value, dict):
            return None
        if isinstance(value, str):
            return None if len(value) <= max_length else f"must be at most {max_length} characters"
        return "must be a string or an object"

    shapes = [{"type": "string", "maxLength": max_length}, {"type": "object"}]
    options = _common(description, True, None)
    options["metadata"]["oneOf"] = shapes
    return OneOfShapes(check, **options)


class CommandSchema(Schema):
    """What every command accepts besides its own fields: ``type`` and hand-rolled ``faces``."""

    error_messages = {"unknown": "unknown field for this command"}

    faces = fields.List(
        fields.Raw(),
        allow_none=True,
        error_messages={"invalid": "must be a list of faces"},
        metadata={
            "description": "Hand-rolled faces for this command's dice, in draw order (see `dice`)."
        },
    )
