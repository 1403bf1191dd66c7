"""The fairness test counts dice, not rolls: notations that roll one die and several dice of the
same type mix in one test, and its figures agree with an independent computation (scipy.stats).

Rules: QC-03 and CB-09 roll dice by notation (a d20 check, the calendar's d4); the roll log keeps
every kept die (docs/projections.md, "GET /analytics/dice").
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from uuid import UUID

import pytest
from scipy import stats

from domain.service.questlog import Questlog
from projections.fairness import dice_fairness
from projections.filters import Filter
from projections.store import ViewStore
from tests.projections.conftest import sync
from tests.projections.scenarios import CB_HOUSE_RULES, CB_SETUP, calendar_board_match, run
from tests.projections.test_rollback import roll_back


def reported(app: Questlog, cid: UUID, notation: str, faces: list[int], per_roll: int) -> None:
    """Record hand-rolled faces, ``per_roll`` faces a roll of ``notation``."""
    for start in range(0, len(faces), per_roll):
        app.dice.roll(
            cid, notation=notation, purpose="fairness", faces=faces[start : start + per_roll]
        )


def cycle(count: int, sides: int) -> list[int]:
    """``count`` faces, each face of a ``sides``-sided die equally often."""
    return [face for face, _ in zip(itertools.cycle(range(1, sides + 1)), range(count))]


def test_uniform_faces_give_chi_square_0_and_p_1_whatever_the_notations(
    app: Questlog, views: ViewStore
) -> None:
    qc = app.campaigns.create_campaign(game="quest-calendar", name="Mixed").campaign_id
    cb = app.campaigns.create_campaign(
        game="calendar-board", name="Mixed board", house_rules=CB_HOUSE_RULES, setup=CB_SETUP
    ).campaign_id
    # 90 rolls of 1d6 and 45 of 2d6: 180 d6, 30 of each face (the issue's own example).
    reported(app, qc, "1d6", cycle(90, 6), 1)
    reported(app, qc, "2d6", cycle(90, 6), 2)
    # d4 from both games and three notations: 60 + 2 x 20 + 20 = 120 d4, 30 of each face.
    reported(app, qc, "d4", cycle(60, 4), 1)
    reported(app, cb, "2d4", cycle(40, 4), 2)
    reported(app, cb, "1d4+1d4", cycle(20, 4), 2)
    # A roll a rollback undid is not counted: a seventh face that would break the balance.
    before = app.campaign(qc).version
    run(app, qc, {"type": "start_page", "date": "2027-01-04"})
    app.dice.roll(qc, notation="3d6", purpose="undone", faces=[6, 6, 6])
    roll_back(app, qc, before)
    sync(app, views)

    report = dice_fairness(views)
    by_sides = {e["sides"]: e for e in report["dice"]}
    d6, d4 = by_sides[6], by_sides[4]
    assert d6["faces"] == dict.fromkeys("123456", 30)
    assert d6["expected"] == dict.fromkeys("123456", 30.0)
    assert (d6["dice"], d6["rolls"]) == (180, 135)
    assert d6["test"]["chi_square"] == 0 and d6["test"]["p_value"] == 1.0
    assert d6["unlikely_fair"] is False
    assert d4["faces"] == dict.fromkeys("1234", 30)
    assert d4["expected"] == dict.fromkeys("1234", 30.0)
    assert d4["test"]["chi_square"] == 0 and d4["test"]["p_value"] == 1.0
    (source,) = report["sources"]
    assert source["test"]["chi_square"] == 0 and source["test"]["p_value"] == 1.0
    assert source["unlikely_fair"] is False

    with_undone = {e["sides"]: e for e in dice_fairness(views, Filter(include_undone=True))["dice"]}
    assert with_undone[6]["faces"]["6"] == 33 and with_undone[6]["test"]["chi_square"] > 0


def test_figures_match_scipy_on_mixed_notations_sources_and_games(
    app: Questlog, views: ViewStore
) -> None:
    qc = app.campaigns.create_campaign(game="quest-calendar", name="Skewed").campaign_id
    # Skewed hand-rolled d6 over three notations: 1d6, 2d6 and 3d6+2.
    singles = [1] * 20 + [2] * 15 + [3] * 15 + [4] * 10 + [5] * 10 + [6] * 30
    pairs = [1, 6] * 20 + [2, 5] * 10 + [3, 4] * 5
    triples = [6, 6, 1] * 10 + [2, 3, 4] * 5
    reported(app, qc, "1d6", singles, 1)
    reported(app, qc, "2d6", pairs, 2)
    reported(app, qc, "3d6+2", triples, 3)
    calendar_board_match(app)  # the other game's dice: the calendar's d4, the wind's d20
    sync(app, views)

    report = dice_fairness(views)
    entries = {(e["source"], e["sides"]): e for e in report["dice"]}
    d6 = entries[("reported", 6)]
    observed = [Counter(singles + pairs + triples)[face] for face in range(1, 7)]
    dice = len(singles) + len(pairs) + len(triples)
    assert [d6["faces"][str(face)] for face in range(1, 7)] == observed
    assert d6["dice"] == dice and d6["rolls"] == len(singles) + len(pairs) // 2 + len(triples) // 3
    expected = [dice / 6] * 6
    reference = stats.chisquare(observed, expected)
    assert d6["test"]["chi_square"] == pytest.approx(reference.statistic, abs=1e-6)
    assert d6["test"]["p_value"] == pytest.approx(reference.pvalue, rel=1e-9)
    assert d6["test"]["df"] == 5

    # Every other die type, tested against scipy on its own counts.
    for (_source, sides), entry in entries.items():
        if entry["test"] is None:
            continue
        counts = [entry["faces"][str(face)] for face in range(1, sides + 1)]
        expect = [entry["expected"][str(face)] for face in range(1, sides + 1)]
        assert sum(expect) == pytest.approx(sum(counts), abs=0.01)  # expected: 3 decimals
        if min(expect) >= 5 and len(entry["groups"]) == 1:
            (group,) = entry["groups"]
            exact = [float(Fraction(p) * group["dice"]) for p in group["distribution"]]
            ref = stats.chisquare(counts, exact)
            assert entry["test"]["p_value"] == pytest.approx(ref.pvalue, rel=1e-4)
