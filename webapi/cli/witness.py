"""``questlog witness init`` and ``questlog witness serve``: a C2SP tlog-witness anyone can run.

The witness keeps its state in one SQLite file: its Ed25519 key, the logs it follows (added
with ``--log``, never removed) and the latest checkpoint it cosigned for each.
"""

from __future__ import annotations

import socket

import click
from rich.markup import escape

from domain.facade import (
    NoteError,
    StateError,
    Witness,
    WitnessState,
    new_witness_key,
    parse_log_keys,
    valid_name,
)
from webapi.cli.common import console


@click.group()
def witness() -> None:
    """Run a witness: it cosigns a log's checkpoints only while the log stays append-only."""


@witness.command("init")
@click.option(
    "--state",
    "state_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="The witness's state file to make (SQLite); it must not hold a key yet.",
)
@click.option(
    "--name", required=True, help="The witness's name, e.g. witness.example.org/w1 (its key name)."
)
def init(state_file: str, name: str) -> None:
    """Make the witness's Ed25519 key and print its cosigner key (vkey) for policies."""
    if not valid_name(name):
        raise click.BadParameter(
            f"{name!r} is not a key name (no spaces, no '+', at most 200 characters)",
            param_hint="--name",
        )
    try:
        state = WitnessState(state_file, create=True)
        key = new_witness_key(state, name)
    except (StateError, NoteError) as error:
        raise click.ClickException(str(error)) from None
    console.print(f"witness {escape(name)}: its key is in {escape(state_file)}; its vkey:")
    click.echo(key.text)


@witness.command("serve")
@click.option(
    "--state",
    "state_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="The state file `witness init` made.",
)
@click.option(
    "--log",
    "log_keys",
    multiple=True,
    help="A log's verifier key (vkey; its name is the log's origin) to follow from "
    "now on (repeatable; the state keeps every log it was given).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8100, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--threads",
    default=4,
    show_default=True,
    type=click.IntRange(min=1),
    help="Worker threads for requests.",
)
def serve(state_file: str, log_keys: tuple[str, ...], host: str, port: int, threads: int) -> None:
    """Serve add-checkpoint (POST /add-checkpoint) and GET /<origin hash>/checkpoint."""
    from waitress import serve as waitress_serve

    from webapi.http.witness import create_witness_app

    try:
        logs = parse_log_keys(log_keys)
    except NoteError as error:
        raise click.BadParameter(str(error), param_hint="--log") from None
    try:
        state = WitnessState(state_file)
        state.add_logs([(key.text, key.name) for key in logs])
        service = Witness(state)
    except StateError as error:
        raise click.ClickException(str(error)) from None
    if not service.logs:
        raise click.UsageError("the witness follows no log yet: give --log VKEY")
    if not port_free(host, port):
        raise click.ClickException(f"port {port} on {host} is in use")
    console.print(f"witness {escape(service.key.name)}: {escape(service.key.text)}")
    for origin, keys in service.logs.items():
        console.print(f"  follows {escape(origin)} ({len(keys)} key(s))")
    console.print(f"  listening on http://{host}:{port}/add-checkpoint")
    waitress_serve(
        create_witness_app(service), host=host, port=port, threads=threads, ident="questlog-witness"
    )


def port_free(host: str, port: int) -> bool:
    """Whether ``host:port`` can be listened on (as waitress will: with SO_REUSEADDR, so only a
    socket listening there already makes it fail)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return True  # (waitress says what is wrong with the address)
    family, kind, _, _, address = infos[0]
    with socket.socket(family, kind) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError:
            return False
    return True
