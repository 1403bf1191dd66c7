"""What every questlog command shares: the console and the store the environment names."""

from __future__ import annotations

from rich.console import Console

from domain.facade import Questlog, StoreConfig

console = Console(soft_wrap=True)


def open_store() -> Questlog:
    """Open the store named by the environment (QUESTLOG_DATABASE_URL or QUESTLOG_DB)."""
    return Questlog(StoreConfig.from_environ())


LOOPBACK = ("127.0.0.1", "::1", "localhost")
