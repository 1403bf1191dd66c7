"""Parts (d) and (e): the views. Catch-up on SQLite and PostgreSQL, and the lag under load.

(d) **Catch-up** (no HTTP: the domain and the view store directly). A log of N events
   (100,000 by default) is built through the domain: campaigns created with
   ``Questlog.campaigns.create_campaign``, then server rolls with ``Campaign.roll`` (the hash
   chain, the seed and the proof of each, as ``Questlog.dice.roll`` does) saved by
   ``Questlog.save`` 500 events per transaction, which is what makes building it quick. Then,
   each on a fresh view store: the roll log catching up on the whole log in batches of 2,000
   events per transaction (exactly once: the rows and the position commit together), the naive
   loop beside it (one transaction per event, ``batch_size=1``, on the first events of the log
   only: at a few thousand events/s the whole log would take minutes), and every view together
   as an extra.
   The same on PostgreSQL (127.0.0.1:5432, database ``test``, in a fresh schema dropped after).
(e) **Lag** (``bench/views/views_lag.py``). ``questlog serve`` (waitress, 8 threads, the views
   embedded) on a fresh SQLite store, and an open-loop load of 500 ``POST /campaigns/{id}/rolls``
   per second (each request sent at its scheduled time, whatever the previous ones did). The lag of
   a command is the time from its 201 to the moment the slowest view has applied its event.
   Access control is on; the benchmark's own token is exempt from the rate limit.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from bench.common.load import MIN_SUCCESS
from bench.views.views_lag import MIN_RATE_SHARE, Lag, lag_verdict, measure_lag
from domain.model.dice.notation import parse
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.batches import Target, catch_up
from projections.store import ViewStore, open_view_store
from projections.view import View
from projections.views import ALL_VIEWS
from projections.views.roll_log import RollLog

NOTATIONS = ("d20", "2d20kh1+3", "3d6", "d100", "d8+1")
PER_SAVE = 500
BATCH = 2000
POSTGRES_URL = os.environ.get("QUESTLOG_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1/test")
CATCH_UP_TARGETS = {"sqlite": 50_000.0, "postgres": 30_000.0}
"""The targets, in events/s, of the roll log and of every view together catching up, per store."""
LAG_TARGET_S = 1.0
Progress = Callable[[str], None]


@dataclass
class CatchUp:
    """Catch-up figures on one database."""

    store: str
    events: int
    build_seconds: float
    view_rate: float
    baseline_events: int
    baseline_rate: float
    all_views_rate: float | None = None


# -- building a log -------------------------------------------------------------------------------


def build_log(app: Questlog, events: int, *, campaigns: int = 20) -> float:
    """Append ``events`` events through the domain (campaigns, then their server rolls)."""
    started = time.perf_counter()
    expressions = [parse(n) for n in NOTATIONS]
    per_campaign = max(1, events // campaigns)
    written = 0
    n = 0
    while written < events:
        outcome = app.campaigns.create_campaign(game="quest-calendar", name=f"bench {n}")
        written += 1
        campaign = app.campaign(outcome.campaign_id)
        dice = app.dice.server_dice(campaign)
        rolls = min(per_campaign - 1, events - written)
        for i in range(rolls):
            campaign.roll(expressions[i % len(expressions)], "bench", dice)
            if (i + 1) % PER_SAVE == 0:
                app.save(campaign)
        app.save(campaign)
        written += rolls
        n += 1
    return time.perf_counter() - started


# -- catching up ---------------------------------------------------------------------------------


def catch_up_rate(
    app: Questlog,
    open_store: Callable[[], ViewStore],
    views: Sequence[type[View]],
    *,
    batch_size: int,
    limit: int | None = None,
) -> tuple[int, float]:
    """Events applied, and per second, by a fresh store's views catching up on the log (at most
    ``limit`` events), ``batch_size`` events per transaction."""
    store = open_store()
    try:
        store.ensure(views)
        targets = [Target(view) for view in views]
        stop = threading.Event()
        applied = [0]

        def counted(_position: int, count: int) -> None:
            applied[0] += count
            if limit is not None and applied[0] >= limit:
                stop.set()

        started = time.perf_counter()
        catch_up(
            app.recorder,
            app.mapper,
            store,
            targets,
            batch_size=batch_size,
            stop=stop,
            on_batch=counted,
        )
        elapsed = time.perf_counter() - started
    finally:
        store.close()
    return applied[0], applied[0] / elapsed


def measure_catch_up(
    kind: str, config: StoreConfig, events: int, baseline: int, workdir: Path, note: Progress
) -> CatchUp:
    """Build the log on one store, then time the roll log, the baseline and every view."""
    app = Questlog(config)
    try:
        note(f"{kind}: building {events:,} events through the domain")
        built = build_log(app, events)
        stores = iter(range(1_000_000))

        def fresh() -> ViewStore:
            if kind == "sqlite":
                return open_view_store(config, workdir / f"views-{next(stores)}.db")
            return open_view_store(config)

        def drop(views: Sequence[type[View]]) -> None:
            if kind == "postgres":
                drop_views(config, views)

        note(f"{kind}: the roll log catching up in batches of {BATCH:,}")
        count, view_rate = catch_up_rate(app, fresh, [RollLog], batch_size=BATCH)
        drop([RollLog])
        note(f"{kind}: the naive loop, one transaction per event, on {baseline:,} events")
        base_count, base_rate = catch_up_rate(app, fresh, [RollLog], batch_size=1, limit=baseline)
        drop([RollLog])
        note(f"{kind}: every view catching up in batches of {BATCH:,}")
        _, all_rate = catch_up_rate(app, fresh, ALL_VIEWS, batch_size=BATCH)
        drop(ALL_VIEWS)
        return CatchUp(kind, count, built, view_rate, base_count, base_rate, all_rate)
    finally:
        app.close()


def drop_views(config: StoreConfig, views: Sequence[type[View]]) -> None:
    """Drop the views' tables and positions on PostgreSQL, for the next run to start afresh."""
    store = open_view_store(config)
    try:
        with store.write() as cursor:
            for view in views:
                store.drop(cursor, view)
    finally:
        store.close()


