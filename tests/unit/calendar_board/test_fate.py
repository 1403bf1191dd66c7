"""Fate rerolls on a party's own night rolls (CB-10, G-CB-12, with CB-28, CB-35 and CB-38).

After the hail save, the ambush d6 or the rizz contest, when a fate reroll could change the
outcome, the night waits for the player: ``fate_reroll`` rolls again and the new result stands,
``decline_fate_reroll`` keeps the first one. Nothing of the consequences is rolled or applied
before the answer. The environmental rolls (calendar, wind) stay refused (CB-10).
"""

from __future__ import annotations

from typing import Any

from tests.unit.calendar_board.harness import Match, piece, player
from tests.unit.calendar_board.test_calendar import at_space, night
from tests.unit.calendar_board.test_weather import HAIL_FACES, hail_match

ONLY_ACTIONS = {"cb.night.steps": ["actions"]}


def of(events: list[Any], name: str) -> list[dict[str, Any]]:
    return [e.details for e in events if type(e).__name__ == name]


def rolls(events: list[Any]) -> list[dict[str, Any]]:
    return [record for event in events for record in event.rolls]


def offered(match: Match, who: str, roll: str) -> dict[str, Any]:
    """The pending fate-reroll decision, checked."""
    pending: dict[str, Any] = match.state["pending"]
    assert (pending["decision"], pending["who"], pending["rule"]) == ("fate_reroll", who, "G-CB-12")
    assert pending["commands"] == ["fate_reroll", "decline_fate_reroll"]
    assert pending["context"]["roll"] == roll
    return pending


def reroll(match: Match, who: str, roll: str, faces: list[int]) -> list[Any]:
    return list(match.run({"type": "fate_reroll", "player": who, "roll": roll}, faces=faces))


# -- the hail save (CB-28) -------------------------------------------------------------------------


def test_g_cb12_cb28_a_failed_hail_save_waits_for_the_fate_decision_before_any_damage() -> None:
    match = hail_match()
    events = night(match, HAIL_FACES)  # A: d20 3 + luck 1 = 4 < goal 5
    save = of(events, "HailSaveRolled")
    assert [(s["player"], s["success"]) for s in save] == [("A", False)]
    pending = offered(match, "A", "hail")
    original = rolls(events)[-1]
    assert (original["purpose"], original["total"]) == ("hail", 3)
    assert pending["context"]["roll_id"] == original["roll_id"]
    assert [r["purpose"] for r in rolls(events)].count("hail_damage") == 0
    assert of(events, "HailDamageTaken") == []
    # Only A decides, and nothing else may happen meanwhile.
    assert match.refused({"type": "decline_fate_reroll", "player": "B"}).rule_id == "G-CB-12"
    refused = match.refused({"type": "end_turn", "player": "A"})
    assert (refused.rule_id, refused.pending and refused.pending["who"]) == ("G-CB-12", "A")


def test_g_cb12_cb28_a_hail_save_rerolled_into_a_success_takes_no_damage() -> None:
    match = hail_match()
    first = night(match, HAIL_FACES)
    original = rolls(first)[-1]["roll_id"]

    events = reroll(match, "A", "hail", [15, 20])  # A's reroll 15 + 1 = 16 >= 5; then B's save

    assert match.types(events)[:2] == ["FateRerollUsed", "HailSaveRolled"]
    assert of(events, "FateRerollUsed")[0] == {
        "player": "A",
        "roll": "hail",
        "roll_id": original,
        "at": "night",
        "left": None,  # the set-up gave no number: not counted (G-CB-01)
    }
    new = of(events, "HailSaveRolled")[0]
    assert (new["player"], new["die_value"], new["total"], new["success"]) == ("A", 15, 16, True)
    assert new["fate_reroll_of"] == original
    record = rolls(events)[0]
    assert record["fate_reroll_of"] == original
    assert record["purpose"] == f"hail (fate reroll of {original})"
    assert of(events, "HailDamageTaken") == []
    assert [s["player"] for s in of(events, "HailSaveRolled")] == ["A", "B", "C"]
    assert match.state["night"] is None


