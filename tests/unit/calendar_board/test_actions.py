"""Night actions and day sleep (CB-33..CB-41): ambush, rizz, sleep, exhaustion, elimination."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.calendar_board.harness import Match, piece, player

ONLY_ACTIONS = {"cb.night.steps": ["actions"]}


def setup(**parties: dict[str, Any]) -> dict[str, Any]:
    """A, B and C: a1 on 10, b1 on 14, c1 on 20, each with a home piece; party fields per player."""
    return {
        "players": [
            player("A", piece("a1", 10), piece("a2"), **parties.get("A", {})),
            player("B", piece("b1", 14), piece("b2"), **parties.get("B", {})),
            player("C", piece("c1", 20), piece("c2"), **parties.get("C", {})),
        ],
        "starting_token": "A",
    }


def at_night(
    start: dict[str, Any] | None = None, house: dict[str, Any] | None = None, **parties: Any
) -> Match:
    """A match whose first night has reached step 8: A is asked for a night action."""
    match = Match(start or setup(**parties), house={**ONLY_ACTIONS, **(house or {})})
    match.end_turns("A", "B", "C")
    return match


def act(match: Match, who: str, action: str, faces: tuple[int, ...] = (), **extra: Any) -> Any:
    """Run a night_action command."""
    command = {"type": "night_action", "player": who, "action": action, **extra}
    return match.run(command, faces=faces)


def declined(match: Match, who: str, roll: str) -> list[Any]:
    """G-CB-12: the night offered a fate reroll of the party's own roll; keep the result."""
    pending = match.state["pending"]
    assert (pending["decision"], pending["who"], pending["context"]["roll"]) == (
        "fate_reroll",
        who,
        roll,
    )
    return list(match.run({"type": "decline_fate_reroll", "player": who}))


def of(events: list[Any], name: str) -> list[dict[str, Any]]:
    """The details of the events of one type."""
    return [e.details for e in events if type(e).__name__ == name]


def location(match: Match, who: str, piece_id: str) -> dict[str, Any]:
    """Where a piece is now."""
    result: dict[str, Any] = match.party(who)["pieces"][piece_id]["location"]
    return result


# -- CB-33 night action round ---------------------------------------------------------------------


def test_cb33_each_party_acts_once_in_turn_order_from_the_starting_token() -> None:
    start = setup()
    start["starting_token"] = "B"
    match = Match(start, house=ONLY_ACTIONS)
    events = match.end_turns("B", "C", "A")
    assert of(events, "DecisionRequested")[-1]["who"] == "B"
    asked = []
    for who in ("B", "C", "A"):
        pending = match.state["pending"]
        assert (pending["decision"], pending["who"], pending["rule"]) == (
            "night_action",
            who,
            "CB-33",
        )
        asked.append(pending["context"]["order_index"])
        events = act(match, who, "sleep")
        taken = of(events, "NightActionTaken")
        assert taken == [{"player": who, "party": who, "action": "sleep", "order_index": asked[-1]}]
    assert asked == [0, 1, 2]
    assert match.types(events)[-2:] == ["NightPhaseEnded", "TurnStarted"]
    assert match.state["pending"] is None
    assert match.state["night"] is None
    assert match.state["turn"]["player"] == "B"
    assert match.state["round"] == 2


def test_cb33_out_of_order_decision_is_refused_and_names_the_rule() -> None:
    match = at_night()
    refused = match.refused({"type": "night_action", "player": "B", "action": "sleep"})
    assert refused.rule_id == "CB-33"
    assert "A's decision" in refused.reason
    refused = match.refused({"type": "end_turn", "player": "A"})
    assert refused.rule_id == "CB-33"
    refused = match.refused(
        {"type": "choose_ambush", "player": "A", "piece": "a1", "target": "b1", "form": "x"}
    )
    assert refused.rule_id == "CB-33"
    refused = match.refused({"type": "day_sleep", "player": "A"})
    assert refused.rule_id == "CB-33"


def test_cb33_night_action_outside_step_8_is_refused() -> None:
    match = Match(setup(), house=ONLY_ACTIONS)
    refused = match.refused({"type": "night_action", "player": "A", "action": "sleep"})
    assert refused.rule_id == "CB-33"


