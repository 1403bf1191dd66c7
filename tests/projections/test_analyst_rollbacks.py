"""The analyst's rollback views, row by row, and what rollbacks do to the other analyst views.

A direct rollback on the Quest Calendar and one carried out by an agreed proposal on the board
(``analyst_scenarios``), then a redo of the first, and an ability use undone and redone: the
expected rows come from the application's own events (versions, commands, rolls) and the
active history as ``Timeline`` works it out, never from the views' code. Every test runs on SQLite
and PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from uuid import UUID

from domain.service.questlog import Questlog
from projections.events import without_token_id
from projections.rebuild import rebuild_with
from projections.store import ViewStore
from tests.projections.analyst_scenarios import (
    ANALYST_VIEWS,
    DAY,
    HERO,
    Played,
    calendar_board_rolled_back,
    quest_calendar_days,
    rows,
)
from tests.projections.conftest import dump, sync
from tests.projections.scenarios import run


def test_rollbacks_direct_and_by_proposal_with_the_commands_they_undid(
    app: Questlog, views: ViewStore
) -> None:
    qc, qc_target = quest_calendar_days(app)
    cb, cb_target = calendar_board_rolled_back(app)
    sync(app, views, ANALYST_VIEWS)
    columns = (
        *("version", "game", "page_date", "night", "level", "to_page_date", "to_night"),
        *("from_version", "to_version", "events_undone", "rolls_undone", "actor", "how"),
        "undone_by",
    )
    for cid, target, how in ((qc, qc_target, "direct"), (cb, cb_target, "proposal")):
        played = Played(app, cid)
        [version] = played.versions("questlog.RolledBack")
        rollback = played.event(version)
        undone = range(target + 1, version)
        rolls = sum(len(getattr(played.event(v), "rolls", None) or []) for v in undone)
        assert rolls == len(rollback.undone_rolls)
        # Where the game stood at the head before the rollback, and at its target.
        then = app.campaign(cid, version=version - 1).state
        back = app.campaign(cid, version=target).state
        if how == "direct":
            # The page had ended when the players rolled back; the target is mid-page.
            assert then["page"] is None and back["page"]["date"] == DAY
            where = ("quest-calendar", None, None, then["hero"]["level"])
            to = (back["page"]["date"], None)
        else:
            # Two nights played, back to the end of night 1.
            assert (then["nights"], back["nights"]) == (2, 1)
            where = ("calendar-board", None, then["nights"], None)
            to = (None, back["nights"])
        [row] = rows(views, "rollbacks", cid, *columns)
        assert row == (
            version,
            *where,
            *to,
            version - 1,
            target,
            len(undone),
            rolls,
            without_token_id(rollback.actor) or "system",
            how,
            None,
        )
        assert (
            rows(views, "rollback_commands", cid, "game", "page_date", "night", "level")[0] == where
        )

        # Each command with events after the target, with how far back it started.
        expected = []
        for v in undone:
            first, last = played.event(v).command_versions
            if first == v or v == target + 1:
                command = getattr(played.event(first), "command", None)
                kind = command["type"] if command else type(played.event(first)).__name__
                count = len(range(max(first, target + 1), min(last, version - 1) + 1))
                expected.append((kind, first, last, version - first, count, None))
        found = rows(
            views,
            "rollback_commands",
            cid,
            *("command", "command_version", "last_version", "distance", "events_undone"),
            "undone_by",
        )
        assert found == expected
    qc_commands = [row[0] for row in rows(views, "rollback_commands", qc, "command")]
    assert qc_commands == [
        "HouseRuleConfigured",  # as events.command_type names a campaign event
        "start_combat",
        "combat_round",
        "apply_condition",
        "end_page",
    ]
    cb_commands = [row[0] for row in rows(views, "rollback_commands", cb, "command")]
    assert cb_commands == [
        "end_turn",
        "day_sleep",
        "night_action",
        "decline_fate_reroll",
        "night_action",
        "RollbackProposed",
        "RollbackApproved",
    ]


def test_a_redo_undoes_a_rollback_and_stands_its_undone_rows_again(
    app: Questlog, views: ViewStore
) -> None:
    cid, _ = quest_calendar_days(app)
    [first] = Played(app, cid).versions("questlog.RolledBack")
    app.time_travel.rollback(cid, to_version=first - 1, reason="redo", actor="owner#1")
    sync(app, views, ANALYST_VIEWS)
    played = Played(app, cid)
    [_, redo] = played.versions("questlog.RolledBack")
    assert played.undone_by(first) == redo

    found = rows(views, "rollbacks", cid, "version", "to_version", "events_undone", "undone_by")
    assert found == [(first, 14, first - 1 - 14, redo), (redo, first - 1, redo - first, None)]
    undid = rows(views, "rollback_commands", cid, "version", "undone_by")
    assert {version for version, _ in undid} == {first, redo}
    assert all(undone_by == (redo if version == first else None) for version, undone_by in undid)
    # The brute, the infection roll and the easy mode stand again; what followed the first
    # rollback (the CON check, hard mode) is undone.
    [_, brute] = played.versions("qc.CombatEnded")
    assert rows(views, "combats", cid, "version", "undone_by")[1] == (brute, None)
    checks = rows(views, "trait_checks", cid, "check_kind", "trait", "undone_by")
    assert checks[2:] == [("infection", "CON", None), ("check", "CON", redo)]
    [easy, _] = played.versions("questlog.HouseRuleConfigured")
    mode = [
        r[1:]
        for r in rows(views, "house_rules", cid, "rule", "value", "version")
        if r[0] == "qc.combat.mode"
    ]
    assert mode == [('"easy"', easy)]
    assert played.head.house_rules["qc.combat.mode"] == "easy"


def test_qc14_an_ability_a_rollback_undid_no_longer_counts_and_a_redo_brings_it_back(
    app: Questlog, views: ViewStore
) -> None:
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name="Keen", setup={"prologue_complete": True}
    ).campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    run(app, cid, {"type": "start_page", "date": DAY})
    check = run(app, cid, {"type": "trait_check", "trait": "STR", "target": 15}, [10])
    run(app, cid, {"type": "use_ability", "ability": "keen-mind", "on_roll": 0})
    columns = ("version", "rolled_total", "total", "success", "ability", "abilities", "undone_by")
    kept = (check, 12, 15, 1, "keen-mind", '["keen-mind"]', None)
    travel = app.time_travel

    travel.rollback(cid, to_version=check, reason="keep the use for later")
    sync(app, views, ANALYST_VIEWS)
    # STR 10 + 2 = 12 < 15 as rolled, the +3 undone.
    assert rows(views, "trait_checks", cid, *columns) == [(check, 12, 12, 0, None, "[]", None)]

    [rollback] = Played(app, cid).versions("questlog.RolledBack")
    travel.rollback(cid, to_version=rollback - 1, reason="redo")
    sync(app, views, ANALYST_VIEWS)
    assert rows(views, "trait_checks", cid, *columns) == [kept]
    assert Played(app, cid).head.state["page"]["checks"][0]["total"] == 15

    # Keen Mind is once per page (QC-17): after the redo its use stands, so a new check on the
    # same page cannot take it; a STR check 14 + 2 = 16 stands alone.
    second = run(app, cid, {"type": "trait_check", "trait": "STR", "target": 15}, [14])
    sync(app, views, ANALYST_VIEWS)
    assert rows(views, "trait_checks", cid, *columns)[1] == (second, 16, 16, 1, None, "[]", None)


def pages_apart(app: Questlog, views: ViewStore) -> tuple[UUID, int, int, int]:
    """Keen Mind used on a check of page 1, then page 2 started and a check rolled on it; the
    views take one event per batch, so page 1 has left the view's state before any rollback.
    Returns the campaign, the two checks' versions and the ability's."""
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name="Two pages", setup={"prologue_complete": True}
    ).campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    run(app, cid, {"type": "start_page", "date": DAY})
    first = run(app, cid, {"type": "trait_check", "trait": "STR", "target": 15}, [10])
    used = run(app, cid, {"type": "use_ability", "ability": "keen-mind", "on_roll": 0})
    run(app, cid, {"type": "end_page"})
    run(app, cid, {"type": "start_page", "date": "2027-01-05"})
    second = run(app, cid, {"type": "trait_check", "trait": "STR", "target": 15}, [10])
    sync(app, views, ANALYST_VIEWS, batch_size=1)
    return cid, first, second, used


COLUMNS = ("version", "rolled_total", "total", "success", "ability", "abilities", "undone_by")


def undo_and_redo_across_pages(
    app: Questlog,
    views: ViewStore,
    cid: UUID,
    first: int,
    between: Callable[[], object] = lambda: None,
) -> int:
    """Back to just after page 1's check (the ability and page 2 undone), ``between`` called
    once the views have it, then a redo; returns the first rollback's version."""
    travel = app.time_travel
    travel.rollback(cid, to_version=first, reason="keep the use for later")
    sync(app, views, ANALYST_VIEWS, batch_size=1)
    between()
    [rollback] = Played(app, cid).versions("questlog.RolledBack")
    travel.rollback(cid, to_version=rollback - 1, reason="redo")
    sync(app, views, ANALYST_VIEWS, batch_size=1)
    return rollback


