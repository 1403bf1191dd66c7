"""Questlog benchmark: ``python -m bench.run`` (``--quick`` for a short smoke run).

(a) ``POST /campaigns/{id}/rolls`` (a server d20) against a bare route that inserts one SQLite
    row, both served by waitress from one server process (the production stack), driven by
    keep-alive HTTP clients in threads of this process;
(b) loading a 10,000-event campaign: now (cold and warm cache) and at version 5,000;
(c) auditing that campaign;
(d) the views catching up on 100,000 events on SQLite and PostgreSQL beside the
    one-transaction-per-event baseline (``bench/views/views_bench.py``);
(e) the views' lag under a steady 500 commands/s through the API (``bench/views/views_lag.py``);
(f) scale-out: ``questlog serve`` on SQLite (one process) beside ``questlog serve --workers 2``
    on PostgreSQL, 8 clients rolling over 8 campaigns each, in alternating rounds
    (``bench/postgres/scale.py``);
(g) against the naive app a user would otherwise write (``bench/write/naive_app.py``): the roll
    route, a game command with server dice and PostgreSQL with one process, in alternating
    rounds, with each server's CPU per 1,000 requests (``bench/write/versus_naive.py``);
(h) the analyst's dataset on a SQLite store of 100,000 server rolls: ``questlog export --all``
    as Parquet, and ``questlog sql``'s count per face (``bench/analytics/dataset_bench.py``);
(i) reads that must cost what they return: a campaign's answer in a small store and a large one,
    and the first page of a short campaign's events and of a long one's
    (``bench/reads/read_growth.py``);
(j) on PostgreSQL, 200 rolls acknowledged while another client's write transaction stays open:
    how many the views hold within 1 s (``bench/views/horizon.py``);
(k) a ``trait_check`` on a page of 3,000 checks against one on a fresh page: CPU and answer bytes
    (``bench/write/long_page.py``);
(l) the server's resident memory after 20 audits of a 30,000-event campaign, 4 at once
    (``bench/reads/audit_memory.py``);
(m) the table page's whole load in Chromium, a campaign of 200 events against one of 30,000
    (``bench/page/page_bytes.py``).

The run ends with the figures of "every request costs what it reads" side by side, each beside
its target (``bench/common/targets.py``), also in ``--json`` under ``targets``.

The views' lag (e) is measured under a load scaled to this machine: 70 % of the roll rate part
(a) measured (``--views-rate`` sets it instead), so that it gives a verdict on any machine.

Access control is on wherever HTTP is used, as the service's defaults have it: each run creates
its own admin token on the store before its server starts and exempts exactly that token from the
per-token rate limit (``QUESTLOG_RATE_LIMIT_EXEMPT``), so that the load is delivered.

Each part prints its figures beside its targets with PASS/MISS as soon as
it has them, and ``--json`` is rewritten after each part. Every HTTP status is counted; a load with
fewer than 99 % of its requests answered 201 is FAILED, with no verdict. A part that fails is
reported with the reason and the remaining parts still run; the exit status is then 1 (0 when
every part measured, whatever the figures).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.analytics.dataset_bench import dataset_json, dataset_table, measure_dataset
from bench.common.load import free_port
from bench.common.report import domain_json, http_json, http_table, targets_table, verdict
from bench.common.targets import targets_json, targets_summary
from bench.page.page_bytes import measure_page_bytes, page_bytes_json, page_bytes_line
from bench.postgres.scale import URL, measure_scale, scale_json, scale_table
from bench.reads.audit_memory import audit_memory_json, audit_memory_line
from bench.reads.audit_memory import measure as measure_audit_memory
from bench.reads.domain_bench import measure_domain
from bench.reads.read_growth import growth_json, growth_table, measure_growth
from bench.views.horizon import horizon_json, horizon_table, measure_horizon
from bench.views.views_bench import (
    catch_up_json,
    catch_up_table,
    lag_json,
    lag_table,
    measure_postgres_catch_up,
    measure_sqlite_catch_up,
    measure_views_lag,
)
from bench.write.http_bench import BenchError, measure_http
from bench.write.long_page import long_page_json, long_page_table, measure_long_page
from bench.write.versus_naive import measure_versus, print_checks, versus_json, versus_table

# Above this many cores used by other processes during a run, its figures are flagged.
DISTURBED_CORES = 0.15
LAG_SHARE = 0.7
"""The lag's load, as a share of the roll rate part (a) measured on this machine."""
LAG_RATE_WITHOUT_A = 300.0
"""The lag's load when part (a) did not run and ``--views-rate`` is not given."""

