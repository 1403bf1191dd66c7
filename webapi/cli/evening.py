"""``questlog export``: a view's table or the event log (``webapi.cli.table_export.export``),
or ``questlog export evening CAMPAIGN_ID``, what was played in a range as Markdown or HTML
(``projections.evening``), read from the store like the other commands.

The tables stay what they were: ``questlog export NAME`` and ``questlog export --all`` take the
same options in the same places. Each table is also a subcommand of the group, so that a NAME
and ``evening`` are told apart by click itself; an option given before NAME still counts.
"""

from __future__ import annotations

import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any
from uuid import UUID

import click
from rich.markup import escape

from domain.facade import InvalidInput, NotFound
from projections.evening import evening as read_evening
from projections.evening_text import FORMATS, filename, render
from projections.export import EXPORTS
from webapi.cli import table_export
from webapi.cli.common import console, open_existing_store

DATE = click.DateTime(formats=["%Y-%m-%d"])
NUMBER = click.IntRange(min=1)


def _day(value: datetime | None) -> date | None:
    return value.date() if value is not None else None


@click.command("evening")
@click.argument("campaign_id")
@click.option("--date", "on", type=DATE, help="Quest Calendar: the page of this date.")
@click.option("--from-date", type=DATE, help="Quest Calendar: the first page's date.")
@click.option("--to-date", type=DATE, help="Quest Calendar: the last page's date.")
@click.option("--night", type=NUMBER, help="Calendar Board: day and night N (a round, its night).")
@click.option("--from-night", type=NUMBER, help="Calendar Board: the first day and night.")
@click.option("--to-night", type=NUMBER, help="Calendar Board: the last day and night.")
@click.option("--from-version", type=NUMBER, help="The first version (default 1).")
@click.option("--to-version", type=NUMBER, help="The last version (default the head).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(sorted(FORMATS)),
    default="markdown",
    show_default=True,
    help="Markdown, or one self-contained HTML page.",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="File to write (default: stdout).",
)
@click.option(
    "--base-url",
    default="",
    help="The server's address, put before the links (e.g. https://questlog.example); "
    "default: the links as paths.",
)
def evening(
    campaign_id: str,
    on: datetime | None,
    fmt: str,
    output: Path | None,
    base_url: str,
    **bounds: Any,
) -> None:
    """Export what was played in a range of a campaign (pages, a day and night, or versions)
    as Markdown or HTML: every command in words, each roll with its dice, the verification."""
    try:
        cid = UUID(campaign_id)
    except ValueError:
        raise click.BadParameter("not a campaign id (a UUID)", param_hint="CAMPAIGN_ID") from None
    query = {"date": _day(on)}
    for name, value in bounds.items():
        query[name] = _day(value) if isinstance(value, datetime) else value
    questlog = open_existing_store()
    try:
        found = read_evening(questlog, cid, query)
    except NotFound as error:
        console.print(f"[red]{escape(error.message)}[/red]")
        sys.exit(2)
    except InvalidInput as error:
        for field, messages in error.errors.items():
            option = "--" + field.replace("_", "-")
            console.print(f"[red]{escape(option)}: {escape('; '.join(messages))}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
    text = render(found, fmt, base_url.rstrip("/"))
    if output is None:
        click.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    click.echo(
        f"wrote {output} ({found.span.label}, versions {found.span.first} to "
        f"{found.span.last}, {found.rolls} roll(s); as served: {filename(found, fmt)})",
        err=True,
    )


TABLE_OPTIONS = [p for p in table_export.export.params if p.name != "name"]
"""The options of ``questlog export NAME`` (all but NAME itself)."""


def _table(name: str) -> click.Command:
    """``questlog export NAME``: the table export with NAME given, the options given before it
    (to the group) and after it (to this command) taken together."""

    @click.pass_context
    def run(ctx: click.Context, /, **given: Any) -> None:
        params = dict(ctx.parent.params if ctx.parent else {})
        params.update({k: v for k, v in given.items() if v not in (None, False)})
        ctx.invoke(table_export.export, name=name, **params)

    what = "The event log" if name == "events" else f"The view table {name}"
    return click.Command(
        name, params=TABLE_OPTIONS, callback=run, help=f"{what} as CSV or JSON Lines."
    )


@click.group(
    "export",
    invoke_without_command=True,
    params=TABLE_OPTIONS,
    help=(table_export.export.help or "")
    + "\n\nOr `questlog export evening CAMPAIGN_ID`: a range of play as Markdown or HTML.",
)
@click.pass_context
def export(ctx: click.Context, /, **params: Any) -> None:
    if ctx.invoked_subcommand is None:
        ctx.invoke(table_export.export, name=None, **params)


export.add_command(evening)
for _name in ("events", *sorted(EXPORTS)):
    export.add_command(_table(_name))
