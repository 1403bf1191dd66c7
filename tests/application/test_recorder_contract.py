"""eventsourcing's own contract for application recorders, run on Questlog's recorders.

The library's ``ApplicationRecorderTestCase`` inserts and selects events and notifications,
checks the notification ids, and appends from many threads at once. Questlog's PostgreSQL
recorder takes no table lock (``domain.storage.log_order``): what the contract
asks of inserts and of reads by notification id still holds. Its optional subscription test is
not run: the library's subscription is refused (``PostgresRecorderHooks.subscribe``), since a
reader by notification id could pass an event that commits late.
"""

from __future__ import annotations

import secrets
import threading
from pathlib import Path

import psycopg
import pytest
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore
from eventsourcing.tests.persistence import ApplicationRecorderTestCase
from psycopg import sql

from domain.storage.log_order import EVENTS_TABLE
from domain.storage.recorders import PostgresRecorder, SQLiteRecorder
from tests.conftest import _database_url


@pytest.mark.postgres
@pytest.mark.usefixtures("postgres_url")  # skips (fails under CI) without a server
class TestQuestlogPostgresRecorder(ApplicationRecorderTestCase[PostgresRecorder]):
    def setUp(self) -> None:
        self.schema = f"contract_{secrets.token_hex(6)}"
        info = psycopg.conninfo.conninfo_to_dict(_database_url())
        with psycopg.connect(_database_url(), autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(self.schema)))
        self.datastore = PostgresDatastore(
            dbname=str(info.get("dbname", "test")),
            host=str(info.get("host", "127.0.0.1")),
            port=str(info.get("port", "5432")),
            user=str(info.get("user", "postgres")),
            password=str(info.get("password", "")),
            schema=self.schema,
        )
        super().setUp()

    def tearDown(self) -> None:
        self.datastore.close()
        with psycopg.connect(_database_url(), autocommit=True) as connection:
            statement = sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(self.schema))
            connection.execute(statement)
        super().tearDown()

    def create_recorder(self) -> PostgresRecorder:
        recorder = PostgresRecorder(self.datastore, events_table_name=EVENTS_TABLE)
        recorder.create_table()
        return recorder


class TestQuestlogSQLiteRecorder(ApplicationRecorderTestCase[SQLiteRecorder]):
    @pytest.fixture(autouse=True)
    def _directory(self, tmp_path: Path) -> None:
        self.directory = tmp_path

    def setUp(self) -> None:
        self.datastore = SQLiteDatastore(str(self.directory / "contract.db"))
        super().setUp()

    def tearDown(self) -> None:
        # The library's concurrency tests tell their reader threads to stop but do not wait
        # for them: closing the store under a reader still in a query can crash the process
        # (SQLite's connections are closed from another thread). Wait for them first.
        for thread in threading.enumerate():
            if getattr(getattr(thread, "_target", None), "__name__", "") == "read_continuously":
                thread.join(10)
        self.datastore.close()
        super().tearDown()

    def create_recorder(self) -> SQLiteRecorder:
        recorder = SQLiteRecorder(self.datastore, events_table_name=EVENTS_TABLE)
        recorder.create_table()
        return recorder
