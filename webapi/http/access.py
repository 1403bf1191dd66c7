"""Access control: who the caller is (a bearer token), what its role on a campaign allows, and
the append rate limit's place in a request (the limiters are ``webapi.http.rate_limits``, the
token and member routes ``webapi.routes.access``).

Every request but the OpenAPI document and the routes declared ``public`` (the health checks,
the table page) needs a live token when auth is on. On a campaign route the caller's role
decides: 404 if the campaign is private and the caller holds no role on it, 403 if the role does
not allow the action. Admin tokens may do everything (they run the server).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any
from uuid import UUID

from flask import Flask, Response, current_app, g, request

from domain import settings
from domain.facade import Membership, Token, TokenCheck, acting_as, actor_label
from webapi.http.declared import ACTIONS, Access, declared_access
from webapi.http.errors import problem
from webapi.http.plumbing import questlog
from webapi.http.rate_limits import (
    RateLimiter,
    StoreRateLimiter,
    exempt_setting,
    rate_limiter,
    rate_setting,
)

AUTH_KEY = "questlog_auth"
RATE_KEY = "questlog_rate_limit"
EXEMPT_KEY = "questlog_rate_limit_exempt"
OPEN_ENDPOINTS = frozenset({"api-docs.openapi_json", "static"})
"""Routes any caller may use without a token that declare nothing: the OpenAPI document and
Flask's static files (the table page's views declare ``public``)."""
ALLOWED: dict[str, frozenset[str]] = {
    "owner": frozenset({"read", "audit", "append", "manage", "propose", "approve"}),
    "player": frozenset({"read", "append", "propose", "approve"}),
    "viewer": frozenset({"read"}),
    "auditor": frozenset({"read", "audit"}),
    "public": frozenset({"read"}),
}
"""What each role may do; ``public`` is anyone with a token on a public campaign."""
ANALYST = frozenset({"analyse", "read"})
"""What an analyst token may do, on every campaign: read it, and the cross-campaign views and
analytics (``analyse``); never play, reveal seeds, audit or manage."""


def auth_setting(auth: bool | str | None) -> bool:
    """Whether auth is on: the argument, else QUESTLOG_AUTH (``on`` or ``off``), else on."""
    if isinstance(auth, bool):
        return auth
    if auth:
        given: bool = settings.parse("auth", auth)
        return given
    return settings.read().auth


def caller() -> Token | None:
    """The token of this request (None when auth is off)."""
    token: Token | None = g.get("token")
    return token


def visible() -> set[str] | None:
    """The campaign ids the caller may see, or None for all of them."""
    token = caller()
    if not current_app.config[AUTH_KEY] or token is None or token.admin or token.analyst:
        return None
    return questlog().access.visible_campaigns(token.id)


def refuse(status: int, detail: str, **headers: str) -> Response:
    """A 401, 403, 404 or 429 problem."""
    titles = {401: "Unauthorized", 403: "Forbidden", 404: "Not found", 429: "Too many requests"}
    slugs = {401: "unauthorized", 403: "forbidden", 404: "not-found", 429: "rate-limited"}
    return problem(status, titles[status], detail, slug=slugs[status], headers=headers)


def authenticate(*, from_cache: bool = False) -> tuple[Token, TokenCheck | None] | Response:
    """The live token named by ``Authorization: Bearer``, or a 401; ``from_cache`` (a route
    declared ``token_from_cache``) may take it from the process's memory, with the check its
    appends must carry (``Questlog.access.authenticate_for_append``)."""
    header = request.headers.get("Authorization", "")
    scheme, _, secret = header.partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        return refuse(401, "Send an API token: Authorization: Bearer <token>.", **BEARER)
    secret = secret.strip()
    # Secrets are printable ASCII; other bytes (a server may pass them as surrogates) match none.
    found: tuple[Token, TokenCheck | None] | None = None
    if secret.isascii() and secret.isprintable():
        if from_cache:
            found = questlog().access.authenticate_for_append(secret)
        else:
            token = questlog().access.authenticate(secret)
            found = None if token is None else (token, None)
    if found is None:
        return refuse(401, "The token is unknown or revoked.", **BEARER)
    return found


def checked_answer(response: Response) -> Response:
    """The answer to a request a cached token let in (``authenticate``): as it is where an
    append checked the token in the store, else after the token is looked up, a 401 if it has
    been revoked meanwhile (an answer that stored nothing: a refusal, a replay). A store that
    fails during that lookup is answered as it would be anywhere (503, ``Retry-After``)."""
    check: TokenCheck | None = g.pop("token_check", None)
    if check is None or check.done:
        return response
    try:
        found = authenticate()
    except Exception as error:  # answered as the route's own failure would be
        # (a store that fails here answers 503, never the answer the token may not see)
        return current_app.make_response(current_app.handle_user_exception(error))
    return found if isinstance(found, Response) else response


BEARER = {"WWW-Authenticate": 'Bearer realm="questlog"'}


def role_on(token: Token, cid: str) -> tuple[str, Membership | None] | None:
    """A non-admin token's role on a campaign and its membership (``public``, with none, on a
    public campaign it holds no role on), or None if the campaign is private to it."""
    app = questlog()
    member = app.access.membership(cid, token.id)
    if member is None and not app.access.is_public(cid):
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
    if token.analyst:
        if access.action in ANALYST or (access.action == "any" and not access.appends):
            return None  # every campaign; the view answers 404 for one that does not exist
        return refuse(
            403, "An analyst token may read the campaigns and the analytics, nothing else."
        )
    if access.action == "any":
        return None
    if access.action == "contribute":
        allowed = questlog().library.may_add_to_library(token.id)
        return None if allowed else refuse(403, "A viewer's or auditor's link may not add to it.")
    if access.action == "admin":
        return refuse(403, "Only an admin token may use this route.")
    if access.action == "analyse":
        return refuse(403, "Only an admin or analyst token may use this route.")
    cid = requested_campaign()
    if cid is None:
        return None  # the view answers 404 for a malformed id
    standing = role_on(token, cid)
    if standing is None:
        return refuse(404, f"No campaign {cid} that this token may see.")
    role, member = standing
    if access.action not in ALLOWED[role]:
        return refuse(403, f"The role {role!r} may not {access.action} on this campaign.")
    return seat_check(access, role, member, cid)


def requested_campaign() -> str | None:
    """The campaign id of this request's path, or None (no campaign, or a malformed id)."""
    try:
        return str(UUID((request.view_args or {}).get("campaign", "")))
    except ValueError:
        return None


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
    cid = requested_campaign()
    if not access.seat_binds_owner or cid is None:
        return None  # the view answers 404 for a malformed id
    member = questlog().access.membership(cid, token.id)
    return seat_check(access, "owner", member, cid)


