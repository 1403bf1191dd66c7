"""The PostgreSQL advisory locks: their keys, their statements, and that they exclude each other."""

from __future__ import annotations

from uuid import UUID

import psycopg
import pytest
from psycopg.pq import TransactionStatus

from domain.storage.advisory_locks import (
    CAMPAIGN_LOCK_SPACE,
    SETUP_LOCK_KEY,
    VIEWS_SETUP_LOCK_KEY,
    begin_with_transaction_lock,
    campaign_lock_keys,
    lock_statement,
    session_lock,
)

CAMPAIGN = UUID("fedcba98-7654-3210-0123-456789abcdef")


def test_a_campaigns_lock_keys_are_the_space_and_the_ids_first_32_bits_signed() -> None:
    assert campaign_lock_keys(CAMPAIGN) == (CAMPAIGN_LOCK_SPACE, -0x01234568)


def test_the_setup_keys_differ() -> None:
    assert len({SETUP_LOCK_KEY, VIEWS_SETUP_LOCK_KEY}) == 2


def test_a_session_lock_statement_takes_one_key_without_a_timeout() -> None:
    assert lock_statement((SETUP_LOCK_KEY,), transaction=False) == (
        "SELECT pg_advisory_lock(%s)",
        (SETUP_LOCK_KEY,),
    )


def test_a_transaction_lock_statement_sets_its_timeout_for_the_transaction() -> None:
    assert lock_statement((1, 2), transaction=True, timeout="2s") == (
        "SELECT set_config('lock_timeout', %s, true), pg_advisory_xact_lock(%s, %s)",
        ("2s", 1, 2),
    )


@pytest.mark.postgres
def test_a_held_lock_makes_another_transaction_time_out(postgres_url: str) -> None:
    keys = campaign_lock_keys(CAMPAIGN)
    with (
        psycopg.connect(postgres_url, autocommit=True) as holder,
        psycopg.connect(postgres_url, autocommit=True) as waiter,
        session_lock(holder, keys),
    ):
        with pytest.raises(psycopg.errors.LockNotAvailable):
            begin_with_transaction_lock(waiter, keys, timeout="50ms")
        assert waiter.info.transaction_status == TransactionStatus.INERROR
        waiter.execute("ROLLBACK")
    with psycopg.connect(postgres_url, autocommit=True) as later:
        begin_with_transaction_lock(later, keys, timeout="50ms")
        assert later.info.transaction_status == TransactionStatus.INTRANS


@pytest.mark.postgres
def test_the_transaction_lock_is_held_until_its_transaction_ends(postgres_url: str) -> None:
    keys = campaign_lock_keys(CAMPAIGN)
    with (
        psycopg.connect(postgres_url, autocommit=True) as holder,
        psycopg.connect(postgres_url, autocommit=True) as other,
    ):
        begin_with_transaction_lock(holder, keys, timeout="1s")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            begin_with_transaction_lock(other, keys, timeout="50ms")
        other.execute("ROLLBACK")
        holder.execute("ROLLBACK")

        begin_with_transaction_lock(other, keys, timeout="50ms")
        other.execute("ROLLBACK")
