"""The analyst's views, row by row: trait_checks, combats, house_rules, board_nights (rollbacks
and redo: ``test_analyst_rollbacks``).

Real campaigns of both games are played through the application (``analyst_scenarios``), with a
direct rollback on the Quest Calendar and one carried out by an agreed proposal on the board. The
expected rows come from the faces played and the rules they follow, and from the application's
own events and state (versions, rolls, the active history as ``Timeline`` works it out, the house
rules in force): never from the views' code. A rebuild gives the same rows. Every test runs on
SQLite and PostgreSQL.
"""

from __future__ import annotations

import json

from domain.model import samples
from domain.service.questlog import Questlog
from projections.rebuild import rebuild_with
from projections.store import ViewStore
from tests.projections.analyst_scenarios import (
    ANALYST_VIEWS,
    BRUTE,
    DAY,
    HERO,
    Played,
    calendar_board_rolled_back,
    quest_calendar_days,
    rows,
)
from tests.projections.conftest import dump, sync
from tests.projections.scenarios import CB_SETUP, run


def test_qc10_qc14_qc31_trait_checks_row_by_row(app: Questlog, views: ViewStore) -> None:
    cid, _ = quest_calendar_days(app)
    sync(app, views, ANALYST_VIEWS)
    played = Played(app, cid)
    checks = played.versions("qc.CheckRolled")
    [infection] = played.versions("qc.InfectionTicked")
    traits = HERO["traits"]
    found = rows(
        views,
        "trait_checks",
        cid,
        *("version", "game", "page_date", "level", "hero_id", "check_kind", "trait", "d20"),
        *("target", "rolled_total", "total", "success", "ability", "abilities", "undone_by"),
    )
    hero = ("quest-calendar", DAY, 1, "vanguard")
    assert found == [
        # QC-10: INT 11 + 2 = 13 >= 12.
        (checks[0], *hero, "check", "INT", 11, 12, 11 + traits["INT"], 13, 1, None, "[]", None),
        # QC-14: STR 10 + 2 = 12 < 15, then Keen Mind's +3 makes it 15: a success.
        (
            checks[1],
            *hero,
            "check",
            "STR",
            10,
            15,
            10 + traits["STR"],
            15,
            1,
            "keen-mind",
            '["keen-mind"]',
            None,
        ),
        # QC-31: infected at the page's end, 5 + CON 1 = 6 <= 10 costs 1 HP; undone since.
        (
            infection,
            *hero,
            "infection",
            "CON",
            None,
            None,
            6,
            6,
            0,
            None,
            "[]",
            played.undone_by(infection),
        ),
        # After the rollback: CON 20 + 1 = 21 with no target, so no success either way.
        (
            checks[2],
            *hero,
            "check",
            "CON",
            20,
            None,
            20 + traits["CON"],
            21,
            None,
            None,
            "[]",
            None,
        ),
    ]
    assert played.undone_by(infection) == played.versions("questlog.RolledBack")[0]
    assert played.event(checks[1]).details["total"] + 3 == 15


def test_qc20_qc22_qc41_combats_won_and_ended_by_a_death(app: Questlog, views: ViewStore) -> None:
    cid, _ = quest_calendar_days(app)
    sync(app, views, ANALYST_VIEWS)
    played = Played(app, cid)
    drones, brute = played.versions("qc.CombatEnded")
    [died] = played.versions("qc.Died")
    damage = [
        played.event(v).details["amount"]
        for v in played.versions("qc.HeroDamaged")
        if brute > v > played.versions("qc.CombatStarted")[1]
    ]
    found = rows(
        views,
        "combats",
        cid,
        *("version", "page_date", "level", "hero_id", "mode", "kind", "enemies", "enemy_count"),
        *("rounds", "rounds_played", "rounds_won", "enemies_remaining", "won", "ended_by"),
        *("died", "hp_before", "hp_after", "hp_lost", "hp_damage", "undone_by"),
    )
    assert found == [
        # QC-21/22: 15 + 3 = 18 hits 13, 6 + 1 = 7 >= 6 twice: both drones killed, no damage.
        (
            drones,
            DAY,
            1,
            "vanguard",
            "standard",
            "several_enemies",
            '["Scrap drone", "Rust drone"]',
            2,
            2,
            2,
            2,
            0,
            1,
            "all_rounds_played",
            0,
            20,
            20,
            0,
            0,
            None,
        ),
        # Easy mode (the house rule), one enemy over two rounds, both missed: 15 full damage,
        # then the last 5 HP: the hero dies and is cloned at half of 20 (QC-42): not won.
        (
            brute,
            DAY,
            1,
            "vanguard",
            "easy",
            "one_enemy",
            '["Void brute"]',
            1,
            2,
            2,
            0,
            1,
            0,
            "death",
            1,
            20,
            10,
            10,
            20,
            played.undone_by(brute),
        ),
    ]
    assert damage == [15, 5]
    assert played.event(died).details["hp_after"] == 10
    assert played.undone_by(brute) is not None


