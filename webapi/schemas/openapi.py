"""The OpenAPI document's error responses: each is ``application/problem+json`` (``Problem``), and
each operation lists the statuses it can answer, decided here from its path, method and inputs
by the rules the routes follow (``webapi.http.access``, ``webapi.http.limits``), not view by view.

Also the field shapes client generators need (``object_default_in_words``, ``object_before_null``;
docs/api-clients.md): the document stays true to what the server does, in a form that
openapi-python-client and openapi-typescript take whole.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from apispec import APISpec, BasePlugin
from flask import Flask
from marshmallow import Schema, fields
from werkzeug.routing import Rule

from webapi.http.declared import Access, declared_access
from webapi.http.errors import PROBLEM_JSON, PROBLEM_TYPES, ProblemType

DEFAULT_STATUSES = (HTTPStatus.METHOD_NOT_ALLOWED, HTTPStatus.INTERNAL_SERVER_ERROR)
"""The statuses no operation lists, whose problems the ``default`` response describes: any
path answers a method it does not take with 405, and a bug with 500."""
EVERYWHERE = (HTTPStatus.UNAUTHORIZED, HTTPStatus.SERVICE_UNAVAILABLE)
"""What any operation can answer: no valid token; the store is unavailable."""


def problem_statuses(
    path: str, method: str, operation: dict[str, Any], declared: Access | None
) -> set[HTTPStatus]:
    """The error statuses an operation can answer besides a generic 500, from its path, its
    inputs and the access its route declares (``webapi.http.declared.requires``)."""
    appends = declared is not None and declared.appends
    statuses = set(EVERYWHERE)
    if declared is not None and declared.action == "public":
        statuses.discard(HTTPStatus.UNAUTHORIZED)  # no token is asked for
    if "{campaign}" in path or (
        declared is not None and declared.action in ("admin", "analyse", "contribute")
    ):
        statuses.add(HTTPStatus.FORBIDDEN)
    if "{" in path:
        statuses.add(HTTPStatus.NOT_FOUND)
    if appends:
        statuses |= {HTTPStatus.CONFLICT, HTTPStatus.TOO_MANY_REQUESTS}
    if method.lower() in ("post", "put", "patch", "delete"):
        statuses.add(HTTPStatus.INSUFFICIENT_STORAGE)  # a write on a full disk
    parameters = operation.get("parameters", [])
    if any(p.get("in") == "header" and p.get("name") == "If-Match" for p in parameters):
        statuses.add(HTTPStatus.PRECONDITION_FAILED)
    if "requestBody" in operation:
        statuses |= {
            HTTPStatus.BAD_REQUEST,  # a body that is not JSON
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            HTTPStatus.UNSUPPORTED_MEDIA_TYPE,  # a body not sent as application/json
            HTTPStatus.UNPROCESSABLE_ENTITY,
        }
    if any(p.get("in") != "path" for p in parameters):
        statuses.add(HTTPStatus.UNPROCESSABLE_ENTITY)
    if "requestBody" in operation or any(p.get("in") == "query" for p in parameters):
        # not-held: the input names what the store does not hold now (a version, a name)
        statuses.add(HTTPStatus.CONFLICT)
    return statuses


class ProblemResponses(BasePlugin):
    """An apispec plugin: adds each operation's problem responses as it is registered."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def operation_helper(
        self,
        path: str | None = None,
        operations: dict[str, Any] | None = None,
        rule: Rule | None = None,
        **_: Any,
    ) -> None:
        """List the problems of every operation of a path (the components they refer to are
        registered by ``register_problem_responses``); the route's declared access tells whether
        it appends."""
        for method, operation in (operations or {}).items():
            declared = declared_access(rule.endpoint if rule else None, method, self.app)
            responses = operation.setdefault("responses", {})
            for status in problem_statuses(path or "", method, operation, declared):
                responses.setdefault(str(status.value), status.name)
            operation["responses"] = dict(sorted(responses.items(), key=by_status))


class RefusedShapes(BasePlugin):
    """An apispec plugin: a body schema's ``refused_shapes`` (what its checks of fields together
    refuse, each a JSON Schema the body must not match) become its component's ``not``, as the
    commands' do: client generators build their models from the properties and leave a ``not``
    alone, where a union would change the model."""

    def schema_helper(
        self, name: str, definition: dict[str, Any], **kwargs: Any
    ) -> dict[str, Any] | None:
        """The component's ``not``, from the schema class's ``refused_shapes``."""
        schema = kwargs.get("schema")
        shapes = getattr(schema if isinstance(schema, type) else type(schema), "refused_shapes", ())
        if not shapes:
            return None
        return {"not": shapes[0] if len(shapes) == 1 else {"anyOf": list(shapes)}}


