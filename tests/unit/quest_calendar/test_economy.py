"""Pickpocketing, payments and debt, theft, meal rations and the Sunday lottery."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.quest_calendar.harness import HERO, Table

SUNDAY = "2027-01-10"
SMUGGLER = {
    "id": "pickpocket",
    "name": "Smuggler's Pickpocket",
    "usage": "unlimited",
    "context": "outside",
    "effect": {"kind": "smuggler"},
}


def hero(**changes: Any) -> dict[str, Any]:
    """The harness hero with some numbers changed."""
    return {**HERO, **changes}


def ledger(events: list[Any]) -> list[dict[str, Any]]:
    """The CreditsChanged entries a debt ledger would read."""
    return [e.details for e in events if type(e).__name__ == "CreditsChanged"]


# -- QC-38 / QC-39 pickpocket ------------------------------------------------------------------


@pytest.mark.parametrize("face", [1, 2, 3])
def test_qc38_pickpocket_gains_the_d4(face: int) -> None:
    table = Table()
    events = table.run({"type": "pickpocket", "icon_id": "alley"}, faces=[face])
    assert table.types(events) == ["Pickpocketed", "CreditsChanged"]
    assert events[0].details["d4"] == face
    assert events[0].details["credits_gained"] == face
    assert events[0].details["virtue_lost"] is False
    assert events[0].rolls[0]["purpose"] == "pickpocket"
    assert ledger(events) == [
        {"from": 10, "to": 10 + face, "delta": face, "cause": "pickpocket", "icon_id": "alley"}
    ]
    assert table.hero["credits"] == 10 + face
    assert table.hero["pickpocketed_icons"] == ["alley"]


def test_qc38_example_a_gain_of_3_at_minus_4_leaves_minus_1() -> None:
    table = Table(hero=hero(credits=-4))
    events = table.run({"type": "pickpocket", "icon_id": "alley"}, faces=[3])
    assert table.hero["credits"] == -1
    assert table.types(events) == ["Pickpocketed", "CreditsChanged", "DebtPaid"]
    assert events[2].details == {
        "amount": 3,
        "credits_after": -1,
        "cleared": False,
        "cause": "pickpocket",
    }


@pytest.mark.parametrize(("house", "gained"), [({}, 3), ({"qc.pickpocket.smugglerBonus": 3}, 5)])
def test_qc38_g_qc11_smuggler_bonus(house: dict[str, Any], gained: int) -> None:
    table = Table(house, hero=hero(abilities=[SMUGGLER]))
    (picked, _) = table.run({"type": "pickpocket", "icon_id": "alley"}, faces=[2])
    assert picked.details["smuggler_bonus"] == gained - 2
    assert table.hero["credits"] == 10 + gained


def test_qc38_g_qc11_each_icon_once_per_hero() -> None:
    table = Table()
    table.run({"type": "pickpocket", "icon_id": "alley"}, faces=[1])
    assert table.refused({"type": "pickpocket", "icon_id": "alley"}).rule_id == "QC-38"
    table.run({"type": "pickpocket", "icon_id": "market"}, faces=[1])
    assert table.hero["pickpocketed_icons"] == ["alley", "market"]


def test_qc38_g_qc11_icons_reusable_when_the_house_allows() -> None:
    table = Table({"qc.pickpocket.oncePerIcon": False})
    table.run({"type": "pickpocket", "icon_id": "alley"}, faces=[1])
    table.run({"type": "pickpocket", "icon_id": "alley"}, faces=[2])
    assert table.hero["credits"] == 13


def test_qc38_needs_an_open_page() -> None:
    table = Table(page=None)
    assert table.refused({"type": "pickpocket", "icon_id": "alley"}).rule_id == "QC-17"


def test_qc39_four_accepted_costs_one_virtue() -> None:
    table = Table(hero=hero(virtue=3))
    events = table.run({"type": "pickpocket", "icon_id": "alley", "accept_four": True}, faces=[4])
    assert table.types(events) == ["Pickpocketed", "CreditsChanged", "VirtueChanged"]
    assert table.hero["credits"] == 14
    assert table.hero["virtue"] == 2
    assert events[0].details["virtue_lost"] is True
    assert events[2].details["applied_delta"] == -1


def test_qc39_four_refused_gains_nothing_and_keeps_virtue() -> None:
    table = Table(hero=hero(virtue=3))
    events = table.run({"type": "pickpocket", "icon_id": "alley", "accept_four": False}, faces=[4])
    assert table.types(events) == ["Pickpocketed"]
    assert events[0].details["declined"] is True
    assert events[0].details["credits_gained"] == 0
    assert (table.hero["credits"], table.hero["virtue"]) == (10, 3)


def test_qc39_rolls_of_1_to_3_never_touch_virtue() -> None:
    table = Table(hero=hero(virtue=3))
    events = table.run({"type": "pickpocket", "icon_id": "alley", "accept_four": False}, faces=[3])
    assert events[0].details["declined"] is False
    assert (table.hero["credits"], table.hero["virtue"]) == (13, 3)


@pytest.mark.parametrize(("choice", "credits", "virtue"), [("accept", 15, 2), ("refuse", 10, 3)])
def test_qc39_a_four_without_a_choice_waits_for_the_player(
    choice: str, credits: int, virtue: int
) -> None:
    table = Table(hero=hero(virtue=3, abilities=[SMUGGLER]))
    (rolled,) = table.run({"type": "pickpocket", "icon_id": "alley"}, faces=[4])
    assert table.types([rolled]) == ["PickpocketRolled"]
    pending = table.state["pending"]
    assert pending["decision"] == "pickpocket_four"
    assert pending["rule"] == "QC-39"
    assert pending["options"] == ["accept", "refuse"]
    assert pending["commands"] == ["decide_pickpocket"]
    assert table.hero["credits"] == 10
    blocked = table.refused({"type": "gain_credits", "amount": 1})
    assert blocked.rule_id == "QC-39"
    events = table.run({"type": "decide_pickpocket", "choice": choice})
    assert events[0].details["d4"] == 4
    assert events[0].details["declined"] is (choice == "refuse")
    assert events[0].rolls == []
    assert table.state["pending"] is None
    assert (table.hero["credits"], table.hero["virtue"]) == (credits, virtue)


def test_qc39_decide_pickpocket_needs_a_pending_four() -> None:
    table = Table()
    refused = table.refused({"type": "decide_pickpocket", "choice": "accept"})
    assert refused.rule_id == "QC-39"
    assert "choice" in table.invalid({"type": "decide_pickpocket", "choice": "maybe"}).errors


# -- QC-60..QC-63 payments and debt ----------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "cost", "after_paying", "penalty", "final"),
    [(3, 5, -2, 2, -4), (0, 2, -2, 2, -4), (5, 5, 0, None, 0)],
)
def test_qc60_required_payment_debt_table(
    before: int, cost: int, after_paying: int, penalty: int | None, final: int
) -> None:
    table = Table(hero=hero(credits=before))
    events = table.run({"type": "pay", "purpose": "city toll", "cost": cost, "required": True})
    assert table.hero["credits"] == final
    made = events[0].details
    assert made["mandatory"] is True
    assert (made["credits_before"], made["credits_after"]) == (before, after_paying)
    entries = ledger(events)
    assert entries[0] == {
        "from": before,
        "to": after_paying,
        "delta": -cost,
        "cause": "payment",
        "purpose": "city toll",
    }
    if penalty is None:
        assert table.types(events) == ["PaymentMade", "CreditsChanged"]
        return
    assert table.types(events) == [
        "PaymentMade",
        "CreditsChanged",
        "DebtIncurred",
        "CreditsChanged",
    ]
    incurred = events[2].details
    assert incurred["penalty"] == penalty
    assert incurred["shortfall"] == cost - before
    assert incurred["credits_after"] == final
    assert entries[1]["cause"] == "debtPenalty"
    assert (entries[1]["from"], entries[1]["to"], entries[1]["delta"]) == (after_paying, final, -2)


@pytest.mark.parametrize(
    ("house", "final"),
    [({}, -7), ({"qc.debt.penaltyWhenAlreadyInDebt": False}, -5), ({"qc.debt.penalty": 3}, -8)],
)
def test_qc60_g_qc19_penalty_when_already_in_debt(house: dict[str, Any], final: int) -> None:
    table = Table(house, hero=hero(credits=-4))
    events = table.run({"type": "pay", "purpose": "bribe", "cost": 1, "required": True})
    assert table.hero["credits"] == final
    assert events[2].details["already_in_debt"] is True
    assert events[2].details["penalty"] == -4 - 1 - final


def test_qc60_g_qc19_penalty_size_is_a_house_rule() -> None:
    table = Table({"qc.debt.penalty": 0}, hero=hero(credits=3))
    events = table.run({"type": "pay", "purpose": "toll", "cost": 5, "required": True})
    assert table.hero["credits"] == -2
    assert table.types(events) == ["PaymentMade", "CreditsChanged", "DebtIncurred"]


def test_qc61_gains_pay_debt_back() -> None:
    table = Table(hero=hero(credits=-4))
    events = table.run({"type": "gain_credits", "amount": 6, "cause": "fight reward"})
    assert table.hero["credits"] == 2
    assert table.types(events) == ["CreditsChanged", "DebtPaid"]
    assert events[0].details == {"from": -4, "to": 2, "delta": 6, "cause": "fight reward"}
    assert events[1].details["amount"] == 4
    assert events[1].details["cleared"] is True


def test_qc61_a_gain_without_debt_pays_nothing_back() -> None:
    table = Table()
    events = table.run({"type": "gain_credits", "amount": 3})
    assert table.types(events) == ["CreditsChanged"]
    assert events[0].details["cause"] == "reward"
    assert "amount" in table.invalid({"type": "gain_credits", "amount": 0}).errors


@pytest.mark.parametrize(("credits", "cost"), [(4, 5), (-1, 1), (0, 1)])
def test_qc62_optional_payment_cannot_create_debt(credits: int, cost: int) -> None:
    table = Table(hero=hero(credits=credits))
    refused = table.refused({"type": "pay", "purpose": "ration", "cost": cost, "required": False})
    assert refused.rule_id == "QC-62"


def test_qc62_optional_payment_with_the_credits_is_made() -> None:
    table = Table(hero=hero(credits=5))
    events = table.run({"type": "pay", "purpose": "ration", "cost": 5, "required": False})
    assert table.hero["credits"] == 0
    assert table.types(events) == ["PaymentMade", "CreditsChanged"]
    free = Table(hero=hero(credits=-1))
    free.run({"type": "pay", "purpose": "free tea", "cost": 0, "required": False})
    assert free.hero["credits"] == -1


@pytest.mark.parametrize(
    ("credits", "stolen", "final", "taken"), [(3, 5, 0, 3), (-2, 3, -2, 0), (10, 4, 6, 4)]
)
def test_qc63_theft_cannot_create_debt(credits: int, stolen: int, final: int, taken: int) -> None:
    table = Table(hero=hero(credits=credits))
    events = table.run({"type": "theft", "amount": stolen})
    assert table.hero["credits"] == final
    assert events[0].details == {"requested": stolen, "taken": taken, "credits_after": final}
    expected = [{"from": credits, "to": final, "delta": -taken, "cause": "theft"}] if taken else []
    assert ledger(events) == expected


def test_qc63_g_qc20_loss_floor_is_a_house_rule() -> None:
    table = Table({"qc.credits.nonDebtLossFloor": -3}, hero=hero(credits=1))
    events = table.run({"type": "theft", "amount": 5})
    assert table.hero["credits"] == -3
    assert events[0].details["taken"] == 4


# -- QC-65 meal rations ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("need", "have", "consumed", "hp_lost"), [(3, 1, 1, 2), (2, 0, 0, 2), (2, 2, 2, 0)]
)
def test_qc65_eat_rations_and_starve_for_the_missing(
    need: int, have: int, consumed: int, hp_lost: int
) -> None:
    table = Table(hero=hero(rations=have))
    events = table.run({"type": "eat_rations", "count": need})
    assert events[0].details == {
        "required": need,
        "available": have,
        "consumed": consumed,
        "missing": need - consumed,
        "hp_lost": hp_lost,
    }
    assert table.hero["rations"] == have - consumed
    assert table.hero["hp"] == 20 - hp_lost
    if hp_lost:
        assert table.types(events) == ["RationsConsumed", "HeroDamaged"]
        assert events[1].details["cause"] == "starvation"
    else:
        assert table.types(events) == ["RationsConsumed"]


def test_qc65_g_qc29_without_partial_eating_nothing_is_eaten() -> None:
    table = Table({"qc.rations.consumePartial": False}, hero=hero(rations=1))
    events = table.run({"type": "eat_rations", "count": 3})
    assert table.hero["rations"] == 1
    assert table.hero["hp"] == 17
    assert events[0].details["hp_lost"] == 3


def test_qc65_starving_to_0_hp_runs_death_and_cloning() -> None:
    table = Table(hero=hero(hp=2, rations=0))
    events = table.run({"type": "eat_rations", "count": 3}, faces=[1])
    assert table.types(events)[:3] == ["RationsConsumed", "HeroDamaged", "Died"]
    assert events[1].details == {"amount": 2, "cause": "starvation", "hp_before": 2, "hp_after": 0}
    assert table.hero["hp"] == 10
    assert table.hero["credits"] == 5


# -- QC-66..QC-68 the Sunday lottery -----------------------------------------------------------


def test_qc66_lottery_only_on_sundays_after_the_prologue_once() -> None:
    monday = Table(page="2027-01-04")
    assert "played on Sundays" in monday.refused({"type": "play_lottery"}).reason
    prologue = Table(prologue_complete=False, page=SUNDAY)
    refused = prologue.refused({"type": "play_lottery"})
    assert (refused.rule_id, refused.reason.startswith("prologue")) == ("QC-66", True)
    table = Table(page=SUNDAY)
    table.run({"type": "play_lottery"}, faces=[3])
    again = table.refused({"type": "play_lottery"})
    assert (again.rule_id, again.reason.startswith("the lottery was already played")) == (
        "QC-66",
        True,
    )
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-17"})
    table.run({"type": "play_lottery"}, faces=[3])
    assert table.hero["credits"] == 12


def test_qc66_g_qc03_the_prologue_ending_sunday_has_no_lottery() -> None:
    table = Table(prologue_complete=False, page=None)
    table.run({"type": "start_page", "date": SUNDAY, "prologue_end": True})
    assert table.refused({"type": "play_lottery"}).rule_id == "QC-66"


@pytest.mark.parametrize(("d6", "delta"), [(1, -2), (2, -1), (3, 1), (4, 2), (5, 3), (6, 4)])
def test_qc67_lottery_table(d6: int, delta: int) -> None:
    table = Table(page=SUNDAY)
    events = table.run({"type": "play_lottery"}, faces=[d6])
    played = events[0].details
    assert (played["d6"], played["delta"], played["applied"]) == (d6, delta, delta)
    assert played["page_date"] == SUNDAY
    assert events[0].rolls[0]["dice"][0]["face"] == d6
    assert table.hero["credits"] == 10 + delta
    assert table.state["page"]["lottery_played"] is True
    assert ledger(events) == [{"from": 10, "to": 10 + delta, "delta": delta, "cause": "lottery"}]


@pytest.mark.parametrize(
    ("credits", "d6", "final"), [(1, 1, 0), (0, 2, 0), (-3, 2, -3), (-3, 6, 1)]
)
def test_qc68_lottery_losses_cannot_create_debt(credits: int, d6: int, final: int) -> None:
    table = Table(hero=hero(credits=credits), page=SUNDAY)
    events = table.run({"type": "play_lottery"}, faces=[d6])
    assert table.hero["credits"] == final
    assert events[0].details["applied"] == final - credits
    assert events[0].details["credits_after"] == final
    if final > credits and credits < 0:
        assert table.types(events) == ["LotteryPlayed", "CreditsChanged", "DebtPaid"]


def test_qc68_g_qc20_lottery_floor_is_a_house_rule() -> None:
    table = Table({"qc.credits.nonDebtLossFloor": -5}, hero=hero(credits=1), page=SUNDAY)
    table.run({"type": "play_lottery"}, faces=[1])
    assert table.hero["credits"] == -1
