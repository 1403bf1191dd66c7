"""Schemas of the access routes: API tokens, campaign members and the caller's standing."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import Schema, fields, validate

from domain.facade import ROLES, TOKEN_ROLES
from webapi.schemas.fields import Flag, Text


class TokenCreate(Schema):
    """A new API token: its name and whether it is an admin."""

    name = Text(required=True, blank=False, validate=validate.Length(1, 200))
    admin = Flag(load_default=False)
    role = Text(
        validate=validate.OneOf(TOKEN_ROLES),
        metadata={
            "description": "A role across every campaign: admin (as admin: true) or analyst "
            "(reads every campaign and the analytics, nothing else)."
        },
    )


class TokenInfo(Schema):
    """An API token as listed (never its secret)."""

    id = fields.String()
    name = fields.String()
    admin = fields.Boolean()
    analyst = fields.Boolean(
        metadata={"description": "An analyst token: reads every campaign and the analytics."}
    )
    revoked = fields.Boolean()


class TokenCreated(TokenInfo):
    """A new API token, with its secret (shown only once)."""

    token = fields.String(metadata={"description": "The secret: shown this once, never again."})


class TokenList(Schema):
    """The API tokens."""

    items = fields.List(fields.Nested(TokenInfo))


class MemberCreate(Schema):
    """A new member of a campaign: a token (by token_name or by token_id, exactly one of the
    two), its role and, in a match, its seat."""

    refused_shapes: ClassVar[tuple[dict[str, Any], ...]] = (
        {"required": ["token_name", "token_id"]},
        {"not": {"anyOf": [{"required": ["token_name"]}, {"required": ["token_id"]}]}},
    )
    """What the document states of the two: one of them, not both and not neither."""

    token_name = Text(
        validate=validate.Length(1, 200),
        metadata={"description": "The token's name; or give token_id instead, not both."},
    )
    token_id = Text(
        validate=validate.Length(1, 200),
        metadata={"description": "The token's id; or give token_name instead, not both."},
    )
    role = Text(required=True, validate=validate.OneOf(ROLES))
    seat = Text(
        validate=validate.Length(1, 80),
        metadata={"description": "The player id a player acts for (a calendar-board seat)."},
    )


class Member(Schema):
    """A campaign member: a token, its role and, in a match, its seat."""

    token_id = fields.String()
    role = fields.String()
    seat = fields.String(allow_none=True)
    name = fields.String(allow_none=True, metadata={"description": "The token's name."})


class MemberList(Schema):
    """The members of a campaign."""

    items = fields.List(fields.Nested(Member))


class Me(Schema):
    """The caller on a campaign: its token, its role and seat, and what that role allows (the
    same table access control uses, so the answer never disagrees with a refusal)."""

    token_id = fields.String(allow_none=True, metadata={"description": "None when auth is off."})
    name = fields.String(allow_none=True, metadata={"description": "None when auth is off."})
    admin = fields.Boolean(metadata={"description": "An admin token (or auth off) may do all."})
    role = fields.String(
        validate=validate.OneOf(("admin", "analyst", "public", *ROLES)),
        metadata={
            "description": "admin, analyst (an analyst token), a role the caller holds, or "
            "public (a public campaign)."
        },
    )
    seat = fields.String(
        allow_none=True, metadata={"description": "The player id a player acts for, if any."}
    )
    can_append = fields.Boolean()
    can_manage = fields.Boolean()
    can_propose = fields.Boolean()
    can_approve = fields.Boolean()
