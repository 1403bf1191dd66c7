"""The ten questions of docs/analytics.md, answered as the doc writes them: each in DuckDB SQL
over the Parquet files, through ``questlog sql``'s engine over the live views, and in pandas;
the three answers agree with each other and with the API's own figures.

Played on both stores: a Quest Calendar week, a page of checks and combats rolled back directly
(QC-10, QC-21, QC-22, QC-43), hand-rolled d6 on dated pages, two Calendar Board matches (one with
the previous-weather night gap, G-CB-14) and one rolled back by an agreed proposal.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import duckdb
import pandas as pd
import pytest

from domain.service.questlog import Questlog
from projections.fairness import dice_fairness
from projections.filters import Filter
from projections.parquet import write_dataset
from projections.sql import run_sql
from projections.store import ViewStore
from projections.views.stats import campaign_figures
from tests.projections.analyst_scenarios import calendar_board_rolled_back, quest_calendar_days
from tests.projections.conftest import sync
from tests.projections.conftest import views as views  # the fixture: a view store per store
from tests.projections.scenarios import (
    HERO,
    calendar_board_match,
    quest_calendar_week,
    run,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "analytics.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def questions() -> tuple[list[str], dict[int, list[tuple[str, str]]]]:
    """The setup blocks of "Ten questions" and each question's blocks, (language, code)."""
    text = DOC.read_text()
    section = text[text.index("## Ten questions") :]
    parts = re.split(r"^### (\d+)\. .*$", section, flags=re.MULTILINE)
    setup = [code for language, code in FENCE.findall(parts[0]) if language == "python"]
    asked = {int(parts[i]): FENCE.findall(parts[i + 1]) for i in range(1, len(parts), 2)}
    return setup, asked


def test_the_doc_asks_ten_questions_each_in_sql_and_pandas() -> None:
    setup, asked = questions()
    assert len(setup) == 2 and sorted(asked) == list(range(1, 11))
    for number, blocks in asked.items():
        languages = [language for language, _ in blocks]
        assert languages.count("sql") == languages.count("python") >= 1, number


def played(app: Questlog) -> UUID:
    """Every scenario; returns the campaign whose pages question 8 follows."""
    week = quest_calendar_week(app)
    quest_calendar_days(app)
    dice = app.campaigns.create_campaign(
        game="quest-calendar", name="Dice", setup={"prologue_complete": True}
    ).campaign_id
    run(app, dice, {"type": "select_hero", "phase": "main", "hero": HERO})
    app.campaigns.configure_house_rule(dice, "qc.combat.mode", "hard")
    for day, faces in (("2027-01-05", [1, 2, 3, 4, 5, 6] * 5), ("2027-02-01", [6, 5] * 15)):
        run(app, dice, {"type": "start_page", "date": day})
        for face in faces:
            app.dice.roll(dice, notation="1d6", purpose="fairness", faces=[face])
        for pair in range(0, len(faces), 2):
            app.dice.roll(dice, notation="2d6", purpose="fairness", faces=faces[pair : pair + 2])
        run(app, dice, {"type": "end_page"})
    calendar_board_match(app)
    calendar_board_match(app, {"cb.weather.nightGap": "previous"})
    calendar_board_rolled_back(app)
    return week


@pytest.fixture
def answered(
    app: Questlog, views: ViewStore, tmp_path: Path
) -> Iterator[tuple[Questlog, ViewStore, UUID, dict[str, Any]]]:
    week = played(app)
    sync(app, views)
    write_dataset(app, views, tmp_path / "questlog-dataset")
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        setup, _ = questions()
        namespace: dict[str, Any] = {}
        for code in setup:
            exec(code, namespace)  # the doc's own setup: a DuckDB connection and the tables
        yield app, views, week, namespace
    finally:
        os.chdir(here)
        namespace.get("con", duckdb.connect()).close()


