"""The side tables: what Questlog stores beside eventsourcing's ``stored_events``.

- ``questlog_seeds``: each campaign's secret server seeds, by commitment. Seeds never go into an
  event until they are revealed, so the public log (and its snapshots) never holds a secret.
- ``questlog_idempotency``: the first response to each ``Idempotency-Key``.
- ``questlog_actors``: who caused each event, keyed by (campaign, version).
- ``questlog_members``: the owner a new campaign gets from the token that created it (other
  memberships and ``questlog_tokens`` are written on their own: they are not part of any
  campaign's log).
- ``questlog_access``: whether a campaign is public, written with its creation event.
- ``questlog_forks``: each campaign forked from another (its origin, the version, its name and
  when), written with the fork's creation event, so that a campaign's forks are found by its id
  instead of reading every creation event of the store. ``questlog_marks`` says once that a store
  older than the table has had its forks indexed.
- ``questlog_attempts``: one row per stored command attempt, so that after a commit whose answer
  was lost (the connection dropped) the application can find out whether the attempt is stored.
- ``questlog_rate_buckets`` (PostgreSQL only): each token's append rate-limit bucket, shared by
  every API process on the store (on SQLite, one process keeps its buckets in memory).
- the transparency log's tree, checkpoints and cosignatures (``domain.storage.tlog_tables``).
- ``questlog_signing_keys`` (PostgreSQL only): the signing key ring (``domain.storage.keys``),
  unless ``QUESTLOG_SIGNING_KEY`` names a file for it (on SQLite it is a file beside the store).

Seeds, idempotency records, actors, owners, access flags and attempts are written by the
application recorder *inside the same transaction* as the events of the command that needs them,
and *after* the events, so a version conflict is the events' unique key failing at once and a
crash stores either the whole command or none of it. Tokens are stored only as SHA-256 hashes of
their secrets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from domain.model.access import TOKEN_REFUSED, Membership, Token
from domain.storage.creations import CampaignCreations
from domain.storage.forks import FORKS_TABLE, ForkIndex, ForkRecord
from domain.storage.retries import read_with_retries
from domain.storage.tlog_tables import TlogTables

SEEDS_TABLE = "questlog_seeds"
IDEMPOTENCY_TABLE = "questlog_idempotency"
ACTORS_TABLE = "questlog_actors"
TOKENS_TABLE = "questlog_tokens"
MEMBERS_TABLE = "questlog_members"
ACCESS_TABLE = "questlog_access"
ATTEMPTS_TABLE = "questlog_attempts"
RATE_TABLE = "questlog_rate_buckets"
INVITES_TABLE = "questlog_invites"
TOKEN_ROLES_TABLE = "questlog_token_roles"
"""A token's role across every campaign (``analyst``), beside the admin flag of its row."""
"""Tokens the server made for one campaign (a share link or an invitation): removing their
membership revokes them, since they hold nothing else."""
KEYS_TABLE = "questlog_signing_keys"


