"""Rollbacks in the views: undone rows are marked, the ledger is reversed, a redo brings them back.

The views handle ``questlog.RolledBack`` by its topic string, so they work on logs written before
and after the event type existed; these tests need the domain to be able to record one.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest

from domain.model.campaign import Campaign
from domain.service.commands_service import Decided, Decision
from domain.service.questlog import Questlog
from domain.service.timeline import Timeline
from projections.store import ViewStore
from projections.views.campaigns import campaign_summary
from projections.views.debt_ledger import debt_ledger, debt_spans
from projections.views.exhaustion import exhaustion_history
from projections.views.hero_timeline import hero_lives, hero_timeline
from projections.views.roll_log import roll_log
from projections.views.ship import ship_history, ship_losses
from projections.views.weather import weather_history
from tests.projections.conftest import dump, sync
from tests.projections.scenarios import calendar_board_match, quest_calendar_week, run

pytestmark = pytest.mark.skipif(
    not hasattr(Campaign, "RolledBack"),
    reason="the domain has no Campaign.RolledBack event yet (time travel is being added)",
)


def roll_back(app: Questlog, campaign_id: UUID, to_version: int) -> int:
    """Record a rollback to ``to_version`` the way the application does; returns its version."""
    target = app.campaign(campaign_id, version=to_version)
    head = app.campaign(campaign_id)
    timeline = Timeline.of(head.rollbacks, head.version)
    undone = [
        record
        for event in app.campaign_events(campaign_id, after=to_version)
        if timeline.is_active(event.originator_version)
        for record in getattr(event, "rolls", None) or []
    ]

    class RollBack(Decision):
        def decide(self, campaign: Any) -> Decided:
            campaign.roll_back(
                to_version=to_version,
                reason="a misread die",
                actor="tester",
                restored_state=target.state,
                restored_house_rules=target.house_rules,
                undone_rolls=undone,
            )
            return Decided(None)

    app.execute(campaign_id, RollBack(), None, None)
    return app.campaign(campaign_id).version


def version_of(app: Questlog, campaign_id: UUID, topic: str, **details: Any) -> int:
    """The version of the first event of a topic whose details have these values."""
    for event in app.campaign_events(campaign_id):
        found = getattr(event, "details", {})
        if topic == type(event).TOPIC and all(found.get(k) == v for k, v in details.items()):
            return int(event.originator_version)
    raise AssertionError(f"no {topic} {details}")


def credits(app: Questlog, campaign_id: UUID) -> int:
    """The hero's credits now."""
    return int(app.campaign(campaign_id).state["hero"]["credits"])


def test_a_rollback_reverses_the_ledger_and_marks_undone_rows(
    app: Questlog, views: ViewStore
) -> None:
    week = quest_calendar_week(app)
    cid = str(week)
    # Back to just after the theft: the hunger, the crew, the dogfight and the Sunday are undone.
    to = version_of(app, week, "qc.CreditsChanged", cause="theft")
    rollback = roll_back(app, week, to)
    sync(app, views)

    entries = debt_ledger(views, cid)["items"]
    originals = [e for e in entries if e["entry"] in ("opening", "movement")]
    assert [e["cause"] for e in originals if not e["undone"]] == [
        "heroSelected", "payment", "debtPenalty", "reward", "theft",
    ]  # fmt: skip
    undone = [e for e in originals if e["undone"]]
    assert [e["cause"] for e in undone] == [
        "crewFee", "lottery", "purchase", "sale", "pickpocket", "cloning",
    ]  # fmt: skip
    assert {e["undone_by"] for e in undone} == {rollback}
    reversals = [e for e in entries if e["entry"] == "reversal"]
    assert [(e["cause"], e["delta"]) for e in reversals] == [
        ("crewFee", 1), ("lottery", -4), ("purchase", 2), ("sale", -2), ("pickpocket", -3),
        ("cloning", 4),
    ]  # fmt: skip
    assert {e["version"] for e in reversals} == {rollback}
    assert reversals[-1]["balance_after"] == credits(app, week) == 1
    assert sum(e["delta"] for e in entries) == credits(app, week)
    assert [e["entry"] for e in entries].count("adjustment") == 0

    hp = hero_timeline(views, cid, stat="hp", include_undone=False)["items"]
    assert [point["value"] for point in hp] == [20]
    assert [life["undone_by"] for life in hero_lives(views, cid)["items"]] == [rollback] * 2
    assert ship_history(views, cid, include_undone=False)["items"] == []
    assert [loss["undone"] for loss in ship_losses(views, cid)["items"]] == [True]
    rolls = roll_log(views, campaign_id=cid)["items"]
    assert rolls and all(r["undone_by"] == rollback for r in rolls)
    summary = campaign_summary(views, cid)
    assert summary is not None
    assert (summary["rollbacks"], summary["pages_played"], summary["last_page"]) == (
        1,
        0,
        "2027-01-04",
    )

    # Playing on from the restored state follows it: credits 1, on page 2027-01-04.
    run(app, week, {"type": "gain_credits", "amount": 2})
    sync(app, views)
    last = debt_ledger(views, cid)["items"][-1]
    assert (last["cause"], last["balance_before"], last["balance_after"]) == ("reward", 1, 3)
    assert last["page_date"] == "2027-01-04"


