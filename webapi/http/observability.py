"""What an operator reads: a request id on every answer and log record, an access log line per
request, and log records as text or as one JSON object per line (``--log-format``).

A request's id is the ``X-Request-Id`` the client (or a proxy in front) sent, when it is a sane
value, else a new one: so a client's report, a proxy's log and ours can be joined on it. Every log
record emitted while the request is handled carries it, through a filter on the handler.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import IO, Any

from flask import Flask, Response, g, has_request_context, request

from domain.facade import configure_logging as configure_process_logging

REQUEST_ID_HEADER = "X-Request-Id"
MAX_REQUEST_ID = 128
"""The longest incoming request id taken as it is (longer ones are replaced)."""
ACCESS_LOG = logging.getLogger("questlog.access")


def sane_request_id(value: str | None) -> str | None:
    """The incoming id if it may be echoed and logged as it is: printable ASCII, no spaces,
    1 to 128 characters. Anything else could forge log lines or blow up a log's size."""
    if not value or len(value) > MAX_REQUEST_ID:
        return None
    if not (value.isascii() and value.isprintable()) or " " in value:
        return None
    return value


def request_id() -> str | None:
    """The id of the request being handled, or None outside a request."""
    if not has_request_context():
        return None
    found: str | None = g.get("request_id")
    return found


def elapsed_seconds() -> float:
    """Seconds since this request began (0 if ``begin_request`` did not run)."""
    started: float | None = g.get("started")
    return 0.0 if started is None else time.perf_counter() - started


def begin_request() -> None:
    """Name the request and start its clock (registered first, so every request gets both)."""
    g.started = time.perf_counter()
    g.request_id = sane_request_id(request.headers.get(REQUEST_ID_HEADER)) or uuid.uuid4().hex


def finish_request(response: Response) -> Response:
    """Send the request id back and write the access log line."""
    rid = request_id()
    if rid is not None:
        response.headers[REQUEST_ID_HEADER] = rid
    ACCESS_LOG.info(
        "%s %s %s",
        request.method,
        request.path,
        response.status_code,
        extra={"access": access_fields(response)},
    )
    return response


def access_fields(response: Response) -> dict[str, Any]:
    """What the access log says of a request: never a secret, only the token's name."""
    token = g.get("token")
    rule = request.url_rule
    return {
        "method": request.method,
        "route": rule.rule if rule is not None else None,
        "path": request.path,
        "status": response.status_code,
        "duration_ms": round(elapsed_seconds() * 1000, 3),
        "request_id": request_id(),
        "token": getattr(token, "name", None),
        "remote_addr": request.remote_addr,
    }


def install(app: Flask) -> None:
    """Give every request an id and a clock, and every answer the id and an access log line.

    Install before anything that may answer early (the input limits, access control): Flask
    skips the later ``before_request`` functions once one answers.
    """
    app.before_request(begin_request)
    app.after_request(finish_request)


# -- log records ----------------------------------------------------------------------------------


class RequestIdFilter(logging.Filter):
    """Stamps each record with the id of the request it was emitted in (``-`` outside one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Add ``request_id``; never drops a record."""
        if not hasattr(record, "request_id"):
            record.request_id = request_id() or "-"
        return True


def configure_logging(log_format: str | None, stream: IO[str] | None = None) -> logging.Handler:
    """The process's logging (``domain.logs.configure_logging``, through the facade) with each
    record stamped with its request's id: called once by ``questlog serve``; calling it again
    replaces its handler (a test may)."""
    return configure_process_logging(log_format, stream, filters=[RequestIdFilter()])
