"""The OpenAPI document as a contract: every answer a test gets from the Flask app through a test
client is checked against the document that app serves (openapi-core response validation: the
status is documented for the operation, the content type is documented for that status, the body
matches its schema). A nonconforming answer fails the test that got it, naming the method, the
path, the status and the validation error.

``tests/conftest.py`` installs ``ContractClient`` as every Flask app's test client class. Set
``QUESTLOG_CONTRACT=off`` to switch the checks off for a local run; CI runs with them on.
``QUESTLOG_CONTRACT_REPORT=path`` also writes each nonconformance met as a line of JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
from werkzeug.datastructures import Headers
from werkzeug.exceptions import HTTPException
from werkzeug.test import TestResponse

NOT_DESCRIBED_PREFIXES = ("/openapi", "/app/", "/static/")
"""Requests the document does not describe, so nothing is checked: the document itself (and the
UI pages flask-smorest may serve beside it) and the table page's HTML shell and its files."""
NOT_DESCRIBED_PATHS = frozenset({"/", "/app", "/undeclared"})
"""The table page's own addresses (``webapi.routes.page``): a redirect to the shell; and the
route tests/api/test_route_access.py adds to show an undeclared route is refused."""
NOT_DESCRIBED_SUFFIXES = ("/checkpoint/qr",)
"""The image the table page shows of a campaign's signed checkpoint
(``webapi.routes.checkpoint_qr``, a plain Flask route: client generators take no SVG)."""
STREAM = "text/event-stream"
"""A stream's body never ends: only its status and content type are checked."""


def _text(data: bytes | str, **parameters: str) -> str:
    """A text body as the string its schema describes (openapi-core passes the content type's
    parameters, such as ``charset``)."""
    if isinstance(data, str):
        return data
    return data.decode(parameters.get("charset", "utf-8"))


def _json(data: bytes | str, **_: str) -> Any:
    """A JSON body (a problem) as the value its schema describes."""
    return json.loads(data)


CONFIG = Config(
    extra_media_type_deserializers={
        "application/problem+json": _json,
        "text/plain": _text,
        "text/markdown": _text,
        "text/html": _text,
        STREAM: _text,
    }
)
"""openapi-core reads ``application/json`` bodies as JSON and leaves other types as bytes: the
problems are JSON too, and the text types are strings."""
NO_OPERATION = {
    ("OperationNotFound", 405): "a method the path does not take (the document's info says so)",
    ("PathNotFound", 404): "a path no route serves",
}
"""Requests the document cannot describe, by openapi-core's error and the answer's status: no
operation to hold the answer to."""
STREAM_BODY_ERRORS = frozenset({"MissingData"})
"""A stream's body stands empty (``_Answer``), which openapi-core reports as missing."""

KNOWN_NONCONFORMANCES: frozenset[tuple[str, str, int]] = frozenset()
"""(METHOD, path template, status) answers known not to match the document yet: they are counted
(``FOUND`` and the session's summary) but fail no test. Each entry is a bug in the document or in
the server; fix it and remove the entry, until the set is empty."""


def enabled() -> bool:
    """Whether answers are checked: on unless ``QUESTLOG_CONTRACT=off`` (a local run may switch
    the checks off to compare timings; CI never does)."""
    return os.environ.get("QUESTLOG_CONTRACT", "on").lower() not in ("off", "0", "false", "no")


@dataclass(frozen=True)
class Nonconformance:
    """One answer that does not match the document."""

    method: str
    path: str
    template: str
    status: int
    errors: tuple[str, ...]

    def key(self) -> tuple[str, str, int]:
        """What ``KNOWN_NONCONFORMANCES`` lists."""
        return (self.method, self.template, self.status)

    def message(self) -> str:
        """The method, path, status and every validation error, for the failing test's report."""
        lines = "\n  ".join(self.errors)
        return (
            f"{self.method} {self.path} answered {self.status}, which does not match the "
            f"OpenAPI document (operation {self.method} {self.template}):\n  {lines}"
        )


FOUND: list[Nonconformance] = []
"""Every nonconformance met in this process's current test (``tests/conftest.py`` fails a test
that met one even when a thread of the test swallowed the assertion)."""
KNOWN_MET: list[Nonconformance] = []
"""Nonconformances on the known list met in this process, for the session's summary."""
CHECKED = [0]
"""How many answers were checked in this process."""

