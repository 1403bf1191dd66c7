"""Every environment variable Questlog reads, in one place.

``read()`` reads and checks all of them at once; every entry point (``questlog``, ``questlog
projections``, the app factory) calls it at start, so a bad value stops the process before it
serves anything, with an error naming the variable, what it accepts and the value it was given.
Nothing else in ``domain``, ``webapi`` or ``projections`` reads the environment.

README's Configuration table is generated from ``VARIABLES`` (``questlog reference settings``).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

from domain.model.signed_note import valid_name
from domain.model.text import ascii_number

LogFormat = Literal["text", "json"]


class SettingError(ValueError):
    """One or more environment variables hold a value Questlog does not accept."""


class Refused(ValueError):
    """A parser's refusal: what the variable accepts."""


def _text(raw: str) -> str:
    return raw


def _path(raw: str) -> Path:
    return Path(raw)


def _on_off(raw: str) -> bool:
    word = raw.lower()
    if word not in ("on", "off"):
        raise Refused("'on' or 'off'")
    return word == "on"


def _log_format(raw: str) -> LogFormat:
    word = raw.lower()
    if word == "text":
        return "text"
    if word == "json":
        return "json"
    raise Refused("'text' or 'json'")


def _postgres_url(raw: str) -> str:
    if not raw.startswith(("postgresql://", "postgres://")):
        raise Refused("a URL that starts with postgresql://")
    return raw


