"""``GET /campaigns`` reads its page through an index of the creation events
(``domain.storage.creations``), never by walking every event stored between two campaigns; it
lists what the library's read by topic listed, and a store from an earlier release gets the index
when it opens."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from domain.model.campaign import Campaign
from domain.service.questlog import Questlog
from domain.storage.creations import CREATIONS_INDEX
from domain.storage.store import StoreConfig
from tests.conftest import StoreFactory

RELEASE = Path(__file__).resolve().parents[1] / "fixtures" / "release-2026-12-01.sqlite3"


def plan(config: StoreConfig, app: Questlog) -> str:
    """The store's plan of the listing's statement (PostgreSQL's without sequential scans, so
    it shows whether the index can serve it at all, however small the table)."""
    statement = app.side_tables.creations_statement()
    if config.kind == "sqlite":
        with sqlite3.connect(str(config.sqlite_path)) as connection:
            rows = connection.execute(f"EXPLAIN QUERY PLAN {statement}", (0, 51)).fetchall()
        return " ".join(str(row[-1]) for row in rows)
    assert config.database_url is not None
    with psycopg.connect(config.database_url) as connection:
        schema = sql.Identifier(str(config.postgres_schema))
        connection.execute(sql.SQL("SET search_path TO {}").format(schema))
        connection.execute("SET enable_seqscan = off")
        found = connection.execute(f"EXPLAIN {statement.replace('?', '%s')}", (0, 51))
        return " ".join(str(row[0]) for row in found.fetchall())


def listed(app: Questlog, limit: int) -> list[tuple[int, str]]:
    """Every campaign, page by page: (cursor, campaign id)."""
    found: list[tuple[int, str]] = []
    after = 0
    while True:
        items, after_next = app.reading.list_campaigns(after=after, limit=limit)
        found += [(cursor, str(event.originator_id)) for cursor, event in items]
        if after_next is None:
            return found
        after = after_next


def test_the_listing_reads_the_creation_index_and_lists_what_a_read_by_topic_lists(
    store_config: StoreConfig,
) -> None:
    app = Questlog(store_config)
    try:
        for n in range(7):
            cid = app.campaigns.create_campaign(game="quest-calendar", name=f"c{n}").campaign_id
            for roll in range(n * 3):
                app.dice.roll(cid, notation="d6", purpose=f"between campaigns {roll}")
        by_topic: Any = app.recorder.select_notifications(
            start=1, limit=100, topics=[Campaign.Created.TOPIC]
        )

        assert listed(app, 2) == [(n.id, str(n.originator_id)) for n in by_topic]
        assert len(by_topic) == 7
        assert CREATIONS_INDEX in plan(store_config, app)
    finally:
        app.close()


def test_a_store_from_an_earlier_release_gets_the_index_when_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "release.sqlite3"
    shutil.copy(RELEASE, path)
    with sqlite3.connect(path) as connection:
        assert not connection.execute(
            "SELECT 1 FROM sqlite_master WHERE name = ?", (CREATIONS_INDEX,)
        ).fetchall()
    app = Questlog(StoreConfig(sqlite_path=path))
    try:
        items, _ = app.reading.list_campaigns(limit=50)
        assert items, "the release's campaigns are listed"
        assert CREATIONS_INDEX in plan(app.config, app)
    finally:
        app.close()


@pytest.mark.postgres
def test_a_postgres_store_without_the_index_gets_it_when_it_opens(factory: StoreFactory) -> None:
    config = factory.new()
    app = Questlog(config)
    app.campaigns.create_campaign(game="quest-calendar", name="before the index")
    app.close()
    assert config.database_url is not None
    with psycopg.connect(config.database_url, autocommit=True) as connection:
        schema = sql.Identifier(str(config.postgres_schema))
        connection.execute(
            sql.SQL("DROP INDEX {}.{}").format(schema, sql.Identifier(CREATIONS_INDEX))
        )
    app = Questlog(config)
    try:
        assert [str(e.name) for _, e in app.reading.list_campaigns(limit=5)[0]] == [
            "before the index"
        ]
        assert CREATIONS_INDEX in plan(config, app)
    finally:
        app.close()
