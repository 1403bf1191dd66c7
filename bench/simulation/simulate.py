"""Where one PostgreSQL server stops being enough: a simulation of many tables at realistic rates.

``python -m bench.simulation.simulate`` (``--quick`` for a smoke run of under a minute, ``--json
FILE`` for the figures). On a fresh schema of the PostgreSQL at ``QUESTLOG_BENCH_DATABASE_URL``
(default ``postgresql://postgres@127.0.0.1:5432/test``), dropped at the end unless ``--keep``:

1. **load**: ``--processes`` worker processes, each with its own ``Questlog`` and ``--tables``
   campaigns (``bench/simulation/sim_play.py`` plays them), are offered increasing command rates,
   open loop (``bench/simulation/sim_load.py``). Each step reports the commands and events per
   second achieved, the p50/p99 latency from the scheduled time, errors, the CPU of the PostgreSQL
   processes and of the load generator, and what the server's backends were waiting on. A step is
   *sustained* when at least 95 % of the offered commands ran within the step and its drain time,
   with no error, and its p99 is under ``--p99-ms``.
2. **growth**: the events table is grown with copies of the real events to each of ``--sizes``
   rows, and a campaign load, a notification page, an index lookup and appends are timed at each
   size (``bench/simulation/sim_growth.py``).
3. **in user terms**: the per-table rates of real play (measured commands per Quest Calendar page
   and per Calendar Board night, in the sessions of the games: a page in an hour, a chapter of
   ``--cb-nights`` nights in two hours) turn the sustained rate into concurrent tables, and the
   bytes per event into the storage of a year's play.

It is a measurement: it exits 0 whatever the figures are, and 1 only if it could not run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from rich.console import Console

from bench.simulation.sim_growth import Growth, SizePoint
from bench.simulation.sim_load import (
    THREADS,
    StepResult,
    WaitSampler,
    machine_cpu_s,
    postgres_cpu_s,
    postgres_cpu_since,
    start_workers,
    stop_workers,
)
from bench.simulation.sim_play import Tally, calibrate
from bench.simulation.sim_report import (
    Step,
    percentile,
    play_rates,
    print_summary,
    sizes_table,
    step_line,
    steps_table,
    user_terms,
    waits_lines,
)
from domain.storage.store import StoreConfig

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"

console = Console(highlight=False, width=None if sys.stdout.isatty() else 140)


@dataclass
class Settings:
    """What one run does."""

    processes: int
    tables: int
    rates: list[float]
    step_seconds: float
    drain_seconds: float
    sizes: list[int]
    p99_ms: float
    cb_nights: int
    calibrate_pages: int
    calibrate_nights: int
    quick: bool


def parse_args(argv: list[str] | None) -> tuple[Settings, argparse.Namespace]:
    """The command line; ``--quick`` changes the defaults, explicit options win."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.simulation.simulate", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run (under a minute)")
    parser.add_argument("--processes", type=int, help="load processes (default 2)")
    parser.add_argument("--tables", type=int, help="campaigns per process (default 150; quick 15)")
    parser.add_argument("--rates", help="offered commands/s, comma-separated, increasing")
    parser.add_argument("--step-seconds", type=float, help="seconds per offered rate (default 15)")
    parser.add_argument("--sizes", help="events table sizes in rows, comma-separated, increasing")
    parser.add_argument("--p99-ms", type=float, default=100.0, help="the p99 bound (default 100)")
    parser.add_argument(
        "--cb-nights", type=int, default=10, help="nights in a Calendar Board session (default 10)"
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--keep", action="store_true", help="keep the schema (its name is printed)")
    args = parser.parse_args(argv)
    quick = args.quick
    try:
        rates = [float(x) for x in (args.rates or ("5,20" if quick else DEFAULT_RATES)).split(",")]
        sizes = [
            int(x) for x in (args.sizes or ("20000,50000" if quick else DEFAULT_SIZES)).split(",")
        ]
    except ValueError:
        parser.error("--rates and --sizes take numbers separated by commas")
    if not rates or min(rates) <= 0 or rates != sorted(rates):
        parser.error("--rates: positive, increasing numbers")
    if not sizes or min(sizes) <= 0 or sizes != sorted(sizes):
        parser.error("--sizes: positive, increasing numbers")
    settings = Settings(
        processes=args.processes or 2,
        tables=args.tables or (15 if quick else 150),
        rates=rates,
        step_seconds=args.step_seconds or (4.0 if quick else 15.0),
        drain_seconds=2.0 if quick else 5.0,
        sizes=sizes,
        p99_ms=args.p99_ms,
        cb_nights=args.cb_nights,
        calibrate_pages=4 if quick else 20,
        calibrate_nights=4 if quick else 20,
        quick=quick,
    )
    if settings.processes < 1 or settings.tables < 1 or settings.step_seconds <= 0:
        parser.error("--processes, --tables and --step-seconds must be positive")
    if settings.p99_ms <= 0 or settings.cb_nights < 1:
        parser.error("--p99-ms and --cb-nights must be positive")
    return settings, args


DEFAULT_RATES = "10,20,40,60,80,120,160"
DEFAULT_SIZES = "250000,1000000,2000000"


# -- the load steps ------------------------------------------------------------------------------


def run_steps(
    settings: Settings, config: StoreConfig, url: str, note: Any
) -> tuple[list[Step], Tally, Tally]:
    """Start the workers, offer each rate in turn, stop after two steps in a row not sustained."""
    workers, inboxes, results, setup = start_workers(
        config, settings.processes, settings.tables, seed=secrets.randbelow(1 << 30)
    )
    steps: list[Step] = []
    total = Tally()
    try:
        note(f"{settings.processes * settings.tables} tables created; offering the rates")
        misses = 0
        for rate in settings.rates:
            step, tally = one_step(
                settings, rate, url, config.postgres_schema or "", inboxes, results
            )
            steps.append(step)
            total.add(tally)
            note(step_line(step, settings.p99_ms))
            misses = 0 if step.sustained(settings.p99_ms) else misses + 1
            if misses == 2:
                note("two steps in a row not sustained: the server is saturated; stopping")
                break
    finally:
        stop_workers(workers, inboxes)
    return steps, setup, total


def one_step(
    settings: Settings, rate: float, url: str, schema: str, inboxes: list[Any], results: Any
) -> tuple[Step, Tally]:
    """Offer ``rate`` commands/s over every process and gather their figures."""
    share = rate / len(inboxes)
    pg_before, machine_before = postgres_cpu_s(), machine_cpu_s()
    began = time.perf_counter()
    with WaitSampler(url, f"{schema}.questlog_events") as sampler:
        for inbox in inboxes:
            inbox.put((share, settings.step_seconds, settings.drain_seconds))
        parts: list[StepResult] = []
        for _ in inboxes:
            kind, _index, part = results.get(timeout=settings.step_seconds * 10 + 120)
            if kind != "step":
                raise RuntimeError(f"a worker answered {kind} during a step")
            parts.append(part)
    wall = time.perf_counter() - began
    tally = Tally()
    for part in parts:
        tally.add(part.tally)
    latencies = [ms for part in parts for ms in part.latencies_ms]
    errors: dict[str, int] = {}
    for part in parts:
        for name, count in part.errors.items():
            errors[name] = errors.get(name, 0) + count
    step = Step(
        offered=rate,
        seconds=settings.step_seconds,
        scheduled=sum(part.scheduled for part in parts),
        commands=sum(tally.commands.values()) + sum(tally.refused.values()),
        events=sum(tally.events.values()),
        late=sum(part.late for part in parts),
        errors=errors,
        p50_ms=percentile(latencies, 50),
        p99_ms=percentile(latencies, 99),
        server_cpu=postgres_cpu_since(pg_before) / wall,
        client_cpu=sum(part.cpu_s for part in parts) / wall,
        machine_cpu=(machine_cpu_s() - machine_before) / wall,
        waits=sampler.per_sample(),
        lock_holder=sampler.holder_share(),
    )
    return step, tally


# -- the machine and the report ------------------------------------------------------------------


def machine(url: str) -> dict[str, Any]:
    """Cores, memory, load average, and the server's version and memory settings."""
    memory = 0
    with contextlib.suppress(OSError), open("/proc/meminfo", encoding="ascii") as handle:
        memory = int(handle.readline().split()[1]) * 1024
    with psycopg.connect(url, autocommit=True) as conn:
        version = conn.execute("SHOW server_version").fetchone()
        buffers = conn.execute("SHOW shared_buffers").fetchone()
    return {
        "nproc": os.cpu_count(),
        "memory_bytes": memory,
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "postgres": version[0] if version else "?",
        "shared_buffers": buffers[0] if buffers else "?",
    }


def commit() -> str:
    """The repository's commit (short hash), or "unknown" outside a git checkout."""
    root = Path(__file__).resolve().parents[2]
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    return "unknown"


def run(settings: Settings, url: str, json_path: Path | None, keep: bool) -> int:
    """The whole simulation; the figures are printed and written as they come."""
    info = {**machine(url), "commit": commit(), "settings": asdict(settings)}
    console.print(
        f"[bold]bench.simulation.simulate[/bold] commit {info['commit']}, {info['nproc']} cores, "
        f"load average {info['loadavg_at_start'][0]}, PostgreSQL {info['postgres']} "
        f"(shared_buffers {info['shared_buffers']}), {settings.processes} load processes x "
        f"{THREADS} threads x {settings.tables} tables"
    )
    schema = f"sim_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    config = StoreConfig(database_url=url, postgres_schema=schema)
    figures: dict[str, Any] = {"machine": info, "schema": schema}
    try:
        from domain.service.questlog import Questlog

        app = Questlog(config)  # creates the tables once, before the workers race to
        try:
            calibration, probes = calibrate(
                app, random.Random(), settings.calibrate_pages, settings.calibrate_nights
            )
        finally:
            app.close()
        rates = play_rates(calibration, settings.cb_nights)
        figures["play"] = {**rates, "commands": dict(calibration.commands)}
        console.print(
            f"real play, measured on {settings.calibrate_pages} Quest Calendar pages and "
            f"{calibration.nights} Calendar Board nights: {rates['qc_commands_per_page']:.1f} "
            f"commands and {rates['qc_events_per_page']:.1f} events a page, "
            f"{rates['cb_commands_per_night']:.1f} commands and "
            f"{rates['cb_events_per_night']:.1f} events a night"
        )
        began = time.perf_counter()
        steps, setup, played = run_steps(settings, config, url, console.print)
        console.print(steps_table(steps, settings.p99_ms))
        console.print("what the server's backends waited on (average number of backends):")
        for line in waits_lines(steps):
            console.print(line)
        figures["steps"] = [step.as_dict(settings.p99_ms) for step in steps]
        figures["load_seconds"] = round(time.perf_counter() - began, 1)
        played.add(setup)
        figures["load_play"] = {
            "campaigns": dict(played.campaigns),
            "events": dict(played.events),
            "refused": dict(played.refused),
        }
        write(json_path, figures)
        growth = Growth(config, probes)
        points: list[SizePoint] = []
        for size in settings.sizes:
            copy_rate = growth.grow_to(size, lambda text: None)
            point = growth.measure()
            points.append(point)
            console.print(
                f"  {point.rows:,} rows (copied at {copy_rate:,.0f} rows/s): "
                f"campaign load {point.load_ms:.1f} ms, append p99 {point.append_p99_ms:.1f} ms"
            )
            figures["sizes"] = [p.as_dict() for p in points]
            write(json_path, figures)
        console.print(sizes_table(points))
        good = [s for s in steps if s.sustained(settings.p99_ms)]
        best = max(good, key=lambda s: s.achieved) if good else None
        figures["user_terms"] = user_terms(rates, best, points[-1] if points else None)
        figures["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
        print_summary(console, rates, figures["user_terms"], info)
        write(json_path, figures)
        return 0
    finally:
        if keep:
            console.print(f"schema kept: {schema}")
        else:
            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def write(path: Path | None, figures: dict[str, Any]) -> None:
    """Write the figures as JSON (a temporary file renamed over the target)."""
    if path is None:
        return
    partial = path.with_suffix(path.suffix + ".partial")
    partial.write_text(json.dumps(figures, indent=2, default=str))
    partial.replace(path)


def main(argv: list[str] | None = None) -> int:
    """Parse the options, check the server answers, run."""
    settings, args = parse_args(argv)
    url = os.environ.get("QUESTLOG_BENCH_DATABASE_URL", DEFAULT_URL)
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        console.print(f"FAILED: PostgreSQL at {url} is not reachable: {exc}")
        return 1
    # A SIGTERM unwinds like an error, so the run's schema is dropped and its workers stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return run(settings, url, args.json, args.keep)


if __name__ == "__main__":
    sys.exit(main())
