"""Figures 1 to 3 and 7 of ``python -m bench.small.figures``: reading the log, catching up, the
lease fence and a roll's CPU in one process, on SQLite and PostgreSQL; and ``Figure``, how each
prints."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.views import views_bench
from bench.views.views_bench import BATCH, POSTGRES_URL, build_log, drop_views, postgres_config
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.events import decode_notification
from projections.store import ViewStore, open_view_store
from projections.view import View
from projections.views import ALL_VIEWS
from projections.views.debt_ledger import DebtLedger

Say = Callable[[str], None]
FENCE_CALLS = 2_000
FENCE_ACQUIRE_SECONDS = 20


@dataclass
class Figure:
    """One measured figure and the doc line it backs."""

    doc: str
    what: str
    samples: list[float]
    unit: str

    def text(self) -> str:
        """The median, with the fastest and the slowest sample."""
        low, high = min(self.samples), max(self.samples)
        return f"{_fmt(statistics.median(self.samples))} {self.unit} ({_fmt(low)} … {_fmt(high)})"


def _fmt(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.2f}"


def repeated(measure: Callable[[], float], repeat: int) -> list[float]:
    """One untimed warm-up, then ``repeat`` samples."""
    measure()
    return [measure() for _ in range(repeat)]


# -- 1 to 3: reading the log and catching up -------------------------------------------------------


def read_rate(app: Questlog, *, decode: bool) -> float:
    """Events/s of selecting (and decoding) every notification of the log, in pages of 2,000."""
    started = time.perf_counter()
    after, count = 0, 0
    while True:
        page = app.recorder.select_notifications(start=after, limit=BATCH, inclusive_of_start=False)
        if not page:
            break
        if decode:
            for notification in page:
                decode_notification(app.mapper, notification)
        count += len(page)
        after = page[-1].id
    return count / (time.perf_counter() - started)


def catch_up_rate(
    app: Questlog, open_store: Callable[[], ViewStore], views: Sequence[type[View]]
) -> float:
    """Events/s of ``views`` catching up on the whole log on a fresh store, batches of 2,000."""
    return views_bench.catch_up_rate(app, open_store, views, batch_size=BATCH)[1]


def runner_rate(config: StoreConfig, events: int) -> float:
    """Events/s of every view through ``PostgresRunner`` (the engine's batches, in the log's
    order), from its start until it has caught up with the head."""
    from projections.runners import PostgresRunner

    caught_up, stop = threading.Event(), threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            PostgresRunner(config, ALL_VIEWS, on_pass=caught_up.set).run(stop)
        except BaseException as error:
            failure.append(error)
            caught_up.set()

    thread = threading.Thread(target=run, daemon=True)
    started = time.perf_counter()
    thread.start()
    caught_up.wait(timeout=600)
    elapsed = time.perf_counter() - started
    stop.set()
    thread.join(timeout=30)
    if failure:
        raise failure[0]
    drop_views(config, ALL_VIEWS)
    return events / elapsed


def log_figures(workdir: Path, events: int, rolls: int, repeat: int, say: Say) -> list[Figure]:
    """Figures 1 and 2, and a roll's CPU, on SQLite."""
    config = StoreConfig(sqlite_path=workdir / "log" / "questlog.db")
    app = Questlog(config)
    try:
        say(f"SQLite: building {events:,} events through the domain")
        build_log(app, events)
        stores = iter(range(1_000_000))

        def fresh() -> ViewStore:
            return open_view_store(config, workdir / "log" / f"views-{next(stores)}.db")

        say("SQLite: reading the log")
        select = repeated(lambda: read_rate(app, decode=False), repeat)
        decoded = repeated(lambda: read_rate(app, decode=True), repeat)
        say("SQLite: the debt ledger catching up")
        ledger = repeated(lambda: catch_up_rate(app, fresh, [DebtLedger]), repeat)
    finally:
        app.close()
    say(f"SQLite: {rolls:,} rolls in one process")
    roll_cpu = roll_cpu_ms(StoreConfig(sqlite_path=workdir / "rolls.db"), rolls, repeat)
    perf = "docs/performance-results.md, Catching up (History, Reading them)"
    return [
        Figure(perf, f"SQLite: SELECT of {events:,} notifications alone", select, "events/s"),
        Figure(perf, "SQLite: SELECT and decoding each event's JSON and id", decoded, "events/s"),
        Figure(
            "docs/projections.md, Speed",
            f"SQLite: the debt ledger alone catching up, batches of {BATCH:,}",
            ledger,
            "events/s",
        ),
        Figure(ROLL_DOC, f"SQLite: Questlog.roll, {rolls:,} in one process, CPU", roll_cpu, "ms"),
    ]


