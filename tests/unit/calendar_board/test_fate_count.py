"""Fate rerolls as a counted resource (G-CB-01, with CB-10 and G-CB-12).

A match's set-up may give each player a number of fate rerolls. Each one spent on a party's own
night roll takes one off and ``FateRerollUsed`` records how many are left; a player
with none left is not offered one at night, and their ``fate_reroll`` is refused under G-CB-01. A
reroll CB-10 refuses costs nothing. Without a number they are not counted (unlimited, as before).
House rule ``cb.fateReroll.refresh``: ``match`` (default) keeps the number for the whole match,
``night`` gives it back at the start of every night phase.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.model.errors import InvalidInput
from tests.unit.calendar_board.harness import RULES_CB, Match, piece, player
from tests.unit.calendar_board.test_calendar import at_space, night
from tests.unit.calendar_board.test_fate import actions_match, ambush, of, offered, reroll
from tests.unit.calendar_board.test_weather import CALENDAR_ONLY, HAIL_FACES

ONLY_ACTIONS = {"cb.night.steps": ["actions"]}


def counted_hail_match(fate_rerolls: int | None, **house: Any) -> Match:
    """The CB-28 table of ``test_weather.hail_match`` (A: goal 5, luck +1), with A's set-up giving
    ``fate_rerolls``; the next night lands on Hail."""
    a = player(
        "A", piece("a1", 1), piece("a2", 2), piece("a3", 3), piece("a4"), piece("a5"), luck_mod=1
    )
    if fate_rerolls is not None:
        a["fate_rerolls"] = fate_rerolls
    setup = {
        "players": [a, player("B", piece("b1", 4)), player("C")],
        "starting_token": "A",
    }
    match = Match(setup, house={**CALENDAR_ONLY, **house})
    match.given(at_space(11))
    return match


def counts(match: Match, who: str) -> tuple[Any, Any]:
    """A party's fate rerolls left, and the number its set-up gave."""
    party = match.party(who)
    return party["fate_rerolls"], party["fate_rerolls_given"]


def test_g_cb01_the_set_up_gives_each_player_their_number_and_leaving_it_out_counts_none() -> None:
    match = counted_hail_match(2)
    assert counts(match, "A") == (2, 2)
    assert counts(match, "B") == (None, None)  # not counted: unlimited


@pytest.mark.parametrize("number", [-1, 101, "2", 1.5, True])
def test_g_cb01_a_set_up_number_out_of_range_is_invalid_input_naming_the_field(
    number: Any,
) -> None:
    setup = {"players": [player("A", fate_rerolls=number), player("B")]}
    house = {"cb.night.steps": ["calendar"]}
    with pytest.raises(InvalidInput) as invalid:
        Match(setup, house)
    assert "players[0].fate_rerolls" in invalid.value.errors, invalid.value.errors


def test_g_cb01_g_cb12_a_night_reroll_takes_one_and_the_event_records_how_many_are_left() -> None:
    match = counted_hail_match(2)
    night(match, HAIL_FACES)  # A fails the save: 3 + 1 = 4 < 5
    offered(match, "A", "hail")

    events = reroll(match, "A", "hail", [15, 20])  # 16: saved; then B's save

    assert of(events, "FateRerollUsed")[0]["left"] == 1
    assert counts(match, "A") == (1, 2)


def test_g_cb12_a_player_with_none_left_is_not_asked_and_takes_the_damage() -> None:
    match = counted_hail_match(0)
    events = night(match, [2, 3, 4])  # A fails the save; the damage d4 4 comes at once

    assert [d["decision"] for d in of(events, "DecisionRequested")] == ["hail_damage"]
    assert match.state["pending"]["decision"] == "hail_damage"
    refused = match.refused({"type": "fate_reroll", "player": "A", "roll": "hail"})
    assert refused.rule_id == "CB-28"  # the pending decision, which does not take one
    assert refused.also == {
        "rule": "G-CB-01",
        "detail": "A has no fate reroll left (the match gave them 0, for the whole match)",
    }


def test_g_cb12_the_last_one_spent_is_not_offered_again_the_next_night() -> None:
    match = counted_hail_match(1)
    night(match, HAIL_FACES)
    events = reroll(match, "A", "hail", [2, 3])  # 3 < 5 again: damage d4 3
    assert of(events, "FateRerollUsed")[0]["left"] == 0
    match.run({"type": "assign_hail_damage", "player": "A", "piece": "a1"}, faces=[20])  # B saves
    match.given(at_space(11))

    night(match, [2, 3, 1])  # Hail again; A fails, and the damage d4 1 is rolled at once

    assert match.state["pending"]["decision"] == "hail_damage"
    assert counts(match, "A") == (0, 1)


def test_cb10_a_refused_reroll_costs_nothing_and_the_player_keeps_their_resource() -> None:
    match = counted_hail_match(1)
    night(match, HAIL_FACES)
    for roll in ("calendar", "wind"):  # never a choice: refused before any rule runs
        assert "roll" in match.invalid({"type": "fate_reroll", "player": "A", "roll": roll}).errors
    assert counts(match, "A") == (1, 1)
    offered(match, "A", "hail")  # still offered, and still there to spend
    events = reroll(match, "A", "hail", [15, 20])
    assert of(events, "FateRerollUsed")[0]["left"] == 0


