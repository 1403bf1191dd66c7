"""Input limits checked before any view runs (docs/architecture.md, "Input limits").

A path parameter longer than ``MAX_PATH_PARAMETER`` or holding a control character names nothing
(no campaign, token, roll or proposal is named so): 404, without asking the store.

A JSON body nested deeper than ``MAX_JSON_DEPTH`` is refused before a parser recurses into it:
Python's parser would raise ``RecursionError`` about 1,000 levels down. The check reads the raw
bytes of every request with a body, after its content type is found to be JSON
(``webapi.http.body``, which then parses it strictly).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import accumulate, count
from operator import sub

from flask import Flask, current_app, request

from domain.facade import InvalidInput, NotFound, has_control_characters, quoted
from webapi.http import body

MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects a request body may have."""
MAX_NUMBER_DIGITS = 100
"""The most digits a number in a JSON body may have (Python's parser fails past 4,300)."""
MAX_PATH_PARAMETER = 200
"""The longest path parameter that can name anything (a token name has at most 200 characters)."""

_BRACKETS = b"[]{}"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
# An opening bracket steps 2, a closing one 0: after k brackets the depth is the sum minus k.
_STEPS = bytes.maketrans(_BRACKETS, b"\x02\x00\x02\x00")


_LONG_NUMBER = re.compile(rb"[0-9]{%d,}" % (MAX_NUMBER_DIGITS + 1))


def outside_strings(body: bytes) -> bytes:
    """A JSON text without its strings: escaped backslashes and quotes go first, then every
    second stretch between quotes (bytes operations only, so a large body costs milliseconds)."""
    unescaped = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(unescaped.split(b'"')[::2])


def json_depth(body: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest; brackets inside strings do not count."""
    steps = outside_strings(body).translate(_STEPS, _NOT_BRACKETS)
    return max(0, max(map(sub, accumulate(steps), count(1)), default=0))


def too_deep(body: bytes) -> bool:
    """Whether a body nests deeper than the limit (a cheap count first, the scan only if needed)."""
    if body.count(b"[") + body.count(b"{") <= MAX_JSON_DEPTH:
        return False
    return json_depth(body) > MAX_JSON_DEPTH


def too_long_number(body: bytes) -> bool:
    """Whether a number outside the strings of a body has more digits than the limit."""
    return bool(_LONG_NUMBER.search(body)) and bool(_LONG_NUMBER.search(outside_strings(body)))


def check_path() -> None:
    """Answer 404 for a path parameter that names nothing: too long, or with a control character."""
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str) and (
            len(value) > MAX_PATH_PARAMETER or has_control_characters(value)
        ):
            raise NotFound(f"There is no {name} {quoted(value)}.")


def check_body() -> None:
    """Refuse a request body nested too deep, or with a number too long (422 on ``body``)."""
    data = request.get_data(cache=True)
    if too_deep(data):
        raise InvalidInput.field(
            "body", f"nests arrays and objects more than {MAX_JSON_DEPTH} levels deep"
        )
    if too_long_number(data):
        raise InvalidInput.field("body", f"has a number of more than {MAX_NUMBER_DIGITS} digits")


BODY_LIMITS_KEY = "questlog_body_limits"


def check_input() -> None:
    """The checks every request passes before authentication and the views."""
    larger = current_app.extensions[BODY_LIMITS_KEY].get(request.endpoint)
    if larger is not None:
        request.max_content_length = larger
    check_path()
    if body.has_body():
        body.check_media_type()
        check_body()
        body.check_json()
    elif body_required():
        raise InvalidInput.field("body", "is required: a JSON object ({} takes every default)")


def body_required() -> bool:
    """Whether the route's document marks its JSON body required (flask-smorest's
    ``arguments``, required unless told): then a request without one is refused, as the
    document says, even where every field has a default."""
    view = current_app.view_functions.get(request.endpoint or "")
    method = getattr(getattr(view, "view_class", None), request.method.lower(), None)
    parameters = getattr(method, "_apidoc", {}).get("arguments", {}).get("parameters", [])
    return any(p.get("in") == "json" and p.get("required") for p in parameters)


def install(app: Flask, body_limits: Mapping[str, int] | None = None) -> None:
    """Check every request's input (registered before access control, so it runs first);
    ``body_limits`` names the endpoints that take a larger body than ``MAX_CONTENT_LENGTH`` (an
    imported bundle), with their limit in bytes."""
    app.extensions[BODY_LIMITS_KEY] = dict(body_limits or {})
    app.before_request(check_input)
