"""Schemas of the table page's share links."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from webapi.schemas.fields import Text


class ShareCreate(Schema):
    """A share link's request: an optional name for its viewer token."""

    name = Text(
        blank=False,
        validate=validate.Length(1, 200),
        metadata={"description": "The share token's name (default: share-<campaign>-<id>)."},
    )


class ShareCreated(Schema):
    """A share link: its viewer token (shown once) and the page's address with it."""

    token = fields.String(metadata={"description": "The secret: shown this once, never again."})
    token_id = fields.String()
    role = fields.String(metadata={"description": "Always viewer: the link reads, never writes."})
    campaign_id = fields.String()
    url = fields.String(metadata={"description": "The table page's link, the token after #."})
