"""A page of a campaign's events reads the actors of those events only, not every actor from
the page's start to the head: the first page of a long campaign costs what a short one's does."""

from __future__ import annotations

from typing import Any

import pytest

from domain.service.questlog import Questlog
from domain.storage.side_tables import ACTORS_TABLE
from tests.application.test_rollback import qc_campaign


def rows_read(app: Questlog, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of rows each side-table read returns, as they happen."""
    counts: list[int] = []
    fetch = app.side_tables._fetch

    def counted(statement: str, params: tuple[Any, ...], **options: Any) -> list[Any]:
        rows = fetch(statement, params, **options)
        if ACTORS_TABLE in statement:
            counts.append(len(rows))
        return rows

    monkeypatch.setattr(app.side_tables, "_fetch", counted)
    return counts


def test_a_page_of_events_reads_the_actors_of_its_events_only(
    app: Questlog, monkeypatch: pytest.MonkeyPatch
) -> None:
    cid = qc_campaign(app)
    for _ in range(30):
        app.dice.roll(cid, notation="d6", purpose="length")
    head = app.campaign(cid).version
    counts = rows_read(app, monkeypatch)

    first = app.reading.event_records(cid, limit=5)
    middle = app.reading.event_records(cid, after=10, limit=5)
    beyond = app.reading.event_records(cid, after=head, limit=5)

    assert [e["version"] for e in first] == [1, 2, 3, 4, 5]
    assert [e["version"] for e in middle] == [11, 12, 13, 14, 15]
    assert beyond == []
    assert counts == [5, 5]  # the head's rows are never read, and nothing past it
    assert all(e["actor"] == "system" for e in middle)


def test_the_actors_read_is_a_range_of_the_primary_key(app: Questlog) -> None:
    table = app.side_tables._table(ACTORS_TABLE)
    query = (
        f"SELECT version, actor FROM {table} WHERE campaign_id = ? AND version > ? AND version <= ?"
    )
    with app.side_tables.datastore.transaction(commit=False) as cursor:
        if app.side_tables.placeholder == "?":
            cursor.execute(f"EXPLAIN QUERY PLAN {query}", ("x", 0, 50))
            read = " ".join(str(row["detail"]) for row in cursor.fetchall())
            assert "SEARCH" in read and "version>? AND version<?" in read, read
        else:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute(f"EXPLAIN {query.replace('?', '%s')}", ("x", 0, 50))
            read = " ".join(str(row["QUERY PLAN"]) for row in cursor.fetchall())
            assert "Index Cond" in read and "(version <= " in read, read
