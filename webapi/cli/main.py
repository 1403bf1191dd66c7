"""The ``questlog`` command: serve the API, run the demo (``webapi.cli.demo``), verify or replay a
campaign, run the views (``questlog projections ...``) and export them."""

from __future__ import annotations

import json
import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from domain.model.errors import InvalidInput, NotFound, RuleViolation
from domain.model.signed_note import NoteError, VerifierKey, parse_verifier_key
from domain.model.summaries import summarise_decoded
from domain.service.application import Questlog
from domain.service.checkpoints import CheckpointVerdict
from domain.service.timetravel import Replay, ReplayStep, TimeTravel
from domain.storage.backup import BackupRefused, backup_store
from domain.storage.store import StoreConfig
from projections.cli import checked_settings
from projections.cli import projections as projections_group
from projections.export import EXPORTS, FORMATS, export_events, export_view
from projections.logs import LOG_FORMATS, is_json, log_uncaught_errors
from webapi.http.observability import configure_logging

console = Console(soft_wrap=True)


def open_store() -> Questlog:
    """Open the store named by the environment (QUESTLOG_DATABASE_URL or QUESTLOG_DB)."""
    return Questlog(StoreConfig.from_environ())


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
    from webapi.http.access import auth_setting, exempt_setting
    from webapi.routes.live import max_streams_setting

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
    if auth and not questlog.tokens():
        _, secret = questlog.create_token("admin", admin=True)
        # The secret goes to stdout only, never into a log record that a shipper forwards.
        console.print(
            "First start: created the admin token [bold]admin[/bold]. It is shown this once:\n"
            f"  {secret}\nSend it as `Authorization: Bearer <token>`; see docs/access.md."
        )
        if as_json:
            say("First start: created the admin token admin; its secret is on stdout, once")
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
    say("Views: " + ("run elsewhere (--no-views)" if no_views else "embedded"))
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
    if workers == 1:
        serve_one(questlog, host, port, threads, streams, auth=auth, views=not no_views)
        return
    # Nothing the parent opened may cross the fork: each worker opens its own store.
    questlog.close()
    serve_many(host, port, workers, threads, streams, auth=auth, views=not no_views)


SQLITE_ONE_WORKER = (
    "more than one worker needs PostgreSQL: SQLite lets one process write one file at a time, "
    "and the aggregate cache and the rate limit are kept per process there. Set "
    "QUESTLOG_DATABASE_URL to a PostgreSQL database to serve with several workers."
)


def serve_one(
    questlog: Questlog, host: str, port: int, threads: int, streams: int, *, auth: bool, views: bool
) -> None:
    """Serve with waitress in this process, the views runner in a thread beside it."""
    from waitress import serve as waitress_serve

    from projections.runners import ViewsWorker
    from webapi.app import create_app
    from webapi.routes.live import waitress_options
    from webapi.routes.views import WORKER_KEY, close_views

    app = create_app(questlog, auth=auth, max_streams=streams)
    worker = ViewsWorker(questlog.config, app=questlog).start() if views else None
    app.extensions[WORKER_KEY] = worker
    # SIGTERM ends waitress's loop like Ctrl-C, so the worker below is stopped cleanly; the open
    # live streams end first, or waitress would wait 5 s for the threads they hold (trial snag 20).
    signal.signal(signal.SIGTERM, lambda _signal, _frame: _stop(app.extensions))
    try:
        options = waitress_options(threads, streams)
        waitress_serve(app, host=host, port=port, ident="questlog", **options)
    finally:
        if worker is not None:
            worker.stop()
        close_views(app)


def _stop(extensions: dict[str, object]) -> None:
    """End the live streams, then waitress's loop (by SystemExit, as Ctrl-C would)."""
    from webapi.routes.live import LIVE_KEY, Live

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

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@main.group()
def token() -> None:
    """Create and revoke API tokens (stored only as hashes)."""


