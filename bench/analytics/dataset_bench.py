"""Part (h): the analyst's dataset on the bench store of 100,000 rolls (SQLite).

The log is built as part (d) builds it (``bench.views.views_bench.build_log``: campaigns, then
server rolls) and every view caught up. Then, in this process:

- **export**: ``questlog export --all --format parquet`` as the command runs it (the views
  caught up, here already, then every table and the event log written as Parquet with the data
  dictionary; ``webapi.cli.table_export.export_all``'s two steps); target ≤ 10 s;
- **SQL**: ``SELECT face, count(*) FROM rolls, unnest(faces) AS t(face) GROUP BY face`` through
  ``projections.sql.run_sql``, end to end (the rolls table read from the views, DuckDB, the
  answer), the median of ``repeat`` runs; target ≤ 1 s.
"""

from __future__ import annotations

import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table

from bench.views.views_bench import build_log
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.parquet import write_dataset
from projections.rebuild import catch_up_views
from projections.sql import run_sql
from projections.store import open_view_store

EXPORT_TARGET_S = 10.0
SQL_TARGET_S = 1.0
FACES = "SELECT face, count(*) FROM rolls, unnest(faces) AS t(face) GROUP BY face"
Progress = Callable[[str], None]


@dataclass
class DatasetRun:
    """The dataset's figures on one SQLite store."""

    events: int
    build_seconds: float
    catch_up_seconds: float
    export_seconds: float
    export_rows: dict[str, int]
    export_bytes: int
    sql_seconds: list[float] = field(default_factory=list)

    @property
    def sql_median(self) -> float:
        """The median time of the count per face."""
        return statistics.median(self.sql_seconds)


def measure_dataset(
    workdir: Path, *, events: int, repeat: int = 5, note: Progress | None = None
) -> DatasetRun:
    """Build the store, catch the views up, then time the export and the SQL count per face."""
    say = note or (lambda _text: None)
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    config = StoreConfig(sqlite_path=workdir / "questlog.db")
    app = Questlog(config)
    store = open_view_store(config)
    try:
        say(f"building a log of {events:,} events")
        build_seconds = build_log(app, events)
        started = time.perf_counter()
        catch_up_views(app, store, batch_size=2000)
        catch_up_seconds = time.perf_counter() - started
        say(f"views caught up in {catch_up_seconds:.1f} s; exporting")
        target = workdir / "dataset"
        started = time.perf_counter()
        catch_up_views(app, store, batch_size=2000)
        written = write_dataset(app, store, target)
        export_seconds = time.perf_counter() - started
        size = sum(path.stat().st_size for path in target.iterdir())
        run = DatasetRun(
            events, build_seconds, catch_up_seconds, export_seconds, written.rows, size
        )
        for _ in range(repeat):
            started = time.perf_counter()
            answer = run_sql(app, store, FACES)
            run.sql_seconds.append(time.perf_counter() - started)
            assert answer.rows, "the count per face answered nothing"
        return run
    finally:
        store.close()
        app.close()


def dataset_table(run: DatasetRun, verdict: Callable[[bool], str]) -> Table:
    """The export and the SQL count beside their targets."""
    table = Table(title="(h) The analyst's dataset, SQLite", title_justify="left")
    for column, justify in [("measure", "left"), ("figure", "right"), ("target", "right")]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("", justify="center")
    rows = sum(run.export_rows.values())
    table.add_row(
        f"questlog export --all --format parquet: {len(run.export_rows)} tables, {rows:,} rows "
        f"({run.export_bytes / 1e6:,.1f} MB), views caught up",
        f"{run.export_seconds:,.2f} s",
        f"≤ {EXPORT_TARGET_S:g} s",
        verdict(run.export_seconds <= EXPORT_TARGET_S),
    )
    table.add_row(
        f"questlog sql count per face over {run.export_rows.get('rolls', 0):,} rolls, "
        f"median of {len(run.sql_seconds)}",
        f"{run.sql_median:,.2f} s",
        f"≤ {SQL_TARGET_S:g} s",
        verdict(run.sql_median <= SQL_TARGET_S),
    )
    table.add_row(
        f"[dim]every view catching up on the {run.events:,} events first (part (d))[/dim]",
        f"[dim]{run.catch_up_seconds:,.2f} s[/dim]",
        "",
        "",
    )
    return table


def dataset_json(run: DatasetRun) -> dict[str, Any]:
    """The figures as plain data, with the targets and whether each was met."""
    return {
        **vars(run),
        "sql_median": run.sql_median,
        "export_target_s": EXPORT_TARGET_S,
        "sql_target_s": SQL_TARGET_S,
        "export_met": run.export_seconds <= EXPORT_TARGET_S,
        "sql_met": run.sql_median <= SQL_TARGET_S,
    }