def test_cb33_options_are_ambush_rizz_sleep_and_malformed_actions_are_invalid() -> None:
    match = at_night()
    assert match.state["pending"]["options"] == ["ambush", "rizz", "sleep"]
    assert (
        "action" in match.invalid({"type": "night_action", "player": "A", "action": "pass"}).errors
    )
    invalid = match.invalid(
        {"type": "night_action", "player": "A", "action": "sleep", "partner": "catgirlGirlfriend"}
    )
    assert "partner" in invalid.errors
    assert match.state["pending"]["who"] == "A"


def test_cb33_a_party_without_pathway_pieces_may_still_choose_any_action() -> None:
    start = setup()
    start["players"][0]["pieces"] = [piece("a2")]
    match = at_night(start)
    events = act(match, "A", "ambush", faces=(4,))
    assert of(events, "AmbushMissed") == [{"player": "A", "d6": 4}]
    assert match.party("A")["exhaustion"] == 1


# -- CB-34 exhaustion track ---------------------------------------------------------------------


def test_cb34_ambush_and_rizz_add_one_and_sleep_removes_one() -> None:
    match = at_night(A={"exhaustion": 1}, B={"exhaustion": 1, "int_mod": 0}, C={"exhaustion": 1})
    events = act(match, "A", "ambush", faces=(1,)) + declined(match, "A", "ambush")
    assert of(events, "ExhaustionChanged") == [
        {"party": "A", "from": 1, "to": 2, "cause": "ambush"}
    ]
    events = act(match, "B", "rizz", faces=(2,), partner="catgirlGirlfriend")
    events += declined(match, "B", "rizz")
    assert of(events, "ExhaustionChanged") == [{"party": "B", "from": 1, "to": 2, "cause": "rizz"}]
    events = act(match, "C", "sleep")
    assert of(events, "ExhaustionChanged") == [
        {"party": "C", "from": 1, "to": 0, "cause": "nightSleep"}
    ]


def test_cb34_exhaustion_never_goes_above_the_house_maximum() -> None:
    house = {"cb.exhaustion.max": 3, "cb.exhaustion.eliminateAt": 5}
    match = at_night(house=house, A={"exhaustion": 3})
    events = act(match, "A", "ambush", faces=(1,)) + declined(match, "A", "ambush")
    assert of(events, "ExhaustionChanged") == []
    assert of(events, "PieceEliminated") == []
    assert match.party("A")["exhaustion"] == 3


# -- CB-35 night ambush -------------------------------------------------------------------------


def test_cb35_exact_roll_moves_the_piece_and_ambushes_the_enemy() -> None:
    match = at_night(A={"exhaustion": 1})
    events = act(match, "A", "ambush", faces=(4,))
    assert of(events, "AmbushRolled") == [{"player": "A", "d6": 4, "candidate_piece_ids": ["a1"]}]
    pending = match.state["pending"]
    assert (pending["decision"], pending["who"], pending["rule"]) == ("ambush_target", "A", "CB-35")
    assert pending["options"] == [{"piece": "a1", "target": "b1", "from": 10, "to": 14}]
    assert location(match, "A", "a1") == {"kind": "pathway", "space": 10}
    assert match.party("A")["exhaustion"] == 1
    events = match.run(
        {"type": "choose_ambush", "player": "A", "piece": "a1", "target": "b1", "form": "pounce"}
    )
    assert of(events, "AmbushPerformed") == [
        {
            "player": "A",
            "piece_id": "a1",
            "from_space": 10,
            "to_space": 14,
            "target_piece_id": "b1",
            "form": "pounce",
        }
    ]
    assert location(match, "A", "a1") == {"kind": "pathway", "space": 14}
    assert of(events, "ExhaustionChanged") == [
        {"party": "A", "from": 1, "to": 2, "cause": "ambush"}
    ]
    assert match.state["pending"]["who"] == "B"


def test_cb35_no_exact_match_moves_nothing_and_still_exhausts() -> None:
    match = at_night(A={"exhaustion": 1})
    events = act(match, "A", "ambush", faces=(3,)) + declined(match, "A", "ambush")
    assert match.types(events)[:6] == [
        "NightActionTaken",
        "AmbushRolled",
        "DecisionRequested",
        "FateRerollDeclined",
        "AmbushMissed",
        "ExhaustionChanged",
    ]
    assert of(events, "AmbushRolled")[0]["candidate_piece_ids"] == []
    assert location(match, "A", "a1") == {"kind": "pathway", "space": 10}
    assert match.party("A")["exhaustion"] == 2
    assert match.state["pending"]["who"] == "B"


