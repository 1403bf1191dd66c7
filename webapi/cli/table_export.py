"""``questlog export NAME`` and ``questlog export --all``: a view's table or the event log as CSV
or JSON Lines, or every table as the analyst's Parquet dataset (``webapi.cli.evening`` makes the
``export`` group around it)."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import click

from domain.facade import GAMES
from projections.export import EXPORTS, FORMATS, export_events, export_view
from webapi.cli.common import open_existing_store

CATCH_UP_BATCH = 2000
"""Events per transaction when ``export --all`` catches the views up."""


@click.command("export")
@click.argument("name", required=False, type=click.Choice(["events", *sorted(EXPORTS)]))
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Every view table and the event log, as typed Parquet files in the --output directory "
    "with their data dictionary (README.md, schema.json): the dataset for an analyst.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice([*FORMATS, "parquet"]),
    help="csv or jsonl for one table (default jsonl); parquet with --all.",
)
@click.option("--campaign", help="Only this campaign (its id).")
@click.option("--game", type=click.Choice(GAMES), help="With --all: only this game's campaigns.")
@click.option(
    "--output",
    type=click.Path(writable=True, path_type=Path),
    help="File (default: stdout); with --all, the directory.",
)
def export(
    name: str | None,
    everything: bool,
    fmt: str | None,
    campaign: str | None,
    game: str | None,
    output: Path | None,
) -> None:
    """Write a view (a view's table, by name) or the event log as CSV or JSON Lines; or, with
    --all --format parquet --output DIR, catch the views up and write every table as Parquet."""
    cid = None
    if campaign is not None:
        try:
            cid = str(UUID(campaign))
        except ValueError:
            raise click.BadParameter(
                "not a campaign id (a UUID)", param_hint="--campaign"
            ) from None
    if everything:
        if name is not None:
            raise click.UsageError("give a NAME or --all, not both")
        if fmt not in (None, "parquet"):
            raise click.BadParameter("--all writes parquet", param_hint="--format")
        if output is None:
            raise click.UsageError("--all needs --output DIR, the directory to write")
        export_all(output, cid, game)
        return
    if name is None:
        raise click.UsageError("give a NAME to export, or --all")
    if fmt == "parquet":
        raise click.BadParameter("parquet is for --all (every table)", param_hint="--format")
    if game is not None:
        raise click.BadParameter("--game is for --all", param_hint="--game")
    export_one(name, fmt or "jsonl", cid, output)


def export_one(name: str, fmt: str, cid: str | None, output: Path | None) -> None:
    """One view table, or the event log, as CSV or JSON Lines."""
    from projections.store import open_view_store
    from projections.views import ALL_VIEWS

    questlog = open_existing_store()
    out = click.open_file(str(output) if output else "-", "w", encoding="utf-8")
    try:
        if name == "events":
            count = export_events(questlog, fmt, out, campaign_id=cid)
            where = f"log head {questlog.log_head()}"
        else:
            store = open_view_store(questlog.config)
            try:
                store.ensure(ALL_VIEWS)
                view = EXPORTS[name][0].name
                where = f"view {view} at position {store.positions()[view]['position']} or later"
                count = export_view(store, name, fmt, out, campaign_id=cid)
            finally:
                store.close()
    finally:
        if output:
            out.close()
        questlog.close()
    click.echo(f"exported {count} {name} row(s) as {fmt} ({where})", err=True)


def export_all(directory: Path, cid: str | None, game: str | None) -> None:
    """Catch the views up, then write the dataset as Parquet files with its dictionary."""
    from projections.dataset import Scope
    from projections.parquet import write_dataset
    from projections.rebuild import catch_up_views
    from projections.store import open_view_store

    if directory.exists() and not directory.is_dir():
        raise click.BadParameter("not a directory", param_hint="--output")
    questlog = open_existing_store()
    try:
        store = open_view_store(questlog.config)
        try:
            applied = catch_up_views(questlog, store, batch_size=CATCH_UP_BATCH)
            written = write_dataset(questlog, store, directory, scope=Scope(cid, game))
        finally:
            store.close()
    finally:
        questlog.close()
    for table, count in written.rows.items():
        click.echo(f"{directory / (table + '.parquet')}: {count} row(s)", err=True)
    lowest = min(written.positions.values(), default=0)
    click.echo(
        f"exported {len(written.rows)} tables as parquet (views caught up by {applied} event(s), "
        f"at position {lowest}); data dictionary: {directory / 'README.md'}",
        err=True,
    )
