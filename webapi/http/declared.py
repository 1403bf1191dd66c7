"""What each route declares about itself: the access it needs and whether it appends.

A view method carries its declaration (``requires``); access control (``webapi.http.access``),
the error mapper and the OpenAPI document read it from there, never from the URL. This module
imports nothing else of ``webapi``, so every module may read declarations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from flask import Flask, current_app

ACTIONS = frozenset(
    {
        "public",
        "any",
        "contribute",
        "admin",
        "analyse",
        "read",
        "audit",
        "append",
        "manage",
        "propose",
        "approve",
    }
)
"""What a route may declare: no token at all (the health checks), any token, any token that may
play (``contribute``: adding to the group's library; not an analyst's, nor a viewer's or an
auditor's link), admin tokens only, admin and analyst tokens (``analyse``: the cross-campaign
reads), or an action a campaign role allows."""
ACCESS_ATTRIBUTE = "questlog_access"
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Access:
    """What a route does, as its view method declares it with ``requires``.

    ``action`` is what the caller's role on the campaign must allow (``ALLOWED``), or ``any``
    (every live token), ``admin``, ``analyse`` (admin and analyst tokens), or ``public`` (no
    token needed). ``seat`` names the body
    field with the player a seat-bound token acts for; a player's seat must match it (in
    ``seat_games`` only, when given), and an owner's too when ``seat_binds_owner``.
    """

    action: str
    seat: str | None = None
    seat_binds_owner: bool = False
    seat_games: tuple[str, ...] | None = None
    appends: bool = False
    """The route appends to a campaign's log (what the rate limit counts; 409 and 429 possible)."""
    token_from_cache: bool = False
    """The route writes nothing but appends, made on the request's thread (a roll, a game
    command): a token this process has found live may let it in from memory, since on a store
    that can, each append checks the token again in its own transaction
    (``Questlog.access.authenticate_for_append``; ``webapi.http.access``)."""


def requires(
    action: str,
    *,
    seat: str | None = None,
    seat_binds_owner: bool = False,
    seat_games: tuple[str, ...] | None = None,
    appends: bool = False,
    token_from_cache: bool = False,
) -> Callable[[F], F]:
    """Declare a view method's access (put it right above the ``def``); ``appends`` if it appends
    to a campaign's log, ``token_from_cache`` if it writes nothing else (``Access``)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}; one of {sorted(ACTIONS)}")
    if token_from_cache and not appends:
        raise ValueError("token_from_cache is for a route that appends")
    declared = Access(action, seat, seat_binds_owner, seat_games, appends, token_from_cache)

    def mark(method: F) -> F:
        setattr(method, ACCESS_ATTRIBUTE, declared)
        return method

    return mark


def declared_access(endpoint: str | None, method: str, app: Flask | None = None) -> Access | None:
    """The access a route's view method declares (None: it declares none)."""
    view = (app or current_app).view_functions.get(endpoint or "")
    view_class = getattr(view, "view_class", None)
    handler = getattr(view_class, method.lower(), None) if view_class is not None else view
    if handler is None and method.upper() == "HEAD" and view_class is not None:
        handler = getattr(view_class, "get", None)
    found: Access | None = getattr(handler, ACCESS_ATTRIBUTE, None)
    return found
