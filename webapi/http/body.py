"""What a request body must be before any view reads it: JSON, said so, and nothing lenient.

Every request that carries a body (whatever its method) is checked once, before authentication:

- its ``Content-Type`` is ``application/json``, with no parameter but ``charset=utf-8`` (any
  case): anything else, or none, is a 415 problem naming the type expected, with
  ``Accept-Post: application/json``. A client with a wrong header learns it at once instead of
  having its body read as JSON anyway;
- its bytes are UTF-8 with no byte order mark (RFC 8259 8.1): UTF-16 or a BOM is a 400;
- it is one JSON text by RFC 8259: ``NaN``, ``Infinity`` and trailing data are a 400;
- no object in it names a key twice (RFC 8259 4 leaves the outcome to the parser; a last-one-wins
  parser would store a value the sender may not have meant): a 422 naming the key;
- no string in it, keys included, is a lone surrogate ("\\ud800"), which no hash, store or page
  can take: a 422 naming each by its path. The same rule as the schemas' ``Text``, at the door,
  so that it holds for free-form values too (a house rule's value, a hero's notes).

The views then read the body as they always did; the cost is one more parse of a body at most
``MAX_CONTENT_LENGTH`` long.
"""

from __future__ import annotations

import json
from typing import Any

from flask import request
from werkzeug.exceptions import BadRequest, UnsupportedMediaType

from domain.facade import InvalidInput, not_unicode, quoted

JSON = "application/json"
UTF8_BOM = b"\xef\xbb\xbf"


class NotJson(UnsupportedMediaType):
    """415: the body is not said to be JSON; the answer names the type this API takes."""

    def get_headers(self, *args: Any, **kwargs: Any) -> list[tuple[str, str]]:
        return [*super().get_headers(*args, **kwargs), ("Accept-Post", JSON)]


class DuplicateKey(ValueError):
    """An object of the body names a key twice."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def refuse_constant(name: str) -> Any:
    """``NaN``, ``Infinity`` and ``-Infinity`` are Python's, not JSON's."""
    raise ValueError(f"{name} is not a JSON value")


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's members, refusing a key named twice."""
    members: dict[str, Any] = {}
    for key, value in pairs:
        if key in members:
            raise DuplicateKey(key)
        members[key] = value
    return members


def strict_loads(text: str) -> Any:
    """One JSON text, by RFC 8259 and with every key once."""
    return json.loads(text, object_pairs_hook=unique_keys, parse_constant=refuse_constant)


def has_body() -> bool:
    """Whether the request carries a body (a length above 0, or chunks)."""
    if request.content_length:
        return True
    return "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def check_media_type() -> None:
    """415 unless the body is said to be ``application/json`` (charset UTF-8 or none)."""
    sent = request.headers.get("Content-Type")
    params = {k.lower(): v.lower() for k, v in request.mimetype_params.items()}
    charset = params.pop("charset", "utf-8")
    if request.mimetype == JSON and not params and charset in ("utf-8", "utf8"):
        return
    told = f"Content-Type {quoted(sent)}" if sent else "no Content-Type"
    raise NotJson(
        f"The request body must be {JSON} (charset UTF-8 or none); this request has {told}."
    )


def decoded(body: bytes) -> str:
    """The body as text: UTF-8 without a byte order mark, else a 400 that says which."""
    if body.startswith(UTF8_BOM):
        raise BadRequest(
            "The request body is not valid JSON: it begins with a byte order mark "
            "(JSON is sent as UTF-8 without one)."
        )
    if b"\x00" in body:
        # JSON escapes NUL inside strings and has none outside them: this is UTF-16 or UTF-32
        raise BadRequest("The request body is not valid JSON: it is not UTF-8 (it has NUL bytes).")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(
            f"The request body is not valid JSON: it is not UTF-8 (byte {error.start})."
        ) from None


def check_json() -> None:
    """The body is one JSON text, UTF-8 without a BOM, every key once, every string Unicode
    (after ``check_media_type`` and the size checks of ``webapi.http.limits``)."""
    text = decoded(request.get_data(cache=True))
    try:
        value = strict_loads(text)
    except DuplicateKey as duplicate:
        raise InvalidInput.field(
            duplicate.key, "is given more than once in one object; send each key once"
        ) from None
    except ValueError:
        raise BadRequest("The request body is not valid JSON.") from None
    broken = not_unicode(value)
    if broken:
        raise InvalidInput.of(broken)