PART_SKIPS = (
    "skip_http",
    "skip_domain",
    "skip_views",
    "skip_scale",
    "skip_versus",
    "skip_dataset",
    "skip_growth",
    "skip_horizon",
    "skip_long_page",
    "skip_audit_memory",
    "skip_page_bytes",
)
"""The flags that leave a part out."""
ONLY: dict[str, tuple[str, ...]] = {
    "roll_only": ("skip_http",),
    "domain_only": ("skip_domain",),
    "horizon_only": ("skip_horizon",),
    "growth_only": ("skip_growth",),
    "dataset_only": ("skip_dataset",),
    "versus_only": ("skip_versus",),
    "long_page_only": ("skip_long_page",),
    "audit_memory_only": ("skip_audit_memory",),
    "page_bytes_only": ("skip_page_bytes",),
    "views_only": ("skip_views", "skip_scale"),
    "scale_only": ("skip_views", "skip_scale"),
}
"""Each ``--*-only`` flag and the parts it keeps (the views and scale-out share one store)."""

console = Console(highlight=False, width=None if sys.stdout.isatty() else 132)


@dataclass
class Settings:
    """How long and how big."""

    seconds: float
    rounds: int
    warmup: float
    clients: int
    threads: int
    events: int
    at_version: int
    repeat: int
    audit_repeat: int
    quick: bool
    extras: bool
    scale_seconds: float
    scale_rounds: int
    scale_warmup: float
    scale_workers: int
    scale_clients: int


