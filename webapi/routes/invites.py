"""Invitations: the owner has the server make a token for one campaign, with a role and a seat,
and takes a membership away again (revoking a token the server made for that campaign)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from domain.model.errors import InvalidInput
from webapi.http import access
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.api import Text

blp = Blueprint("invites", __name__, description="Invitations and removing members (owner).")

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


def invited_seat(game: str, state: dict[str, Any], role: str, seat: str | None) -> str | None:
    """The seat an invitation binds: a match's player for its player role, else none (422)."""
    if game == "calendar-board" and role == "player":
        players = list(state.get("players") or [])
        if seat is None:
            raise InvalidInput.field("seat", f"a player's seat is required: one of {players}")
        if seat not in players:
            raise InvalidInput.field("seat", f"must be one of this match's players: {players}")
        return seat
    if seat is not None:
        raise InvalidInput.field("seat", "only a player in a calendar-board match has a seat")
    return None


@blp.route("/campaigns/<campaign>/invites")
class Invites(MethodView):
    @blp.arguments(InviteCreate, example={"role": "player", "seat": "B", "name": "Bea"})
    @blp.response(201, InviteCreated)
    @access.requires("manage")
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Invite someone: a new token with this role (and seat) on this campaign only (owner)."""
        app = questlog()
        cid = campaign_id(campaign)
        found = app.campaign(cid)
        role = body["role"]
        seat = invited_seat(found.game, found.state, role, body.get("seat"))
        token, secret = app.invite(cid, role, seat=seat, name=body.get("name"))
        return {
            "token_id": token.id,
            "name": token.name,
            "role": role,
            "seat": seat,
            "token": secret,
            "url": f"/app/campaigns/{cid}#token={secret}",
        }


@blp.route("/campaigns/<campaign>/members/<token_id>")
class MemberResource(MethodView):
    @blp.response(200, MemberRemoved)
    @access.requires("manage")
    def delete(self, campaign: str, token_id: str) -> Any:
        """Take a member's role away (owner); a token made by this campaign's invitation or
        share link is revoked too. The last owner stays (409)."""
        app = questlog()
        cid = campaign_id(campaign)
        app.campaign(cid)
        member, revoked = app.remove_member(cid, token_id)
        return {
            "token_id": member.token_id,
            "role": member.role,
            "seat": member.seat,
            "revoked": revoked,
        }
