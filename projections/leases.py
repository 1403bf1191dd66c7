"""Leases: each view is kept up to date by one process at a time, and another takes over.

Exactly-once (``projections.batches``) already makes two runners safe, but both would do the
work. A lease per view decides which process does it:

- PostgreSQL: a session-level advisory lock per view (``view_lease_keys``), taken with
  ``pg_try_advisory_lock`` on a dedicated connection named ``questlog-views <host>:<pid>`` and
  held while this process runs the view. When the process dies its connection closes and
  PostgreSQL drops the lock; a waiting process takes it at its next try. Every batch is fenced:
  in the batch's transaction the runner checks in ``pg_locks`` that its lease connection still
  holds the views' locks, so a process whose lease connection was lost writes nothing more.
- SQLite (one machine): an exclusive ``flock`` on ``<views db>.<view>.lock``, held by an open
  file for as long as the process runs the view; the kernel drops it when the process dies. The
  file holds ``<host>:<pid>`` of the holder, for ``status``.

``run_leased`` is the loop around a runner: every ``retry`` seconds it tries to take the leases
it lacks and checks those it holds, and (re)starts the runner on exactly the views it holds.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

import psycopg

from domain import settings
from domain.facade import VIEW_LEASE_SPACE, StoreConfig, view_lease_keys
from projections.store import PostgresViewStore, SQLiteViewStore, ViewStore
from projections.view import View

log = logging.getLogger(__name__)

LEASE_CONNECTION_NAME = "questlog-views"
"""``application_name`` prefix of the lease connection: ``questlog-views <host>:<pid>``."""

SERVER_KEEPALIVES = (
    "-c tcp_keepalives_idle=5 -c tcp_keepalives_interval=3 -c tcp_keepalives_count=3"
)
"""The server side's keepalives on the lease connection: it drops a vanished holder's locks."""


class LeaseLost(RuntimeError):
    """This process no longer holds the lease of a view it was about to write."""


def lease_retry(environ: dict[str, str] | None = None) -> float:
    """``QUESTLOG_VIEWS_LEASE_RETRY`` in seconds (default 1); a clear error if it is not > 0."""
    return settings.read(environ).views_lease_retry


def holder_label() -> str:
    """Who this process is, as the leases show it: ``<host>:<pid>``."""
    return f"{socket.gethostname()}:{os.getpid()}"


class Leases(Protocol):
    """The leases of one process over some views."""

    def acquire(self, names: Sequence[str]) -> frozenset[str]:
        """Check the leases held, try to take the others; returns the views held now."""

    def fence(self, cursor: Any, names: Iterable[str]) -> None:
        """Raise ``LeaseLost`` unless the views' leases are still held (in a batch's write)."""

    def close(self) -> None:
        """Give every lease up."""


class PostgresLeases:
    """Advisory-lock leases on a dedicated connection (opened again after it is lost)."""

    def __init__(self, config: StoreConfig) -> None:
        env = config.application_env("LEASE")
        self.scope = config.postgres_schema or "public"
        self.conninfo = psycopg.conninfo.make_conninfo(
            dbname=env["LEASE_POSTGRES_DBNAME"],
            host=env["LEASE_POSTGRES_HOST"],
            port=env["LEASE_POSTGRES_PORT"],
            user=env["LEASE_POSTGRES_USER"],
            password=env["LEASE_POSTGRES_PASSWORD"] or None,
            connect_timeout=env["LEASE_POSTGRES_CONNECT_TIMEOUT"],
            application_name=f"{LEASE_CONNECTION_NAME} {holder_label()}"[:63],
            # A peer that vanished without closing its socket (a machine lost, a network cut) is
            # noticed by TCP keepalives within about 15 s, on both sides: the client's settings
            # here, the server's (which drop the lock of a vanished holder) in ``options``.
            keepalives=1,
            keepalives_idle=5,
            keepalives_interval=3,
            keepalives_count=3,
            options=SERVER_KEEPALIVES,
        )
        self.connection: psycopg.Connection[Any] | None = None
        self.backend_pid = 0
        self.held: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    def keys(self, name: str) -> tuple[int, int]:
        """The advisory lock keys of a view in this store's schema."""
        return view_lease_keys(self.scope, name)

    def _connect(self) -> psycopg.Connection[Any]:
        if self.connection is None or self.connection.closed:
            self.connection = psycopg.connect(self.conninfo, autocommit=True)
            row = self.connection.execute("SELECT pg_backend_pid()").fetchone()
            self.backend_pid = int(row[0]) if row else 0
            self.held = frozenset()
        return self.connection

    def _still_held(self, connection: psycopg.Connection[Any], names: Iterable[str]) -> set[str]:
        wanted = {self.keys(name)[1]: name for name in names}
        rows = connection.execute(
            "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND pid = pg_backend_pid() AND classid = %s AND objsubid = 2",
            (VIEW_LEASE_SPACE,),
        ).fetchall()
        return {wanted[int(row[0])] for row in rows if int(row[0]) in wanted}

    def acquire(self, names: Sequence[str]) -> frozenset[str]:
        """Check the leases held, try to take the others; returns the views held now.

        Any failure of the lease connection means every lease may be gone: the connection is
        dropped (which releases whatever it still held) and the answer is "none held".
        """
        with self._lock:
            try:
                connection = self._connect()
                held = self._still_held(connection, self.held)
                for name in names:
                    if name in held:
                        continue
                    row = connection.execute(
                        "SELECT pg_try_advisory_lock(%s, %s)", self.keys(name)
                    ).fetchone()
                    if row and row[0]:
                        held.add(name)
            except (psycopg.Error, OSError) as error:
                if self.held:
                    log.warning("the views' lease connection failed (%s); leases given up", error)
                self._drop()
                return self.held
            self.held = frozenset(held)
            return self.held

    def fence(self, cursor: Any, names: Iterable[str]) -> None:
        """Raise ``LeaseLost`` unless the lease connection still holds every one of the views."""
        wanted = sorted({self.keys(name)[1] for name in names})
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND pid = %s AND classid = %s AND objsubid = 2 AND objid::bigint = ANY(%s)",
            (self.backend_pid, VIEW_LEASE_SPACE, wanted),
        )
        row = cursor.fetchone()
        count = int(row["count"] if isinstance(row, dict) else row[0])
        if count != len(wanted):
            raise LeaseLost(f"the lease of a view in {sorted(names)} is no longer held")

    def _drop(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(psycopg.Error, OSError):  # a broken socket
                # Released before the connection closes: the server ends a closed session's
                # backend (and frees its locks) a moment later, and meanwhile a standby would
                # still find the leases taken, and the status would still name this process.
                self.connection.execute("SELECT pg_advisory_unlock_all()")
            with contextlib.suppress(psycopg.Error, OSError):
                self.connection.close()
        self.connection = None
        self.backend_pid = 0
        self.held = frozenset()

    def close(self) -> None:
        """Release every lease this connection holds and close it."""
        with self._lock:
            self._drop()


class FileLeases:
    """``flock`` leases on ``<views db>.<view>.lock`` files (one machine, SQLite)."""

    def __init__(self, views_path: Path) -> None:
        self.views_path = Path(views_path)
        self.files: dict[str, IO[str]] = {}

    @property
    def held(self) -> frozenset[str]:
        """The views whose lock files this process holds."""
        return frozenset(self.files)

    def acquire(self, names: Sequence[str]) -> frozenset[str]:
        """Try to take the lock file of each view not held yet; returns the views held now."""
        for name in names:
            if name in self.files:
                continue
            handle = open(lease_file(self.views_path, name), "a+")  # noqa: SIM115 - kept open
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            handle.seek(0)
            handle.truncate()
            handle.write(holder_label() + "\n")
            handle.flush()
            self.files[name] = handle
        return self.held

    def fence(self, cursor: Any, names: Iterable[str]) -> None:
        """Nothing to check: a lock file stays locked for as long as this process lives."""

    def close(self) -> None:
        """Unlock and close every lock file."""
        for handle in self.files.values():
            fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()
        self.files.clear()


def lease_file(views_path: Path, name: str) -> Path:
    """The lock file of a view beside a SQLite views file."""
    return views_path.with_name(f"{views_path.name}.{name}.lock")


def open_leases(config: StoreConfig, store: ViewStore) -> Leases:
    """The leases for a store: advisory locks on PostgreSQL, lock files beside SQLite views."""
    if isinstance(store, SQLiteViewStore):
        return FileLeases(Path(store.path))
    return PostgresLeases(config)


def lease_holders(store: ViewStore, names: Sequence[str]) -> dict[str, dict[str, Any] | None]:
    """Who holds each view's lease: ``{"pid", "application_name", ...}`` or None."""
    if isinstance(store, PostgresViewStore):
        return _postgres_holders(store, names)
    if isinstance(store, SQLiteViewStore):
        return {name: _file_holder(Path(store.path), name) for name in names}
    return dict.fromkeys(names)


def _postgres_holders(
    store: PostgresViewStore, names: Sequence[str]
) -> dict[str, dict[str, Any] | None]:
    scope = store.schema or "public"
    by_key = {view_lease_keys(scope, name)[1]: name for name in names}
    holders: dict[str, dict[str, Any] | None] = dict.fromkeys(names)
    with store.read() as cursor:
        cursor.execute(
            "SELECT l.objid::bigint AS key, a.pid, a.application_name,"
            " host(a.client_addr) AS client_addr, a.backend_start"
            " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s"
            " AND l.objsubid = 2 AND l.objid::bigint = ANY(%s)"
            " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            (VIEW_LEASE_SPACE, sorted(by_key)),
        )
        for row in cursor.fetchall():
            holders[by_key[int(row["key"])]] = {
                "pid": int(row["pid"]),
                "application_name": row["application_name"],
                "client_addr": row["client_addr"],
                "connected_at": row["backend_start"].isoformat(),
            }
    return holders


def _file_holder(views_path: Path, name: str) -> dict[str, Any] | None:
    path = lease_file(views_path, name)
    if not path.exists():
        return None
    with open(path) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            label = handle.read().strip()
            return {"holder": label, "application_name": f"{LEASE_CONNECTION_NAME} {label}"}
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


Fence = Callable[[Any, Iterable[str]], None]
"""``Leases.fence``: raises ``LeaseLost`` in a batch's transaction unless the leases are held."""
LeasesCallback = Callable[[frozenset[str]], None]
"""Called with the names of the views this process holds, each time that set changes."""
RunViews = Callable[[tuple[type[View], ...], threading.Event], None]
"""Runs the given views until the event is set (raising what made it fail)."""


class _Running:
    """One runner thread on a fixed set of leased views."""

    def __init__(self, views: tuple[type[View], ...], run: RunViews) -> None:
        self.views = views
        self.names = frozenset(view.name for view in views)
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(
            target=self._run, args=(run,), name="questlog-views-leased", daemon=True
        )
        self.thread.start()

    def _run(self, run: RunViews) -> None:
        try:
            run(self.views, self.stop)
        except BaseException as error:
            self.error = error

    def end(self, timeout: float = 30.0) -> BaseException | None:
        """Stop the runner and wait for it; the failure it ended with, unless a lost lease."""
        self.stop.set()
        self.thread.join(timeout)
        return None if isinstance(self.error, LeaseLost) else self.error


def run_leased(
    views: Sequence[type[View]],
    stop: threading.Event,
    leases: Leases,
    run: RunViews,
    *,
    retry: float = settings.DEFAULT_LEASE_RETRY,
    on_idle: Callable[[], None] | None = None,
    on_leases: LeasesCallback | None = None,
) -> None:
    """Run exactly the views whose leases this process holds, until ``stop`` is set.

    Every ``retry`` seconds: check the leases, try to take the missing ones, and when the set
    held has changed (or the runner has ended) stop the runner and start it on the new set. A
    runner that failed is re-raised (the caller decides to start again); one that ended because
    its lease was lost is not a failure. ``on_idle`` is called on each round holding no lease
    (a standby process is healthy), ``on_leases`` with the views held each time they change.
    Every lease is given up on the way out (and ``on_leases`` told so).
    """
    names = [view.name for view in views]
    by_name = {view.name: view for view in views}
    running: _Running | None = None
    announced: frozenset[str] | None = None
    try:
        while not stop.is_set():
            held = leases.acquire(names)
            if held != announced and on_leases is not None:
                on_leases(held)
            announced = held
            if running is not None and (running.names != held or not running.thread.is_alive()):
                error = running.end()
                running = None
                if error is not None:
                    raise error
            if held and running is None:
                log.info("views process %s runs %s", holder_label(), ", ".join(sorted(held)))
                running = _Running(tuple(by_name[name] for name in names if name in held), run)
            if not held and on_idle is not None:
                on_idle()
            stop.wait(retry)
    finally:
        if running is not None:
            running.end()
        leases.close()
        if announced and on_leases is not None:
            on_leases(frozenset())
