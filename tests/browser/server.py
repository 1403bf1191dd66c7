"""``questlog serve`` on a seeded store, for the browser tests and the screenshots in docs/."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.browser.seed import Seeded, seed
from tests.live_server import QUESTLOG, free_port


@dataclass
class Server:
    """A running ``questlog serve`` and what its store holds."""

    base: str
    seeded: Seeded
    db: Path

    def url(self, path: str) -> str:
        return self.base + path

    def campaign_url(self, key: str, query: str = "") -> str:
        return self.url(f"/app/campaigns/{self.seeded.campaigns[key]}{query}")

    def call(
        self, method: str, path: str, body: Any = None, token: str = "owner"
    ) -> tuple[int, Any]:
        """Call the API as one of the seeded tokens: (status, JSON body)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url(path), data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.seeded.tokens[token]}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def has_route(self, path: str) -> bool:
        """Whether a GET of this path is answered with anything but 404 (the page-server routes);
        only the status is read, so a stream does not hold the test up."""
        request = urllib.request.Request(self.url(path))
        request.add_header("Authorization", f"Bearer {self.seeded.tokens['owner']}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return bool(response.status != 404)
        except urllib.error.HTTPError as error:
            return bool(error.code != 404)


class ServerDidNotStart(RuntimeError):
    """questlog serve did not listen in time; the message holds its log."""


@contextmanager
def running(
    folder: Path,
    *,
    port: int | None = None,
    seeded: Seeded | None = None,
    settings: dict[str, str] | None = None,
) -> Iterator[Server]:
    """Seed a store in ``folder``, serve it on a free loopback port, stop it afterwards.

    Given what an earlier run ``seeded``, serve the store as it is (a restart), on ``port`` if
    given (the same origin, so the page keeps what it stored); ``settings``: more environment
    variables for the server (``QUESTLOG_WITNESS_POLICY``…).
    """
    db = folder / "questlog.db"
    seeded = seeded or seed(db)
    port = port or free_port()
    env = {**os.environ, "QUESTLOG_DB": str(db), "QUESTLOG_RATE_LIMIT": "0"}
    for name in ("QUESTLOG_DATABASE_URL", "QUESTLOG_AUTH", "QUESTLOG_VIEWS_DB"):
        env.pop(name, None)
    env.update(settings or {})
    with (folder / "serve.log").open("wb") as log:
        process = subprocess.Popen(
            [*QUESTLOG, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise ServerDidNotStart((folder / "serve.log").read_text())
        yield Server(f"http://127.0.0.1:{port}", seeded, db)
    finally:
        process.terminate()
        process.wait(timeout=10)
