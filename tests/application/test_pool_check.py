"""The pool's check before use (``es_compat.server_has_spoken``): an idle pooled connection is
pinged only when the server has said something on it, which a terminated backend, a restart or
an idle timeout always does before closing (docs/reliability.md: terminated backends cost a
reconnect, not an error)."""

from __future__ import annotations

import time

import psycopg
import psycopg_pool
import pytest

from domain.storage import es_compat
from domain.storage.es_compat import server_has_spoken


def wait_until_spoken(connection: psycopg.Connection, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server_has_spoken(connection):
            return True
        time.sleep(0.01)
    return False


@pytest.mark.postgres
def test_an_idle_live_connection_needs_no_ping(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("SELECT 1").fetchall()
        assert not server_has_spoken(connection)


@pytest.mark.postgres
def test_a_terminated_backend_is_seen_without_a_round_trip(postgres_url: str) -> None:
    with (
        psycopg.connect(postgres_url, autocommit=True) as victim,
        psycopg.connect(postgres_url, autocommit=True) as admin,
    ):
        admin.execute("SELECT pg_terminate_backend(%s)", (victim.info.backend_pid,))
        assert wait_until_spoken(victim)
        with pytest.raises(psycopg.OperationalError):
            victim.execute("")  # the ping the pool then sends fails, and it reconnects


@pytest.mark.postgres
def test_a_closed_connection_counts_as_spoken(postgres_url: str) -> None:
    connection = psycopg.connect(postgres_url, autocommit=True)
    connection.close()
    assert server_has_spoken(connection)


@pytest.mark.postgres
def test_a_connection_idle_for_a_while_is_pinged_and_a_busy_one_is_not(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that dies without a word leaves the socket silent: an idle connection is pinged
    before use as before (``es_compat.recently_lent``); under load none is."""
    pings: list[int] = []

    def counted(connection: psycopg.Connection) -> None:
        pings.append(1)
        connection.execute("")

    monkeypatch.setattr(psycopg_pool.ConnectionPool, "check_connection", staticmethod(counted))
    pool = psycopg_pool.ConnectionPool(
        postgres_url,
        min_size=1,
        max_size=1,
        check=counted,
        kwargs={"autocommit": True},
        open=True,
    )
    try:
        es_compat.sweep_on_dead_connection(pool)
        for _ in range(5):
            with pool.connection() as connection:
                connection.execute("SELECT 1")
        assert len(pings) == 1  # the first lending only: then lent every few milliseconds
        monkeypatch.setattr(es_compat, "IDLE_PING_SECONDS", 0.05)
        time.sleep(0.1)
        with pool.connection() as connection:
            connection.execute("SELECT 1")
        assert len(pings) == 2
    finally:
        pool.close()


@pytest.mark.postgres
def test_a_pipelines_statements_reach_the_server_only_at_its_sync(postgres_url: str) -> None:
    """``es_compat.sent_at_sync``: while the insert's statements are queued, the server has seen
    none of them (another session sees no lock taken), and the sync sends them all."""
    with (
        psycopg.connect(postgres_url, autocommit=True) as writer,
        psycopg.connect(postgres_url, autocommit=True) as observer,
    ):
        writer.execute("CREATE TEMP TABLE queued (n int)")
        key = 774411

        def lock_seen() -> bool:
            row = observer.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s",
                (key,),
            ).fetchone()
            return bool(row and row[0])

        with writer.pipeline() as pipeline, es_compat.sent_at_sync(pipeline):
            cursor = writer.cursor()
            cursor.execute("BEGIN", prepare=False)
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (key,), prepare=False)
            cursor.execute("INSERT INTO queued VALUES (1)", prepare=False)
            time.sleep(0.2)
            assert not lock_seen()  # nothing sent yet
            cursor.execute("COMMIT", prepare=False)
            # Without it psycopg would have sent each statement as it was executed.
        assert writer.execute("SELECT count(*) FROM queued").fetchone() == (1,)
        assert not lock_seen()
        with writer.pipeline():
            cursor = writer.cursor()
            cursor.execute("BEGIN", prepare=False)
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", (key,), prepare=False)
            time.sleep(0.2)
            assert lock_seen()  # psycopg's own behaviour: sent at once, held meanwhile
            cursor.execute("COMMIT", prepare=False)