def test_qc14_an_ability_on_a_page_left_behind_is_undone_and_redone(
    app: Questlog, views: ViewStore
) -> None:
    cid, first, second, _ = pages_apart(app, views)
    kept = (first, 12, 15, 1, "keen-mind", '["keen-mind"]', None)
    assert rows(views, "trait_checks", cid, *COLUMNS) == [
        kept,
        (second, 12, 12, 0, None, "[]", None),
    ]

    undone: list[Any] = []
    rollback = undo_and_redo_across_pages(
        app,
        views,
        cid,
        first,
        between=lambda: undone.extend(rows(views, "trait_checks", cid, *COLUMNS)),
    )
    # Between the two: page 1's check as rolled (the +3 undone), page 2's check undone.
    assert undone == [
        (first, 12, 12, 0, None, "[]", None),
        (second, 12, 12, 0, None, "[]", rollback),
    ]
    assert rows(views, "trait_checks", cid, *COLUMNS) == [
        kept,
        (second, 12, 12, 0, None, "[]", None),
    ]
    # The view plays on page 2 again: Keen Mind (once per page, QC-17) on its check counts there.
    run(app, cid, {"type": "use_ability", "ability": "keen-mind", "on_roll": 0})
    sync(app, views, ANALYST_VIEWS, batch_size=1)
    assert Played(app, cid).head.state["page"]["checks"][0]["total"] == 15
    assert rows(views, "trait_checks", cid, *COLUMNS) == [
        kept,
        (second, 12, 15, 1, "keen-mind", '["keen-mind"]', None),
    ]