def parse_args(argv: list[str] | None) -> tuple[Settings, argparse.Namespace]:
    """Command-line options; ``--quick`` changes the defaults, explicit options still win."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.run", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="a short smoke run (about 30 s)")
    parser.add_argument("--seconds", type=float, help="measured seconds per route (default 10)")
    parser.add_argument(
        "--rounds",
        type=int,
        help="split the measured seconds into this many rounds, alternating the routes "
        "(default 2), so a slow patch of the machine hits every route alike",
    )
    parser.add_argument("--warmup", type=float, help="warm-up seconds per route (default 3)")
    parser.add_argument("--clients", type=int, default=4, help="concurrent HTTP clients")
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads")
    parser.add_argument("--events", type=int, help="events in the long campaign (default 10000)")
    parser.add_argument("--at-version", type=int, help="version to load (default events / 2)")
    parser.add_argument("--repeat", type=int, help="repetitions of each load (default 15)")
    parser.add_argument("--audit-repeat", type=int, help="repetitions of the audit (default 5)")
    parser.add_argument(
        "--no-extras",
        action="store_true",
        help="skip the extra rows (rolls on one campaign per client, audit with seed revealed)",
    )
    parser.add_argument("--skip-http", action="store_true", help="skip part (a)")
    parser.add_argument("--skip-domain", action="store_true", help="skip parts (b) and (c)")
    parser.add_argument("--skip-views", action="store_true", help="skip parts (d) and (e)")
    parser.add_argument("--views-only", action="store_true", help="run only parts (d) and (e)")
    parser.add_argument("--views-events", type=int, help="events of the log (default 100000)")
    parser.add_argument(
        "--views-baseline", type=int, help="events for the 1-per-transaction baseline (10000)"
    )
    parser.add_argument("--views-seconds", type=float, help="seconds of steady load (default 10)")
    parser.add_argument(
        "--views-rate",
        type=float,
        help="commands/s of the lag's load (default: 70%% of part (a)'s roll rate, else 300)",
    )
    parser.add_argument("--no-postgres", action="store_true", help="part (d) on SQLite only")
    parser.add_argument("--skip-scale", action="store_true", help="skip part (f)")
    parser.add_argument("--scale-only", action="store_true", help="run only part (f)")
    parser.add_argument(
        "--scale-seconds", type=float, help="part (f): measured seconds per store (default 30)"
    )
    parser.add_argument(
        "--scale-rounds", type=int, help="part (f): alternating rounds per store (default 6)"
    )
    parser.add_argument("--scale-workers", type=int, default=2, help="part (f): API workers")
    parser.add_argument(
        "--scale-clients", type=int, default=8, help="part (f): clients, one campaign each"
    )
    parser.add_argument("--skip-dataset", action="store_true", help="skip part (h)")
    parser.add_argument("--dataset-only", action="store_true", help="run only part (h)")
    parser.add_argument("--skip-growth", action="store_true", help="skip part (i)")
    parser.add_argument("--growth-only", action="store_true", help="run only part (i)")
    parser.add_argument("--skip-horizon", action="store_true", help="skip part (j)")
    parser.add_argument("--horizon-only", action="store_true", help="run only part (j)")
    parser.add_argument("--roll-only", action="store_true", help="run only part (a)")
    parser.add_argument("--domain-only", action="store_true", help="run only parts (b) and (c)")
    parser.add_argument("--skip-long-page", action="store_true", help="skip part (k)")
    parser.add_argument("--long-page-only", action="store_true", help="run only part (k)")
    parser.add_argument("--skip-audit-memory", action="store_true", help="skip part (l)")
    parser.add_argument("--audit-memory-only", action="store_true", help="run only part (l)")
    parser.add_argument("--skip-page-bytes", action="store_true", help="skip part (m)")
    parser.add_argument("--page-bytes-only", action="store_true", help="run only part (m)")
    parser.add_argument("--skip-versus", action="store_true", help="skip part (g)")
    parser.add_argument("--versus-only", action="store_true", help="run only part (g)")
    parser.add_argument(
        "--versus-seconds", type=float, help="part (g): measured seconds per server (default 24)"
    )
    parser.add_argument(
        "--versus-rounds", type=int, help="part (g): alternating rounds (default 4)"
    )
    parser.add_argument(
        "--json", type=Path, help="also write the results to this JSON file (after every part)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args(argv)
    quick = args.quick
    events = args.events or (1_000 if quick else 10_000)
    settings = Settings(
        seconds=args.seconds or (2.0 if quick else 10.0),
        rounds=args.rounds or (1 if quick else 2),
        warmup=args.warmup if args.warmup is not None else (0.5 if quick else 3.0),
        clients=args.clients,
        threads=args.threads,
        events=events,
        at_version=args.at_version or max(1, events // 2),
        repeat=args.repeat or (5 if quick else 15),
        audit_repeat=args.audit_repeat or (2 if quick else 5),
        quick=quick,
        extras=not args.no_extras,
        scale_seconds=args.scale_seconds or (2.0 if quick else 30.0),
        scale_rounds=args.scale_rounds or (1 if quick else 6),
        scale_warmup=0.5 if quick else 3.0,
        scale_workers=args.scale_workers,
        scale_clients=args.scale_clients,
    )
    if (
        settings.rounds < 1
        or settings.clients < 1
        or settings.events < 2
        or not 1 <= settings.at_version <= events
        or settings.scale_rounds < 1
        or settings.scale_workers < 1
        or settings.scale_clients < 1
    ):
        parser.error(
            "need --rounds >= 1, --clients >= 1, --events >= 2, 1 <= --at-version <= --events, "
            "--scale-rounds >= 1, --scale-workers >= 1 and --scale-clients >= 1"
        )
    return settings, args


# -- the machine ---------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """What this ran on."""
    model = platform.processor() or "unknown"
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "eventsourcing": package_version("eventsourcing"),
        "waitress": package_version("waitress"),
        "loadavg_at_start": [round(x, 2) for x in load],
    }


class Results:
    """The figures so far, rewritten to ``--json`` (atomically) after every part."""

    def __init__(self, path: Path | None, settings: Settings, info: dict[str, Any]) -> None:
        self.path = path
        self.data: dict[str, Any] = {
            "settings": asdict(settings),
            "machine": info,
            "parts": {},
            "failed": {},
        }

    def record(self, part: str, figures: dict[str, Any]) -> None:
        """A part's figures."""
        self.data[part] = figures

    def finish(self, part: str, failure: str | None) -> None:
        """A part is over: ``ok`` or failed (with the reason); write the file."""
        self.data["parts"][part] = "ok" if failure is None else "failed"
        if failure is not None:
            self.data["failed"][part] = failure
        self.write()

    def write(self) -> None:
        """Replace the JSON file in one step, so a reader never sees half of it."""
        if self.path is None:
            return
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        temporary.write_text(json.dumps(self.data, indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, self.path)


Part = Callable[[], str | None]
"""Measures, prints and records its figures; returns why it failed, or None."""


def apply_only(args: argparse.Namespace) -> None:
    """Turn the ``--*-only`` flags given into the skips of every part none of them keeps
    (``--roll-only --domain-only`` runs parts (a), (b) and (c))."""
    kept = {skip for flag, parts in ONLY.items() if getattr(args, flag) for skip in parts}
    if kept:
        for skip in PART_SKIPS:
            setattr(args, skip, getattr(args, skip) or skip not in kept)
    if args.scale_only:
        args.skip_views = True
    if args.views_only:
        args.skip_scale = True


def main(argv: list[str] | None = None) -> int:
    """Run every part; 0 whatever the figures, 1 if a part could not measure (the others run)."""
    settings, args = parse_args(argv)
    info = machine()
    console.print(
        f"[bold]Questlog benchmark[/bold]{' (quick)' if settings.quick else ''}: "
        f"{info['nproc']} CPUs ({info['cpu']}), Python {info['python']}, "
        f"eventsourcing {info['eventsourcing']}, waitress {info['waitress']}, "
        f"load average {info['loadavg_at_start'][0]}"
    )
    workdir = Path(tempfile.mkdtemp(prefix="questlog-bench-"))
    results = Results(args.json, settings, info)
    results.write()

    def note(text: str) -> None:
        console.print(f"  [dim]{text}[/dim]")

    measured: dict[str, float] = {}
    views_events = args.views_events or (10_000 if settings.quick else 100_000)
    views_baseline = args.views_baseline or (2_000 if settings.quick else 10_000)

    def http_part() -> str | None:
        console.print("[bold](a)[/bold] HTTP load on a fresh SQLite store")
        http = measure_http(
            workdir / "http",
            threads=settings.threads,
            clients=settings.clients,
            warmup=settings.warmup,
            seconds=settings.seconds,
            rounds=settings.rounds,
            extras=settings.extras,
            note=note,
        )
        results.record("http", http_json(http))
        rolled = http.runs.get("roll_per_client", http.runs["roll"])
        if rolled.delivered:
            measured["roll_rate"] = rolled.throughput
        console.print(http_table(http))
        console.print(targets_table(http, None, settings.quick))
        disturbed = [
            name
            for name, run in http.runs.items()
            if run.other_cpu is not None and run.other_cpu > DISTURBED_CORES
        ]
        if disturbed:
            console.print(
                f"[yellow]other processes used more than {DISTURBED_CORES} of a core during "
                f"{', '.join(disturbed)}: those figures are disturbed; run again on a quiet "
                "machine[/yellow]"
            )
        return http.failure()

    def domain_part() -> str | None:
        console.print(f"[bold](b), (c)[/bold] a campaign of {settings.events:,} events")
        domain = measure_domain(
            workdir / "domain" / "questlog.db",
            events=settings.events,
            at_version=settings.at_version,
            repeat=settings.repeat,
            audit_repeat=settings.audit_repeat,
            extras=settings.extras,
            progress=note,
        )
        results.record("domain", domain_json(domain))
        console.print(targets_table(None, domain, settings.quick))
        rolls = domain.audit_report["rolls"]
        console.print(
            f"[dim]campaign built in {domain.build_seconds:.1f} s through Questlog.dice.roll; "
            f"audit: chain_ok={domain.audit_report['chain_ok']}, rolls={rolls}[/dim]"
        )
        if not domain.audit_report["ok"]:
            return "the audit of the benchmark campaign failed"
        if domain.reaudit_report is not None and not domain.reaudit_report["ok"]:
            return "the re-audit of the benchmark campaign failed"
        return None

    def catch_up_part(kind: str) -> Part:
        measure = measure_sqlite_catch_up if kind == "sqlite" else measure_postgres_catch_up

        def part() -> str | None:
            console.print(f"[bold](d)[/bold] the views catching up on {kind}")
            run = measure(
                workdir / "views", events=views_events, baseline=views_baseline, note=note
            )
            results.record(f"views_{kind}", catch_up_json(run))
            console.print(catch_up_table(run, verdict))
            return None

        return part

    def lag_part() -> str | None:
        rate = args.views_rate
        if rate is None and "roll_rate" in measured:
            rate = round(LAG_SHARE * measured["roll_rate"])
            why = f"{LAG_SHARE:.0%} of the {measured['roll_rate']:,.0f} rolls/s part (a) measured"
        elif rate is None:
            rate, why = LAG_RATE_WITHOUT_A, "part (a) did not run: a fixed load"
        else:
            why = "--views-rate"
        console.print(
            f"[bold](e)[/bold] the views' lag under {rate:g} rolls/s through the API ({why})"
        )
        lag = measure_views_lag(
            workdir / "views",
            free_port(),
            rate=rate,
            seconds=args.views_seconds or (3.0 if settings.quick else 10.0),
            note=note,
        )
        results.record("views_lag", lag_json(lag))
        console.print(lag_table(lag, verdict))
        shortfall = lag.shortfall()
        return None if shortfall is None else f"{shortfall}: no verdict on a load not delivered"

    def scale_part() -> str | None:
        console.print("[bold](f)[/bold] scale-out: PostgreSQL with several workers against SQLite")
        scale = measure_scale(
            workdir / "scale",
            url=URL,
            workers=settings.scale_workers,
            clients=settings.scale_clients,
            warmup=settings.scale_warmup,
            seconds=settings.scale_seconds,
            rounds=settings.scale_rounds,
            note=note,
        )
        results.record("scale", scale_json(scale))
        console.print(scale_table(scale))
        return print_checks(console, scale)

    def versus_part() -> str | None:
        console.print("[bold](g)[/bold] against the naive app (bench/write/naive_app.py)")
        versus = measure_versus(
            workdir / "versus",
            clients=settings.clients,
            threads=settings.threads,
            warmup=settings.warmup,
            seconds=args.versus_seconds or (2.0 if settings.quick else 24.0),
            rounds=args.versus_rounds or (1 if settings.quick else 4),
            postgres=not args.no_postgres,
            note=note,
        )
        results.record("versus", versus_json(versus))
        console.print(versus_table(versus))
        return print_checks(console, versus)

    def dataset_part() -> str | None:
        console.print(
            f"[bold](h)[/bold] the analyst's dataset on a SQLite store of {views_events:,} rolls"
        )
        run = measure_dataset(workdir / "dataset", events=views_events, note=note)
        results.record("dataset", dataset_json(run))
        console.print(dataset_table(run, verdict))
        return None

    def growth_part() -> str | None:
        long = 3_000 if settings.quick else 30_000
        console.print(f"[bold](i)[/bold] reads against the store's size (a campaign of {long:,})")
        run = measure_growth(workdir / "growth", long=long, rounds=2 if settings.quick else 5)
        results.record("growth", growth_json(run))
        console.print(growth_table(run))
        return None

    def long_page_part() -> str | None:
        checks = 300 if settings.quick else 3_000
        console.print(f"[bold](k)[/bold] a command on a page of {checks:,} checks")
        run = measure_long_page(
            workdir / "long-page", long=checks, rounds=2 if settings.quick else 5
        )
        results.record("long_page", long_page_json(run))
        console.print(long_page_table(run))
        return None

    def audit_memory_part() -> str | None:
        events, audits = (2_000, 4) if settings.quick else (30_000, 20)
        console.print(f"[bold](l)[/bold] the server's memory after {audits} audits, 4 at once")
        run = measure_audit_memory(
            workdir / "audit-memory", events=events, audits=audits, clients=4
        )
        results.record("audit_memory", audit_memory_json(run))
        console.print(audit_memory_line(run, 4))
        return None

    def page_bytes_part() -> str | None:
        sizes = (100, 1_000) if settings.quick else (200, 30_000)
        console.print(
            f"[bold](m)[/bold] the table page's whole load at {sizes[0]:,} and {sizes[1]:,} events"
        )
        runs = measure_page_bytes(workdir / "page-bytes", events=sizes)
        results.record("page_bytes", page_bytes_json(runs))
        console.print(page_bytes_line(runs))
        return None

    def horizon_part() -> str | None:
        console.print("[bold](j)[/bold] the views beside another client's open transaction")
        phases = measure_horizon()
        results.record("horizon", horizon_json(phases))
        console.print(horizon_table(phases))
        return None

    apply_only(args)
    parts: list[tuple[str, Part]] = []
    if not args.skip_http:
        parts.append(("http", http_part))
    if not args.skip_domain:
        parts.append(("domain", domain_part))
    if not args.skip_views:
        parts.append(("views_sqlite", catch_up_part("sqlite")))
        if not args.no_postgres:
            parts.append(("views_postgres", catch_up_part("postgres")))
        parts.append(("views_lag", lag_part))
    if not args.skip_scale:
        parts.append(("scale", scale_part))
    if not args.skip_versus:
        parts.append(("versus", versus_part))
    if not args.skip_dataset:
        parts.append(("dataset", dataset_part))
    if not args.skip_growth:
        parts.append(("growth", growth_part))
    if not args.skip_horizon and not args.no_postgres:
        parts.append(("horizon", horizon_part))
    if not args.skip_long_page:
        parts.append(("long_page", long_page_part))
    if not args.skip_audit_memory:
        parts.append(("audit_memory", audit_memory_part))
    if not args.skip_page_bytes:
        parts.append(("page_bytes", page_bytes_part))
    try:
        for name, part in parts:
            try:
                failure = part()
            except BenchError as error:
                failure = str(error)
            except Exception as error:  # reported with its traceback; the other parts still run
                failure = f"{type(error).__name__}: {error}"
                console.print(traceback.format_exc(limit=-4), markup=False, style="dim")
            if failure is not None:
                console.print(f"[bold red]FAILED: part {name}:[/bold red] {failure}")
            results.finish(name, failure)
    finally:
        if args.keep:
            console.print(f"[dim]kept {workdir}[/dim]")
        else:
            _remove_tree(workdir)
    results.data["targets"] = targets_json(results.data)
    results.write()
    console.print(targets_summary(results.data))
    failed = results.data["failed"]
    if failed:
        console.print(
            f"[bold red]{len(failed)} of {len(parts)} part(s) failed:[/bold red] "
            + ", ".join(failed)
            + "; the figures of the others stand"
        )
        return 1
    return 0


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
