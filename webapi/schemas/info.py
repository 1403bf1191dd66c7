"""The OpenAPI document's ``info.description``: what a client must know that no operation says.

Above all, which answers are not the application's: a request the HTTP server cannot parse never
reaches it, so it gets the server's own 400, not a problem (docs/architecture.md, "Requests the
HTTP server refuses"; ``tests/api/test_unparsable_requests.py`` pins it on a live server).
"""

from __future__ import annotations

DESCRIPTION = """\
Questlog's HTTP API: event-sourced campaigns of Quest Calendar and Calendar Board, with \
verifiable dice. Authenticate with `Authorization: Bearer <token>`.

Request bodies: every request with a body sends `Content-Type: application/json` (no parameter \
but `charset=utf-8`), else 415; the bytes are UTF-8 without a byte order mark and one JSON text \
(no `NaN`, `Infinity` or trailing data), else 400; each key appears once per object, else 422 \
naming it. Every string, keys included, is Unicode text: a lone surrogate escaped as `\\ud800` \
is refused (422 naming its path). String fields refuse control characters as their `pattern` says.

Every error the application answers is `application/problem+json` (the `Problem` schema), and \
each operation lists the statuses it can answer; each status's response lists its problem types \
and the members they add.

One kind of request never reaches the application: one the HTTP server cannot parse. A header \
whose name or value holds a control byte (0x00-0x1F other than tab, or 0x7F), \
or a malformed request line, is answered by the HTTP server itself with \
`400 Bad Request` and a body that is not a problem: `text/plain` from waitress (`questlog serve`, \
one process) and `text/html` from gunicorn (`questlog serve --workers N`). Such an answer has no \
`X-Request-Id` and is in no access log or metric of the application. Bytes 0x80-0xFF in a header \
do reach it: an `Authorization` header holding one matches no token (401).\
"""
"""The document's ``info.description`` (CommonMark, as OpenAPI allows)."""