class SchemaDescriptions(BasePlugin):
    """An apispec plugin: each schema component is described by its schema's own docstring (its
    first paragraph), unless it was registered with a description."""

    def schema_helper(
        self, name: str, definition: dict[str, Any], **kwargs: Any
    ) -> dict[str, Any] | None:
        """The component's description, from the docstring of the schema class itself."""
        schema = kwargs.get("schema")
        if definition.get("description") or schema is None:
            return None
        doc = (schema if isinstance(schema, type) else type(schema)).__doc__
        if not doc:
            return None
        first = doc.strip().split("\n\n", 1)[0]
        return {"description": " ".join(first.split())}


def object_default_in_words(
    converter: Any, field: fields.Field[Any], **kwargs: Any
) -> dict[str, Any]:
    """An apispec attribute function: a field whose default is an object (``{}``) has it told
    in its description instead of a ``default`` keyword.

    The server still loads ``{}`` where such a field is left out or null (``Strict.fill`` in
    ``domain.model.command_schema``), and ``GET /commands`` still lists it as the default; but
    these fields are nullable, and a nullable object with an object default is what client
    generators cannot take (openapi-python-client drops the schema and every operation using it).
    """
    ret: dict[str, Any] = kwargs["ret"]
    if not isinstance(ret.get("default"), dict):
        return {}
    default = ret.pop("default")
    said = json.dumps(default)
    if isinstance(field, fields.Nested):
        said += " (every field of it left out)"
    described = ret.get("description", "").rstrip()
    ret["description"] = f"{described} Left out or null: {said}.".lstrip()
    return {}


NULL_BRANCH = {"type": "object", "nullable": True}
"""apispec's branch that makes a nullable nested object accept null (OpenAPI 3.0)."""


def object_before_null(converter: Any, field: fields.Field[Any], **kwargs: Any) -> dict[str, Any]:
    """An apispec attribute function: a nullable nested object lists its schema before the null
    branch, whether or not it has a description (apispec puts the null branch first when not).

    Generators try a union's branches in order, and the null branch takes any object: first, it
    left the typed schema unused (openapi-python-client read ``Actions.pending`` as an untyped
    dict, never as a ``PendingDecision``).
    """
    ret: dict[str, Any] = kwargs["ret"]
    branches = ret.get("anyOf")
    if branches and branches[0] == NULL_BRANCH:
        ret["anyOf"] = [*branches[1:], branches[0]]
    return {}


def by_status(item: tuple[Any, Any]) -> tuple[bool, str]:
    """Responses in the order of their status codes, ``default`` last."""
    return str(item[0]) == "default", str(item[0])


def register_problem_responses(spec: APISpec, schema: Any) -> None:
    """Register a problem+json response per error status, and flask-smorest's DEFAULT_ERROR,
    for operations to refer to (lazily: only those referred to appear in the document)."""
    for status in HTTPStatus:
        if status >= 400:
            spec.components.response(
                status.name, problem_response(problems_said(status), schema), lazy=True
            )
    unlisted = [kind for kind in PROBLEM_TYPES if kind.status in DEFAULT_STATUSES]
    spec.components.response(
        "DEFAULT_ERROR",
        problem_response(types_said("Any other error", unlisted), schema),
        lazy=True,
    )


def problems_said(status: HTTPStatus) -> str:
    """A status's response description: its phrase, then each problem type it may carry, with
    the members that type adds."""
    return types_said(status.phrase, [kind for kind in PROBLEM_TYPES if kind.status == status])


def types_said(phrase: str, kinds: list[ProblemType]) -> str:
    """A response's description: its phrase, then its problem types with their members."""
    if not kinds:
        return phrase
    said = "; ".join(
        f"`{kind.slug}` ({kind.status}): {kind.meaning}"
        + (f" (with {', '.join(f'`{name}`' for name in kind.fields)})" if kind.fields else "")
        for kind in kinds
    )
    return f"{phrase}. Problem types: {said}."


