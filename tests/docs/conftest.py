"""Fixtures of the doc tests: a client of a fresh app with access control off, as on a loopback
`questlog serve` (the docs' examples run against one), on SQLite and on PostgreSQL."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from webapi.app import create_app


@pytest.fixture
def client(app: Questlog) -> FlaskClient:
    """A test client of a fresh app (``app`` runs once per store), access control off."""
    return create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