def plain(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """A frame's rows as tuples of plain values (numbers as floats), for comparing answers."""
    rows = []
    for row in frame.itertuples(index=False):
        rows.append(tuple(_value(v) for v in row))
    return rows


def _value(value: Any) -> Any:
    if (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, float) and math.isnan(value))
    ):
        return None
    if isinstance(value, dt.date | pd.Timestamp):
        moment = pd.Timestamp(value)
        return moment.date().isoformat() if moment == moment.normalize() else moment.isoformat()
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) or (
        hasattr(value, "__float__") and not isinstance(value, str)
    ):
        try:
            return round(float(value), 9)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def test_every_question_is_answered_alike_and_as_the_api_counts(
    answered: tuple[Questlog, ViewStore, UUID, dict[str, Any]],
) -> None:
    app, views, week, namespace = answered
    _, asked = questions()
    con = namespace["con"]
    found: dict[int, list[pd.DataFrame]] = {}
    for number, blocks in sorted(asked.items()):
        sqls = [code.replace("CAMPAIGN-ID", str(week)) for lang, code in blocks if lang == "sql"]
        pythons = [
            code.replace("CAMPAIGN-ID", str(week)) for lang, code in blocks if lang == "python"
        ]
        found[number] = []
        for sql, python in zip(sqls, pythons, strict=True):
            from_files = con.sql(sql).df()
            server = run_sql(app, views, sql)
            assert [name for name, _ in server.columns] == list(from_files.columns), number
            assert plain(pd.DataFrame(server.rows, columns=from_files.columns)) == plain(
                from_files
            ), f"question {number}: questlog sql and DuckDB over the files differ"
            scope = dict(namespace)
            exec(python, scope)
            answer = scope["answer"].reset_index(drop=True)
            # pandas may answer more (question 3's p-value, which SQL leaves to scipy)
            assert set(from_files.columns) <= set(answer.columns), number
            answer = answer[list(from_files.columns)]
            assert plain(answer) == plain(from_files), f"question {number}: SQL and pandas differ"
            assert len(from_files), f"question {number} found nothing in the played store"
            found[number].append(from_files)

    figures = campaign_figures(views)
    pages = found[1][0]
    assert [
        {
            "page": int(r.page),
            "campaigns": int(r.campaigns),
            "average_credits": round(r.average_credits, 2),
            "average_debt": round(r.average_debt, 2),
            "in_debt": round(r.in_debt, 4),
        }
        for r in pages.itertuples()
    ] == figures["credits_by_page"]
    deaths = found[2][0]
    assert {int(r.level): int(r.deaths) for r in deaths.itertuples()} == {
        e["level"]: e["deaths"] for e in figures["deaths_by_level"]
    }
    clones = deaths.filter(like="clone_").sum()
    assert {k.split("_")[1]: int(v) for k, v in clones.items() if v} == figures["clone_results"]

    fairness = dice_fairness(views)
    tested = {(e["source"], e["sides"]): e for e in fairness["dice"]}
    python_dice = found[3][0]
    for row in python_dice.itertuples():
        entry = tested[(row.source, row.sides)]
        if [g["rule"] for g in entry["groups"]] == [f"d{row.sides}"] and row.dice >= 5 * row.sides:
            assert entry["test"]["chi_square"] == pytest.approx(row.chi_square, abs=1e-5)
            assert entry["test"]["df"] == row.df
    namespace_answer: dict[str, Any] = dict(namespace)
    exec(next(c for lang, c in asked[3] if lang == "python"), namespace_answer)
    d6 = namespace_answer["answer"].set_index(["source", "sides"]).loc[("reported", 6)]
    assert d6.p_value == pytest.approx(tested[("reported", 6)]["test"]["p_value"], rel=1e-6)

    combats = found[5][0]
    by_mode = {e["mode"]: e for e in figures["combat_by_mode"]}
    for row in combats.itertuples():
        assert int(row.combats_won) == by_mode[row.mode]["combats_won"], row.mode

    nights = found[6][0]
    distribution: dict[int, dict[str, int]] = {}
    for row in nights.itertuples():
        counts = distribution.setdefault(int(row.night), {})
        counts[str(row.exhaustion)] = counts.get(str(row.exhaustion), 0) + 1
    assert distribution == {e["night"]: e["distribution"] for e in figures["exhaustion_by_night"]}
    weather = found[6][1]
    assert {r.weather: int(r.nights_set) for r in weather.itertuples()} == figures["weather"]["set"]
    assert {
        r.weather: int(r.nights_begun_under) for r in weather.itertuples() if r.nights_begun_under
    } == {k: v for k, v in figures["weather"]["in_force"].items() if k in set(weather.weather)}

    hard = Filter(
        house_rules=(("qc.combat.mode", "hard"),), from_date="2027-01-01", to_date="2027-01-31"
    )
    january = found[9][0]
    assert [
        (int(r.page), int(r.campaigns), round(r.average_credits, 2)) for r in january.itertuples()
    ] == [
        (e["page"], e["campaigns"], e["average_credits"])
        for e in campaign_figures(views, hard)["credits_by_page"]
    ]

    week_pages = found[8][0]
    assert list(week_pages.page_number) == [1]
    rolled = found[10][0]
    standing = run_sql(app, views, "SELECT count(*) FROM rolls WHERE undone_by IS NULL")
    assert len(rolled) == standing.rows[0][0]
    assert rolled.command_type.notna().all()
