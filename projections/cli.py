"""``python -m projections run | rebuild [NAME] | status``: the views as a separate process.

The store comes from the environment, as for ``questlog serve``: ``QUESTLOG_DATABASE_URL``
(PostgreSQL) or ``QUESTLOG_DB`` (SQLite; the views go to ``<name>.views.db`` beside it, or to
``--views-db`` / ``QUESTLOG_VIEWS_DB``). The ``projections`` group can be mounted on another
click group (``questlog projections ...``).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from domain import settings
from domain.facade import (
    LOG_FORMATS,
    StoreConfig,
    configure_logging,
    is_json,
    log_uncaught_errors,
)
from projections.leases import lease_retry
from projections.rebuild import rebuild as rebuild_views
from projections.rebuild import status as views_status
from projections.runners import DEFAULT_BATCH_SIZE, run_views
from projections.views import BY_NAME

console = Console(soft_wrap=True)
log = logging.getLogger("questlog.views")


@click.group()
@click.option(
    "--views-db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="SQLite file of the views (default: QUESTLOG_VIEWS_DB, else beside the event store, "
    "<name>.views.db).",
)
@click.pass_context
def projections(context: click.Context, views_db: Path | None) -> None:
    """The read models: run them, rebuild them, see how far they have caught up."""
    checked_settings()
    context.obj = {"config": StoreConfig.from_environ(), "views_path": views_db}


def checked_settings() -> settings.Settings:
    """Every environment variable, read and checked at start: a bad one is a usage error (exit
    status 2) that names it and what it accepts, before anything is opened or created."""
    try:
        return settings.read()
    except settings.SettingError as error:
        raise click.UsageError(str(error)) from None


@projections.command()
@click.option("--view", "names", multiple=True, type=click.Choice(sorted(BY_NAME)))
@click.option("--batch-size", default=DEFAULT_BATCH_SIZE, show_default=True, type=int)
@click.option(
    "--log-format",
    type=click.Choice(LOG_FORMATS),
    help="Logs on stderr as text lines or one JSON object per line, this process's status lines "
    "among them (default: QUESTLOG_LOG_FORMAT, else text).",
)
@click.pass_obj
def run(
    obj: dict[str, Any], names: tuple[str, ...], batch_size: int, log_format: str | None
) -> None:
    """Keep the views up to date until interrupted (SIGINT or SIGTERM stop it cleanly).

    Only the views whose lease this process holds are run; the others are tried again every
    QUESTLOG_VIEWS_LEASE_RETRY seconds, so a second process waits and takes over (see
    docs/projections.md). Each change of what it runs is printed, or logged as a JSON record
    with --log-format json.
    """
    config: StoreConfig = obj["config"]
    retry = lease_retry()
    try:
        handler = configure_logging(log_format)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--log-format'") from None
    say: Callable[[str], None] = console.print
    if is_json(handler):
        say = log.info
        log_uncaught_errors()
    stop = threading.Event()

    def request_stop(_signal: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    chosen = list(names) or sorted(BY_NAME)
    say(f"Views {', '.join(chosen)} following {config.describe()}")

    def announce(held: frozenset[str]) -> None:
        if stop.is_set():
            say("leases given up")
            return
        waiting = [name for name in chosen if name not in held]
        say(
            f"running: {', '.join(sorted(held)) or 'none'}"
            + (f"; waiting for the lease of: {', '.join(waiting)}" if waiting else "")
        )

    run_views(
        config,
        chosen,
        stop,
        views_path=obj["views_path"],
        batch_size=batch_size,
        retry=retry,
        on_leases=announce,
    )
    say("stopped")


@projections.command()
@click.argument("name", required=False, type=click.Choice(sorted(BY_NAME)))
@click.option("--batch-size", default=5000, show_default=True, type=int)
@click.pass_obj
def rebuild(obj: dict[str, Any], name: str | None, batch_size: int) -> None:
    """Rebuild one view (or all) from the first event and swap it in, the service still running."""
    chosen = [name] if name else None
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console) as bar:
        task = bar.add_task(f"rebuilding {name or 'every view'}", total=None)

        def advance(position: int, head: int) -> None:
            bar.update(task, completed=position, total=max(head, position))

        swapped = rebuild_views(
            obj["config"],
            chosen,
            views_path=obj["views_path"],
            batch_size=batch_size,
            progress=advance,
        )
    for view, position in swapped.items():
        console.print(f"{view}: rebuilt and swapped in at position {position}")


@projections.command()
@click.pass_obj
def status(obj: dict[str, Any]) -> None:
    """Each view's position, the log's head, the lag and which process runs it (its lease)."""
    report = views_status(obj["config"], views_path=obj["views_path"])
    table = Table(title=f"Views (log head {report['head']})")
    for column in ("view", "position", "lag", "events applied", "updated", "rebuild", "run by"):
        table.add_column(column)
    for view in report["views"]:
        rebuilding = view["rebuilding"]
        table.add_row(
            view["name"],
            str(view["position"]),
            str(view["lag"]),
            str(view["applied"]),
            str(view["updated_at"] or "-"),
            "-" if rebuilding is None else f"at {rebuilding['position']}",
            lease_text(view["lease"]),
        )
    console.print(table)
    console.print(horizon_text(report["horizon"]))


def horizon_text(horizon: dict[str, Any] | None) -> str:
    """What holds the log's horizon back, for the status: nothing, or the append and its age."""
    if horizon is None:
        return "Horizon: none (SQLite appends commit one at a time)"
    holder = horizon["held_by"]
    if holder is None:
        return "Horizon: no append is open"
    return (
        f"Horizon: held by transaction {holder['transaction']} (pid {holder['pid']}, "
        f"{holder['application_name']}, {holder['state']}), open {horizon['age_seconds']:.1f} s"
    )


def lease_text(lease: dict[str, Any] | None) -> str:
    """Who holds a view's lease, for the status table: nobody, or the holder's name and pid."""
    if lease is None:
        return "nobody"
    if "pid" in lease:
        return f"{lease['application_name']} (pid {lease['pid']})"
    return str(lease["application_name"])
