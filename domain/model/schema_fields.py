"""The marshmallow fields game commands are declared with: strict integers and booleans, text that
refuses control characters and broken Unicode, and the builders (``text``, ``integer``, ``items``,
``nested``, ``picks``, ``id_or_object``...) that give every field its description, bounds and
error messages (``domain.model.command_schema`` makes commands of them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from marshmallow import (
    Schema,
    ValidationError,
    fields,
    validate,
)

from domain.model.text import NOT_UNICODE, has_control_characters, is_unicode

REQUIRED: dict[str, str | list[Any] | dict[Any, Any]] = {
    "required": "is required",
    "null": "is required",
}
"""A required field missing or null: null counts as left out."""


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


TEXT_PATTERN = r"^[^\u0000-\u001f\u007f-\u009f]*$"
"""The document's pattern of a ``Text``: no control character (Unicode Cc)."""
FREE_TEXT_PATTERN = r"^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$"
"""The document's pattern of free text: no control character but tab, line feed and CR."""
_CONTROL = r"\u0000-\u001f\u007f-\u009f"
_SPACE = r"\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""The white space ``str.strip`` removes that is no control character."""
NOT_BLANK_PATTERN = rf"^[^{_CONTROL}]*[^{_CONTROL}{_SPACE}][^{_CONTROL}]*$"
"""The pattern of a ``Text`` that must not be blank: besides, one character not white space."""
FREE_NOT_BLANK_PATTERN = (
    r"^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*"
    rf"[^{_CONTROL}{_SPACE}][^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$"
)
"""The pattern of free text that must not be blank (tabs and line breaks are white space)."""


class Text(fields.String):
    """The one rule for text the API takes, in game commands and on every other route: no control
    character (Unicode Cc), and valid Unicode (JSON can escape a lone surrogate, "\\ud800", that
    no hash, store or page can take). ``free_text`` (a purpose, a reason, a note) may hold tabs
    and line breaks; NUL never (PostgreSQL text cannot hold it).

    The document states the rule as a ``pattern``; a lone surrogate is no Unicode text at all
    (RFC 8259 8.2), which the document's introduction says once for every string. ``blank=False``
    refuses text that is empty or white space alone ("must not be empty", as the domain's
    ``check_text`` does), and its pattern says so."""

    def __init__(self, *, free_text: bool = False, blank: bool = True, **kwargs: Any) -> None:
        metadata = dict(kwargs.pop("metadata", None) or {})
        validators = kwargs.get("validate")
        listed = validators if isinstance(validators, list | tuple) else [validators]
        if not any(isinstance(v, validate.Regexp) for v in listed):
            # a field's own regular expression, stricter, is its pattern instead
            metadata.setdefault("pattern", text_pattern(free_text=free_text, blank=blank))
        super().__init__(metadata=metadata, **kwargs)
        self.free_text = free_text
        self.blank = blank

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        text: str = super()._deserialize(value, attr, data, **kwargs)
        if not is_unicode(text):
            raise ValidationError(NOT_UNICODE)
        if has_control_characters(text, free_text=self.free_text):
            allowed = " other than tab, line feed and carriage return" if self.free_text else ""
            raise ValidationError(f"must not contain control characters{allowed}")
        if not self.blank and not text.strip():
            raise ValidationError("must not be empty")
        return text


def text_pattern(*, free_text: bool, blank: bool) -> str:
    """The document's pattern of a ``Text``: no control character (but tab and line breaks in
    free text) and, unless it may be blank, one character that is not white space."""
    if blank:
        return FREE_TEXT_PATTERN if free_text else TEXT_PATTERN
    return FREE_NOT_BLANK_PATTERN if free_text else NOT_BLANK_PATTERN


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
    pattern: str | None = None,
) -> fields.Field[Any]:
    """A string of at most ``max_length`` characters, maybe one of ``choices``; ``free_text``
    may hold tabs and line breaks. ``pattern`` is the document's pattern for a string a check
    of the command reads (dice notation, a date), in place of the text rule's: it must refuse
    whatever the text rule refuses."""
    checks: list[validate.Validator] = [
        validate.Length(max=max_length, error=f"must be at most {max_length} characters")
    ]
    if choices is not None:
        allowed = list(choices)
        checks.append(validate.OneOf(allowed, error=f"must be one of {', '.join(allowed)}"))
    field = Text(validate=checks, free_text=free_text, **_common(description, required, default))
    field.error_messages["invalid"] = "must be a string"
    if pattern is not None:
        field.metadata = {**field.metadata, "pattern": pattern}
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
    check: Callable[[list[Any]], Any] | None = None,
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
