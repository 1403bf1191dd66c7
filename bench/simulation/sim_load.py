"""The open-loop load of the simulation: worker processes playing tables at an offered rate.

Each worker process opens its own ``Questlog`` on the shared PostgreSQL schema (its own
connection pool, as an API process would), creates its tables and then, for each step the parent
sends, schedules commands as a Poisson process at its share of the offered rate. A command is
handed to a small thread pool (the threads an API process would serve with) and runs on a table
no other thread is playing. Its latency is measured from the moment it was *scheduled*, not sent,
so a queue that builds up when the store cannot keep up shows in the latency (open loop: the
offered rate does not slow down when the server does).

While a step runs, the parent samples ``pg_stat_activity`` (what the server's client backends
are waiting on) and the CPU the PostgreSQL processes used (from ``/proc``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg

from bench.simulation.sim_play import CalendarBoardTable, QuestCalendarTable, Table, Tally
from domain.storage.store import StoreConfig

CLK_TCK = os.sysconf("SC_CLK_TCK")
THREADS = 8
"""Threads per worker process: the waitress threads of one ``questlog serve``."""
QC_SHARE = 0.7
"""Quest Calendar tables among all tables (the solo game is the common one)."""


@dataclass
class StepResult:
    """One worker's figures for one offered rate."""

    offered: float
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    scheduled: int = 0
    late: int = 0
    cpu_s: float = 0.0
    tally: Tally = field(default_factory=Tally)


def make_tables(app: Any, count: int, rng: random.Random, tally: Tally) -> list[Table]:
    """Create ``count`` campaigns, about seven in ten Quest Calendar, the rest Calendar Board."""
    kinds = [
        QuestCalendarTable if rng.random() < QC_SHARE else CalendarBoardTable for _ in range(count)
    ]
    return [kind(app, rng, tally) for kind in kinds]


def worker_main(
    index: int, config: StoreConfig, tables: int, steps: Any, results: Any, seed: int
) -> None:
    """A worker process: create the tables, then run each step the parent sends until ``None``."""
    from domain.service.questlog import Questlog

    app = Questlog(config)
    rng = random.Random(seed)
    free: queue.SimpleQueue[Table] = queue.SimpleQueue()
    setup = Tally()
    for table in make_tables(app, tables, rng, setup):
        free.put(table)
    results.put(("ready", index, setup))
    try:
        while (step := steps.get()) is not None:
            rate, seconds, drain = step
            results.put(("step", index, run_step(free, rate, seconds, drain, rng)))
    finally:
        app.close()


