"""Questlog benchmark: ``python -m bench.run`` (``--quick`` for a short smoke run).

(a) ``POST /campaigns/{id}/rolls`` (a server d20) against a bare route that inserts one SQLite
    row, both served by waitress from one server process (the production stack), driven by
    keep-alive HTTP clients in threads of this process;
(b) loading a 10,000-event campaign: now (cold and warm cache) and at version 5,000;
(c) auditing that campaign;
(d) the views catching up on 100,000 events on SQLite and PostgreSQL beside the
    one-transaction-per-event baseline (``bench/views_bench.py``);
(e) the views' lag under a steady 500 commands/s through the API (``bench/views_lag.py``).

Access control is on wherever HTTP is used, as the service's defaults have it: each run creates
its own admin token on the store before its server starts and exempts exactly that token from the
per-token rate limit (``QUESTLOG_RATE_LIMIT_EXEMPT``), so that the load is delivered.

Each part prints its figures beside the targets (issues 2 and 6) with PASS/MISS as soon as it
has them, and ``--json`` is rewritten after each part. Every HTTP status is counted; a load with
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
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.domain_bench import DomainResult, Timing, measure_domain
from bench.load import HOST, LoadResult, merge, request_json, run_load, statuses_text
from bench.server import BARE_PATH, READY_PATH, create_bench_token
from bench.views_bench import (
    catch_up_json,
    catch_up_table,
    lag_json,
    lag_table,
    measure_postgres_catch_up,
    measure_sqlite_catch_up,
    measure_views_lag,
)
from domain.store import StoreConfig

ROLL_BODY = {"dice": "d20", "purpose": "bench"}

# Targets of issue 2, point 10.
RATIO_TARGET = 0.6
ROLL_P99_MS = 20.0
CURRENT_MS = 5.0
AT_VERSION_MS = 50.0
AUDIT_S = 1.0

# Above this many cores used by other processes during a run, its figures are flagged.
DISTURBED_CORES = 0.15

console = Console(highlight=False, width=None if sys.stdout.isatty() else 132)


class BenchError(RuntimeError):
    """The benchmark could not measure (as opposed to a figure that misses its target)."""


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
    parser.add_argument("--views-rate", type=float, default=500.0, help="commands/s of the load")
    parser.add_argument("--no-postgres", action="store_true", help="part (d) on SQLite only")
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
    )
    if (
        settings.rounds < 1
        or settings.clients < 1
        or settings.events < 2
        or not 1 <= settings.at_version <= events
    ):
        parser.error(
            "need --rounds >= 1, --clients >= 1, --events >= 2 and 1 <= --at-version <= --events"
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


# -- part (a): HTTP --------------------------------------------------------------------------------


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """``python -m bench.server`` in a subprocess, its output in a log file."""

    def __init__(self, workdir: Path, threads: int, exempt: str) -> None:
        self.port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / "server.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        command = [
            sys.executable,
            "-m",
            "bench.server",
            "--db",
            str(workdir / "questlog.db"),
            "--bare-db",
            str(workdir / "bare.db"),
            "--port",
            str(self.port),
            "--threads",
            str(threads),
            "--rate-limit-exempt",
            exempt,
        ]
        root = Path(__file__).resolve().parent.parent
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
        }
        self.process = subprocess.Popen(
            command, cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.process.pid

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until the server answers, or fail with its log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BenchError(
                    f"the server exited with {self.process.returncode}:\n{self.tail()}"
                )
            try:
                status, _ = request_json(self.port, "GET", READY_PATH, timeout=5)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise BenchError(f"the server did not answer within {timeout:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        """The end of the server's log."""
        self.log.flush()
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Terminate the server (it is ours) and close its log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@dataclass
class HttpResult:
    """Part (a): the runs, keyed by name, the warm-ups, and the consistency check of the shared
    campaign."""

    runs: dict[str, LoadResult]
    warmups: dict[str, LoadResult]
    versions_ok: bool
    version_note: str

    def failure(self) -> str | None:
        """Why the part failed (a load not delivered, a wrong version), or None."""
        reasons = [
            f"{name}: only {run.success:.1%} of the requests answered 201 "
            f"({statuses_text(run.statuses, len(run.errors))}; first errors: {run.errors[:2]})"
            for name, run in [*self.warmups.items(), *self.runs.items()]
            if not run.delivered
        ]
        if not self.versions_ok:
            reasons.append(self.version_note)
        return "; ".join(reasons) or None


