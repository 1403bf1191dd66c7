"""Dice fairness statistics and campaign figures: the chi-square math against known values, the
exact kept-die distributions against enumeration, and the fairness test on real campaigns (a
loaded die is flagged, fair server dice are not), on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from uuid import UUID

import pytest

from domain.model.dice import draw as dicelib
from domain.model.quest_calendar.combat import ROUND_EXAMPLE
from domain.service.questlog import Questlog
from projections.analytics import (
    chi_square_sf,
    chi_square_test,
    combine,
    kept_distribution,
    pool,
    regularized_gamma_p,
    regularized_gamma_q,
)
from projections.fairness import dice_fairness
from projections.filters import Filter
from projections.store import ViewStore
from projections.views.stats import campaign_figures
from tests.projections.conftest import sync
from tests.projections.scenarios import (
    HERO,
    calendar_board_match,
    many_rolls,
    quest_calendar_week,
    run,
)
from tests.projections.test_rollback import roll_back

FIXED_SEED = "5eed" * 16

# -- the chi-square distribution ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("statistic", "df", "p_value"),
    [
        # Critical values of the standard tables (Abramowitz & Stegun 26.2, NIST handbook).
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (10.827566170662733, 1, 0.001),
        (5.991464547107979, 2, 0.05),
        (11.070497693516351, 5, 0.05),
        (20.515005652432873, 5, 0.001),
        (18.307038053275146, 10, 0.05),
        (30.14352720564616, 19, 0.05),
        (43.82019596451753, 19, 0.001),
        (123.22522145336181, 99, 0.05),
    ],
)
def test_chi_square_p_values_match_the_tables(statistic: float, df: int, p_value: float) -> None:
    assert chi_square_sf(statistic, df) == pytest.approx(p_value, rel=1e-9)


def _closed_form(statistic: float, df: int) -> float:
    """The survival function in closed form: a finite sum for even df, erfc for odd df."""
    half = statistic / 2
    if df % 2 == 0:
        return math.exp(-half) * sum(half**i / math.factorial(i) for i in range(df // 2))
    tail = math.erfc(math.sqrt(half))
    terms = sum(half ** (i + 0.5) / math.gamma(i + 1.5) for i in range((df - 1) // 2))
    return tail + math.exp(-half) * terms


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 10, 19, 30])
@pytest.mark.parametrize("statistic", [0.01, 0.5, 1.0, 3.0, 9.5, 25.0, 60.0, 150.0])
def test_chi_square_p_values_match_the_closed_forms(statistic: float, df: int) -> None:
    assert chi_square_sf(statistic, df) == pytest.approx(_closed_form(statistic, df), rel=1e-9)


def test_the_incomplete_gamma_functions_are_complementary_and_bounded() -> None:
    for a, x in itertools.product([0.5, 1, 2.5, 10, 50], [0.1, 1, 5, 20, 100]):
        assert regularized_gamma_p(a, x) + regularized_gamma_q(a, x) == pytest.approx(1.0)
        assert 0.0 <= regularized_gamma_q(a, x) <= 1.0
    assert regularized_gamma_q(1, 2) == pytest.approx(math.exp(-2))
    assert chi_square_sf(0, 5) == 1.0
    assert chi_square_sf(1e6, 5) == 0.0
    with pytest.raises(ValueError):
        chi_square_sf(1, 0)


def test_cells_expecting_under_five_are_pooled_with_their_neighbours() -> None:
    observed, expected = pool([1, 2, 3, 10, 1], [1.0, 2.0, 3.0, 10.0, 1.0])
    assert (observed, expected) == ([6, 11], [6.0, 11.0])
    test = chi_square_test([10, 10, 10, 30], [15.0, 15.0, 15.0, 15.0])
    assert test is not None
    assert (test.statistic, test.df) == (20.0, 3)
    assert chi_square_test([1, 2], [1.0, 2.0]) is None
    both = combine([test, test])
    assert both is not None and (both.statistic, both.df) == (40.0, 6)


# -- exact distributions of kept dice ------------------------------------------------------------


def _enumerated(count: int, sides: int, keep: str, keep_count: int) -> list[Fraction]:
    """The kept-die distribution by enumerating every outcome of the dice."""
    counts: Counter[int] = Counter()
    outcomes = list(itertools.product(range(1, sides + 1), repeat=count))
    for faces in outcomes:
        ordered = sorted(faces, reverse=keep == "kh")
        counts.update(ordered[:keep_count])
    total = len(outcomes) * keep_count
    return [Fraction(counts[face], total) for face in range(1, sides + 1)]


def test_the_kept_die_of_2d20kh1_has_its_exact_distribution() -> None:
    distribution = kept_distribution(2, 20, "kh", 1)
    assert sum(distribution) == 1
    assert list(distribution) == _enumerated(2, 20, "kh", 1)
    assert list(distribution) == [Fraction(2 * m - 1, 400) for m in range(1, 21)]


@pytest.mark.parametrize(
    ("count", "sides", "keep", "keep_count"),
    [(2, 20, "kl", 1), (3, 6, "kh", 1), (4, 6, "kh", 3), (3, 8, "kl", 2), (5, 4, "kh", 2)],
)
def test_kept_distributions_match_enumeration(
    count: int, sides: int, keep: str, keep_count: int
) -> None:
    distribution = kept_distribution(count, sides, keep, keep_count)
    assert sum(distribution) == 1
    assert list(distribution) == _enumerated(count, sides, keep, keep_count)


def test_dice_without_keep_are_uniform() -> None:
    assert kept_distribution(3, 6) == (Fraction(1, 6),) * 6
    assert kept_distribution(2, 10, "kh", 2) == (Fraction(1, 10),) * 10


# -- fairness on real campaigns ------------------------------------------------------------------


def loaded_campaign(app: Questlog, rolls: int = 36) -> UUID:
    """A campaign whose hand-rolled d6 always shows 6."""
    cid = app.campaigns.create_campaign(game="quest-calendar", name="Loaded").campaign_id
    for _ in range(rolls):
        app.dice.roll(cid, notation="d6", purpose="attack", faces=[6])
    return cid


def test_a_loaded_die_is_flagged_and_fair_server_dice_are_not(
    app: Questlog, views: ViewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fixed server seed and client seed make the fair dice, and so this test, deterministic
    # (with a random client seed the fair dice failed the 1 % test about once a hundred runs).
    monkeypatch.setattr(dicelib, "new_server_seed", lambda: FIXED_SEED)
    monkeypatch.setattr(dicelib, "new_client_seed", lambda: "fairness")
    fair = many_rolls(app, 2000)
    monkeypatch.undo()
    loaded = loaded_campaign(app)
    sync(app, views)

    report = dice_fairness(views)
    entries = {(e["source"], e["sides"]): e for e in report["dice"]}
    server = entries[("server", 20)]
    assert server["dice"] == 2000 and server["rolls"] == 2000
    (group,) = server["groups"]
    assert group["rule"] == "2d20kh1"
    assert group["expected"]["20"] == pytest.approx(2000 * 39 / 400)
    assert server["test"]["df"] == 19 and server["test"]["p_value"] > 0.01
    assert server["unlikely_fair"] is False
    d6 = entries[("reported", 6)]
    assert d6["faces"] == {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0, "6": 36}
    assert d6["test"]["p_value"] < 1e-20 and d6["unlikely_fair"] is True
    sources = {s["source"]: s for s in report["sources"]}
    assert sources["server"]["unlikely_fair"] is False
    assert sources["reported"]["unlikely_fair"] is True

    per_campaign = dice_fairness(views, by_campaign=True)
    flagged = {s["campaign_id"] for s in per_campaign["sources"] if s["unlikely_fair"]}
    assert flagged == {str(loaded)}
    only_fair = dice_fairness(views, Filter(campaign_id=str(fair)))
    assert [s["source"] for s in only_fair["sources"]] == ["server"]
    assert dice_fairness(views, purpose="attack")["dice"][0]["sides"] == 6
    assert dice_fairness(views, Filter(since="2999-01-01"))["dice"] == []


def test_too_few_dice_are_counted_but_never_flagged(app: Questlog, views: ViewStore) -> None:
    loaded_campaign(app, rolls=10)
    sync(app, views)
    (d6,) = dice_fairness(views)["dice"]
    assert d6["faces"]["6"] == 10
    assert d6["enough_samples"] is False and d6["unlikely_fair"] is False


def test_undone_rolls_are_left_out_unless_asked(app: Questlog, views: ViewStore) -> None:
    cid = loaded_campaign(app, rolls=3)
    app.dice.roll(cid, notation="d6", purpose="attack", faces=[1])
    run(app, cid, {"type": "start_page", "date": "2027-01-04"})
    roll_back(app, cid, 2)
    sync(app, views)
    (kept,) = dice_fairness(views)["dice"]
    assert kept["faces"]["6"] == 1 and kept["faces"]["1"] == 0
    (everything,) = dice_fairness(views, Filter(include_undone=True))["dice"]
    assert everything["faces"]["6"] == 3 and everything["faces"]["1"] == 1


# -- campaign figures ----------------------------------------------------------------------------


def test_campaign_figures_of_both_games(app: Questlog, views: ViewStore) -> None:
    quest_calendar_week(app)
    calendar_board_match(app)
    sync(app, views)
    figures = campaign_figures(views)
    assert figures["credits_by_page"] == [
        {"page": 1, "campaigns": 1, "average_credits": 0.0, "average_debt": 0.0, "in_debt": 0.0}
    ]
    assert figures["deaths_by_level"] == [{"level": 1, "deaths": 1, "clone_results": {"1": 1}}]
    assert figures["clone_results"] == {"1": 1}
    assert figures["exhaustion_by_night"] == [
        {"night": 1, "parties": 2, "distribution": {"0": 1, "5": 1}, "average": 2.5},
        {"night": 2, "parties": 2, "distribution": {"1": 1, "3": 1}, "average": 2.0},
    ]
    assert figures["weather"]["set"] == {"rain": 1, "snow": 1}
    assert figures["weather"]["share_set"] == {"rain": 0.5, "snow": 0.5}
    # Night 1 began under the first day's Normal, night 2 under the rain night 1 set (CB-19);
    # the rest of each night was Normal under the default night gap (G-CB-14).
    assert figures["weather"]["in_force"] == {"normal": 1, "rain": 1}
    assert figures["weather"]["share_in_force"] == {"normal": 0.5, "rain": 0.5}
    assert figures["weather"]["in_force_tonight"] == {"normal": 2}
    assert figures["position"] == app.recorder.max_notification_id()


def test_the_weather_in_force_under_the_previous_night_gap(app: Questlog, views: ViewStore) -> None:
    # G-CB-14 with nightGap "previous": the day's weather goes on through the night.
    calendar_board_match(app, {"cb.weather.nightGap": "previous"})
    sync(app, views)
    weather = campaign_figures(views)["weather"]
    assert weather["set"] == {"rain": 1, "snow": 1}
    assert weather["in_force"] == {"normal": 1, "rain": 1}
    assert weather["in_force_tonight"] == {"normal": 1, "rain": 1}


def test_combat_rounds_won_per_difficulty_mode(app: Questlog, views: ViewStore) -> None:
    outcome = app.campaigns.create_campaign(
        game="quest-calendar", name="Fight", setup={"prologue_complete": True}
    )
    cid = outcome.campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    run(app, cid, {"type": "start_page", "date": "2027-01-04"})
    start = {"type": "start_combat", "kind": "several_enemies", "mode": "standard"}
    run(app, cid, {**start, "rounds": ROUND_EXAMPLE})
    run(app, cid, {"type": "combat_round"}, [20, 8])  # hit and enough damage: won
    run(app, cid, {"type": "combat_round"}, [1, 1, 1, 1])  # missed: lost
    run(app, cid, {"type": "end_page"})
    sync(app, views)
    figures = campaign_figures(views)
    assert figures["combat_by_mode"] == [
        {
            "mode": "standard",
            "combats": 1,
            "combats_won": 0,  # one of its two rounds lost: not won
            "share_won": 0.0,
            "rounds": 2,
            "rounds_played": 2,
            "rounds_won": 1,
            "rounds_won_per_combat": 1.0,
            "won_per_combat": 1.0,
            "won_per_round_played": 0.5,
        }
    ]
    (page,) = figures["credits_by_page"]
    assert (page["page"], page["average_credits"]) == (1, HERO["credits"])


def test_the_share_of_combats_won_counts_combats_not_rounds(
    app: Questlog, views: ViewStore
) -> None:
    # QC-21/QC-22: a combat is won when every one of its rounds is won and the hero lives.
    outcome = app.campaigns.create_campaign(
        game="quest-calendar", name="Fights", setup={"prologue_complete": True}
    )
    cid = outcome.campaign_id
    run(app, cid, {"type": "select_hero", "phase": "main", "hero": HERO})
    start = {"type": "start_combat", "kind": "several_enemies", "mode": "standard"}
    # Round 2 first checks the Frightened condition (a d20), then attack and damage.
    plays = [[[20, 8], [20, 20, 8]], [[20, 8], [1, 1, 1, 1]], [[20, 8], [20, 20, 8]]]
    for day, rounds in enumerate(plays, start=4):
        run(app, cid, {"type": "start_page", "date": f"2027-01-{day:02d}"})
        run(app, cid, {**start, "rounds": ROUND_EXAMPLE})
        for faces in rounds:
            run(app, cid, {"type": "combat_round"}, faces)
        run(app, cid, {"type": "end_page"})
    sync(app, views)
    ended = [e for e in app.campaign_events(cid, after=0) if type(e).__name__ == "CombatEnded"]
    won = sum(
        1
        for d in (e.details for e in ended)
        if d["rounds_won"] == d["rounds_played"] and d["ended_by"] != "death"
    )
    (standard,) = campaign_figures(views)["combat_by_mode"]
    assert (standard["combats"], standard["combats_won"]) == (len(ended), won) == (3, 2)
    assert standard["share_won"] == round(2 / 3, 4)
    assert standard["rounds_won"] == 5 and standard["rounds_won_per_combat"] == round(5 / 3, 3)


def test_figures_leave_out_what_a_rollback_undid(app: Questlog, views: ViewStore) -> None:
    week = quest_calendar_week(app)
    roll_back(app, week, 3)  # back to before the first page's end, its death and its clone
    sync(app, views)
    figures = campaign_figures(views)
    assert figures["credits_by_page"] == [] and figures["deaths_by_level"] == []
    everything = campaign_figures(views, Filter(include_undone=True))
    assert [p["page"] for p in everything["credits_by_page"]] == [1]
    assert everything["clone_results"] == {"1": 1}
