"""A real ``questlog serve --workers 2`` for the tests, and requests sent to a chosen worker.

Each request goes on a connection that the chosen worker accepted: the other workers are held
(SIGSTOP) only while it connects, until the kernel shows the accepted socket among the chosen
worker's file descriptors (``/proc``); they go on (SIGCONT) before the request is sent. So "sent
through worker A" is what happened, seen from outside, with no debugging header in the server.
Everything listens on 127.0.0.1, and what is started here is stopped by its pid.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.conftest import StoreFactory
from tests.live_server import QUESTLOG, free_port

START_SECONDS = 90
"""Generous: the machine is shared, and each worker opens its own store and views."""
RULES = "/house-rules?game=quest-calendar"
"""A cheap route every token may read: what tells that a worker answers."""
LIMITED_RATE = 0.02
"""The limited token's appends per second: a burst of one, the next one 50 s later (so a test
of a few requests sees exactly one go through with one bucket, two with a bucket per worker)."""


def children(pid: int) -> set[int]:
    """The live child processes of ``pid`` (the arbiter's workers), from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields_ = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if int(fields_.get("PPid", "0")) == pid and not fields_.get("State", "").startswith("Z"):
            found.add(int(entry))
    return found


def accepted_inode(server_port: int, client_port: int) -> int:
    """The inode of the server's side of a 127.0.0.1 connection (0 until a worker accepts)."""
    local = f"0100007F:{server_port:04X}"
    remote = f"0100007F:{client_port:04X}"
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        parts = line.split()
        if parts[1] == local and parts[2] == remote:
            return int(parts[9])
    return 0


def owner(pids: set[int], inode: int) -> int | None:
    """The worker among ``pids`` holding the socket ``inode``."""
    target = f"socket:[{inode}]"
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return pid
            except OSError:
                continue
    return None


def signal_if_alive(pid: int, signum: int) -> None:
    """Send a signal to a worker, unless it has gone since it was listed (a worker just killed
    can still be among the arbiter's children until the arbiter reaps it)."""
    with suppress(ProcessLookupError):
        os.kill(pid, signum)


class NotAccepted(OSError):
    """The chosen worker did not accept the connection (it is not serving yet, or is gone)."""


@dataclass
class Served:
    """A running ``questlog serve --workers 2`` and the tokens to call it with."""

    process: subprocess.Popen[bytes]
    port: int
    admin: str
    limited: str
    served_by: dict[int, int] = field(default_factory=dict)

    @property
    def workers(self) -> list[int]:
        return sorted(children(self.process.pid))

    def connect(self, pid: int, wait: float = 20) -> http.client.HTTPConnection:
        """A connection that worker ``pid`` has accepted (the other workers held meanwhile);
        ``NotAccepted`` if it did not within ``wait`` seconds (less than gunicorn's 30 s worker
        timeout, after which the arbiter would kill a worker held this long)."""
        others = [other for other in self.workers if other != pid]
        for other in others:
            signal_if_alive(other, signal.SIGSTOP)
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            conn.connect()
            client_port = conn.sock.getsockname()[1]
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                inode = accepted_inode(self.port, client_port)
                if inode and owner({pid}, inode) == pid:
                    break
                time.sleep(0.01)
            else:
                conn.close()
                raise NotAccepted(f"worker {pid} did not accept a connection within {wait} s")
        finally:
            for other in others:
                signal_if_alive(other, signal.SIGCONT)
        self.served_by[pid] = self.served_by.get(pid, 0) + 1
        return conn

    def call(
        self,
        pid: int,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        """One request answered by worker ``pid``: status, headers, JSON body."""
        conn = self.connect(pid)
        try:
            sent = {"Authorization": f"Bearer {token or self.admin}", **(headers or {})}
            if body is not None:
                sent["Content-Type"] = "application/json"
            conn.request(
                method, path, body=None if body is None else json.dumps(body), headers=sent
            )
            response = conn.getresponse()
            data = json.loads(response.read() or b"null")
            return response.status, dict(response.getheaders()), data
        finally:
            conn.close()


def start(config_schema: str, url: str, tmp_path: Path) -> Served:
    """Make the tokens, then start two workers on the schema and wait until both answer."""
    env_store = {"QUESTLOG_DATABASE_URL": url, "QUESTLOG_PG_SCHEMA": config_schema}
    setup = Questlog(StoreConfig(database_url=url, postgres_schema=config_schema))
    try:
        admin, admin_secret = setup.access.create_token("tester", admin=True)
        _, limited_secret = setup.access.create_token("limited", admin=True)
    finally:
        setup.close()
    port = free_port()
    env = {
        **os.environ,
        **env_store,
        "QUESTLOG_RATE_LIMIT": str(LIMITED_RATE),
        "QUESTLOG_RATE_LIMIT_EXEMPT": admin.id,
    }
    env.pop("QUESTLOG_AUTH", None)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    log = (tmp_path / f"serve-{port}.log").open("wb")
    process = subprocess.Popen(
        [*QUESTLOG, "serve", "--workers", "2", "--port", str(port), "--threads", "4"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    served = Served(process, port, admin_secret, limited_secret)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"questlog serve exited: {(tmp_path / f'serve-{port}.log').read_text()}")
        workers = served.workers
        if len(workers) == 2 and all(ready(served, pid) for pid in workers):
            return served
        time.sleep(0.5)
    stop(served)
    pytest.fail("two workers did not start answering")


def ready(served: Served, pid: int) -> bool:
    """Whether worker ``pid`` answers (its app is built)."""
    try:
        conn = served.connect(pid, wait=2)
    except OSError:
        return False
    try:
        conn.request("GET", RULES, headers={"Authorization": f"Bearer {served.admin}"})
        status = conn.getresponse().status
    except OSError:
        return False
    finally:
        conn.close()
    return status == 200


def stop(served: Served) -> None:
    """SIGTERM the arbiter (a graceful stop of both workers), SIGKILL if it lingers."""
    if served.process.poll() is None:
        served.process.send_signal(signal.SIGTERM)
        try:
            served.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait(timeout=10)


@contextmanager
def two_workers(postgres_url: str, tmp_path: Path) -> Iterator[Served]:
    """Two workers on a fresh schema, stopped and the schema dropped afterwards."""
    factory = StoreFactory("postgres", tmp_path, postgres_url)
    config = factory.new()
    assert config.postgres_schema is not None
    served = None
    try:
        served = start(config.postgres_schema, postgres_url, tmp_path)
        yield served
    finally:
        if served is not None:
            stop(served)
        factory.remove_all()
