"""The ``questlog`` command: serve the API (here), and the commands of the other modules of
``webapi.cli``: tokens and keys (``keys``), verify (``verify``), backup and import
(``backup``), replay (``replay``), ``questlog export``: the tables' export (``table_export``)
with the evening export (``evening``), the
reference tables and the demo (``docs``), and the views (``questlog projections ...``, from
``projections.cli``)."""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable

import click
from rich.markup import escape
from rich.text import Text

from domain.facade import (
    LOG_FORMATS,
    Publisher,
    Questlog,
    StoreConfig,
    is_json,
    log_uncaught_errors,
)
from projections.cli import checked_settings
from projections.cli import projections as projections_group
from webapi.cli import backup, docs, evening, keys, replay, sql, tlog, verify, witness
from webapi.cli.common import LOOPBACK, console, open_store
from webapi.http.observability import configure_logging


@click.group()
def main() -> None:
    """Questlog: an event-sourced game log with verifiable dice and a tamper-evident log."""
    checked_settings()


def banner(*, as_json: bool) -> Callable[..., None]:
    """How ``serve`` says what it serves: ``say(markup, level=logging.INFO)`` prints a rich line
    on stdout, or with JSON logs logs a record at ``level`` (logger ``questlog.serve``, the
    markup dropped), so everything the process logs is JSON."""
    log = logging.getLogger("questlog.serve")

    def say(markup: str, level: int = logging.INFO) -> None:
        if as_json:
            log.log(level, Text.from_markup(markup).plain)
        else:
            console.print(markup)

    return say


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--threads",
    default=8,
    show_default=True,
    type=int,
    help="Worker threads for requests (the live streams get as many more as they may open).",
)
@click.option(
    "--max-streams",
    type=int,
    help="Live streams open at once (default: QUESTLOG_MAX_STREAMS, else 64); each gets its "
    "own thread, so they never take the --threads that serve commands.",
)
@click.option(
    "--no-views",
    is_flag=True,
    help="Do not run the views in this process (a separate `questlog projections run` does).",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="API processes on the port (PostgreSQL only above 1): 1 serves with waitress in this "
    "process; more run gunicorn's pre-fork server, each worker with --threads plus "
    "--max-streams threads and its own views runner.",
)
@click.option(
    "--log-format",
    type=click.Choice(LOG_FORMATS),
    help="Logs on stderr as text lines or one JSON object per line "
    "(default: QUESTLOG_LOG_FORMAT, else text).",
)
def serve(
    host: str,
    port: int,
    threads: int,
    max_streams: int | None,
    no_views: bool,
    workers: int,
    log_format: str | None,
) -> None:
    """Serve the API on the configured store (waitress, or gunicorn with --workers), the views
    kept up to date inside."""
    from webapi.http.access import auth_setting
    from webapi.http.live import max_streams_setting

    auth = auth_setting(None)
    try:
        streams = max_streams_setting(max_streams)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--max-streams'") from None
    try:
        as_json = is_json(configure_logging(log_format))
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--log-format'") from None
    say = banner(as_json=as_json)
    if as_json:
        log_uncaught_errors()
    if not auth and host not in LOOPBACK:
        raise click.UsageError(
            f"Refusing to serve on {host} without authentication (QUESTLOG_AUTH=off). "
            "Serve with QUESTLOG_AUTH=on (the default): create a token with "
            "`questlog token create --name NAME --admin` and send it as "
            "`Authorization: Bearer <token>` (see docs/access.md)."
        )
    config = StoreConfig.from_environ()
    if workers > 1 and config.kind != "postgres":
        raise click.BadParameter(SQLITE_ONE_WORKER, param_hint="'--workers'")
    questlog = open_store()
    if auth and not questlog.access.tokens():
        first_admin_token(questlog, say, as_json=as_json)
    announce(
        say, questlog, config, host, port, threads, streams, workers, views=not no_views, auth=auth
    )
    if workers == 1:
        serve_one(questlog, host, port, threads, streams, auth=auth, views=not no_views)
        return
    # Nothing the parent opened may cross the fork: each worker opens its own store.
    questlog.close()
    serve_many(host, port, workers, threads, streams, auth=auth, views=not no_views)


def first_admin_token(questlog: Questlog, say: Callable[..., None], *, as_json: bool) -> None:
    """On a first start with auth on: make the admin token and show its secret once, on stdout."""
    _, secret = questlog.access.create_token("admin", admin=True)
    # The secret goes to stdout only, never into a log record that a shipper forwards.
    console.print(
        "First start: created the admin token [bold]admin[/bold]. It is shown this once:\n"
        f"  {secret}\nSend it as `Authorization: Bearer <token>`; see docs/access.md."
    )
    if as_json:
        say("First start: created the admin token admin; its secret is on stdout, once")


