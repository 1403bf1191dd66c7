"""The roll and command routes may let a token in from the process's memory (PostgreSQL), and a
token revoked by another process still stops working at once: its append stores nothing.

On PostgreSQL a roll by a token the process has seen is one round trip (for PostgreSQL with one
process at 0.8x SQLite's rate): the append's own transaction checks the token, where it used to be
looked up first. On SQLite every request looks its token up, as before. Both stores must refuse a
token that another process (another ``Questlog`` on the same store) has revoked, with nothing
stored, whether or not the request would have appended.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID

import psycopg
import pytest
from flask.testing import FlaskClient

from domain.model.access import TOKEN_REFUSED, Token, TokenCheck, acting_as
from domain.model.games import RULES
from domain.service.questlog import Questlog
from domain.storage import es_compat
from domain.storage.advisory_locks import campaign_lock_keys
from domain.storage.store import StoreConfig
from webapi.app import create_app

POSTGRES_ONLY = pytest.mark.parametrize(
    "store_config", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)


def _client(app: Questlog) -> FlaskClient:
    return create_app(app, auth=True, rate_limit=0, TESTING=True).test_client()


def _setup(app: Questlog) -> tuple[FlaskClient, dict[str, str], str]:
    """A client of the app, an admin token's header and a campaign made with it."""
    _, secret = app.access.create_token("cached", admin=True)
    headers = {"Authorization": f"Bearer {secret}"}
    client = _client(app)
    body = {"game": "quest-calendar", "name": "token cache"}
    made = client.post("/campaigns", json=body, headers=headers)
    assert made.status_code == 201
    return client, headers, made.get_json()["id"]


class Counter:
    round_trips = 0
    checkouts = 0