def test_cb35_own_pieces_never_count_and_the_player_picks_among_several_targets() -> None:
    start = setup()
    start["players"][0]["pieces"].append(piece("a3", 12))  # A's own piece two spaces ahead of a1
    start["players"][2]["pieces"].append(piece("c4", 14))  # C's piece shares space 14 with b1
    match = at_night(start)
    events = act(match, "A", "ambush", faces=(2,))
    assert of(events, "AmbushRolled")[0]["candidate_piece_ids"] == ["a3"]
    assert of(events, "DecisionRequested")[-1]["options"] == [
        {"piece": "a3", "target": "b1", "from": 12, "to": 14},
        {"piece": "a3", "target": "c4", "from": 12, "to": 14},
    ]
    refused = match.refused(
        {"type": "choose_ambush", "player": "A", "piece": "a1", "target": "a3", "form": "pounce"}
    )
    assert refused.rule_id == "CB-35"
    refused = match.refused(
        {"type": "choose_ambush", "player": "B", "piece": "a3", "target": "c4", "form": "pounce"}
    )
    assert refused.rule_id == "CB-35"
    assert (
        "form"
        in match.invalid(
            {"type": "choose_ambush", "player": "A", "piece": "a3", "target": "c4"}
        ).errors
    )
    events = match.run(
        {"type": "choose_ambush", "player": "A", "piece": "a3", "target": "c4", "form": "charge"}
    )
    assert of(events, "AmbushPerformed")[0]["target_piece_id"] == "c4"
    assert location(match, "A", "a3") == {"kind": "pathway", "space": 14}
    assert location(match, "A", "a1") == {"kind": "pathway", "space": 10}
    assert location(match, "A", "a2") == {"kind": "home"}


def test_cb35_an_overshoot_never_allows_a_partial_move() -> None:
    match = at_night()
    events = act(match, "A", "ambush", faces=(5,))  # 10 + 5 = 15: b1 on 14 is passed, not reached
    events += declined(match, "A", "ambush")
    assert of(events, "AmbushMissed") == [{"player": "A", "d6": 5}]
    assert location(match, "A", "a1") == {"kind": "pathway", "space": 10}


def test_cb35_the_ambush_d6_is_recorded_with_its_purpose() -> None:
    match = at_night()
    events = act(match, "A", "ambush", faces=(4,))
    rolled = next(e for e in events if type(e).__name__ == "AmbushRolled")
    assert [(r["purpose"], r["total"]) for r in rolled.rolls] == [("ambush", 4)]


# -- CB-36 elimination at exhaustion 5 ------------------------------------------------------------


def test_cb36_exhaustion_4_ambush_eliminates_pathway_pieces_and_home_pieces_stay() -> None:
    start = setup(A={"exhaustion": 4})
    start["players"][0]["pieces"] = [
        piece("a1", 10),
        piece("a3", 2),
        piece("a4", 25),
        piece("a2"),
        piece("a5"),
    ]
    match = at_night(start)
    events = act(match, "A", "ambush", faces=(4,))
    assert of(events, "PieceEliminated") == []  # the ambush resolves first
    events = match.run(
        {"type": "choose_ambush", "player": "A", "piece": "a1", "target": "b1", "form": "pounce"}
    )
    assert match.types(events)[:5] == [
        "AmbushPerformed",
        "ExhaustionChanged",
        "PieceEliminated",
        "PieceEliminated",
        "PieceEliminated",
    ]
    assert of(events, "PieceEliminated") == [
        {"piece_id": "a1", "party": "A", "space": 14, "cause": "exhaustion"},
        {"piece_id": "a3", "party": "A", "space": 2, "cause": "exhaustion"},
        {"piece_id": "a4", "party": "A", "space": 25, "cause": "exhaustion"},
    ]
    for gone in ("a1", "a3", "a4"):
        assert location(match, "A", gone) == {"kind": "eliminated"}
    for home in ("a2", "a5"):
        assert location(match, "A", home) == {"kind": "home"}
    assert location(match, "B", "b1") == {"kind": "pathway", "space": 14}
    assert match.party("A")["exhaustion"] == 5