def run_step(
    free: queue.SimpleQueue[Table], rate: float, seconds: float, drain: float, rng: random.Random
) -> StepResult:
    """Offer ``rate`` commands/s for ``seconds`` (Poisson arrivals); wait up to ``drain`` after.

    Commands still queued when the drain time is over are dropped and counted as ``late``: the
    store did not keep up with that rate.
    """
    result = StepResult(offered=rate, seconds=seconds)
    lock = threading.Lock()
    scheduled: queue.Queue[float | None] = queue.Queue()

    def serve() -> None:
        while (when := scheduled.get()) is not None:
            table = free.get()
            error = None
            try:
                table.play_one()
            except Exception as exc:  # counted: a store error is a figure of the run
                error = type(exc).__name__
            finally:
                free.put(table)
            elapsed = (time.perf_counter() - when) * 1e3
            with lock:
                result.latencies_ms.append(elapsed)
                if error:
                    result.errors[error] += 1

    before = current_tally(free)
    cpu_before = time.process_time()
    threads = [threading.Thread(target=serve, daemon=True) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    began = arrival = time.perf_counter()
    while (arrival := arrival + rng.expovariate(rate)) - began < seconds:
        time.sleep(max(0.0, arrival - time.perf_counter()))
        scheduled.put(arrival)
        result.scheduled += 1
    deadline = time.perf_counter() + drain
    while not scheduled.empty() and time.perf_counter() < deadline:
        time.sleep(0.05)
    while True:
        try:
            scheduled.get_nowait()
        except queue.Empty:
            break
        result.late += 1
    for _ in threads:
        scheduled.put(None)
    for thread in threads:
        thread.join()
    result.cpu_s = time.process_time() - cpu_before
    result.tally = tally_since(free, before)
    return result


def current_tally(free: queue.SimpleQueue[Table]) -> Tally:
    """A copy of the tables' shared tally now (they all count into one object)."""
    table = free.get()
    free.put(table)
    now = Tally()
    now.add(table.tally)
    return now


def tally_since(free: queue.SimpleQueue[Table], before: Tally) -> Tally:
    """What the tables did since ``before``."""
    return current_tally(free).minus(before)


# -- what the server does meanwhile --------------------------------------------------------------


def postgres_cpu_s() -> dict[int, float]:
    """CPU seconds used so far by each process named ``postgres`` alive now, by pid."""
    used: dict[int, float] = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
                text = handle.read()
            if text[text.index("(") + 1 : text.rindex(")")] != "postgres":
                continue
            fields = text[text.rindex(")") + 2 :].split()
            used[int(pid)] = (int(fields[11]) + int(fields[12])) / CLK_TCK
    return used


def postgres_cpu_since(before: dict[int, float]) -> float:
    """CPU seconds the PostgreSQL processes used since ``before`` (a backend that ended meanwhile
    is not counted: the load's connection pools keep theirs open for the whole step)."""
    return sum(now - before.get(pid, 0.0) for pid, now in postgres_cpu_s().items())


def machine_cpu_s() -> float:
    """CPU seconds used by the whole machine (all cores) since boot, from ``/proc/stat``."""
    with open("/proc/stat", encoding="ascii") as handle:
        fields = handle.readline().split()[1:]
    busy = sum(int(x) for i, x in enumerate(fields) if i not in (3, 4))  # minus idle, iowait
    return busy / CLK_TCK


class WaitSampler:
    """Samples what the store's client backends are doing, four times a second.

    Each sample counts the non-idle backends by wait event (``Lock:relation`` is a wait for a
    table lock: here, the events table's, which the recorder takes for every insert;
    ``Lock:object`` the server-wide lock PostgreSQL takes at the commit of a transaction that sent
    ``NOTIFY``, as every insert does; ``CPU:running`` a backend with no wait), so the averages say
    how many backends were in each state.
    """

    QUERY = (
        "SELECT state, coalesce(wait_event_type, 'CPU'), coalesce(wait_event, 'running') "
        "FROM pg_stat_activity WHERE datname = current_database() "
        "AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'"
    )

    HOLDER = (
        "SELECT coalesce(a.wait_event_type, 'CPU'), coalesce(a.wait_event, 'running'), a.state "
        "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.relation = to_regclass(%s) AND l.mode = 'ExclusiveLock' AND l.granted"
    )

    def __init__(self, url: str, events_table: str) -> None:
        self.url = url
        self.events_table = events_table
        self.holder: Counter[str] = Counter()
        """What the backend holding the events table's write lock was doing, by sample."""
        self.samples = 0
        self.waits: Counter[str] = Counter()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stop.wait(0.25):
                self.samples += 1
                for state, kind, event in conn.execute(self.QUERY).fetchall():
                    # "idle in transaction" waiting on ClientRead: a transaction, perhaps holding
                    # the events table's lock, waits for its (busy) Python process.
                    where = "in txn " if state.startswith("idle in transaction") else ""
                    self.waits[f"{where}{kind}:{event}"] += 1
                for kind, event, state in conn.execute(self.HOLDER, (self.events_table,)):
                    where = "in txn " if state.startswith("idle in transaction") else ""
                    self.holder[f"{where}{kind}:{event}"] += 1

    def __enter__(self) -> WaitSampler:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)

    def per_sample(self) -> dict[str, float]:
        """The average number of backends in each state or wait, busiest first."""
        n = max(self.samples, 1)
        return {k: round(v / n, 2) for k, v in self.waits.most_common()}

    def holder_share(self) -> dict[str, float]:
        """The share of samples in which the events lock's holder was in each state; ``free``
        when no one held it."""
        n = max(self.samples, 1)
        shares = {k: round(v / n, 2) for k, v in self.holder.most_common()}
        return {**shares, "free": round(1 - sum(self.holder.values()) / n, 2)}


def start_workers(
    config: StoreConfig, processes: int, tables: int, seed: int
) -> tuple[list[multiprocessing.Process], list[Any], Any, Tally]:
    """Start the worker processes and wait until each has created its tables."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    inboxes = [context.Queue() for _ in range(processes)]
    workers = [
        context.Process(
            target=worker_main,
            args=(i, config, tables, inboxes[i], results, seed + i),
            daemon=True,
        )
        for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    setup = Tally()
    for _ in workers:
        kind, _index, tally = results.get(timeout=600)
        if kind != "ready":
            raise RuntimeError(f"a worker answered {kind} before it was ready")
        setup.add(tally)
    return workers, inboxes, results, setup


def stop_workers(workers: list[multiprocessing.Process], inboxes: list[Any]) -> None:
    """Tell each worker to stop, then end any that does not, by its pid."""
    for inbox in inboxes:
        with contextlib.suppress(Exception):
            inbox.put(None)
    for worker in workers:
        worker.join(timeout=30)
        if worker.is_alive():
            worker.terminate()
            worker.join(timeout=10)
