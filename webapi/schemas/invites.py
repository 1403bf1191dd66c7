"""Schemas of the invitation routes."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from webapi.schemas.fields import Text

INVITED_ROLES = ("player", "viewer", "auditor")
"""The roles an invitation gives (an owner is made with POST /members, for a token one has)."""


class InviteCreate(Schema):
    """An invitation: the role it gives, the seat (a match's player) and a name for its token."""

    role = Text(required=True, validate=validate.OneOf(INVITED_ROLES))
    seat = Text(
        validate=validate.Length(1, 80),
        metadata={
            "description": "The player id the token acts for: required for a player in a "
            "calendar-board match (one of its players), and only then."
        },
    )
    name = Text(
        blank=False,
        validate=validate.Length(1, 200),
        metadata={
            "description": "The token's name (default: what it is for, such as seat B, viewer "
            "or auditor; seat B (2) if taken)."
        },
    )


class InviteCreated(Schema):
    """An invitation: its token (the secret shown once) and the page's link that seats it."""

    token_id = fields.String()
    name = fields.String()
    role = fields.String()
    seat = fields.String(allow_none=True)
    token = fields.String(metadata={"description": "The secret: shown this once, never again."})
    url = fields.String(metadata={"description": "The table page's link, the token after #."})


class MemberRemoved(Schema):
    """The membership taken away, and whether its token was revoked with it."""

    token_id = fields.String()
    role = fields.String()
    seat = fields.String(allow_none=True)
    revoked = fields.Boolean(
        metadata={"description": "True for a token the server made for this campaign only."}
    )