def test_cb36_a_party_at_5_that_ambushes_again_stays_at_5_and_eliminates_again() -> None:
    match = at_night(A={"exhaustion": 5})
    events = act(match, "A", "ambush", faces=(1,)) + declined(match, "A", "ambush")
    assert of(events, "ExhaustionChanged") == []
    assert [e["piece_id"] for e in of(events, "PieceEliminated")] == ["a1"]
    assert match.party("A")["exhaustion"] == 5


def test_cb36_sleep_at_5_never_eliminates() -> None:
    match = at_night(A={"exhaustion": 5})
    events = act(match, "A", "sleep")
    assert of(events, "PieceEliminated") == []
    assert location(match, "A", "a1") == {"kind": "pathway", "space": 10}


def test_cb36_house_rule_eliminate_at_3() -> None:
    match = at_night(house={"cb.exhaustion.eliminateAt": 3}, A={"exhaustion": 2})
    events = act(match, "A", "ambush", faces=(1,)) + declined(match, "A", "ambush")
    assert [e["piece_id"] for e in of(events, "PieceEliminated")] == ["a1"]


# -- CB-37 rizz eligibility ---------------------------------------------------------------------


def test_cb37_a_party_with_a_partner_cannot_rizz() -> None:
    match = at_night(A={"partner": "catgirlGirlfriend", "relationship": 7})
    assert match.state["pending"]["options"] == ["ambush", "sleep"]
    refused = match.refused(
        {"type": "night_action", "player": "A", "action": "rizz", "partner": "catboyBoyfriend"},
        faces=(20,),
    )
    assert refused.rule_id == "CB-37"
    assert "already has a partner" in refused.reason
    assert match.state["pending"]["who"] == "A"


def test_cb37_rizz_must_name_the_partner_it_wants() -> None:
    match = at_night()
    invalid = match.invalid({"type": "night_action", "player": "A", "action": "rizz"})
    assert "partner" in invalid.errors


# -- CB-38 rizz contest -------------------------------------------------------------------------


def test_cb38_exhaustion_2_int_3_d20_12_beats_14() -> None:
    match = at_night(A={"exhaustion": 2, "int_mod": 3})
    events = act(match, "A", "rizz", faces=(12,), partner="catboyBoyfriend")
    assert match.types(events)[:5] == [
        "NightActionTaken",
        "RizzAttempted",
        "PartnerGained",
        "RelationshipChanged",
        "ExhaustionChanged",
    ]
    assert of(events, "RizzAttempted") == [
        {
            "player": "A",
            "party": "A",
            "exhaustion_before": 2,
            "defender_value": 14,
            "die_value": 12,
            "int_mod": 3,
            "total": 15,
            "success": True,
            "chosen_partner_type": "catboyBoyfriend",
        }
    ]
    assert of(events, "PartnerGained") == [
        {"party": "A", "partner_type": "catboyBoyfriend", "relationship": 12}
    ]
    assert of(events, "RelationshipChanged")[0]["cause"] == "rizzSuccess"
    assert of(events, "ExhaustionChanged") == [{"party": "A", "from": 2, "to": 3, "cause": "rizz"}]
    party = match.party("A")
    assert (party["partner"], party["relationship"], party["exhaustion"]) == (
        "catboyBoyfriend",
        12,
        3,
    )


def test_cb38_at_exhaustion_4_the_defender_is_18_and_even_a_success_eliminates() -> None:
    match = at_night(A={"exhaustion": 4, "int_mod": 3})
    events = act(match, "A", "rizz", faces=(16,), partner="catgirlGirlfriend")
    assert of(events, "RizzAttempted")[0]["defender_value"] == 18
    assert of(events, "RizzAttempted")[0]["success"] is True
    assert match.party("A")["partner"] == "catgirlGirlfriend"
    assert match.party("A")["exhaustion"] == 5
    assert [e["piece_id"] for e in of(events, "PieceEliminated")] == ["a1"]
    assert location(match, "A", "a2") == {"kind": "home"}