@dataclass(frozen=True)
class SeedRecord:
    """A new secret server seed, stored with the event that commits to it."""

    campaign_id: str
    commitment: str
    seed: str


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first response to a request with an ``Idempotency-Key``."""

    scope: str
    key: str
    fingerprint: str
    response: dict[str, Any]


class SideTables(ForkIndex, CampaignCreations, TlogTables):
    """Seeds and idempotency records, written in the events' transaction (dialect-neutral SQL)."""

    placeholder = "?"
    write_options: dict[str, Any] = {}
    datastore: Any
    select_events: Any
    """(The recorder's, beside which these side tables are kept.)"""
    shares_rate_buckets = False
    """Whether the store keeps the rate-limit buckets (``take_rate_token``) for every process."""
    checks_tokens_in_appends = False
    """Whether an insert checks the request's cached token in its own transaction
    (``token_check``), so that a process may let requests in by a cache of live tokens."""

    def stored_events_after(
        self, originator_id: UUID, after: int, limit: int | None = None
    ) -> list[StoredEvent]:
        """An aggregate's stored events after a version, in version order (at most ``limit``)."""
        return list(self.select_events(originator_id, gt=after, limit=limit))

    def take_rate_token(self, key: str, rate: float, burst: float) -> float:
        """Take one append from ``key``'s shared bucket: 0 if allowed, else the seconds until one
        is. Only a store that ``shares_rate_buckets`` keeps them (PostgreSQL)."""
        raise NotImplementedError("this store keeps no shared rate-limit buckets")

    def _table(self, name: str) -> str:
        return name

    def side_table_statements(self) -> list[str]:
        """CREATE statements of the side tables."""
        return [
            f"CREATE TABLE IF NOT EXISTS {self._table(SEEDS_TABLE)} ("
            "commitment TEXT PRIMARY KEY, campaign_id TEXT NOT NULL, seed TEXT NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {self._table(IDEMPOTENCY_TABLE)} ("
            "scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, "
            "response TEXT NOT NULL, PRIMARY KEY (scope, key))",
            f"CREATE TABLE IF NOT EXISTS {self._table(ACTORS_TABLE)} ("
            "campaign_id TEXT NOT NULL, version INTEGER NOT NULL, actor TEXT NOT NULL, "
            "PRIMARY KEY (campaign_id, version))",
            f"CREATE TABLE IF NOT EXISTS {self._table(TOKENS_TABLE)} ("
            "id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, hash TEXT NOT NULL UNIQUE, "
            "admin INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0)",
            f"CREATE TABLE IF NOT EXISTS {self._table(MEMBERS_TABLE)} ("
            "campaign_id TEXT NOT NULL, token_id TEXT NOT NULL, role TEXT NOT NULL, seat TEXT, "
            "PRIMARY KEY (campaign_id, token_id))",
            f"CREATE TABLE IF NOT EXISTS {self._table(ACCESS_TABLE)} ("
            "campaign_id TEXT PRIMARY KEY, public INTEGER NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {self._table(ATTEMPTS_TABLE)} ("
            "attempt TEXT PRIMARY KEY, campaign_id TEXT NOT NULL, version INTEGER NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {self._table(INVITES_TABLE)} ("
            "token_id TEXT PRIMARY KEY, campaign_id TEXT NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {self._table(TOKEN_ROLES_TABLE)} ("
            "token_id TEXT PRIMARY KEY, role TEXT NOT NULL)",
            *self.fork_table_statements(),
            *self.creation_index_statements(),
            *self.tlog_table_statements(),
        ]

    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.placeholder)

    def token_check(self, token_id: str) -> tuple[str, tuple[Any, ...]]:
        """A statement that fails, ``TOKEN_REFUSED`` in its error, unless the token is live.

        The failing branch depends on the row count, so PostgreSQL cannot fold it while planning
        and evaluates it only for a token that is revoked or gone."""
        statement = (
            f"SELECT CASE WHEN count(*) = 1 THEN 1 ELSE ('{TOKEN_REFUSED} ' || count(*))::int "
            f"END FROM {self._table(TOKENS_TABLE)} WHERE id = ? AND revoked = 0"
        )
        return self._sql(statement), (token_id,)

    def insert_side_rows(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        """Insert the rows that ride along with events (called after the events' insert)."""
        rows = self.side_rows(stored_events, **kwargs)
        if rows:
            self.execute_side_rows(cursor, rows)

    def execute_side_rows(self, cursor: Any, rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Send the side rows' INSERTs, one statement each."""
        for statement, params in rows:
            cursor.execute(statement, params, **self.write_options)

    def side_rows(self, stored_events: Any, **kwargs: Any) -> list[tuple[str, tuple[Any, ...]]]:
        """The INSERT statements (in this store's placeholders) and parameters of the rows that
        ride along with ``stored_events``."""
        rows: list[tuple[str, tuple[Any, ...]]] = []
        for table, columns, values in side_values(stored_events, kwargs) if stored_events else ():
            marks = ", ".join("?" * len(values))
            statement = f"INSERT INTO {self._table(table)} ({columns}) VALUES ({marks})"
            rows.append((self._sql(statement), values))
        return rows

    def seed_for(self, commitment: str, campaign_id: str | None = None) -> str | None:
        """The secret seed behind a commitment, or None if this store never had it (or, given
        ``campaign_id``, had it for another campaign)."""
        if campaign_id is not None:
            rows = self._fetch(
                f"SELECT seed FROM {self._table(SEEDS_TABLE)} "
                "WHERE commitment = ? AND campaign_id = ?",
                (commitment, campaign_id),
            )
            return str(rows[0]["seed"]) if rows else None
        rows = self._fetch(
            f"SELECT seed FROM {self._table(SEEDS_TABLE)} WHERE commitment = ?", (commitment,)
        )
        return str(rows[0]["seed"]) if rows else None

    def idempotent_response(self, scope: str, key: str) -> tuple[str, dict[str, Any]] | None:
        """The fingerprint and stored response of an earlier request with this key."""
        rows = self._fetch(
            f"SELECT fingerprint, response FROM {self._table(IDEMPOTENCY_TABLE)} "
            "WHERE scope = ? AND key = ?",
            (scope, key),
        )
        if not rows:
            return None
        return str(rows[0]["fingerprint"]), json.loads(rows[0]["response"])

    def attempt_stored(self, attempt: str) -> bool:
        """Whether a command attempt's events are in the store.

        Asked after a write whose outcome was lost. It first waits for every event insert still in
        flight (they hold the events table's write lock until they commit or roll back), so the
        answer is final: an attempt not stored now never will be.
        """

        def read() -> bool:
            with self.datastore.transaction(commit=False) as cursor:
                self.wait_for_writers(cursor)
                cursor.execute(
                    self._sql(f"SELECT 1 FROM {self._table(ATTEMPTS_TABLE)} WHERE attempt = ?"),
                    (attempt,),
                )
                return cursor.fetchone() is not None

        return read_with_retries(read)

    def wait_for_writers(self, cursor: Any) -> None:
        """Wait until no other transaction is writing events (SQLite: nothing to wait for)."""

    @contextmanager
    def campaign_write_lock(self, campaign_id: UUID) -> Iterator[None]:
        """Hold the campaign's lock across processes while a command decides and saves.

        On SQLite this does nothing: one file has one writer at a time anyway.
        """
        yield

    def actors(
        self, campaign_id: str, *, after: int = 0, up_to: int | None = None
    ) -> dict[int, str]:
        """Who caused each event of a campaign after a version (and up to ``up_to``, if given),
        by version (events stored before actors were recorded: absent). A range of the primary
        key: what it reads is the rows asked for."""
        statement = (
            f"SELECT version, actor FROM {self._table(ACTORS_TABLE)} "
            "WHERE campaign_id = ? AND version > ?"
        )
        params: tuple[Any, ...] = (campaign_id, after)
        if up_to is not None:
            statement += " AND version <= ?"
            params += (up_to,)
        rows = self._fetch(statement, params)
        return {int(row["version"]): str(row["actor"]) for row in rows}

    # -- tokens and memberships (not part of any campaign's log) ---------------------------

    def _fetch(self, statement: str, params: tuple[Any, ...]) -> list[Any]:
        def read() -> list[Any]:
            with self.datastore.transaction(commit=False) as cursor:
                cursor.execute(self._sql(statement), params)
                return list(cursor.fetchall())

        return read_with_retries(read)

    def _write(self, statement: str, params: tuple[Any, ...]) -> None:
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(self._sql(statement), params)

    @staticmethod
    def _token(row: Any) -> Token:
        return Token(
            str(row["id"]),
            str(row["name"]),
            bool(row["admin"]),
            bool(row["revoked"]),
            analyst=row["role"] == "analyst",
        )

    def _tokens_select(self) -> str:
        """The SELECT of token rows with their role across campaigns (if any)."""
        return (
            f"SELECT t.id, t.name, t.admin, t.revoked, r.role FROM {self._table(TOKENS_TABLE)} t "
            f"LEFT JOIN {self._table(TOKEN_ROLES_TABLE)} r ON r.token_id = t.id"
        )

    def add_token(self, token: Token, hashed: str) -> None:
        """Store a new token by its hash (and an analyst's role, in the same transaction)."""
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(
                self._sql(
                    f"INSERT INTO {self._table(TOKENS_TABLE)} (id, name, hash, admin, revoked) "
                    "VALUES (?, ?, ?, ?, 0)"
                ),
                (token.id, token.name, hashed, int(token.admin)),
            )
            if token.analyst:
                cursor.execute(
                    self._sql(
                        f"INSERT INTO {self._table(TOKEN_ROLES_TABLE)} (token_id, role) "
                        "VALUES (?, ?)"
                    ),
                    (token.id, "analyst"),
                )

    def token_by_hash(self, hashed: str) -> Token | None:
        """The token with this hash, revoked or not."""
        rows = self._fetch(f"{self._tokens_select()} WHERE t.hash = ?", (hashed,))
        return self._token(rows[0]) if rows else None

    def find_token(self, name_or_id: str) -> Token | None:
        """The token with this name or id."""
        rows = self._fetch(
            f"{self._tokens_select()} WHERE t.id = ? OR t.name = ?", (name_or_id, name_or_id)
        )
        return self._token(rows[0]) if rows else None

    def tokens(self) -> list[Token]:
        """Every token, by name."""
        rows = self._fetch(f"{self._tokens_select()} ORDER BY t.name", ())
        return [self._token(row) for row in rows]

    def revoke_token(self, token_id: str) -> None:
        """Revoke a token: from now on it authenticates nobody."""
        self._write(f"UPDATE {self._table(TOKENS_TABLE)} SET revoked = 1 WHERE id = ?", (token_id,))

    def set_member(self, member: Membership) -> None:
        """Give a token a role on a campaign (replacing the one it had).

        One upsert: the token never has no role in between, and two processes giving it a
        role at once both succeed (the last one wins) instead of one failing on the key.
        """
        self._write(
            f"INSERT INTO {self._table(MEMBERS_TABLE)} (campaign_id, token_id, role, seat) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (campaign_id, token_id) "
            "DO UPDATE SET role = excluded.role, seat = excluded.seat",
            (member.campaign_id, member.token_id, member.role, member.seat),
        )

    def remove_member(self, campaign_id: str, token_id: str) -> None:
        """Take a token's role on a campaign away (nothing if it had none)."""
        self._write(
            f"DELETE FROM {self._table(MEMBERS_TABLE)} WHERE campaign_id = ? AND token_id = ?",
            (campaign_id, token_id),
        )

    def record_invite(self, token_id: str, campaign_id: str) -> None:
        """Note that the server made this token for this campaign only (share or invite)."""
        self._write(
            f"INSERT INTO {self._table(INVITES_TABLE)} (token_id, campaign_id) VALUES (?, ?)",
            (token_id, campaign_id),
        )

    def invited_to(self, token_id: str) -> str | None:
        """The campaign the server made this token for, if it made it for one."""
        rows = self._fetch(
            f"SELECT campaign_id FROM {self._table(INVITES_TABLE)} WHERE token_id = ?",
            (token_id,),
        )
        return str(rows[0]["campaign_id"]) if rows else None

    def membership(self, campaign_id: str, token_id: str) -> Membership | None:
        """A token's role on a campaign, if it has one."""
        rows = self._fetch(
            f"SELECT role, seat FROM {self._table(MEMBERS_TABLE)} "
            "WHERE campaign_id = ? AND token_id = ?",
            (campaign_id, token_id),
        )
        if not rows:
            return None
        seat = rows[0]["seat"]
        return Membership(campaign_id, token_id, str(rows[0]["role"]), seat and str(seat))

    def members(self, campaign_id: str) -> list[Membership]:
        """Every membership of a campaign."""
        rows = self._fetch(
            f"SELECT token_id, role, seat FROM {self._table(MEMBERS_TABLE)} "
            "WHERE campaign_id = ? ORDER BY token_id",
            (campaign_id,),
        )
        return [
            Membership(
                campaign_id, str(r["token_id"]), str(r["role"]), r["seat"] and str(r["seat"])
            )
            for r in rows
        ]

    def is_public(self, campaign_id: str) -> bool:
        """Whether every token may read this campaign."""
        rows = self._fetch(
            f"SELECT public FROM {self._table(ACCESS_TABLE)} WHERE campaign_id = ?",
            (campaign_id,),
        )
        return bool(rows and rows[0]["public"])

    def visible_campaigns(self, token_id: str) -> set[str]:
        """The campaigns a token holds a role on or that are public."""
        rows = self._fetch(
            f"SELECT campaign_id FROM {self._table(MEMBERS_TABLE)} WHERE token_id = ? "
            f"UNION SELECT campaign_id FROM {self._table(ACCESS_TABLE)} WHERE public = 1",
            (token_id,),
        )
        return {str(row["campaign_id"]) for row in rows}


SideRow = tuple[str, str, tuple[Any, ...]]


def side_values(stored_events: Any, kwargs: dict[str, Any]) -> Iterator[SideRow]:
    """The side-table rows (table, columns, values) an append's keyword arguments ask for."""
    first = stored_events[0]
    campaign_id, version = str(first.originator_id), first.originator_version
    attempt: str | None = kwargs.get("attempt")
    if attempt is not None:
        yield ATTEMPTS_TABLE, "attempt, campaign_id, version", (attempt, campaign_id, version)
    public: bool | None = kwargs.get("public")
    if public is not None:
        yield ACCESS_TABLE, "campaign_id, public", (campaign_id, int(public))
    yield from actor_values(stored_events, kwargs.get("actor"), kwargs.get("actors"))
    owner: Membership | None = kwargs.get("owner")
    if owner is not None:
        values = (owner.campaign_id, owner.token_id, owner.role, owner.seat)
        yield MEMBERS_TABLE, "campaign_id, token_id, role, seat", values
    seed: SeedRecord | None = kwargs.get("seed")
    if seed is not None:
        yield (
            SEEDS_TABLE,
            "commitment, campaign_id, seed",
            (seed.commitment, seed.campaign_id, seed.seed),
        )
    fork: ForkRecord | None = kwargs.get("fork")
    if fork is not None:
        columns = "origin_id, campaign_id, at_version, name, created_at"
        yield FORKS_TABLE, columns, (*fork.as_row(),)
    record: IdempotencyRecord | None = kwargs.get("idempotency")
    if record is not None:
        values = (record.scope, record.key, record.fingerprint, json.dumps(record.response))
        yield IDEMPOTENCY_TABLE, "scope, key, fingerprint, response", values


def actor_values(
    stored_events: Any, actor: str | None, actors: dict[int, str] | None
) -> Iterator[SideRow]:
    """Who recorded each event: one ``actor`` for the whole append, or (an import) each event's
    own actor in ``actors``, by version, where an event without one gets no row."""
    for stored in stored_events if actor is not None or actors else ():
        label = actor if actors is None else actors.get(stored.originator_version)
        if label is not None:
            values = (str(stored.originator_id), stored.originator_version, label)
            yield ACTORS_TABLE, "campaign_id, version, actor", values
