"""API test fixtures: a Flask test client over a fresh SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.service.command_results import CommandCounters
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.contract import ContractClient
from webapi.app import create_app
from webapi.routes import page


@pytest.fixture
def questlog(tmp_path: Path) -> Iterator[Questlog]:
    app = Questlog(StoreConfig(sqlite_path=tmp_path / "api.db"))
    yield app
    app.close()


class TokenClient(ContractClient):
    """A test client that sends a bearer token with every request (unless one is given)."""

    token: str | None = None

    def open(self, *args: Any, **kwargs: Any) -> Any:
        """Add ``Authorization: Bearer <token>`` to the request."""
        if self.token is not None:
            headers = dict(kwargs.pop("headers", None) or {})
            headers.setdefault("Authorization", f"Bearer {self.token}")
            kwargs["headers"] = headers
        return super().open(*args, **kwargs)


@pytest.fixture
def admin_token(questlog: Questlog) -> str:
    """The secret of an admin token: what the API tests act as."""
    _, secret = questlog.access.create_token("test-admin", admin=True)
    return secret


@pytest.fixture
def flask_app(questlog: Questlog) -> Flask:
    return create_app(questlog, auth=True, rate_limit=0, TESTING=True)


@pytest.fixture
def client(flask_app: Flask, admin_token: str) -> FlaskClient:
    return client_as(flask_app, admin_token)


def client_as(flask_app: Flask, token: str | None) -> TokenClient:
    """A test client acting as this token (None: no token at all)."""
    flask_app.test_client_class = TokenClient
    client = flask_app.test_client()
    assert isinstance(client, TokenClient)
    client.token = token
    return client


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


@pytest.fixture
def store_app(app: Questlog) -> Flask:
    """The API with access control on this test's store (SQLite or PostgreSQL, see
    tests/conftest.py), so a test runs on both stores."""
    return create_app(app, auth=True, rate_limit=0, TESTING=True)


@pytest.fixture
def store_client(store_app: Flask, app: Questlog) -> TokenClient:
    """An admin client of ``store_app``."""
    _, secret = app.access.create_token("store-admin", admin=True)
    return client_as(store_app, secret)


@pytest.fixture
def store_campaign(store_client: FlaskClient) -> dict[str, Any]:
    """A quest-calendar campaign on ``store_app``."""
    response = store_client.post("/campaigns", json={"game": "quest-calendar", "name": "Both"})
    assert response.status_code == 201, response.json
    body: dict[str, Any] = response.json
    return body


QR = "checkpoint_qr.checkpoint_qr"
"""The endpoint of the QR image of a campaign's signed checkpoint (``routes.checkpoint_qr``)."""


def api_routes() -> list[tuple[str, str]]:
    """Every (rule, method) of the API, read from an app that never serves a request (not the
    table page's HTML routes, which are no part of the API)."""
    # No store: only the metrics' hooks on the command counters are touched while building.
    stand_in = SimpleNamespace(counters=CommandCounters())
    app = create_app(cast(Questlog, stand_in), auth=True, rate_limit=0)
    return sorted(
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        and not rule.rule.startswith("/openapi")
        and rule.endpoint not in page.OPEN  # the table page: tests/api/test_page_routes.py
        and rule.endpoint != QR  # the page's QR image, not in the document: test_log_routes.py
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})
    )
