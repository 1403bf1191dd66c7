"""Storage: where events, dice seeds and idempotency records live, on SQLite or PostgreSQL.

Tables sit beside eventsourcing's ``stored_events``:

- ``questlog_seeds``: each campaign's secret server seeds, by commitment. Seeds never go into an
  event until they are revealed, so the public log (and its snapshots) never holds a secret.
- ``questlog_idempotency``: the first response to each ``Idempotency-Key``.
- ``questlog_actors``: who caused each event, keyed by (campaign, version).
- ``questlog_members``: the owner a new campaign gets from the token that created it (other
  memberships and ``questlog_tokens`` are written on their own: they are not part of any
  campaign's log).
- ``questlog_access``: whether a campaign is public, written with its creation event.
- ``questlog_attempts``: one row per stored command attempt, so that after a commit whose answer
  was lost (the connection dropped) the application can find out whether the attempt is stored.
- ``questlog_rate_buckets`` (PostgreSQL only): each token's append rate-limit bucket, shared by
  every API process on the store (on SQLite, one process keeps its buckets in memory).
- ``questlog_signing_keys`` (PostgreSQL only): the signing key ring (``domain.storage.keys``),
  unless ``QUESTLOG_SIGNING_KEY`` names a file for it (on SQLite it is a file beside the store).

Seeds, idempotency records, actors, owners, access flags and attempts are written by the
application recorder *inside the same transaction* as the events of the command that needs them,
and *after* the events, so a version conflict is the events' unique key failing at once and a
crash stores either the whole command or none of it. Tokens are stored only as SHA-256 hashes of
their secrets.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit
from uuid import UUID

import psycopg
from eventsourcing import postgres as es_postgres
from eventsourcing.persistence import InterfaceError, InternalError, OperationalError
from eventsourcing.postgres import PostgresDatastore
from psycopg.pq import TransactionStatus
from psycopg_pool import PoolTimeout

from domain import settings
from domain.model.access import Membership, Token
from domain.storage.advisory_locks import (
    KEY_RING_LOCK_KEY,
    SETUP_LOCK_KEY,
    begin_with_transaction_lock,
    campaign_lock_keys,
    session_lock,
)
from domain.storage.es_compat import (
    PostgresRecorderHooks,
    SQLiteRecorderHooks,
    end_open_transaction,
    on_new_connections,
    sweep_on_dead_connection,
    undecorated,
)

SEEDS_TABLE = "questlog_seeds"
CAMPAIGN_LOCK_TIMEOUT = "2s"
"""How long a command waits for another process's command on the same campaign before it goes on
without the lock (the events' unique version key still refuses a stale write)."""
IDEMPOTENCY_TABLE = "questlog_idempotency"
ACTORS_TABLE = "questlog_actors"
TOKENS_TABLE = "questlog_tokens"
MEMBERS_TABLE = "questlog_members"
ACCESS_TABLE = "questlog_access"
ATTEMPTS_TABLE = "questlog_attempts"
RATE_TABLE = "questlog_rate_buckets"
INVITES_TABLE = "questlog_invites"
"""Tokens the server made for one campaign (a share link or an invitation): removing their
membership revokes them, since they hold nothing else."""
KEYS_TABLE = "questlog_signing_keys"
APPLICATION_NAME = "questlog"
"""PostgreSQL ``application_name`` of every connection (``questlog/<schema>``), so an operator
can tell the service's connections apart in ``pg_stat_activity``."""
TRANSIENT_ERRORS = (OperationalError, InterfaceError, InternalError)
"""Store failures that say nothing about the request: a lost connection, a database restarting,
a lock timeout, a full disk. A read may simply be tried again; a write may or may not be stored."""
READ_ATTEMPTS = 4
READ_BACKOFF_SECONDS = 0.05
RETRIED_READS = ("select_events", "select_notifications", "max_notification_id")
"""eventsourcing's PostgreSQL reads, which it retries 10 times 0.2 s apart; see limit_retries."""
T = TypeVar("T")
log = logging.getLogger("questlog.store")


def never_sent(error: BaseException | None) -> bool:
    """Whether a store error came before any statement was sent (no connection could be had)."""
    while error is not None:
        if isinstance(error, PoolTimeout):
            return True
        error = error.__cause__ or error.__context__
    return False


def server_refused(error: BaseException | None) -> bool:
    """Whether PostgreSQL answered a statement with an error, so its transaction is rolled back.

    A lock timeout, a full disk or a failed constraint comes back as an error with its SQLSTATE
    while the connection lives on: that transaction never commits. Only a lost connection (class
    08, an operator's intervention such as ``pg_terminate_backend`` in class 57, or no SQLSTATE at
    all) leaves the outcome open.
    """
    while error is not None:
        sqlstate = getattr(error, "sqlstate", None)
        if sqlstate:
            return not str(sqlstate).startswith(("08", "57"))
        error = error.__cause__ or error.__context__
    return False


def read_with_retries(read: Callable[[], T]) -> T:
    """Run a read, trying again after a transient failure (a pooled connection found dead).

    A read that could not even get a connection has waited the pool's whole timeout already
    (the database is down or restarting): it is not tried again.
    """
    for attempt in range(READ_ATTEMPTS):
        try:
            return read()
        except TRANSIENT_ERRORS as error:
            if attempt == READ_ATTEMPTS - 1 or never_sent(error):
                raise
            time.sleep(READ_BACKOFF_SECONDS * 2**attempt)
    raise AssertionError("unreachable")


def limit_retries(recorder: Any) -> None:
    """Give a recorder's reads our bounded retries instead of eventsourcing's 10 x 0.2 s.

    While PostgreSQL is down, each of eventsourcing's retries first waits the pool's timeout, so
    one read could take half a minute before the client heard anything.
    """
    for name in RETRIED_READS:
        read = undecorated(type(recorder), name)
        if read is None:
            continue

        def bounded(*args: Any, _read: Any = read, **kwargs: Any) -> Any:
            return read_with_retries(lambda: _read(recorder, *args, **kwargs))

        setattr(recorder, name, bounded)


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


class SideTables:
    """Seeds and idempotency records, written in the events' transaction (dialect-neutral SQL)."""

    placeholder = "?"
    write_options: dict[str, Any] = {}
    datastore: Any
    shares_rate_buckets = False
    """Whether the store keeps the rate-limit buckets (``take_rate_token``) for every process."""

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
        ]

    def _sql(self, statement: str) -> str:
        return statement.replace("?", self.placeholder)

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

        def insert(table: str, columns: str, *values: Any) -> None:
            marks = ", ".join("?" * len(values))
            statement = f"INSERT INTO {self._table(table)} ({columns}) VALUES ({marks})"
            rows.append((self._sql(statement), values))

        if not stored_events:
            return rows
        first = stored_events[0]
        attempt: str | None = kwargs.get("attempt")
        if attempt is not None:
            insert(
                ATTEMPTS_TABLE,
                "attempt, campaign_id, version",
                attempt,
                str(first.originator_id),
                first.originator_version,
            )
        public: bool | None = kwargs.get("public")
        if public is not None:
            insert(ACCESS_TABLE, "campaign_id, public", str(first.originator_id), int(public))
        actor: str | None = kwargs.get("actor")
        # An import keeps each event's own actor (``actors``, by version; none: no row).
        actors: dict[int, str] | None = kwargs.get("actors")
        for stored in stored_events if actor is not None or actors else ():
            label = actor if actors is None else actors.get(stored.originator_version)
            if label is not None:
                insert(
                    ACTORS_TABLE,
                    "campaign_id, version, actor",
                    str(stored.originator_id),
                    stored.originator_version,
                    label,
                )
        owner: Membership | None = kwargs.get("owner")
        if owner is not None:
            insert(
                MEMBERS_TABLE,
                "campaign_id, token_id, role, seat",
                owner.campaign_id,
                owner.token_id,
                owner.role,
                owner.seat,
            )
        seed: SeedRecord | None = kwargs.get("seed")
        if seed is not None:
            insert(
                SEEDS_TABLE,
                "commitment, campaign_id, seed",
                seed.commitment,
                seed.campaign_id,
                seed.seed,
            )
        record: IdempotencyRecord | None = kwargs.get("idempotency")
        if record is not None:
            insert(
                IDEMPOTENCY_TABLE,
                "scope, key, fingerprint, response",
                record.scope,
                record.key,
                record.fingerprint,
                json.dumps(record.response),
            )
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

    def actors(self, campaign_id: str) -> dict[int, str]:
        """Who caused each event of a campaign, by version (events stored before: absent)."""
        rows = self._fetch(
            f"SELECT version, actor FROM {self._table(ACTORS_TABLE)} WHERE campaign_id = ?",
            (campaign_id,),
        )
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
        return Token(str(row["id"]), str(row["name"]), bool(row["admin"]), bool(row["revoked"]))

    def add_token(self, token: Token, hashed: str) -> None:
        """Store a new token by its hash."""
        self._write(
            f"INSERT INTO {self._table(TOKENS_TABLE)} (id, name, hash, admin, revoked) "
            "VALUES (?, ?, ?, ?, 0)",
            (token.id, token.name, hashed, int(token.admin)),
        )

    def token_by_hash(self, hashed: str) -> Token | None:
        """The token with this hash, revoked or not."""
        rows = self._fetch(
            f"SELECT id, name, admin, revoked FROM {self._table(TOKENS_TABLE)} WHERE hash = ?",
            (hashed,),
        )
        return self._token(rows[0]) if rows else None

    def find_token(self, name_or_id: str) -> Token | None:
        """The token with this name or id."""
        rows = self._fetch(
            f"SELECT id, name, admin, revoked FROM {self._table(TOKENS_TABLE)} "
            "WHERE id = ? OR name = ?",
            (name_or_id, name_or_id),
        )
        return self._token(rows[0]) if rows else None

    def tokens(self) -> list[Token]:
        """Every token, by name."""
        rows = self._fetch(
            f"SELECT id, name, admin, revoked FROM {self._table(TOKENS_TABLE)} ORDER BY name", ()
        )
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


