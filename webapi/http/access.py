"""Access control: who the caller is (a bearer token), what its role on a campaign allows,
per-token rate limits on appends, and the admin and membership routes.

Every request but the OpenAPI document and the table page's shell (routes declared ``public``)
needs a live token when auth is on. On a campaign route
the caller's role decides: 404 if the campaign is private and the caller holds no role on it,
403 if the role does not allow the action. Admin tokens may do everything (they run the server).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

from flask import Flask, Response, current_app, g, request
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from domain import settings
from domain.model.access import ROLES, Membership, Token, acting_as, actor_label
from domain.model.errors import InvalidInput, NotFound
from domain.model.text import quoted
from webapi.http.declared import ACTIONS as ACTIONS
from webapi.http.declared import Access as Access
from webapi.http.declared import declared_access as declared_access
from webapi.http.declared import requires as requires
from webapi.http.errors import problem
from webapi.http.plumbing import campaign_id, questlog
from webapi.routes import page
from webapi.schemas.api import Flag, Text

if TYPE_CHECKING:
    from domain.service.application import Questlog
    from domain.storage.store import SideTables

AUTH_KEY = "questlog_auth"
RATE_KEY = "questlog_rate_limit"
EXEMPT_KEY = "questlog_rate_limit_exempt"
OPEN_ENDPOINTS = frozenset({"api-docs.openapi_json", "static"}) | page.OPEN
"""Routes any caller may use without a token: the OpenAPI document, the page and its files."""
ALLOWED: dict[str, frozenset[str]] = {
    "owner": frozenset({"read", "audit", "append", "manage", "propose", "approve"}),
    "player": frozenset({"read", "append", "propose", "approve"}),
    "viewer": frozenset({"read"}),
    "auditor": frozenset({"read", "audit"}),
    "public": frozenset({"read"}),
}
"""What each role may do; ``public`` is anyone with a token on a public campaign."""

blp = Blueprint("access", __name__, description="Tokens (admin) and campaign members (owner).")


def auth_setting(auth: bool | str | None) -> bool:
    """Whether auth is on: the argument, else QUESTLOG_AUTH (``on`` or ``off``), else on."""
    if isinstance(auth, bool):
        return auth
    if auth:
        given: bool = settings.parse("auth", auth)
        return given
    return settings.read().auth


def rate_setting(rate: float | None) -> float:
    """Appends per second per token: the argument, else QUESTLOG_RATE_LIMIT, else the default."""
    if rate is not None:
        return rate
    return settings.read().rate_limit


def exempt_setting(exempt: Iterable[str] | None) -> frozenset[str]:
    """Token ids the rate limit does not count: the argument, else QUESTLOG_RATE_LIMIT_EXEMPT
    (ids separated by commas), else none. The benchmark exempts the one token it creates."""
    if exempt is None:
        return settings.read().rate_limit_exempt
    return frozenset(token_id.strip() for token_id in exempt if token_id.strip())


@dataclass
class Bucket:
    """A token bucket: ``tokens`` left, refilled at the rate since ``stamp``."""

    tokens: float
    stamp: float


class RateLimiter:
    """In-memory per-token buckets (one process; a restart forgets them)."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.burst = max(1.0, rate)
        self.buckets: dict[str, Bucket] = {}
        self.lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take one append; 0 if allowed, else the seconds until one is allowed."""
        now = time.monotonic()
        with self.lock:
            bucket = self.buckets.setdefault(key, Bucket(self.burst, now))
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.rate


class StoreRateLimiter:
    """Per-token buckets kept in the store (PostgreSQL), shared by every API process on it: N
    workers together allow the configured rate, not N times it."""

    def __init__(self, rate: float, tables: SideTables) -> None:
        self.rate = rate
        self.burst = max(1.0, rate)
        self.tables = tables

    def take(self, key: str) -> float:
        """Take one append; 0 if allowed, else the seconds until one is allowed."""
        return self.tables.take_rate_token(key, self.rate, self.burst)


def rate_limiter(rate: float, app: Questlog) -> RateLimiter | StoreRateLimiter | None:
    """The append limiter: none at rate 0; the store's buckets when the store shares them
    between processes (PostgreSQL); else this process's own (SQLite: one process)."""
    if rate <= 0:
        return None
    if app.side_tables.shares_rate_buckets:
        return StoreRateLimiter(rate, app.side_tables)
    return RateLimiter(rate)


