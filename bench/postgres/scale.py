"""Part (f) of the benchmark: PostgreSQL with several API workers against one SQLite process.

Two real ``questlog serve`` processes, started as an operator starts them (views embedded, access
control on, this run's admin token exempt from the rate limit): one on a fresh SQLite file with
one process, one on a fresh schema of the PostgreSQL at ``QUESTLOG_BENCH_DATABASE_URL`` with
``--workers N``. Each gets its own campaigns (one per client); keep-alive clients roll a server
d20 (``POST /campaigns/{id}/rolls``), client i on campaign i, in alternating rounds (SQLite,
PostgreSQL, SQLite, ...) so that a slow patch of a shared machine hits both stores alike.

The targets: PostgreSQL's throughput at least SQLite's in the same run
(``RATIO_TARGET``), its p99 at most ``P99_TARGET_MS``, and no request answered anything but 201.
After the load, each campaign's version is read back: 1 + every roll acknowledged on it.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import psycopg
from psycopg import sql
from rich.table import Table

from bench.common.load import LoadResult, free_port, merge, request_json, run_load, statuses_text
from bench.common.server import create_bench_token
from bench.write.http_bench import ROLL_BODY, BenchError, LoggedServer, create_campaign
from domain.storage.store import StoreConfig

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
URL = os.environ.get("QUESTLOG_BENCH_DATABASE_URL", DEFAULT_URL)
RATIO_TARGET = 1.0
P99_TARGET_MS = 50.0


@dataclass(frozen=True)
class Target:
    """A store to serve from and how many API workers serve it."""

    name: str
    config: StoreConfig
    workers: int
    options: tuple[str, ...] = ()
    """More ``questlog serve`` options (``--no-views`` for a measurement without the views)."""
    program: str = "from webapi.cli.main import main; main()"
    """The Python that runs ``questlog`` (a benchmark may patch something first)."""
    environ: tuple[tuple[str, str], ...] = ()
    """More variables for the server's environment."""


class Served(LoggedServer):
    """``questlog serve`` in a subprocess (its output in a log file), stopped by its pid."""

    stop_timeout = 20.0
    poll_interval = 0.1

    def __init__(self, target: Target, workdir: Path, exempt: str) -> None:
        self.target = target
        self.label = f"the {target.name} server"
        self.port = free_port()
        self.open_log(workdir / f"serve-{target.name}.log")
        env = {
            **os.environ,
            "QUESTLOG_AUTH": "on",
            "QUESTLOG_RATE_LIMIT_EXEMPT": exempt,
            **store_environ(target.config),
            **dict(target.environ),
        }
        command = [sys.executable, "-c", target.program, "serve"]
        command += ["--port", str(self.port)]
        if target.workers > 1:
            command += ["--workers", str(target.workers)]
        command += list(target.options)
        root = Path(__file__).resolve().parents[2]
        self.process = subprocess.Popen(
            command, cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )


def store_environ(config: StoreConfig) -> dict[str, str]:
    """The variables that point ``questlog serve`` at a store (the other kind's blanked)."""
    if config.database_url:
        return {
            "QUESTLOG_DATABASE_URL": config.database_url,
            "QUESTLOG_PG_SCHEMA": config.postgres_schema or "",
        }
    return {"QUESTLOG_DATABASE_URL": "", "QUESTLOG_DB": str(config.sqlite_path)}


@contextmanager
def fresh_schema(url: str) -> Iterator[str]:
    """A new, empty PostgreSQL schema for one run, dropped afterwards."""
    schema = f"bench_scale_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield schema
    finally:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as admin:
            admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


@dataclass
class Side:
    """One store under load: its server, its token, its campaigns and its rounds."""

    target: Target
    server: Served
    token: str
    campaigns: list[str]
    rounds: list[LoadResult]
    warmup: LoadResult | None = None

    def load(self, seconds: float, label: str) -> LoadResult:
        """Client i rolls on campaign i for ``seconds``."""
        return run_load(
            name=f"{self.target.name} {label}",
            port=self.server.port,
            paths=[f"/campaigns/{cid}/rolls" for cid in self.campaigns],
            body=ROLL_BODY,
            seconds=seconds,
            server_pid=self.server.process.pid if self.target.workers == 1 else None,
            token=self.token,
        )

    def acknowledged(self) -> int:
        """Every roll answered 201, warm-up included."""
        return acknowledged(self.rounds, self.warmup)

    def stored_rolls(self) -> int:
        """Every roll stored in this side's campaigns (their versions, minus creation)."""
        return stored_after(self.server.port, self.token, self.campaigns, 1)


