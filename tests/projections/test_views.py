"""Each view against the scripted campaigns of both games, on SQLite and on PostgreSQL."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.service.questlog import Questlog
from projections.store import COPY_FROM, ViewStore
from projections.views import ALL_VIEWS
from projections.views.campaigns import campaign_summaries, campaign_summary
from projections.views.debt_ledger import debt_ledger, debt_spans
from projections.views.exhaustion import exhaustion_history
from projections.views.hero_timeline import hero_lives, hero_timeline
from projections.views.roll_log import RollLog, roll_log
from projections.views.ship import ship_history, ship_losses
from projections.views.weather import weather_history
from tests.projections.conftest import sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week


@pytest.fixture
def week(app: Questlog, views: ViewStore) -> str:
    """The Quest Calendar week, applied to the views."""
    campaign_id = quest_calendar_week(app)
    sync(app, views)
    return str(campaign_id)


@pytest.fixture
def match(app: Questlog, views: ViewStore) -> str:
    """The Calendar Board match, applied to the views."""
    campaign_id = calendar_board_match(app)
    sync(app, views)
    return str(campaign_id)


def pick(items: list[dict[str, Any]], *keys: str) -> list[tuple[Any, ...]]:
    """Some fields of each item, as tuples."""
    return [tuple(item[key] for key in keys) for item in items]


# -- Quest Calendar ------------------------------------------------------------------------------


def test_debt_ledger_has_every_movement_with_its_cause_and_balance(
    app: Questlog, views: ViewStore, week: str
) -> None:
    ledger = debt_ledger(views, week)
    assert pick(ledger["items"], "entry", "cause", "delta", "balance_after") == [
        ("opening", "heroSelected", 3, 3),
        ("movement", "payment", -5, -2),
        ("movement", "debtPenalty", -2, -4),
        ("movement", "reward", 6, 2),
        ("movement", "theft", -1, 1),
        ("movement", "crewFee", -1, 0),
        ("movement", "lottery", 4, 4),
        ("movement", "purchase", -2, 2),
        ("movement", "sale", 2, 4),
        ("movement", "pickpocket", 3, 7),
        ("movement", "cloning", -4, 3),
    ]
    items = ledger["items"]
    assert {item["hero_id"] for item in items} == {"vanguard"}
    assert [item["page_date"] for item in items[1:6]] == ["2027-01-04"] * 5
    assert [item["page_date"] for item in items[6:]] == ["2027-01-10"] * 5
    assert items[1]["context"] == {"purpose": "toll"}
    assert items[7]["context"] == {"item_id": "med-kit", "shop_id": "dock-market"}
    assert sum(item["delta"] for item in items) == app.campaign(UUID(week)).state["hero"]["credits"]
    assert ledger["next"] is None
    assert ledger["position"] == app.recorder.max_notification_id()


def test_debt_ledger_filters_and_pages(views: ViewStore, week: str) -> None:
    penalties = debt_ledger(views, week, cause="debtPenalty")["items"]
    assert pick(penalties, "delta", "balance_before", "balance_after") == [(-2, -2, -4)]
    first = debt_ledger(views, week, limit=4)
    second = debt_ledger(views, week, limit=4, after=first["next"])
    assert len(first["items"]) == len(second["items"]) == 4
    rest = debt_ledger(views, week, limit=4, after=second["next"])
    assert rest["next"] is None
    causes = [i["cause"] for page in (first, second, rest) for i in page["items"]]
    assert causes == [i["cause"] for i in debt_ledger(views, week)["items"]]


def test_debt_spans_run_from_going_below_zero_to_paying_back(views: ViewStore, week: str) -> None:
    (span,) = debt_spans(views, week)["items"]
    assert span["hero_id"] == "vanguard"
    assert (span["started_page"], span["ended_page"]) == ("2027-01-04", "2027-01-04")
    assert (span["deepest"], span["penalties"], span["entries"]) == (-4, 2, 3)
    assert span["started_version"] < span["ended_version"]


def test_hero_timeline_has_hp_and_virtue_with_page_and_cause(views: ViewStore, week: str) -> None:
    hp = hero_timeline(views, week, stat="hp")["items"]
    assert pick(hp, "page_date", "value", "previous", "maximum", "cause", "event_type") == [
        (None, 20, None, 20, "HeroSelected", "HeroSelected"),
        ("2027-01-04", 18, 20, 20, "starvation", "HeroDamaged"),
        ("2027-01-10", 0, 18, 20, "starvation", "HeroDamaged"),
        ("2027-01-10", 10, 0, 20, "starvation", "Died"),
    ]
    virtue = hero_timeline(views, week, stat="virtue")["items"]
    assert pick(virtue, "value", "previous", "cause") == [
        (0, None, "HeroSelected"),
        (2, 0, "spared the smuggler"),
    ]


def test_hero_lives_record_the_death_and_the_clone(views: ViewStore, week: str) -> None:
    lives = hero_lives(views, week)["items"]
    assert pick(lives, "kind", "cause", "outcome", "page_date", "hp_after", "hero_id") == [
        ("died", "starvation", None, "2027-01-10", 10, "vanguard"),
        ("cloned", "starvation", 1, "2027-01-10", 10, "vanguard"),
    ]


def test_ship_history_follows_the_bridge_until_it_is_destroyed(views: ViewStore, week: str) -> None:
    changes = ship_history(views, week)["items"]
    assert {c["compartment"] for c in changes} == {"2"}
    assert pick(changes, "event_type", "integrity", "previous", "integrity_max") == [
        ("CrewAssigned", 4, 3, 4),
        ("CompartmentHit", 3, 4, 4),
        ("CompartmentHit", 2, 3, 4),
        ("CompartmentHit", 1, 2, 4),
        ("CompartmentHit", 0, 1, 4),
        ("CrewDied", 0, 0, 3),
    ]
    assert changes[0]["name"] == "Bridge"
    assert ship_history(views, week, compartment="1")["items"] == []
    (loss,) = ship_losses(views, week)["items"]
    assert (loss["kind"], loss["item_id"], loss["compartment"]) == ("crew", "vex", "2")
    assert loss["detail"]["integrity_bonus_lost"] == 1
    assert ship_losses(views, week, kind="upgrade")["items"] == []


def test_roll_log_of_the_week(views: ViewStore, week: str) -> None:
    rolls = roll_log(views, campaign_id=week)["items"]
    assert [r["notation"] for r in rolls] == ["1d100", "1d100", *["1d6"] * 5, "1d4", "1d4"]
    assert pick(rolls[-2:], "purpose", "faces", "total") == [
        ("pickpocket", [3], 3),
        ("clone cost roll", [1], 1),
    ]
    assert {(r["game"], r["source"], r["verified"], r["undone"]) for r in rolls} == {
        ("quest-calendar", "reported", None, False)
    }


def test_campaign_summary_of_the_week(app: Questlog, views: ViewStore, week: str) -> None:
    summary = campaign_summary(views, week)
    assert summary is not None
    assert (summary["game"], summary["name"]) == ("quest-calendar", "Week")
    assert summary["version"] == summary["events"] == app.campaign(UUID(week)).version
    assert (summary["pages_played"], summary["last_page"]) == (1, "2027-01-10")
    assert (summary["rolls"], summary["reported_rolls"], summary["server_rolls"]) == (9, 9, 0)
    assert (summary["deaths"], summary["clones"], summary["rollbacks"]) == (1, 1, 0)
    assert summary["last_activity"] >= summary["created_at"]


# -- The Calendar Board --------------------------------------------------------------------------


def test_exhaustion_history_with_nights_and_eliminations(views: ViewStore, match: str) -> None:
    history = exhaustion_history(views, match)["items"]
    assert pick(history, "party", "night", "round", "from", "to", "cause", "eliminated") == [
        ("B", 1, 1, 4, 5, "rizz", ["b1", "b2"]),
        ("B", None, 2, 5, 4, "daySleep", []),
        ("A", 2, 2, 0, 1, "rizz", []),
        ("B", 2, 2, 4, 3, "nightSleep", []),
    ]
    assert [h["eliminations"] for h in history] == [2, 0, 0, 0]
    assert [h["to"] for h in exhaustion_history(views, match, party="A")["items"]] == [1]
    assert len(exhaustion_history(views, match, night=2)["items"]) == 2


def test_weather_history_has_a_row_per_night(views: ViewStore, match: str) -> None:
    nights = weather_history(views, match)["items"]
    assert pick(nights, "night", "round", "space_from", "space", "weather", "in_force") == [
        (1, 1, 0, 1, "rain", "normal"),
        (2, 2, 1, 4, "snow", "normal"),
    ]
    assert pick(nights, "pending", "activated_round", "hail_save") == [
        (True, 2, False),
        (True, 3, False),
    ]
    assert [n["wind"] for n in nights] == [
        {"d20": 10, "speed": "light", "direction": "south"},
        {"d20": 20, "speed": "heavy", "direction": "east"},
    ]
    assert [n["night"] for n in weather_history(views, match, weather="snow")["items"]] == [2]


def test_campaign_summaries_of_both_games(views: ViewStore, week: str, match: str) -> None:
    everything = campaign_summaries(views)["items"]
    assert [s["campaign_id"] for s in everything] == [week, match]
    (board,) = campaign_summaries(views, game="calendar-board")["items"]
    assert (board["nights_played"], board["round"], board["eliminations"]) == (2, 3, 2)
    assert board["rolls"] == 6
    assert board["pages_played"] is None


def test_roll_log_across_campaigns_filters_by_game_and_pages(
    views: ViewStore, week: str, match: str
) -> None:
    board = roll_log(views, game="calendar-board")["items"]
    assert [r["purpose"] for r in board] == ["calendar", "wind", "rizz"] * 2
    assert {r["campaign_id"] for r in board} == {match}
    seen, cursor = [], None
    while True:
        found = roll_log(views, limit=4, after=cursor)
        seen += found["items"]
        cursor = found["next"]
        if cursor is None:
            break
    assert len(seen) == 15
    assert seen == roll_log(views, limit=100)["items"]


def test_server_rolls_are_verified_once_the_seed_is_revealed(
    app: Questlog, views: ViewStore
) -> None:
    week = quest_calendar_week(app)
    for _ in range(3):
        app.dice.roll(week, notation="2d20kh1+3", purpose="attack")
    app.dice.roll(week, notation="d6", purpose="by hand", faces=[4])
    sync(app, views)
    server = roll_log(views, campaign_id=str(week), source="server")["items"]
    assert [(r["notation"], r["verified"]) for r in server] == [("2d20kh1+3", None)] * 3
    assert all(r["proof"]["nonce"] == n for n, r in enumerate(server))
    app.dice.rotate_seed(week)
    sync(app, views)
    assert [r["verified"] for r in roll_log(views, source="server")["items"]] == [True] * 3
    assert roll_log(views, purpose="by hand")["items"][0]["verified"] is None
    assert len(roll_log(views, verified=True)["items"]) == 3
    summary = campaign_summary(views, str(week))
    assert summary is not None
    assert (summary["server_rolls"], summary["seed_rotations"]) == (3, 1)


def test_a_roll_with_the_players_entropy_is_verified_with_it(
    app: Questlog, views: ViewStore
) -> None:
    week = quest_calendar_week(app)
    app.dice.roll(week, notation="4d20", purpose="with entropy", entropy="From-the-player_1")
    app.dice.roll(week, notation="4d20", purpose="without")
    app.dice.rotate_seed(week)
    sync(app, views)
    rows = roll_log(views, campaign_id=str(week), source="server")["items"][-2:]
    assert [r["verified"] for r in rows] == [True, True]
    assert rows[0]["proof"]["entropy"] == "From-the-player_1"
    assert "entropy" not in rows[1]["proof"]


def test_a_views_store_of_an_earlier_release_gains_the_new_columns(
    app: Questlog, views: ViewStore
) -> None:
    """The roll log's ``entropy`` column came later: a store made without it gets it on start."""
    rolls = views.physical("rolls")
    with views.write() as cursor:
        cursor.execute(f"ALTER TABLE {rolls} DROP COLUMN entropy")
        cursor.execute(f"SELECT * FROM {rolls} LIMIT 0")
        assert "entropy" not in {c[0] for c in cursor.description}
    views.ensure(ALL_VIEWS)
    week = quest_calendar_week(app)
    app.dice.roll(week, notation="d20", purpose="after the upgrade", entropy="abc")
    app.dice.rotate_seed(week)
    sync(app, views)
    [row] = roll_log(views, campaign_id=str(week), purpose="after the upgrade")["items"]
    assert (row["proof"]["entropy"], row["verified"]) == ("abc", True)