def test_g_cb12_cb28_a_reroll_that_fails_again_takes_the_damage_once() -> None:
    match = hail_match()
    night(match, HAIL_FACES)

    events = reroll(match, "A", "hail", [2, 3])  # 2 + 1 = 3 < 5; damage d4 3

    assert of(events, "HailSaveRolled")[0]["success"] is False
    assert [r["purpose"] for r in rolls(events)].count("hail_damage") == 1
    pending = match.state["pending"]  # no second offer: the reroll's result stands (CB-10)
    assert (pending["decision"], pending["context"]) == ("hail_damage", {"d4": 3})
    events = match.run({"type": "assign_hail_damage", "player": "A", "piece": "a2"}, faces=[20])
    assert [d["d4"] for d in of(events, "HailDamageTaken")] == [3]


def test_g_cb12_declining_keeps_the_failed_save_and_its_damage() -> None:
    match = hail_match()
    night(match, HAIL_FACES)
    events = list(match.run({"type": "decline_fate_reroll", "player": "A"}, faces=[4]))
    assert match.types(events)[0] == "FateRerollDeclined"
    assert match.state["pending"]["context"] == {"d4": 4}


def test_g_cb12_no_offer_when_no_reroll_could_save_or_the_house_forbids_it() -> None:
    match = hail_match()
    match.given(lambda state: state["parties"]["A"].update(luck_mod=-17))  # 20 - 17 = 3 < 5
    night(match, [2, 10, 1])  # fails; damage d4 1 at once
    assert match.state["pending"]["decision"] == "hail_damage"

    match = hail_match(**{"cb.fateReroll.forbidden": ["calendar", "wind", "hail"]})
    night(match, [2, 3, 2])
    assert match.state["pending"]["decision"] == "hail_damage"
    refused = match.refused({"type": "fate_reroll", "player": "A", "roll": "hail"})
    assert (refused.rule_id, refused.also and refused.also["rule"]) == ("CB-28", "CB-10")


def test_cb10_the_calendar_and_wind_rolls_stay_refused_while_a_reroll_is_offered() -> None:
    match = hail_match()
    night(match, HAIL_FACES)
    for roll in ("calendar", "wind"):  # never a choice: refused before any rule runs
        assert "roll" in match.invalid({"type": "fate_reroll", "player": "A", "roll": roll}).errors
    refused = match.refused({"type": "fate_reroll", "player": "A", "roll": "rizz"})
    assert refused.rule_id == "G-CB-12"
    assert "hail roll" in refused.reason
    offered(match, "A", "hail")


# -- the ambush d6 (CB-35) -------------------------------------------------------------------------


def actions_match(**house: Any) -> Match:
    """A on 10 with b1 four spaces ahead; A, B and C at exhaustion 1; step 8 only."""
    setup = {
        "players": [
            player("A", piece("a1", 10), piece("a2"), exhaustion=1),
            player("B", piece("b1", 14), piece("b2"), exhaustion=1, int_mod=0),
            player("C", piece("c1", 20), piece("c2"), exhaustion=1),
        ],
        "starting_token": "A",
    }
    match = Match(setup, house={**ONLY_ACTIONS, **house})
    match.end_turns("A", "B", "C")
    return match


def ambush(match: Match, faces: list[int]) -> list[Any]:
    command = {"type": "night_action", "player": "A", "action": "ambush"}
    return list(match.run(command, faces=faces))


def test_g_cb12_cb35_a_missed_ambush_rerolled_into_a_hit_reaches_its_target() -> None:
    match = actions_match()
    events = ambush(match, [2])  # 10 + 2 = 12: nobody there
    assert of(events, "AmbushMissed") == []
    assert match.party("A")["exhaustion"] == 1
    offered(match, "A", "ambush")

    events = reroll(match, "A", "ambush", [4])  # 10 + 4 = 14: b1

    assert of(events, "AmbushRolled")[0]["d6"] == 4
    assert rolls(events)[0]["fate_reroll_of"] == offered_id(events)
    pending = match.state["pending"]
    assert (pending["decision"], pending["commands"]) == ("ambush_target", ["choose_ambush"])
    match.run(
        {"type": "choose_ambush", "player": "A", "piece": "a1", "target": "b1", "form": "pounce"}
    )
    assert match.party("A")["pieces"]["a1"]["location"] == {"kind": "pathway", "space": 14}
    assert match.party("A")["exhaustion"] == 2


def offered_id(events: list[Any]) -> str:
    used: str = of(events, "FateRerollUsed")[0]["roll_id"]
    return used


