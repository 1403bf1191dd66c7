"""``questlog replay``: a campaign's events as a timeline, one line per event."""

from __future__ import annotations

import sys
from uuid import UUID

import click
from rich.markup import escape

from domain.facade import InvalidInput, NotFound, Replay, ReplayStep, summarise_decoded
from webapi.cli.common import console, open_store


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
        result = questlog.time_travel.replay(cid, first=first, last=last)
    except NotFound as error:
        console.print(f"[red]{escape(error.message)}[/red]")
        sys.exit(2)
    except InvalidInput as error:
        for field, messages in error.errors.items():
            console.print(f"[red]--{field}: {escape('; '.join(messages))}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
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
