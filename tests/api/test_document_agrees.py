"""The document and the server agree where schemathesis found them apart: a static path
beside a ``{campaign}`` route answers its own methods alone, the members body names exactly one
token, a free roll takes entropy or faces and a die in its notation, text the server refuses
blank the document refuses blank, and a body the document requires is required.

Each test asks both: the server (through the test client, on both stores where it stores) and
the served document (its component, validated as OpenAPI 3.0 validates it).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.model import samples
from tests.api.test_document_bodies import validator

Json = dict[str, Any]
BLANKS = ("", " ", "\u3000", " \u00a0 ")
"""Text that is empty or white space alone (ASCII and not)."""


def document(client: FlaskClient) -> Json:
    """The served OpenAPI document."""
    body: Json = client.get("/openapi.json").json
    return body


def accepts(doc: Json, component: str, body: Json) -> bool:
    """Whether the document's component takes this body."""
    return validator(doc, component).is_valid(body)


# --- 1. a static segment is no campaign id ---------------------------------------------------


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE", "HEAD"])
def test_campaigns_import_answers_405_to_every_method_but_post(
    client: FlaskClient, method: str
) -> None:
    response = client.open("/campaigns/import", method=method)
    assert response.status_code == 405
    assert set(response.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    if method != "HEAD":
        assert response.content_type == "application/problem+json"
        assert response.json["type"].endswith(":method-not-allowed")


def test_campaigns_import_options_list_only_what_the_document_does(client: FlaskClient) -> None:
    response = client.options("/campaigns/import")
    assert set(response.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    assert set(document(client)["paths"]["/campaigns/import"]) == {"post"}


def test_no_static_path_is_also_matched_by_a_parameter_route(flask_app: Flask) -> None:
    """Every path without parameters answers the methods of its own rule alone: no ``{param}``
    route beside it takes its last segment as a value."""
    adapter = flask_app.url_map.bind("localhost")
    static = [rule for rule in flask_app.url_map.iter_rules() if not rule.arguments]
    assert any(rule.rule == "/campaigns/import" for rule in static)
    for rule in static:
        assert set(adapter.allowed_methods(rule.rule)) == set(rule.methods or ()), rule.rule


def test_the_campaign_parameter_is_stated_as_a_uuid(client: FlaskClient, campaign: Json) -> None:
    parameters = document(client)["paths"]["/campaigns/{campaign}"]["parameters"]
    assert parameters[0]["schema"] == {"type": "string", "format": "uuid"}
    assert client.get(f"/campaigns/{campaign['id'].upper()}").status_code == 200
    assert client.get("/campaigns/import/events").status_code == 404


# --- 2. members: exactly one of token_name and token_id --------------------------------------


def test_a_member_is_named_by_exactly_one_field_in_the_document_and_the_server(
    store_client: FlaskClient, store_campaign: Json
) -> None:
    doc = document(store_client)
    token = store_client.post("/admin/tokens", json={"name": "bob"}).json
    path = f"/campaigns/{store_campaign['id']}/members"
    bodies: list[tuple[Json, int, str | None]] = [
        ({"role": "viewer"}, 422, "token_name"),
        ({"token_name": "bob", "token_id": token["id"], "role": "viewer"}, 422, "token_id"),
        ({"token_name": "bob", "role": "viewer"}, 201, None),
        ({"token_id": token["id"], "role": "player"}, 201, None),
    ]
    for body, status, field in bodies:
        assert accepts(doc, "MemberCreate", body) is (status == 201), body
        response = store_client.post(path, json=body)
        assert response.status_code == status, response.json
        if field is not None:
            assert field in response.json["errors"]
    members = store_client.get(path).json["items"]
    assert [m["role"] for m in members if m["name"] == "bob"] == ["player"]


# --- 3. rolls: entropy or faces, and a die in the notation -----------------------------------


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"dice": "d6", "faces": [3], "entropy": "abc"}, 422),
        ({"dice": "d6", "faces": [3], "entropy": None}, 201),
        ({"dice": "d6", "entropy": "abc"}, 201),
        ({"dice": "3+4"}, 422),
        ({"dice": "7"}, 422),
        ({"dice": "3+d20"}, 201),
        ({"dice": "2d6kh1-1+d%"}, 201),
    ],
)
def test_a_free_roll_is_refused_by_the_document_when_the_server_refuses_it(
    store_client: FlaskClient, store_campaign: Json, body: Json, status: int
) -> None:
    assert accepts(document(store_client), "RollCreate", body) is (status == 201)
    response = store_client.post(f"/campaigns/{store_campaign['id']}/rolls", json=body)
    assert response.status_code == status, response.json


