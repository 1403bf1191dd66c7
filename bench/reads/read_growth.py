"""Reads that must cost what they return, not what the store holds: ``python -m
bench.reads.read_growth``.

Two SQLite stores are built in-process: a small one (``--campaigns`` campaigns of a dozen events,
one of them forked, and a campaign of ``--short`` events) and a large one (the same, plus one
campaign of ``--long`` events). Then, through the API (a Flask test client, access control off,
so only the route's own work is timed), in alternating rounds:

- ``GET /campaigns/{id}`` of a 13-event campaign with a fork, in the small store and in the large
  one (what grew with the store was the list of its forks: every creation event was read);
- ``GET /campaigns/{id}/events?limit=50``, the first page of the short campaign (small store) and
  of the long campaign (large store) (what grew with the campaign was the actors read beside the
  page, from its start to the head).

Each figure is the median over the rounds of the CPU time per request (``time.process_time``),
and the ratio large / small is printed beside its target (at most 1.2x).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from rich.console import Console
from rich.table import Table

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from webapi.app import create_app

TARGET = 1.2
"""The largest ratio a read may have between the large store (or campaign) and the small one."""


@dataclass
class Store:
    """One store: the application, its test client, the campaigns read, its events."""

    app: Questlog
    client: Any
    forked: UUID
    paged: UUID
    events: int


def build(path: Path, *, campaigns: int, paged_events: int) -> Store:
    """A store of ``campaigns`` small campaigns (one forked), and one of ``paged_events``."""
    app = Questlog(StoreConfig(sqlite_path=path))
    forked = None
    for n in range(campaigns):
        cid = app.campaigns.create_campaign(
            game="quest-calendar", name=f"campaign {n}", setup={"prologue_complete": True}
        ).campaign_id
        for _ in range(11):
            app.dice.roll(cid, notation="d20", purpose="filler")
        if forked is None:
            forked = cid
            app.time_travel.fork(cid, at_version=5, name="what if")
    assert forked is not None
    paged = app.campaigns.create_campaign(game="quest-calendar", name="paged").campaign_id
    for _ in range(paged_events - 1):
        app.dice.roll(paged, notation="d6", purpose="length")
    events = app.recorder.max_notification_id() or 0
    client = create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
    return Store(app, client, forked, paged, events)


def cpu_ms(request: Callable[[], Any], repeat: int) -> float:
    """CPU milliseconds per request, over ``repeat`` requests."""
    started = time.process_time()
    for _ in range(repeat):
        answer = request()
        assert answer.status_code == 200, answer.get_json()
    return (time.process_time() - started) * 1000 / repeat


@dataclass
class Figure:
    """One read in both stores: the medians of CPU ms per request and their ratio."""

    read: str
    small: float
    large: float

    @property
    def ratio(self) -> float:
        return self.large / self.small


def measure(small: Store, large: Store, *, rounds: int, repeat: int) -> list[Figure]:
    """Each read in both stores, alternately, ``rounds`` times."""
    reads: dict[str, Callable[[Store], Callable[[], Any]]] = {
        "campaign (13 events, 1 fork)": lambda s: lambda: s.client.get(f"/campaigns/{s.forked}"),
        "first events page (50)": lambda s: (
            lambda: s.client.get(f"/campaigns/{s.paged}/events?limit=50")
        ),
    }
    samples: dict[str, tuple[list[float], list[float]]] = {r: ([], []) for r in reads}
    for read in reads.values():  # warm both caches
        cpu_ms(read(small), 5)
        cpu_ms(read(large), 5)
    for _ in range(rounds):
        for name, read in reads.items():
            samples[name][0].append(cpu_ms(read(small), repeat))
            samples[name][1].append(cpu_ms(read(large), repeat))
    return [
        Figure(name, statistics.median(few), statistics.median(many))
        for name, (few, many) in samples.items()
    ]


@dataclass
class Growth:
    """A run: both stores' sizes and the figures."""

    small_events: int
    large_events: int
    figures: list[Figure]


def measure_growth(
    folder: Path,
    *,
    campaigns: int = 100,
    short: int = 100,
    long: int = 30_000,
    rounds: int = 5,
    repeat: int = 50,
) -> Growth:
    """Build both stores in ``folder`` and measure every read in both."""
    folder.mkdir(parents=True, exist_ok=True)
    small = build(folder / "small.db", campaigns=campaigns, paged_events=short)
    large = build(folder / "large.db", campaigns=campaigns, paged_events=long)
    try:
        figures = measure(small, large, rounds=rounds, repeat=repeat)
    finally:
        small.app.close()
        large.app.close()
    return Growth(small.events, large.events, figures)


def growth_json(run: Growth) -> dict[str, Any]:
    """The figures for ``--json``."""
    return {
        "small_events": run.small_events,
        "large_events": run.large_events,
        "target_ratio": TARGET,
        "reads": [
            {"read": f.read, "small_ms": f.small, "large_ms": f.large, "ratio": f.ratio}
            for f in run.figures
        ],
    }


def growth_table(run: Growth) -> Table:
    """The figures beside their target."""
    out = Table(title=f"reads: a store of {run.small_events:,} events vs {run.large_events:,}")
    for column in ("read", "small store, ms CPU", "large store, ms CPU", "ratio", "target"):
        out.add_column(column)
    for f in run.figures:
        verdict = "PASS" if f.ratio <= TARGET else "MISS"
        out.add_row(
            f.read, f"{f.small:.2f}", f"{f.large:.2f}", f"{f.ratio:.2f}x", f"<= {TARGET}x {verdict}"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reads.read_growth", description=__doc__)
    parser.add_argument("--campaigns", type=int, default=100, help="small campaigns per store")
    parser.add_argument("--short", type=int, default=100, help="events of the short campaign")
    parser.add_argument("--long", type=int, default=30_000, help="events of the long campaign")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=50, help="requests per round and read")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3,000 events, 2 rounds")
    args = parser.parse_args(argv)
    if args.quick:
        args.long, args.rounds, args.repeat = 3_000, 2, 20
    console = Console(width=120)
    console.print(f"building the stores ({args.long:,} events in the long campaign)…")
    with tempfile.TemporaryDirectory(prefix="questlog-read-growth-") as folder:
        run = measure_growth(
            Path(folder),
            campaigns=args.campaigns,
            short=args.short,
            long=args.long,
            rounds=args.rounds,
            repeat=args.repeat,
        )
    console.print(growth_table(run))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