def test_a_redo_reinstates_what_the_rollback_undid(app: Questlog, views: ViewStore) -> None:
    week = quest_calendar_week(app)
    cid = str(week)
    sync(app, views)
    before = dump(views)
    rollback = roll_back(app, week, version_of(app, week, "qc.CreditsChanged", cause="debtPenalty"))
    sync(app, views)
    (span,) = debt_spans(views, cid)["items"]
    assert span["ended_version"] is None  # in debt again: the repayment is undone
    redo = roll_back(app, week, rollback - 1)
    sync(app, views)

    entries = debt_ledger(views, cid)["items"]
    assert not any(e["undone"] for e in entries if e["entry"] in ("opening", "movement"))
    reinstated = [e for e in entries if e["entry"] == "reinstatement"]
    assert [e["version"] for e in reinstated] == [redo] * len(reinstated)
    assert sum(e["delta"] for e in entries) == credits(app, week) == 3
    assert debt_spans(views, cid)["items"][0]["ended_version"] is not None
    rolls = roll_log(views, campaign_id=cid)["items"]
    assert not any(r["undone"] for r in rolls)
    after = dump(views)
    for table in ("rolls", "hero_timeline", "hero_lives", "ship_history", "ship_losses"):
        assert after[table] == before[table], table


def test_the_ledger_balance_is_every_delta_or_the_movements_that_stand(
    app: Questlog, views: ViewStore
) -> None:
    """docs/analytics.md: the ledger is an account. Its balance is the sum of every delta, or of
    the rows that neither a rollback undid nor reverse another; leaving out only the undone rows
    counts a reversal without what it reverses."""
    week = quest_calendar_week(app)
    cid = str(week)
    rollback = roll_back(app, week, version_of(app, week, "qc.CreditsChanged", cause="debtPenalty"))
    for step in ("rolled back", "redone"):
        sync(app, views)
        entries = debt_ledger(views, cid, include_undone=True)["items"]
        stands = [e for e in entries if not e["undone"] and e["reverses"] is None]
        assert sum(e["delta"] for e in entries) == credits(app, week), step
        assert sum(e["delta"] for e in stands) == credits(app, week), step
        if step == "rolled back":
            not_undone = sum(e["delta"] for e in entries if not e["undone"])
            assert not_undone != credits(app, week)  # the trap the doc warns of
            roll_back(app, week, rollback - 1)


def test_a_match_rolled_back_before_its_second_night(app: Questlog, views: ViewStore) -> None:
    match = calendar_board_match(app)
    cid = str(match)
    # Back to the end of night 1's last command, before A ends the turn of round 2.
    rollback = roll_back(app, match, version_of(app, match, "cb.TurnEnded", round=2) - 1)
    sync(app, views)
    history = exhaustion_history(views, cid)["items"]
    assert [(h["party"], h["to"], h["undone"]) for h in history] == [
        ("B", 5, False),
        ("B", 4, True),
        ("A", 1, True),
        ("B", 3, True),
    ]
    assert {h["undone_by"] for h in history if h["undone"]} == {rollback}
    nights = weather_history(views, cid)["items"]
    assert [(n["night"], n["undone"]) for n in nights] == [(1, False), (2, True)]
    summary = campaign_summary(views, cid)
    assert summary is not None
    assert (summary["nights_played"], summary["round"]) == (1, 2)

    # The day goes on differently: B sleeps again, a new second night is recorded.
    run(app, match, {"type": "end_turn", "player": "A"})
    run(app, match, {"type": "day_sleep", "player": "B"}, [1, 1])
    sync(app, views)
    nights = weather_history(views, cid, include_undone=False)["items"]
    assert [(n["night"], n["space"], n["wind"]["d20"]) for n in nights] == [(1, 1, 10), (2, 2, 1)]
    active = exhaustion_history(views, cid, include_undone=False)["items"]
    assert [(h["party"], h["night"], h["cause"]) for h in active] == [
        ("B", 1, "rizz"),
        ("B", None, "daySleep"),
    ]