_SPECS: dict[str, OpenAPI] = {}
"""openapi-core's view of each distinct document, by the document's hash: built once per process
(the apps of a test run serve the same document, so this holds one entry)."""
_BY_APP: weakref.WeakKeyDictionary[Flask, OpenAPI] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def spec_of(app: Flask) -> OpenAPI | None:
    """The document ``app`` serves, as openapi-core's validator (None if it serves none); built
    once per distinct document, looked up once per app. Read from flask-smorest's spec, not
    fetched: a request would be counted, logged and metered by the app under test."""
    with _LOCK:
        known = _BY_APP.get(app)
        if known is not None:
            return known
    apis = app.extensions.get("flask-smorest", {}).get("apis", {})
    if "" not in apis:
        return None  # a Flask app of a test's own, with no document to hold it to
    api = apis[""]["ext_obj"]
    raw = app.json.dumps(api.spec.to_dict())
    digest = hashlib.sha256(raw.encode()).hexdigest()
    with _LOCK:
        spec = _SPECS.get(digest)
        if spec is None:
            spec = OpenAPI.from_dict(json.loads(raw), config=CONFIG)
            _SPECS[digest] = spec
        _BY_APP[app] = spec
    return spec


class _Answer:
    """An answer as openapi-core reads it; a stream's body stands empty, since reading it would
    wait for events that never end the stream."""

    def __init__(self, response: TestResponse, stream: bool) -> None:
        self.status_code = response.status_code
        self.headers: Headers = response.headers
        self.content_type = (response.content_type or "").lower()
        self.data: bytes | None = b"" if stream else response.get_data()


class _Question(WerkzeugOpenAPIRequest):
    """The request as openapi-core reads it to find the operation; its body, already read by the
    app, is not needed to check the answer."""

    @property
    def body(self) -> bytes | None:
        """No body: only the answer is checked."""
        return None


def described(path: str) -> bool:
    """Whether the document describes requests to ``path`` (see ``NOT_DESCRIBED_*``)."""
    return (
        path not in NOT_DESCRIBED_PATHS
        and not path.startswith(NOT_DESCRIBED_PREFIXES)
        and not path.endswith(NOT_DESCRIBED_SUFFIXES)
    )


def template_of(app: Flask, method: str, path: str) -> str:
    """The route's path as the document writes it (``/campaigns/{campaign}``), or the path itself
    when no route matches."""
    try:
        rule, _ = app.url_map.bind("localhost").match(path, method, return_rule=True)
    except HTTPException:
        return path
    return str(rule.rule).replace("<", "{").replace(">", "}")


def _where(path: Any) -> str:
    """A JSON Schema error's place in the body, e.g. ``items/0/name``."""
    return "/".join(str(part) for part in path) or "(body)"


def describe(error: BaseException) -> str:
    """An openapi-core error: the schema errors (each naming the field and the rule) when there
    are some, else the error and its cause (such as a content type not documented)."""
    cause = error.__cause__
    details = getattr(cause, "schema_errors", None) or getattr(error, "schema_errors", None)
    if details:
        parts = [f"{_where(e.absolute_path)}: {e.message}" for e in details]
        return f"{type(error).__name__}: " + "; ".join(parts)
    text = f"{type(error).__name__}: {error}"
    if cause is not None:
        text += f" ({type(cause).__name__}: {cause})"
    return text


def check(app: Flask, response: TestResponse) -> None:
    """Check one answer; record and raise when it does not match the document, unless it is on
    ``KNOWN_NONCONFORMANCES``."""
    request = response.request
    path = request.path
    if not described(path) or request.method in ("HEAD", "OPTIONS"):
        return
    spec = spec_of(app)
    if spec is None:
        return
    stream = (response.content_type or "").startswith(STREAM)
    answer = _Answer(response, stream)
    openapi_request = _Question(request)
    errors = [
        describe(error)
        for error in spec.iter_response_errors(openapi_request, answer)
        if (type(error).__name__, response.status_code) not in NO_OPERATION
        and not (stream and type(error).__name__ in STREAM_BODY_ERRORS)
    ]
    CHECKED[0] += 1
    if not errors:
        return
    found = Nonconformance(
        request.method,
        path,
        template_of(app, request.method, path),
        response.status_code,
        tuple(errors),
    )
    record(found)
    if found.key() in KNOWN_NONCONFORMANCES:
        KNOWN_MET.append(found)
        return
    FOUND.append(found)
    raise AssertionError(found.message())


def record(found: Nonconformance) -> None:
    """Append a nonconformance to the file ``QUESTLOG_CONTRACT_REPORT`` names, one JSON object a
    line, to group a whole run's findings by cause."""
    report = os.environ.get("QUESTLOG_CONTRACT_REPORT")
    if not report:
        return
    line = json.dumps(
        {
            "method": found.method,
            "template": found.template,
            "status": found.status,
            "path": found.path,
            "errors": found.errors,
        }
    )
    with _LOCK, open(report, "a", encoding="utf-8") as out:
        out.write(line + "\n")


class ContractClient(FlaskClient):
    """A Flask test client whose every answer is checked against the app's OpenAPI document."""

    def open(self, *args: Any, **kwargs: Any) -> Any:
        """Send the request as ``FlaskClient`` does, then check the answer (``check``)."""
        response = super().open(*args, **kwargs)
        if enabled() and isinstance(response, TestResponse):
            check(self.application, response)
        return response
