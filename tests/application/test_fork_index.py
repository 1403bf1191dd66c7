"""A campaign's forks are read by its id from ``questlog_forks``, never by reading every creation
event of the store; a store from before the table has its forks indexed once, by the first
reader, and lists them as it did."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest

from domain.service.questlog import Questlog
from domain.storage.forks import FORKS_TABLE, ForkRecord
from domain.storage.store import StoreConfig
from tests.application.moving import exported
from tests.application.test_fork import fork
from tests.application.test_rollback import qc_campaign
from tests.conftest import StoreFactory

RELEASE = Path(__file__).resolve().parents[1] / "fixtures" / "release-2026-12-01.sqlite3"
RELEASE_CAMPAIGN = UUID("ff360452-9cd1-4609-8014-1e0ac5c7c715")
RELEASE_FORK = "f9d25961-0acc-46fa-84f8-b09377ab994b"


@pytest.fixture
def other(stores: StoreFactory) -> Iterator[Questlog]:
    """Another host: an application on a store of its own."""
    host = Questlog(stores.new())
    yield host
    host.close()


def no_log_scan(app: Questlog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any read of the log's notifications fail the test."""

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("listing forks read the log's notifications")

    monkeypatch.setattr(app.recorder, "select_notifications", refused)


def plan(app: Questlog) -> str:
    """The store's plan for the forks' read, with sequential scans discouraged on PostgreSQL
    (a small table would be scanned anyway): it must be able to use an index at all."""
    table = app.side_tables._table(FORKS_TABLE)
    query = f"SELECT * FROM {table} WHERE origin_id = ?"
    with app.side_tables.datastore.transaction(commit=False) as cursor:
        if app.side_tables.placeholder == "?":
            cursor.execute(f"EXPLAIN QUERY PLAN {query}", ("x",))
            return " ".join(str(row["detail"]) for row in cursor.fetchall())
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {query.replace('?', '%s')}", ("x",))
        return " ".join(str(row["QUERY PLAN"]) for row in cursor.fetchall())


def test_forks_are_read_by_the_campaign_id_without_reading_the_log(
    app: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid = qc_campaign(app)
    others = [qc_campaign(app) for _ in range(3)]
    first = fork(app, cid, 2, name="one")
    for each in others:
        fork(app, each, 1)
    app.time_travel.forks(cid)  # a new store: marked indexed on the first read
    no_log_scan(app, monkeypatch)
    monkeypatch.setattr(app.side_tables, "forks_indexed", no_log_scan)  # the mark is kept
    second = fork(app, cid, 3, name="two")

    listed = app.time_travel.forks(cid)

    assert [(f["id"], f["name"], f["at_version"]) for f in listed] == [
        (str(first), "one", 2),
        (str(second), "two", 3),
    ]
    read = plan(app)
    if app.side_tables.placeholder == "?":
        assert "SEARCH" in read and "(origin_id=?)" in read, read  # SQLite: not SCAN
    else:
        assert "Index" in read and "origin_id" in read and "Seq Scan" not in read, read


def test_a_store_from_before_the_table_has_its_forks_indexed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    try:
        assert not app.side_tables.forks_indexed()
        assert app.side_tables.forks_of(str(RELEASE_CAMPAIGN)) == []  # not indexed yet

        listed = app.time_travel.forks(RELEASE_CAMPAIGN)

        assert [f["id"] for f in listed] == [RELEASE_FORK]
        assert listed[0]["name"] == "Release fixture: the fork"
        assert app.side_tables.forks_indexed()
        no_log_scan(app, monkeypatch)
        assert app.time_travel.forks(RELEASE_CAMPAIGN) == listed
    finally:
        app.close()


def test_an_origin_that_names_no_campaign_and_version_is_no_fork() -> None:
    class Created:
        originator_id = uuid4()
        name = "odd"
        timestamp = datetime(2027, 1, 1, tzinfo=UTC)

        def __init__(self, origin: Any) -> None:
            self.origin = origin

    for origin in (
        None,
        {},
        {"campaign_id": "x"},
        {"version": 2},
        {"campaign_id": 1, "version": 2},
        {"campaign_id": "x", "version": "2"},
        {"campaign_id": "x", "version": True},
        {"campaign_id": "x", "version": 0},
        ["x", 2],
    ):
        assert ForkRecord.of(Created(origin)) is None, origin
    fork = ForkRecord.of(Created({"campaign_id": "x", "version": 2}))
    assert fork is not None and (fork.origin_id, fork.at_version) == ("x", 2)


def test_an_imported_fork_is_listed_under_its_origin(
    app: Questlog, other: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid = qc_campaign(app)
    fid = fork(app, cid, 2, name="moved")
    source = exported(app, fid)
    assert other.time_travel.forks(uuid4()) == []  # B's store: marked indexed
    no_log_scan(other, monkeypatch)

    other.bundles.load(source)

    assert [(f["id"], f["name"]) for f in other.time_travel.forks(cid)] == [(str(fid), "moved")]
