"""Read models read the facts events record, and follow the state only for older events.

Every game event records the tracked figures it changed (``figures``, docs/events.md "Figures"),
which the hero timeline, ship history, debt ledger and stats views read. ``qc.PageEnded``
(payload version 2) records the figures a page leaves, which the stats view's ``stat_pages``
reads; ``qc.HeroSelected`` and ``qc.HeroReplaced`` (version 2) record the hero's credits, which
open the debt ledger. Events of an older store have none of these, and the views follow them
through their patches (``projections.figures.followed_from_patch``). The release fixture must
project to exactly the rows it projected to before
(``tests/fixtures/release-2026-12-01.views.json``, every row of every view table, as the code
this branch started from projected them).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from uuid import UUID

from domain.facade import START
from domain.model.games import rules_for
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.batches import Target, apply_batch, read_batch
from projections.events import Recorded
from projections.store import ViewStore, open_view_store
from projections.views import ALL_VIEWS
from tests.projections.conftest import dump, sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASE = FIXTURES / "release-2026-12-01.sqlite3"
RELEASE_ROWS = FIXTURES / "release-2026-12-01.views.json"


def plain(rows: dict[str, Any]) -> dict[str, Any]:
    """Rows as JSON gives them back (what the committed rows are)."""
    loaded: dict[str, Any] = json.loads(json.dumps(rows, sort_keys=True, default=str))
    return loaded


ADDED_SINCE_THE_RELEASE = {"rolls": ("entropy",)}
"""View columns that came after the release store was written (NULL in its rows)."""
DERIVED_SINCE_THE_RELEASE = {
    "weather": ("day_weather",),
    "rolls": ("page_date", "night", "level"),
}
"""View columns that came after the release, read from facts its events hold: checked apart."""
REMEMBERED_SINCE_THE_RELEASE = {
    "weather_campaigns": ("row", "day_weather"),
    "roll_log_campaigns": (None, "mirror", "night"),
}
"""What views remember per campaign since the release: (where, keys) in the state's JSON."""


def test_the_release_store_projects_to_the_same_rows(tmp_path: Path) -> None:
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    store = open_view_store(app.config)
    try:
        store.ensure(ALL_VIEWS)
        sync(app, store)
        rows = dump(store)
        weather = [dict(row) for row in rows["weather"]]
        dated = [dict(row) for row in rows["rolls"]]
    finally:
        store.close()
        app.close()

    for table, columns in ADDED_SINCE_THE_RELEASE.items():
        for row in rows[table]:
            for column in columns:
                assert row.pop(column) is None, (table, column)  # the release's rolls had none
    for table, columns in DERIVED_SINCE_THE_RELEASE.items():
        for row in rows[table]:
            for column in columns:
                row.pop(column)
    for table, (where, *keys) in REMEMBERED_SINCE_THE_RELEASE.items():
        for row in rows[table]:
            state = json.loads(row["state"])
            for key in keys:
                (state if where is None else state.get(where) or {}).pop(key, None)
            row["state"] = json.dumps(state)
    committed = json.loads(RELEASE_ROWS.read_text())
    # The views added since (the analyst's) have no committed rows: they read the release's
    # events too, which record neither figures nor command ids.
    assert {t: r for t, r in plain(rows).items() if t in committed} == committed
    assert {row["day_weather"] for row in weather} <= {"normal", "rain", "snow", "fog", "hail"}
    # A roll on a page has its date; a board's roll the night under way (or the last begun).
    assert all(r["page_date"] for r in dated if r["event_type"] == "CheckRolled")
    assert all(r["night"] for r in dated if r["game"] == "calendar-board")
    assert all(r["level"] for r in dated if r["game"] == "quest-calendar")
    assert rows["stat_pages"], "the fixture's page end is read from the followed state"
    assert all(rows[t] for t in ("trait_checks", "rollbacks", "rollback_commands", "board_nights"))


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


def played(app: Questlog) -> list[UUID]:
    """A Quest Calendar week (damage, death, a clone, debt, a destroyed compartment) rolled back
    part of the way, a house rule changed, and a Calendar Board match (exhaustion,
    eliminations)."""
    week = quest_calendar_week(app)
    [first_page_end, *_] = [e for e in app.campaign_events(week) if e.TOPIC == "qc.PageEnded"]
    app.time_travel.rollback(
        week, to_version=first_page_end.command_versions[1], reason="replay the Sunday"
    )
    app.campaigns.configure_house_rule(week, "qc.combat.mode", "easy")
    return [week, calendar_board_match(app)]


def rebuilt(app: Questlog, store: ViewStore, change: Any) -> dict[str, Any]:
    """Every view built into ``__facts`` tables from the log with each game event changed."""
    suffix = "__facts"
    with store.write() as cursor:
        for view in ALL_VIEWS:
            store.drop(cursor, view, suffix)
            store.create(cursor, view, suffix, indexes=False)
    events = [
        change(e) if e.game is not None else e
        for e in read_batch(app.recorder, app.mapper, START, 100_000)
    ]
    apply_batch(store, [Target(view, suffix) for view in ALL_VIEWS], events)
    return dump(store, suffix=suffix)


def without(event: Recorded, field: str) -> Recorded:
    """The event with one of its stored fields left out."""
    data = {k: v for k, v in event.data.items() if k != field}
    return Recorded(event.id, event.campaign_id, event.version, event.topic, event.timestamp, data)


def test_a_new_store_s_views_are_built_from_the_facts_events_record(
    app: Questlog, views: ViewStore
) -> None:
    played(app)
    sync(app, views)
    built = dump(views)
    assert built["hero_timeline"] and built["ship_history"] and built["stat_nights"]

    # The same rows with no patch to follow: the figures the events record are enough.
    assert rebuilt(app, views, lambda e: without(e, "effects")) == built


def test_events_without_figures_are_followed_to_the_same_rows(
    app: Questlog, views: ViewStore
) -> None:
    played(app)
    sync(app, views)

    # As an older store's events are: no figures, only the patch.
    assert rebuilt(app, views, lambda e: without(e, "figures")) == dump(views)


def declared(name: str, fields: Any) -> bool:
    """Whether a figure's name is one the contract declares (``<...>`` standing for a key)."""
    return any(re.fullmatch(re.sub(r"<\w+>", ".+", re.escape(f.name)), name) for f in fields)


def test_each_game_event_records_exactly_the_figures_it_changed(app: Questlog) -> None:
    for cid in played(app):
        campaign = app.campaign(cid)
        figures = rules_for(campaign.game).figures
        assert figures is not None
        events = app.campaign_events(cid)
        changed_some = False
        for event in events:
            if not hasattr(event, "details"):
                continue
            before = app.campaign(cid, version=event.originator_version - 1).state
            after = app.campaign(cid, version=event.originator_version).state
            expected = figures.changed(before, after)
            assert event.figures == expected, (event.TOPIC, event.originator_version)
            assert all(declared(name, figures.fields) for name in expected), expected
            changed_some = changed_some or bool(expected)
        assert changed_some
