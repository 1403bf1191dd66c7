"""The view of contributing.md's Recipe 2 (docs/contributing.md), run as it is written: a new
view is its module, one line of ``ALL_VIEWS``, its test and its docs, and it projects a match,
a rollback over it and the store an earlier release wrote with nothing else changed."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.export import JSON_COLUMNS
from projections.store import ViewStore, open_view_store
from tests.docs.examples import checked_block
from tests.projections.conftest import dump, log_size, sync
from tests.projections.scenarios import calendar_board_match
from tests.projections.test_facts import RELEASE

DOC, TEST = "contributing.md", "tests/projections/test_view_recipe.py"


def recipe() -> ModuleType:
    """The recipe's view module, made from its block of docs/contributing.md."""
    block = checked_block(DOC, TEST, "class DaySleeps")
    module = ModuleType("day_sleeps")
    exec(compile(block, f"docs/{DOC}", "exec"), module.__dict__)
    return module


def test_the_recipe_s_view_has_a_row_per_day_sleep_and_follows_a_rollback(
    app: Questlog, views: ViewStore
) -> None:
    made = recipe()
    view: Any = made.DaySleeps
    cid = calendar_board_match(app)
    views.ensure([view])
    sync(app, views, [view])

    sleeps = [e for e in app.campaign_events(cid) if e.TOPIC == "cb.SleptDuringDay"]
    assert sleeps, "the scripted match sleeps through a day"
    rows = dump(views, [view])["day_sleeps"]
    assert [(r["version"], r["party"], r["round"], r["exhaustion_before"]) for r in rows] == [
        (
            e.originator_version,
            e.details["party"],
            e.details["round"],
            e.details["exhaustion_before"],
        )
        for e in sleeps
    ]
    assert [item["version"] for item in made.day_sleeps(views, str(cid))["items"]] == [
        e.originator_version for e in sleeps
    ]
    assert "day_sleeps" not in JSON_COLUMNS  # read from the tables' kinds: it has no JSON

    first = sleeps[0].originator_version
    app.time_travel.rollback(cid, to_version=first - 1, reason="again", actor="owner#1")
    sync(app, views, [view])
    assert all(row["undone_by"] is not None for row in dump(views, [view])["day_sleeps"])


def test_the_recipe_s_view_projects_the_release_store_with_no_fixture_rows(
    tmp_path: Path,
) -> None:
    view: Any = recipe().DaySleeps
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    store = open_view_store(app.config)
    try:
        store.ensure([view])
        sync(app, store, [view])
        assert store.positions()["day_sleeps"]["applied"] == log_size(app)
    finally:
        store.close()
        app.close()
