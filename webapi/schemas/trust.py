"""Schemas of the trust routes: the verifier keys and a signed checkpoint of a head."""

from __future__ import annotations

from marshmallow import Schema, fields

from webapi.schemas.fields import CHECKPOINT_DESCRIPTION


class ListedKey(Schema):
    """A verifier key of the service, with the dates it signed between."""

    key = fields.String(
        metadata={"description": "The verifier key: <name>+<8 hex key hash>+<base64 key>."}
    )
    created = fields.String(metadata={"description": "When the key was made (UTC)."})
    retired = fields.String(
        allow_none=True,
        metadata={"description": "When a rotation retired it (UTC); null for the current key."},
    )


class ServiceKeys(Schema):
    """The log's name and its verifier keys: the current one and every one before it."""

    log_name = fields.String(
        metadata={"description": "The log's name: each checkpoint's first line starts with it."}
    )
    key = fields.String(metadata={"description": "The current verifier key (signs from now on)."})
    keys = fields.List(
        fields.Nested(ListedKey), metadata={"description": "Every key, oldest first."}
    )


class HeadCheckpoint(Schema):
    """A signed checkpoint of a campaign's head."""

    campaign_id = fields.UUID()
    version = fields.Integer()
    head_hash = fields.String()
    checkpoint = fields.String(metadata={"description": CHECKPOINT_DESCRIPTION})
