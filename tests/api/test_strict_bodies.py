"""What a request body must be, on both stores: JSON said so (415 otherwise), UTF-8 without a BOM
(400), each key once (422 naming it), Unicode text everywhere (422 naming its path); a refused
body stores nothing, and every answer is a problem the document lists (docs/architecture.md,
"Input limits" and "Problem types")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.conftest import stored_state
from webapi.http.errors import PROBLEM_TYPES

ROOT = Path(__file__).resolve().parents[2]
COMMAND = '{"type": "gain_credits", "amount": 3}'
NOT_JSON_TYPES = [
    None,
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
    "application/json; charset=utf-16",
    "application/json; charset=latin-1",
    "application/json; version=2",
    "application/jsonx",
]


def post(client: FlaskClient, path: str, data: bytes, content_type: str | None) -> Any:
    """POST raw bytes with exactly this Content-Type (or none)."""
    headers = {"Content-Type": content_type} if content_type else {}
    return client.post(path, data=data, headers=headers)


@pytest.mark.parametrize("content_type", NOT_JSON_TYPES)
def test_a_body_not_sent_as_json_is_a_415_naming_the_type_and_stores_nothing(
    store_client: FlaskClient, store_campaign: dict[str, Any], content_type: str | None
) -> None:
    cid = store_campaign["id"]
    before = stored_state(store_client, cid)
    response = post(store_client, f"/campaigns/{cid}/commands", COMMAND.encode(), content_type)
    assert response.status_code == 415, response.json
    assert response.mimetype == "application/problem+json"
    assert response.json["type"] == "urn:questlog:problem:unsupported-media-type"
    assert "application/json" in response.json["detail"]
    assert response.headers["Accept-Post"] == "application/json"
    assert stored_state(store_client, cid) == before


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "application/json; charset=utf-8", "Application/JSON; Charset=UTF-8"],
)
def test_json_with_or_without_a_utf8_charset_is_taken(
    store_client: FlaskClient, store_campaign: dict[str, Any], content_type: str
) -> None:
    response = post(
        store_client, f"/campaigns/{store_campaign['id']}/commands", COMMAND.encode(), content_type
    )
    assert response.status_code in (201, 409), response.json  # read as JSON, then by the rules


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\xef\xbb\xbf" + COMMAND.encode(), "byte order mark"),
        (COMMAND.encode("utf-16"), "not UTF-8"),
        (COMMAND.encode("utf-16-le"), "NUL bytes"),
        (b'{"type": "gain_credits", "amount": NaN}', "not valid JSON"),
        (COMMAND.encode() + b" []", "not valid JSON"),
    ],
    ids=["bom", "utf-16", "utf-16-le", "nan", "trailing"],
)
def test_a_body_in_another_encoding_or_not_json_is_a_400(
    store_client: FlaskClient, store_campaign: dict[str, Any], data: bytes, said: str
) -> None:
    cid = store_campaign["id"]
    before = stored_state(store_client, cid)
    response = post(store_client, f"/campaigns/{cid}/commands", data, "application/json")
    assert response.status_code == 400, response.json
    assert said in response.json["detail"]
    assert stored_state(store_client, cid) == before


@pytest.mark.parametrize(
    ("path", "data", "key"),
    [
        ("/commands", b'{"type": "gain_credits", "amount": 3, "amount": 4}', "amount"),
        ("/commands", b'{"type": "gain_credits", "faces": [{"x": 1, "x": 1}], "amount": 1}', "x"),
        ("/house-rules", b'{"key": "qc.combat.mode", "key": "qc.combat.mode", "value": 1}', "key"),
        ("/members", b'{"token_name": "a", "token_name": "b", "seat": "p"}', "token_name"),
    ],
    ids=["command", "nested", "house-rule", "member"],
)
def test_a_key_given_twice_is_a_422_naming_it(
    store_client: FlaskClient, store_campaign: dict[str, Any], path: str, data: bytes, key: str
) -> None:
    cid = store_campaign["id"]
    before = stored_state(store_client, cid)
    response = post(store_client, f"/campaigns/{cid}{path}", data, "application/json")
    assert response.status_code == 422, response.json
    assert response.json["type"] == "urn:questlog:problem:invalid-input"
    assert list(response.json["errors"]) == [key]
    assert stored_state(store_client, cid) == before


@pytest.mark.parametrize("field", ["token_name", "token_id", "seat"])
def test_a_lone_surrogate_in_a_member_field_is_a_422_not_a_500(
    store_client: FlaskClient, store_campaign: dict[str, Any], field: str
) -> None:
    body = {"token_name": "reader", "seat": "p1", field: "a\ud800"}
    response = store_client.post(f"/campaigns/{store_campaign['id']}/members", json=body)
    assert response.status_code == 422, response.json
    assert field in response.json["errors"]


def test_an_empty_body_is_no_body(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    """A request without a body needs no Content-Type (a rollback preview, a DELETE)."""
    response = post(store_client, f"/campaigns/{store_campaign['id']}/commands", b"", None)
    assert response.status_code != 415, response.json


def test_the_document_lists_every_problem_type_and_its_members(client: FlaskClient) -> None:
    document = client.get("/openapi.json").json
    problem = document["components"]["schemas"]["Problem"]["properties"]
    responses = document["components"]["responses"]
    for kind in PROBLEM_TYPES:
        assert set(kind.fields) <= set(problem), kind
        said = next(
            r["description"] for r in responses.values() if f"`{kind.slug}`" in r["description"]
        )
        assert f"`{kind.slug}` ({kind.status})" in said, kind


def test_the_architecture_doc_lists_every_problem_type() -> None:
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for kind in PROBLEM_TYPES:
        members = ", ".join(f"`{name}`" for name in kind.fields) or "—"
        assert f"| {kind.status} | `{kind.slug}` | {kind.meaning} | {members} |" in doc, kind


def test_a_malformed_command_is_a_422_whatever_version_if_match_names(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    """The body's own form first: a 412 would send the client to retry a body that is wrong."""
    cid = store_campaign["id"]
    before = stored_state(store_client, cid)
    response = store_client.post(
        f"/campaigns/{cid}/commands",
        json={"type": "gain_credits", "amount": "lots"},
        headers={"If-Match": '"999"'},
    )
    assert response.status_code == 422, response.json
    assert "amount" in response.json["errors"]
    assert stored_state(store_client, cid) == before
