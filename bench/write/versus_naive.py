"""Part (g) of the benchmark: ``questlog serve`` against the naive app, in one run.

Four servers, each a real subprocess on a fresh store, loaded in alternating rounds (naive, roll,
command, PostgreSQL, naive, ...) so that a slow patch of a shared machine hits them alike, by
keep-alive clients in threads of this process (``bench/common/load.py``), client i on its own
campaign:

- **naive**: ``bench/write/naive_app.py``, the Flask + eventsourcing app a user would otherwise
  write (one new aggregate and one event per request, waitress with 8 threads, SQLite);
- **roll**: ``questlog serve`` as the README starts it (access control on, views embedded) on
  SQLite, ``POST /campaigns/{id}/rolls`` with a server d20;
- **command**: the same server kind, ``POST /campaigns/{id}/commands``: Quest Calendar game
  commands on ordinary pages, as a table plays them (``OrdinaryPages``: 4 ``trait_check`` on
  server dice, then ``end_page`` and ``start_page`` on the next day), on a campaign with a hero;
- **postgres**: ``questlog serve`` on a fresh PostgreSQL schema, one process, the roll route.

The targets: roll ≥ 1.0x naive with p99 no worse, the game commands ≥ 0.4x naive, PostgreSQL ≥
0.8x SQLite's roll. Each side's server CPU per 1,000 requests is read from ``/proc`` (the load
generator runs in this process, not in the server's). After the load each campaign's version is
read back: every 201 must be stored.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console
from rich.table import Table

from bench.common.load import LoadResult, free_port, merge, request_json, run_load, statuses_text
from bench.common.server import create_bench_token
from bench.postgres.scale import (
    URL,
    Served,
    Target,
    acknowledged,
    alternate,
    fresh_schema,
    stored_after,
)
from bench.write.http_bench import ROLL_BODY, BenchError, LoggedServer, create_campaign
from domain.storage.store import StoreConfig

ROLL_TARGET = 1.0
COMMAND_TARGET = 0.4
CHECKS_PER_PAGE = 4
POSTGRES_TARGET = 0.8
TRAIT_CHECK = {"type": "trait_check", "trait": "INT", "purpose": "bench", "target": 12}
SETUP = ("select_hero", "start_page")


class NaiveServer(LoggedServer):
    """``python -m bench.write.naive_app`` in a subprocess."""

    label = "the naive app"
    ready_path = "/ready"

    def __init__(self, workdir: Path, threads: int) -> None:
        self.port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        self.open_log(workdir / "naive.log")
        root = Path(__file__).resolve().parents[2]
        command = [sys.executable, "-m", "bench.write.naive_app", "--db", str(workdir / "naive.db")]
        command += ["--port", str(self.port), "--threads", str(threads)]
        env = {**os.environ, "PYTHONPATH": str(root)}
        self.process = subprocess.Popen(
            command, cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )


class OrdinaryPages:
    """Game commands as a table plays them: ``CHECKS_PER_PAGE`` trait checks on a page, then
    ``end_page`` and ``start_page`` on the next day, each campaign going on across rounds."""

    def __init__(self, first_page: str) -> None:
        self.first_page = dt.date.fromisoformat(first_page)
        self.sent: dict[str, int] = {}
        self.check = json.dumps(TRAIT_CHECK).encode()
        self.end = json.dumps({"type": "end_page"}).encode()

    def next_body(self, path: str) -> bytes:
        count = self.sent.get(path, 0)
        self.sent[path] = count + 1
        page, step = divmod(count, CHECKS_PER_PAGE + 2)
        if step < CHECKS_PER_PAGE:
            return self.check
        if step == CHECKS_PER_PAGE:
            return self.end
        date = self.first_page + dt.timedelta(days=page + 1)
        return json.dumps({"type": "start_page", "date": date.isoformat()}).encode()


@dataclass
class Contender:
    """One server under load: its paths, its body, its token and its rounds."""

    name: str
    server: LoggedServer
    paths: list[str]
    body: dict[str, Any] | OrdinaryPages
    token: str | None = None
    campaigns: list[str] = field(default_factory=list)
    rounds: list[LoadResult] = field(default_factory=list)
    warmup: LoadResult | None = None

    def load(self, seconds: float, label: str) -> LoadResult:
        return run_load(
            name=f"{self.name} {label}",
            port=self.server.port,
            paths=self.paths,
            body=self.body,
            seconds=seconds,
            server_pid=self.server.pid,
            token=self.token,
        )

    def acknowledged(self) -> int:
        return acknowledged(self.rounds, self.warmup)

    def stored(self, per_campaign: int) -> int | None:
        """Events stored by the load on this side's campaigns (None: no campaigns to read)."""
        if not self.campaigns:
            return None
        return stored_after(self.server.port, self.token, self.campaigns, per_campaign)