def fence_ms(config: StoreConfig, calls: int) -> float:
    """ms per lease fence (one ``pg_locks`` query) on a view store transaction, every view's
    lease held, as the PostgreSQL runner fences each batch."""
    from projections.leases import PostgresLeases, lease_holders

    names = [view.name for view in ALL_VIEWS]
    leases = PostgresLeases(config)
    store = open_view_store(config)
    try:
        # ``acquire`` answers "none held" when the lease connection fails (a busy machine can
        # time out a connect): try again for a while, then say who holds what.
        deadline = time.monotonic() + FENCE_ACQUIRE_SECONDS
        while leases.acquire(names) != frozenset(names):
            if time.monotonic() > deadline:
                missing = sorted(set(names) - leases.held)
                holders = {k: v for k, v in lease_holders(store, missing).items() if v}
                raise RuntimeError(
                    f"the leases of {missing} not taken in {FENCE_ACQUIRE_SECONDS} s: "
                    + (f"held by {holders}" if holders else "no holder: the connection failed")
                )
            time.sleep(0.5)
        with store.write() as cursor:
            began = time.perf_counter()
            for _ in range(calls):
                leases.fence(cursor, names)
            return (time.perf_counter() - began) / calls * 1e3
    finally:
        store.close()
        leases.close()


def roll_cpu_ms(config: StoreConfig, rolls: int, repeat: int) -> list[float]:
    """CPU ms of the process per ``Questlog.dice.roll`` (a server d20), ``rolls`` in a loop on one
    campaign, after a warm-up loop."""
    app = Questlog(config)
    try:
        campaign_id = app.campaigns.create_campaign(
            game="quest-calendar", name="figures"
        ).campaign_id

        def sample() -> float:
            began = time.process_time()
            for _ in range(rolls):
                app.dice.roll(campaign_id, notation="d20", purpose="figures")
            return (time.process_time() - began) / rolls * 1e3

        return repeated(sample, repeat)
    finally:
        app.close()


ROLL_DOC = "docs/performance-results.md, What a roll costs on PostgreSQL (The lazy campaign lock)"


def postgres_figures(events: int, rolls: int, repeat: int, say: Say) -> list[Figure]:
    """Figure 3, in a fresh schema of the benchmark's PostgreSQL."""
    found = postgres_config(say)
    if found is None:
        raise RuntimeError(f"PostgreSQL not reachable at {POSTGRES_URL}; --no-postgres skips it")
    config, drop_schema = found
    app = Questlog(config)
    try:
        say(f"PostgreSQL: building {events:,} events through the domain")
        build_log(app, events)

        def batch() -> float:
            rate = catch_up_rate(app, lambda: open_view_store(config), ALL_VIEWS)
            drop_views(config, ALL_VIEWS)
            return rate

        say("PostgreSQL: every view catching up, batch code and PostgresRunner")
        batched = repeated(batch, repeat)
        runner = repeated(lambda: runner_rate(config, events), repeat)
        say("PostgreSQL: the lease fence")
        fence = repeated(lambda: fence_ms(config, FENCE_CALLS), repeat)
        say(f"PostgreSQL: {rolls:,} rolls in one process")
        roll_cpu = roll_cpu_ms(config, rolls, repeat)
    finally:
        app.close()
        drop_schema()
    doc = "docs/projections.md, Speed"
    return [
        Figure(
            doc, f"PostgreSQL: every view, batch code, batches of {BATCH:,}", batched, "events/s"
        ),
        Figure(doc, "PostgreSQL: every view through PostgresRunner", runner, "events/s"),
        Figure(
            "docs/projections.md, Leases: one process per view",
            f"PostgreSQL: the fence of a batch, one query (mean of {FENCE_CALLS:,} calls)",
            fence,
            "ms",
        ),
        Figure(
            ROLL_DOC, f"PostgreSQL: Questlog.roll, {rolls:,} in one process, CPU", roll_cpu, "ms"
        ),
    ]