def _whole(least: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        value = ascii_number(raw)
        if value is None or value < least:
            raise Refused(f"a whole number of {least} or more")
        return value

    return parse


def _number(raw: str) -> float:
    """A decimal number, or NaN (which every range check refuses) for anything else."""
    try:
        return float(raw)
    except ValueError:
        return math.nan


def _seconds(raw: str) -> float:
    value = _number(raw)
    if not 0 < value <= 3600:
        raise Refused("a number of seconds in (0, 3600]")
    return value


def _rate(raw: str) -> float:
    value = _number(raw)
    if not (math.isfinite(value) and value >= 0):
        raise Refused("a number of appends per second, 0 or more (0 turns the limit off)")
    return value


def _token_ids(raw: str) -> frozenset[str]:
    return token_ids(raw.split(","))


def token_ids(parts: Iterable[str]) -> frozenset[str]:
    """Token ids from a list, each stripped of spaces, the empty ones left out."""
    return frozenset(part.strip() for part in parts if part.strip())


def _log_name(raw: str) -> str:
    if not valid_name(raw):
        raise Refused("a key name: printable, no spaces, no '+'")
    return raw


@dataclass(frozen=True)
class Variable:
    """One environment variable: its name, how the docs show its default, what it means there,
    its parser (stripped, non-empty text -> value, or ``Refused``), its value when unset, and the
    command-line flag that gives the same setting."""

    name: str
    shown_default: str
    meaning: str
    parse: Callable[[str], Any]
    unset: Any = None
    flag: str | None = None
    """The command-line flag that gives the same setting, if any."""

    def refusal(self, refused: Refused, raw: str) -> str:
        """The error for a refused value: the variable, what it accepts, the value given."""
        also = f" (the same setting as {self.flag})" if self.flag else ""
        return f"{self.name} must be {refused}, not {raw!r}{also}"


@dataclass(frozen=True)
class Settings:
    """The configuration the environment gives, parsed and checked (see ``VARIABLES``)."""

    db: Path | None
    database_url: str | None
    pg_schema: str | None
    views_db: Path | None
    views_lease_retry: float
    auth: bool
    rate_limit: float
    rate_limit_exempt: frozenset[str]
    max_streams: int
    prometheus_multiproc_dir: Path | None
    ready_max_lag: int
    log_format: LogFormat
    signing_key: Path | None
    log_name: str | None
    witness_policy: Path | None
    checkpoint_seconds: float
    witness_timeout: float

    @property
    def sqlite_file(self) -> Path:
        """The SQLite file of the store: ``QUESTLOG_DB``, else ``questlog.db`` here."""
        return self.db or Path(DEFAULT_DB)


DEFAULT_DB = "questlog.db"
DEFAULT_RATE_LIMIT = 50.0
DEFAULT_MAX_STREAMS = 64
DEFAULT_READY_MAX_LAG = 1000
DEFAULT_LEASE_RETRY = 1.0
DEFAULT_CHECKPOINT_SECONDS = 5.0
DEFAULT_WITNESS_TIMEOUT = 5.0

VARIABLES: dict[str, Variable] = {
    "db": Variable(
        "QUESTLOG_DB",
        f"`./{DEFAULT_DB}`",
        "the SQLite file (WAL mode; created safely by concurrent processes); `questlog demo` "
        "uses it if set, else `./questlog-demo.db`",
        _path,
    ),
    "database_url": Variable(
        "QUESTLOG_DATABASE_URL",
        "unset",
        "`postgresql://user:password@host:port/db`: store events in PostgreSQL instead",
        _postgres_url,
    ),
    "pg_schema": Variable(
        "QUESTLOG_PG_SCHEMA",
        "`public`",
        "the PostgreSQL schema to use (it must exist)",
        _text,
    ),
    "views_db": Variable(
        "QUESTLOG_VIEWS_DB",
        "beside `QUESTLOG_DB`, its name with `.views.db` for its extension (`questlog.views.db` "
        "for `questlog.db`)",
        "the SQLite file of the views (on PostgreSQL they are tables in the same schema)",
        _path,
    ),
    "views_lease_retry": Variable(
        "QUESTLOG_VIEWS_LEASE_RETRY",
        "`1`",
        "seconds between a views process's tries to take the lease of a view another process "
        "runs (each view is run by one process at a time; a process that waits takes over "
        "within about this long after the holder dies): "
        "[docs/projections.md](docs/projections.md#leases-one-process-per-view)",
        _seconds,
        DEFAULT_LEASE_RETRY,
    ),
    "auth": Variable(
        "QUESTLOG_AUTH",
        "`on`",
        "`on`: every request needs a bearer token; `off`: no tokens, refused unless `--host` is "
        "loopback (`127.0.0.1`, `::1`, `localhost`)",
        _on_off,
        True,
    ),
    "rate_limit": Variable(
        "QUESTLOG_RATE_LIMIT",
        "`50`",
        "appends (POSTs to a campaign) per second per token, with a burst of as many; over it: "
        "429 with `Retry-After`; `0` turns it off. On PostgreSQL the buckets are kept in the "
        "store, so every worker counts against one limit",
        _rate,
        DEFAULT_RATE_LIMIT,
    ),
    "rate_limit_exempt": Variable(
        "QUESTLOG_RATE_LIMIT_EXEMPT",
        "unset",
        "token ids, separated by commas, that the rate limit does not count (the benchmark sets "
        "it for the one token it creates, so that its load is delivered); `questlog serve` "
        "prints them when set",
        _token_ids,
        frozenset(),
    ),
    "max_streams": Variable(
        "QUESTLOG_MAX_STREAMS",
        f"`{DEFAULT_MAX_STREAMS}`",
        "live streams (`GET /campaigns/{id}/stream`) open at once per process; one more is a "
        "503; `questlog serve` runs `--threads` plus this many waitress threads, so open streams "
        "never take the threads that serve commands",
        _whole(1),
        DEFAULT_MAX_STREAMS,
        "--max-streams",
    ),
    "prometheus_multiproc_dir": Variable(
        "PROMETHEUS_MULTIPROC_DIR",
        "unset",
        "with `questlog serve --workers N` (N > 1): the directory where the workers keep their "
        "metrics (prometheus_client's multiprocess mode); unset, a temporary one is made and "
        "removed at exit",
        _path,
    ),
    "ready_max_lag": Variable(
        "QUESTLOG_READY_MAX_LAG",
        f"`{DEFAULT_READY_MAX_LAG}`",
        "events a view may be behind the log's head and `GET /readyz` still answer ready",
        _whole(0),
        DEFAULT_READY_MAX_LAG,
    ),
    "log_format": Variable(
        "QUESTLOG_LOG_FORMAT",
        "`text`",
        "`json`: every log record and one access line per request as one JSON object per line "
        "on stderr (as `serve --log-format json`; `projections run` too), each with the "
        "request's `X-Request-Id`",
        _log_format,
        "text",
        "--log-format",
    ),
    "signing_key": Variable(
        "QUESTLOG_SIGNING_KEY",
        "`<db>.keys.json` beside `QUESTLOG_DB`; on PostgreSQL the table `questlog_signing_keys`",
        "the file of the service's Ed25519 signing keys (mode 0600); `questlog key show`, "
        "`questlog key rotate`: [docs/trust.md](docs/trust.md#key-storage-and-rotation)",
        _path,
    ),
    "log_name": Variable(
        "QUESTLOG_LOG_NAME",
        "`questlog-<8 random hex digits>`",
        "the log's name, fixed when the signing keys are made: the first line of every checkpoint",
        _log_name,
    ),
    "witness_policy": Variable(
        "QUESTLOG_WITNESS_POLICY",
        "unset",
        "a C2SP tlog-policy file: the witnesses (with a URL) each new checkpoint of the host's "
        "log is submitted to, and the policy served at `GET /log/policy`; unset: no witnesses",
        _path,
    ),
    "checkpoint_seconds": Variable(
        "QUESTLOG_CHECKPOINT_SECONDS",
        "`5`",
        "how often `questlog serve` adds the new events to the host's Merkle log and, when it "
        "grew, signs a checkpoint and submits it to the witnesses",
        _seconds,
        DEFAULT_CHECKPOINT_SECONDS,
    ),
    "witness_timeout": Variable(
        "QUESTLOG_WITNESS_TIMEOUT",
        "`5`",
        "seconds a witness has to answer a checkpoint's submission (a slower one is shown as "
        "down; it never holds up a command or a read)",
        _seconds,
        DEFAULT_WITNESS_TIMEOUT,
    ),
}
"""Settings field -> its variable, in the order the docs list them."""

assert list(VARIABLES) == [f.name for f in fields(Settings)], "VARIABLES follows Settings"


def read(environ: Mapping[str, str] | None = None) -> Settings:
    """Every setting from ``environ`` (default: the process's environment); a variable that is
    unset or blank takes its default. ``SettingError`` names every variable that is refused."""
    source = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    problems: list[str] = []
    for field_name, variable in VARIABLES.items():
        raw = source.get(variable.name, "")
        if not raw.strip():
            values[field_name] = variable.unset
            continue
        try:
            values[field_name] = variable.parse(raw.strip())
        except Refused as refused:
            problems.append(variable.refusal(refused, raw))
    if problems:
        raise SettingError("; ".join(problems))
    return Settings(**values)


def parse(field_name: str, raw: str) -> Any:
    """A value given another way (a command-line flag, an argument) for the setting
    ``field_name``, checked as its variable is; ``SettingError`` if refused."""
    variable = VARIABLES[field_name]
    try:
        return variable.parse(raw.strip())
    except Refused as refused:
        raise SettingError(variable.refusal(refused, raw)) from None


def markdown_table() -> str:
    """README's Configuration table: every variable, its default and its meaning."""
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for variable in VARIABLES.values():
        lines.append(f"| `{variable.name}` | {variable.shown_default} | {variable.meaning} |")
    return "\n".join(lines) + "\n"
