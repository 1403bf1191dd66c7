"""Read-only SQL over the dataset (SQLite and PostgreSQL): answers from the same tables as the
export; refuses writes, files, URLs, extensions, DuckDB's secrets and a second statement; stops a
query at its time limit and cuts its rows at the limit."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from domain.service.questlog import Questlog
from projections.dataset import Scope
from projections.sql import SqlFailed, SqlRefused, SqlTimedOut, check, run_sql
from projections.store import ViewStore
from tests.projections.conftest import dump, sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week
from tests.projections.test_runners import _env
from webapi.cli.main import main

FACES = "SELECT face, count(*) AS n FROM rolls, unnest(faces) AS t(face) GROUP BY face"


@pytest.fixture
def campaigns(app: Questlog, views: ViewStore) -> tuple[str, str]:
    week, match = quest_calendar_week(app), calendar_board_match(app)
    sync(app, views)
    return str(week), str(match)


def test_a_select_answers_from_the_view_tables(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str]
) -> None:
    answer = run_sql(app, views, FACES + " ORDER BY face")
    rolls = dump(views)["rolls"]
    expected = Counter(face for row in rolls for face in json.loads(row["faces"]))
    assert answer.columns == [("face", "BIGINT"), ("n", "BIGINT")]
    assert {face: n for face, n in answer.rows} == dict(expected)
    assert answer.tables == ["rolls"] and not answer.truncated
    assert answer.positions["roll_log"] >= max(row["event_id"] for row in rolls)
    week, _match = campaigns
    mine = run_sql(
        app,
        views,
        "WITH r AS (SELECT campaign_id FROM rolls) SELECT DISTINCT campaign_id FROM r",
        scope=Scope(campaign_id=week),
    )
    assert mine.rows == [[week]]
    joined = run_sql(
        app,
        views,
        "SELECT e.event_type, r.recorded_at FROM rolls r JOIN events e ON e.position = r.event_id "
        "WHERE NOT e.undone ORDER BY e.position LIMIT 1",
    )
    assert joined.columns[1] == ("recorded_at", "TIMESTAMP WITH TIME ZONE")
    assert isinstance(joined.rows[0][1], str) and joined.rows[0][1].endswith("+00:00")
    counted = run_sql(app, views, "SELECT count(*) FROM ledger")
    assert counted.rows == [[len(dump(views)["ledger"])]]
    shouted = run_sql(app, views, 'SELECT sum(len("FACES")) FROM ROLLS')
    assert shouted.rows == [[sum(len(json.loads(row["faces"])) for row in rolls)]]


def test_the_row_limit_cuts_the_answer_and_says_so(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str]
) -> None:
    answer = run_sql(app, views, "SELECT * FROM events ORDER BY position", limit=3)
    assert len(answer.rows) == 3 and answer.truncated
    assert [row[0] for row in answer.rows] == sorted(row[0] for row in answer.rows)


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("DELETE FROM rolls", "a DELETE statement"),
        ("INSERT INTO rolls SELECT * FROM rolls", "an INSERT statement"),
        ("CREATE TABLE t AS SELECT 1", "a CREATE statement"),
        ("ATTACH 'other.db'", "an ATTACH statement"),
        ("COPY rolls TO 'out.csv'", "a COPY statement"),
        ("COPY (SELECT 1) TO 'out.parquet'", "a COPY statement"),
        ("INSTALL httpfs", "a LOAD statement"),
        ("LOAD httpfs", "a LOAD statement"),
        ("SET enable_external_access = true", "a SET statement"),
        ("PRAGMA version", "a PRAGMA statement"),
        ("SELECT 1; SELECT 2", "2 statements"),
        ("SELECT * FROM rolls; DROP TABLE rolls", "2 statements"),
        ("SELECT * FROM duckdb_secrets()", "duckdb_secrets reads DuckDB's own"),
        ("SELECT * FROM which_secret('s3://x/y', 's3')", "which_secret reads DuckDB's own"),
        ("SELECT * FROM duckdb_settings()", "duckdb_settings reads DuckDB's own"),
        ("SELECT * FROM query('SELECT 1')", "query runs SQL of its own"),
        ("SELECT * FROM read_parquet('https://example.com/x.parquet')", "read_parquet reads a"),
        ("SELECT * FROM information_schema.tables", "is not a Questlog table"),
        ("SELECT * FROM secrets", "no table named 'secrets'"),
        ("SELECT * FROM glob('*')", "glob reads a file"),
    ],
)
def test_anything_but_one_select_over_the_tables_is_refused(query: str, why: str) -> None:
    with pytest.raises(SqlRefused) as refused:
        check(query)
    assert refused.value.message.startswith("only SELECT over the Questlog tables: ")
    assert why in refused.value.message


@pytest.mark.parametrize("reader", ["read_csv", "read_csv_auto", "read_text", "read_parquet"])
def test_a_real_file_is_never_read(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str], tmp_path: Path, reader: str
) -> None:
    secret = tmp_path / "secret.csv"
    secret.write_text("seed\nnot-for-analysts\n", encoding="utf-8")
    export = tmp_path / "rolls.parquet"
    pq.write_table(pa.table({"seed": ["not-for-analysts"]}), export)
    target = export if reader == "read_parquet" else secret
    for query in (
        f"SELECT * FROM {reader}('{target}')",
        f"SELECT * FROM rolls WHERE roll_id IN (SELECT * FROM {reader}('{target}'))",
        f"SELECT * FROM '{target}'",
    ):
        with pytest.raises(SqlRefused) as refused:
            run_sql(app, views, query)
        assert "not-for-analysts" not in refused.value.message


def test_duckdb_refuses_files_even_past_the_checks(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str], tmp_path: Path
) -> None:
    """A table function under another name still meets DuckDB's own lock: no file access."""
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n", encoding="utf-8")
    with pytest.raises(SqlRefused):
        run_sql(app, views, f"SELECT * FROM sniff_csv('{secret}')")
    with pytest.raises((SqlRefused, SqlFailed)):
        run_sql(app, views, f"SELECT * FROM '{secret}'")