def create_campaign(port: int, name: str, token: str) -> str:
    """A campaign created through the API; returns its id."""
    status, body = request_json(
        port,
        "POST",
        "/campaigns",
        {"game": "quest-calendar", "name": name, "house_rules": {}},
        token=token,
    )
    if status != 201:
        raise BenchError(f"POST /campaigns answered {status}: {body}")
    return str(body["id"])


def measure_http(settings: Settings, workdir: Path) -> HttpResult:
    """Start the server, load the bare route and the roll route, stop the server."""
    workdir.mkdir(parents=True, exist_ok=True)
    token_id, token = create_bench_token(StoreConfig(sqlite_path=workdir / "questlog.db"))
    console.print(
        f"  [dim]access control on, as deployed: every request carries this run's admin token "
        f"{token_id}; the rate limit does not count that token (QUESTLOG_RATE_LIMIT_EXEMPT), "
        "so that the load is delivered[/dim]"
    )
    server = ServerProcess(workdir, settings.threads, token_id)
    try:
        server.wait_ready()
        shared = create_campaign(server.port, "bench: shared campaign", token)
        plans: list[tuple[str, list[str]]] = [
            ("bare", [BARE_PATH] * settings.clients),
            ("roll", [f"/campaigns/{shared}/rolls"] * settings.clients),
        ]
        if settings.extras:
            own = [
                create_campaign(server.port, f"bench: client {i}", token)
                for i in range(settings.clients)
            ]
            plans.append(("roll_per_client", [f"/campaigns/{cid}/rolls" for cid in own]))
        parts: dict[str, list[LoadResult]] = {name: [] for name, _ in plans}
        rolled_on_shared = 0

        def load(name: str, paths: list[str], seconds: float) -> LoadResult:
            return run_load(
                name=name,
                port=server.port,
                paths=paths,
                body=ROLL_BODY,
                seconds=seconds,
                server_pid=server.pid,
                token=token,
            )

        console.print(
            f"  [dim]{settings.clients} clients; each route: {settings.warmup:g} s warm-up, then "
            f"{settings.seconds:g} s measured in {settings.rounds} alternating round(s)[/dim]"
        )
        warmups = {}
        for name, paths in plans:
            warm = warmups[name] = load(f"{name} warm-up", paths, settings.warmup)
            if name == "roll":
                rolled_on_shared += warm.statuses[201]
        for round_number in range(settings.rounds):
            for name, paths in plans:
                console.print(f"  [dim]round {round_number + 1}: {name}[/dim]")
                part = load(name, paths, settings.seconds / settings.rounds)
                parts[name].append(part)
                if name == "roll":
                    rolled_on_shared += part.statuses[201]
        runs = {name: merge(name, results) for name, results in parts.items()}
        status, body = request_json(server.port, "GET", f"/campaigns/{shared}", token=token)
        expected = 1 + rolled_on_shared
        got = body.get("version") if status == 200 and isinstance(body, dict) else None
        note = f"shared campaign at version {got}, expected {expected} (1 + every 201)"
        return HttpResult(runs, warmups, got == expected, note)
    finally:
        server.stop()


# -- report --------------------------------------------------------------------------------------


FAILED = "[bold red]FAILED[/bold red]"
"""In place of a verdict: the load was not delivered, so the figure means nothing."""


def verdict(ok: bool) -> str:
    """PASS or MISS, coloured."""
    return "[bold green]PASS[/bold green]" if ok else "[bold red]MISS[/bold red]"


def ms(seconds: float) -> str:
    """Seconds as milliseconds text."""
    return f"{seconds * 1e3:,.2f} ms"


