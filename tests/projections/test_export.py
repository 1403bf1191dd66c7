"""Exports of the views and of the event log, as CSV and JSON Lines, parse back to the same rows
(SQLite and PostgreSQL), through the functions and through ``questlog export``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from domain.service.questlog import Questlog
from projections.export import (
    EXPORTS,
    JSON_COLUMNS,
    export_events,
    export_view,
    rows_of,
    write,
)
from projections.store import ViewStore
from projections.views import ALL_VIEWS
from tests.projections.conftest import dump, log_size, sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week
from tests.projections.test_runners import _env
from webapi.cli.main import main

TABLES = sorted({logical for view in ALL_VIEWS for logical in view.tables})


@pytest.fixture
def campaigns(app: Questlog, views: ViewStore) -> tuple[str, str]:
    """Both scripted campaigns, applied to every view."""
    week, match = quest_calendar_week(app), calendar_board_match(app)
    sync(app, views)
    return str(week), str(match)


def _decoded(table: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows as the JSON Lines export writes them: JSON columns as values."""
    return [
        {k: json.loads(v) if k in JSON_COLUMNS.get(table, ()) and v else v for k, v in row.items()}
        for row in rows
    ]


def _as_text(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Rows as CSV gives them back: every value text, NULL empty."""
    return [{k: "" if v is None else str(v) for k, v in row.items()} for row in rows]


def test_every_table_exports_as_json_lines_and_parses_back(
    views: ViewStore, campaigns: tuple[str, str]
) -> None:
    everything = dump(views)
    assert sum(len(everything[t]) for t in TABLES) > 50
    for table in TABLES:
        out = io.StringIO()
        count = export_view(views, table, "jsonl", out)
        parsed = [json.loads(line) for line in out.getvalue().splitlines()]
        assert count == len(parsed) == len(everything[table])
        assert parsed == _decoded(table, everything[table]), table


def test_every_table_exports_as_csv_and_parses_back(
    views: ViewStore, campaigns: tuple[str, str]
) -> None:
    everything = dump(views)
    for table in TABLES:
        out = io.StringIO()
        count = export_view(views, table, "csv", out)
        reader = csv.DictReader(io.StringIO(out.getvalue()))
        assert tuple(reader.fieldnames or ()) == EXPORTS[table][0].tables[table].names
        parsed = list(reader)
        assert count == len(parsed)
        assert parsed == _as_text(everything[table]), table


def test_a_view_name_exports_its_first_table_and_a_campaign_only_its_rows(
    views: ViewStore, campaigns: tuple[str, str]
) -> None:
    week, match = campaigns
    out = io.StringIO()
    export_view(views, "roll_log", "jsonl", out, campaign_id=match)
    rolls = [json.loads(line) for line in out.getvalue().splitlines()]
    assert rolls and {r["campaign_id"] for r in rolls} == {match}
    assert all(isinstance(r["dice"], list) for r in rolls)
    small = io.StringIO()
    # Read in chunks of one row: the keyset paging must neither skip nor repeat.
    columns, rows = rows_of(views, "ledger", campaign_id=week, chunk=1)
    write(rows, columns, "jsonl", small, json_columns=JSON_COLUMNS["ledger"])
    ledger = [json.loads(line) for line in small.getvalue().splitlines()]
    assert [r["balance_after"] for r in ledger] == [3, -2, -4, 2, 1, 0, 4, 2, 4, 7, 3]
    with pytest.raises(KeyError):
        export_view(views, "nonsense", "csv", io.StringIO())
    with pytest.raises(ValueError):
        export_view(views, "rolls", "xml", io.StringIO())


def test_the_event_log_exports_in_both_formats(app: Questlog, campaigns: tuple[str, str]) -> None:
    week, _match = campaigns
    lines = io.StringIO()
    assert export_events(app, "jsonl", lines) == log_size(app)
    events = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert [e["id"] for e in events] == sorted(e["id"] for e in events)
    assert events[0]["topic"] == "questlog.CampaignCreated"
    assert events[0]["data"]["name"] == "Week"
    table = io.StringIO()
    export_events(app, "csv", table, campaign_id=week)
    parsed = list(csv.DictReader(io.StringIO(table.getvalue())))
    assert {row["campaign_id"] for row in parsed} == {week}
    assert [int(row["version"]) for row in parsed] == list(range(1, len(parsed) + 1))
    mine = [e for e in events if e["campaign_id"] == week]
    assert [json.loads(row["data"]) for row in parsed] == [e["data"] for e in mine]


def test_questlog_export_writes_a_file(
    app: Questlog, views: ViewStore, campaigns: tuple[str, str], tmp_path: Path
) -> None:
    week, _match = campaigns
    target = tmp_path / "ledger.csv"
    cli = CliRunner()
    args = ["export", "debt_ledger", "--format", "csv", "--campaign", week, "--output", str(target)]
    done = cli.invoke(main, args, env=_env(app.config))
    assert done.exit_code == 0, done.output
    rows = list(csv.DictReader(target.open(encoding="utf-8")))
    assert [int(r["balance_after"]) for r in rows] == [3, -2, -4, 2, 1, 0, 4, 2, 4, 7, 3]
    events = cli.invoke(main, ["export", "events"], env=_env(app.config))
    assert events.exit_code == 0, events.output
    assert len([line for line in events.stdout.splitlines() if line.startswith("{")]) == log_size(
        app
    )
    refused = cli.invoke(main, ["export", "rolls", "--campaign", "x"], env=_env(app.config))
    assert refused.exit_code == 2
