"""Client-generator fixtures: a real ``questlog serve`` process with an admin token, and its
OpenAPI document as a client author would fetch it."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

QUESTLOG = [sys.executable, "-c", "from webapi.cli.main import main; main()"]


@dataclass(frozen=True)
class Served:
    """A running server: its base URL and an admin token's secret."""

    url: str
    token: str

    def document(self) -> dict[str, Any]:
        """GET /openapi.json."""
        with urllib.request.urlopen(f"{self.url}/openapi.json", timeout=10) as answer:
            body: dict[str, Any] = json.load(answer)
        return body


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``questlog serve`` (waitress, SQLite, access control on, no rate limit) on a free port."""
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path_factory.mktemp("served") / "served.db")}
    env.pop("QUESTLOG_DATABASE_URL", None)
    env.pop("QUESTLOG_AUTH", None)
    env["QUESTLOG_RATE_LIMIT"] = "0"
    made = subprocess.run(
        [*QUESTLOG, "token", "create", "--name", "client-author", "--admin"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    token = made.stdout.strip().splitlines()[-1]
    port = free_port()
    process = subprocess.Popen(
        [*QUESTLOG, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("questlog serve did not start")
                time.sleep(0.1)
        yield Served(f"http://127.0.0.1:{port}", token)
    finally:
        process.terminate()
        process.wait(timeout=10)


DOC = Path(__file__).resolve().parents[2] / "docs" / "api-clients.md"
"""docs/api-clients.md: its blocks marked ``checked-by tests/clients/...`` are read here."""


def checked_blocks(test: str) -> list[tuple[str, str]]:
    """The fenced blocks of docs/api-clients.md that ``tests/clients/<test>`` checks: each
    block's language and text."""
    marker = f"<!-- example: checked-by tests/clients/{test} -->"
    found: list[tuple[str, str]] = []
    for part in DOC.read_text(encoding="utf-8").split(marker)[1:]:
        opening, _, rest = part.lstrip("\n").partition("\n")
        assert opening.startswith("```"), f"{marker} is not right before a fenced block"
        found.append((opening.removeprefix("```"), rest.split("\n```", 1)[0]))
    return found


OPERATION_ROW = re.compile(
    r"^\| (?P<method>[A-Z]+) \| `(?P<path>[^`]+)` \| `(?P<name>[^`]+)` "
    r"\| `(?P<python>[^`]+)` \| `(?P<typescript>[^`]+)` \|$",
    re.M,
)
"""A row of docs/api-clients.md's table of operation names."""


def documented_operations() -> list[dict[str, str]]:
    """The rows of docs/api-clients.md's table of operation names: each operation's method,
    path, operationId (``name``), Python module and TypeScript type, as the doc spells them."""
    text = DOC.read_text(encoding="utf-8")
    return [match.groupdict() for match in OPERATION_ROW.finditer(text)]
