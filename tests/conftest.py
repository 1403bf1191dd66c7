"""Shared fixtures: every application test runs once on SQLite and once on PostgreSQL.

Each test gets a store of its own: a new SQLite file under ``tmp_path`` or a new PostgreSQL
schema that is dropped afterwards, so no test ever sees another test's rows.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import UUID

import psycopg
import pytest
from flask import Flask
from hypothesis import HealthCheck, settings
from psycopg import sql

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests import contract
from tests.machine import missing

# Hypothesis on a slow or busy machine: no per-example deadline and no "too slow" health check,
# in every property test (a test's own @settings still sets its number of examples). A property
# that fails does so on its data, never on the machine's speed.
settings.register_profile(
    "questlog", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("questlog")

BROWSER_TESTS = "tests/browser/"

# Every Flask test client of the suite checks its answers against the OpenAPI document
# (tests/contract.py); an app's own ``test_client_class`` (tests/api/conftest.py) extends it.
Flask.test_client_class = contract.ContractClient


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Fail a test that got an answer the document does not describe, even when the check's
    assertion was raised in a thread of the test and lost there."""
    contract.FOUND.clear()
    result = yield
    if contract.FOUND:
        found = "\n".join(f.message() for f in contract.FOUND)
        contract.FOUND.clear()
        pytest.fail(f"answers that do not match the OpenAPI document:\n{found}", pytrace=False)
    return result


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many answers this process checked against the document (none shown under xdist,
    whose workers check them), and the known nonconformances met."""
    if contract.CHECKED[0]:
        terminalreporter.write_line(
            f"contract: {contract.CHECKED[0]} answers checked against the OpenAPI document, "
            f"{len(contract.KNOWN_MET)} known nonconformances met"
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Groups for the README's ``-n 2 --dist loadgroup`` (pytest-xdist): each test file runs whole
    in one worker, since its tests share the file's servers and fixtures, and the browser tests
    run together in one worker, in file order, since they share one seeded server whose campaigns
    some of them play on. Without the plugin (``-p no:xdist``) there is nothing to group."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        path = item.nodeid.split("::")[0]
        group = BROWSER_TESTS if path.startswith(BROWSER_TESTS) else path
        item.add_marker(pytest.mark.xdist_group(group))


SETUPS: dict[str, dict[str, object]] = {
    "quest-calendar": {},
    "calendar-board": {"players": [{"id": "A"}, {"id": "B"}]},
}
"""The smallest set-up each game accepts."""
DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/test"
CONNECT_TIMEOUT_SECONDS = 3
STORES = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


def _database_url() -> str:
    return os.environ.get("QUESTLOG_TEST_DATABASE_URL", DEFAULT_DATABASE_URL)


HORIZON_LOCK = (0x51554553, 0x30)
"""The advisory lock (two keys) that keeps a test holding a write transaction open alone on the
server."""


@pytest.fixture(autouse=True)
def _alone_on_the_server(request: pytest.FixtureRequest) -> Iterator[None]:
    """A PostgreSQL test holds ``HORIZON_LOCK`` shared, one marked ``holds_transactions``
    exclusively, for the whole test. On PostgreSQL a reader of the log stops before the oldest
    open append of its store, and, for a moment, before the oldest transaction running anywhere
    (``domain.storage.log_order``), so a test that holds transactions open on purpose is kept
    apart from the others, whose views it could otherwise hold back, and theirs its."""
    node = request.node
    if node.get_closest_marker("postgres") is None:
        yield
        return
    exclusive = node.get_closest_marker("holds_transactions") is not None
    try:
        connection = psycopg.connect(
            _database_url(), autocommit=True, connect_timeout=CONNECT_TIMEOUT_SECONDS
        )
    except psycopg.Error:  # the test's own fixture skips, or fails under CI, with the reason
        yield
        return
    with connection:
        take = "pg_advisory_lock" if exclusive else "pg_advisory_lock_shared"
        connection.execute(f"SELECT {take}(%s, %s)", HORIZON_LOCK)
        yield


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test database URL once PostgreSQL answers; a skip (under CI a failure) if not."""
    url = _database_url()
    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_SECONDS) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        message = f"PostgreSQL not reachable at {url}: {exc}"
        missing(message)
    return url


class StoreFactory:
    """Makes fresh, empty stores of one kind and removes them when the test is over."""

    def __init__(self, kind: str, tmp_path: Path, postgres_url: str | None) -> None:
        self.kind = kind
        self.tmp_path = tmp_path
        self.postgres_url = postgres_url
        self.schemas: list[str] = []
        self.files = 0

    def new(self) -> StoreConfig:
        """A store nobody has used yet: a new SQLite file or a new PostgreSQL schema."""
        if self.kind == "sqlite":
            self.files += 1
            return StoreConfig(sqlite_path=self.tmp_path / f"store-{self.files}" / "questlog.db")
        assert self.postgres_url is not None
        schema = f"ql_{secrets.token_hex(6)}"
        with psycopg.connect(self.postgres_url, autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        self.schemas.append(schema)
        return StoreConfig(database_url=self.postgres_url, postgres_schema=schema)

    def remove_all(self) -> None:
        """Drop every schema this factory made (SQLite files go with ``tmp_path``)."""
        if not self.schemas:
            return
        assert self.postgres_url is not None
        with psycopg.connect(self.postgres_url, autocommit=True) as connection:
            # A connection left open by a test must not hang the whole run.
            connection.execute("SET lock_timeout = '10s'")
            for schema in self.schemas:
                connection.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
                )
        self.schemas.clear()