def test_the_dice_limits_the_pattern_cannot_count_are_in_words(client: FlaskClient) -> None:
    dice = document(client)["components"]["schemas"]["RollCreate"]["properties"]["dice"]
    for words in ("at least one die", "at most 100 dice", "no larger than", "±1000"):
        assert words in dice["description"]


# --- 4. text the server refuses blank ---------------------------------------------------------

BLANK_FIELDS = [
    ("/campaigns", "CampaignCreate", {"game": "quest-calendar", "name": "n"}, "name"),
    ("/campaigns", "CampaignCreate", {"game": "quest-calendar", "name": "n"}, "client_seed"),
    ("{c}/fork", "ForkCreate", {"at_version": 1, "name": "n"}, "name"),
    ("{c}/fork", "ForkCreate", {"at_version": 1, "name": "n"}, "client_seed"),
    ("{c}/dice/client-seed", "ClientSeedSet", {"client_seed": "s"}, "client_seed"),
    ("/admin/tokens", "TokenCreate", {"name": "n"}, "name"),
    ("{c}/share", "ShareCreate", {}, "name"),
    ("{c}/invites", "InviteCreate", {"role": "viewer"}, "name"),
    ("{c}/rollback", "RollbackCreate", {"to_version": 1, "reason": "r"}, "reason"),
    ("{c}/rollback", "RollbackCreate", {"to_version": 1, "reason": "r"}, "actor"),
    (
        "{c}/rollback/proposals",
        "ProposalCreate",
        {"to_version": 1, "reason": "r", "proposer": "p"},
        "proposer",
    ),
    (
        "{c}/rollback/proposals",
        "ProposalCreate",
        {"to_version": 1, "reason": "r", "proposer": "p"},
        "reason",
    ),
    ("{c}/rollback/proposals/p1/approve", "Approval", {"player": "p"}, "player"),
    ("/library/heroes", "HeroAdded", {"name": "n", "hero": samples.VANGUARD}, "name"),
]
"""Every body field the server refuses empty or white space alone ("must not be empty"): the
route, its component, a body to put the field in and the field."""


@pytest.mark.parametrize(("path", "component", "body", "field"), BLANK_FIELDS)
def test_text_the_server_refuses_blank_the_document_refuses_blank(
    store_client: FlaskClient,
    store_campaign: Json,
    path: str,
    component: str,
    body: Json,
    field: str,
) -> None:
    doc = document(store_client)
    url = path.replace("{c}", f"/campaigns/{store_campaign['id']}")
    before = store_client.get(f"/campaigns/{store_campaign['id']}").json["version"]
    assert accepts(doc, component, {**body, field: "a b"})
    for blank in BLANKS:
        assert not accepts(doc, component, {**body, field: blank}), repr(blank)
        response = store_client.post(url, json={**body, field: blank})
        assert response.status_code == 422, response.json
        assert field in response.json["errors"]
    assert store_client.get(f"/campaigns/{store_campaign['id']}").json["version"] == before


# --- 5. a body the document requires ----------------------------------------------------------


def test_every_required_body_is_required_by_the_server(
    store_client: FlaskClient, store_campaign: Json
) -> None:
    """A POST without a body, to every operation whose document requires one, is a 422 (on
    ``body``, or on the command the commands route reads from it), the share link's (whose
    fields all have defaults) among them; ``{}`` still takes every default."""
    doc = document(store_client)
    cid = store_campaign["id"]
    required = [
        path
        for path, operations in doc["paths"].items()
        for method, operation in operations.items()
        if method == "post" and operation.get("requestBody", {}).get("required")
    ]
    assert "/campaigns/{campaign}/share" in required
    for path in required:
        url = path.replace("{campaign}", cid).replace("{proposal_id}", "p1")
        response = store_client.post(url)
        assert response.status_code == 422, (path, response.json)
        assert list(response.json["errors"]) in (["body"], ["command"])
    share = store_client.post(f"/campaigns/{cid}/share")
    assert share.json["errors"] == {"body": ["is required: a JSON object ({} takes every default)"]}
    assert store_client.post(f"/campaigns/{cid}/share", json={}).status_code == 201