@dataclass
class VersusResult:
    """Part (g): each side's merged rounds, and whether every 201 was stored."""

    runs: dict[str, LoadResult]
    consistent: bool
    consistency_note: str

    def ratio(self, name: str, against: str) -> float:
        base = self.runs[against].throughput
        return self.runs[name].throughput / base if base else 0.0

    def checks(self) -> list[tuple[str, str, bool]]:
        """(what, figure, met) for each target."""
        naive, roll = self.runs["naive"], self.runs["roll"]
        checks = [
            (
                f"roll route ≥ {ROLL_TARGET:.1f}x the naive app",
                f"{self.ratio('roll', 'naive'):.2f}x",
                self.ratio("roll", "naive") >= ROLL_TARGET,
            ),
            (
                "roll route p99 no worse than the naive app's",
                f"{roll.percentile_ms(99):.1f} ms vs {naive.percentile_ms(99):.1f} ms",
                roll.percentile_ms(99) <= naive.percentile_ms(99),
            ),
        ]
        if "command" in self.runs:
            checks.append(
                (
                    f"game commands on ordinary pages ({CHECKS_PER_PAGE} trait_checks, "
                    f"end_page, start_page; server dice) ≥ {COMMAND_TARGET:.1f}x the naive app",
                    f"{self.ratio('command', 'naive'):.2f}x",
                    self.ratio("command", "naive") >= COMMAND_TARGET,
                )
            )
        if "postgres" in self.runs:
            checks.append(
                (
                    f"PostgreSQL (one process) ≥ {POSTGRES_TARGET:.1f}x SQLite, roll route",
                    f"{self.ratio('postgres', 'roll'):.2f}x",
                    self.ratio("postgres", "roll") >= POSTGRES_TARGET,
                )
            )
        return checks

    def failure(self) -> str | None:
        reasons = [
            f"{run.name}: only {run.success:.1%} answered 201 "
            f"({statuses_text(run.statuses, len(run.errors))}; first errors: {run.errors[:2]})"
            for run in self.runs.values()
            if not run.delivered
        ]
        if not self.consistent:
            reasons.append(self.consistency_note)
        return "; ".join(reasons) or None


def _questlog(
    name: str, config: StoreConfig, workdir: Path, clients: int, stack: ExitStack, command: bool
) -> Contender:
    token_id, token = create_bench_token(config)
    server = Served(Target(name, config, 1), workdir, token_id)
    stack.callback(server.stop)
    server.wait_ready(timeout=90.0)
    campaigns = [create_campaign(server.port, f"{name} {i}", token) for i in range(clients)]
    if command:
        from bench.write.command_cost import example

        for campaign in campaigns:
            for setup in SETUP:
                path = f"/campaigns/{campaign}/commands"
                status, body = request_json(server.port, "POST", path, example(setup), token=token)
                if status != 201:
                    raise BenchError(f"{setup} answered {status}: {body}")
        paths = [f"/campaigns/{c}/commands" for c in campaigns]
        pages = OrdinaryPages(example("start_page")["date"])
        return Contender(name, server, paths, pages, token, campaigns)
    paths = [f"/campaigns/{c}/rolls" for c in campaigns]
    return Contender(name, server, paths, ROLL_BODY, token, campaigns)


