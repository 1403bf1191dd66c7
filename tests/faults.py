"""Real faults for the store tests: a TCP proxy that cuts connections to PostgreSQL at chosen
moments, and a thread that terminates the service's PostgreSQL backends during load.

Both act on loopback only and stop what they start.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass, field

import psycopg

CHUNK = 65536


@dataclass
class _Link:
    """One client connection relayed to the server."""

    client: socket.socket
    server: socket.socket
    commit_sent: bool = False
    closed: bool = False

    def close(self) -> None:
        self.closed = True
        for sock in (self.client, self.server):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


@dataclass
class CommitCutter:
    """Relays PostgreSQL connections; once armed, cuts the next transaction after its COMMIT.

    The cut comes after the server has answered the COMMIT (the transaction is durable) and before
    the answer reaches the client: the client sees a lost connection for a write that is stored.
    That is the ambiguous commit a service must never turn into a second write.
    """

    upstream: tuple[str, int] = ("127.0.0.1", 5432)
    cuts: int = 0
    armed: int = 0
    _listener: socket.socket = field(init=False)
    _links: list[_Link] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: bool = False

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, dbname: str = "test") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def arm(self, times: int = 1) -> None:
        """Cut the next ``times`` committed transactions after the server's answer."""
        with self._lock:
            self.armed += times

    def stop(self) -> None:
        """Refuse new connections and cut every open one."""
        self._stopping = True
        # Wakes the thread blocked in accept(); close() alone would leave it accepting.
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for link in list(self._links):
            link.close()

    def _accept(self) -> None:
        while not self._stopping:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._stopping:
                client.close()
                return
            server = socket.create_connection(self.upstream)
            link = _Link(client, server)
            self._links.append(link)
            threading.Thread(target=self._to_server, args=(link,), daemon=True).start()
            threading.Thread(target=self._to_client, args=(link,), daemon=True).start()

    def _to_server(self, link: _Link) -> None:
        while not link.closed:
            try:
                data = link.client.recv(CHUNK)
            except OSError:
                return
            if not data:
                link.close()
                return
            if b"COMMIT" in data:
                with self._lock:
                    if self.armed:
                        self.armed -= 1
                        link.commit_sent = True
            try:
                link.server.sendall(data)
            except OSError:
                return

    def _to_client(self, link: _Link) -> None:
        while not link.closed:
            try:
                data = link.server.recv(CHUNK)
            except OSError:
                return
            if not data:
                link.close()
                return
            if link.commit_sent:
                # The server has answered the COMMIT: drop the answer and the connection.
                with self._lock:
                    self.cuts += 1
                link.close()
                return
            try:
                link.client.sendall(data)
            except OSError:
                return


class BackendKiller:
    """Terminates the service's PostgreSQL backends (by application_name) every ``interval``."""

    def __init__(self, url: str, application_name: str, *, interval: float, limit: int) -> None:
        self.url = url
        self.application_name = application_name
        self.interval = interval
        self.limit = limit
        self.killed = 0
        self.rounds = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> BackendKiller:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as connection:
            while self.rounds < self.limit and not self._stop.wait(self.interval):
                rows = connection.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = %s AND pid <> pg_backend_pid()",
                    (self.application_name,),
                ).fetchall()
                self.rounds += 1
                self.killed += sum(1 for (done,) in rows if done)
                time.sleep(0)
