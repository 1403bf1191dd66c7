"""Where the CPU of a roll goes: part (f)'s load on one store, with each process's CPU time.

One real ``questlog serve`` (SQLite with one process, or PostgreSQL with ``--workers N``) is
loaded as part (f) loads it (keep-alive clients rolling a server d20, client i on campaign i,
access control on, views embedded). Around the load, the CPU time (user + system, from
``/proc/<pid>/stat``) of every serving process and of every PostgreSQL backend of the run's
schema (named by ``application_name``) is read, and divided by the rolls answered 201::

    python -m bench.postgres.cpu_split    # PostgreSQL, 2 workers, then SQLite: ~40 s
    python -m bench.postgres.cpu_split --store postgres --workers 2 --seconds 10 --py-spy prof.txt

``--waits`` also samples ``pg_stat_activity`` every 10 ms and prints, for the run's backends,
how many were on average running (``active: CPU``) or waiting, and for what (a lock, the WAL,
the client). ``--py-spy FILE`` also samples the busiest worker with py-spy (installed apart, not a
dependency) and writes its top functions (own time) to FILE. Linux only; the PostgreSQL must
run on this machine for its backends' CPU to be read.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from rich.console import Console
from rich.table import Table

from bench.common.load import LoadResult
from bench.postgres.scale import URL, Side, Target, fresh_schema, start_side
from domain.storage.recorders import APPLICATION_NAME
from domain.storage.store import StoreConfig

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process so far (0 if it has gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def every_process() -> dict[int, tuple[str, float]]:
    """Each process's name and CPU seconds so far."""
    found: dict[int, tuple[str, float]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except OSError:
                continue
            name = text[text.index("(") + 1 : text.rindex(")")]
            fields = text.rsplit(")", 1)[1].split()
            found[int(entry.name)] = (name, (int(fields[11]) + int(fields[12])) / TICKS)
    return found


def machine_seconds() -> float:
    """CPU seconds the whole machine has been busy (every core, /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / TICKS


def children(pid: int) -> list[int]:
    """The process and its descendants (gunicorn's master and workers)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [
                int(child) for child in (task / "children").read_text().split() if child.strip()
            ]
        except FileNotFoundError:
            continue
    return [found[0], *(p for child in found[1:] for p in children(child))]


def backends(url: str, schema: str | None) -> list[int]:
    """The PostgreSQL backends of the run's schema (none on SQLite)."""
    if schema is None:
        return []
    label = f"{APPLICATION_NAME}/{schema}"[:63]
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name LIKE %s",
            (f"%{schema}%",),
        ).fetchall()
        rows += connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = %s", (label,)
        ).fetchall()
    return sorted({int(row[0]) for row in rows})


class WaitSampler:
    """What the run's PostgreSQL backends are doing, sampled every ``interval`` seconds from
    ``pg_stat_activity``: a count per state and wait event (``active: CPU`` when not waiting)."""

    def __init__(self, url: str, schema: str, interval: float = 0.01) -> None:
        self.url, self.schema, self.interval = url, schema, interval
        self.counts: Counter[str] = Counter()
        self.samples = 0
        self.error = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> WaitSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        try:
            self._sample_until_stopped()
        except psycopg.Error as error:
            self.error = f"sampling stopped: {error}"

    def _sample_until_stopped(self) -> None:
        query = (
            "SELECT state, wait_event_type, wait_event FROM pg_stat_activity "
            "WHERE application_name LIKE %s AND pid <> pg_backend_pid()"
        )
        with psycopg.connect(self.url, autocommit=True) as connection:
            while not self._stop.wait(self.interval):
                self.samples += 1
                for state, kind, event in connection.execute(query, (f"%{self.schema}%",)):
                    if state == "idle":
                        continue
                    self.counts[f"{state}: {f'{kind}:{event}' if kind else 'CPU'}"] += 1

    def lines(self) -> list[str]:
        """Average backends in each state over the samples, most first."""
        found = [
            f"{count / max(self.samples, 1):6.2f}  {what}"
            for what, count in self.counts.most_common(12)
        ]
        return [*found, self.error] if self.error else found or ["(no backend was ever busy)"]


@dataclass
class Split:
    """CPU per acknowledged roll of each process group, in ms."""

    store: str
    workers: int
    rolls: int
    seconds: float
    per_process: dict[str, float]
    machine: float = 0.0
    waits: list[str] = field(default_factory=list)


@contextmanager
def sampled(pids: list[int]) -> Iterator[dict[int, float]]:
    """CPU seconds each pid used inside the block."""
    before = {pid: cpu_seconds(pid) for pid in pids}
    used: dict[int, float] = {}
    yield used
    used.update({pid: cpu_seconds(pid) - before[pid] for pid in pids})


def py_spy(pid: int, seconds: float, out: Path) -> threading.Thread:
    """Sample ``pid`` with py-spy for ``seconds`` in the background (raw collapsed stacks)."""
    exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))

    def record() -> None:
        subprocess.run(
            [
                exe,
                "record",
                "--pid",
                str(pid),
                "--duration",
                str(int(seconds)),
                "--format",
                "raw",
                "--output",
                str(out),
                "--nonblocking",
                "--threads",
            ],
            check=False,
            capture_output=True,
        )

    thread = threading.Thread(target=record, daemon=True)
    thread.start()
    return thread


