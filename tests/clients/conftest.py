"""Client-generator fixtures: a real ``questlog serve`` process with an admin token, and its
OpenAPI document as a client author would fetch it."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.live_server import admin_token, serving


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


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``questlog serve`` (waitress, SQLite, access control on, no rate limit) on a free port."""
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path_factory.mktemp("served") / "served.db")}
    env.pop("QUESTLOG_DATABASE_URL", None)
    env.pop("QUESTLOG_AUTH", None)
    env["QUESTLOG_RATE_LIMIT"] = "0"
    token = admin_token(env, "client-author")
    with serving(env) as port:
        yield Served(f"http://127.0.0.1:{port}", token)


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