@token.command("create")
@click.option("--name", required=True, help="A unique name for the token (who holds it).")
@click.option("--admin", is_flag=True, help="An admin token: every route and campaign.")
def token_create(name: str, admin: bool) -> None:
    """Create a token and print its secret once."""
    questlog = open_store()
    try:
        made, secret = questlog.create_token(name, admin=admin)
    except InvalidInput as error:
        console.print(f"[red]{escape(error.message)}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
    kind = "admin token" if made.admin else "token"
    console.print(f"Created {kind} {escape(made.name)} (id {made.id}). Shown this once:")
    click.echo(secret)


@token.command("revoke")
@click.argument("name_or_id")
def token_revoke(name_or_id: str) -> None:
    """Revoke a token by name or id; it stops working at once."""
    questlog = open_store()
    try:
        revoked = questlog.revoke_token(name_or_id)
    except NotFound as error:
        console.print(f"[red]{escape(error.message)}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
    console.print(f"Revoked token {escape(revoked.name)} (id {revoked.id}).")


@main.group()
def key() -> None:
    """The service's signing keys: show the verifier keys, rotate the signing key."""


@key.command("show")
def key_show() -> None:
    """Print the log name and every verifier key (the current one last), with their dates."""
    questlog = open_store()
    try:
        ring = questlog.key_ring.current()
        where = questlog.key_ring.store.where
    finally:
        questlog.close()
    console.print(f"log name: {escape(ring.log_name)}")
    console.print(f"kept in:  {escape(where)}")
    for listed in ring.keys:
        state = f"retired {listed.retired}" if listed.retired else "current"
        console.print(f"{escape(listed.verifier.text)}  created {listed.created}, {state}")


@key.command("rotate")
def key_rotate() -> None:
    """Retire the current signing key and sign with a new one from now on (old keys stay listed,
    so their checkpoints still verify)."""
    questlog = open_store()
    try:
        ring = questlog.key_ring.rotate()
    finally:
        questlog.close()
    console.print(f"New signing key: {escape(ring.signer.verifier.text)}")
    console.print(f"{len(ring.keys) - 1} older key(s) stay listed (questlog key show).")


@main.command()
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


@main.command()
@click.argument("campaign_id", required=False)
@click.option("--head", help="A head_hash receipt that must still be in the chain.")
@click.option(
    "--checkpoint",
    "checkpoint_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A signed checkpoint (an answer's `checkpoint`, as text or the answer's JSON): its "
    "signature must verify and the chain must have its hash at its version.",
)
@click.option(
    "--key",
    "verifier_keys",
    multiple=True,
    help="A verifier key to check checkpoints with (repeatable); default: the keys the store "
    "lists, or for --bundle the bundle's own keys.",
)
@click.option(
    "--bundle",
    "bundle_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Verify this bundle (GET /campaigns/{id}/bundle) offline, without any store.",
)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Audit every campaign of the store (after a restore, say); one line each.",
)
def verify(
    campaign_id: str | None,
    head: str | None,
    checkpoint_file: str | None,
    verifier_keys: tuple[str, ...],
    bundle_file: str | None,
    every: bool,
) -> None:
    """Audit a campaign: the hash chain, every stored byte, every revealed roll, and with
    --checkpoint a signed checkpoint; with --all, every campaign; or, with --bundle, a
    downloaded bundle offline."""
    if sum((campaign_id is not None, bundle_file is not None, every)) > 1:
        raise click.UsageError("Give one of CAMPAIGN_ID, --all or --bundle FILE.")
    keys = parse_keys(verifier_keys)
    if bundle_file is not None:
        if checkpoint_file is not None:
            raise click.UsageError(
                "--checkpoint checks a store's campaign; a bundle's are its own."
            )
        verify_bundle(bundle_file, head, keys)
        return
    if every:
        if head is not None or checkpoint_file is not None:
            raise click.UsageError(
                "--head and --checkpoint name one campaign's receipt; they cannot go with --all."
            )
        verify_all()
        return
    if campaign_id is None:
        raise click.UsageError("Give a CAMPAIGN_ID, --all, or --bundle FILE.")
    try:
        cid = UUID(campaign_id)
    except ValueError:
        raise click.BadParameter("not a campaign id (a UUID)", param_hint="CAMPAIGN_ID") from None
    note = None if checkpoint_file is None else read_checkpoint(checkpoint_file)
    questlog = open_store()
    try:
        report = questlog.audit(cid).as_dict(receipt=head)
        verdict = None if note is None else questlog.check_checkpoint(cid, note, keys)
    except NotFound as error:
        console.print(f"[red]{error.message}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
    if verdict is not None:
        print_checkpoint_verdict(verdict)
        report = {**report, "ok": report["ok"] and verdict.ok}
    print_audit(cid, report)
    sys.exit(0 if report["ok"] else 1)


def parse_keys(texts: tuple[str, ...]) -> list[VerifierKey] | None:
    """The verifier keys given with --key (None if none were)."""
    if not texts:
        return None
    try:
        return [parse_verifier_key(text) for text in texts]
    except NoteError as error:
        raise click.BadParameter(str(error), param_hint="--key") from None


def read_checkpoint(path: str) -> str:
    """A checkpoint file's note: the file's text, or the ``checkpoint`` of a saved JSON answer."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        console.print(f"[red]{escape(path)}: {escape(str(error))}[/red]")
        sys.exit(2)
    if text.lstrip().startswith("{"):
        try:
            saved = json.loads(text)
        except ValueError:
            return text
        if isinstance(saved, dict) and isinstance(saved.get("checkpoint"), str):
            return str(saved["checkpoint"])
    return text


CHECKPOINT_LABELS = {
    "ok": "[green]OK[/green]",
    "malformed": "[red]MALFORMED[/red]",
    "unknown key": "[red]UNKNOWN KEY[/red]",
    "bad signature": "[red]FORGED (bad signature)[/red]",
    "another campaign": "[red]ANOTHER CAMPAIGN[/red]",
    "another log": "[red]ANOTHER LOG[/red]",
    "rewritten": "[red]REWRITTEN[/red]",
}


def print_checkpoint_verdict(verdict: CheckpointVerdict) -> None:
    """One line: the checkpoint's verdict and what it means."""
    label = CHECKPOINT_LABELS.get(verdict.verdict, verdict.verdict)
    console.print(f"checkpoint: {label}: {escape(verdict.message)}")


def verify_all() -> None:
    """Audit every campaign of the store, one line each; exit 1 if any fails."""
    questlog = open_store()
    failed = checked = 0
    try:
        after = 0
        while True:
            page, cursor = questlog.list_campaigns(after=after, limit=500)
            for _, created in page:
                report = questlog.audit(created.originator_id)
                checked += 1
                failed += not report.ok
                verdict = "[green]OK[/green]" if report.ok else "[red]FAILED[/red]"
                console.print(f"{created.originator_id}  version {report.head_version}  {verdict}")
            if cursor is None:
                break
            after = cursor
    finally:
        questlog.close()
    console.print(f"{checked} campaigns audited, {failed} failed.")
    sys.exit(1 if failed else 0)


def verify_bundle(path: str, head: str | None, keys: list[VerifierKey] | None = None) -> None:
    """Check a bundle file and print each roll's verdict and every problem; exit 1 on any."""
    from webapi import bundle

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        found = bundle.check(data, keys)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        console.print(f"[red]{escape(path)}: {escape(str(error))}[/red]")
        sys.exit(2)
    report = found.report
    console.print(f"Bundle of campaign {escape(str(data.get('campaign_id')))}")
    console.print(f"head: version {report.head_version}, hash {report.head_hash}")
    for verdict in report.verdicts:
        colour = {"verified": "green", "mismatch": "red"}.get(verdict["status"], "yellow")
        console.print(
            f"  version {verdict['version']:>5}  roll {escape(verdict['roll_id']):<10} "
            f"[{colour}]{verdict['status']}[/{colour}]"
        )
    counts = ", ".join(f"{n} {name}" for name, n in report.rolls.items())
    console.print(f"rolls: {counts}")
    receipt_ok = head is None or head in report.hashes
    if not receipt_ok:
        console.print(f"[red]receipt {escape(head or '')} is not in the chain[/red]")
    for problem in [*report.problems, *found.problems]:  # the checkpoints' verdicts follow
        where = "bundle" if problem["version"] is None else f"version {problem['version']}"
        console.print(f"[red]{where}: {escape(problem['problem'])}[/red]")
    for verdict in found.checkpoints:
        print_checkpoint_verdict(verdict)
    if found.keys_source == "bundle":
        console.print(
            "[yellow]checkpoints checked with the bundle's own keys: this shows the bundle is "
            "consistent with itself; give --key (the host's published key) to tie it to the "
            "host[/yellow]"
        )
    ok = found.ok and receipt_ok
    console.print("[green]OK[/green]" if ok else "[red]FAILED[/red]")
    sys.exit(0 if ok else 1)


@main.command("import")
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


def print_audit(campaign_id: UUID, report: dict[str, object]) -> None:
    """Print an audit report as a short table."""
    table = Table(title=f"Audit of campaign {campaign_id}", show_header=False)
    table.add_row("chain", "[green]intact[/green]" if report["chain_ok"] else "[red]BROKEN[/red]")
    table.add_row("first bad version", str(report["first_bad_version"]))
    nonces_ok = report.get("nonces_ok", True)
    table.add_row(
        "nonces",
        "[green]in sequence[/green]" if nonces_ok else "[red]MISSING OR OUT OF ORDER[/red]",
    )
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
    """What one event did, in words: its summary (``domain.model.summaries``, the line the API
    and the page show)."""
    return summarise_decoded(step.event)


@main.command()
@click.argument(
    "subject",
    metavar="GAME|rules|settings",
    type=click.Choice(["quest-calendar", "calendar-board", "rules", "settings"]),
)
@click.option(
    "--write",
    type=click.Path(dir_okay=False),
    help="Update the tables in this file (with `rules`: write the whole rule index to it; with "
    "`settings`: update the table of environment variables in it, README.md).",
)
def reference(subject: str, write: str | None) -> None:
    """Print (or update in a doc) the generated command and house-rule tables of a game, or,
    with `rules`, the rule index (docs/rules.md), or, with `settings`, the table of environment
    variables (README.md's Configuration)."""
    from pathlib import Path

    from webapi.doctools import reference as ref

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


@main.command()
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


@main.command("export")
@click.argument("name", type=click.Choice(["events", *sorted(EXPORTS)]))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="jsonl", show_default=True)
@click.option("--campaign", help="Only this campaign (its id).")
@click.option(
    "--output", type=click.Path(dir_okay=False, writable=True), help="File (default: stdout)."
)
def export(name: str, fmt: str, campaign: str | None, output: str | None) -> None:
    """Write a view (a view's table, by name) or the event log as CSV or JSON Lines."""
    from projections.store import open_view_store
    from projections.views import ALL_VIEWS

    cid = None
    if campaign is not None:
        try:
            cid = str(UUID(campaign))
        except ValueError:
            raise click.BadParameter(
                "not a campaign id (a UUID)", param_hint="--campaign"
            ) from None
    questlog = open_store()
    out = click.open_file(output or "-", "w", encoding="utf-8")
    try:
        if name == "events":
            count = export_events(questlog, fmt, out, campaign_id=cid)
            where = f"log head {questlog.recorder.max_notification_id() or 0}"
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