def measure_versus(
    workdir: Path,
    *,
    url: str = URL,
    clients: int,
    threads: int,
    warmup: float,
    seconds: float,
    rounds: int,
    postgres: bool = True,
    command: bool = True,
    note: Callable[[str], None],
) -> VersusResult:
    """Start the servers, load them in alternating rounds, check the stores, stop them."""
    workdir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        naive = NaiveServer(workdir / "naive", threads)
        stack.callback(naive.stop)
        naive.wait_ready()
        sides = [Contender("naive", naive, ["/rolls"] * clients, ROLL_BODY)]
        sqlite = StoreConfig(sqlite_path=workdir / "roll.db")
        sides.append(_questlog("roll", sqlite, workdir, clients, stack, command=False))
        if command:
            game = StoreConfig(sqlite_path=workdir / "command.db")
            sides.append(_questlog("command", game, workdir, clients, stack, command=True))
        if postgres:
            schema = stack.enter_context(fresh_schema(url))
            pg = StoreConfig(database_url=url, postgres_schema=schema)
            sides.append(_questlog("postgres", pg, workdir, clients, stack, command=False))
        note(
            f"{clients} clients, each on its own campaign; {', '.join(s.name for s in sides)}; "
            f"{warmup:g} s warm-up each, then {seconds:g} s each in {rounds} alternating round(s)"
        )
        alternate(sides, warmup=warmup, seconds=seconds, rounds=rounds, note=note)
        notes, consistent = [], True
        for side in sides:
            stored = side.stored(per_campaign=1 + (len(SETUP) if side.name == "command" else 0))
            if stored is None:
                continue
            consistent &= stored == side.acknowledged()
            notes.append(f"{side.name}: {stored} stored, {side.acknowledged()} acknowledged")
        runs = {side.name: merge(side.name, side.rounds) for side in sides}
        return VersusResult(runs, consistent, "; ".join(notes))


class Checked(Protocol):
    """A part's result with targets: why it failed (or None), its checks, its consistency."""

    consistency_note: str

    def failure(self) -> str | None: ...

    def checks(self) -> list[tuple[str, str, bool]]: ...


def print_checks(console: Console, result: Checked) -> str | None:
    """Print each check's verdict (none when the load failed) and the consistency note; return
    why the part failed, or None."""
    failure = result.failure()
    if failure is None:
        for what, figure, met in result.checks():
            verdict = "[bold green]PASS[/bold green]" if met else "[bold red]MISS[/bold red]"
            console.print(f"  {verdict}  {what}: {figure}")
    console.print(f"  [dim]{result.consistency_note}[/dim]")
    return failure


def versus_table(result: VersusResult) -> Table:
    """Every side's rate, latency and server CPU."""
    table = Table(
        title="(g) against the naive app: 201s per second, one campaign per client",
        title_justify="left",
    )
    table.add_column("")
    for name in result.runs:
        table.add_column(name, justify="right")
    rows: list[tuple[str, Callable[[LoadResult], str]]] = [
        ("requests/s", lambda r: f"{r.throughput:,.0f}"),
        ("p50 latency", lambda r: f"{r.percentile_ms(50):.2f} ms"),
        ("p99 latency", lambda r: f"{r.percentile_ms(99):.2f} ms"),
        (
            "server CPU s per 1,000",
            lambda r: "?" if r.server_cpu_ms is None else f"{r.server_cpu_ms:.2f}",
        ),
        ("server cores", lambda r: "?" if r.server_cpu is None else f"{r.server_cpu:.2f}"),
        ("every status", lambda r: statuses_text(r.statuses, len(r.errors))),
    ]
    for label, cell in rows:
        table.add_row(label, *(cell(run) for run in result.runs.values()))
    return table


def versus_json(result: VersusResult) -> dict[str, Any]:
    """Part (g) as plain data."""
    return {
        "runs": {
            name: {
                "requests_per_s": run.throughput,
                "p50_ms": run.percentile_ms(50),
                "p99_ms": run.percentile_ms(99),
                "server_cpu_s_per_1000": run.server_cpu_ms,
                "server_cores": run.server_cpu,
                "requests": run.requests,
                "statuses": {str(s): n for s, n in sorted(run.statuses.items())},
                "transport_errors": len(run.errors),
            }
            for name, run in result.runs.items()
        },
        "checks": [
            {"target": what, "figure": figure, "met": met} for what, figure, met in result.checks()
        ],
        "consistent": result.consistent,
        "consistency": result.consistency_note,
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.write.versus_naive``: part (g) alone."""
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds per side")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-command", action="store_true", help="skip the game command")
    args = parser.parse_args(argv)
    console = Console(highlight=False)
    with tempfile.TemporaryDirectory(prefix="questlog-versus-") as folder:
        result = measure_versus(
            Path(folder),
            clients=args.clients,
            threads=args.threads,
            warmup=args.warmup,
            seconds=args.seconds,
            rounds=args.rounds,
            postgres=not args.no_postgres,
            command=not args.no_command,
            note=lambda text: console.print(f"  [dim]{text}[/dim]"),
        )
    console.print(versus_table(result))
    failure = print_checks(console, result)
    if failure:
        console.print(f"[bold red]FAILED:[/bold red] {failure}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