def timing_text(timing: Timing) -> str:
    """Median, with the range of samples."""
    low, high = timing.spread
    return f"{ms(timing.median)}  [dim]({ms(low)} … {ms(high)}, n={len(timing.samples)})[/dim]"


def http_table(result: HttpResult) -> Table:
    """The routes side by side."""
    titles = {
        "bare": f"bare POST {BARE_PATH}",
        "roll": "POST /campaigns/{id}/rolls",
        "roll_per_client": "rolls, one campaign per client",
    }
    table = Table(title="(a) HTTP: waitress, 8 threads, SQLite (WAL)", title_justify="left")
    table.add_column("")
    for name in result.runs:
        table.add_column(titles.get(name, name), justify="right")
    rows: list[tuple[str, Any]] = [
        ("requests/s", lambda r: f"{r.throughput:,.0f}"),
        ("p50 latency", lambda r: f"{r.percentile_ms(50):.2f} ms"),
        ("p99 latency", lambda r: f"{r.percentile_ms(99):.2f} ms"),
        ("mean latency", lambda r: f"{r.mean_ms:.2f} ms"),
        ("max latency", lambda r: f"{r.percentile_ms(100):.2f} ms"),
        ("requests", lambda r: f"{r.requests + len(r.errors):,} in {r.seconds:.1f} s"),
        ("every status", lambda r: statuses_text(r.statuses, len(r.errors))),
        ("answered 201", lambda r: f"{r.success:.1%}" + ("" if r.delivered else " FAILED")),
        ("clients", lambda r: str(r.clients)),
        ("server CPU (cores)", lambda r: "?" if r.server_cpu is None else f"{r.server_cpu:.2f}"),
        (
            "server CPU per request",
            lambda r: "?" if r.server_cpu_ms is None else f"{r.server_cpu_ms:.2f} ms",
        ),
        ("client CPU (cores)", lambda r: "?" if r.client_cpu is None else f"{r.client_cpu:.2f}"),
        ("other processes' CPU", lambda r: "?" if r.other_cpu is None else f"{r.other_cpu:.2f}"),
    ]
    for label, cell in rows:
        table.add_row(label, *(cell(run) for run in result.runs.values()))
    return table


def targets_table(
    http: HttpResult | None, domain: DomainResult | None, settings: Settings
) -> Table:
    """Every figure with its target and PASS/MISS."""
    title = "Targets (issue 2, point 10)"
    if settings.quick:
        title += " - QUICK RUN: short and small, not comparable with the targets"
    table = Table(title=title, title_justify="left")
    for column, justify in [("measure", "left"), ("figure", "right"), ("target", "right")]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("", justify="center")
    if http is not None:
        bare, roll = http.runs["bare"], http.runs["roll"]
        delivered = bare.delivered and roll.delivered
        ratio = roll.throughput / bare.throughput if bare.throughput else 0.0
        table.add_row(
            "(a) roll / bare throughput",
            f"{ratio:.2f}  [dim]({roll.throughput:,.0f} / {bare.throughput:,.0f} req/s)[/dim]",
            f"≥ {RATIO_TARGET:.2f}",
            verdict(ratio >= RATIO_TARGET) if delivered else FAILED,
        )
        p99 = roll.percentile_ms(99)
        table.add_row(
            f"(a) roll p99 latency, {roll.clients} clients",
            f"{p99:.2f} ms",
            f"≤ {ROLL_P99_MS:g} ms",
            verdict(p99 <= ROLL_P99_MS) if roll.delivered else FAILED,
        )
    if domain is not None:
        n, v = domain.events, domain.at_version
        rows = [
            (f"(b) current state of {n:,} events, cold", domain.current_cold, CURRENT_MS / 1e3),
            (f"(b) current state of {n:,} events, warm", domain.current_warm, CURRENT_MS / 1e3),
            (f"(b) state at version {v:,}, cold", domain.at_version_cold, AT_VERSION_MS / 1e3),
            (f"(c) audit of {n:,} events", domain.audit, AUDIT_S),
        ]
        if domain.worst_case is not None:
            rows.insert(
                3,
                (
                    f"    extra: state at version {domain.worst_case_version:,}, cold "
                    f"({domain.worst_case_replayed} events after its snapshot)",
                    domain.worst_case,
                    CURRENT_MS / 1e3,
                ),
            )
        for label, timing, target in rows:
            table.add_row(
                label, timing_text(timing), f"≤ {ms(target)}", verdict(timing.median <= target)
            )
        if domain.audit_revealed is not None:
            table.add_row(
                f"    extra: audit of {n + 1:,} events, seed revealed (every roll re-derived)",
                timing_text(domain.audit_revealed),
                f"[dim]≤ {ms(AUDIT_S)}[/dim]",
                verdict(domain.audit_revealed.median <= AUDIT_S),
            )
    return table


