"""Where one PostgreSQL server stops being enough: a simulation of many tables at realistic rates.

``python -m bench.simulate`` (``--quick`` for a smoke run of under a minute, ``--json FILE`` for
the figures). On a fresh schema of the PostgreSQL at ``QUESTLOG_BENCH_DATABASE_URL`` (default
``postgresql://postgres@127.0.0.1:5432/test``), dropped at the end unless ``--keep``:

1. **load**: ``--processes`` worker processes, each with its own ``Questlog`` and ``--tables``
   campaigns (``bench/sim_play.py`` plays them), are offered increasing command rates, open loop
   (``bench/sim_load.py``). Each step reports the commands and events per second achieved, the
   p50/p99 latency from the scheduled time, errors, the CPU of the PostgreSQL processes and of
   the load generator, and what the server's backends were waiting on. A step is *sustained*
   when at least 95 % of the offered commands ran within the step and its drain time, with no
   error, and its p99 is under ``--p99-ms``.
2. **growth**: the events table is grown with copies of the real events to each of ``--sizes``
   rows, and a campaign load, a notification page, an index lookup and appends are timed at each
   size (``bench/sim_growth.py``).
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
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from rich.console import Console
from rich.table import Table as RichTable

from bench.sim_growth import Growth, SizePoint
from bench.sim_load import (
    THREADS,
    StepResult,
    WaitSampler,
    machine_cpu_s,
    postgres_cpu_s,
    postgres_cpu_since,
    start_workers,
    stop_workers,
)
from bench.sim_play import Tally, calibrate
from domain.storage.store import StoreConfig

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
SUSTAINED_SHARE = 0.95
QC_PAGE_SECONDS = 3600.0
"""A Quest Calendar session: one page, played in about an hour."""
CB_SESSION_SECONDS = 7200.0
"""A Calendar Board session: a chapter, played in about two hours."""
CB_SESSIONS_PER_YEAR = 52
"""A Calendar Board table meets once a week."""
QC_PAGES_PER_YEAR = 365
"""A Quest Calendar table plays a page a day."""

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
        prog="python -m bench.simulate", description=__doc__.split("\n\n")[0]
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


@dataclass
class Step:
    """One offered rate, all processes together."""

    offered: float
    seconds: float
    scheduled: int
    commands: int
    events: int
    late: int
    errors: dict[str, int]
    p50_ms: float
    p99_ms: float
    server_cpu: float
    client_cpu: float
    machine_cpu: float
    waits: dict[str, float]
    lock_holder: dict[str, float]

    @property
    def achieved(self) -> float:
        """Commands per second that ran (stored or refused by a rule)."""
        return self.commands / self.seconds

    def sustained(self, p99_bound: float) -> bool:
        """95 % of the scheduled commands ran, nothing failed, and the p99 is under the bound."""
        ran = self.commands / max(self.scheduled, 1)
        return ran >= SUSTAINED_SHARE and not self.errors and self.p99_ms <= p99_bound

    def as_dict(self, p99_bound: float) -> dict[str, Any]:
        """The figures as JSON."""
        return {
            **asdict(self),
            "achieved": round(self.achieved, 1),
            "events_per_s": round(self.events / self.seconds, 1),
            "sustained": self.sustained(p99_bound),
        }


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank), NaN if empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))]


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


def step_line(step: Step, bound: float) -> str:
    """One line per step while the run goes on."""
    verdict = "sustained" if step.sustained(bound) else "NOT sustained"
    return (
        f"  {step.offered:>6.0f} offered: {step.achieved:6.1f} commands/s, "
        f"{step.events / step.seconds:6.1f} events/s, p99 {step.p99_ms:7.1f} ms, late {step.late}, "
        f"errors {sum(step.errors.values())}, cores: server {step.server_cpu:.2f} "
        f"load {step.client_cpu:.2f}: {verdict}"
    )


# -- the figures in user terms -------------------------------------------------------------------


def play_rates(tally: Tally, cb_nights: int) -> dict[str, float]:
    """Per-table rates of real play, from what the simulated tables did."""
    qc, cb = "quest-calendar", "calendar-board"
    pages = max(tally.of_game(qc, "start_page"), 1)
    nights = max(tally.nights, 1)
    qc_commands = tally.game_commands(qc) + sum(
        n for k, n in tally.refused.items() if k.startswith(qc)
    )
    cb_commands = tally.game_commands(cb) + sum(
        n for k, n in tally.refused.items() if k.startswith(cb)
    )
    rates = {
        "qc_commands_per_page": qc_commands / pages,
        "qc_events_per_command": tally.events[qc] / max(tally.game_commands(qc), 1),
        "qc_events_per_page": tally.events[qc] / pages,
        "cb_commands_per_night": cb_commands / nights,
        "cb_events_per_command": tally.events[cb] / max(tally.game_commands(cb), 1),
        "cb_events_per_night": tally.events[cb] / nights,
    }
    rates["qc_table_commands_per_s"] = rates["qc_commands_per_page"] / QC_PAGE_SECONDS
    rates["cb_table_commands_per_s"] = (
        rates["cb_commands_per_night"] * cb_nights / CB_SESSION_SECONDS
    )
    rates["qc_events_per_year"] = rates["qc_events_per_page"] * QC_PAGES_PER_YEAR
    rates["cb_events_per_year"] = rates["cb_events_per_night"] * cb_nights * CB_SESSIONS_PER_YEAR
    return {k: round(v, 4) for k, v in rates.items()}


def user_terms(
    rates: dict[str, float], sustained: Step | None, size: SizePoint | None
) -> dict[str, Any]:
    """Concurrent tables one server carries, and the storage of a year of play."""
    mix = 0.7  # the simulated tables' share of Quest Calendar (bench/sim_load.py, QC_SHARE)
    per_table = (
        mix * rates["qc_table_commands_per_s"] + (1 - mix) * rates["cb_table_commands_per_s"]
    )
    terms: dict[str, Any] = {"commands_per_s_per_table_in_session": round(per_table, 5)}
    if sustained is not None:
        terms["sustained_commands_per_s"] = round(sustained.achieved, 1)
        terms["sustained_events_per_s"] = round(sustained.events / sustained.seconds, 1)
        terms["concurrent_tables"] = int(sustained.achieved / per_table)
    if size is not None:
        per_event = size.schema_bytes / max(size.rows, 1)
        terms["bytes_per_event_all_tables"] = round(per_event, 1)
        for game, key in (
            ("quest_calendar", "qc_events_per_year"),
            ("calendar_board", "cb_events_per_year"),
        ):
            terms[f"{game}_year_mb"] = round(rates[key] * per_event / 1e6, 2)
        year = mix * rates["qc_events_per_year"] + (1 - mix) * rates["cb_events_per_year"]
        terms["gb_per_1000_campaign_years"] = round(1000 * year * per_event / 1e9, 2)
    return terms


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
    """The repository's commit, if this is a git checkout."""
    head = Path(__file__).resolve().parent.parent / ".git"
    with contextlib.suppress(Exception):
        import subprocess

        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=head.parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    return "unknown"