def caller() -> Token | None:
    """The token of this request (None when auth is off)."""
    token: Token | None = g.get("token")
    return token


def visible() -> set[str] | None:
    """The campaign ids the caller may see, or None for all of them."""
    token = caller()
    if not current_app.config[AUTH_KEY] or token is None or token.admin:
        return None
    return questlog().visible_campaigns(token.id)


def refuse(status: int, detail: str, **headers: str) -> Response:
    """A 401, 403, 404 or 429 problem."""
    titles = {401: "Unauthorized", 403: "Forbidden", 404: "Not found", 429: "Too many requests"}
    slugs = {401: "unauthorized", 403: "forbidden", 404: "not-found", 429: "rate-limited"}
    return problem(status, titles[status], detail, slug=slugs[status], headers=headers)


def authenticate() -> Token | Response:
    """The live token named by ``Authorization: Bearer``, or a 401."""
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return refuse(401, "Send an API token: Authorization: Bearer <token>.", **BEARER)
    secret = secret.strip()
    # Secrets are printable ASCII; other bytes (a server may pass them as surrogates) match none.
    token = questlog().authenticate(secret) if secret.isascii() and secret.isprintable() else None
    if token is None:
        return refuse(401, "The token is unknown or revoked.", **BEARER)
    return token


BEARER = {"WWW-Authenticate": 'Bearer realm="questlog"'}


def role_on(token: Token, cid: str) -> tuple[str, Membership | None] | None:
    """A non-admin token's role on a campaign and its membership (``public``, with none, on a
    public campaign it holds no role on), or None if the campaign is private to it."""
    app = questlog()
    member = app.membership(cid, token.id)
    if member is None and not app.is_public(cid):
        return None
    return (member.role if member else "public"), member


def authorize(token: Token) -> Response | None:
    """None if the token may make this request, else the refusal (by the route's declaration)."""
    if request.method == "OPTIONS":
        return None
    access = declared_access(request.endpoint, request.method)
    if access is None:  # every route declares its access (a test checks): refuse, never guess
        return refuse(403, "This route declares no access; nobody may use it.")
    if token.admin:
        return admin_seat_check(access, token)
    if access.action == "any":
        return None
    if access.action == "admin":
        return refuse(403, "Only an admin token may use this route.")
    try:
        cid = str(UUID((request.view_args or {}).get("campaign", "")))
    except ValueError:
        return None  # the view answers 404 for a malformed id
    standing = role_on(token, cid)
    if standing is None:
        return refuse(404, f"No campaign {cid} that this token may see.")
    role, member = standing
    if access.action not in ALLOWED[role]:
        return refuse(403, f"The role {role!r} may not {access.action} on this campaign.")
    return seat_check(access, role, member, cid)


def seat_check(access: Access, role: str, member: Membership | None, cid: str) -> Response | None:
    """A player acts only for its own seat. Where the route binds owners too (a match's commands
    and approvals), an owner acts for its own seat and for the seats no member holds (the ones it
    plays at its own screen), never for a seat an invited player holds."""
    field = access.seat
    if field is None or (role == "owner" and not access.seat_binds_owner):
        return None
    games = access.seat_games
    if role == "player" and games is not None and questlog().campaign(UUID(cid)).game not in games:
        return None  # quest-calendar has one hero: its players may run any command
    body = request.get_json(silent=True)
    named = body.get(field) if isinstance(body, dict) else None
    seat = member.seat if member else None
    if named is not None and named == seat:
        return None
    if role == "owner":
        if named is None or not seat_held(cid, named):
            return None  # no seat named, or one nobody was invited to: the owner plays it
        return refuse(
            403,
            f"Seat {named!r} has a player of its own: only that player acts for it ({field}).",
        )
    return refuse(403, f"This token may act only for its own seat ({field} = {seat!r}).")


def admin_seat_check(access: Access, token: Token) -> Response | None:
    """An admin may do everything, but where a route binds owners to seats (a match's commands
    and approvals) it is bound as an owner is: the server's admin token is how the owner of a
    small server signs in, and a seat an invited player holds is that player's alone."""
    if not access.seat_binds_owner:
        return None
    try:
        cid = str(UUID((request.view_args or {}).get("campaign", "")))
    except ValueError:
        return None  # the view answers 404 for a malformed id
    member = questlog().membership(cid, token.id)
    return seat_check(access, "owner", member, cid)


