"""The one place errors become HTTP: every error is application/problem+json (RFC 9457)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, json, request
from werkzeug.exceptions import HTTPException

from domain.facade import (
    TRANSIENT_ERRORS,
    ConcurrencyConflict,
    InvalidInput,
    NotFound,
    NotHeld,
    NotLoggedYet,
    QuestlogError,
    RuleViolation,
    StaleVersion,
    StoreUnavailable,
    TokenRefused,
    TracebackThrottle,
    unavailable,
)
from projections.sql import SqlFailed, SqlRefused, SqlTimedOut
from webapi.http.declared import declared_access

PROBLEM_JSON = "application/problem+json"
"""Routes that write outside a campaign's log (with ``/campaigns/{id}/members``)."""
MAX_INSTANCE = 200
"""The most characters of the request path a problem's ``instance`` echoes."""
TRACEBACK_INTERVAL = 10.0
"""Seconds between two logged tracebacks of one type of unexpected error."""
TRACEBACKS_KEY = "questlog_tracebacks"
log = logging.getLogger("questlog.api")


class TooManyStreams(Exception):
    """As many live streams are open in this process as it allows (QUESTLOG_MAX_STREAMS)."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"{cap} live streams are open, the most this server allows")
        self.cap = cap


STREAM_RETRY_AFTER = 5
"""Seconds a client refused a stream waits before it asks again."""


@dataclass(frozen=True)
class ProblemType:
    """A kind of problem the server sends: its ``type`` is ``urn:questlog:problem:<slug>``."""

    slug: str
    status: int
    meaning: str
    fields: tuple[str, ...] = ()
    """The members it carries besides type, title, status, detail and instance."""


PROBLEM_TYPES = (
    ProblemType("bad-request", 400, "the body is not JSON (not UTF-8, a byte order mark, NaN)"),
    ProblemType("sql-refused", 400, "a query that is not one SELECT over the Questlog tables"),
    ProblemType("sql-failed", 400, "a query the database could not run"),
    ProblemType("unauthorized", 401, "no token, or one that is unknown, revoked or expired"),
    ProblemType("forbidden", 403, "the token may not do this"),
    ProblemType("not-found", 404, "no such campaign, roll, token, route..."),
    ProblemType("method-not-allowed", 405, "the path takes other methods (see `Allow`)"),
    ProblemType(
        "rule-violation",
        409,
        "a game rule forbids the command now",
        ("rule", "pending", "also"),
    ),
    ProblemType(
        "not-held",
        409,
        "the request names what the campaign does not hold now (a player, item or ability; a "
        "version past the head; a name already taken; a command, house rule or range of the "
        "other game; faces that do not fit the dice a command draws now); rule `known-names`",
        ("rule", "errors"),
    ),
    ProblemType("concurrent-update", 409, "another command was stored first; retry"),
    ProblemType(
        "not-logged-yet",
        409,
        "no signed checkpoint of the host's log holds an event of the campaign yet; see "
        "`Retry-After`",
    ),
    ProblemType(
        "stale-version",
        412,
        "`If-Match` names a version the campaign has moved past",
        ("expected_version", "current_version"),
    ),
    ProblemType("request-entity-too-large", 413, "the body is larger than the route takes"),
    ProblemType("unsupported-media-type", 415, "the body is not sent as application/json (UTF-8)"),
    ProblemType("invalid-input", 422, "a field is wrong; `errors` names each", ("errors",)),
    ProblemType("rate-limited", 429, "too many appends; see `Retry-After`"),
    ProblemType("internal", 500, "the server failed; nothing was stored"),
    ProblemType(
        "store-unavailable",
        503,
        "the store did not answer; see `Retry-After`",
        ("stored",),
    ),
    ProblemType(
        "too-many-streams", 503, "every live stream slot is taken", ("limit", "max_streams")
    ),
    ProblemType("sql-timeout", 503, "a query ran out of time"),
    ProblemType(
        "not-ready",
        503,
        "the readiness probe: the store or a view is behind",
        ("lagging", "max_lag"),
    ),
    ProblemType("disk-full", 507, "the store's disk is full; see `Retry-After`", ("stored",)),
)
"""Every problem the server sends, with the members each adds; the OpenAPI document lists them
(``webapi.schemas.openapi``) and ``problem`` refuses a slug that is not here."""
SLUGS = {kind.slug: kind for kind in PROBLEM_TYPES}
WERKZEUG_SLUGS = {422: "invalid-input", 413: "request-entity-too-large"}
"""HTTP errors raised outside the domain whose slug is not their reason phrase's: webargs' 422 is
the same invalid-input problem as the domain's."""


