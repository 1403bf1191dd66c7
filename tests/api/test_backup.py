"""Backups taken under load restore to a store whose every campaign audits clean and is a prefix
of the live one: `questlog backup` on SQLite, pg_dump/pg_restore on PostgreSQL
with the commands docs/operations.md gives."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit
from uuid import UUID

import psycopg
import pytest
from psycopg import sql

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.api.test_cli_and_server import QUESTLOG, run
from tests.conftest import StoreFactory
from tests.machine import missing

CAMPAIGNS = 4
ROLLS_BEFORE = 40
"""Rolls stored before the backup starts; the load goes on while it runs."""


class Load:
    """A thread appending rolls round-robin to several campaigns until stopped."""

    def __init__(self, config: StoreConfig) -> None:
        self.app = Questlog(config)
        self.ids = [
            self.app.campaigns.create_campaign(game="quest-calendar", name=f"c{n}").campaign_id
            for n in range(CAMPAIGNS)
        ]
        self.rolls = 0
        self.errors: list[BaseException] = []
        self.stop = threading.Event()
        self.enough = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        """Roll until stopped; an error stops the load and fails the test."""
        try:
            while not self.stop.is_set():
                cid = self.ids[self.rolls % CAMPAIGNS]
                self.app.dice.roll(cid, notation="d20", purpose="load")
                self.rolls += 1
                if self.rolls >= ROLLS_BEFORE:
                    self.enough.set()
        except BaseException as error:
            self.errors.append(error)
            self.enough.set()


@contextmanager
def running(config: StoreConfig) -> Iterator[Load]:
    """A load running for the duration of the block (stopped and closed after it, always)."""
    load = Load(config)
    load.thread.start()
    try:
        assert load.enough.wait(120), "the load did not get going"
        yield load
    finally:
        load.stop.set()
        load.thread.join(60)
        load.app.close()
    assert not load.errors, load.errors


def campaign_ids(app: Questlog) -> list[UUID]:
    """Every campaign in a store."""
    items, _ = app.reading.list_campaigns(limit=1000)
    return [event.originator_id for _, event in items]


def assert_a_clean_prefix(live: StoreConfig, copy: StoreConfig, expected: int) -> int:
    """Every campaign of the copy audits clean and is a prefix of the live one; the events."""
    original, restored = Questlog(live), Questlog(copy)
    try:
        ids = campaign_ids(restored)
        assert sorted(ids) == sorted(campaign_ids(original))
        assert len(ids) == expected
        events = 0
        for cid in ids:
            report, whole = restored.reading.audit(cid), original.reading.audit(cid)
            assert report.ok and report.chain_ok, (cid, report.problems)
            assert report.head_version <= whole.head_version
            assert report.head_hash in whole.hashes  # the chain: the same events up to there
            events += report.head_version
        restored.dice.roll(ids[0], notation="d6", purpose="after the restore")  # it takes writes
        return events
    finally:
        restored.close()
        original.close()


def backup(db: Path, target: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run `questlog backup` as an operator would."""
    env = {**os.environ, "QUESTLOG_DB": str(db)}
    env.pop("QUESTLOG_DATABASE_URL", None)
    return subprocess.run(
        [*QUESTLOG, "backup", str(target), *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_sqlite_backup_taken_under_load_restores_every_campaign_clean(tmp_path: Path) -> None:
    live = StoreConfig(sqlite_path=tmp_path / "live" / "questlog.db")
    target = tmp_path / "copy.db"
    with running(live) as load:
        at_start = load.rolls
        done = backup(live.sqlite_path or Path(), target)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Backed up the store" in done.stdout
        during = load.rolls - at_start
    events = assert_a_clean_prefix(live, StoreConfig(sqlite_path=target), CAMPAIGNS)
    assert events >= CAMPAIGNS + ROLLS_BEFORE
    assert during > 0, "no roll was appended while the backup ran: it proved nothing"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    assert not Path(f"{target}-wal").exists()  # one self-contained file
    verified = run(["verify", "--all"], target)  # what docs/operations.md has an operator run
    assert verified.returncode == 0, verified.stdout
    assert f"{CAMPAIGNS} campaigns audited, 0 failed." in verified.stdout


def test_backup_refuses_an_existing_file_unless_forced(tmp_path: Path) -> None:
    db = tmp_path / "questlog.db"
    Questlog(StoreConfig(sqlite_path=db)).close()
    target = tmp_path / "there.db"
    target.write_text("keep me")
    refused = backup(db, target)
    assert refused.returncode == 2
    assert "exists; add --force" in refused.stdout
    assert target.read_text() == "keep me"
    forced = backup(db, target, "--force")
    assert forced.returncode == 0, forced.stdout
    app = Questlog(StoreConfig(sqlite_path=target))
    app.close()


def test_backup_refuses_a_missing_store_without_creating_one(tmp_path: Path) -> None:
    refused = backup(tmp_path / "nowhere.db", tmp_path / "copy.db")
    assert refused.returncode == 2
    assert "No SQLite store" in refused.stdout
    assert not (tmp_path / "nowhere.db").exists() and not (tmp_path / "copy.db").exists()


def test_backup_refuses_postgresql_and_points_at_pg_dump(tmp_path: Path) -> None:
    env = {**os.environ, "QUESTLOG_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    refused = subprocess.run(
        [*QUESTLOG, "backup", str(tmp_path / "copy.db")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert refused.returncode == 2
    assert "pg_dump" in refused.stdout and "docs/operations.md" in refused.stdout
    assert not (tmp_path / "copy.db").exists()


# -- PostgreSQL ---------------------------------------------------------------------------------


def with_database(url: str, database: str) -> str:
    """The same server URL, another database."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{database}"))


@pytest.mark.postgres
def test_a_pg_dump_taken_under_load_restores_every_campaign_clean(
    postgres_url: str, tmp_path: Path
) -> None:
    tools = [shutil.which(name) for name in ("pg_dump", "pg_restore")]
    if None in tools:
        missing("pg_dump and pg_restore are not installed (apt-get install postgresql-client)")
    factory = StoreFactory("postgres", tmp_path, postgres_url)
    live = factory.new()
    schema = live.postgres_schema or "public"
    dump = tmp_path / "questlog.dump"
    restored_db = f"ql_restore_{secrets.token_hex(4)}"
    try:
        with running(live) as load:
            at_start = load.rolls
            # docs/operations.md, "Backup and restore": the same commands.
            subprocess.run(
                [
                    "pg_dump",
                    "--format=custom",
                    f"--schema={schema}",
                    f"--file={dump}",
                    postgres_url,
                ],
                check=True,
                timeout=300,
            )
            during = load.rolls - at_start
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(restored_db)))
        target = with_database(postgres_url, restored_db)
        subprocess.run(
            ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={target}", str(dump)],
            check=True,
            timeout=300,
        )
        copy = StoreConfig(database_url=target, postgres_schema=schema)
        events = assert_a_clean_prefix(live, copy, CAMPAIGNS)
        assert events >= CAMPAIGNS + ROLLS_BEFORE
        assert during > 0, "no roll was appended while pg_dump ran: it proved nothing"
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(restored_db)
                )
            )
        factory.remove_all()
