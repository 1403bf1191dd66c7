"""Logging for every Questlog process: log records as text lines or as one JSON object per line,
the last words of a process as a log record, and a throttle on repeated tracebacks.

Each process installs the handler here once at its start: the views process (``questlog
projections run``) as it is, the API (``questlog serve``) through ``webapi.http.observability``,
which stamps each record with its request's id. The outer layers reach it through
``domain.facade``. The format is chosen by ``--log-format`` or ``QUESTLOG_LOG_FORMAT`` (``text``,
the default, or ``json``); docs/operations.md, "Logs", shows both.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import IO, Any

from domain import settings

LOG_FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
HANDLER_NAME = "questlog"
"""The name of the handler ``configure_logging`` installs (it replaces its own, never others)."""


def log_format_setting(value: str | None) -> str:
    """``text`` or ``json``: the argument, else QUESTLOG_LOG_FORMAT, else text."""
    chosen: str = settings.parse("log_format", value) if value else settings.read().log_format
    return chosen


class NoRequestId(logging.Filter):
    """Gives a record outside any request the request id ``-``; never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Add ``request_id`` where the record has none."""
        if not hasattr(record, "request_id"):
            record.request_id = "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line: time, level, logger, message, request id, the
    access fields of an access line, and the traceback of an error."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        body: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": rid if (rid := getattr(record, "request_id", "-")) != "-" else None,
        }
        access = getattr(record, "access", None)
        if isinstance(access, dict):
            body.update(access)
        if record.exc_info:
            body["traceback"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(body, default=str)


def configure_logging(
    log_format: str | None,
    stream: IO[str] | None = None,
    filters: Iterable[logging.Filter] = (),
) -> logging.Handler:
    """Send every log record at INFO and above to ``stream`` (stderr) in the chosen format;
    ``ValueError`` names a bad QUESTLOG_LOG_FORMAT.

    Called once by a process; calling it again replaces its handler (a test may).
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(HANDLER_NAME)
    for added in (*filters, NoRequestId()):
        handler.addFilter(added)
    if log_format_setting(log_format) == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return handler


def log_uncaught_errors() -> None:
    """Make a process's last words (an error nothing caught, in the main thread or another) a
    log record with its traceback rather than a bare traceback on stderr: what a process that
    logs JSON calls once, after ``configure_logging``."""
    sys.excepthook = log_uncaught
    threading.excepthook = log_uncaught_in_thread


def log_uncaught(kind: type[BaseException], error: BaseException, trace: Any) -> None:
    """``sys.excepthook`` with JSON logs: the error as a CRITICAL record with its traceback."""
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, trace)
        return
    logging.getLogger("questlog").critical(
        "stopped by an error: %s", error, exc_info=(kind, error, trace)
    )


def log_uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    """``threading.excepthook`` with JSON logs: a thread's uncaught error as an ERROR record."""
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    name = args.thread.name if args.thread is not None else "?"
    logging.getLogger("questlog").error(
        "thread %s stopped by an error: %s",
        name,
        args.exc_value,
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
    )


def is_json(handler: logging.Handler) -> bool:
    """Whether ``handler`` writes JSON lines."""
    return isinstance(handler.formatter, JsonFormatter)


class TracebackThrottle:
    """Whether an unexpected error's traceback may be logged now: once per type per interval,
    so that a storm of failures logs a line each, not a traceback each."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.clock = clock
        self.logged: dict[type[BaseException], float] = {}
        self.lock = threading.Lock()

    def allows(self, error: BaseException) -> bool:
        """True (and the interval starts again) if no traceback of this type was logged lately."""
        now = self.clock()
        with self.lock:
            last = self.logged.get(type(error))
            if last is not None and now - last < self.interval:
                return False
            self.logged[type(error)] = now
            return True
