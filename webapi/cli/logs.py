"""The commands on the store's log: back it up, import a bundle, replay a campaign, export."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from uuid import UUID

import click
from rich.markup import escape

from domain.facade import (
    GAMES,
    BackupRefused,
    InvalidInput,
    NotFound,
    Replay,
    ReplayStep,
    RuleViolation,
    StoreConfig,
    TimeTravel,
    backup_store,
    summarise_decoded,
)
from projections.export import EXPORTS, FORMATS, export_events, export_view
from webapi.cli.common import console, open_existing_store, open_store
from webapi.cli.verify import parse_keys

CATCH_UP_BATCH = 2000
"""Events per transaction when ``export --all`` catches the views up."""


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace FILE if it exists.")
def backup(file: Path, force: bool) -> None:
    """Copy the running SQLite store to FILE, consistently (PostgreSQL: pg_dump, see
    docs/operations.md). The views file is not copied: the views are rebuilt from the log."""
    try:
        result = backup_store(StoreConfig.from_environ(), file, force=force)
    except BackupRefused as error:
        console.print(f"[red]{escape(str(error))}[/red]")
        sys.exit(2)
    console.print(f"Backed up the store to {escape(str(result.path))} ({result.bytes} bytes).")


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--public", is_flag=True, help="Make the campaign readable by every token.")
@click.option(
    "--key",
    "verifier_keys",
    multiple=True,
    help="The source's verifier key (repeatable; GET /.well-known/questlog-key on the source): "
    "the bundle's checkpoints must be signed by it; default: the keys the bundle lists.",
)
def import_(file: Path, public: bool, verifier_keys: tuple[str, ...]) -> None:
    """Import a campaign bundle (GET /campaigns/{id}/bundle) from another instance: verified
    whole, then stored unchanged, to play on here under a new server seed. Exits 1 if the
    bundle does not verify or the campaign is here already, 2 if FILE is not a bundle."""
    from webapi import bundle

    if file.stat().st_size > bundle.MAX_BUNDLE_BYTES:
        console.print(
            f"[red]{escape(str(file))}: larger than {bundle.MAX_BUNDLE_BYTES} bytes, the most "
            "an import takes[/red]"
        )
        sys.exit(2)
    keys = parse_keys(verifier_keys)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        bundle.checked(data, keys)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        console.print(f"[red]{escape(str(file))}: {escape(str(error))}[/red]")
        sys.exit(2)
    questlog = open_store()
    try:
        result = bundle.load(questlog, data, public=public, keys=keys)
    except InvalidInput as error:
        console.print(f"[red]Refused: {escape(error.message)}[/red]")
        for messages in error.errors.values():
            for message in messages:
                console.print(f"[red]  {escape(message)}[/red]")
        sys.exit(1)
    except RuleViolation as error:
        console.print(f"[red]Refused: {escape(error.reason)}[/red]")
        sys.exit(1)
    finally:
        questlog.close()
    value = result.value
    how = "extended" if value["extended"] else "imported"
    console.print(
        f"Campaign {result.campaign_id} ({escape(value['game'])}, {escape(value['name'])}) "
        f"{how}: {value['imported_events']} events of the bundle (head version "
        f"{value['bundle_head']['version']}), then the import event at version {result.version}."
    )
    console.print(f"head: version {result.version}, hash {result.head_hash}")
    console.print(f"new commitment {value['commitment']}, nonce 0")
    if value["awaiting_reveal"]:
        console.print(
            f"[yellow]{value['awaiting_reveal']} server roll(s) of the bundle await a reveal "
            f"only the source can make (commitment {value['unrevealed_commitment']}); a rotation "
            "on the source before exporting avoids this[/yellow]"
        )


@click.command()
@click.argument("campaign_id")
@click.option("--from", "first", default=1, show_default=True, type=int, help="First version.")
@click.option("--to", "last", type=int, help="Last version (default: the head, at most 1000).")
def replay(campaign_id: str, first: int, last: int | None) -> None:
    """Print a campaign's events as a timeline: one line per event, with what it changed."""
    try:
        cid = UUID(campaign_id)
    except ValueError:
        raise click.BadParameter("not a campaign id (a UUID)", param_hint="CAMPAIGN_ID") from None
    questlog = open_store()
    try:
        result = TimeTravel(questlog).replay(cid, first=first, last=last)
    except NotFound as error:
        console.print(f"[red]{escape(error.message)}[/red]")
        sys.exit(2)
    except InvalidInput as error:
        for field, messages in error.errors.items():
            console.print(f"[red]--{field}: {escape('; '.join(messages))}[/red]")
        sys.exit(2)
    print_timeline(result)


def print_timeline(result: Replay) -> None:
    """One line per event: version, time, type, the event in words; undone events are marked."""
    for step in result.steps:
        event = step.event
        version = event.originator_version
        undone_by = result.timeline.undone_by(version)
        kind = type(event).__name__
        line = (
            f"[bold]{version:>5}[/bold]  {event.timestamp:%Y-%m-%d %H:%M:%S}  "
            f"[cyan]{kind:<22}[/cyan] {escape(describe(step))}"
        )
        if undone_by is not None:
            line = f"[dim]{line}  [yellow](undone by {undone_by})[/yellow][/dim]"
        console.print(line)


def describe(step: ReplayStep) -> str:
    """What one event did, in words: its summary (``domain.model.events.summaries``, the line the
    API and the page show)."""
    return summarise_decoded(step.event)


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
