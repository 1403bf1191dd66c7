"""Authorization is declared on each route (issue 12): a view method names the action its caller's
role must allow and, for a player, the body field of its seat; nothing matches URL suffixes."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from domain.service.application import Questlog
from webapi.access import ACCESS_ATTRIBUTE, ADMIN_ONLY_PATHS, OPEN_ENDPOINTS, declared_access
from webapi.app import create_app


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


def test_admin_routes_are_those_the_openapi_document_marks(flask_app: Flask) -> None:
    with flask_app.test_request_context():
        admin = {
            rule
            for rule, method, endpoint in routes(flask_app)
            if (access := declared_access(endpoint, method)) and access.action == "admin"
        }
    marked = {rule for rule, _, _ in routes(flask_app) if rule.startswith(ADMIN_ONLY_PATHS)}
    assert admin == marked


def test_a_route_that_declares_nothing_is_refused(questlog: Questlog) -> None:
    app = create_app(questlog, auth=True, rate_limit=0, TESTING=True)

    @app.route("/undeclared")
    def undeclared() -> str:
        return "should never be answered"

    assert not hasattr(undeclared, ACCESS_ATTRIBUTE)
    _, secret = questlog.create_token("someone")
    client: FlaskClient = app.test_client()
    answer = client.get("/undeclared", headers={"Authorization": f"Bearer {secret}"})
    assert answer.status_code == 403
    assert "declares no access" in answer.json["detail"]