def problem(
    status: int,
    title: str,
    detail: str,
    *,
    slug: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    """A problem+json response, of one of ``PROBLEM_TYPES``."""
    if slug not in SLUGS:
        raise ValueError(f"unlisted problem type {slug!r}: add it to PROBLEM_TYPES")
    body = {
        "type": f"urn:questlog:problem:{slug}",
        "title": title,
        "status": status,
        "detail": detail,
        "instance": instance(),
        **extra,
    }
    response = Response(json.dumps(body), status=status, mimetype=PROBLEM_JSON)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def instance() -> str:
    """The request's path as a problem names it, cut short with '…' beyond MAX_INSTANCE."""
    path = request.path
    return path if len(path) <= MAX_INSTANCE else path[: MAX_INSTANCE - 1] + "…"


def domain_problem(error: QuestlogError) -> Response:
    """Map a domain error to its status: 401 (a cached token found revoked), 404, 409 (with the
    rule), 412 or 422."""
    if isinstance(error, NotFound):
        return problem(404, "Not found", error.message, slug="not-found")
    if isinstance(error, NotHeld):
        return problem(
            409,
            "Not held by the campaign",
            error.reason,
            slug="not-held",
            rule=error.rule_id,
            errors=error.errors,
        )
    if isinstance(error, RuleViolation):
        extra: dict[str, Any] = {}
        if error.pending is not None:
            extra["pending"] = error.pending
        if error.also is not None:
            extra["also"] = error.also
        return problem(
            409,
            "Forbidden by a game rule",
            error.reason,
            slug="rule-violation",
            rule=error.rule_id,
            **extra,
        )
    if isinstance(error, StaleVersion):
        return problem(
            412,
            "Stale version",
            error.message,
            slug="stale-version",
            headers={"ETag": f'"{error.actual}"'},
            expected_version=error.expected,
            current_version=error.actual,
        )
    if isinstance(error, InvalidInput):
        return problem(
            422, "Invalid input", error.message, slug="invalid-input", errors=error.errors
        )
    if isinstance(error, ConcurrencyConflict):
        return problem(409, "Concurrent update", error.message, slug="concurrent-update")
    if isinstance(error, NotLoggedYet):
        wait = {"Retry-After": str(max(1, error.retry_after))}
        return problem(
            409, "Not in a checkpoint yet", error.message, slug="not-logged-yet", headers=wait
        )
    if isinstance(error, StoreUnavailable):
        return store_problem(error)
    if isinstance(error, TokenRefused):
        challenge = {"WWW-Authenticate": 'Bearer realm="questlog"'}
        return problem(401, "Unauthorized", error.message, slug="unauthorized", headers=challenge)
    return problem(400, "Bad request", error.message, slug="bad-request")


def store_problem(error: StoreUnavailable) -> Response:
    """503 (507 for a full disk) with ``Retry-After`` and whether the command was stored."""
    log.warning("store unavailable on %s %s: %s", request.method, request.path, error.message)
    if error.disk_full:
        status, title, slug = 507, "Insufficient storage", "disk-full"
    else:
        status, title, slug = 503, "Store unavailable", "store-unavailable"
    return problem(
        status,
        title,
        error.message,
        slug=slug,
        headers={"Retry-After": str(error.retry_after)},
        stored=error.stored,
    )


def transient_problem(error: Exception) -> Response:
    """A store failure outside a command: retryable.

    Commands answer their own 503 (``Questlog.execute`` knows whether anything was written). A
    failure that reaches here came before any write (authentication, a read), so nothing was
    stored, except on the few routes that write outside the campaign log (tokens, members),
    where the write itself may have been cut short.
    """
    reading = request.method in ("GET", "HEAD", "OPTIONS")
    declared = declared_access(request.endpoint, request.method)
    side_write = declared is not None and not declared.appends
    if side_write and not reading:
        return store_problem(unavailable(error, stored=None))
    return store_problem(unavailable(error, stored=False))


def streams_problem(error: TooManyStreams) -> Response:
    """503: every stream slot is taken; the commands and reads still work."""
    return problem(
        503,
        "Too many streams",
        f"{error.cap} live streams are open, the most this server allows "
        "(QUESTLOG_MAX_STREAMS); retry later, or read GET /campaigns/{id}/events?after=N.",
        slug="too-many-streams",
        headers={"Retry-After": str(STREAM_RETRY_AFTER)},
        limit="QUESTLOG_MAX_STREAMS",
        max_streams=error.cap,
    )


def sql_problem(error: SqlRefused | SqlFailed | SqlTimedOut) -> Response:
    """400: a query refused (not one SELECT over the Questlog tables) or failed, and why; 503: a
    query stopped when its time was up."""
    if isinstance(error, SqlTimedOut):
        return problem(503, "Query timed out", error.message, slug="sql-timeout")
    if isinstance(error, SqlRefused):
        return problem(400, "Query refused", error.message, slug="sql-refused")
    return problem(400, "Query failed", error.message, slug="sql-failed")


def http_problem(error: HTTPException) -> Response:
    """Map a werkzeug/webargs HTTP error, keeping webargs' per-field messages."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    extra: dict[str, Any] = {}
    detail = error.description or ""
    if messages:
        # webargs nests messages by location ("json", "query", ...): flatten to field names.
        errors: dict[str, list[str]] = {}
        for location, fields in messages.items():
            if isinstance(fields, dict):
                # a repeated query parameter is named once, a body's list item by its index
                errors.update(flat_messages(fields, indexed=location != "query"))
            else:
                errors[location] = [str(message) for message in fields]
        extra["errors"] = errors
        detail = "Invalid input: " + ", ".join(sorted(errors))
    if status == 400 and "json" in extra.get("errors", {}):
        detail = "The request body is not valid JSON."
    if status == 413:
        limit = request.max_content_length
        detail = "The request body is larger than this service accepts" + (
            f" ({limit} bytes)." if limit else "."
        )
    slug = WERKZEUG_SLUGS.get(status) or (error.name or "error").lower().replace(" ", "-")
    title = "Invalid input" if slug == "invalid-input" else error.name or "Error"
    if slug not in SLUGS:
        slug, title = ("bad-request", "Bad request") if status < 500 else ("internal", title)
    # The error's own headers stay (a 405's Allow); the body is a problem, whatever it said.
    headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
    return problem(status, title, detail, slug=slug, headers=headers, **extra)


def flat_messages(
    messages: dict[Any, Any], prefix: str = "", *, indexed: bool = True
) -> dict[str, list[str]]:
    """Marshmallow's nested messages as field paths, as the domain names them: a list's item
    ``name[n]`` (or ``name`` itself, not ``indexed``), an object's member ``name.key``; each
    path maps to its list of messages."""
    flat: dict[str, list[str]] = {}
    for key, found in messages.items():
        if isinstance(key, int):
            path = f"{prefix}[{key}]" if indexed else prefix
        elif key == "_schema" and prefix:
            path = prefix
        else:
            path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(found, dict):
            for inner, said in flat_messages(found, path, indexed=indexed).items():
                flat.setdefault(inner, []).extend(said)
        else:
            flat.setdefault(path, []).extend(str(message) for message in found)
    return flat


def register(app: Flask) -> None:
    """Install the handlers on the Flask app."""
    app.register_error_handler(QuestlogError, domain_problem)
    app.register_error_handler(HTTPException, http_problem)
    app.register_error_handler(TooManyStreams, streams_problem)
    for refusal in (SqlRefused, SqlFailed, SqlTimedOut):
        app.register_error_handler(refusal, sql_problem)
    for transient in TRANSIENT_ERRORS:
        app.register_error_handler(transient, transient_problem)
    throttle = app.extensions[TRACEBACKS_KEY] = TracebackThrottle(TRACEBACK_INTERVAL)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Response:
        log.error(
            "unhandled %s on %s %s: %.300s",
            type(error).__name__,
            request.method,
            instance(),
            error,
            exc_info=throttle.allows(error),
        )
        return problem(
            500, "Internal error", "The server failed; nothing was stored.", slug="internal"
        )