def top_functions(raw: Path, limit: int = 40) -> str:
    """Own and total sample counts per function from py-spy's collapsed stacks."""
    own: dict[str, int] = {}
    total: dict[str, int] = {}
    samples = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        n = int(count)
        samples += n
        own[frames[-1]] = own.get(frames[-1], 0) + n
        for frame in set(frames):
            total[frame] = total.get(frame, 0) + n
    lines = [f"{samples} samples; own time:"]
    lines += [
        f"{n / samples:6.1%}  {f}" for f, n in sorted(own.items(), key=lambda x: -x[1])[:limit]
    ]
    lines += ["", "total time (function and what it calls):"]
    lines += [
        f"{n / samples:6.1%}  {f}" for f, n in sorted(total.items(), key=lambda x: -x[1])[:limit]
    ]
    return "\n".join(lines)


def measure(
    store: str,
    workers: int,
    clients: int,
    seconds: float,
    url: str,
    spy: Path | None,
    no_views: bool = False,
    waits: bool = False,
) -> Split:
    """Load one store for ``seconds`` after a 3 s warm-up; CPU per roll of each process group."""
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="cpu-split-")))
        schema: str | None = None
        if store == "postgres":
            schema = stack.enter_context(fresh_schema(url))
            config = StoreConfig(database_url=url, postgres_schema=schema)
        else:
            config = StoreConfig(sqlite_path=workdir / "questlog.db")
        target = Target(store, config, workers, ("--no-views",) if no_views else ())
        side: Side = start_side(target, workdir, clients, stack)
        side.load(3.0, "warm-up")
        servers = children(side.server.process.pid)
        database = backends(url, schema)
        spying = None
        if spy is not None:
            with sampled(servers) as busy:
                side.load(1.0, "pick")
            busiest = max(busy, key=lambda pid: busy[pid])
            raw = workdir / "spy.txt"
            spying = py_spy(busiest, seconds, raw)
        everything, machine = every_process(), machine_seconds()
        sampler = WaitSampler(url, schema) if waits and schema is not None else None
        with (
            sampled(servers) as server_cpu,
            sampled(database) as database_cpu,
            sampler if sampler is not None else nullcontext(),
        ):
            run: LoadResult = side.load(seconds, "measured")
        machine = machine_seconds() - machine
        after = every_process()
        if spying is not None and spy is not None:
            spying.join(timeout=seconds + 30)
            spy.write_text(top_functions(raw) if raw.exists() else "py-spy wrote nothing\n")
        rolls = run.statuses[201]
        per: dict[str, float] = {}
        for n, pid in enumerate(servers):
            name = "server" if workers == 1 else ("master" if n == 0 else f"worker {n}")
            per[name] = server_cpu[pid] * 1000 / max(rolls, 1)
        if database:
            per["PostgreSQL backends"] = sum(database_cpu.values()) * 1000 / max(rolls, 1)
        own = os.getpid()
        if own in after and own in everything:
            per["the clients (this process)"] = (
                (after[own][1] - everything[own][1]) * 1000 / max(rolls, 1)
            )
        accounted = set(servers) | set(database) | {own}
        others: dict[str, float] = {}
        for pid, (name, used) in after.items():
            if pid not in accounted:
                delta = used - everything.get(pid, (name, 0.0))[1]
                others[name] = others.get(name, 0.0) + delta
        top = sorted(others.items(), key=lambda item: -item[1])[:4]
        rest = " ".join(f"{name} {cpu * 1000 / max(rolls, 1):.2f}" for name, cpu in top)
        per[f"other processes ({rest})"] = sum(others.values()) * 1000 / max(rolls, 1)
        per["machine, every core (/proc/stat)"] = 0.0
        split = Split(store, workers, rolls, seconds, per, machine * 1000 / max(rolls, 1))
        if sampler is not None:
            split.waits = sampler.lines()
        return split


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.postgres.cpu_split", description=__doc__)
    parser.add_argument("--store", choices=["postgres", "sqlite", "both"], default="both")
    parser.add_argument("--workers", type=int, default=2, help="PostgreSQL's API workers")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--no-views", action="store_true", help="serve without the views (a measurement only)"
    )
    parser.add_argument(
        "--waits",
        action="store_true",
        help="sample what PostgreSQL's backends wait for (pg_stat_activity, every 10 ms)",
    )
    parser.add_argument("--py-spy", type=Path, default=None, dest="spy", metavar="FILE")
    args = parser.parse_args(argv)
    console = Console()
    stores = ["postgres", "sqlite"] if args.store == "both" else [args.store]
    console.print(f"load average {os.getloadavg()[0]:.2f}")
    for store in stores:
        workers = args.workers if store == "postgres" else 1
        split = measure(
            store,
            workers,
            args.clients,
            args.seconds,
            URL,
            args.spy,
            no_views=args.no_views,
            waits=args.waits,
        )
        table = Table(
            title=f"{store}, {workers} process(es): {split.rolls} rolls in {split.seconds:g} s "
            f"({split.rolls / split.seconds:.0f}/s), CPU ms per roll"
        )
        table.add_column("process")
        table.add_column("ms per roll", justify="right")
        for name, ms in split.per_process.items():
            table.add_row(name, f"{split.machine if name.startswith('machine') else ms:.2f}")
        console.print(table)
        if split.waits:
            console.print("PostgreSQL backends, on average, by what they were doing:")
            for line in split.waits:
                console.print(f"  {line}", markup=False)
    console.print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
