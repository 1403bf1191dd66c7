"""The query of the live stream route."""

from __future__ import annotations

from marshmallow import Schema, fields, validate


class StreamQuery(Schema):
    after = fields.Integer(
        validate=validate.Range(0, None),
        metadata={"description": "Send the events after this version first (as Last-Event-ID)."},
    )
