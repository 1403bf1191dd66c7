"""What every questlog command shares: the console and the store the environment names."""

from __future__ import annotations

import click
from rich.console import Console

from domain.facade import (
    NoteError,
    Questlog,
    StoreConfig,
    UpgradeBlocked,
    VerifierKey,
    parse_verifier_key,
)

console = Console(soft_wrap=True)


def open_store() -> Questlog:
    """Open the store named by the environment (QUESTLOG_DATABASE_URL or QUESTLOG_DB); a store
    whose upgrade a long transaction blocks is an error that says so, not a traceback."""
    try:
        return Questlog(StoreConfig.from_environ())
    except UpgradeBlocked as error:
        raise click.ClickException(f"the store was not upgraded: {error}") from None


def open_existing_store(
    hint: str = "set QUESTLOG_DB (or QUESTLOG_DATABASE_URL) to the store to read",
) -> Questlog:
    """Open the store the environment names for reading: a SQLite file that does not exist is
    an error naming it and saying what to do (a read would otherwise make an empty store and
    answer with nothing)."""
    config = StoreConfig.from_environ()
    path = config.sqlite_path
    if config.kind != "postgres" and path is not None and not path.exists():
        raise click.ClickException(f"no store at {path}: {hint}")
    return open_store()


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def parse_keys(texts: tuple[str, ...]) -> list[VerifierKey] | None:
    """The verifier keys given with --key (None if none were)."""
    if not texts:
        return None
    try:
        return [parse_verifier_key(text) for text in texts]
    except NoteError as error:
        raise click.BadParameter(str(error), param_hint="--key") from None
