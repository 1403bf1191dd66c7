"""Night steps 2, 3, 4 and 7 and fate rerolls.

CB-04..CB-07 and CB-10 with G-CB-05..G-CB-08 and G-CB-12. Each night runs only the
steps a test needs (``cb.night.steps``), so other steps' dice never enter these tests.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.model.calendar_board import steps
from tests.unit.calendar_board.harness import Match, piece, player, three_players


def night_match(*night_steps: str, house: dict[str, Any] | None = None, **setup: Any) -> Match:
    """A match of A, B, C whose nights run only ``night_steps``; ``setup`` adds set-up fields."""
    return Match(
        {**three_players(), **setup}, {"cb.night.steps": list(night_steps), **(house or {})}
    )


def run_night(match: Match, faces: list[int] | tuple[int, ...] = ()) -> list[Any]:
    """Every player ends their turn; the night runs with these faces."""
    return match.end_turns("A", "B", "C", faces=faces)


def night_types(match: Match, events: list[Any]) -> list[str]:
    """The types of the events from the start of the night phase on."""
    types = match.types(events)
    return types[types.index("NightPhaseStarted") :]


def of_type(match: Match, events: list[Any], name: str) -> list[Any]:
    """The events of one type, in order."""
    return [e for e in events if match.types([e])[0] == name]


def creature(cid: str, kind: str, night_active: bool = True) -> dict[str, Any]:
    """A creature in play."""
    return {"id": cid, "type": kind, "night_active": night_active}


def with_partner(match: Match, who: str, relationship: int) -> None:
    """Give a party a catboy boyfriend at this relationship."""

    def change(state: dict[str, Any]) -> None:
        state["parties"][who].update(partner="catboyBoyfriend", relationship=relationship)

    match.given(change)


# -- CB-04 -----------------------------------------------------------------------------------------

ZOMBIES_AND_OPHAN = [creature("Z1", "Zombie"), creature("Z2", "Zombie"), creature("O", "Ophanim")]


def test_cb04_ophan_acts_first_then_the_holder_orders_the_zombies() -> None:
    match = night_match("token", "creatures", creatures=ZOMBIES_AND_OPHAN)
    night = run_night(match)
    acted = of_type(match, night, "NightCreatureActed")
    assert [e.details for e in acted] == [
        {"creature_id": "O", "creature_type": "Ophanim", "order_index": 1}
    ]
    pending = match.state["pending"]
    assert pending["decision"] == "creature_order"
    assert pending["who"] == "B"  # the token passed A -> B at step 1
    assert pending["options"] == ["Z1", "Z2"]
    assert pending["commands"] == ["order_creatures"]
    assert match.types(night)[-1] == "DecisionRequested"

    events = match.run({"type": "order_creatures", "player": "B", "order": ["Z2", "Z1"]})
    assert match.types(events) == [
        "CreatureOrderChosen",
        "NightCreatureActed",
        "NightCreatureActed",
        "NightPhaseEnded",
        "TurnStarted",
    ]
    assert [e.details for e in of_type(match, events, "NightCreatureActed")] == [
        {"creature_id": "Z2", "creature_type": "Zombie", "order_index": 2, "chosen_by": "B"},
        {"creature_id": "Z1", "creature_type": "Zombie", "order_index": 3, "chosen_by": "B"},
    ]
    assert match.state["pending"] is None
    assert match.state["night"] is None


def test_cb04_only_the_god_token_holder_orders_and_nothing_else_runs_meanwhile() -> None:
    match = night_match("token", "creatures", creatures=ZOMBIES_AND_OPHAN)
    run_night(match)
    assert match.refused(
        {"type": "order_creatures", "player": "A", "order": ["Z1", "Z2"]}
    ).rule_id == ("CB-04")
    assert match.refused({"type": "end_turn", "player": "A"}).rule_id == "CB-04"
    assert match.refused({"type": "fate_reroll", "player": "B", "roll": "hail"}).rule_id == "CB-04"


def test_cb04_order_without_a_pending_decision_is_refused() -> None:
    match = night_match("creatures")
    refused = match.refused({"type": "order_creatures", "player": "A", "order": []})
    assert refused.rule_id == "CB-04"


@pytest.mark.parametrize("order", [["Z1"], ["Z1", "Z1"], ["Z1", "X"], ["Z1", "Z2", "Z2"], [1, 2]])
def test_cb04_the_order_must_name_each_creature_once(order: list[Any]) -> None:
    match = night_match("creatures", creatures=ZOMBIES_AND_OPHAN)
    run_night(match)
    error = match.invalid({"type": "order_creatures", "player": "A", "order": order})
    assert {key.partition("[")[0] for key in error.errors} == {"order"}
    assert match.state["pending"]["decision"] == "creature_order"


def test_cb04_g_cb05_other_types_follow_alphabetically_and_inactive_ones_do_not_act() -> None:
    roster = [
        creature("w", "Wraith"),
        creature("o", "Ophanim"),
        creature("g", "Ghoul", night_active=False),
        creature("b", "Banshee"),
        creature("z", "Zombie"),
    ]
    match = night_match("creatures", creatures=roster)
    acted = of_type(match, run_night(match), "NightCreatureActed")
    assert [e.details["creature_id"] for e in acted] == ["o", "z", "b", "w"]
    assert all("chosen_by" not in e.details for e in acted)


def test_cb04_g_cb05_a_house_creature_order_is_honoured() -> None:
    roster = [creature("o", "Ophanim"), creature("z", "Zombie"), creature("b", "Banshee")]
    house = {"cb.night.creatureOrder": ["Zombie", "Banshee"]}
    match = night_match("creatures", house=house, creatures=roster)
    acted = of_type(match, run_night(match), "NightCreatureActed")
    assert [e.details["creature_id"] for e in acted] == ["z", "b", "o"]


def test_cb04_no_night_creatures_means_no_events() -> None:
    match = night_match("creatures", creatures=[creature("g", "Ghoul", night_active=False)])
    assert "NightCreatureActed" not in match.types(run_night(match))


def test_cb04_g_cb05_a_night_behaviour_hook_runs_after_each_creature_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[str] = []
    monkeypatch.setitem(steps.NIGHT_BEHAVIOURS, "Zombie", lambda ctx, c: seen.append(c["id"]))
    match = night_match("creatures", creatures=ZOMBIES_AND_OPHAN)
    run_night(match)
    match.run({"type": "order_creatures", "player": "A", "order": ["Z2", "Z1"]})
    assert seen == ["Z2", "Z1"]


# -- CB-05 -----------------------------------------------------------------------------------------


def test_cb05_relationship_decays_by_one_each_night_for_partnered_parties_only() -> None:
    match = night_match("decay")
    with_partner(match, "B", 12)
    first = run_night(match)
    changed = of_type(match, first, "RelationshipChanged")
    assert [e.details for e in changed] == [
        {
            "party": "B",
            "partner_type": "catboyBoyfriend",
            "from": 12,
            "to": 11,
            "cause": "nightlyDecay",
        }
    ]
    assert match.party("A")["relationship"] is None
    run_night(match)
    assert match.party("B")["relationship"] == 10


def test_cb05_g_cb06_the_partner_leaves_when_decay_reaches_zero() -> None:
    match = night_match("decay")
    with_partner(match, "A", 1)
    night = run_night(match)
    assert night_types(match, night)[1:3] == ["RelationshipChanged", "PartnerLost"]
    lost = of_type(match, night, "PartnerLost")[0]
    assert lost.details == {
        "party": "A",
        "partner_type": "catboyBoyfriend",
        "reason": "relationshipZero",
    }
    assert match.party("A")["partner"] is None
    assert match.party("A")["relationship"] is None


def test_cb05_g_cb06_without_breakup_the_partner_stays_at_the_floor() -> None:
    match = night_match("decay", house={"cb.relationship.breakupAt": None})
    with_partner(match, "A", 1)
    run_night(match)
    assert match.party("A")["partner"] == "catboyBoyfriend"
    assert match.party("A")["relationship"] == 0
    again = run_night(match)
    assert of_type(match, again, "RelationshipChanged") == []
    assert match.party("A")["relationship"] == 0


def test_cb05_g_cb06_house_floor_and_breakup_values() -> None:
    house = {"cb.relationship.floor": 3, "cb.relationship.breakupAt": 5}
    match = night_match("decay", house=house)
    with_partner(match, "A", 7)
    run_night(match)
    assert match.party("A")["relationship"] == 6
    night = run_night(match)
    assert of_type(match, night, "PartnerLost")[0].details["reason"] == "relationshipAtBreakup"
    assert match.party("A")["partner"] is None

    floored = night_match(
        "decay", house={"cb.relationship.floor": 3, "cb.relationship.breakupAt": None}
    )
    with_partner(floored, "C", 4)
    run_night(floored)
    run_night(floored)
    assert floored.party("C")["relationship"] == 3


# -- CB-06 -----------------------------------------------------------------------------------------


def test_cb06_the_holder_rolls_two_d20_and_14_plus_17_goes_in() -> None:
    match = night_match("token", "basketball")
    night = run_night(match, faces=[14, 17])
    shot = of_type(match, night, "BasketballShotRolled")[0]
    assert shot.details == {
        "holder": "B",
        "d20a": 14,
        "d20b": 17,
        "total": 31,
        "threshold": 30,
        "made": True,
    }
    assert len(shot.rolls) == 1
    assert [d["face"] for d in shot.rolls[0]["dice"]] == [14, 17]


@pytest.mark.parametrize(("faces", "made"), [((15, 15), True), ((14, 15), False), ((1, 1), False)])
def test_cb06_g_cb07_made_at_a_total_of_30_or_more(faces: tuple[int, int], made: bool) -> None:
    match = night_match("basketball")
    shot = of_type(match, run_night(match, faces=faces), "BasketballShotRolled")[0]
    assert shot.details["made"] is made


def test_cb06_g_cb07_a_house_threshold_is_honoured() -> None:
    match = night_match("basketball", house={"cb.basketball.threshold": 25})
    shot = of_type(match, run_night(match, faces=[14, 15]), "BasketballShotRolled")[0]
    assert shot.details["made"] is True


def test_cb06_g_cb07_the_made_hook_runs_only_on_a_made_shot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []
    monkeypatch.setattr(steps, "BASKETBALL_MADE_HOOKS", [lambda ctx, d: seen.append(d["total"])])
    match = night_match("basketball")
    run_night(match, faces=[10, 10])
    run_night(match, faces=[20, 19])
    assert seen == [39]


# -- CB-07 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("before", "after"), [(5, 4), (1, 0), (19, 18)])
def test_cb07_the_value_counts_down_by_one(before: int, after: int) -> None:
    match = night_match("annustaria", annustar=before)
    changed = of_type(match, run_night(match), "AnnustarDamageValueChanged")
    assert [e.details for e in changed] == [
        {"from": before, "to": after, "cause": "nightlyDecrement"}
    ]
    assert match.state["annustar"] == after


def test_cb07_at_zero_nothing_happens() -> None:
    match = night_match("annustaria", annustar=0)
    night = run_night(match)
    assert night_types(match, night) == ["NightPhaseStarted", "NightPhaseEnded", "TurnStarted"]
    assert match.state["annustar"] == 0


def test_cb07_g_cb08_at_20_the_holder_checks_and_the_value_stays() -> None:
    match = night_match("token", "annustaria", annustar=20)
    checks = of_type(match, run_night(match, faces=[11]), "AnnustariaBreakerChecked")
    assert [e.details for e in checks] == [
        {
            "holder": "B",
            "value": 20,
            "die_value": 11,
            "target": 11,
            "passed": True,
            "check": 1,
            "checks": 1,
        }
    ]
    assert match.state["annustar"] == 20
    failed = of_type(match, run_night(match, faces=[10]), "AnnustariaBreakerChecked")
    assert failed[0].details["passed"] is False
    assert match.state["annustar"] == 20


def test_cb07_g_cb08_house_max_target_and_number_of_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(steps, "ANNUSTARIA_CHECK_HOOKS", [lambda ctx, d: seen.append(d["passed"])])
    house = {
        "cb.annustaria.max": 10,
        "cb.annustaria.checkTarget": 15,
        "cb.annustaria.checksPerNight": 2,
    }
    match = night_match("annustaria", house=house, annustar=10)
    checks = of_type(match, run_night(match, faces=[14, 15]), "AnnustariaBreakerChecked")
    assert [(e.details["die_value"], e.details["passed"]) for e in checks] == [
        (14, False),
        (15, True),
    ]
    assert seen == [False, True]
    assert all(len(e.rolls) == 1 for e in checks)


def test_cb07_raising_the_value_is_clamped_to_0_and_max() -> None:
    match = night_match("annustaria", annustar=18)
    up = match.run({"type": "raise_annustar", "amount": 5, "cause": "annustar strike"})
    assert up[0].details == {
        "from": 18,
        "to": 20,
        "cause": "external",
        "amount": 5,
        "effect": "annustar strike",
    }
    down = match.run({"type": "raise_annustar", "amount": -30, "cause": "repair"})
    assert down[0].details["to"] == 0
    assert match.state["annustar"] == 0
    assert "amount" in match.invalid({"type": "raise_annustar", "cause": "x"}).errors


# -- CB-10 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("roll", ["calendar", "wind"])
def test_cb10_no_fate_reroll_on_the_calendar_or_wind_roll(roll: str) -> None:
    match = night_match()
    match.given(lambda state: state.update(wind={"speed": "heavy", "direction": "north"}))
    invalid = match.invalid({"type": "fate_reroll", "player": "C", "roll": roll})
    assert invalid.errors["roll"] == ["must be one of ambush, rizz, hail"]
    assert match.state["wind"] == {"speed": "heavy", "direction": "north"}


@pytest.mark.parametrize(
    ("roll", "allowed"),
    [
        ("basketball", False),
        ("annustaria", False),
        ("ambush", True),
        ("rizz", True),
        ("hail", True),
    ],
)
def test_cb10_g_cb12_environment_rolls_refused_player_rolls_have_none_on_offer_by_day(
    roll: str, allowed: bool
) -> None:
    match = night_match()
    command = {"type": "fate_reroll", "player": "A", "roll": roll}
    if allowed:  # a party's own roll, but none was just made: nothing to reroll
        refused = match.refused(command)
        assert (refused.rule_id, refused.reason) == (
            "G-CB-12",
            f"no {roll} roll is on offer to fate-reroll: a fate reroll is spent on the party's "
            "own night roll just made, when the night offers one",
        )
    else:  # never a choice of the command
        assert "roll" in match.invalid(command).errors


def test_cb10_g_cb12_a_house_list_without_the_basketball_roll_offers_no_reroll_of_it() -> None:
    match = night_match(house={"cb.fateReroll.forbidden": ["calendar", "wind"]})
    for roll in ("basketball", "wind"):  # no night roll of these is ever offered for a reroll
        assert "roll" in match.invalid({"type": "fate_reroll", "player": "B", "roll": roll}).errors
    refused = match.refused({"type": "fate_reroll", "player": "B", "roll": "hail"})
    assert refused.rule_id == "G-CB-12"


def test_cb10_fate_reroll_input_names_the_field() -> None:
    match = night_match()
    assert "roll" in match.invalid({"type": "fate_reroll", "player": "A", "roll": "tackle"}).errors
    assert (
        match.not_held({"type": "fate_reroll", "player": "Z", "roll": "hail"}).field_name
        == "player"
    )


def test_cb05_cb06_cb07_run_in_step_order_within_one_night() -> None:
    house = {"cb.night.steps": ["token", "creatures", "decay", "basketball", "annustaria"]}
    setup = {**three_players(), "annustar": 3, "creatures": [creature("o", "Ophanim")]}
    setup["players"][0] = player("A", piece("a1", 3), partner="catgirlGirlfriend", relationship=12)
    match = Match(setup, house)
    types = match.types(run_night(match, faces=[1, 2]))
    order = [
        "GodTokenPassed",
        "NightCreatureActed",
        "RelationshipChanged",
        "BasketballShotRolled",
        "AnnustarDamageValueChanged",
    ]
    assert [t for t in types if t in order] == order
