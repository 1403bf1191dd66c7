"""Invitations: the owner has the server make a token for one campaign, with a role and a seat,
and takes a membership away again (revoking a token the server made for that campaign)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import InvalidInput, NotHeld
from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.invites import InviteCreate, InviteCreated, MemberRemoved

blp = Blueprint("invites", __name__, description="Invitations and removing members (owner).")


def invited_seat(game: str, state: dict[str, Any], role: str, seat: str | None) -> str | None:
    """The seat an invitation binds: a match's player for its player role, else none.

    Whether there are seats at all is the campaign's game, the campaign's state: a seat on a
    game without seats, or a player of a match without one, is a 409 not-held naming ``seat``.
    A seat for another role than player is the body's own mistake (422)."""
    if game != "calendar-board":
        if seat is not None:
            raise NotHeld(
                "seat", f"only a player in a calendar-board match has a seat: {game} has none"
            )
        return None
    if role != "player":
        if seat is not None:
            raise InvalidInput.field("seat", f"only a player has a seat, not a {role}")
        return None
    players = list(state.get("players") or [])
    if seat is None:
        raise NotHeld("seat", f"a player's seat is required in a match: one of {players}")
    if seat not in players:
        raise NotHeld("seat", f"must be one of this match's players: {players}")
    return seat


@blp.route("/campaigns/<campaign>/invites")
class Invites(MethodView):
    @blp.doc(operationId="createInvite")
    @blp.arguments(InviteCreate, example={"role": "player", "seat": "B", "name": "Bea"})
    @blp.response(201, InviteCreated)
    @requires("manage")
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Invite someone: a new token with this role (and seat) on this campaign only (owner)."""
        app = questlog()
        cid = campaign_id(campaign)
        found = app.campaign(cid)
        role = body["role"]
        seat = invited_seat(found.game, found.state, role, body.get("seat"))
        token, secret = app.access.invite(cid, role, seat=seat, name=body.get("name"))
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
    @blp.doc(operationId="removeMember")
    @blp.response(200, MemberRemoved)
    @requires("manage")
    def delete(self, campaign: str, token_id: str) -> Any:
        """Take a member's role away (owner); a token made by this campaign's invitation or
        share link is revoked too. The last owner stays (409)."""
        app = questlog()
        cid = campaign_id(campaign)
        app.campaign(cid)
        member, revoked = app.access.remove_member(cid, token_id)
        return {
            "token_id": member.token_id,
            "role": member.role,
            "seat": member.seat,
            "revoked": revoked,
        }
