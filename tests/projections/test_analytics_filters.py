"""The analytics filter (projections.filters): by campaign, game, house rule, the game's dates
and recording time, on both figures and dice, checked against what the played campaigns hold.

Rules: QC-01 (house rules per campaign), CB-19 and G-CB-14 (the weather and the night gap), the
page dates of Quest Calendar and the night numbers of the Calendar Board."""

from __future__ import annotations

from uuid import UUID

from domain.service.questlog import Questlog
from projections.fairness import dice_fairness
from projections.filters import Filter
from projections.store import ViewStore
from projections.views.stats import campaign_figures
from tests.projections.conftest import sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week, run

PREVIOUS_GAP = {"cb.weather.nightGap": "previous"}


def played(app: Questlog, views: ViewStore) -> tuple[UUID, UUID, UUID]:
    """A Quest Calendar week with a die rolled on each page, and two matches, one of them with
    the previous-weather night gap (G-CB-14)."""
    week = quest_calendar_week(app)
    normal = calendar_board_match(app)
    previous = calendar_board_match(app, PREVIOUS_GAP)
    sync(app, views)
    return week, normal, previous


def nights(figures: dict[str, object]) -> list[int]:
    return [entry["night"] for entry in figures["exhaustion_by_night"]]  # type: ignore[attr-defined, index]


def test_game_and_campaign_pick_their_rows(app: Questlog, views: ViewStore) -> None:
    week, normal, _ = played(app, views)
    both = campaign_figures(views)
    assert both["weather"]["nights"] == 4 and [p["page"] for p in both["credits_by_page"]] == [1]

    qc = campaign_figures(views, Filter(game="quest-calendar"))
    assert qc["credits_by_page"] == both["credits_by_page"]
    assert qc["weather"]["nights"] == 0 and qc["exhaustion_by_night"] == []
    cb = campaign_figures(views, Filter(game="calendar-board"))
    assert cb["credits_by_page"] == [] and cb["deaths_by_level"] == []
    assert cb["weather"] == both["weather"]

    one = campaign_figures(views, Filter(campaign_id=str(normal)))
    assert one["weather"]["nights"] == 2 and one["credits_by_page"] == []
    assert [e["parties"] for e in one["exhaustion_by_night"]] == [2, 2]
    mine = campaign_figures(views, Filter(campaign_id=str(week)))
    assert mine["weather"]["nights"] == 0 and mine["clone_results"] == {"1": 1}


def test_the_games_dates_bound_their_own_games_rows(app: Questlog, views: ViewStore) -> None:
    played(app, views)
    # The week's first page (2027-01-04) ended; the hero died on the second (2027-01-10).
    early = campaign_figures(views, Filter(to_date="2027-01-05"))
    assert [p["page"] for p in early["credits_by_page"]] == [1]
    assert early["deaths_by_level"] == []
    late = campaign_figures(views, Filter(from_date="2027-01-05", to_date="2027-12-31"))
    assert late["credits_by_page"] == [] and late["clone_results"] == {"1": 1}
    # A date range never hides the board's rows; a night range never hides the pages.
    assert late["weather"]["nights"] == 4
    second = campaign_figures(views, Filter(from_night=2, to_night=2))
    assert nights(second) == [2] and second["weather"]["nights"] == 2
    assert [p["page"] for p in second["credits_by_page"]] == [1]
    assert campaign_figures(views, Filter(game="calendar-board", to_night=0))["weather"] == {
        "nights": 0,
        "set": {},
        "share_set": {},
        "in_force": {},
        "share_in_force": {},
        "in_force_tonight": {},
    }


def test_recording_time_is_not_the_games_date(app: Questlog, views: ViewStore) -> None:
    played(app, views)
    # Every row was recorded today; the pages are dated 2027.
    assert campaign_figures(views, Filter(since="2999-01-01"))["weather"]["nights"] == 0
    dated_2027 = campaign_figures(views, Filter(from_date="2027-01-01", to_date="2027-12-31"))
    assert [p["page"] for p in dated_2027["credits_by_page"]] == [1]


def test_a_house_rule_value_picks_the_campaigns_that_keep_it(
    app: Questlog, views: ViewStore
) -> None:
    _, normal, previous = played(app, views)
    kept = campaign_figures(views, Filter(house_rules=(("cb.weather.nightGap", "previous"),)))
    assert kept["weather"]["nights"] == 2
    assert kept["weather"]["in_force_tonight"] == {"normal": 1, "rain": 1}
    default = campaign_figures(views, Filter(house_rules=(("cb.weather.nightGap", "normal"),)))
    assert default["weather"]["in_force_tonight"] == {"normal": 2}
    assert default["credits_by_page"] == []  # the week is a Quest Calendar: no such rule
    both = Filter(house_rules=(("cb.weather.nightGap", "previous"), ("qc.combat.mode", "easy")))
    assert campaign_figures(views, both)["weather"]["nights"] == 0
    dice = dice_fairness(views, Filter(house_rules=(("cb.weather.nightGap", "previous"),)))
    everything = dice_fairness(views, Filter(campaign_id=str(previous)))
    assert dice["dice"] == everything["dice"] and dice["dice"]
    assert str(normal) != str(previous)


def test_the_dice_are_filtered_by_the_page_and_night_they_were_rolled_on(
    app: Questlog, views: ViewStore
) -> None:
    week = app.campaigns.create_campaign(
        game="quest-calendar", name="Dated dice", setup={"prologue_complete": True}
    ).campaign_id
    from tests.projections.scenarios import HERO

    run(app, week, {"type": "select_hero", "phase": "main", "hero": HERO})
    for day, face in (("2027-01-04", 1), ("2027-01-05", 2), ("2027-01-06", 3)):
        run(app, week, {"type": "start_page", "date": day})
        app.dice.roll(week, notation="d6", purpose="dated", faces=[face])
        run(app, week, {"type": "end_page"})
    calendar_board_match(app)
    sync(app, views)

    middle = dice_fairness(views, Filter(game="quest-calendar", from_date="2027-01-05"))
    (d6,) = middle["dice"]
    assert d6["faces"] == {"1": 0, "2": 1, "3": 1, "4": 0, "5": 0, "6": 0}
    only = dice_fairness(views, Filter(from_date="2027-01-05", to_date="2027-01-05"))
    d6_only = next(e for e in only["dice"] if e["sides"] == 6)
    assert d6_only["faces"]["2"] == 1 and d6_only["dice"] == 1
    assert any(e["sides"] == 20 for e in only["dice"])  # the board's dice are not dated pages
    first_night = dice_fairness(views, Filter(game="calendar-board", to_night=1))
    every_night = dice_fairness(views, Filter(game="calendar-board"))
    assert sum(e["dice"] for e in first_night["dice"]) < sum(e["dice"] for e in every_night["dice"])