def test_qc14_a_state_an_earlier_release_wrote_with_every_page_in_it_still_plays(
    app: Questlog, views: ViewStore
) -> None:
    """An earlier release kept every page's checks in the campaign's state: its pages move to
    the view's table at the next page or rollback, and the rows come out as a rebuild's."""
    cid, first, _, _ = pages_apart(app, views)
    with views.write() as cursor:
        found = views.rows(
            cursor,
            "SELECT page, entries FROM {trait_checks_pages} WHERE campaign_id = ?",
            [str(cid)],
        )
        cursor.execute(views.sql("DELETE FROM {trait_checks_pages}"))
        [state] = views.rows(cursor, "SELECT state FROM {trait_checks_campaigns}", [])
        old = json.loads(state["state"])
        old["checks"] = {
            **{str(row["page"]): json.loads(row["entries"]) for row in found},
            **old["checks"],
        }
        assert len(old["checks"]) == 2
        cursor.execute(
            views.sql("UPDATE {trait_checks_campaigns} SET state = ?"), (json.dumps(old),)
        )

    undo_and_redo_across_pages(app, views, cid, first)
    run(app, cid, {"type": "use_ability", "ability": "keen-mind", "on_roll": 0})
    sync(app, views, ANALYST_VIEWS, batch_size=1)
    followed = dump(views, ANALYST_VIEWS)
    rebuild_with(app, views, ANALYST_VIEWS, batch_size=1000)
    assert dump(views, ANALYST_VIEWS) == followed
    assert [row[4] for row in rows(views, "trait_checks", cid, *COLUMNS)] == ["keen-mind"] * 2