@contextmanager
def _round_trips(app: Questlog) -> Iterator[Counter]:
    """Count the waits for PostgreSQL: a statement outside a pipeline, or a pipeline's sync, made
    by this thread (the test client's requests run on it; a thread another test of this worker
    left running, a views runner say, may talk to PostgreSQL meanwhile)."""
    counter = Counter()
    me = threading.get_ident()
    execute, pipeline = psycopg.Cursor.execute, psycopg.Connection.pipeline
    pool: Any = app.recorder.datastore.pool  # type: ignore[attr-defined]
    getconn = pool.getconn

    def on_execute(self: Any, query: Any, params: Any = None, **kwargs: Any) -> Any:
        if self.connection._pipeline is None and threading.get_ident() == me:
            counter.round_trips += 1
        return execute(self, query, params, **kwargs)

    @contextmanager
    def on_pipeline(self: Any) -> Iterator[Any]:
        with pipeline(self) as opened:
            yield opened
        if threading.get_ident() == me:
            counter.round_trips += 1

    def on_getconn(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == me:
            counter.checkouts += 1
        return getconn(*args, **kwargs)

    psycopg.Cursor.execute = on_execute  # type: ignore[method-assign]
    psycopg.Connection.pipeline = on_pipeline  # type: ignore[assignment,method-assign]
    pool.getconn = on_getconn
    try:
        yield counter
    finally:
        psycopg.Cursor.execute = execute  # type: ignore[method-assign]
        psycopg.Connection.pipeline = pipeline  # type: ignore[method-assign]
        del pool.getconn


def _version(app: Questlog, cid: str) -> int:
    return app.campaign(UUID(cid)).version


@POSTGRES_ONLY
def test_a_roll_by_a_token_seen_before_is_one_round_trip(
    app: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pooled connection idle for a second is pinged before it is lent: not a roll's cost.
    monkeypatch.setattr(es_compat, "IDLE_PING_SECONDS", 3600.0)
    client, headers, cid = _setup(app)
    path = f"/campaigns/{cid}/rolls"
    assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 201
    with _round_trips(app) as counted:
        for _ in range(5):
            assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 201
    assert (counted.round_trips, counted.checkouts) == (5, 5)
    # A route that is not declared token_from_cache still looks its token up.
    with _round_trips(app) as counted:
        assert client.get(f"/campaigns/{cid}", headers=headers).status_code == 200
    assert counted.round_trips >= 2


def test_a_token_revoked_by_another_process_stores_nothing(
    make_app: Callable[[], Questlog],
) -> None:
    first, other = make_app(), make_app()
    client, headers, cid = _setup(first)
    path = f"/campaigns/{cid}/rolls"
    for _ in range(2):  # the second from the process's memory, on PostgreSQL
        assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 201
    stored = _version(first, cid)
    other.access.revoke_token("cached")
    refused = client.post(path, json={"dice": "d20"}, headers=headers)
    assert refused.status_code == 401
    assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    # A command that a live token would have stored (the hero chosen): refused, nothing stored.
    hero = RULES["quest-calendar"].commands["select_hero"].example
    command = client.post(f"/campaigns/{cid}/commands", json=hero, headers=headers)
    assert command.status_code == 401
    assert _version(other, cid) == stored
    assert client.get(f"/campaigns/{cid}", headers=headers).status_code == 401


def test_an_answer_that_stores_nothing_is_a_401_once_revoked_elsewhere(
    make_app: Callable[[], Questlog],
) -> None:
    first, other = make_app(), make_app()
    client, headers, cid = _setup(first)
    path = f"/campaigns/{cid}/rolls"
    assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 201
    key = {**headers, "Idempotency-Key": "once"}
    assert client.post(path, json={"dice": "d20"}, headers=key).status_code == 201
    assert client.post(path, json={"dice": "d20", "faces": [99]}, headers=headers).status_code in (
        409,
        422,
    )
    other.access.revoke_token("cached")
    # Refused by a rule or replayed from the store: no append checks the token, so it is looked up.
    refused = client.post(path, json={"dice": "d20", "faces": [99]}, headers=headers)
    assert refused.status_code == 401
    assert client.post(path, json={"dice": "d20"}, headers=key).status_code == 401


def test_a_revocation_here_empties_the_memory(app: Questlog, store_config: StoreConfig) -> None:
    client, headers, cid = _setup(app)
    path = f"/campaigns/{cid}/rolls"
    assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 201
    secret = headers["Authorization"].removeprefix("Bearer ")
    found = app.access.authenticate_for_append(secret)
    assert found is not None
    assert (found[1] is not None) == (store_config.kind == "postgres")  # from memory
    app.access.revoke_token("cached")
    assert app.access.authenticate_for_append(secret) is None
    assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 401


@POSTGRES_ONLY
def test_a_refused_token_inside_the_campaign_lock_stores_nothing_and_lets_the_lock_go(
    make_app: Callable[[], Questlog], store_config: StoreConfig
) -> None:
    first, other = make_app(), make_app()
    client, headers, cid = _setup(first)
    path = f"/campaigns/{cid}/rolls"
    assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 201
    first._mark_contended(UUID(cid))  # its commands now hold the campaign lock (nested insert)
    assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 201
    stored = _version(first, cid)
    other.access.revoke_token("cached")
    assert client.post(path, json={"dice": "d20"}, headers=headers).status_code == 401
    assert _version(other, cid) == stored
    assert store_config.database_url is not None
    with psycopg.connect(store_config.database_url, autocommit=True) as session:
        keys = campaign_lock_keys(UUID(cid))
        row = session.execute("SELECT pg_try_advisory_lock(%s, %s)", keys).fetchone()
        assert row is not None and row[0]
        session.execute("SELECT pg_advisory_unlock(%s, %s)", keys)


@pytest.mark.postgres
def test_only_the_checks_own_failure_is_a_refused_token(postgres_url: str) -> None:
    """The marker in another error's detail (a duplicate key quoting an ``Idempotency-Key``, say)
    is not a refused token, nor the check's failure when no cached token is being checked."""
    token = Token(id="1", name="t", admin=True)
    with psycopg.connect(postgres_url, autocommit=True) as session:
        with pytest.raises(psycopg.Error) as cast:
            session.execute(f"SELECT ('{TOKEN_REFUSED} 0')::int")
        session.execute("CREATE TEMPORARY TABLE keys (k TEXT PRIMARY KEY)")
        session.execute("INSERT INTO keys VALUES (%s)", (f"{TOKEN_REFUSED} 1",))
        with pytest.raises(psycopg.Error) as duplicate:
            session.execute("INSERT INTO keys VALUES (%s)", (f"{TOKEN_REFUSED} 1",))
    assert TOKEN_REFUSED in str(duplicate.value)
    assert not es_compat.refused_token(cast.value)
    with acting_as(token, TokenCheck(token.id)):
        assert es_compat.refused_token(cast.value)
        assert not es_compat.refused_token(duplicate.value)
