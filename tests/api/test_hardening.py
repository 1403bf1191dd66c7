"""What a security review asked for: no-store and nosniff headers, no probing of token names or
of the whole log, short echoes, quiet logs under a storm of failures, a worker's health."""

from __future__ import annotations

from flask import Flask

from domain.application import Questlog
from tests.api.conftest import client_as

PROBLEM = "application/problem+json"


def test_projections_are_for_admin_tokens_only(store_app: Flask, app: Questlog) -> None:
    _, player = app.create_token("player")
    _, admin = app.create_token("ops", admin=True)
    refused = client_as(store_app, player).get("/projections")
    assert refused.status_code == 403 and refused.mimetype == PROBLEM
    assert "head" not in refused.json and "views" not in refused.json
    shown = client_as(store_app, admin).get("/projections")
    assert shown.status_code == 200 and "head" in shown.json
