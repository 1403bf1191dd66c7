"""Generated requests: schemathesis over the OpenAPI document, Hypothesis bodies on live routes."""

from __future__ import annotations

from typing import Any

import schemathesis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.service.questlog import Questlog
from tests.api.conftest import QR
from webapi.app import create_app
from webapi.routes import page

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=12,
)


@given(body=st.dictionaries(st.sampled_from(["dice", "purpose", "faces", "x"]), json_values))
@settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_random_roll_bodies_never_get_a_5xx(
    client: FlaskClient, campaign: dict[str, Any], body: dict[str, Any]
) -> None:
    response = client.post(f"/campaigns/{campaign['id']}/rolls", json=body)
    assert response.status_code in (201, 400, 409, 422), (body, response.json)


@given(
    body=st.dictionaries(
        st.sampled_from(["game", "name", "house_rules", "client_seed"]), json_values
    )
)
@settings(
    max_examples=100,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_random_campaign_bodies_never_get_a_5xx(client: FlaskClient, body: dict[str, Any]) -> None:
    response = client.post("/campaigns", json=body)
    # 400: the test client writes a float infinity as Infinity, which is not JSON
    assert response.status_code in (201, 400, 422), (body, response.json)


def test_openapi_document_covers_every_route(flask_app: Flask) -> None:
    document = flask_app.test_client().get("/openapi.json").json
    assert document["openapi"].startswith("3.")
    routes = {
        str(rule.rule).replace("<", "{").replace(">", "}")
        for rule in flask_app.url_map.iter_rules()
        if rule.endpoint != "static"
        and not rule.rule.startswith("/openapi")
        and rule.endpoint not in page.OPEN  # the table page is not part of the API
        and rule.endpoint != QR  # nor its QR image of a checkpoint
    }
    assert routes <= set(document["paths"])


def test_schemathesis_finds_no_server_error(questlog: Questlog) -> None:
    app = create_app(questlog, auth=True, rate_limit=0, TESTING=True)
    _, secret = questlog.access.create_token("fuzzer", admin=True)
    bearer = {"Authorization": f"Bearer {secret}"}
    client = app.test_client()
    seeded = client.post(
        "/campaigns", json={"game": "quest-calendar", "name": "fuzz"}, headers=bearer
    ).json
    client.post(f"/campaigns/{seeded['id']}/rolls", json={"dice": "d20"}, headers=bearer)
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    failures: list[str] = []
    for operation in schema.get_all_operations():
        op = operation.ok()
        strategy = op.as_strategy()

        @given(case=strategy)
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
        def check(case: Any) -> None:
            if "campaign" in (case.path_parameters or {}):
                case.path_parameters["campaign"] = seeded["id"]
            if case.path_parameters and case.path_parameters.get("token") == "fuzzer":
                return  # revoking its own token would end the run, not find a server error
            if case.path.endswith("/stream"):
                return  # a live stream never ends: test_live_stream.py reads it in a thread
            response = case.call(headers=bearer)
            if response.status_code >= 500:
                failures.append(f"{case.method} {case.formatted_path}: {response.status_code}")

        check()
    assert not failures, failures
