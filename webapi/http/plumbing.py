"""Request plumbing shared by the views: the app handle, If-Match, Idempotency-Key, replies, and
events as every answer shows them (``summarised``, ``shown``, ``event_items``)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any
from uuid import UUID

import orjson
from flask import Response, current_app, g, request
from flask_smorest import Blueprint
from marshmallow import RAISE
from werkzeug.routing import BaseConverter, Rule, UUIDConverter

from domain.facade import (
    Campaign,
    CommandResult,
    EarlierResponse,
    Idempotency,
    InvalidInput,
    NotFound,
    Outcome,
    Questlog,
    Timeline,
    ascii_number,
    summarise,
)

QUERY_LOCATIONS = ("query", "querystring")


def refuse_unknown_query_parameters() -> None:
    """Make every route's query parameters strict: an undeclared one is a 422 that names it
    (webargs leaves them out by default, so a misspelt filter would answer with everything).

    flask-smorest's blueprints share one webargs parser, which reads this default per request.
    """
    parser = Blueprint.ARGUMENTS_PARSER
    defaults = dict(type(parser).DEFAULT_UNKNOWN_BY_LOCATION)
    defaults.update(dict.fromkeys(QUERY_LOCATIONS, RAISE))
    parser.DEFAULT_UNKNOWN_BY_LOCATION = defaults


MAX_IDEMPOTENCY_KEY = 200
IDEMPOTENCY_KEY = re.compile(rf"[\x20-\x7e]{{1,{MAX_IDEMPOTENCY_KEY}}}")
"""A key is printable ASCII (the characters of a structured-field string, RFC 8941)."""


def questlog() -> Questlog:
    """The application serving this request: the one way a route reaches a service (its own
    methods and the use cases it holds, ``questlog().time_travel``, ``.table``, ``.bundles``)."""
    app: Questlog = current_app.extensions["questlog"]
    return app


class CampaignIdConverter(UUIDConverter):
    """A campaign id in a path: a UUID, 36 characters with hyphens (any case), handed to the view
    as text. Another segment, such as ``import``, matches no campaign route: a static route
    beside them (``POST /campaigns/import``) answers its own methods alone, 405 for the rest."""

    def to_python(self, value: str) -> str:  # type: ignore[override]
        return value


class CampaignRule(Rule):
    """A URL rule whose ``<campaign>`` is a campaign id (``CampaignIdConverter``, which the
    document states as ``format: uuid``); the rule's text stays ``<campaign>``, as the metrics
    and the access log name routes."""

    def get_converter(
        self, variable_name: str, converter_name: str, args: tuple[Any, ...], kwargs: Any
    ) -> BaseConverter:
        """The campaign id converter for a plain ``<campaign>``, else what the rule names."""
        if variable_name == "campaign" and converter_name == "default" and not args and not kwargs:
            return CampaignIdConverter(self.map)
        return super().get_converter(variable_name, converter_name, args, kwargs)


def campaign_id(text: str) -> UUID:
    """Parse a campaign id from the path; anything but a UUID names no campaign."""
    try:
        return UUID(text)
    except ValueError:
        raise NotFound(f"{text!r} is not a campaign id (a UUID).") from None


def expected_version() -> int | None:
    """The version named by ``If-Match`` (an ETag such as "5"), if any."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    version = ascii_number(header.strip().removeprefix("W/").strip('"'))
    if version is None:
        raise InvalidInput.field("If-Match", 'must be an ETag of a version, such as "5"')
    return version


def idempotency() -> Idempotency | None:
    """The ``Idempotency-Key`` of this request, scoped to its route, with a body fingerprint."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not key.strip() or not IDEMPOTENCY_KEY.fullmatch(key):
        raise InvalidInput.field(
            "Idempotency-Key", f"must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters"
        )
    body: Any
    try:
        body = json.loads(request.get_data(cache=True) or b"null")
    except ValueError:
        body = request.get_data(cache=True).decode("utf-8", "replace")
    # The player's entropy is fingerprinted apart, so that a retry with other entropy is refused
    # by name (domain.service.commands_service.Idempotency).
    entropy = body.pop("entropy", None) if isinstance(body, dict) else None
    material = json.dumps(
        {"body": body, "if_match": request.headers.get("If-Match")},
        sort_keys=True,
        separators=(",", ":"),
    )
    caller = g.get("token")
    return Idempotency(
        scope=f"{request.method} {request.path}" + (f" {caller.id}" if caller else ""),
        key=key,
        fingerprint=hashlib.sha256(material.encode()).hexdigest(),
        entropy=None if entropy is None else hashlib.sha256(str(entropy).encode()).hexdigest(),
    )


Rendered = tuple[int, Any, dict[str, str]]
"""A response as a view renders a command's result: status, JSON body and headers."""
Render = Callable[[CommandResult], Rendered]


