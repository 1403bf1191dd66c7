"""Authorization is declared on each route: a view method names the action its caller's
role must allow and, for a player, the body field of its seat; nothing matches URL suffixes."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from webapi.app import create_app
from webapi.http.access import OPEN_ENDPOINTS
from webapi.http.declared import ACCESS_ATTRIBUTE, declared_access
from webapi.routes import page


def routes(app: Flask) -> list[tuple[str, str, str]]:
    """(rule, method, endpoint) of every route but the open ones and OPTIONS."""
    return sorted(
        (rule.rule, method, rule.endpoint)
        for rule in app.url_map.iter_rules()
        if rule.endpoint not in OPEN_ENDPOINTS
        for method in sorted(rule.methods or ())
        if method not in ("OPTIONS", "HEAD")
    )


def test_every_route_declares_its_access(flask_app: Flask) -> None:
    with flask_app.test_request_context():
        undeclared = [
            (rule, method)
            for rule, method, endpoint in routes(flask_app)
            if declared_access(endpoint, method) is None
        ]
    assert undeclared == []


def test_every_campaign_route_declares_a_campaign_action(flask_app: Flask) -> None:
    with flask_app.test_request_context():
        for rule, method, endpoint in routes(flask_app):
            access = declared_access(endpoint, method)
            assert access is not None
            if "<campaign>" in rule:
                assert access.action not in ("any", "admin"), (rule, method, access)


APPENDING = {
    ("/campaigns", "POST"),
    ("/campaigns/import", "POST"),
    ("/campaigns/<campaign>/commands", "POST"),
    ("/campaigns/<campaign>/house-rules", "POST"),
    ("/campaigns/<campaign>/rolls", "POST"),
    ("/campaigns/<campaign>/dice/client-seed", "POST"),
    ("/campaigns/<campaign>/dice/rotate", "POST"),
    ("/campaigns/<campaign>/rollback", "POST"),
    ("/campaigns/<campaign>/rollback/proposals", "POST"),
    ("/campaigns/<campaign>/rollback/proposals/<proposal_id>/approve", "POST"),
    ("/campaigns/<campaign>/fork", "POST"),
}
"""The routes that append to a campaign's log: what the rate limit counts."""


def openapi_path(rule: str) -> str:
    return rule.replace("<", "{").replace(">", "}")


def test_the_appending_routes_are_those_that_declare_it(flask_app: Flask) -> None:
    with flask_app.test_request_context():
        declared = {
            (rule, method)
            for rule, method, endpoint in routes(flask_app)
            if (access := declared_access(endpoint, method)) and access.appends
        }
    assert declared == APPENDING


def test_the_openapi_document_reads_each_routes_declaration(
    flask_app: Flask, client: FlaskClient
) -> None:
    paths = client.get("/openapi.json").json["paths"]
    with flask_app.test_request_context():
        for rule, method, endpoint in routes(flask_app):
            access = declared_access(endpoint, method)
            assert access is not None
            if endpoint in page.OPEN:  # the table page is not in the document; it declares public
                assert access.action == "public", endpoint
                continue
            if endpoint == "checkpoint_qr.checkpoint_qr":  # the page's QR image: not in it either
                assert access.action == "read", endpoint
                continue
            responses = paths[openapi_path(rule)][method.lower()]["responses"]
            assert ("429" in responses) == access.appends, (rule, method)
            if access.action == "admin":
                assert "403" in responses, (rule, method)


def test_a_route_that_appends_is_rate_limited_and_one_that_does_not_is_not(
    questlog: Questlog,
) -> None:
    app = create_app(questlog, auth=True, rate_limit=0.01, TESTING=True)  # a burst of one
    _, secret = questlog.access.create_token("limited")
    client: FlaskClient = app.test_client()
    headers = {"Authorization": f"Bearer {secret}"}
    created = client.post(
        "/campaigns", json={"game": "quest-calendar", "name": "x"}, headers=headers
    )
    assert created.status_code == 201
    cid = created.json["id"]
    for _ in range(3):  # reading never takes from the bucket
        assert client.get(f"/campaigns/{cid}", headers=headers).status_code == 200
    roll = client.post(
        f"/campaigns/{cid}/rolls", json={"dice": "d6", "purpose": "p"}, headers=headers
    )
    assert roll.status_code == 429


def test_a_route_that_declares_nothing_is_refused(questlog: Questlog) -> None:
    app = create_app(questlog, auth=True, rate_limit=0, TESTING=True)

    @app.route("/undeclared")
    def undeclared() -> str:
        return "should never be answered"

    assert not hasattr(undeclared, ACCESS_ATTRIBUTE)
    _, secret = questlog.access.create_token("someone")
    client: FlaskClient = app.test_client()
    answer = client.get("/undeclared", headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 403
    assert "declares no access" in answer.json["detail"]
