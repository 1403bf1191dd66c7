"""What a security review asked for: no-store and nosniff headers, no probing of token names or
of the whole log, short echoes, quiet logs under a storm of failures, a worker's health."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from domain.application import Questlog
from tests.api.conftest import client_as
from webapi.app import create_app

PROBLEM = "application/problem+json"


def test_projections_are_for_admin_tokens_only(store_app: Flask, app: Questlog) -> None:
    _, player = app.create_token("player")
    _, admin = app.create_token("ops", admin=True)
    refused = client_as(store_app, player).get("/projections")
    assert refused.status_code == 403 and refused.mimetype == PROBLEM
    assert "head" not in refused.json and "views" not in refused.json
    shown = client_as(store_app, admin).get("/projections")
    assert shown.status_code == 200 and "head" in shown.json


def test_answers_to_a_token_are_not_stored_and_no_answer_is_sniffed(
    store_app: Flask, store_client: FlaskClient, store_campaign: dict[str, Any]
) -> None:
    cid = store_campaign["id"]
    for response in (
        store_client.get(f"/campaigns/{cid}"),
        store_client.post(f"/campaigns/{cid}/rolls", json={"dice": "d6"}),
        store_client.get(f"/campaigns/{cid}/rolls/99-1"),
        store_client.post("/campaigns", json={"game": "chess"}),
    ):
        assert response.headers["Cache-Control"] == "no-store", response.status_code
        assert response.headers["X-Content-Type-Options"] == "nosniff"
    anonymous = client_as(store_app, None)
    for response in (anonymous.get("/openapi.json"), anonymous.get(f"/campaigns/{cid}")):
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert "no-store" not in response.headers.get("Cache-Control", "")


def test_without_auth_every_answer_is_still_nosniff(questlog: Questlog) -> None:
    client = create_app(questlog, auth=False, rate_limit=0, TESTING=True).test_client()
    for response in (client.get("/campaigns"), client.get("/nowhere")):
        assert response.headers["X-Content-Type-Options"] == "nosniff"
