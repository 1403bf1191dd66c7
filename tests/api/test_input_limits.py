"""Bad input is a 4xx problem on every route and on both stores: nesting depth, digits, control
characters, strict JSON numbers and booleans, odd headers (docs/architecture.md, Input limits)."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from webapi.limits import MAX_JSON_DEPTH, json_depth

PROBLEM = "application/problem+json"


def assert_field_error(response: Any, status: int, field: str) -> None:
    """A problem+json answer with this status whose errors name this field."""
    assert response.status_code == status, response.get_data(as_text=True)[:500]
    assert response.mimetype == PROBLEM
    assert field in response.json["errors"], response.json


def nested(depth: int, inner: str = "1") -> str:
    """A JSON value nested ``depth`` arrays and objects deep, alternating."""
    text = inner
    for level in range(depth):
        text = f'{{"a": {text}}}' if level % 2 else f"[{text}]"
    return text


# -- nesting depth --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("", 0),
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}], "c": {}}', 4),
        ('["[[[[", "{{{{"]', 1),
        (r'["\"[[[[", "\\", [2]]', 2),
        (r'["\\\"[[[["]', 1),
        (r'{"a\"{{": "\\\\"}', 1),
        ("]]]][", 0),  # a stray closer: the parser stops there, before any nesting
        (nested(1000), 1000),
    ],
)
def test_json_depth_skips_brackets_inside_strings(text: str, depth: int) -> None:
    assert json_depth(text.encode()) == depth


def test_a_body_nested_beyond_the_limit_is_422_on_body_on_every_route(
    store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    deep = nested(1000)
    routes = [
        ("POST", "/campaigns"),
        ("POST", f"/campaigns/{cid}/rolls"),
        ("POST", f"/campaigns/{cid}/commands"),
        ("POST", f"/campaigns/{cid}/members"),
        ("POST", f"/campaigns/{cid}/rollback/proposals/p/approve"),
        ("POST", "/admin/tokens"),
        ("GET", f"/campaigns/{cid}"),
    ]
    for method, path in routes:
        for headers in ({}, {"Idempotency-Key": "deep"}):
            response = store_client.open(
                path, method=method, data=deep, content_type="application/json", headers=headers
            )
            assert_field_error(response, 422, "body")
            assert str(MAX_JSON_DEPTH) in response.json["errors"]["body"][0]


def test_a_body_at_the_limit_is_read_and_brackets_in_strings_do_not_count(
    store_client: FlaskClient,
) -> None:
    at_limit = nested(MAX_JSON_DEPTH - 2)  # inside the body's object and setup's
    body = f'{{"game": "quest-calendar", "name": "deep", "setup": {{"x": {at_limit}}}}}'
    response = store_client.post("/campaigns", data=body, content_type="application/json")
    assert_field_error(response, 422, "x")  # the game's own answer: the depth was fine
    name = "[{" * 40 + r"\"" + "[{" * 40
    body = f'{{"game": "quest-calendar", "name": "{name}"}}'
    response = store_client.post("/campaigns", data=body, content_type="application/json")
    assert response.status_code == 201, response.json


# -- digits ---------------------------------------------------------------------------------------

NOT_ASCII_NUMBERS = ["²", "³", "٣", "1²", "9" * 19, "9" * 5000, "", "-1", "+1", " 1", "1_0"]
"""Text that ``str.isdigit`` or ``int`` may accept but that is no version or roll number."""


@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS)
def test_if_match_takes_ascii_digits_only(
    store_client: FlaskClient, store_campaign: dict[str, Any], text: str
) -> None:
    path = f"/campaigns/{store_campaign['id']}/rolls"
    response = store_client.post(path, json={"dice": "d20"}, headers={"If-Match": f'"{text}"'})
    assert_field_error(response, 422, "If-Match")


@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS)
def test_a_roll_id_with_other_digits_is_404(
    store_client: FlaskClient, store_campaign: dict[str, Any], text: str
) -> None:
    cid = store_campaign["id"]
    assert store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d20"}).status_code == 201
    response = store_client.get(f"/campaigns/{cid}/rolls/{text}-1")
    assert response.status_code == 404, response.json
    assert response.mimetype == PROBLEM
    assert store_client.get(f"/campaigns/{cid}/rolls/2-1").status_code == 200


@pytest.mark.parametrize("text", ["٣-0", "²-0", "1-٣", "9" * 19 + "-0"])
def test_a_view_cursor_takes_ascii_digits_only(
    store_client: FlaskClient, store_campaign: dict[str, Any], text: str
) -> None:
    response = store_client.get(f"/campaigns/{store_campaign['id']}/views/rolls?after={text}")
    assert_field_error(response, 422, "after")