class SQLiteRecorder(SideTables, SQLiteRecorderHooks):
    """The SQLite application recorder with the side tables."""

    def construct_create_table_statements(self) -> list[str]:
        """Events table, then the side tables."""
        return [*super().construct_create_table_statements(), *self.side_table_statements()]

    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        """The side rows, in the events' transaction after the events."""
        self.insert_side_rows(cursor, stored_events, **kwargs)


COMBINED_SIDE_ROWS = 8
"""At most this many side rows go in one PostgreSQL statement (a command writes 2 to 5)."""


class PostgresRecorder(SideTables, PostgresRecorderHooks):
    """The PostgreSQL application recorder with the side tables.

    Inserts are sent once, never retried blindly: after a failure the application asks
    ``attempt_stored`` what happened (``PostgresRecorderHooks.insert_events``).
    """

    placeholder = "%s"
    shares_rate_buckets = True
    # These rows are written inside eventsourcing's pipelined insert. psycopg prepares a statement
    # after a few executions, and a pipeline that fails (a version conflict) can drop the prepared
    # statement while psycopg still believes it exists ("prepared statement ... does not exist").
    write_options: dict[str, Any] = {"prepare": False}

    def __init__(self, datastore: Any, **kwargs: Any) -> None:
        # Before super().__init__, which opens the pool's first connections.
        configure_pool(datastore, APPLICATION_NAME, unprepared=True)
        super().__init__(datastore, **kwargs)
        self._held = threading.local()
        sql: Any = es_postgres.SQL  # type: ignore[attr-defined]  # psycopg's, via eventsourcing
        statements = [
            *self.side_table_statements(),
            self.rate_table_statement(),
            f"CREATE TABLE IF NOT EXISTS {self._table(KEYS_TABLE)} ("
            "id TEXT PRIMARY KEY, ring TEXT NOT NULL)",
        ]
        self.sql_create_statements.extend(sql(s) for s in statements)

    def _table(self, name: str) -> str:
        return f'"{self.datastore.schema}".{name}'

    def after_insert_events(self, cursor: Any, stored_events: Any, **kwargs: Any) -> None:
        """The side rows, queued after the events' insert (a conflict there skips them)."""
        self.insert_side_rows(cursor, stored_events, **kwargs)

    def execute_side_rows(self, cursor: Any, rows: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Every side row in one statement: the INSERTs but the last as data-modifying ``WITH``
        queries of the last (PostgreSQL runs each exactly once, in the one statement), which
        costs the client and the server one statement instead of one per row."""
        if len(rows) == 1 or len(rows) > COMBINED_SIDE_ROWS:
            # An import writes a row per event: one statement each, as many as there are, since
            # a WITH of thousands of queries plans slowly and can exceed 65,535 parameters.
            super().execute_side_rows(cursor, rows)
            return
        *leading, (last, last_params) = rows
        queries = ", ".join(
            f"side_{n} AS ({statement})" for n, (statement, _) in enumerate(leading)
        )
        params = tuple(value for _, values in leading for value in values) + last_params
        cursor.execute(f"WITH {queries} {last}", params, **self.write_options)

    def originator_locks(self, stored_events: Any) -> list[tuple[str, tuple[Any, ...]]]:
        """Each written campaign's advisory lock, for an insert that does not hold it.

        A process takes the campaign lock for a whole command only where it has met another
        process (``CommandService.execute``); its insert still waits here, in the same round
        trip, for a process that holds the lock while it decides. So a writer that has never
        conflicted cannot slip its insert between another's read and write: it waits, then meets
        the version key, and from then on takes the lock for its commands too. The locks are
        taken in id order (no deadlock between two multi-campaign inserts), each waiting at
        most ``CAMPAIGN_LOCK_TIMEOUT``.
        """
        calls: list[tuple[str, tuple[Any, ...]]] = []
        for campaign_id in sorted({stored.originator_id for stored in stored_events}):
            keys = campaign_lock_keys(campaign_id)
            calls.append(("set_config('lock_timeout', %s, true)", (CAMPAIGN_LOCK_TIMEOUT,)))
            calls.append((f"pg_advisory_xact_lock({', '.join(['%s'] * len(keys))})", keys))
        return calls

    @contextmanager
    def campaign_write_lock(self, campaign_id: UUID) -> Iterator[None]:
        """A transaction-scoped advisory lock on the campaign, held while a command runs.

        Without it, two processes writing one campaign race: the one that just wrote holds the
        newest state and keeps winning, while the other reloads, conflicts and backs off. With
        it they take turns (PostgreSQL grants waiting locks in order). It is for fairness, not
        correctness: if it cannot be had within ``CAMPAIGN_LOCK_TIMEOUT`` (or its connection is
        lost), the command goes on without it and the unique version key refuses a stale write.

        The lock's transaction is begun and the lock taken in one round trip, and the command's
        insert commits it (``open_transaction``): the lock costs no connection and no round trip
        of its own beyond that first one. A command that stores nothing rolls it back.
        """
        held = ExitStack()
        try:
            connection = held.enter_context(self.datastore.get_connection())
            held.callback(end_open_transaction, connection)
            begin_with_transaction_lock(
                connection, campaign_lock_keys(campaign_id), timeout=CAMPAIGN_LOCK_TIMEOUT
            )
        except (*TRANSIENT_ERRORS, psycopg.OperationalError, psycopg.InterfaceError) as error:
            # Raised inside the held connection, a driver error is not yet translated.
            log.warning("campaign %s: going on without its lock: %s", campaign_id, error)
            _release(held)
        except BaseException:
            # Any other failure (or an interrupt) must not keep the connection, nor its lock.
            _release(held)
            raise
        else:
            self._held.connection = connection
        try:
            yield
        finally:
            self._held.connection = None
            _release(held)

    def open_transaction(self) -> Any | None:
        """The connection of this thread's campaign lock, while its transaction is open."""
        connection = getattr(self._held, "connection", None)
        if connection is None or connection.info.transaction_status != TransactionStatus.INTRANS:
            return None
        return connection

    def _fetch(self, statement: str, params: tuple[Any, ...]) -> list[Any]:
        """One SELECT in autocommit: one round trip, where a transaction would add two."""

        def read() -> list[Any]:
            with self.datastore.get_connection() as connection:
                return list(connection.execute(self._sql(statement), params).fetchall())

        return read_with_retries(read)

    def signing_ring(self) -> str | None:
        """The signing key ring's JSON kept in the store, if any."""
        rows = self._fetch(f"SELECT ring FROM {self._table(KEYS_TABLE)} WHERE id = 'ring'", ())
        return str(rows[0]["ring"]) if rows else None

    def write_signing_ring(self, ring: str) -> None:
        """Keep the signing key ring's JSON in the store (its one row)."""
        self._write(
            f"INSERT INTO {self._table(KEYS_TABLE)} (id, ring) VALUES ('ring', ?) "
            "ON CONFLICT (id) DO UPDATE SET ring = excluded.ring",
            (ring,),
        )

    @contextmanager
    def ring_lock(self) -> Iterator[None]:
        """An advisory lock held while the key ring is made or rotated, across processes."""
        with (
            self.datastore.get_connection() as connection,
            session_lock(connection, (KEY_RING_LOCK_KEY,)),
        ):
            yield

    def rate_table_statement(self) -> str:
        """CREATE statement of the rate-limit buckets: tokens left at ``stamp`` (epoch seconds,
        the database's clock) and whether the last take was allowed."""
        return (
            f"CREATE TABLE IF NOT EXISTS {self._table(RATE_TABLE)} ("
            "key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, "
            "stamp DOUBLE PRECISION NOT NULL, allowed BOOLEAN NOT NULL)"
        )

    def take_rate_token(self, key: str, rate: float, burst: float) -> float:
        """Take one append from ``key``'s bucket, shared by every process on this store: 0 if
        allowed, else the seconds until one is allowed.

        One statement refills the bucket from its stored stamp at ``rate`` per second (at most
        ``burst``) and takes a token if one is there. PostgreSQL locks the row for the upsert, so
        N processes taking at once are served one after the other and together get exactly the
        rate. The time is the database's (one clock for every process and host); a stamp a
        racing statement already moved past never refills backwards.
        """
        table = self._table(RATE_TABLE)
        available = (
            "LEAST(%(burst)s, bucket.tokens + %(rate)s * GREATEST(0, "
            "extract(epoch FROM statement_timestamp()) - bucket.stamp))"
        )
        statement = (
            f"INSERT INTO {table} AS bucket (key, tokens, stamp, allowed) "
            "VALUES (%(key)s, %(burst)s - 1, extract(epoch FROM statement_timestamp()), true) "
            "ON CONFLICT (key) DO UPDATE SET "
            f"tokens = CASE WHEN {available} >= 1 THEN {available} - 1 ELSE {available} END, "
            "stamp = GREATEST(bucket.stamp, extract(epoch FROM statement_timestamp())), "
            f"allowed = {available} >= 1 "
            "RETURNING tokens, allowed"
        )
        params = {"key": key, "rate": float(rate), "burst": float(burst)}
        # One statement on an autocommit connection: one round trip, no BEGIN and COMMIT.
        with self.datastore.cursor() as cursor:
            cursor.execute(statement, params, prepare=False)
            row = cursor.fetchone()
        if row["allowed"]:
            return 0.0
        return (1.0 - float(row["tokens"])) / rate

    def wait_for_writers(self, cursor: Any) -> None:
        """Take a lock that conflicts with the events table's write lock, and so waits for it."""
        cursor.execute("SET LOCAL lock_timeout = '5s'", prepare=False)
        cursor.execute(
            f'LOCK TABLE "{self.datastore.schema}"."{self.events_table_name}" IN SHARE MODE',
            prepare=False,
        )


def configure_pool(datastore: Any, name: str, *, unprepared: bool) -> None:
    """Set up an eventsourcing PostgreSQL datastore's pool before it opens its connections.

    Every connection is named ``<name>/<schema>`` (``application_name``); a dead pooled
    connection makes the pool sweep all its idle ones (``es_compat.sweep_on_dead_connection``);
    with ``unprepared`` every statement runs unprepared (see ``_unprepared_cursor``).
    """
    label = f"{name}/{datastore.schema}"[:63]

    def on_connect(connection: Any) -> None:
        connection.execute("SELECT set_config('application_name', %s, false)", (label,))
        if unprepared:
            connection.prepare_threshold = None
            connection.cursor_factory = _unprepared_cursor(connection.cursor_factory)

    on_new_connections(datastore.pool, on_connect)
    sweep_on_dead_connection(datastore.pool)


def _release(held: ExitStack) -> None:
    """End the lock's transaction; a lost connection has released the lock already."""
    try:
        held.close()
    except TRANSIENT_ERRORS as error:
        log.warning("campaign lock released with its connection: %s", error)


_UNPREPARED: dict[type[Any], type[Any]] = {}


def _unprepared_cursor(base: type[Any]) -> type[Any]:
    """psycopg's cursor class, with every statement run unprepared.

    eventsourcing asks psycopg to prepare its statements. After a pipelined insert fails on a
    version conflict, psycopg can believe in a prepared statement the server no longer has
    ("prepared statement _pg3_1 does not exist"), and a later read fails. Unprepared statements
    cost a parse each, which is small beside the round trip.
    """
    if base in _UNPREPARED.values():
        return base
    if base not in _UNPREPARED:

        class UnpreparedCursor(base):  # type: ignore[misc]
            def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
                kwargs["prepare"] = False
                return super().execute(query, params, **kwargs)

        _UNPREPARED[base] = UnpreparedCursor
    return _UNPREPARED[base]


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``<path>.lock`` beside ``path``, across processes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True)
class StoreConfig:
    """Where the log lives: a SQLite file (default) or a PostgreSQL URL.

    ``sqlite_path`` may be given as a ``str`` or any path-like; it is kept as a ``Path``.
    """

    sqlite_path: Path | None = None
    database_url: str | None = None
    postgres_schema: str | None = None
    signing_key: Path | None = None
    """The signing key ring's file (default: beside a SQLite store; PostgreSQL: a table)."""
    log_name: str | None = None
    """The log's name, given to a new key ring (``domain.storage.keys``)."""

    def __init__(
        self,
        sqlite_path: str | os.PathLike[str] | None = None,
        database_url: str | None = None,
        postgres_schema: str | None = None,
        signing_key: str | os.PathLike[str] | None = None,
        log_name: str | None = None,
    ) -> None:
        path = None if sqlite_path is None else Path(sqlite_path)
        object.__setattr__(self, "sqlite_path", path)
        object.__setattr__(self, "database_url", database_url)
        object.__setattr__(self, "postgres_schema", postgres_schema)
        object.__setattr__(self, "signing_key", None if signing_key is None else Path(signing_key))
        object.__setattr__(self, "log_name", log_name)

    @classmethod
    def from_environ(cls, environ: dict[str, str] | None = None) -> StoreConfig:
        """Read ``QUESTLOG_DATABASE_URL`` (PostgreSQL) or ``QUESTLOG_DB`` (SQLite file), and
        ``QUESTLOG_SIGNING_KEY`` and ``QUESTLOG_LOG_NAME`` (the key ring)."""
        chosen = settings.read(environ)
        keys: dict[str, Any] = {"signing_key": chosen.signing_key, "log_name": chosen.log_name}
        if chosen.database_url:
            return cls(database_url=chosen.database_url, postgres_schema=chosen.pg_schema, **keys)
        return cls(sqlite_path=chosen.sqlite_file, **keys)

    @property
    def kind(self) -> str:
        """'postgres' or 'sqlite'."""
        return "postgres" if self.database_url else "sqlite"

    def describe(self) -> str:
        """Where the store is, without any password."""
        if self.database_url:
            parts = urlsplit(self.database_url)
            return f"postgresql://{parts.hostname}:{parts.port or 5432}{parts.path}"
        return f"sqlite:{self.sqlite_path}"

    def application_env(self, prefix: str) -> dict[str, str]:
        """The eventsourcing environment for this store, with keys prefixed by the app name."""
        env: dict[str, str] = {}
        if self.database_url:
            parts = urlsplit(self.database_url)
            if parts.scheme not in ("postgresql", "postgres"):
                raise ValueError("QUESTLOG_DATABASE_URL must start with postgresql://")
            env.update(
                PERSISTENCE_MODULE="eventsourcing.postgres",
                POSTGRES_DBNAME=unquote(parts.path.lstrip("/")) or "postgres",
                POSTGRES_HOST=parts.hostname or "127.0.0.1",
                POSTGRES_PORT=str(parts.port or 5432),
                POSTGRES_USER=unquote(parts.username or "postgres"),
                POSTGRES_PASSWORD=unquote(parts.password or ""),
                POSTGRES_POOL_SIZE="4",
                POSTGRES_MAX_OVERFLOW="16",
                POSTGRES_LOCK_TIMEOUT="10",
                POSTGRES_CONNECT_TIMEOUT="3",
                POSTGRES_PRE_PING="y",
                POSTGRES_ENABLE_DB_FUNCTIONS="no",
                APPLICATION_RECORDER_TOPIC="domain.storage.store:PostgresRecorder",
            )
            if self.postgres_schema:
                env["POSTGRES_SCHEMA"] = self.postgres_schema
        else:
            assert self.sqlite_path is not None
            env.update(
                PERSISTENCE_MODULE="eventsourcing.sqlite",
                SQLITE_DBNAME=str(self.sqlite_path),
                SQLITE_LOCK_TIMEOUT="30",
                APPLICATION_RECORDER_TOPIC="domain.storage.store:SQLiteRecorder",
            )
        return {f"{prefix}_{key}": value for key, value in env.items()}

    @contextmanager
    def _postgres_setup_lock(self) -> Iterator[None]:
        """A PostgreSQL advisory lock, so concurrent first starts do not race on CREATE TABLE."""
        env = self.application_env("LOCK")
        datastore = PostgresDatastore(
            dbname=env["LOCK_POSTGRES_DBNAME"],
            host=env["LOCK_POSTGRES_HOST"],
            port=env["LOCK_POSTGRES_PORT"],
            user=env["LOCK_POSTGRES_USER"],
            password=env["LOCK_POSTGRES_PASSWORD"],
        )
        try:
            with (
                datastore.get_connection() as connection,
                session_lock(connection, (SETUP_LOCK_KEY,)),
            ):
                yield
        finally:
            datastore.close()

    @contextmanager
    def creation_lock(self) -> Iterator[None]:
        """Serialise first-time setup of a SQLite file across processes (no-op on PostgreSQL).

        Two processes that open a new file together would both switch it to WAL mode and create
        tables; SQLite then answers "database is locked" to one of them. An exclusive ``flock`` on
        a lock file beside the database makes the second wait until the first is done.
        """
        if self.sqlite_path is None:
            with self._postgres_setup_lock():
                yield
            return
        with file_lock(self.sqlite_path):
            yield
