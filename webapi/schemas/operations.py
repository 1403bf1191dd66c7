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


class LogConflict(Schema):
    """An event the store holds with another hash than the host's Merkle log has for it."""

    campaign_id = fields.String()
    version = fields.Integer()


class Readiness(Schema):
    """The store answered and every view is within the lag bound."""

    status = fields.String(metadata={"example": "ready"})
    head = fields.Integer(metadata={"description": "The log's last notification id."})
    max_lag = fields.Integer(metadata={"description": "The bound (QUESTLOG_READY_MAX_LAG)."})
    views = fields.List(fields.Nested(ViewLag), metadata={"description": "Each view's lag."})
    log_conflicts = fields.List(
        fields.Nested(LogConflict),
        metadata={
            "description": "The events rewritten under the host's Merkle log: each is in the "
            "log with another hash than the store's now, and is not appended again (empty "
            "when the store and its log agree; the server's log names each as an error)."
        },
    )