def http_json(http: HttpResult) -> dict[str, Any]:
    """Part (a) as plain data."""
    data: dict[str, Any] = {
        name: {
            "requests_per_s": run.throughput,
            "p50_ms": run.percentile_ms(50),
            "p99_ms": run.percentile_ms(99),
            "mean_ms": run.mean_ms,
            "max_ms": run.percentile_ms(100),
            "requests": run.requests,
            "statuses": {str(status): n for status, n in sorted(run.statuses.items())},
            "transport_errors": len(run.errors),
            "success": run.success,
            "delivered": run.delivered,
            "seconds": run.seconds,
            "clients": run.clients,
            "server_cpu": run.server_cpu,
            "server_cpu_ms_per_request": run.server_cpu_ms,
            "client_cpu": run.client_cpu,
            "other_cpu": run.other_cpu,
        }
        for name, run in http.runs.items()
    }
    data["versions_ok"] = http.versions_ok
    data["auth"] = "on; the run's own admin token exempt from the rate limit"
    return data


def domain_json(domain: DomainResult) -> dict[str, Any]:
    """Parts (b) and (c) as plain data."""
    timings = {
        "current_cold": domain.current_cold,
        "current_warm": domain.current_warm,
        "at_version_cold": domain.at_version_cold,
        "audit": domain.audit,
    }
    if domain.worst_case is not None:
        timings["worst_case"] = domain.worst_case
    if domain.audit_revealed is not None:
        timings["audit_revealed"] = domain.audit_revealed
    return {
        "events": domain.events,
        "at_version": domain.at_version,
        "build_seconds": domain.build_seconds,
        **{name: {"median_s": t.median, "samples_s": t.samples} for name, t in timings.items()},
        "audit_report": domain.audit_report,
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

    views_events = args.views_events or (10_000 if settings.quick else 100_000)
    views_baseline = args.views_baseline or (2_000 if settings.quick else 10_000)

    def http_part() -> str | None:
        console.print("[bold](a)[/bold] HTTP load on a fresh SQLite store")
        http = measure_http(settings, workdir / "http")
        results.record("http", http_json(http))
        console.print(http_table(http))
        console.print(targets_table(http, None, settings))
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
        console.print(targets_table(None, domain, settings))
        rolls = domain.audit_report["rolls"]
        console.print(
            f"[dim]campaign built in {domain.build_seconds:.1f} s through Questlog.roll; "
            f"audit: chain_ok={domain.audit_report['chain_ok']}, rolls={rolls}[/dim]"
        )
        return None if domain.audit_report["ok"] else "the audit of the benchmark campaign failed"

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
        console.print("[bold](e)[/bold] the views' lag under load through the API")
        lag = measure_views_lag(
            workdir / "views",
            free_port(),
            rate=args.views_rate,
            seconds=args.views_seconds or (3.0 if settings.quick else 10.0),
            note=note,
        )
        results.record("views_lag", lag_json(lag))
        console.print(lag_table(lag, verdict))
        shortfall = lag.shortfall()
        return None if shortfall is None else f"{shortfall}: no verdict on a load not delivered"

    if args.views_only:
        args.skip_http = args.skip_domain = True
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
