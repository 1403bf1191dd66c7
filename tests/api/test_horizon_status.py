"""What holds the log's horizon back, where an operator looks (``domain.storage.log_order``):
``GET /projections``, ``questlog projections status``, the metric
``questlog_log_horizon_age_seconds`` and a warning naming the transaction."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import psycopg
import pytest
from flask.testing import FlaskClient

from domain.service.questlog import Questlog
from domain.storage.log_order import writer_mark
from projections import reads
from projections.cli import horizon_text
from tests.api.conftest import client_as
from tests.api.test_operations import scrape
from tests.conftest import StoreFactory
from webapi.app import create_app

AGE = ("questlog_log_horizon_age_seconds", ())


@pytest.fixture
def postgres_app(factory: StoreFactory) -> Iterator[Questlog]:
    opened = Questlog(factory.new())
    yield opened
    opened.close()


def admin_client(app: Questlog) -> FlaskClient:
    _, secret = app.access.create_token("operator", admin=True)
    return client_as(create_app(app, auth=True, rate_limit=0, TESTING=True), secret)


@pytest.mark.postgres
def test_an_open_append_is_named_with_its_age_and_logged_past_the_warning(
    postgres_app: Questlog, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    client = admin_client(postgres_app)
    assert client.get("/projections").json["horizon"] == {"age_seconds": 0.0, "held_by": None}
    assert scrape(client)[AGE] == 0

    recorder = postgres_app.recorder
    call, keys = writer_mark(recorder.datastore.schema, recorder.events_table_name)  # type: ignore[attr-defined]
    assert postgres_app.config.database_url is not None
    with psycopg.connect(postgres_app.config.database_url, autocommit=False) as held:
        held.execute("SET application_name = 'stuck append'")
        held.execute(f"SELECT {call}", keys)  # an append that took its mark ...
        (xid,) = held.execute("SELECT pg_current_xact_id()::text").fetchone() or ()  # ... and wrote
        time.sleep(0.1)
        monkeypatch.setattr(reads, "HORIZON_WARNING_SECONDS", 0.05)

        with caplog.at_level(logging.WARNING, logger="questlog.views"):
            horizon = client.get("/projections").json["horizon"]
        assert horizon["held_by"]["transaction"] == xid
        assert horizon["held_by"]["application_name"] == "stuck append"
        assert horizon["held_by"]["state"] == "idle in transaction"
        assert horizon["age_seconds"] >= 0.1
        assert f"held by transaction {xid} (pid {horizon['held_by']['pid']}" in caplog.text
        assert scrape(client)[AGE] >= 0.1
        assert f"held by transaction {xid}" in horizon_text(horizon)
        held.rollback()

    assert scrape(client)[AGE] == 0


def test_sqlite_has_no_horizon_and_its_age_is_zero(client: FlaskClient) -> None:
    assert client.get("/projections").json["horizon"] is None
    assert scrape(client)[AGE] == 0
    assert "SQLite" in horizon_text(None)