def postgres_config(note: Progress) -> tuple[StoreConfig, Callable[[], None]] | None:
    """A fresh schema in the benchmark's PostgreSQL database, and how to drop it."""
    try:
        import psycopg
        from psycopg import sql

        schema = f"bench_views_{secrets.token_hex(4)}"
        with psycopg.connect(POSTGRES_URL, autocommit=True, connect_timeout=3) as connection:
            connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    except Exception as error:
        note(f"PostgreSQL not reachable at {POSTGRES_URL}: {error}")
        return None

    def drop() -> None:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as connection:
            connection.execute(
                sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
            )

    return StoreConfig(database_url=POSTGRES_URL, postgres_schema=schema), drop


# -- the parts ----------------------------------------------------------------------------------


def measure_sqlite_catch_up(
    workdir: Path, *, events: int, baseline: int, note: Progress
) -> CatchUp:
    """Catch-up on a fresh SQLite store."""
    config = StoreConfig(sqlite_path=workdir / "catchup" / "questlog.db")
    return measure_catch_up("sqlite", config, events, baseline, workdir / "catchup", note)


def measure_postgres_catch_up(
    workdir: Path, *, events: int, baseline: int, note: Progress
) -> CatchUp:
    """Catch-up in a fresh schema of the benchmark's PostgreSQL (an error if not reachable)."""
    found = postgres_config(note)
    if found is None:
        raise RuntimeError(
            f"PostgreSQL not reachable at {POSTGRES_URL} (QUESTLOG_BENCH_DATABASE_URL); "
            "--no-postgres skips this part"
        )
    config, drop = found
    try:
        return measure_catch_up("postgres", config, events, baseline, workdir, note)
    finally:
        drop()


def measure_views_lag(
    workdir: Path, port: int, *, rate: float, seconds: float, note: Progress
) -> Lag:
    """The lag of the embedded views under ``rate`` rolls/s through ``questlog serve``."""
    return measure_lag(workdir / "lag", port, rate=rate, seconds=seconds, clients=8, note=note)


