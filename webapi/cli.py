"""The ``questlog`` command: serve the API, run a demo, verify a campaign."""

from __future__ import annotations

import sys
from uuid import UUID

import click
from rich.console import Console
from rich.table import Table

from domain.application import Questlog
from domain.errors import NotFound
from domain.store import StoreConfig

console = Console(soft_wrap=True)


def open_store() -> Questlog:
    """Open the store named by the environment (QUESTLOG_DATABASE_URL or QUESTLOG_DB)."""
    return Questlog(StoreConfig.from_environ())


@click.group()
def main() -> None:
    """Questlog: an event-sourced game log with verifiable dice and a tamper-evident log."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option("--threads", default=8, show_default=True, type=int, help="Worker threads.")
def serve(host: str, port: int, threads: int) -> None:
    """Serve the API with waitress on the configured store."""
    from waitress import serve as waitress_serve

    from webapi.app import create_app

    questlog = open_store()
    console.print(f"Questlog on http://{host}:{port}  (store: {questlog.config.describe()})")
    console.print(f"OpenAPI document: http://{host}:{port}/openapi.json")
    waitress_serve(create_app(questlog), host=host, port=port, threads=threads, ident="questlog")


@main.command()
@click.argument("campaign_id")
@click.option("--head", help="A head_hash receipt that must still be in the chain.")
def verify(campaign_id: str, head: str | None) -> None:
    """Audit a campaign: the hash chain, every stored byte, every revealed roll."""
    try:
        cid = UUID(campaign_id)
    except ValueError:
        raise click.BadParameter("not a campaign id (a UUID)", param_hint="CAMPAIGN_ID") from None
    questlog = open_store()
    try:
        report = questlog.audit(cid).as_dict(receipt=head)
    except NotFound as error:
        console.print(f"[red]{error.message}[/red]")
        sys.exit(2)
    print_audit(cid, report)
    sys.exit(0 if report["ok"] else 1)


def print_audit(campaign_id: UUID, report: dict[str, object]) -> None:
    """Print an audit report as a short table."""
    table = Table(title=f"Audit of campaign {campaign_id}", show_header=False)
    table.add_row("chain", "[green]intact[/green]" if report["chain_ok"] else "[red]BROKEN[/red]")
    table.add_row("first bad version", str(report["first_bad_version"]))
    head = dict(report["head"])  # type: ignore[call-overload]
    table.add_row("head", f"version {head['version']}, hash {head['hash']}")
    for name, count in dict(report["rolls"]).items():  # type: ignore[call-overload]
        table.add_row(f"rolls {name}", str(count))
    if "receipt" in report:
        table.add_row("receipt", str(report["receipt"]))
    console.print(table)
    for problem in report["problems"]:  # type: ignore[attr-defined]
        console.print(f"[red]version {problem['version']}: {problem['problem']}[/red]")
    console.print("[green]OK[/green]" if report["ok"] else "[red]FAILED[/red]")


@main.command()
@click.argument("game", type=click.Choice(["quest-calendar", "calendar-board"]))
@click.option("--write", type=click.Path(exists=True), help="Update the tables in this file.")
def reference(game: str, write: str | None) -> None:
    """Print (or update in a doc) the generated command and house-rule tables of a game."""
    from pathlib import Path

    from webapi import reference as ref

    commands = ref.commands_markdown(game)
    rules = ref.house_rules_markdown(game)
    if write is None:
        click.echo(commands + "\n\n" + rules)
        return
    path = Path(write)
    path.write_text(ref.update(game, path.read_text()))
    click.echo(f"updated {path}")


@main.command()
@click.option("--rolls", default=36, show_default=True, type=int, help="How many rolls to make.")
def demo(rolls: int) -> None:
    """Create a sample campaign, roll dice, rotate the seed, audit, and say what to try next."""
    questlog = open_store()
    created = questlog.create_campaign(
        game="quest-calendar",
        name="Demo: a week of the Voidspark Chronicles",
        respond=lambda campaign, _value: {"id": str(campaign.id)},
    )
    cid = UUID(created.response["id"])
    notations = ["d20+2", "2d20kh1", "2d20kl1", "d100", "2d6+d4-1", "d10", "d8+1", "d12"]
    for n in range(rolls):
        questlog.roll(cid, notation=notations[n % len(notations)], purpose=f"demo roll {n + 1}")
    questlog.roll(cid, notation="d20", purpose="a roll made by hand", faces=[17])
    questlog.rotate_seed(cid)
    report = questlog.audit(cid).as_dict()
    campaign = questlog.campaign(cid)
    console.print(f"[bold]Campaign[/bold] {cid}  ({campaign.name})")
    console.print(f"Store: {questlog.config.describe()}")
    console.print(
        f"{rolls} server rolls and 1 reported roll, then the seed was rotated and revealed; "
        f"the log has {campaign.version} events, head {campaign.head_hash[:16]}…"
    )
    print_audit(cid, report)
    console.print("\n[bold]Try next[/bold]")
    console.print(f"  questlog verify {cid}")
    console.print("  questlog serve   # then:")
    console.print(f"  curl http://127.0.0.1:8000/campaigns/{cid}/audit")
    console.print(f"  curl http://127.0.0.1:8000/campaigns/{cid}/rolls/2-1")
    console.print("  docs/dice-verification.md shows how to re-check any roll yourself.")
    sys.exit(0 if report["ok"] else 1)
