"""Schemas of the operator routes: health, readiness and how far the views lag."""

from __future__ import annotations

from marshmallow import Schema, fields


class Health(Schema):
    """The process is alive."""

    status = fields.String(metadata={"example": "ok"})


class ViewLag(Schema):
    """A view and how many events it is behind the log's head."""

    name = fields.String()
    lag = fields.Integer()


class Readiness(Schema):
    """The store answered and every view is within the lag bound."""

    status = fields.String(metadata={"example": "ready"})
    head = fields.Integer(metadata={"description": "The log's last notification id."})
    max_lag = fields.Integer(metadata={"description": "The bound (QUESTLOG_READY_MAX_LAG)."})
    views = fields.List(fields.Nested(ViewLag), metadata={"description": "Each view's lag."})
