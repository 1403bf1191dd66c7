"""``questlog token ...`` and ``questlog key ...``: API tokens and the service's signing keys."""

from __future__ import annotations

import sys

import click
from rich.markup import escape

from domain.facade import TOKEN_ROLES, InvalidInput, NotFound
from webapi.cli.common import console, open_existing_store, open_store


@click.group()
def token() -> None:
    """Create and revoke API tokens (stored only as hashes)."""


@token.command("create")
@click.option("--name", required=True, help="A unique name for the token (who holds it).")
@click.option("--admin", is_flag=True, help="An admin token: every route and campaign.")
@click.option(
    "--role",
    type=click.Choice(TOKEN_ROLES),
    help="A role across every campaign: admin (as --admin), or analyst (reads every campaign "
    "and the analytics, /analytics/sql among them; may not play, reveal seeds or manage).",
)
def token_create(name: str, admin: bool, role: str | None) -> None:
    """Create a token and print its secret once."""
    questlog = open_store()
    try:
        made, secret = questlog.access.create_token(name, admin=admin, role=role)
    except InvalidInput as error:
        console.print(f"[red]{escape(error.message)}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
    kind = "admin token" if made.admin else "analyst token" if made.analyst else "token"
    console.print(f"Created {kind} {escape(made.name)} (id {made.id}). Shown this once:")
    click.echo(secret)


@token.command("revoke")
@click.argument("name_or_id")
def token_revoke(name_or_id: str) -> None:
    """Revoke a token by name or id; it stops working at once."""
    questlog = open_store()
    try:
        revoked = questlog.access.revoke_token(name_or_id)
    except NotFound as error:
        console.print(f"[red]{escape(error.message)}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
    console.print(f"Revoked token {escape(revoked.name)} (id {revoked.id}).")


@click.group()
def key() -> None:
    """The service's signing keys: show the verifier keys, rotate the signing key."""


@key.command("show")
@click.option(
    "--vkey",
    "vkey_only",
    is_flag=True,
    help="Print only the current verifier key, one line, for scripts "
    '(--log "$(questlog key show --vkey)"); the store must exist.',
)
def key_show(vkey_only: bool) -> None:
    """Print the log name and every verifier key (the current one last), with their dates."""
    if vkey_only:
        _current_vkey()
        return
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


def _current_vkey() -> None:
    """The current verifier key alone, as plain text (never wrapped): a store that does not
    exist is an error, not a new store with a new key that never signed anything."""
    questlog = open_existing_store(
        "set QUESTLOG_DB (or QUESTLOG_DATABASE_URL) to the store, or make it and its keys first "
        "(`questlog key show`, or a first `questlog serve`)"
    )
    try:
        vkey = questlog.key_ring.current().signer.verifier.text
    finally:
        questlog.close()
    click.echo(vkey)


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
