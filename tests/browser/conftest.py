"""Browser fixtures: ``questlog serve`` on a seeded store, and Chromium driven by Playwright.

Without Chromium (``/usr/bin/chromium``, or ``QUESTLOG_CHROMIUM``) or the playwright package the
browser tests skip with the reason, except under ``CI=true``, where that is a failure.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.browser.server import Server, ServerDidNotStart, running
from tests.machine import missing as _missing

TOKEN_KEY = "questlog.token"
EXPECTED_REFUSALS = (
    ("/stream", (404,)),  # until the server has the stream, the page polls
    ("/bundle", (404,)),
    ("/share", (404,)),
    ("/log/policy", (404,)),  # a host without a witness policy: the page says so
    ("/witnessing", (404,)),  # until the server keeps a Merkle log, the page says so
    ("/checkpoint/qr", (404,)),
)
"""Refusals the page expects and handles; any other answer of 400 or more fails a test."""


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The Chromium binary; a skip (under CI a failure) without it or without playwright."""
    path = os.environ.get("QUESTLOG_CHROMIUM", "/usr/bin/chromium")
    if not Path(path).exists():
        _missing(f"Chromium not found at {path} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[test]')")
    return path


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, chromium_path: str) -> Iterator[Server]:
    """One server for the browser tests: each test uses campaigns of its own."""
    try:
        with running(tmp_path_factory.mktemp("browser")) as started:
            yield started
    except ServerDidNotStart as error:
        pytest.fail(f"questlog serve did not start: {error}")


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path)
        yield launched
        launched.close()


@dataclass
class Watch:
    """What a page did: every request's URL, refusals, console errors and uncaught exceptions."""

    host: str
    requests: list[str] = field(default_factory=list)
    refusals: list[tuple[int, str]] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    allowed: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    """Refusals a test causes on purpose, beside EXPECTED_REFUSALS."""

    def unexpected_refusals(self) -> list[tuple[int, str]]:
        return [
            (status, url)
            for status, url in self.refusals
            if not any(
                urlsplit(url).path.endswith(path) and status in statuses
                for path, statuses in (*EXPECTED_REFUSALS, *self.allowed)
            )
        ]

    def foreign_requests(self) -> list[str]:
        return [
            url
            for url in self.requests
            if urlsplit(url).scheme not in ("data", "blob") and urlsplit(url).netloc != self.host
        ]

    def check(self) -> None:
        """No request left the host, no console error but the expected refusals, no exception."""
        assert self.foreign_requests() == []
        assert self.page_errors == []
        assert self.unexpected_refusals() == []
        # Chromium logs every answer of 400 or more as "Failed to load resource"; those are the
        # refusals above, checked one by one. Anything else logged as an error fails the test.
        assert [m for m in self.console_errors if not m.startswith("Failed to load resource")] == []


@pytest.fixture
def open_page(browser: Any, server: Server) -> Iterator[Any]:
    """open_page(token=None, width=1280) -> (page, watch); every page is checked afterwards."""
    opened: list[tuple[Any, Watch]] = []

    def make(token: str | None = None, width: int = 1280) -> tuple[Any, Watch]:
        context = browser.new_context(viewport={"width": width, "height": 900})
        if token is not None:
            secret = json.dumps(server.seeded.tokens[token])
            context.add_init_script(f"sessionStorage.setItem({json.dumps(TOKEN_KEY)}, {secret})")
        page = context.new_page()
        page.set_default_timeout(10_000)
        watch = Watch(urlsplit(server.base).netloc)
        page.on("request", lambda r: watch.requests.append(r.url))
        page.on("response", lambda r: r.status >= 400 and watch.refusals.append((r.status, r.url)))
        page.on("console", lambda m: m.type == "error" and watch.console_errors.append(m.text))
        page.on("pageerror", lambda e: watch.page_errors.append(str(e)))
        opened.append((page, watch))
        return page, watch

    yield make
    for page, watch in opened:
        page.context.close()
        watch.check()