@pytest.mark.parametrize(
    ("tie", "success"), [("defender", False), ("offender", True)], ids=["default", "offender"]
)
def test_cb38_a_tie_goes_to_the_house_rule_side(tie: str, success: bool) -> None:
    match = at_night(house={"cb.rizz.tieGoesTo": tie}, A={"exhaustion": 0, "int_mod": 1})
    events = act(match, "A", "rizz", faces=(9,), partner="catgirlGirlfriend")  # 9 + 1 = 10 vs 10
    assert of(events, "RizzAttempted")[0]["total"] == 10
    assert of(events, "RizzAttempted")[0]["success"] is success
    assert (match.party("A")["partner"] is not None) is success


def test_cb38_a_failed_rizz_changes_no_partner_and_still_exhausts() -> None:
    match = at_night(A={"exhaustion": 1, "int_mod": -2})
    events = act(match, "A", "rizz", faces=(13,), partner="catgirlGirlfriend")  # 11 vs 12
    assert match.party("A")["exhaustion"] == 1  # nothing follows before the fate decision
    events += declined(match, "A", "rizz")
    attempt = of(events, "RizzAttempted")[0]
    assert (attempt["success"], attempt["chosen_partner_type"]) == (False, None)
    assert of(events, "PartnerGained") == []
    assert match.party("A")["partner"] is None
    assert match.party("A")["exhaustion"] == 2


def test_cb38_house_rules_chart_initial_relationship_and_no_exhaustion_on_fail() -> None:
    house = {
        "cb.rizz.chart": [5, 6, 7, 8, 9, 10],
        "cb.relationship.initial": 20,
        "cb.rizz.exhaustionOnFail": False,
    }
    match = at_night(house=house, A={"exhaustion": 3}, B={"exhaustion": 3})
    events = act(match, "A", "rizz", faces=(9,), partner="catgirlGirlfriend")
    assert of(events, "RizzAttempted")[0]["defender_value"] == 8
    assert match.party("A")["relationship"] == 20
    assert match.party("A")["exhaustion"] == 4
    events = act(match, "B", "rizz", faces=(8,), partner="catgirlGirlfriend")
    events += declined(match, "B", "rizz")
    assert of(events, "RizzAttempted")[0]["success"] is False
    assert of(events, "ExhaustionChanged") == []
    assert match.party("B")["exhaustion"] == 3


@pytest.mark.parametrize(
    ("floor", "initial", "relationship"),
    [(100, 12, 100), (13, 12, 13), (12, 12, 12), (5, 20, 20)],
    ids=["floor-100", "floor-13", "floor-equal", "floor-below"],
)
def test_cb38_g_cb06_a_new_partner_never_starts_below_the_relationship_floor(
    floor: int, initial: int, relationship: int
) -> None:
    """Under cb.relationship.floor 100 a won rizz still gave 12. The relationship never
    goes below the floor (G-CB-06), so a new partner (CB-38) starts at the higher of the two."""
    house = {"cb.relationship.floor": floor, "cb.relationship.initial": initial}
    match = at_night(house=house, A={"exhaustion": 2, "int_mod": 3})
    events = act(match, "A", "rizz", faces=(12,), partner="catboyBoyfriend")
    assert of(events, "PartnerGained") == [
        {"party": "A", "partner_type": "catboyBoyfriend", "relationship": relationship}
    ]
    assert of(events, "RelationshipChanged")[0] == {
        "party": "A",
        "partner_type": "catboyBoyfriend",
        "from": None,
        "to": relationship,
        "cause": "rizzSuccess",
    }
    assert match.party("A")["relationship"] == relationship


def test_cb38_a_partner_won_tonight_is_offered_no_rizz_next_night() -> None:
    match = at_night(A={"int_mod": 5})
    act(match, "A", "rizz", faces=(10,), partner="catgirlGirlfriend")
    act(match, "B", "sleep")
    act(match, "C", "sleep")
    match.end_turns("A", "B", "C")
    assert match.state["pending"]["who"] == "A"
    assert match.state["pending"]["options"] == ["ambush", "sleep"]


# -- CB-39 sleeping -----------------------------------------------------------------------------


@pytest.mark.parametrize(("before", "after"), [(3, 2), (0, 0), (5, 4)])
def test_cb39_sleep_lowers_exhaustion_by_one_never_below_0(before: int, after: int) -> None:
    match = at_night(A={"exhaustion": before})
    events = act(match, "A", "sleep")
    changed = of(events, "ExhaustionChanged")
    if before == after:
        assert changed == []
    else:
        assert changed == [{"party": "A", "from": before, "to": after, "cause": "nightSleep"}]
    assert match.party("A")["exhaustion"] == after
    assert of(events, "PieceEliminated") == []


