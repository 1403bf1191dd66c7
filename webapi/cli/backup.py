"""The commands that move data in and out: back the whole store up, import one campaign's bundle."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.markup import escape

from domain.facade import (
    BackupRefused,
    InvalidInput,
    RuleViolation,
    StoreConfig,
    backup_store,
)
from webapi.cli.common import console, open_store, parse_keys


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
    from domain.facade import bundles

    if file.stat().st_size > bundles.MAX_BUNDLE_BYTES:
        console.print(
            f"[red]{escape(str(file))}: larger than {bundles.MAX_BUNDLE_BYTES} bytes, the most "
            "an import takes[/red]"
        )
        sys.exit(2)
    keys = parse_keys(verifier_keys)
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        bundles.checked(data, keys)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        console.print(f"[red]{escape(str(file))}: {escape(str(error))}[/red]")
        sys.exit(2)
    questlog = open_store()
    try:
        result = questlog.bundles.load(data, public=public, keys=keys)
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