def _factory(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> StoreFactory:
    url = request.getfixturevalue("postgres_url") if kind == "postgres" else None
    return StoreFactory(kind, tmp_path, url)


@pytest.fixture
def factory(tmp_path: Path, postgres_url: str) -> Iterator[StoreFactory]:
    """New PostgreSQL stores for a PostgreSQL-only test, removed after it."""
    made = StoreFactory("postgres", tmp_path, postgres_url)
    yield made
    made.remove_all()


@pytest.fixture(params=STORES)
def store_config(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreConfig]:
    """A fresh store: a SQLite file in ``tmp_path`` or a PostgreSQL schema of its own."""
    factory = _factory(request.param, tmp_path, request)
    yield factory.new()
    factory.remove_all()


@pytest.fixture
def stores(
    store_config: StoreConfig, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[StoreFactory]:
    """More fresh stores of the same kind as ``store_config``, removed after the test."""
    factory = _factory(store_config.kind, tmp_path / "more", request)
    yield factory
    factory.remove_all()


@pytest.fixture
def make_app(store_config: StoreConfig) -> Iterator[Callable[[], Questlog]]:
    """Opens more applications on this test's store; all are closed before the store is removed."""
    opened: list[Questlog] = []

    def make() -> Questlog:
        app = Questlog(store_config)
        opened.append(app)
        return app

    yield make
    for app in reversed(opened):
        app.close()


@pytest.fixture
def app(make_app: Callable[[], Questlog]) -> Questlog:
    """The application on this test's store (closed, pool and all, before the store goes)."""
    return make_app()


class RawStore:
    """The store's tables read and written with plain SQL, as anyone with a database shell can."""

    def __init__(self, app: Questlog) -> None:
        self.config = app.config
        self.events_table: str = app.recorder.events_table_name
        assert app.snapshots is not None
        self.snapshots_table: str = app.snapshots.recorder.events_table_name

    def _run(self, statement: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """Run one statement in its own committed transaction; '?' marks a parameter."""
        if self.config.kind == "sqlite":
            assert self.config.sqlite_path is not None
            connection = sqlite3.connect(self.config.sqlite_path, timeout=30)
            try:
                with connection:
                    return list(connection.execute(statement, params).fetchall())
            finally:
                connection.close()
        assert self.config.database_url is not None
        with psycopg.connect(self.config.database_url, autocommit=True) as connection:
            connection.execute(
                sql.SQL("SET search_path TO {}").format(
                    sql.Identifier(str(self.config.postgres_schema))
                )
            )
            cursor = connection.execute(statement.replace("?", "%s"), params)
            return list(cursor.fetchall()) if cursor.description else []

    def _id(self, campaign_id: UUID) -> object:
        # eventsourcing keeps SQLite ids as 32 hex digits and PostgreSQL ids as uuid.
        return campaign_id.hex if self.config.kind == "sqlite" else campaign_id

    def tables(self) -> list[str]:
        """Every table in the store."""
        if self.config.kind == "sqlite":
            rows = self._run("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            rows = self._run(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = ?",
                (self.config.postgres_schema,),
            )
        return sorted(str(row[0]) for row in rows)

    def table_bytes(self, table: str) -> bytes:
        """Every value of every row of a table, as bytes, run together."""
        chunks: list[bytes] = []
        for row in self._run(f"SELECT * FROM {table}"):
            for value in row:
                if isinstance(value, bytes | bytearray | memoryview):
                    chunks.append(bytes(value))
                else:
                    chunks.append(str(value).encode())
        return b"\n".join(chunks)

    def event_state(self, campaign_id: UUID, version: int) -> bytes:
        """The stored ``state`` bytes of one event."""
        rows = self._run(
            f"SELECT state FROM {self.events_table} "
            "WHERE originator_id = ? AND originator_version = ?",
            (self._id(campaign_id), version),
        )
        assert len(rows) == 1, f"no stored event {campaign_id} v{version}"
        return bytes(rows[0][0])

    def set_event_state(self, campaign_id: UUID, version: int, state: bytes) -> None:
        """Overwrite the stored ``state`` bytes of one event."""
        self._run(
            f"UPDATE {self.events_table} SET state = ? "
            "WHERE originator_id = ? AND originator_version = ?",
            (state, self._id(campaign_id), version),
        )
        assert self.event_state(campaign_id, version) == state

    def delete_event(self, campaign_id: UUID, version: int) -> None:
        """Delete one stored event."""
        self._run(
            f"DELETE FROM {self.events_table} WHERE originator_id = ? AND originator_version = ?",
            (self._id(campaign_id), version),
        )

    def snapshot_versions(self, campaign_id: UUID) -> list[int]:
        """The versions at which the campaign has stored snapshots."""
        rows = self._run(
            f"SELECT originator_version FROM {self.snapshots_table} WHERE originator_id = ? "
            "ORDER BY originator_version",
            (self._id(campaign_id),),
        )
        return [int(row[0]) for row in rows]


@pytest.fixture
def raw(app: Questlog) -> RawStore:
    """Plain SQL access to the tables behind ``app``."""
    return RawStore(app)


@pytest.fixture
def new_campaign(app: Questlog) -> Callable[..., UUID]:
    """Creates a campaign on ``app`` and returns its id."""

    def create(
        game: str = "quest-calendar",
        name: str = "The Lost Calendar",
        house_rules: dict[str, object] | None = None,
    ) -> UUID:
        outcome = app.campaigns.create_campaign(
            game=game,
            name=name,
            house_rules=house_rules,
            setup=SETUPS[game],
        )
        return outcome.campaign_id

    return create
