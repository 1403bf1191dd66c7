"""The commands that show the product: the docs' reference tables and the demo."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.markup import escape

from webapi.cli.common import console


@click.command()
@click.argument(
    "subject",
    metavar="GAME|rules|settings|operations",
    type=click.Choice(["quest-calendar", "calendar-board", "rules", "settings", "operations"]),
)
@click.option(
    "--write",
    type=click.Path(dir_okay=False),
    help="Update the tables in this file (with `rules`: write the whole rule index to it; with "
    "`settings`: update the table of environment variables in it, README.md; with `operations`: "
    "the table of operation names in it, docs/api-clients.md).",
)
def reference(subject: str, write: str | None) -> None:
    """Print (or update in a doc) the generated command and house-rule tables of a game, or,
    with `rules`, the rule index (docs/rules.md), or, with `settings`, the table of environment
    variables (README.md's Configuration), or, with `operations`, the table of the API's
    operation names (docs/api-clients.md)."""

    from webapi.doctools import reference as ref

    if subject == "operations":
        operations_table(write)
        return
    if subject == "rules":
        index = ref.rules_markdown()
        if write is None:
            click.echo(index, nl=False)
        else:
            if not Path(write).parent.is_dir():
                raise click.BadParameter(
                    f"Folder {str(Path(write).parent)!r} does not exist.", param_hint="'--write'"
                )
            Path(write).write_text(index)
            click.echo(f"wrote {write}")
        return
    if write is None:
        if subject == "settings":
            click.echo(ref.settings_markdown())
        else:
            click.echo(ref.commands_markdown(subject) + "\n\n" + ref.house_rules_markdown(subject))
        return
    path = Path(write)
    if not path.exists():
        raise click.BadParameter(f"Path {write!r} does not exist.", param_hint="'--write'")
    if subject == "settings":
        try:
            path.write_text(ref.update_settings(path.read_text()))
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="'--write'") from None
    else:
        path.write_text(ref.update(subject, path.read_text()))
    click.echo(f"updated {path}")


def operations_table(write: str | None) -> None:
    """Print the table of operation names, or update it in ``write`` (docs/api-clients.md)."""
    from webapi.doctools import operations

    document = operations.served_document()
    if write is None:
        click.echo(operations.operations_markdown(document))
        return
    path = Path(write)
    if not path.exists():
        raise click.BadParameter(f"Path {write!r} does not exist.", param_hint="'--write'")
    try:
        path.write_text(operations.update_operations(path.read_text(), document))
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--write'") from None
    click.echo(f"updated {path}")


@click.command()
@click.option(
    "--reset",
    is_flag=True,
    help="Delete the demo store first (refused if it holds a campaign the demo did not make).",
)
def demo(reset: bool) -> None:
    """Play a Quest Calendar week and a Calendar Board match on server dice in the demo store
    (QUESTLOG_DB, else questlog-demo.db here; each run adds two campaigns), reveal the seeds,
    catch the views up, and print share links and a roll to check by hand."""
    import time

    from webapi.cli.demo import (
        DemoError,
        ResetRefused,
        demo_config,
        play_demo,
        print_demo,
        reset_store,
    )

    config = demo_config()
    started = time.perf_counter()
    if reset:
        try:
            reset_store(config)
        except ResetRefused as error:
            raise click.UsageError(str(error)) from None
    try:
        result = play_demo(config)
    except DemoError as error:
        console.print(f"[red]The demo could not finish: {escape(str(error))}[/red]")
        sys.exit(1)
    print_demo(result, console, time.perf_counter() - started)
    sys.exit(0 if result.ok else 1)