def test_queries_refuse_a_bad_cursor_or_limit(views: ViewStore) -> None:
    with pytest.raises(ValueError, match="cursor"):
        roll_log(views, after="x")
    with pytest.raises(ValueError, match="limit"):
        roll_log(views, limit=0)


def test_a_campaign_that_starts_with_a_hero_opens_its_ledger(
    app: Questlog, views: ViewStore
) -> None:
    start = getattr(app.campaigns, "start_campaign", None)
    if start is None:
        pytest.skip("the application cannot start a campaign from a state (forks) yet")
    week = quest_calendar_week(app)
    played = app.campaign(week)
    fork = start(
        game="quest-calendar",
        name="Fork",
        house_rules=played.house_rules,
        state=played.state,
    )
    fork_id = str(fork.campaign_id)
    sync(app, views)
    (opening,) = debt_ledger(views, fork_id)["items"]
    assert (opening["entry"], opening["cause"], opening["delta"]) == (
        "opening",
        "campaignStarted",
        3,
    )
    assert opening["balance_before"] is None
    summary = campaign_summary(views, fork_id)
    assert summary is not None
    assert (summary["pages_played"], summary["last_page"]) == (1, "2027-01-10")


def test_many_rows_are_written_as_a_few_are(views: ViewStore) -> None:
    """PostgreSQL writes a batch's many rows by ``COPY`` and a few by INSERT: the
    same rows come back, and a key written twice fails the batch either way."""
    spec = RollLog.tables["rolls"]
    text = 'tab\there, new\nline, back\\slash, \\N, quote\'s, "quoted", é, \x7f, end'

    def row(event_id: int) -> tuple[Any, ...]:
        values: list[Any] = [f"c{event_id % 3}", event_id, 0, event_id]
        for n, (_, kind) in enumerate(spec.columns[4:]):
            number = event_id * 10 + n
            if number % 7 == 0 and "NOT NULL" not in kind:
                values.append(None)
            else:
                values.append(text if "TEXT" in kind else number)
        return tuple(values)

    many, few = [row(i) for i in range(1, COPY_FROM + 5)], [row(i) for i in range(100, 103)]
    for rows in (many, few):
        with views.write() as cursor:
            views.write_rows(cursor, spec, "rolls", rows)
    with views.read() as cursor:
        found = views.rows(cursor, "SELECT * FROM {rolls} ORDER BY event_id")
    assert [tuple(r.values()) for r in found] == many + few

    for rows in ([*many[:COPY_FROM], many[0]], [few[0]]):
        with pytest.raises(Exception, match=r"(?i)unique|duplicate"), views.write() as cursor:
            views.write_rows(cursor, spec, "rolls", [row(500 + i) for i in range(len(rows))])
            views.write_rows(cursor, spec, "rolls", rows)
    with views.read() as cursor:
        assert len(views.rows(cursor, "SELECT event_id FROM {rolls}")) == len(many + few)