def test_cb10_by_day_a_forbidden_roll_is_refused_under_cb10_even_with_none_left() -> None:
    match = counted_hail_match(0, **{"cb.fateReroll.forbidden": ["calendar", "wind", "ambush"]})
    refused = match.refused({"type": "fate_reroll", "player": "A", "roll": "ambush"})
    assert refused.rule_id == "CB-10"


def test_g_cb12_by_day_no_roll_is_on_offer_so_a_reroll_is_refused_and_costs_nothing() -> None:
    match = counted_hail_match(2)
    for who in ("A", "B"):  # B's are not counted: refused all the same
        refused = match.refused({"type": "fate_reroll", "player": who, "roll": "ambush"})
        assert refused.rule_id == "G-CB-12"
    assert counts(match, "A") == (2, 2)
    assert RULES_CB.available("fate_reroll", match.state, match.campaign.house_rules) == (
        "G-CB-12",
        "no roll is on offer to fate-reroll: a fate reroll is spent on the party's own night "
        "roll just made, when the night offers one",
    )


def test_g_cb01_by_day_a_player_with_none_left_is_refused_under_g_cb01() -> None:
    match = counted_hail_match(0)

    refused = match.refused({"type": "fate_reroll", "player": "A", "roll": "ambush"})

    assert refused.rule_id == "G-CB-01"
    assert refused.reason == (
        "A has no fate reroll left (the match gave them 0, for the whole match)"
    )
    assert RULES_CB.available("fate_reroll", match.state, match.campaign.house_rules) == (
        "G-CB-01",
        refused.reason,
    )


def test_g_cb12_uncounted_fate_rerolls_stay_unlimited_as_before() -> None:
    match = counted_hail_match(None)
    night(match, HAIL_FACES)
    offered(match, "A", "hail")
    events = reroll(match, "A", "hail", [15, 20])
    assert of(events, "FateRerollUsed")[0]["left"] is None
    match.given(at_space(11))
    night(match, HAIL_FACES)
    offered(match, "A", "hail")
    assert counts(match, "A") == (None, None)


def test_g_cb12_cb35_with_none_left_a_hit_waits_for_the_choice_alone_and_a_miss_misses() -> None:
    match = actions_match()
    match.given(lambda state: state["parties"]["A"].update(fate_rerolls=0, fate_rerolls_given=1))
    ambush(match, [4])  # 10 + 4 = 14: b1
    pending = match.state["pending"]
    assert (pending["decision"], pending["commands"]) == ("ambush_target", ["choose_ambush"])

    match = actions_match()
    match.given(lambda state: state["parties"]["A"].update(fate_rerolls=0, fate_rerolls_given=1))
    events = ambush(match, [2])  # 12: nobody there, though a 4 would hit
    assert of(events, "AmbushMissed") == [{"player": "A", "d6": 2}]
    assert match.state["pending"]["who"] == "B"


def test_g_cb12_cb38_with_none_left_a_failed_rizz_exhausts_at_once() -> None:
    match = actions_match()
    match.given(lambda state: state["parties"]["A"].update(fate_rerolls=0, fate_rerolls_given=0))
    command = {"type": "night_action", "player": "A", "action": "rizz"}
    command["partner"] = "catboyBoyfriend"
    events = match.run(command, faces=[3])
    assert of(events, "RizzAttempted")[0]["success"] is False
    assert of(events, "ExhaustionChanged") == [{"party": "A", "from": 1, "to": 2, "cause": "rizz"}]
    assert match.state["pending"]["who"] == "B"


def test_g_cb01_by_default_the_number_lasts_the_whole_match() -> None:
    match = counted_hail_match(1)
    night(match, HAIL_FACES)
    reroll(match, "A", "hail", [15, 20])  # A saves with it; so does B
    assert counts(match, "A") == (0, 1)
    match.given(at_space(11))
    events = night(match, [1])  # calendar d4 1: space 12, no hail
    assert of(events, "FateRerollsRestored") == []
    assert counts(match, "A") == (0, 1)


def test_g_cb01_house_rule_night_gives_the_number_back_as_each_night_starts() -> None:
    match = counted_hail_match(2, **{"cb.fateReroll.refresh": "night"})
    night(match, HAIL_FACES)
    reroll(match, "A", "hail", [15, 20])  # A saves with it; so does B
    assert counts(match, "A") == (1, 2)
    match.given(at_space(11))

    events = night(match, [1])

    types = match.types(events)
    assert types.index("FateRerollsRestored") == types.index("NightPhaseStarted") + 1
    assert of(events, "FateRerollsRestored") == [{"night_number": 2, "players": {"A": 2}}]
    assert counts(match, "A") == (2, 2)
    match.given(at_space(14))
    events = night(match, [1])  # nothing was spent: nothing comes back
    assert of(events, "FateRerollsRestored") == []


def test_g_cb01_with_house_rule_night_the_refusal_says_when_they_come_back() -> None:
    match = counted_hail_match(0, **{"cb.fateReroll.refresh": "night"})
    refused = match.refused({"type": "fate_reroll", "player": "A", "roll": "hail"})
    assert refused.reason == "A has no fate reroll left until the next night phase"
