"""Access tokens: create one (its secret shown once), authenticate a secret, revoke."""

from __future__ import annotations

from uuid import UUID, uuid4

from eventsourcing.persistence import IntegrityError

from domain.model.access import (
    TOKEN_ROLES,
    Membership,
    Token,
    TokenCheck,
    new_token_secret,
    token_hash,
)
from domain.model.errors import InvalidInput, NotFound, NotHeld, RuleViolation
from domain.model.text import MAX_NAME_LENGTH, check_text
from domain.service.commands_service import CommandService
from domain.storage.side_tables import SideTables

_NAME_TRIES = 50
"""How many suffixes an invitation's default name tries (``seat B (2)`` …) before the old
unique ``invite-<campaign>-<id>``."""
MAX_CACHED_TOKENS = 4096
"""How many live tokens a process remembers (``TokenService.authenticate_for_append``)."""


class TokenService:
    """The tokens and the campaigns' members, on the core's side tables."""

    def __init__(self, app: CommandService) -> None:
        self.app = app
        self._live_tokens: dict[str, Token] = {}
        """This process's live tokens by hash (only on a store that ``checks_tokens_in_appends``;
        emptied by every revocation made here, and a token revoked elsewhere fails its check)."""

    @property
    def side_tables(self) -> SideTables:
        """The store's side tables."""
        return self.app.side_tables

    def create_token(
        self, name: str, *, admin: bool = False, role: str | None = None
    ) -> tuple[Token, str]:
        """A new token and its secret (shown once; only its hash is stored). ``role`` is a role
        across every campaign (``TOKEN_ROLES``): ``admin`` (as ``admin=True``) or ``analyst``."""
        check_text("name", name, MAX_NAME_LENGTH)
        if role is not None and role not in TOKEN_ROLES:
            raise InvalidInput.field("role", f"must be one of {', '.join(TOKEN_ROLES)}")
        if self.side_tables.find_token(name) is not None:
            raise NotHeld("name", f"a token named {name!r} exists already")
        admin = admin or role == "admin"
        token = Token(
            id=uuid4().hex[:12], name=name, admin=admin, analyst=role == "analyst" and not admin
        )
        secret = new_token_secret()
        self._add_token(token, secret)
        return token, secret

    def share_campaign(self, campaign_id: UUID, name: str | None = None) -> tuple[Token, str]:
        """A new read-only token bound to one campaign (the viewer role there, nothing else)
        and its secret (shown once); unnamed, it is called ``share-<campaign>-<id>``."""
        return self.invite(campaign_id, "viewer", name=name, prefix="share")

    def invite(
        self,
        campaign_id: UUID,
        role: str,
        *,
        seat: str | None = None,
        name: str | None = None,
        prefix: str = "invite",
    ) -> tuple[Token, str]:
        """A new token made for one campaign, with this role (and seat) there and nothing else,
        and its secret (shown once). Unnamed, an invitation's token is called by what it is for
        (``seat B``, ``viewer``, ``auditor``; ``seat B (2)`` if that name is taken, since token
        names are unique), a share link's ``<prefix>-<campaign>-<id>``.

        The caller checks the role and seat against the campaign; the token is noted as made for
        it, so that removing its membership revokes it (``remove_member``).
        """
        token_id = uuid4().hex[:12]
        if name is None:
            fallback = f"{prefix}-{str(campaign_id)[:8]}-{token_id}"
            name = self._readable_name(role, seat, fallback) if prefix == "invite" else fallback
        check_text("name", name, MAX_NAME_LENGTH)
        if self.side_tables.find_token(name) is not None:
            raise NotHeld("name", f"a token named {name!r} exists already")
        token = Token(id=token_id, name=name, admin=False)
        secret = new_token_secret()
        self._add_token(token, secret)
        self.side_tables.record_invite(token.id, str(campaign_id))
        self.side_tables.set_member(Membership(str(campaign_id), token.id, role, seat))
        return token, secret

    def _readable_name(self, role: str, seat: str | None, fallback: str) -> str:
        """An invitation token's default name in words, with a suffix only if it is taken."""
        base = f"seat {seat}" if seat else role
        for number in range(1, _NAME_TRIES + 1):
            name = base if number == 1 else f"{base} ({number})"
            if self.side_tables.find_token(name) is None:
                return name
        return fallback  # a crowded store: the unique name of old

    def remove_member(self, campaign_id: UUID, token_id: str) -> tuple[Membership, bool]:
        """Take a token's role on a campaign away; a token the server made for this campaign
        (a share link or an invitation) holds nothing else, so it is revoked too. Returns the
        membership removed and whether the token was revoked.

        An unknown member is a 404; the campaign's last owner membership stays (409), so that
        someone other than an admin can still manage it.
        """
        cid = str(campaign_id)
        member = self.side_tables.membership(cid, token_id)
        if member is None:
            raise NotFound(f"No member {token_id!r} on campaign {cid}.")
        owners = [m for m in self.side_tables.members(cid) if m.role == "owner"]
        if member.role == "owner" and len(owners) == 1:
            raise RuleViolation(
                "last-owner",
                f"{token_id} is the campaign's last owner; give another the role first",
            )
        self.side_tables.remove_member(cid, token_id)
        revoke = self.side_tables.invited_to(token_id) == cid
        if revoke:
            self.side_tables.revoke_token(token_id)
            self._live_tokens.clear()
        return member, revoke

    def add_member(
        self, campaign_id: UUID, token: Token, role: str, seat: str | None, players: object
    ) -> Membership:
        """Give a live, non-admin token a role (and a seat) on a campaign. ``players`` are the
        campaign's seats, or None where it has none to check against (quest-calendar)."""
        if seat is not None and isinstance(players, list) and seat not in players:
            raise NotHeld("seat", f"must be one of this match's players: {players}")
        member = Membership(str(campaign_id), token.id, role, seat)
        self.side_tables.set_member(member)
        return member

    # -- reading tokens and roles -----------------------------------------------------------

    def tokens(self) -> list[Token]:
        """Every token (never a secret)."""
        return self.side_tables.tokens()

    def find_token(self, name_or_id: str) -> Token | None:
        """The token with this name or id, revoked or not, or None."""
        return self.side_tables.find_token(name_or_id)

    def membership(self, campaign_id: str, token_id: str) -> Membership | None:
        """A token's role (and seat) on a campaign, or None."""
        return self.side_tables.membership(campaign_id, token_id)

    def members(self, campaign_id: str) -> list[Membership]:
        """Every role held on a campaign."""
        return self.side_tables.members(campaign_id)

    def is_public(self, campaign_id: str) -> bool:
        """Whether any token may read the campaign (a public one)."""
        return self.side_tables.is_public(campaign_id)

    def visible_campaigns(self, token_id: str) -> set[str]:
        """The ids of the campaigns a token holds a role on, and the public ones."""
        return self.side_tables.visible_campaigns(token_id)

    def _add_token(self, token: Token, secret: str) -> None:
        """Store a token; a name another process took since the check above is the same 422."""
        try:
            self.side_tables.add_token(token, token_hash(secret))
        except IntegrityError:
            raise NotHeld("name", f"a token named {token.name!r} exists already") from None

    def authenticate(self, secret: str) -> Token | None:
        """The live token with this secret, or None (unknown or revoked), read from the store."""
        hashed = token_hash(secret)
        token = self.side_tables.token_by_hash(hashed)
        live = None if token is None or token.revoked else token
        cache = self._live_tokens
        if live is None:
            cache.pop(hashed, None)
        elif self.side_tables.checks_tokens_in_appends:
            if len(cache) >= MAX_CACHED_TOKENS:
                cache.clear()
            cache[hashed] = live
        return live

    def authenticate_for_append(self, secret: str) -> tuple[Token, TokenCheck | None] | None:
        """The live token with this secret for a request whose only writes are appends, or None.

        On a store that checks a token inside each append's transaction (PostgreSQL), a token
        this process has found live before is taken from memory, with the ``TokenCheck`` the
        request's appends must carry (``acting_as``): a token revoked since, by any process,
        stores nothing and is refused then (``TokenRefused``), and the caller looks up a token
        whose request ends without an append. Unknown tokens are never remembered. Otherwise
        (and on SQLite, where a lookup is no round trip) the store is asked, as ``authenticate``.
        """
        cached = self._live_tokens.get(token_hash(secret))
        if cached is not None:
            return cached, TokenCheck(cached.id)
        token = self.authenticate(secret)
        return None if token is None else (token, None)

    def revoke_token(self, name_or_id: str) -> Token:
        """Revoke a token by name or id (404 if there is none)."""
        token = self.side_tables.find_token(name_or_id)
        if token is None:
            raise NotFound(f"No token named or numbered {name_or_id!r}.")
        self.side_tables.revoke_token(token.id)
        self._live_tokens.clear()
        return token