def acknowledged(rounds: list[LoadResult], warmup: LoadResult | None) -> int:
    """Every request answered 201 in some rounds and their warm-up."""
    every = [*rounds, *([warmup] if warmup else [])]
    return sum(part.statuses[201] for part in every)


def stored_after(port: int, token: str | None, campaigns: list[str], setup: int) -> int:
    """The events stored in some campaigns past the first ``setup`` of each (their versions)."""
    total = 0
    for cid in campaigns:
        status, body = request_json(port, "GET", f"/campaigns/{cid}", token=token)
        if status != 200:
            raise BenchError(f"GET /campaigns/{cid} answered {status}: {body}")
        total += int(body["version"]) - setup
    return total


@dataclass
class ScaleResult:
    """Part (f): the merged load of each side, and whether the logs hold every acknowledged roll."""

    sqlite: LoadResult
    postgres: LoadResult
    workers: int
    clients: int
    consistent: bool
    consistency_note: str

    @property
    def ratio(self) -> float:
        """PostgreSQL's throughput over SQLite's."""
        return self.postgres.throughput / self.sqlite.throughput if self.sqlite.throughput else 0.0

    def checks(self) -> list[tuple[str, str, bool]]:
        """Each target of the scale-out: (what, the figure, met)."""
        errors = self.postgres.failures(201)
        return [
            (
                f"PostgreSQL ({self.workers} workers) / SQLite throughput >= {RATIO_TARGET:g}",
                f"{self.ratio:.2f}",
                self.ratio >= RATIO_TARGET,
            ),
            (
                f"PostgreSQL p99 <= {P99_TARGET_MS:g} ms",
                f"{self.postgres.percentile_ms(99):.1f} ms",
                self.postgres.percentile_ms(99) <= P99_TARGET_MS,
            ),
            ("PostgreSQL: no error", str(errors), errors == 0),
        ]

    def failure(self) -> str | None:
        """Why the figures do not count (a load not delivered, a roll lost), or None."""
        reasons = [
            f"{run.name}: only {run.success:.1%} answered 201; first errors: {run.errors[:2]}"
            for run in (self.sqlite, self.postgres)
            if not run.delivered
        ]
        if not self.consistent:
            reasons.append(self.consistency_note)
        return "; ".join(reasons) or None


def measure_scale(
    workdir: Path,
    *,
    url: str,
    workers: int,
    clients: int,
    warmup: float,
    seconds: float,
    rounds: int,
    note: Callable[[str], None],
) -> ScaleResult:
    """Serve both stores, load them in alternating rounds, check the logs, stop both."""
    workdir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        schema = stack.enter_context(fresh_schema(url))
        targets = [
            Target("sqlite", StoreConfig(sqlite_path=workdir / "questlog.db"), 1),
            Target("postgres", StoreConfig(database_url=url, postgres_schema=schema), workers),
        ]
        sides = [start_side(target, workdir, clients, stack) for target in targets]
        note(
            f"{clients} clients over {clients} campaigns on each store; SQLite: one process, "
            f"PostgreSQL: {workers} worker(s) on schema {schema}; views embedded, access control "
            f"on (the run's admin token exempt from the rate limit); {warmup:g} s warm-up, then "
            f"{seconds:g} s per store in {rounds} alternating round(s)"
        )
        alternate(sides, warmup=warmup, seconds=seconds, rounds=rounds, note=note)
        counts = {side.target.name: (side.stored_rolls(), side.acknowledged()) for side in sides}
        consistent = all(stored == acked for stored, acked in counts.values())
        notes = [f"{name}: {s} rolls stored, {a} acknowledged" for name, (s, a) in counts.items()]
        return ScaleResult(
            sqlite=merge("sqlite", sides[0].rounds),
            postgres=merge("postgres", sides[1].rounds),
            workers=workers,
            clients=clients,
            consistent=consistent,
            consistency_note="; ".join(notes),
        )