def test_cb39_house_rule_night_reduction_2() -> None:
    match = at_night(house={"cb.sleep.nightReduction": 2}, A={"exhaustion": 3}, B={"exhaustion": 1})
    act(match, "A", "sleep")
    act(match, "B", "sleep")
    assert (match.party("A")["exhaustion"], match.party("B")["exhaustion"]) == (1, 0)


# -- CB-40 day sleep eligibility ----------------------------------------------------------------


def test_cb40_day_sleep_needs_exhaustion_and_the_very_start_of_ones_own_turn() -> None:
    match = Match(setup(A={"exhaustion": 0}, B={"exhaustion": 2}), house=ONLY_ACTIONS)
    refused = match.refused({"type": "day_sleep", "player": "A"})
    assert (refused.rule_id, "is not exhausted" in refused.reason) == ("CB-40", True)
    refused = match.refused({"type": "day_sleep", "player": "B"})
    assert refused.rule_id == "CB-40"
    match.end_turns("A")
    match.run({"type": "start_acting", "player": "B"})
    assert match.state["turn"]["started"] is True
    refused = match.refused({"type": "day_sleep", "player": "B"})
    assert refused.rule_id == "CB-40"
    refused = match.refused({"type": "start_acting", "player": "B"})
    assert refused.rule_id == "CB-40"
    assert match.refused({"type": "start_acting", "player": "C"}).rule_id == "CB-01"
    assert match.party("B")["exhaustion"] == 2


# -- CB-41 day sleep effects --------------------------------------------------------------------


def test_cb41_b_sleeps_through_round_5_and_is_unlocked_when_a_starts_round_6() -> None:
    match = Match(setup(B={"exhaustion": 2}), house=ONLY_ACTIONS)
    match.given(lambda s: s.update(round=5, nights=4))
    match.end_turns("A")
    events = match.run({"type": "day_sleep", "player": "B"})
    assert match.types(events) == [
        "SleptDuringDay",
        "ExhaustionChanged",
        "RestrictionApplied",
        "TurnSkipped",
        "TurnStarted",
    ]
    assert of(events, "SleptDuringDay") == [{"party": "B", "round": 5, "exhaustion_before": 2}]
    assert of(events, "ExhaustionChanged") == [
        {"party": "B", "from": 2, "to": 1, "cause": "daySleep"}
    ]
    assert of(events, "RestrictionApplied") == [
        {"party": "B", "locks": ["reactions", "bonus"], "until": 5}
    ]
    assert of(events, "TurnSkipped") == [{"player": "B", "round": 5, "reason": "daySleep"}]
    assert match.state["turn"]["player"] == "C"
    locked = match.party("B")
    assert (locked["reactions_locked"], locked["bonus_locked"]) == (True, True)
    match.end_turns("C")
    assert match.state["night"]["number"] == 5
    act(match, "A", "sleep")
    assert match.state["pending"]["who"] == "B"  # B still takes its night action
    act(match, "B", "sleep")
    assert match.party("B")["reactions_locked"] is True  # on through the whole night
    events = act(match, "C", "sleep")
    assert match.types(events)[-3:] == ["RestrictionLifted", "NightPhaseEnded", "TurnStarted"]
    assert of(events, "RestrictionLifted") == [{"party": "B", "locks": ["reactions", "bonus"]}]
    assert of(events, "TurnStarted") == [{"player": "A", "round": 6}]
    unlocked = match.party("B")
    assert (unlocked["reactions_locked"], unlocked["bonus_locked"], unlocked["exhaustion"]) == (
        False,
        False,
        0,
    )


def test_cb41_the_last_player_sleeping_through_the_day_starts_the_night() -> None:
    match = Match(setup(C={"exhaustion": 1}), house=ONLY_ACTIONS)
    match.end_turns("A", "B")
    events = match.run({"type": "day_sleep", "player": "C"})
    assert "NightPhaseStarted" in match.types(events)
    assert match.state["pending"]["who"] == "A"
    assert match.party("C")["exhaustion"] == 0
    assert match.party("C")["bonus_locked"] is True
