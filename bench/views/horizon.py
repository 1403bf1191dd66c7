"""Rolls reaching the views while another client's transaction stays open: ``python -m
bench.views.horizon`` (PostgreSQL at ``QUESTLOG_BENCH_DATABASE_URL``, a fresh schema dropped after).

A Questlog store and its views runner (``PostgresRunner``, as ``questlog projections run`` runs
it) play 20 rolls, which the views apply. Then another client of the same server, not Questlog,
opens a transaction and writes one row (an insert into a temporary table) and leaves it open
while 200 rolls are acknowledged. The figure is how many of the 200 the roll log holds 1 s after
the last acknowledgement (target: all 200), and how long until it holds them all. The stranger
then rolls back.

For contrast, a second phase holds one of Questlog's own appends open instead (the writer mark
and a row's transaction id, as an append holds them): the views must not pass it, so none of the
next rolls may be applied while it is open (the horizon guards exactly Questlog's appends), and
every one must be once it ends.
"""

from __future__ import annotations

import argparse
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any
from uuid import UUID

import psycopg
from rich.console import Console
from rich.table import Table

from bench.views.views_bench import postgres_config
from domain.service.questlog import Questlog
from domain.storage.log_order import writer_mark
from projections.runners import PostgresRunner
from projections.store import ViewStore, open_view_store
from projections.views import ALL_VIEWS

ROLLS = 200
WITHIN = 1.0
"""Seconds after the last acknowledgement by which every roll must be in the views."""
PATIENCE = 10.0
"""How long a phase waits for the views at most."""


@dataclass
class Phase:
    """One phase: what was held open, the rolls applied after ``WITHIN`` and when all were."""

    held: str
    rolls: int
    applied_within: int
    all_applied_after: float | None
    applied_while_held: int | None = None

    @property
    def met(self) -> bool:
        return self.applied_within == self.rolls


def rolls_applied(views: ViewStore, campaign: UUID) -> int:
    """How many rolls of the campaign the roll log holds."""
    with views.read() as cursor:
        found = views.rows(
            cursor, "SELECT count(*) AS n FROM {rolls} WHERE campaign_id = ?", (str(campaign),)
        )
    return int(found[0]["n"])


def follow(count: Callable[[], int], wanted: int, since: float) -> tuple[int, float | None]:
    """Watch ``count()`` from ``since``: what it was ``WITHIN`` seconds after (or ``wanted`` if it
    got there sooner), and the seconds until it reached ``wanted`` (None past ``PATIENCE``)."""
    within: int | None = None
    while (elapsed := time.perf_counter() - since) < PATIENCE:
        now = count()
        if now >= wanted:
            return (wanted if within is None else within), elapsed
        if within is None and elapsed >= WITHIN:
            within = now
        time.sleep(0.005)
    return (within or 0), None


def roll(app: Questlog, campaign: UUID, times: int, label: str) -> None:
    for number in range(times):
        app.dice.roll(campaign, notation="d20", purpose=f"{label} {number}")


def stranger_phase(app: Questlog, views: ViewStore, campaign: UUID, url: str) -> Phase:
    """Another application's write transaction open while the rolls are acknowledged."""
    before = rolls_applied(views, campaign)
    with psycopg.connect(url, autocommit=False, application_name="another app") as stranger:
        stranger.execute("CREATE TEMPORARY TABLE scratch (n int)")
        stranger.execute("INSERT INTO scratch VALUES (1)")
        roll(app, campaign, ROLLS, "beside a stranger")
        acknowledged = time.perf_counter()
        within, after = follow(lambda: rolls_applied(views, campaign) - before, ROLLS, acknowledged)
        stranger.rollback()
    return Phase("another client's write transaction", ROLLS, within, after)


def own_append_phase(app: Questlog, views: ViewStore, campaign: UUID, url: str) -> Phase:
    """One of Questlog's appends open (its mark and transaction id) while rolls go on."""
    recorder: Any = app.recorder
    call, keys = writer_mark(recorder.datastore.schema, recorder.events_table_name)
    before = rolls_applied(views, campaign)
    with psycopg.connect(url, autocommit=False, application_name="held append") as held:
        held.execute(f"SELECT {call}", keys)
        held.execute("SELECT pg_current_xact_id()")
        roll(app, campaign, ROLLS, "behind an open append")
        time.sleep(WITHIN)
        while_held = rolls_applied(views, campaign) - before
        held.rollback()
    ended = time.perf_counter()
    within, after = follow(lambda: rolls_applied(views, campaign) - before, ROLLS, ended)
    return Phase("one of Questlog's appends (for contrast)", ROLLS, within, after, while_held)


def measure_horizon() -> list[Phase]:
    """Both phases on a fresh schema, with the views runner in a thread of this process."""
    found = postgres_config(lambda message: None)
    if found is None:
        raise RuntimeError("PostgreSQL is not reachable: this benchmark needs it")
    config, drop = found
    app = Questlog(config)
    views = open_view_store(config)
    views.ensure(ALL_VIEWS)
    stop = threading.Event()
    runner = threading.Thread(
        target=PostgresRunner(config, ALL_VIEWS).run, args=(stop,), daemon=True
    )
    runner.start()
    try:
        campaign = app.campaigns.create_campaign(game="quest-calendar", name="horizon").campaign_id
        roll(app, campaign, 20, "before")
        if follow(lambda: rolls_applied(views, campaign), 20, time.perf_counter())[1] is None:
            raise RuntimeError("the views never applied the first 20 rolls")
        url = str(config.database_url)
        return [
            stranger_phase(app, views, campaign, url),
            own_append_phase(app, views, campaign, url),
        ]
    finally:
        stop.set()
        runner.join(30)
        views.close()
        app.close()
        drop()


def horizon_table(phases: list[Phase]) -> Table:
    table = Table(title=f"{ROLLS} rolls acknowledged while a transaction is held open")
    for column in ("held open", "in the views within 1 s", "all after", "while held", "target"):
        table.add_column(column)
    for phase in phases:
        contrast = phase.applied_while_held is not None
        table.add_row(
            phase.held,
            f"{phase.applied_within} of {phase.rolls}",
            "never" if phase.all_applied_after is None else f"{phase.all_applied_after:.2f} s",
            "-" if not contrast else f"{phase.applied_while_held} of {phase.rolls}",
            "0 while held, all once it ends"
            if contrast
            else f"{phase.rolls} of {phase.rolls} within {WITHIN:g} s "
            + ("PASS" if phase.met else "MISS"),
        )
    return table


def horizon_json(phases: list[Phase]) -> list[dict[str, Any]]:
    return [asdict(phase) | {"met": phase.met} for phase in phases]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.parse_args(argv)
    phases = measure_horizon()
    Console(highlight=False).print(horizon_table(phases))
    contrast = phases[1]
    guarded = contrast.applied_while_held == 0 and contrast.all_applied_after is not None
    return 0 if phases[0].met and guarded else 1


if __name__ == "__main__":
    raise SystemExit(main())
