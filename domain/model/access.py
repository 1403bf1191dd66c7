"""Who acts: API tokens, the actor of each command, and the roles a token holds per campaign.

Tokens are random strings handed out once; the store keeps only their SHA-256. A command runs
``acting_as`` an actor, and the recorder writes that actor beside each event it stores, in the
events' own transaction (``domain.storage.store``).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

ROLES = ("owner", "player", "viewer", "auditor")
"""The roles a token can hold on a campaign."""
TOKEN_ROLES = ("admin", "analyst")
"""The roles a token can hold across every campaign: ``admin`` may do everything; ``analyst``
may read every campaign and the analytics (the cross-campaign views, ``/analytics/...``), and do
nothing else: play, reveal seeds, manage."""
TOKEN_PREFIX = "ql_"
SYSTEM = "system"
"""The actor of commands run without a token (the CLI, the demo, tests)."""


@dataclass(frozen=True)
class Token:
    """A stored API token (never its secret, only its hash)."""

    id: str
    name: str
    admin: bool
    revoked: bool = False
    analyst: bool = False
    """An analyst token (``TOKEN_ROLES``): reads every campaign and the analytics, nothing else."""


@dataclass(frozen=True)
class Membership:
    """A token's role on one campaign, with the seat (player id) a player is bound to."""

    campaign_id: str
    token_id: str
    role: str
    seat: str | None = None


def new_token_secret() -> str:
    """A fresh bearer token."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(secret: str) -> str:
    """What the store keeps of a token: its SHA-256 in hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


TOKEN_REFUSED = "questlog: no live token with this id:"
"""In the store's error when an append's check of a cached token finds it revoked or gone."""


@dataclass
class TokenCheck:
    """A token that let a request in from a process's cache of live tokens, not from the store.

    The store checks it again inside the transaction of each append the request makes, so that
    a token revoked by any process since it was cached stores nothing (``TokenRefused``);
    ``done`` is set once an append has committed with the check. A request that ends without
    one looks the token up before it answers.
    """

    token_id: str
    done: bool = False


_actor: ContextVar[Token | None] = ContextVar("questlog_actor", default=None)
_check: ContextVar[TokenCheck | None] = ContextVar("questlog_token_check", default=None)


def current_actor() -> Token | None:
    """The token the running command acts as (None: the system)."""
    return _actor.get()


def pending_token_check() -> TokenCheck | None:
    """The cached token the appends of the running request must check in the store, if any."""
    return _check.get()


def actor_label(token: Token | None) -> str:
    """How the log names an actor: ``name#id`` of its token, or ``system``."""
    return SYSTEM if token is None else f"{token.name}#{token.id}"


@contextmanager
def acting_as(token: Token | None, check: TokenCheck | None = None) -> Iterator[None]:
    """Run the commands inside as this token (``check``: taken from a cache, so checked again by
    every append; ``TokenCheck``)."""
    reset, reset_check = _actor.set(token), _check.set(check)
    try:
        yield
    finally:
        _check.reset(reset_check)
        _actor.reset(reset)