def appended(status: int, result: CommandResult, body: dict[str, Any]) -> Rendered:
    """An appending response: the body plus the new version and head hash (the receipt); ``reply``
    adds the signed checkpoint."""
    body = {**body, "version": result.version, "head_hash": result.head_hash}
    return status, body, {"ETag": f'"{result.version}"'}


def json_bytes(body: Any) -> bytes:
    """A JSON body as UTF-8 bytes: orjson (several times faster than ``json``), or ``json`` for
    what orjson does not take (an integer beyond 64 bits)."""
    try:
        return orjson.dumps(body)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(body).encode()


MINIMAL = "return=minimal"
"""The preference (RFC 7240) for an answer without the campaign's state."""


PREFERENCE = re.compile(
    r'\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,\s]*))?'
    r'(?:\s*;\s*[^;,"]*(?:"(?:[^"\\]|\\.)*")?)*\s*(?:,|$)'
)
"""One preference of a ``Prefer`` header (RFC 7240 section 2): a token, an optional value (a
token or a quoted string) and its parameters, up to the comma that ends it."""


def prefers_minimal() -> bool:
    """Whether the request's ``Prefer`` headers ask ``return=minimal`` (RFC 7240): the first
    ``return`` preference counts, a value may be quoted, parameters after ``;`` are ignored, and
    so is a header that does not parse."""
    for header in request.headers.getlist("Prefer"):
        position = 0
        while position < len(header):
            found = PREFERENCE.match(header, position)
            if found is None or found.end() == position:
                return False
            name, value = found.group(1), found.group(2) or ""
            if name.lower() == "return":
                return value.strip('"') == "minimal"
            position = found.end()
    return False


def reply(outcome: Outcome, render: Render, *, minimal: bool = False) -> Response:
    """Render a command's result, first answer or replay, into an HTTP response, with the
    signed checkpoint of its version and head hash (a replay gets the same checkpoint: the
    signature is deterministic, as long as the key has not been rotated since).

    A replay of a row stored by an earlier release (which kept the response itself) answers
    that response as it was stored. Where ``minimal`` may be asked (``Prefer: return=minimal``),
    an answer that asks it leaves the state out and says so (``Preference-Applied``); the answer
    varies with ``Prefer``.
    """
    if isinstance(outcome, EarlierResponse):
        stored = outcome.response
        status, body, headers = stored["status"], stored["body"], stored["headers"]
    else:
        status, body, headers = render(outcome)
        body = {
            **body,
            "checkpoint": questlog().reading.checkpoint(
                outcome.campaign_id, outcome.version, outcome.head_hash
            ),
        }
    applied = minimal and prefers_minimal()
    if applied:
        body = {key: value for key, value in body.items() if key != "state"}
    response = Response(json_bytes(body), status=status, mimetype="application/json")
    for name, value in headers.items():
        response.headers[name] = value
    if minimal:
        response.vary.add("Prefer")
    if applied:
        response.headers["Preference-Applied"] = MINIMAL
    if outcome.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def summarised(item: dict[str, Any]) -> dict[str, Any]:
    """An event as the API shows it, with its ``summary`` in words: computed from its data now,
    never stored and outside its hash (a bundle, a verification artefact, leaves it out)."""
    return {**item, "summary": summarise(item)}


def shown(record: dict[str, Any], timeline: Timeline) -> dict[str, Any]:
    """An event in the one shape the API shows events in (the event list, a command's answer, a
    replay step): the record (``Reading.event_records``) and whether a rollback undid it."""
    return timeline.marked(record)


def event_items(
    app: Questlog, cid: UUID, *, after: int = 0, limit: int | None = None
) -> tuple[Campaign, list[dict[str, Any]]]:
    """The campaign now and its events after a version, each as ``GET /events`` shows it (the
    stream and the bundle send exactly these items)."""
    return app.reading.shown_events(cid, after=after, limit=limit)