def test_a_slow_query_is_interrupted_at_its_time_limit(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str]
) -> None:
    slow = (
        "SELECT count(*) FROM rolls a, rolls b, range(1000000) c, range(1000000) d "
        "WHERE a.total + b.total + c.range + d.range = -1"
    )
    with pytest.raises(SqlTimedOut) as stopped:
        run_sql(app, views, slow, timeout=0.5)
    assert "0.5 s" in stopped.value.message


def test_a_broken_query_fails_with_duckdbs_reason(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str]
) -> None:
    with pytest.raises(SqlFailed) as failed:
        run_sql(app, views, "SELECT nosuch FROM rolls")
    assert "nosuch" in failed.value.message
    with pytest.raises(SqlFailed):
        run_sql(app, views, "SELEC 1")


def test_questlog_sql_prints_a_table_csv_or_json(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str]
) -> None:
    cli = CliRunner()
    env = _env(app.config)
    table = cli.invoke(main, ["sql", "SELECT count(*) AS rolls FROM rolls"], env=env)
    assert table.exit_code == 0, table.output
    assert "rolls" in table.output and "BIGINT" in table.output
    csv_out = cli.invoke(main, ["sql", FACES + " ORDER BY face", "--format", "csv"], env=env)
    assert csv_out.exit_code == 0, csv_out.output
    assert csv_out.stdout.splitlines()[0] == "face,n"
    as_json = cli.invoke(
        main, ["sql", "SELECT * FROM events", "--format", "json", "--limit", "2"], env=env
    )
    assert as_json.exit_code == 0, as_json.output
    body = json.loads(as_json.stdout)
    assert len(body["rows"]) == 2 and body["truncated"] is True
    refused = cli.invoke(main, ["sql", "SELECT * FROM read_csv('x.csv')"], env=env)
    assert refused.exit_code == 2
    assert "read_csv reads a file" in refused.output
