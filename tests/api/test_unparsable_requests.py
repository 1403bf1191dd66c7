"""A request the HTTP server cannot parse never reaches the application: a live ``questlog
serve`` (waitress; gunicorn with ``--workers 2``) answers it with its own 400, not a problem,
as docs/architecture.md ("Requests the HTTP server refuses") and the OpenAPI document's
``info.description`` say. Bytes the server lets through reach the application and get its
problem+json.

Every request is written byte for byte on a raw socket to 127.0.0.1 (an HTTP library would
refuse to send them); every server started here is stopped by its pid.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.live_server import serving
from webapi.schemas import info

from .workers_harness import two_workers

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"
CONTROL_BYTES = [b"\x00", b"\x01", b"\x1b", b"\x7f"]
"""Bytes no header may hold (RFC 9110 field-value: VCHAR, obs-text, space and tab)."""


@dataclass(frozen=True)
class Answer:
    """A raw HTTP answer: its status, headers (names lower-cased) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def mimetype(self) -> str:
        """The content type without its parameters."""
        return self.headers.get("content-type", "").split(";")[0].strip()


def send(port: int, head: bytes) -> Answer:
    """Write a request's head (request line and headers, no body) as given, with
    ``Connection: close``; read the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head + b"Connection: close\r\n\r\n")
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    raw_head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = raw_head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Answer(int(status_line.split()[1]), headers, body)


def with_authorization(value: bytes) -> bytes:
    """A GET of a route that needs a token, with this ``Authorization`` value."""
    return b"GET /campaigns HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + value + b"\r\n"


MALFORMED_LINE = b"GET /camp aigns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
"""A request line with a space in its target: not HTTP."""


@pytest.fixture(scope="module")
def waitress_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``questlog serve`` (one process: waitress) on SQLite, access control on."""
    db = tmp_path_factory.mktemp("unparsable") / "served.db"
    env = {**os.environ, "QUESTLOG_DB": str(db)}
    for variable in ("QUESTLOG_DATABASE_URL", "QUESTLOG_AUTH", "PROMETHEUS_MULTIPROC_DIR"):
        env.pop(variable, None)
    with serving(env) as port:
        yield port


@pytest.mark.parametrize("byte", CONTROL_BYTES, ids=lambda b: f"0x{b[0]:02x}")
def test_waitress_answers_a_control_byte_in_authorization_itself(
    waitress_port: int, byte: bytes
) -> None:
    """``Bearer zq<byte>xj`` gets waitress's ``400 text/plain``: no problem body, and no
    ``X-Request-Id``, which the application puts on every answer of its own."""
    answer = send(waitress_port, with_authorization(b"Bearer zq" + byte + b"xj"))
    assert answer.status == 400 and answer.mimetype == "text/plain", answer
    assert b"Invalid header" in answer.body
    assert "x-request-id" not in answer.headers


def test_waitress_answers_a_malformed_request_line_itself(waitress_port: int) -> None:
    answer = send(waitress_port, MALFORMED_LINE)
    assert answer.status == 400 and answer.mimetype == "text/plain", answer
    assert "x-request-id" not in answer.headers


@pytest.mark.parametrize("value", [b"Bearer ab\xffcd", b"Bearer caf\xc3\xa9", b"Bearer a\tb"])
def test_what_waitress_lets_through_gets_the_application_s_problem(
    waitress_port: int, value: bytes
) -> None:
    """A byte above 0x7F (obs-text) or a tab is valid in a header: the application reads it,
    and such a secret matches no token (401, problem+json)."""
    answer = send(waitress_port, with_authorization(value))
    assert answer.status == 401 and answer.mimetype == PROBLEM, answer
    assert json.loads(answer.body)["status"] == 401
    assert "x-request-id" in answer.headers


def test_the_document_and_the_docs_say_so(waitress_port: int) -> None:
    """The served document's ``info.description`` and docs/architecture.md name the two
    servers' answers."""
    answer = send(waitress_port, b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    described = json.loads(answer.body)["info"]["description"]
    assert described == info.DESCRIPTION
    for said in ("0x7F", "`400 Bad Request`", "`text/plain` from waitress", "`text/html` from"):
        assert said in described
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = architecture.split("### Requests the HTTP server refuses", 1)[1].split("\n## ", 1)[0]
    for said in ("0x7F", "`400`", "`text/plain`", "`text/html`", "waitress", "gunicorn"):
        assert said in section, said


@pytest.fixture(scope="module")
def gunicorn_port(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``questlog serve --workers 2`` (gunicorn) on a fresh PostgreSQL schema."""
    with two_workers(postgres_url, tmp_path_factory.mktemp("unparsable-workers")) as served:
        yield served.port


@pytest.mark.postgres
def test_gunicorn_answers_a_control_byte_in_authorization_itself(gunicorn_port: int) -> None:
    """With several workers, gunicorn refuses the same bytes, with its own ``400 text/html``
    naming the header (not its value); what it lets through reaches the application."""
    for byte in CONTROL_BYTES:
        answer = send(gunicorn_port, with_authorization(b"Bearer zq" + byte + b"xj"))
        assert answer.status == 400 and answer.mimetype == "text/html", (byte, answer)
        assert b"Invalid HTTP Header" in answer.body and b"zq" not in answer.body
        assert "x-request-id" not in answer.headers
    answer = send(gunicorn_port, MALFORMED_LINE)
    assert answer.status == 400 and answer.mimetype == "text/html", answer
    answer = send(gunicorn_port, with_authorization(b"Bearer ab\xffcd"))
    assert answer.status == 401 and answer.mimetype == PROBLEM, answer


def test_the_application_itself_would_answer_401(tmp_path: Path) -> None:
    """Behind a proxy that forwards the byte, the application answers it as any unknown
    secret: 401 problem+json (the server is what answers 400, never the application)."""
    from webapi.app import create_app

    questlog = Questlog(StoreConfig(sqlite_path=tmp_path / "direct.db"))
    try:
        client = create_app(questlog, auth=True, rate_limit=0, TESTING=True).test_client()
        response = client.get("/campaigns", headers={"Authorization": "Bearer ab\x7fcd"})
        assert response.status_code == 401 and response.mimetype == PROBLEM
    finally:
        questlog.close()
