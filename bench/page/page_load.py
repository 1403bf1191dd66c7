"""The table page: how long a 10,000-event campaign takes to become usable in a browser.

``python -m bench.page.page_load`` (``--quick`` for a 1,000-event campaign, ``--repeat N``,
``--json FILE``). It builds the campaign on a fresh SQLite store with this run's own admin token,
serves it with the bench's server (``bench/common/server.py``: waitress and ``create_app`` as
``questlog serve`` has them, access control on), and opens the campaign's page in Chromium
(``/usr/bin/chromium``, or ``QUESTLOG_CHROMIUM``) driven by Playwright, ``--repeat`` times in
one browser context: the first navigation cold (empty HTTP cache), the others warm.

"Usable" is the moment the page shows the state (the hero section), the head version
(``data-campaign-version``) and the newest timeline events. The page itself times it, with
``performance.now()`` (milliseconds since the navigation started), polled on every animation
frame. Every response the page received until then is counted, with its body's bytes.

The target: usable within 1.5 s on loopback. It prints the median,
min, max and p90 with PASS/MISS against the p90; it is a measurement, so it exits 0 whatever
the figures are, and 1 only if it could not measure. The bytes are those of the response bodies
the page received, from the network or from its cache.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.page.campaigns import LONG_EVENTS, long_campaign
from bench.write.http_bench import BenchError, ServerProcess

TARGET_SECONDS = 1.5
TOKEN_KEY = "questlog.token"  # where the page keeps its token (sessionStorage)
USABLE = """(version) => {
    const shown = document.querySelector("[data-campaign-version]");
    return shown !== null
        && shown.getAttribute("data-campaign-version") === String(version)
        && document.querySelector('section[aria-label="Hero"]') !== null
        && document.querySelector(".timeline .event") !== null
        && performance.now();
}"""
"""Truthy (the time) once the page is usable; ``performance.now()`` is never 0 by then."""


@dataclass
class Navigation:
    """One navigation: when it became usable, and what it requested until then."""

    cache: str
    usable_ms: float
    requests: int
    bytes: int
    events_shown: int


@dataclass
class PageResult:
    """Every navigation of one run, and how the campaign was made."""

    events: int
    build_seconds: float
    navigations: list[Navigation] = field(default_factory=list)

    def summary(self, cache: str | None = None) -> dict[str, float]:
        """Median, min, max and p90 of the usable time in ms (of one cache state, or all)."""
        times = sorted(n.usable_ms for n in self.navigations if cache in (None, n.cache))
        if not times:
            return {}
        p90 = times[min(len(times) - 1, max(0, round(0.9 * len(times) + 0.5) - 1))]
        return {
            "median_ms": round(statistics.median(times), 1),
            "min_ms": round(times[0], 1),
            "max_ms": round(times[-1], 1),
            "p90_ms": round(p90, 1),
        }

    def to_json(self) -> dict[str, Any]:
        """The figures as JSON: every navigation, the summaries and the verdict."""
        overall = self.summary()
        return {
            "events": self.events,
            "build_seconds": round(self.build_seconds, 1),
            "target_ms": TARGET_SECONDS * 1000,
            "navigations": [asdict(n) for n in self.navigations],
            "summary": overall,
            "cold": self.summary("cold"),
            "warm": self.summary("warm"),
            "verdict": verdict(overall),
        }


def verdict(summary: dict[str, float]) -> str:
    """PASS when even the p90 is within the target."""
    if not summary:
        return "NO FIGURES"
    return "PASS" if summary["p90_ms"] <= TARGET_SECONDS * 1000 else "MISS"


def build_store(db: Path, events: int) -> tuple[str, str, str, float]:
    """The campaign on a fresh store, made by this run's admin token: (token id, secret,
    campaign id, seconds taken)."""
    from domain.model.access import acting_as
    from domain.service.questlog import Questlog
    from domain.storage.store import StoreConfig

    db.parent.mkdir(parents=True, exist_ok=True)
    app = Questlog(StoreConfig(sqlite_path=db))
    try:
        token, secret = app.access.create_token("bench-page-load", admin=True)
        began = time.perf_counter()
        with acting_as(token):
            campaign = long_campaign(app, events)
        took = time.perf_counter() - began
    finally:
        app.close()
    return token.id, secret, str(campaign), took


def navigate(page: Any, url: str, version: int, cache: str) -> Navigation:
    """Open the page once; the usable time as the page measured it."""
    responses: list[Any] = []

    def listen(response: Any) -> None:
        responses.append(response)

    page.on("response", listen)
    try:
        page.goto(url, wait_until="commit")
        usable = page.wait_for_function(USABLE, arg=version, polling="raf").json_value()
        seen = list(responses)
    finally:
        page.remove_listener("response", listen)
    size = 0
    for response in seen:
        if "text/event-stream" in (response.headers.get("content-type") or ""):
            continue  # a live stream has no end to measure; it is counted, not weighed
        with contextlib.suppress(Exception):  # a body the browser dropped weighs nothing
            size += len(response.body())
    return Navigation(
        cache=cache,
        usable_ms=round(float(usable), 1),
        requests=len(seen),
        bytes=size,
        events_shown=page.locator(".timeline .event").count(),
    )


def measure_page_load(
    workdir: Path, *, events: int, repeat: int, chromium: str, say: Any = print
) -> PageResult:
    """Build, serve, open ``repeat`` times (the first cold), stop the server."""
    from playwright.sync_api import sync_playwright

    token_id, secret, campaign, took = build_store(workdir / "questlog.db", events)
    say(f"built {events:,} events in {took:.1f} s")
    result = PageResult(events, took)
    server = ServerProcess(workdir, threads=8, exempt=token_id)
    try:
        server.wait_ready()
        say(f"server pid {server.pid} on 127.0.0.1:{server.port}; Chromium at {chromium}")
        url = f"http://127.0.0.1:{server.port}/app/campaigns/{campaign}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.add_init_script(
                    f"sessionStorage.setItem({json.dumps(TOKEN_KEY)}, {json.dumps(secret)})"
                )
                page = context.new_page()
                page.set_default_timeout(30_000)
                for n in range(repeat):
                    shot = navigate(page, url, events, "cold" if n == 0 else "warm")
                    result.navigations.append(shot)
                    say(
                        f"{n + 1:>3} {shot.cache}: usable in {shot.usable_ms:7.1f} ms, "
                        f"{shot.requests} requests, {shot.bytes / 1024:.1f} KiB, "
                        f"{shot.events_shown} events shown"
                    )
            finally:
                browser.close()
    finally:
        server.stop()
    return result


def main(argv: list[str] | None = None) -> int:
    """Measure and print; 0 whatever the figures, 1 if it could not measure."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.page.page_load", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="1,000 events, 3 navigations")
    parser.add_argument("--events", type=int, help=f"events (default {LONG_EVENTS})")
    parser.add_argument("--repeat", type=int, help="navigations, the first cold (default 10)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    events = args.events or (1_000 if args.quick else LONG_EVENTS)
    repeat = args.repeat or (3 if args.quick else 10)
    if events < 3 or repeat < 1:
        parser.error("need --events >= 3 and --repeat >= 1")
    chromium = os.environ.get("QUESTLOG_CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).exists():
        print(f"Chromium not found at {chromium} (apt-get install chromium)", file=sys.stderr)
        return 1
    load = [round(x, 2) for x in os.getloadavg()]
    print(
        f"The table page: a campaign of {events:,} events, {repeat} navigation(s); "
        f"{os.cpu_count()} CPUs, load average {load[0]}"
    )
    with tempfile.TemporaryDirectory(prefix="questlog-page-") as folder:
        try:
            result = measure_page_load(
                Path(folder), events=events, repeat=repeat, chromium=chromium
            )
        except BenchError as error:
            print(f"FAILED: {error}", file=sys.stderr)
            return 1
    figures = result.to_json()
    figures["machine"] = {"nproc": os.cpu_count(), "loadavg_at_start": load}
    figures["quick"] = args.quick
    for name in ("cold", "warm", "summary"):
        s = figures[name]
        if s:
            print(
                f"{'all' if name == 'summary' else name:>5}: median {s['median_ms']:.0f} ms, "
                f"min {s['min_ms']:.0f}, max {s['max_ms']:.0f}, p90 {s['p90_ms']:.0f}"
            )
    print(
        f"target: usable within {TARGET_SECONDS} s (p90): {figures['verdict']}"
        + (" (quick run, not the target's campaign)" if args.quick else "")
    )
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
