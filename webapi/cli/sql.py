"""``questlog sql "SELECT ..."``: read-only DuckDB SQL over the analyst's dataset."""

from __future__ import annotations

import csv
import json
import sys
from typing import Any
from uuid import UUID

import click
from rich.markup import escape
from rich.table import Table

from domain.facade import GAMES
from projections.sql import MAX_ROWS, TIMEOUT, Answer, SqlFailed, SqlRefused, SqlTimedOut
from webapi.cli.common import console, open_existing_store

SQL_FORMATS = ("table", "csv", "json")


@click.command("sql")
@click.argument("query")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(SQL_FORMATS),
    default="table",
    show_default=True,
    help="A table on the terminal, CSV with a header, or one JSON object (columns, rows).",
)
@click.option("--limit", type=click.IntRange(1), default=MAX_ROWS, show_default=True)
@click.option(
    "--timeout", type=click.FloatRange(0.1), default=TIMEOUT, show_default=True, help="Seconds."
)
@click.option("--campaign", help="Only this campaign's rows, in every table (its id).")
@click.option("--game", type=click.Choice(GAMES), help="Only this game's campaigns.")
def sql(
    query: str,
    fmt: str,
    limit: int,
    timeout: float,
    campaign: str | None,
    game: str | None,
) -> None:
    """Run one SELECT over the tables of `questlog export --all` (same names, without
    .parquet), read-only, in DuckDB, after catching the views up. Exits 2 if the query is
    refused or fails, 3 if it runs out of time."""
    from projections.dataset import Scope
    from projections.rebuild import catch_up_views
    from projections.sql import run_sql
    from projections.store import open_view_store

    cid = None
    if campaign is not None:
        try:
            cid = str(UUID(campaign))
        except ValueError:
            raise click.BadParameter(
                "not a campaign id (a UUID)", param_hint="--campaign"
            ) from None
    questlog = open_existing_store()
    try:
        store = open_view_store(questlog.config)
        try:
            catch_up_views(questlog, store, batch_size=2000)
            answer = run_sql(
                questlog, store, query, scope=Scope(cid, game), limit=limit, timeout=timeout
            )
        except (SqlRefused, SqlFailed) as error:
            console.print(f"[red]{escape(error.message)}[/red]")
            sys.exit(2)
        except SqlTimedOut as error:
            console.print(f"[red]{escape(error.message)}[/red]")
            sys.exit(3)
        finally:
            store.close()
    finally:
        questlog.close()
    show(answer, fmt)
    if answer.truncated:
        click.echo(f"truncated: the first {len(answer.rows)} rows (--limit)", err=True)


def show(answer: Answer, fmt: str) -> None:
    """Print an answer as a table, CSV or JSON."""
    if fmt == "json":
        body = {
            "columns": [{"name": n, "type": t} for n, t in answer.columns],
            "rows": answer.rows,
            "truncated": answer.truncated,
            "positions": answer.positions,
        }
        click.echo(json.dumps(body, ensure_ascii=False))
        return
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([name for name, _ in answer.columns])
        writer.writerows([[_text(value) for value in row] for row in answer.rows])
        return
    table = Table(
        caption=f"{len(answer.rows)} row(s)" + (", truncated" if answer.truncated else "")
    )
    for name, kind in answer.columns:
        table.add_column(f"{escape(name)}\n[dim]{escape(kind)}[/dim]")
    for row in answer.rows:
        table.add_row(*(escape(_text(value)) for value in row))
    console.print(table)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)
