"""Read models read the facts events record, and follow the state only for older events.

``qc.PageEnded`` (payload version 2) records the figures a page leaves, which the stats view's
``stat_pages`` reads; ``qc.HeroSelected`` and ``qc.HeroReplaced`` (version 2) record the hero's
credits, which open the debt ledger. Events of an older store have none of these, and the views
read them from the state they follow. The release fixture must project to exactly the rows it
projected to before (``tests/fixtures/release-2026-12-01.views.json``, every row of every view
table, as the code this branch started from projected them).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from uuid import UUID

from domain.service.application import Questlog
from domain.storage.store import StoreConfig
from projections.store import ViewStore, open_view_store
from projections.views import ALL_VIEWS
from tests.projections.conftest import dump, sync
from tests.projections.scenarios import quest_calendar_week

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASE = FIXTURES / "release-2026-12-01.sqlite3"
RELEASE_ROWS = FIXTURES / "release-2026-12-01.views.json"


def plain(rows: dict[str, Any]) -> dict[str, Any]:
    """Rows as JSON gives them back (what the committed rows are)."""
    loaded: dict[str, Any] = json.loads(json.dumps(rows, sort_keys=True, default=str))
    return loaded


def test_the_release_store_projects_to_the_same_rows(tmp_path: Path) -> None:
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    store = open_view_store(app.config)
    try:
        store.ensure(ALL_VIEWS)
        sync(app, store)
        rows = dump(store)
    finally:
        store.close()
        app.close()

    assert plain(rows) == json.loads(RELEASE_ROWS.read_text())
    assert rows["stat_pages"], "the fixture's page end is read from the followed state"


def test_a_page_end_records_the_figures_the_stats_view_reads(
    app: Questlog, views: ViewStore
) -> None:
    cid = quest_calendar_week(app)
    sync(app, views)

    pages = [row for row in dump(views)["stat_pages"] if row["campaign_id"] == str(cid)]
    assert pages
    for row in pages:
        [event] = app.campaign_events(UUID(str(cid)), after=row["version"] - 1, limit=1)
        assert event.TOPIC == "qc.PageEnded"
        figures = event.details["figures"]
        state = app.campaign(cid, version=row["version"]).state
        hero = state["hero"]
        assert figures == {
            "pages_played": state["calendar"]["pages_played"],
            "hero_id": hero["id"],
            **{name: hero[name] for name in ("level", "credits", "hp", "hp_max", "virtue")},
        }
        assert (row["hero_id"], row["page_number"], row["level"], row["credits"]) == (
            figures["hero_id"],
            figures["pages_played"],
            figures["level"],
            figures["credits"],
        )
        assert (row["hp"], row["hp_max"], row["virtue"]) == (
            figures["hp"],
            figures["hp_max"],
            figures["virtue"],
        )


def test_a_hero_records_the_credits_the_debt_ledger_opens_with(
    app: Questlog, views: ViewStore
) -> None:
    cid = quest_calendar_week(app)
    sync(app, views)

    openings = [
        row
        for row in dump(views)["ledger"]
        if row["campaign_id"] == str(cid) and row["entry"] == "opening"
    ]
    assert openings
    for row in openings:
        [event] = app.campaign_events(UUID(str(cid)), after=row["version"] - 1, limit=1)
        assert event.TOPIC in ("qc.HeroSelected", "qc.HeroReplaced")
        credits = event.details["credits"]
        assert credits == app.campaign(cid, version=row["version"]).state["hero"]["credits"]
        assert row["balance_after"] == credits