def test_g_cb12_cb35_a_hit_may_be_rerolled_too_and_the_new_result_stands() -> None:
    match = actions_match()
    ambush(match, [4])
    pending = match.state["pending"]
    assert pending["commands"] == ["choose_ambush", "fate_reroll"]

    events = reroll(match, "A", "ambush", [1])  # 11: nobody there, and no second reroll

    assert of(events, "AmbushMissed") == [{"player": "A", "d6": 1}]
    assert match.party("A")["exhaustion"] == 2
    assert match.state["pending"]["who"] == "B"


def test_g_cb12_cb35_a_miss_no_face_could_turn_is_not_offered() -> None:
    match = actions_match()
    match.given(
        lambda state: state["parties"]["B"]["pieces"]["b1"].update(
            location={"kind": "pathway", "space": 30}
        )
    )
    events = ambush(match, [3])
    assert of(events, "AmbushMissed") == [{"player": "A", "d6": 3}]
    assert match.state["pending"]["who"] == "B"


def test_g_cb12_cb35_by_default_a_miss_no_face_could_turn_is_offered_all_the_same() -> None:
    """G-CB-12 under the default ``cb.fateReroll.offer`` = ``always``: the player decides
    whether to spend a fate reroll on a miss that no face could turn into a hit; declined, the
    miss stands and its exhaustion follows."""
    match = actions_match(**{"cb.fateReroll.offer": "always"})
    match.given(
        lambda state: state["parties"]["B"]["pieces"]["b1"].update(
            location={"kind": "pathway", "space": 30}
        )
    )
    events = ambush(match, [3])
    assert of(events, "AmbushMissed") == []
    offered(match, "A", "ambush")
    events = list(match.run({"type": "decline_fate_reroll", "player": "A"}))
    assert of(events, "AmbushMissed") == [{"player": "A", "d6": 3}]
    assert match.party("A")["exhaustion"] == 2


# -- the rizz contest (CB-38) ----------------------------------------------------------------------


def test_g_cb12_cb38_a_failed_rizz_rerolled_into_a_success_brings_the_partner() -> None:
    match = actions_match()
    command = {
        "type": "night_action",
        "player": "A",
        "action": "rizz",
        "partner": "catgirlGirlfriend",
    }
    events = list(match.run(command, faces=[3]))  # 3 + 0 vs 12 at exhaustion 1
    assert of(events, "RizzAttempted")[0]["success"] is False
    assert of(events, "ExhaustionChanged") == []
    offered(match, "A", "rizz")

    events = reroll(match, "A", "rizz", [18])

    attempt = of(events, "RizzAttempted")[0]
    assert (attempt["die_value"], attempt["success"]) == (18, True)
    assert attempt["fate_reroll_of"] == of(events, "FateRerollUsed")[0]["roll_id"]
    assert match.party("A")["partner"] == "catgirlGirlfriend"
    assert of(events, "ExhaustionChanged") == [{"party": "A", "from": 1, "to": 2, "cause": "rizz"}]


def test_g_cb12_cb38_a_rizz_failed_again_exhausts_once() -> None:
    match = actions_match()
    command = {
        "type": "night_action",
        "player": "A",
        "action": "rizz",
        "partner": "catgirlGirlfriend",
    }
    match.run(command, faces=[3])
    events = reroll(match, "A", "rizz", [5])
    assert of(events, "RizzAttempted")[0]["success"] is False
    assert match.party("A")["partner"] is None
    assert match.party("A")["exhaustion"] == 2
    assert match.state["pending"]["who"] == "B"


def test_cb10_a_forbidden_roll_is_named_when_refused_during_another_decision() -> None:
    forbidden = ["calendar", "wind", "basketball", "annustaria", "rizz"]
    steps = ["calendar", "wind", "actions"]
    match = Match(house={"cb.night.steps": steps, "cb.fateReroll.forbidden": forbidden})
    match.given(at_space(3))
    night(match, [1, 7])  # calendar d4 1 (onto fog 4), wind d20 7; then the night actions
    assert match.state["pending"]["decision"] == "night_action"
    refused = match.refused({"type": "fate_reroll", "player": "A", "roll": "rizz"})
    assert refused.rule_id == "CB-33"
    assert refused.pending is not None
    assert refused.pending["commands"] == ["night_action"]
    assert refused.also == {
        "rule": "CB-10",
        "detail": "no fate reroll on the rizz roll: the original result stands",
    }