def problem_response(description: str, schema: Any) -> dict[str, Any]:
    """A response whose body is a problem (RFC 9457)."""
    return {"description": description, "content": {PROBLEM_JSON: {"schema": schema}}}


class Lagging(Schema):
    """A view behind the log (503 not-ready)."""

    name = fields.String(required=True)
    lag = fields.Integer(required=True, metadata={"description": "Events behind the log."})


class Problem(Schema):
    """An RFC 9457 problem: every error response has this shape. ``type`` is
    ``urn:questlog:problem:<slug>``, one of the types each status's response lists; the members
    after ``instance`` come with the types named in their descriptions, and no others."""

    type = fields.String(metadata={"example": "urn:questlog:problem:invalid-input"})
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    instance = fields.String()
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        metadata={
            "description": "invalid-input (422), not-held (409): field name (a nested one by "
            "its path) → its messages"
        },
    )
    rule = fields.String(
        metadata={
            "description": "rule-violation (409): the rule ID that forbids the command; "
            "not-held (409): known-names"
        }
    )
    pending = fields.Dict(
        metadata={
            "description": "rule-violation (409) while a decision is pending: decision, who, "
            "rule, the commands accepted now and the options"
        }
    )
    also = fields.Dict(
        metadata={
            "description": "rule-violation (409) while a decision is pending: the rule (and "
            "detail) that would refuse the command on its own"
        }
    )
    expected_version = fields.Integer(
        metadata={"description": "stale-version (412): the version `If-Match` named"}
    )
    current_version = fields.Integer(
        metadata={
            "description": "stale-version (412): the campaign's version now (also the answer's "
            "`ETag`): read the state at it and retry with `If-Match` set to it"
        }
    )
    stored = fields.Boolean(
        allow_none=True,
        metadata={
            "description": "store-unavailable (503), disk-full (507): false if the command was "
            "not stored, null if that could not be found out (retry with the same "
            "Idempotency-Key)"
        },
    )
    limit = fields.String(
        metadata={"description": "too-many-streams (503): the setting that caps the streams"}
    )
    max_streams = fields.Integer(
        metadata={"description": "too-many-streams (503): how many streams the server allows"}
    )
    lagging = fields.List(
        fields.Nested(Lagging),
        metadata={"description": "not-ready (503): the views behind the log by more than max_lag"},
    )
    max_lag = fields.Integer(
        metadata={"description": "not-ready (503): the most events a view may be behind"}
    )


STREAM_DOC = {
    "200": {
        "description": (
            "Server-Sent Events: one message per event (``id: <version>``, ``event: event``, "
            "``data:`` the event as one item of GET /campaigns/{id}/events), a ``: keep-alive`` "
            "comment every 15 s. Resume with Last-Event-ID or ?after=."
        ),
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}
"""The stream route's documented answer (``GET /campaigns/{id}/stream``)."""


APPEND_HEADERS = [
    {
        "in": "header",
        "name": "Idempotency-Key",
        "description": "1 to 200 printable ASCII characters, not all spaces: a retry with the "
        "same key and body gets the first answer again; the same key with another body is "
        "refused with 422 (the IETF Idempotency-Key draft): a new request takes a new key.",
        "schema": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "pattern": "^[ -~]*[!-~][ -~]*$",
        },
    },
    {
        "in": "header",
        "name": "If-Match",
        "description": 'The ETag of the version the request expects, such as "5" (W/ allowed).',
        "schema": {"type": "string", "pattern": '^(W/)?"?[0-9]{1,18}"?$'},
    },
]
"""The headers every appending route documents: ``Idempotency-Key`` and ``If-Match``."""

PREFER_HEADER = {
    "in": "header",
    "name": "Prefer",
    "description": "RFC 7240 preferences, comma-separated. `return=minimal` asks for the answer "
    "without the campaign's state (`state`): the events, the pending decision, the version, the "
    "head hash and the checkpoint, which is all a client that keeps its own copy or reads the "
    "state later needs; the answer then carries `Preference-Applied: return=minimal`. A roll's "
    "answer holds no state, so it is the same either way (and says the preference was applied). "
    "Any other preference (any other text) is ignored, as RFC 7240 asks; the full answer is the "
    "default.",
    "schema": {"type": "string"},
    "example": "return=minimal",
}
"""The ``Prefer`` header of the routes whose answer can leave the state out (commands, rolls)."""