def steps_table(steps: list[Step], bound: float) -> RichTable:
    """The load steps, one row each."""
    table = RichTable(
        title=f"Open-loop load (sustained: >= 95 % ran, no error, p99 <= {bound:.0f} ms)"
    )
    for column in ("offered/s", "commands/s", "events/s", "p50 ms", "p99 ms", "late", "errors",
                   "server cores", "load cores", "machine cores", ""):  # fmt: skip
        table.add_column(column, justify="right")
    for step in steps:
        table.add_row(
            f"{step.offered:.0f}",
            f"{step.achieved:.1f}",
            f"{step.events / step.seconds:.1f}",
            f"{step.p50_ms:.1f}",
            f"{step.p99_ms:.1f}",
            str(step.late),
            str(sum(step.errors.values())),
            f"{step.server_cpu:.2f}",
            f"{step.client_cpu:.2f}",
            f"{step.machine_cpu:.2f}",
            "sustained" if step.sustained(bound) else "[bold red]not sustained[/bold red]",
        )
    return table


def waits_lines(steps: list[Step]) -> list[str]:
    """What the server's backends waited on at each step (average backends, top five), and what
    the holder of the events table's lock was doing (share of samples)."""
    lines = []
    for step in steps:
        waits = ", ".join(f"{k} {v}" for k, v in list(step.waits.items())[:5]) or "-"
        holder = ", ".join(f"{k} {v:.0%}" for k, v in step.lock_holder.items())
        lines.append(f"  {step.offered:>5.0f}/s: {waits}")
        lines.append(f"         events lock holder: {holder}")
    return lines


def sizes_table(points: list[SizePoint]) -> RichTable:
    """The growth figures, one row per size."""
    table = RichTable(title="The events table as it grows (medians)")
    for column in ("rows", "events table MB", "of which indexes MB", "bytes/event", "schema MB",
                   "campaign load ms", "page (start) ms", "page (tail) ms", "index lookup ms",
                   "append ms (p99)"):  # fmt: skip
        table.add_column(column, justify="right")
    for p in points:
        table.add_row(
            f"{p.rows:,}",
            f"{p.table_bytes / 1e6:,.1f}",
            f"{p.index_bytes / 1e6:,.1f}",
            f"{p.bytes_per_event:.0f}",
            f"{p.schema_bytes / 1e6:,.1f}",
            f"{p.load_ms:.2f}",
            f"{p.page_start_ms:.2f}",
            f"{p.page_tail_ms:.2f}",
            f"{p.lookup_ms:.2f}",
            f"{p.append_ms:.1f} ({p.append_p99_ms:.1f})",
        )
    return table


def run(settings: Settings, url: str, json_path: Path | None, keep: bool) -> int:
    """The whole simulation; the figures are printed and written as they come."""
    info = {**machine(url), "commit": commit(), "settings": asdict(settings)}
    console.print(
        f"[bold]bench.simulate[/bold] commit {info['commit']}, {info['nproc']} cores, "
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
        from domain.service.application import Questlog

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
        print_summary(rates, figures["user_terms"], info)
        write(json_path, figures)
        return 0
    finally:
        if keep:
            console.print(f"schema kept: {schema}")
        else:
            with psycopg.connect(url, autocommit=True) as admin:
                admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def print_summary(rates: dict[str, float], terms: dict[str, Any], info: dict[str, Any]) -> None:
    """The per-table rates and the figures in user terms."""
    table = RichTable(title="Real play, measured, and what one server carries")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, value in [*rates.items(), *terms.items()]:
        table.add_row(key.replace("_", " "), f"{value:,}" if isinstance(value, int) else str(value))
    table.add_row(
        "load average at start / end",
        f"{info['loadavg_at_start'][0]} / {info['loadavg_at_end'][0]}",
    )
    console.print(table)
    if "concurrent_tables" in terms:
        console.print(
            f"one server carries about {terms['concurrent_tables']:,} tables in session at once "
            f"({terms['sustained_commands_per_s']} commands/s, {terms['sustained_events_per_s']} "
            "events/s, sustained)"
        )
    else:
        console.print("no offered rate was sustained: no concurrent-table figure")
    if "gb_per_1000_campaign_years" in terms:
        console.print(
            f"1,000 campaigns of a year's play take about {terms['gb_per_1000_campaign_years']} GB"
        )


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
