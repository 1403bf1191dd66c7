"""``GET /analytics/sql`` (SQLite and PostgreSQL) and the analyst token: it runs a SELECT over
the dataset for admins and analysts; a refused query is a 400 problem naming why, a query out of
time a 503, an unknown parameter a 422; an analyst reads but never plays, reveals or manages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from flask import Flask

from domain.service.questlog import Questlog
from tests.api.conftest import TokenClient, client_as
from tests.projections.conftest import sync
from tests.projections.test_runners import _env
from webapi.app import create_app
from webapi.cli.main import main
from webapi.http.view_store import close_views, views_store


@pytest.fixture
def api(app: Questlog) -> Iterator[Flask]:
    flask_app = create_app(app, auth=True, rate_limit=0, TESTING=True)
    yield flask_app
    close_views(flask_app)


@pytest.fixture
def analyst(api: Flask, app: Questlog) -> TokenClient:
    _, secret = app.access.create_token("ana", role="analyst")
    return client_as(api, secret)


@pytest.fixture
def owner(api: Flask, app: Questlog) -> TokenClient:
    _, secret = app.access.create_token("olivia")
    return client_as(api, secret)


@pytest.fixture
def played(api: Flask, app: Questlog, owner: TokenClient) -> str:
    """A private campaign of the owner's with a few server rolls, applied to the API's views."""
    made = owner.post("/campaigns", json={"game": "quest-calendar", "name": "Private"})
    assert made.status_code == 201, made.json
    cid: str = made.json["id"]
    for _ in range(4):
        assert owner.post(f"/campaigns/{cid}/rolls", json={"dice": "3d6"}).status_code == 201
    with api.app_context():
        sync(app, views_store())
    return cid


def test_an_analyst_runs_sql_over_every_campaign(analyst: TokenClient, played: str) -> None:
    answer = analyst.get(
        "/analytics/sql",
        query_string={
            "q": "SELECT campaign_id, count(*) AS n, sum(len(faces)) AS dice FROM rolls "
            "GROUP BY ALL"
        },
    )
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert [c["name"] for c in body["columns"]] == ["campaign_id", "n", "dice"]
    assert body["columns"][1]["type"] == "BIGINT"
    assert body["rows"] == [[played, 4, 12]]
    assert body["truncated"] is False and body["tables"] == ["rolls"]
    assert body["positions"]["roll_log"] > 0
    lines = "SELECT count(*)\n  FROM rolls\n WHERE source = 'server'"
    counted = analyst.get("/analytics/sql", query_string={"q": lines})
    assert counted.status_code == 200 and counted.json["rows"] == [[4]]
    cut = analyst.get("/analytics/sql", query_string={"q": "SELECT * FROM events", "limit": 2})
    assert cut.status_code == 200 and cut.json["truncated"] is True
    assert len(cut.json["rows"]) == 2
    # an analyst reads every campaign and the other analytics too
    assert analyst.get(f"/campaigns/{played}").status_code == 200
    assert analyst.get(f"/campaigns/{played}/views/rolls").status_code == 200
    assert analyst.get("/analytics/dice").status_code == 200
    assert analyst.get("/analytics/campaigns").status_code == 200
    assert analyst.get("/views/campaigns").status_code == 200
    assert [c["id"] for c in analyst.get("/campaigns").json["items"]] == [played]
    me = analyst.get(f"/campaigns/{played}/me").json
    assert (me["role"], me["can_append"], me["can_manage"]) == ("analyst", False, False)


def test_an_analyst_cannot_play_reveal_or_manage(
    analyst: TokenClient, owner: TokenClient, played: str
) -> None:
    forbidden = [
        analyst.post(f"/campaigns/{played}/rolls", json={"dice": "d20"}),
        analyst.post(f"/campaigns/{played}/commands", json={"type": "start_page"}),
        analyst.post(f"/campaigns/{played}/dice/rotate", json={}),
        analyst.post("/campaigns", json={"game": "quest-calendar", "name": "Mine"}),
        analyst.post(f"/campaigns/{played}/members", json={"token_name": "x", "role": "viewer"}),
        analyst.get(f"/campaigns/{played}/members"),
        analyst.get(f"/campaigns/{played}/audit"),
        analyst.post("/admin/tokens", json={"name": "more"}),
        analyst.get("/projections"),
    ]
    for response in forbidden:
        assert response.status_code == 403, (response.request.path, response.json)
        assert response.mimetype == "application/problem+json"
    # the analyst token cannot be given a campaign role either
    added = owner.post(f"/campaigns/{played}/members", json={"token_name": "ana", "role": "player"})
    assert added.status_code == 409 and added.json["type"].endswith(":not-held"), added.json
    # and other tokens may not run SQL
    refused = owner.get("/analytics/sql", query_string={"q": "SELECT 1"})
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("q", "why"),
    [
        ("DELETE FROM rolls", "a DELETE statement"),
        ("SELECT * FROM read_csv('/etc/passwd')", "read_csv reads a file"),
        ("ATTACH '/tmp/x.db'", "an ATTACH statement"),
        ("SELECT * FROM duckdb_secrets()", "duckdb_secrets"),
        ("SELECT 1; SELECT 2", "2 statements"),
    ],
)
def test_a_refused_query_is_a_400_problem_naming_why(
    analyst: TokenClient, played: str, q: str, why: str
) -> None:
    response = analyst.get("/analytics/sql", query_string={"q": q})
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert response.json["type"] == "urn:questlog:problem:sql-refused"
    assert why in response.json["detail"]


def test_a_failed_a_slow_and_a_malformed_request(analyst: TokenClient, played: str) -> None:
    failed = analyst.get("/analytics/sql", query_string={"q": "SELECT nosuch FROM rolls"})
    assert failed.status_code == 400 and "nosuch" in failed.json["detail"]
    slow = analyst.get(
        "/analytics/sql",
        query_string={
            "q": "SELECT count(*) FROM range(100000000) a, range(100000000) b "
            "WHERE a.range = -b.range - 1",
            "timeout": 0.3,
        },
    )
    assert slow.status_code == 503
    assert slow.mimetype == "application/problem+json"
    assert "0.3 s" in slow.json["detail"]
    unknown = analyst.get("/analytics/sql", query_string={"q": "SELECT 1", "format": "csv"})
    assert unknown.status_code == 422
    assert "format" in unknown.json["errors"]
    too_many = analyst.get("/analytics/sql", query_string={"q": "SELECT 1", "limit": 10_001})
    assert too_many.status_code == 422
    missing = analyst.get("/analytics/sql")
    assert missing.status_code == 422


def test_the_route_is_documented(api: Flask) -> None:
    document = api.test_client().get("/openapi.json").json
    operation = document["paths"]["/analytics/sql"]["get"]
    assert operation["summary"]
    assert {"200", "400", "403", "422", "503"} <= set(operation["responses"])


def test_questlog_token_create_makes_an_analyst(app: Questlog) -> None:
    done = CliRunner().invoke(
        main, ["token", "create", "--name", "ann", "--role", "analyst"], env=_env(app.config)
    )
    assert done.exit_code == 0, done.output
    assert "analyst token ann" in done.output
    secret = done.output.strip().splitlines()[-1]
    token = app.access.authenticate(secret)
    assert token is not None and token.analyst and not token.admin
    listed = {t.name: t for t in app.access.tokens()}
    assert listed["ann"].analyst
