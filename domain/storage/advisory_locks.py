"""PostgreSQL advisory locks: how their keys are made and how they are taken, in one place.

Two kinds are used. A *session* lock (held by a connection until it is released) serialises
first-time setup across processes: the event store's tables (``SETUP_LOCK_KEY``) and the view
tables (``projections.store``). A *transaction* lock (released when the transaction ends) makes
processes writing one campaign take turns (``CAMPAIGN_LOCK_SPACE``); a shared transaction lock
marks every append of the events while it writes (``WRITER_SPACE``), so that readers wait only
for Questlog's own writers; a transaction lock makes one transparency log integrator at a time
append to a store's tree (``TLOG_SPACE``). A session lock per view
(``VIEW_LEASE_SPACE``) is the lease of the process that keeps that view up to date. Keys are one
``bigint`` or two ``int`` values, as PostgreSQL's ``pg_advisory_*`` functions take them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from uuid import UUID
from zlib import crc32

SETUP_LOCK_KEY = 0x51_75_65_73_74  # "Quest": the advisory lock held while creating tables
VIEWS_SETUP_LOCK_KEY = 0x5175_6576  # "Quev": held while view tables are created
KEY_RING_LOCK_KEY = 0x5175_654B  # "QueK": held while the signing key ring is made or rotated
CAMPAIGN_LOCK_SPACE = 0x51_4C  # "QL": first key of the per-campaign advisory locks
VIEW_LEASE_SPACE = 0x51_56  # "QV": first key of the per-view leases
WRITER_SPACE = 0x51_57  # "QW": first key of the mark every append of the events holds
TLOG_SPACE = 0x51_54  # "QT": first key of the transparency log integrator's lock


def campaign_lock_keys(campaign_id: UUID) -> tuple[int, int]:
    """The two ``int`` keys of a campaign's lock: the space and the id's first 32 bits."""
    return CAMPAIGN_LOCK_SPACE, int.from_bytes(campaign_id.bytes[:4], "big", signed=True)


def view_lease_keys(scope: str, view: str) -> tuple[int, int]:
    """The two ``int`` keys of a view's lease: the space and a CRC-32 of ``<scope>/<view>``.

    Advisory locks belong to the whole database, so the scope (the schema) is part of the key:
    two deployments in two schemas of one database never wait for each other. CRC-32 is stable
    across processes and releases (Python's ``hash()`` of a string is not); the top bit is
    cleared so the key reads the same as ``pg_locks.objid``, which shows it unsigned.
    """
    return VIEW_LEASE_SPACE, crc32(f"{scope}/{view}".encode()) & 0x7FFF_FFFF


def writer_keys(scope: str, table: str) -> tuple[int, int]:
    """The two ``int`` keys of the mark an append of a store's events holds while it writes
    (``domain.storage.log_order``): the space and a CRC-32 of ``<scope>/<table>``, so two
    stores in two schemas of one database mark their writers apart."""
    return WRITER_SPACE, crc32(f"{scope}/{table}".encode()) & 0x7FFF_FFFF


def tlog_lock_keys(scope: str, table: str) -> tuple[int, int]:
    """The two ``int`` keys of the lock a store's transparency log integrator holds for a batch
    (``domain.storage.tlog_tables``): one integrator at a time per store (schema)."""
    return TLOG_SPACE, crc32(f"{scope}/{table}".encode()) & 0x7FFF_FFFF


def lock_statement(
    keys: tuple[int, ...], *, transaction: bool, timeout: str | None = None
) -> tuple[str, tuple[Any, ...]]:
    """The statement and parameters that take a lock, waiting at most ``timeout`` if given.

    A timeout is set with ``set_config(..., true)``: it holds for the current transaction only.
    """
    function = "pg_advisory_xact_lock" if transaction else "pg_advisory_lock"
    call = f"{function}({', '.join(['%s'] * len(keys))})"
    if timeout is None:
        return f"SELECT {call}", keys
    return f"SELECT set_config('lock_timeout', %s, true), {call}", (timeout, *keys)


def begin_with_transaction_lock(connection: Any, keys: tuple[int, ...], *, timeout: str) -> None:
    """Begin a transaction on an autocommit connection and take a lock held until it ends.

    ``BEGIN`` and the lock are pipelined: one round trip instead of two. A lock not had within
    ``timeout`` raises ``LockNotAvailable`` and leaves the transaction failed (roll it back).
    Unprepared: each runs once per transaction.
    """
    with connection.pipeline():
        connection.execute("BEGIN", prepare=False)
        connection.execute(*lock_statement(keys, transaction=True, timeout=timeout), prepare=False)


@contextmanager
def session_lock(connection: Any, keys: tuple[int, ...]) -> Iterator[None]:
    """Hold a lock on a connection while the block runs, then release it."""
    connection.execute(*lock_statement(keys, transaction=False))
    try:
        yield
    finally:
        placeholders = ", ".join(["%s"] * len(keys))
        connection.execute(f"SELECT pg_advisory_unlock({placeholders})", keys)