def test_g_qc12_a_death_between_rounds_ends_the_combat(app: Questlog, views: ViewStore) -> None:
    cid = app.campaigns.create_campaign(
        game="quest-calendar", name="Hungry", setup={"prologue_complete": True}
    ).campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    run(app, cid, {"type": "start_page", "date": DAY})
    run(app, cid, {"type": "start_combat", "kind": "one_enemy", "rounds": BRUTE})
    run(app, cid, {"type": "combat_round"}, [2, 1])  # missed: 15 damage, 5 HP left
    run(app, cid, {"type": "eat_rations", "count": 5}, [4])  # 5 missing rations: death, clone 4
    sync(app, views, ANALYST_VIEWS)
    played = Played(app, cid)
    [died] = played.versions("qc.Died")
    assert played.event(died).details["encounters_ended"] == ["combat"]
    assert played.versions("qc.CombatEnded") == []
    found = rows(
        views,
        "combats",
        cid,
        *("version", "mode", "kind", "rounds", "rounds_played", "rounds_won"),
        *("enemies_remaining", "won", "ended_by", "died", "hp_before", "hp_after", "hp_lost"),
        "hp_damage",
    )
    assert found == [(died, "standard", "one_enemy", 2, 1, 0, None, 0, "death", 1, 20, 10, 10, 20)]


def test_qc01_house_rules_in_force_after_a_rollback(app: Questlog, views: ViewStore) -> None:
    qc, _ = quest_calendar_days(app)
    cb, _ = calendar_board_rolled_back(app)
    # A campaign created with no house rules holds every default.
    defaults = {
        game: app.campaign(
            app.campaigns.create_campaign(game=game, name="defaults", setup=setup).campaign_id
        ).house_rules
        for game, setup in (("quest-calendar", None), ("calendar-board", CB_SETUP))
    }
    sync(app, views, ANALYST_VIEWS)
    for cid, game in ((qc, "quest-calendar"), (cb, "calendar-board")):
        played = Played(app, cid)
        in_force = played.head.house_rules
        found = rows(views, "house_rules", cid, "rule", "value", "is_default", "version", "game")
        assert [row[0] for row in found] == sorted(in_force)
        for rule, value, is_default, version, row_game in found:
            assert json.loads(value) == in_force[rule]
            assert is_default == int(in_force[rule] == defaults[game][rule])
            assert row_game == game
            if rule != "qc.combat.mode":
                assert version == 1
    # Set to easy, undone by the rollback, then set to hard: the last setting is in force.
    [_, hard] = Played(app, qc).versions("questlog.HouseRuleConfigured")
    assert rows(views, "house_rules", qc, "rule", "value", "is_default", "version")[
        [r[0] for r in rows(views, "house_rules", qc, "rule")].index("qc.combat.mode")
    ] == ("qc.combat.mode", '"hard"', 0, hard)
    overridden = {r[0] for r in rows(views, "house_rules", cb, "rule", "is_default") if r[1] == 0}
    assert overridden == {"cb.night.steps", "cb.calendar.layout", *samples.ONE_SCREEN}


def test_cb01_cb33_cb41_board_nights_per_player(app: Questlog, views: ViewStore) -> None:
    cb, _ = calendar_board_rolled_back(app)
    sync(app, views, ANALYST_VIEWS)
    played = Played(app, cb)
    first, undone, again = played.versions("cb.NightPhaseEnded")
    [rollback] = played.versions("questlog.RolledBack")
    found = rows(
        views,
        "board_nights",
        cb,
        *("version", "n", "night", "day", "player", "exhaustion", "exhaustion_start"),
        *("exhaustion_change", "slept", "eliminated", "actions", "undone_by"),
    )

    def acts(action: str, result: str) -> str:
        return json.dumps([{"action": action, "result": result}])

    assert found == [
        # Night 1 (round 1): A sleeps at 0 (CB-39: stays 0); B's failed rizz takes 4 to 5 and
        # eliminates both pathway pieces (CB-36).
        (first, 0, 1, 1, "A", 0, 0, 0, 0, 0, acts("sleep", "unchanged"), None),
        (first, 1, 1, 1, "B", 5, 4, 1, 0, 2, acts("rizz", "failure"), None),
        # Night 2 as first played: B slept through day 2 (5 to 4, CB-41); undone.
        (undone, 0, 2, 2, "A", 1, 0, 1, 0, 0, acts("rizz", "failure"), rollback),
        (undone, 1, 2, 2, "B", 3, 4, -1, 1, 0, acts("sleep", "recovered"), rollback),
        # Night 2 played again without the day sleep: both sleep.
        (again, 0, 2, 2, "A", 0, 0, 0, 0, 0, acts("sleep", "unchanged"), None),
        (again, 1, 2, 2, "B", 4, 5, -1, 0, 0, acts("sleep", "recovered"), None),
    ]
    parties = played.head.state["parties"]
    assert (parties["A"]["exhaustion"], parties["B"]["exhaustion"]) == (0, 4)
    assert played.undone_by(undone) == rollback


def test_a_rebuild_gives_the_same_rows(app: Questlog, views: ViewStore) -> None:
    quest_calendar_days(app)
    calendar_board_rolled_back(app)
    sync(app, views, ANALYST_VIEWS, batch_size=3)
    incremental = dump(views, ANALYST_VIEWS)
    rebuild_with(app, views, ANALYST_VIEWS, batch_size=1000)
    assert dump(views, ANALYST_VIEWS) == incremental
    assert all(incremental[t] for t in ("trait_checks", "combats", "rollbacks", "board_nights"))


def test_every_column_of_the_analyst_tables_says_what_it_holds() -> None:
    for view in ANALYST_VIEWS:
        for logical, spec in view.tables.items():
            assert set(spec.doc) == set(spec.names), logical
            assert all(len(spec.doc[name].split()) >= 3 for name in spec.names), logical
            assert set(spec.kinds) <= set(spec.names), logical
