"""What the table page downloads, against the campaign's length: ``python -m
bench.page.page_bytes``.

Two Quest Calendar campaigns are played in-process, each on a fresh SQLite store, by the
simulation's table (``bench/simulation/sim_play.py``: pages of checks, combats, shops and credits,
server dice) until they hold ``--short`` and ``--long`` events (default 200 and 30,000), with this
run's admin token, and its views brought up to date. Each is served by the bench's server
(``bench/common/server.py``: waitress and ``create_app`` as ``questlog serve`` has them, access
control on, views embedded) and its table
page opened once, cold, in Chromium (``/usr/bin/chromium``, or ``QUESTLOG_CHROMIUM``) driven by
Playwright. Every response the page receives is weighed (its body's bytes) until the page has
been quiet for ``QUIET_SECONDS`` (no response, the live stream aside): the whole load, with
whatever the page follows after it is usable (views, charts, ledgers).

The ratio long / short is printed beside its target (at most 1.2x): what the page reads should
follow what it shows, not the campaign's whole history.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.page.page_load import TOKEN_KEY, USABLE
from bench.simulation.sim_play import QuestCalendarTable, Tally
from bench.write.http_bench import BenchError, ServerProcess
from projections.rebuild import catch_up_views
from webapi.app import create_app
from webapi.http.view_store import close_views, views_store

TARGET = 1.2
"""The largest ratio of the long campaign's page load to the short one's."""
QUIET_SECONDS = 2.0
"""How long the page must receive nothing before its load counts as over."""
SETTLE_SECONDS = 120.0
"""How long a load may take in all before the part fails."""
NO_POLICY = "/log/policy"
"""The one route whose 404 is an answer, not a failure: the host names no witnesses."""


@dataclass
class PageBytes:
    """One campaign's page load: its events, its requests and their bytes."""

    events: int
    requests: int
    bytes: int


def build(db: Path, events: int) -> tuple[str, str, str, int]:
    """The campaign on a fresh store, played by this run's admin token: (token id, secret,
    campaign id, version)."""
    from domain.model.access import acting_as
    from domain.service.questlog import Questlog
    from domain.storage.store import StoreConfig

    db.parent.mkdir(parents=True, exist_ok=True)
    app = Questlog(StoreConfig(sqlite_path=db))
    try:
        token, secret = app.access.create_token("bench-page-bytes", admin=True)
        with acting_as(token):
            table = QuestCalendarTable(app, random.Random(3), Tally())
            while app.campaign(table.id).version < events:
                table.play_one()
        flask_app = create_app(app, auth=False, rate_limit=0, TESTING=True)
        try:  # the views caught up before the server starts: the page reads them whole
            with flask_app.app_context():
                catch_up_views(app, views_store(), batch_size=1000)
        finally:
            close_views(flask_app)
        return token.id, secret, str(table.id), app.campaign(table.id).version
    finally:
        app.close()


def load(browser: Any, url: str, secret: str, version: int) -> tuple[int, int]:
    """Open the page once in a fresh context: (responses, bytes) from the navigation until the
    page is usable at ``version``, no request is in flight and none has come for
    ``QUIET_SECONDS`` (the live stream aside; a page that never settles within
    ``SETTLE_SECONDS`` fails the part, as does any answer of 400 or more or a body not read)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(
        f"sessionStorage.setItem({json.dumps(TOKEN_KEY)}, {json.dumps(secret)})"
    )
    responses: list[Any] = []
    pending: set[Any] = set()

    def started(request: Any) -> None:
        pending.add(request)

    def ended(request: Any) -> None:
        pending.discard(request)

    def answered(response: Any) -> None:
        if "text/event-stream" in (response.headers.get("content-type") or ""):
            pending.discard(response.request)  # a live stream does not end: not weighed
        else:
            responses.append(response)

    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.on("request", started)
        page.on("requestfinished", ended)
        page.on("requestfailed", ended)
        page.on("response", answered)
        began = time.monotonic()
        page.goto(url, wait_until="commit")
        page.wait_for_function(USABLE, arg=version, polling="raf")
        seen, quiet_since = 0, time.monotonic()
        while pending or time.monotonic() - quiet_since < QUIET_SECONDS:
            if time.monotonic() - began > SETTLE_SECONDS:
                waiting = ", ".join(request.url for request in pending) or "new responses"
                raise BenchError(
                    f"the page did not settle within {SETTLE_SECONDS:.0f} s: {waiting}"
                )
            page.wait_for_timeout(100)
            if len(responses) != seen or pending:
                seen, quiet_since = len(responses), time.monotonic()
        size = 0
        for response in responses:
            if response.status == 404 and response.url.endswith(NO_POLICY):
                continue  # the host has no witness policy: the page asks once, and is told so
            if response.status >= 400:
                raise BenchError(f"{response.url} answered {response.status}")
            try:
                size += len(response.body())
            except Exception as error:
                raise BenchError(f"the body of {response.url} was not read: {error}") from error
        return len(responses), size
    finally:
        context.close()


def measure_page_bytes(
    workdir: Path, *, events: tuple[int, ...] = (200, 30_000), chromium: str | None = None
) -> list[PageBytes]:
    """Build, serve and open each campaign's page once; one figure per campaign."""
    from playwright.sync_api import sync_playwright

    chromium = chromium or os.environ.get("QUESTLOG_CHROMIUM", "/usr/bin/chromium")
    found = []
    for count in events:
        folder = workdir / f"page-{count}"
        token_id, secret, campaign, version = build(folder / "questlog.db", count)
        server = ServerProcess(folder, threads=8, exempt=token_id)
        try:
            server.wait_ready()
            url = f"http://127.0.0.1:{server.port}/app/campaigns/{campaign}"
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium)
                try:
                    requests, size = load(browser, url, secret, version)
                finally:
                    browser.close()
        finally:
            server.stop()
        found.append(PageBytes(version, requests, size))
    return found


def page_bytes_json(runs: list[PageBytes]) -> dict[str, Any]:
    """The figures for ``--json``."""
    return {
        "target_ratio": TARGET,
        "loads": [vars(run) for run in runs],
        "ratio": runs[-1].bytes / runs[0].bytes,
    }


def page_bytes_line(runs: list[PageBytes]) -> str:
    """The figures in one line, beside the target."""
    ratio = runs[-1].bytes / runs[0].bytes
    shown = ", ".join(f"{r.events:,} events: {r.bytes:,} bytes in {r.requests}" for r in runs)
    verdict = "PASS" if ratio <= TARGET else "MISS"
    return f"the table page's whole load ({shown} requests): {ratio:.2f}x, <= {TARGET}x {verdict}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.page.page_bytes", description=__doc__)
    parser.add_argument("--short", type=int, default=200, help="events of the short campaign")
    parser.add_argument("--long", type=int, default=30_000, help="events of the long campaign")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 100 and 1,000 events")
    args = parser.parse_args(argv)
    if args.quick:
        args.short, args.long = 100, 1_000
    console = Console(width=120)
    console.print(f"playing campaigns of {args.short:,} and {args.long:,} events…")
    with tempfile.TemporaryDirectory(prefix="questlog-page-bytes-") as folder:
        runs = measure_page_bytes(Path(folder), events=(args.short, args.long))
    console.print(page_bytes_line(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