def seat_held(cid: str, seat: Any) -> bool:
    """Whether a member of the campaign holds ``seat`` (an invited player, or a seated owner)."""
    return any(m.seat == seat for m in questlog().members(cid))


def appends() -> bool:
    """Whether this request appends to a campaign's log (as its route declares)."""
    declared = declared_access(request.endpoint, request.method)
    return declared is not None and declared.appends


def before() -> Response | None:
    """Authenticate, authorize and rate-limit the request, and act as its token."""
    if request.endpoint in OPEN_ENDPOINTS or request.url_rule is None:
        return None
    declared = declared_access(request.endpoint, request.method)
    if declared is not None and declared.action == "public":
        return None
    token: Token | None = None
    if current_app.config[AUTH_KEY]:
        found = authenticate()
        if isinstance(found, Response):
            return found
        token = found
        g.token = token
        refused = authorize(token)
        if refused is not None:
            return refused
    limiter: RateLimiter | StoreRateLimiter | None = current_app.extensions.get(RATE_KEY)
    exempt = token is not None and token.id in current_app.extensions[EXEMPT_KEY]
    if limiter is not None and not exempt and appends():
        wait = limiter.take(token.id if token else request.remote_addr or "-")
        if wait:
            return refuse(
                429,
                "Too many appends from this token; retry later.",
                **{"Retry-After": str(max(1, math.ceil(wait)))},
            )
    g.acting = acting_as(token)
    g.acting.__enter__()
    return None


def answer_headers(response: Response) -> Response:
    """Every answer is ``nosniff``; one to a request with a token is ``no-store`` (it may be
    private), even when the input limits refused the request before the token was looked up."""
    response.headers["X-Content-Type-Options"] = "nosniff"
    if caller() is not None or "Authorization" in request.headers:
        response.headers["Cache-Control"] = "no-store"
    return response


def after(_error: BaseException | None) -> None:
    """Stop acting as the request's token."""
    acting = g.pop("acting", None)
    if acting is not None:
        acting.__exit__(None, None, None)


def install(
    app: Flask,
    *,
    auth: bool | str | None,
    rate_limit: float | None,
    rate_limit_exempt: Iterable[str] | None = None,
) -> None:
    """Turn access control on the app on or off, with its append rate limit and the token ids
    that limit does not count."""
    app.config[AUTH_KEY] = auth_setting(auth)
    rate = rate_setting(rate_limit)
    app.extensions[RATE_KEY] = rate_limiter(rate, app.extensions["questlog"])
    app.extensions[EXEMPT_KEY] = exempt_setting(rate_limit_exempt)
    app.before_request(before)
    app.after_request(answer_headers)
    app.teardown_request(after)


# -- routes ---------------------------------------------------------------------------------


class TokenCreate(Schema):
    """A new API token: its name and whether it is an admin."""

    name = Text(required=True, validate=validate.Length(1, 200))
    admin = Flag(load_default=False)


class TokenInfo(Schema):
    """An API token as listed (never its secret)."""

    id = fields.String()
    name = fields.String()
    admin = fields.Boolean()
    revoked = fields.Boolean()


class TokenCreated(TokenInfo):
    """A new API token, with its secret (shown only once)."""

    token = fields.String(metadata={"description": "The secret: shown this once, never again."})


class TokenList(Schema):
    """The API tokens."""

    items = fields.List(fields.Nested(TokenInfo))


class MemberCreate(Schema):
    """A new member of a campaign: a token, its role and, in a match, its seat."""

    token_name = Text(validate=validate.Length(1, 200))
    token_id = Text(validate=validate.Length(1, 200))
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
        validate=validate.OneOf(("admin", "public", *ROLES)),
        metadata={"description": "admin, a role the caller holds, or public (a public campaign)."},
    )
    seat = fields.String(
        allow_none=True, metadata={"description": "The player id a player acts for, if any."}
    )
    can_append = fields.Boolean()
    can_manage = fields.Boolean()
    can_propose = fields.Boolean()
    can_approve = fields.Boolean()


def token_info(token: Token) -> dict[str, Any]:
    """A token as the API shows it (never its secret or hash)."""
    return {"id": token.id, "name": token.name, "admin": token.admin, "revoked": token.revoked}


