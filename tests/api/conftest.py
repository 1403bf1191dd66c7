"""API test fixtures: a Flask test client over a fresh SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.application import Questlog
from domain.store import StoreConfig
from webapi.app import create_app


@pytest.fixture
def questlog(tmp_path: Path) -> Iterator[Questlog]:
    app = Questlog(StoreConfig(sqlite_path=tmp_path / "api.db"))
    yield app
    app.close()


@pytest.fixture
def flask_app(questlog: Questlog) -> Flask:
    return create_app(questlog, TESTING=True)


@pytest.fixture
def client(flask_app: Flask) -> FlaskClient:
    return flask_app.test_client()


@pytest.fixture
def campaign(client: FlaskClient) -> dict[str, Any]:
    response = client.post("/campaigns", json={"game": "quest-calendar", "name": "API test"})
    assert response.status_code == 201, response.json
    body: dict[str, Any] = response.json
    return body


def stored_state(client: FlaskClient, campaign_id: str) -> tuple[int, str, int]:
    """Version, head hash and number of campaigns: what a refused request must not change."""
    body = client.get(f"/campaigns/{campaign_id}").json
    listing = client.get("/campaigns?limit=1000").json
    return body["version"], body["head_hash"], len(listing["items"])
