"""A command on a long page against one on a fresh page: ``python -m bench.write.long_page``.

One SQLite store, two Quest Calendar campaigns with the same hero. One page of the long campaign
is filled with ``--checks`` trait checks; the short campaign starts a new page before each round.
Then, through the API (a Flask test client, access control off, so only the command's own work
is timed), in alternating rounds, ``--repeat`` ``trait_check`` commands on each:

- **CPU**: milliseconds of CPU per command (``time.process_time``), the median over the rounds;
- **answer bytes**: the answer the page asks for (``Prefer: return=minimal``: the events, version,
  head and checkpoint) and the full answer (with the whole state, which holds every check of the
  page, so it grows with the page by definition);
- **snapshot bytes**: what the long campaign's snapshots hold in all, beside its events' bytes.

The ratios long / fresh are printed beside their target (at most 1.3x).
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
from rich.console import Console
from rich.table import Table

from domain.model import samples
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from webapi.app import create_app

TARGET = 1.3
"""The largest ratio a command may have between the long page and a fresh one."""
CHECK = {"type": "trait_check", "trait": "INT", "purpose": "bench", "target": 12}
FIRST_PAGE = dt.date(2027, 1, 4)


@dataclass
class LongPage:
    """A run: the long page's checks, the figures on both pages, the snapshots' bytes."""

    checks: int
    fresh_ms: float
    long_ms: float
    fresh_bytes: int
    long_bytes: int
    fresh_full_bytes: int
    long_full_bytes: int
    snapshot_bytes: int
    event_bytes: int

    @property
    def cpu_ratio(self) -> float:
        return self.long_ms / self.fresh_ms

    @property
    def bytes_ratio(self) -> float:
        return self.long_bytes / self.fresh_bytes


def campaign(app: Questlog) -> UUID:
    """A campaign with the sample hero and its first page open."""
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name="long page", setup={"prologue_complete": True}
    ).campaign_id
    hero = samples.variant(samples.BARE_VANGUARD, credits=10)
    app.campaigns.command(cid, {"type": "select_hero", "phase": "main", "hero": hero})
    app.campaigns.command(cid, {"type": "start_page", "date": FIRST_PAGE.isoformat()})
    return cid


def checks(client: Any, cid: UUID, repeat: int, *, minimal: bool) -> tuple[float, int]:
    """CPU ms per ``trait_check`` over ``repeat`` commands, and the last answer's bytes."""
    headers = {"Prefer": "return=minimal"} if minimal else {}
    size = 0
    started = time.process_time()
    for _ in range(repeat):
        answer = client.post(f"/campaigns/{cid}/commands", json=CHECK, headers=headers)
        assert answer.status_code == 201, answer.get_json()
        size = len(answer.data)
    return (time.process_time() - started) * 1000 / repeat, size


def new_page(app: Questlog, cid: UUID, page: int) -> None:
    """End the short campaign's page and start the next one (not timed)."""
    app.campaigns.command(cid, {"type": "end_page"})
    date = FIRST_PAGE + dt.timedelta(days=page)
    app.campaigns.command(cid, {"type": "start_page", "date": date.isoformat()})


def snapshots_and_events(app: Questlog, cid: UUID) -> tuple[int, int]:
    """The bytes of a campaign's snapshots' states and of its events' patches."""
    assert app.snapshots is not None
    snapshots = sum(len(orjson.dumps(s.state)) for s in app.snapshots.get(cid))
    events = sum(len(orjson.dumps(getattr(e, "effects", []))) for e in app.events.get(cid))
    return snapshots, events


def measure_long_page(
    folder: Path, *, long: int = 3_000, rounds: int = 5, repeat: int = 20
) -> LongPage:
    """Fill a page with ``long`` checks, then measure both pages in alternating rounds."""
    folder.mkdir(parents=True, exist_ok=True)
    app = Questlog(StoreConfig(sqlite_path=folder / "long-page.db"))
    try:
        fresh, filled = campaign(app), campaign(app)
        for _ in range(long):
            app.campaigns.command(filled, dict(CHECK))
        client = create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
        checks(client, fresh, 5, minimal=True)  # warm both
        checks(client, filled, 5, minimal=True)
        fresh_ms, long_ms = [], []
        for page in range(1, rounds + 1):
            new_page(app, fresh, page)
            fresh_ms.append(checks(client, fresh, repeat, minimal=True)[0])
            long_ms.append(checks(client, filled, repeat, minimal=True)[0])
        sizes = [
            checks(client, cid, 1, minimal=minimal)[1]
            for cid in (fresh, filled)
            for minimal in (True, False)
        ]
        snapshot_bytes, event_bytes = snapshots_and_events(app, filled)
    finally:
        app.close()
    return LongPage(
        long,
        statistics.median(fresh_ms),
        statistics.median(long_ms),
        sizes[0],
        sizes[2],
        sizes[1],
        sizes[3],
        snapshot_bytes,
        event_bytes,
    )


def long_page_json(run: LongPage) -> dict[str, Any]:
    """The figures for ``--json``."""
    return {
        "checks": run.checks,
        "target_ratio": TARGET,
        "fresh_ms": run.fresh_ms,
        "long_ms": run.long_ms,
        "cpu_ratio": run.cpu_ratio,
        "fresh_bytes": run.fresh_bytes,
        "long_bytes": run.long_bytes,
        "bytes_ratio": run.bytes_ratio,
        "fresh_full_bytes": run.fresh_full_bytes,
        "long_full_bytes": run.long_full_bytes,
        "snapshot_bytes": run.snapshot_bytes,
        "event_bytes": run.event_bytes,
    }


def long_page_table(run: LongPage) -> Table:
    """The figures beside their target."""
    out = Table(title=f"trait_check on a page of {run.checks:,} checks vs a fresh page")
    for column in ("figure", "fresh page", "long page", "ratio", "target"):
        out.add_column(column)

    def verdict(ratio: float) -> str:
        return f"<= {TARGET}x {'PASS' if ratio <= TARGET else 'MISS'}"

    out.add_row(
        "CPU per command, ms",
        f"{run.fresh_ms:.2f}",
        f"{run.long_ms:.2f}",
        f"{run.cpu_ratio:.2f}x",
        verdict(run.cpu_ratio),
    )
    out.add_row(
        "answer bytes (return=minimal, the page's)",
        f"{run.fresh_bytes:,}",
        f"{run.long_bytes:,}",
        f"{run.bytes_ratio:.2f}x",
        verdict(run.bytes_ratio),
    )
    out.add_row(
        "answer bytes (full: the whole state)",
        f"{run.fresh_full_bytes:,}",
        f"{run.long_full_bytes:,}",
        f"{run.long_full_bytes / run.fresh_full_bytes:.2f}x",
        "(grows with the page)",
    )
    out.add_row(
        "long campaign: snapshots' bytes / events' bytes",
        "",
        f"{run.snapshot_bytes:,} / {run.event_bytes:,}",
        f"{run.snapshot_bytes / run.event_bytes:.2f}x",
        "",
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.write.long_page", description=__doc__)
    parser.add_argument("--checks", type=int, default=3_000, help="checks on the long page")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20, help="commands per round and page")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 300 checks, 2 rounds")
    args = parser.parse_args(argv)
    if args.quick:
        args.checks, args.rounds, args.repeat = 300, 2, 5
    console = Console(width=120)
    console.print(f"filling a page with {args.checks:,} checks…")
    with tempfile.TemporaryDirectory(prefix="questlog-long-page-") as folder:
        run = measure_long_page(
            Path(folder), long=args.checks, rounds=args.rounds, repeat=args.repeat
        )
    console.print(long_page_table(run))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