class Alternating(Protocol):
    """What ``alternate`` loads: a server with its warm-up and its rounds (a ``Side`` here, a
    ``Contender`` of part (g))."""

    warmup: LoadResult | None
    rounds: list[LoadResult]

    def load(self, seconds: float, label: str) -> LoadResult: ...


def alternate(
    sides: Sequence[Alternating],
    *,
    warmup: float,
    seconds: float,
    rounds: int,
    note: Callable[[str], None],
) -> None:
    """A warm-up for each side, then ``seconds`` for each in ``rounds`` alternating rounds (so a
    slow patch of a shared machine hits every side alike); the loads go to each side's rounds."""
    for side in sides:
        side.warmup = side.load(warmup, "warm-up")
    for number in range(rounds):
        for side in sides:
            side.rounds.append(side.load(seconds / rounds, f"round {number + 1}"))
        note(f"round {number + 1} done, load average {os.getloadavg()[0]:.2f}")


def start_side(target: Target, workdir: Path, clients: int, stack: ExitStack) -> Side:
    """Create the run's token on the store, start its server, create one campaign per client."""
    token_id, token = create_bench_token(target.config)
    server = Served(target, workdir, token_id)
    stack.callback(server.stop)
    server.wait_ready(timeout=90.0)
    campaigns = [
        create_campaign(server.port, f"scale: {target.name} {i}", token) for i in range(clients)
    ]
    return Side(target, server, token, campaigns, [])


def scale_table(result: ScaleResult) -> Table:
    """SQLite's one process beside PostgreSQL's workers, with every status."""
    table = Table(
        title=f"(f) scale-out: POST /campaigns/{{id}}/rolls, {result.clients} clients over "
        f"{result.clients} campaigns",
        title_justify="left",
    )
    table.add_column("")
    table.add_column("SQLite, 1 process", justify="right")
    table.add_column(f"PostgreSQL, {result.workers} worker(s)", justify="right")
    rows: list[tuple[str, Callable[[LoadResult], str]]] = [
        ("requests/s", lambda r: f"{r.throughput:,.0f}"),
        ("p50 latency", lambda r: f"{r.percentile_ms(50):.2f} ms"),
        ("p99 latency", lambda r: f"{r.percentile_ms(99):.2f} ms"),
        ("max latency", lambda r: f"{r.percentile_ms(100):.2f} ms"),
        ("requests", lambda r: f"{r.requests + len(r.errors):,} in {r.seconds:.1f} s"),
        ("every status", lambda r: statuses_text(r.statuses, len(r.errors))),
        ("machine CPU (cores)", lambda r: "?" if r.machine_cpu is None else f"{r.machine_cpu:.2f}"),
    ]
    for label, cell in rows:
        table.add_row(label, cell(result.sqlite), cell(result.postgres))
    return table


def scale_json(result: ScaleResult) -> dict[str, Any]:
    """Part (f) as plain data."""

    def figures(run: LoadResult) -> dict[str, Any]:
        return {
            "requests_per_s": run.throughput,
            "p50_ms": run.percentile_ms(50),
            "p99_ms": run.percentile_ms(99),
            "max_ms": run.percentile_ms(100),
            "requests": run.requests,
            "statuses": {str(status): n for status, n in sorted(run.statuses.items())},
            "transport_errors": len(run.errors),
            "delivered": run.delivered,
            "seconds": run.seconds,
            "machine_cpu": run.machine_cpu,
        }

    return {
        "sqlite": figures(result.sqlite),
        "postgres": figures(result.postgres),
        "workers": result.workers,
        "clients": result.clients,
        "ratio": result.ratio,
        "checks": [
            {"target": what, "figure": figure, "met": met} for what, figure, met in result.checks()
        ],
        "consistent": result.consistent,
        "consistency": result.consistency_note,
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
    }
