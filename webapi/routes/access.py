"""Access routes: API tokens (admin), a campaign's members (owner) and the caller's standing
on a campaign (access control itself is ``webapi.http.access``)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import InvalidInput, NotHeld, Token, quoted
from webapi.http.access import caller, me_on
from webapi.http.declared import requires
from webapi.http.plumbing import campaign_id, questlog
from webapi.schemas.access import (
    Me,
    Member,
    MemberCreate,
    MemberList,
    TokenCreate,
    TokenCreated,
    TokenInfo,
    TokenList,
)

blp = Blueprint("access", __name__, description="Tokens (admin) and campaign members (owner).")


def token_info(token: Token) -> dict[str, Any]:
    """A token as the API shows it (never its secret or hash)."""
    return {
        "id": token.id,
        "name": token.name,
        "admin": token.admin,
        "analyst": token.analyst,
        "revoked": token.revoked,
    }


@blp.route("/admin/tokens")
class Tokens(MethodView):
    @blp.doc(operationId="createToken")
    @blp.arguments(TokenCreate, example={"name": "alice"})
    @blp.response(201, TokenCreated)
    @requires("admin")
    def post(self, body: dict[str, Any]) -> Any:
        """Create a token (admin); its secret is in this response only."""
        token, secret = questlog().access.create_token(
            body["name"], admin=body["admin"], role=body.get("role")
        )
        return {**token_info(token), "token": secret}

    @blp.doc(operationId="listTokens")
    @blp.response(200, TokenList)
    @requires("admin")
    def get(self) -> Any:
        """Every token, without secrets (admin)."""
        return {"items": [token_info(t) for t in questlog().access.tokens()]}


@blp.route("/admin/tokens/<token>")
class TokenResource(MethodView):
    @blp.doc(operationId="revokeToken")
    @blp.response(200, TokenInfo)
    @requires("admin")
    def delete(self, token: str) -> Any:
        """Revoke a token by name or id (admin); it stops working at once."""
        revoked = questlog().access.revoke_token(token)
        return token_info(
            Token(revoked.id, revoked.name, revoked.admin, revoked=True, analyst=revoked.analyst)
        )


def member_token(field: str, name: str) -> Token:
    """The token a member request names, if it may hold a role: live, and not an admin's.

    The store's answer, not the request's: a 409 not-held naming the field. Only an admin (or
    anyone, with auth off) learns why a token may not be added; an owner gets the answer an
    unknown name gets, so it cannot find out which token names exist.
    """
    token = questlog().access.find_token(name)
    refusal = None if token is None else member_refusal(token)
    if token is None or refusal is not None:
        asking = caller()
        if refusal is not None and (asking is None or asking.admin):
            raise NotHeld(field, refusal)
        raise NotHeld(field, f"no token named or numbered {quoted(name)} can be added")
    return token


def member_refusal(token: Token) -> str | None:
    """Why a token may not hold a role on a campaign, or None."""
    if token.revoked:
        return "names a revoked token"
    if token.admin:
        return "names an admin token, which may do everything without a role"
    if token.analyst:
        return "names an analyst token, which reads every campaign and may hold no role"
    return None


def named_token(body: dict[str, Any]) -> tuple[str, str]:
    """The field that names the new member's token and its value: token_name or token_id,
    exactly one of the two (as the document's body schema states)."""
    given = [field for field in ("token_name", "token_id") if field in body]
    if not given:
        raise InvalidInput.field("token_name", "name a token (token_name or token_id)")
    if len(given) > 1:
        raise InvalidInput.field("token_id", "name a token by token_name or token_id, not both")
    return given[0], body[given[0]]


@blp.route("/campaigns/<campaign>/members")
class Members(MethodView):
    @blp.doc(operationId="addMember")
    @blp.arguments(MemberCreate, example={"token_name": "bob", "role": "player", "seat": "B"})
    @blp.response(201, Member)
    @requires("manage")
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Give a token a role on this campaign (owner)."""
        cid = campaign_id(campaign)
        app = questlog()
        found = app.campaign(cid)
        seats = found.state.get("players") if found.game == "calendar-board" else None
        field, name = named_token(body)
        token = member_token(field, name)
        member = app.access.add_member(cid, token, body["role"], body.get("seat"), seats)
        return {"token_id": token.id, "role": member.role, "seat": member.seat, "name": token.name}

    @blp.doc(operationId="listMembers")
    @blp.response(200, MemberList)
    @requires("manage")
    def get(self, campaign: str) -> Any:
        """Who holds which role on this campaign (owner)."""
        cid = campaign_id(campaign)
        app = questlog()
        app.campaign(cid)
        items = []
        for m in app.access.members(str(cid)):
            token = app.access.find_token(m.token_id)
            name = token.name if token is not None else None
            items.append({"token_id": m.token_id, "role": m.role, "seat": m.seat, "name": name})
        return {"items": items}


@blp.route("/campaigns/<campaign>/me")
class MeOnCampaign(MethodView):
    @blp.doc(operationId="getMyAccess")
    @blp.response(200, Me)
    @requires("read")
    def get(self, campaign: str) -> Any:
        """Who the caller is on this campaign and what its role lets it do."""
        cid = campaign_id(campaign)
        questlog().campaign(cid)
        return me_on(str(cid))