def catch_up_table(run: CatchUp, verdict: Callable[[bool], str]) -> Table:
    """One store's catch-up figures, with their targets for the roll log and for every view
    together."""
    table = Table(title=f"(d) Views catching up, {run.store}", title_justify="left")
    for column, justify in [("measure", "left"), ("figure", "right"), ("target", "right")]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("", justify="center")
    target = CATCH_UP_TARGETS[run.store]
    table.add_row(
        f"{run.store}: roll log catching up on {run.events:,} events, batches of {BATCH:,}",
        f"{run.view_rate:,.0f} events/s",
        f"≥ {target:,.0f}/s",
        verdict(run.view_rate >= target),
    )
    table.add_row(
        f"{run.store}:   baseline, one transaction per event ({run.baseline_events:,} events)",
        f"{run.baseline_rate:,.0f} events/s",
        "",  # no target: the old "~3,700/s" here was fixed text, not a measurement
        f"[dim]{run.view_rate / run.baseline_rate:,.1f} times faster[/dim]"
        if run.baseline_rate
        else "",
    )
    if run.all_views_rate is not None:
        table.add_row(
            f"{run.store}: all {len(ALL_VIEWS)} views together catching up, batches of {BATCH:,}",
            f"{run.all_views_rate:,.0f} events/s",
            f"≥ {target:,.0f}/s",
            verdict(run.all_views_rate >= target),
        )
    table.add_row(
        f"{run.store}:   building the log through the domain",
        f"{run.build_seconds:.1f} s ({run.events / run.build_seconds:,.0f} events/s)",
        "",
        "",
    )
    return table


def lag_table(lag: Lag, verdict: Callable[[bool], str]) -> Table:
    """The lag figures, with their target; FAILED and no verdict when the load was not delivered."""
    table = Table(title="(e) Views: lag under load", title_justify="left")
    for column, justify in [("measure", "left"), ("figure", "right"), ("target", "right")]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("", justify="center")
    passed = lag_verdict(lag, LAG_TARGET_S)
    table.add_row(
        f"lag of every view under {lag.target_rate:g} rolls/s through the API, p99",
        f"{lag.lag(99) * 1e3:,.0f} ms",
        f"< {LAG_TARGET_S:g} s",
        "[bold red]FAILED[/bold red]" if passed is None else verdict(passed),
    )
    table.add_row(
        "  lag p50 / max; most events behind",
        f"{lag.lag(50) * 1e3:,.0f} ms / {lag.lag(100) * 1e3:,.0f} ms; {lag.max_events_behind}",
        "",
        "",
    )
    table.add_row(
        "  commands sent at; latency p50 / p99",
        f"{lag.achieved_rate:,.0f}/s; {lag.latency_p50_ms:.1f} / {lag.latency_p99_ms:.1f} ms",
        f"≥ {MIN_RATE_SHARE * lag.target_rate:,.0f}/s",
        "" if lag.on_schedule else "[bold red]FAILED[/bold red]",
    )
    table.add_row(
        "  commands answered 201 of sent; every status",
        f"{lag.ok:,}/{lag.sent:,}; {lag.statuses_text()}",
        f"≥ {MIN_SUCCESS:.0%}",
        "" if lag.delivered else "[bold red]FAILED[/bold red]",
    )
    return table


def catch_up_json(run: CatchUp) -> dict[str, Any]:
    """One store's catch-up as plain data, with its target and whether each rate met it."""
    target = CATCH_UP_TARGETS[run.store]
    return {
        **vars(run),
        "target": target,
        "view_rate_met": run.view_rate >= target,
        "all_views_rate_met": None if run.all_views_rate is None else run.all_views_rate >= target,
    }


def lag_json(lag: Lag) -> dict[str, Any]:
    """The lag as plain data."""
    return {
        **{k: v for k, v in vars(lag).items() if k not in ("lags_s", "statuses", "errors")},
        "statuses": {str(status): count for status, count in sorted(lag.statuses.items())},
        "transport_errors": len(lag.errors),
        "success": lag.success,
        "delivered": lag.delivered,
        "on_schedule": lag.on_schedule,
        "verdict": lag_verdict(lag, LAG_TARGET_S),
        "lag_p50_s": lag.lag(50),
        "lag_p99_s": lag.lag(99),
        "lag_max_s": lag.lag(100),
        "measured": len(lag.lags_s),
    }