def announce(
    say: Callable[..., None],
    questlog: Questlog,
    config: StoreConfig,
    host: str,
    port: int,
    threads: int,
    streams: int,
    workers: int,
    *,
    views: bool,
    auth: bool,
) -> None:
    """What ``serve`` serves: the addresses, the store, the signing key, the views, auth, the
    threads, the workers and the tokens the rate limit does not count."""
    from webapi.http.rate_limits import exempt_setting

    ring = questlog.key_ring.current()  # made on the first start (docs/trust.md)
    say(f"Questlog on http://{host}:{port}  (store: {questlog.config.describe()})")
    say(f"Table page: http://{host}:{port}/app/  (sign in with a token)")
    say(f"OpenAPI document: http://{host}:{port}/openapi.json")
    say(f"Signing key: {escape(ring.signer.verifier.text)}")
    if config.log_name and config.log_name != ring.log_name:
        say(
            f"[yellow]QUESTLOG_LOG_NAME is {escape(config.log_name)!r}, but the keys were made "
            f"as {escape(ring.log_name)!r}: the name is fixed when they are made[/yellow]",
            logging.WARNING,
        )
    say(witnesses_line(questlog))
    say("Views: " + ("embedded" if views else "run elsewhere (--no-views)"))
    say("Auth: " + ("bearer tokens" if auth else "off (loopback only)"))
    each = " in each worker" if workers > 1 else ""
    say(f"Threads: {threads} for requests + {streams} for live streams{each}")
    say(f"Workers: {workers} (gunicorn, gthread)" if workers > 1 else "Workers: 1 (waitress)")
    exempt = exempt_setting(None)
    if exempt:
        say(
            f"Rate limit not counted for the token(s) {', '.join(sorted(exempt))} "
            "(QUESTLOG_RATE_LIMIT_EXEMPT)"
        )


SQLITE_ONE_WORKER = (
    "more than one worker needs PostgreSQL: SQLite lets one process write one file at a time, "
    "and the aggregate cache and the rate limit are kept per process there. Set "
    "QUESTLOG_DATABASE_URL to a PostgreSQL database to serve with several workers."
)


def witnesses_line(questlog: Questlog) -> str:
    """The witnesses the host submits its checkpoints to, and how often it signs one: "witnesses:
    w1 http://…, w2 (not asked: no URL); checkpoints every 5 s", or that there is no policy."""
    transparency = questlog.transparency
    policy = transparency.witnesses.policy
    if policy is None:
        return "Witnesses: none, no witness policy (QUESTLOG_WITNESS_POLICY unset)"
    named = [
        f"{name} {witness.url}" if witness.url else f"{name} (not asked: no URL)"
        for name, witness in policy.witnesses.items()
    ]
    every = f"{transparency.checkpoint_seconds:g}"
    return f"Witnesses: {', '.join(named) or 'none'}; checkpoints every {every} s"


def serve_one(
    questlog: Questlog, host: str, port: int, threads: int, streams: int, *, auth: bool, views: bool
) -> None:
    """Serve with waitress in this process, the views runner in a thread beside it."""
    from waitress import serve as waitress_serve

    from projections.runners import ViewsWorker
    from webapi.app import create_app
    from webapi.http.live import waitress_options
    from webapi.http.view_store import WORKER_KEY, close_views

    app = create_app(questlog, auth=auth, max_streams=streams)
    worker = ViewsWorker(questlog.config, app=questlog).start() if views else None
    app.extensions[WORKER_KEY] = worker
    publisher = Publisher(questlog.transparency).start()
    # SIGTERM ends waitress's loop like Ctrl-C, so the worker below is stopped cleanly; the open
    # live streams end first, or waitress would wait 5 s for the threads they hold (trial snag 20).
    signal.signal(signal.SIGTERM, lambda _signal, _frame: _stop(app.extensions))
    try:
        options = waitress_options(threads, streams)
        waitress_serve(app, host=host, port=port, ident="questlog", **options)
    finally:
        publisher.stop()
        if worker is not None:
            worker.stop()
        close_views(app)


def _stop(extensions: dict[str, object]) -> None:
    """End the live streams, then waitress's loop (by SystemExit, as Ctrl-C would)."""
    from webapi.http.live import LIVE_KEY, Live

    live = extensions.get(LIVE_KEY)
    if isinstance(live, Live):
        live.watcher.stop()
    sys.exit(0)


def serve_many(
    host: str, port: int, workers: int, threads: int, streams: int, *, auth: bool, views: bool
) -> None:
    """Serve with gunicorn's arbiter and ``workers`` forked workers, each building its own app
    after the fork; the arbiter handles SIGTERM/SIGINT (graceful stop) and restarts a worker
    that dies."""
    from functools import partial

    from webapi.cli.server import (
        QuestlogServer,
        build_app,
        gunicorn_options,
        metrics_directory,
        release_app,
    )

    options = gunicorn_options(host, port, workers, threads, streams)
    # Output still buffered at the fork would be written once by every worker.
    sys.stdout.flush()
    sys.stderr.flush()
    with metrics_directory():
        build = partial(build_app, auth=auth, streams=streams, views=views)
        QuestlogServer(options, build, release_app).run()


main.add_command(projections_group, name="projections")
for command in (
    keys.token,
    keys.key,
    verify.verify,
    backup.backup,
    backup.import_,
    replay.replay,
    evening.export,
    sql.sql,
    docs.reference,
    docs.demo,
    tlog.log_group,
    witness.witness,
):
    main.add_command(command)