@blp.route("/admin/tokens")
class Tokens(MethodView):
    @blp.arguments(TokenCreate, example={"name": "alice"})
    @blp.response(201, TokenCreated)
    @requires("admin")
    def post(self, body: dict[str, Any]) -> Any:
        """Create a token (admin); its secret is in this response only."""
        token, secret = questlog().create_token(body["name"], admin=body["admin"])
        return {**token_info(token), "token": secret}

    @blp.response(200, TokenList)
    @requires("admin")
    def get(self) -> Any:
        """Every token, without secrets (admin)."""
        return {"items": [token_info(t) for t in questlog().tokens()]}


@blp.route("/admin/tokens/<token>")
class TokenResource(MethodView):
    @blp.response(200, TokenInfo)
    @requires("admin")
    def delete(self, token: str) -> Any:
        """Revoke a token by name or id (admin); it stops working at once."""
        revoked = questlog().revoke_token(token)
        return token_info(Token(revoked.id, revoked.name, revoked.admin, revoked=True))


def member_token(field: str, name: str) -> Token:
    """The token a member request names, if it may hold a role: live, and not an admin's.

    Only an admin (or anyone, with auth off) learns why a token may not be added; an owner gets
    the answer an unknown name gets, so it cannot find out which token names exist.
    """
    token = questlog().find_token(name)
    refusal = None if token is None else member_refusal(token)
    if token is None or refusal is not None:
        asking = caller()
        if refusal is not None and (asking is None or asking.admin):
            raise InvalidInput.field(field, refusal)
        raise NotFound(f"No token named or numbered {quoted(name)} can be added.")
    return token


def member_refusal(token: Token) -> str | None:
    """Why a token may not hold a role on a campaign, or None."""
    if token.revoked:
        return "names a revoked token"
    if token.admin:
        return "names an admin token, which may do everything without a role"
    return None


@blp.route("/campaigns/<campaign>/members")
class Members(MethodView):
    @blp.arguments(MemberCreate, example={"token_name": "bob", "role": "player", "seat": "B"})
    @blp.response(201, Member)
    @requires("manage")
    def post(self, body: dict[str, Any], campaign: str) -> Any:
        """Give a token a role on this campaign (owner)."""
        cid = campaign_id(campaign)
        app = questlog()
        found = app.campaign(cid)
        seats = found.state.get("players") if found.game == "calendar-board" else None
        field = "token_id" if body.get("token_id") else "token_name"
        name = body.get(field)
        if not name:
            raise InvalidInput.field("token_name", "name a token (token_name or token_id)")
        token = member_token(field, name)
        member = app.add_member(cid, token, body["role"], body.get("seat"), seats)
        return {"token_id": token.id, "role": member.role, "seat": member.seat, "name": token.name}

    @blp.response(200, MemberList)
    @requires("manage")
    def get(self, campaign: str) -> Any:
        """Who holds which role on this campaign (owner)."""
        cid = campaign_id(campaign)
        app = questlog()
        app.campaign(cid)
        items = []
        for m in app.members(str(cid)):
            token = app.find_token(m.token_id)
            name = token.name if token is not None else None
            items.append({"token_id": m.token_id, "role": m.role, "seat": m.seat, "name": name})
        return {"items": items}


def label() -> str | None:
    """The caller as the log names it, or None when auth is off."""
    token = caller()
    return None if token is None else actor_label(token)


def me_on(cid: str) -> dict[str, Any]:
    """The caller's standing on a campaign it may read (the route's declaration checked that)."""
    token = caller()
    if token is None or token.admin:
        role, seat, allowed = "admin", None, ACTIONS
    else:
        standing = role_on(token, cid)
        role, member = standing if standing is not None else ("public", None)
        seat, allowed = (member.seat if member else None), ALLOWED[role]
    return {
        "token_id": token.id if token else None,
        "name": token.name if token else None,
        "admin": role == "admin",
        "role": role,
        "seat": seat,
        **{f"can_{action}": action in allowed for action in CAN},
    }


CAN = ("append", "manage", "propose", "approve")
"""The actions /me answers for; a player's seat still binds what it appends, proposes, approves."""


@blp.route("/campaigns/<campaign>/me")
class MeOnCampaign(MethodView):
    @blp.response(200, Me)
    @requires("read")
    def get(self, campaign: str) -> Any:
        """Who the caller is on this campaign and what its role lets it do."""
        cid = campaign_id(campaign)
        questlog().campaign(cid)
        return me_on(str(cid))
