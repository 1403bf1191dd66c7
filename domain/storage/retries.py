"""Store failures and bounded retries: which errors leave an outcome open, and reads tried again."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from eventsourcing.persistence import InterfaceError, InternalError, OperationalError
from psycopg_pool import PoolTimeout

from domain.storage.es_compat import (
    undecorated,
)

log = logging.getLogger("questlog.store")

TRANSIENT_ERRORS = (OperationalError, InterfaceError, InternalError)
"""Store failures that say nothing about the request: a lost connection, a database restarting,
a lock timeout, a full disk. A read may simply be tried again; a write may or may not be stored."""
READ_ATTEMPTS = 4
READ_BACKOFF_SECONDS = 0.05
RETRIED_READS = ("select_events", "select_notifications", "max_notification_id")
"""eventsourcing's PostgreSQL reads, which it retries 10 times 0.2 s apart; see limit_retries."""
T = TypeVar("T")


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