def seat_held(cid: str, seat: Any) -> bool:
    """Whether a member of the campaign holds ``seat`` (an invited player, or a seated owner)."""
    return any(m.seat == seat for m in questlog().access.members(cid))


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
    check: TokenCheck | None = None
    if current_app.config[AUTH_KEY]:
        found = authenticate(from_cache=declared is not None and declared.token_from_cache)
        if isinstance(found, Response):
            return found
        token, check = found
        g.token, g.token_check = token, check
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
    g.acting = acting_as(token, check)
    g.acting.__enter__()
    return None


def answer_headers(response: Response) -> Response:
    """Every answer is ``nosniff``; one to a request with a token is ``no-store`` (it may be
    private), even when the input limits refused the request before the token was looked up.
    A request a cached token let in is checked first (``checked_answer``)."""
    response = checked_answer(response)
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


# -- the caller, as the views read it ----------------------------------------------------------


def label() -> str | None:
    """The caller as the log names it, or None when auth is off."""
    token = caller()
    return None if token is None else actor_label(token)


def me_on(cid: str) -> dict[str, Any]:
    """The caller's standing on a campaign it may read (the route's declaration checked that)."""
    token = caller()
    if token is None or token.admin:
        role, seat, allowed = "admin", None, ACTIONS
    elif token.analyst:
        role, seat, allowed = "analyst", None, ANALYST
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
