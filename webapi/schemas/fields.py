"""Fields and constants the request and response schemas share: text, flags, instants, versions."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from domain.facade import Text as Text  # the one text rule, re-exported for the schemas

MAX_POSITION = 2**62


ISO_EXAMPLE = "2026-11-30T15:47:17Z"


CHECKPOINT_DESCRIPTION = (
    "A signed checkpoint of this answer's version and head hash: a C2SP signed note "
    "(docs/trust.md). Keep it: it proves what the log said, to anyone with the verifier key."
)


def checkpoint_field(description: str = CHECKPOINT_DESCRIPTION) -> fields.String:
    """The ``checkpoint`` of an appending answer."""
    return fields.String(metadata={"description": description})


class Timestamp(fields.Field[Any]):
    """An ISO-8601 timestamp; without an offset it is UTC.

    In a query string an unescaped ``+`` arrives as a space, so a space before a trailing offset
    is read as ``+`` again (``?at=2026-11-30T15:47:17+01:00`` works as typed). The document
    says it as a date-time string (which the server takes, and a date or a time without an
    offset besides).
    """

    def __init__(self, **kwargs: Any) -> None:
        metadata = {"type": "string", "format": "date-time", "maxLength": 64}
        metadata.update(kwargs.pop("metadata", None) or {})
        super().__init__(metadata=metadata, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> datetime:
        if not isinstance(value, str) or len(value) > 64:
            raise ValidationError(f"must be an ISO-8601 timestamp, such as {ISO_EXAMPLE}")
        text = re.sub(
            r"(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?) (\d{2}:?\d{2})$", r"\1+\2", value.strip()
        )
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValidationError(f"must be an ISO-8601 timestamp, such as {ISO_EXAMPLE}") from None
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Flag(fields.Boolean):
    """A JSON body's true or false, nothing else (not 0, 1, 0.0 or "true"); a query string's
    flags stay ``fields.Boolean``, since a query string is text."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def version(**kwargs: Any) -> fields.Integer:
    """A version in a JSON body: a JSON integer (not 1.5, 1.0, "1" or true) from 1 up."""
    return fields.Integer(
        strict=True, required=True, validate=validate.Range(min=1, max=MAX_POSITION), **kwargs
    )


class LogPage(Schema):
    """The cursor of a page of the log's own lists (campaigns, events, rolls)."""

    next = fields.Integer(
        allow_none=True,
        metadata={"description": "Pass as ?after= for the next page; null on the last page."},
    )
    next_after = fields.Integer(
        allow_none=True,
        metadata={"description": "The same as next (its earlier name, kept for old clients)."},
    )
