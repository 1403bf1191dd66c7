"""Night step 5: the calendar board, god piece, laps, ceasefire and supply (CB-08..CB-17)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.model.calendar_board.house_rules import DEFAULT_LAYOUT
from tests.unit.calendar_board.harness import Match, piece, player, three_players

CALENDAR_ONLY = {"cb.night.steps": ["calendar"]}


def details(events: list[Any], event_type: str) -> list[dict[str, Any]]:
    """The details of every event of a type, in order."""
    return [e.details for e in events if type(e).__name__ == event_type]


def only(events: list[Any], event_type: str) -> dict[str, Any]:
    """The details of the one event of a type."""
    found = details(events, event_type)
    assert len(found) == 1, f"{len(found)} {event_type} events"
    return found[0]


def at_space(space: int) -> Any:
    """A fixture putting the god piece on a space."""
    return lambda state: state["board"].update(god_piece=space)


def night(match: Match, faces: list[int]) -> list[Any]:
    """Play a round of A, B, C; C's end_turn runs the night with these faces."""
    return match.end_turns("A", "B", "C", faces=faces)


def weapon(wid: str, ammo: int, ammo_max: int, regen: int, **fields: Any) -> dict[str, Any]:
    """A ranged weapon that uses ammunition."""
    return {
        "id": wid,
        "kind": "ranged",
        "uses_ammo": True,
        "ammo": ammo,
        "ammo_max": ammo_max,
        "ammo_regen": regen,
        **fields,
    }


def armed(**weapons: list[dict[str, Any]]) -> dict[str, Any]:
    """Three players; the named players carry these weapons."""
    setup = three_players()
    for entry in setup["players"]:
        entry["weapons"] = weapons.get(entry["id"], [])
    return setup


# -- CB-08 / CB-09 ------------------------------------------------------------------------------


def test_cb08_default_board_runs_from_start_to_end_with_the_g_cb_09_spaces() -> None:
    assert len(DEFAULT_LAYOUT) == 32
    assert DEFAULT_LAYOUT[0] == "start"
    assert DEFAULT_LAYOUT[31] == "end"
    assert [n for n, kind in enumerate(DEFAULT_LAYOUT) if kind == "supply"] == [7, 14, 21, 28]
    assert [n for n, kind in enumerate(DEFAULT_LAYOUT) if kind == "hail"] == [13, 27]
    match = Match(house=CALENDAR_ONLY)
    assert match.state["board"] == {"god_piece": 0, "laps": 0}


def test_cb08_a_house_rule_layout_is_the_board_the_piece_moves_on() -> None:
    layout = ["start", "normal", "fog", "end"]
    match = Match(house={**CALENDAR_ONLY, "cb.calendar.layout": layout})
    events = night(match, [2])
    assert only(events, "GodPieceMoved")["to_space"] == 2
    assert only(events, "WeatherSet")["weather"] == "fog"
    events = night(match, [4])
    moved = only(events, "GodPieceMoved")
    assert (moved["to_space"], moved["pips_used"], moved["pips_lost"]) == (3, 1, 3)
    assert only(events, "CalendarLapCompleted") == {"lap_number": 1}


def test_cb09_roll_3_from_9_passes_10_and_11_and_lands_on_fog_12() -> None:
    match = Match(house={"cb.night.steps": ["token", "calendar"]})
    match.given(at_space(9))
    events = night(match, [3])
    rolled = only(events, "CalendarRolled")
    assert rolled == {"holder": "B", "d4": 3}
    assert only(events, "GodPieceMoved") == {
        "from_space": 9,
        "to_space": 12,
        "pips_rolled": 3,
        "pips_used": 3,
        "pips_lost": 0,
        "passed_spaces": [10, 11],
    }
    assert only(events, "WeatherSet")["weather"] == "fog"
    assert match.state["board"]["god_piece"] == 12
    calendar_roll = next(e for e in events if type(e).__name__ == "CalendarRolled")
    assert [r["purpose"] for r in calendar_roll.rolls] == ["calendar"]


def test_cb09_passing_hail_or_event_spaces_does_nothing() -> None:
    match = Match(house=CALENDAR_ONLY)
    match.given(at_space(12))
    events = night(match, [3])  # passes hail 13 and supply 14, lands on normal 15
    assert only(events, "GodPieceMoved")["passed_spaces"] == [13, 14]
    assert details(events, "HailSaveRolled") == []
    assert only(events, "WeatherSet")["weather"] == "normal"
    match.given(at_space(8))
    events = night(match, [3])  # passes event 10, lands on normal 11
    assert only(events, "WeatherSet")["weather"] == "normal"
    assert only(events, "WeatherSet")["source"] == "weatherSpace"


# -- CB-11 / CB-12 ------------------------------------------------------------------------------


def test_cb11_roll_4_from_29_stops_on_end_31_and_restarts_from_start() -> None:
    match = Match(house=CALENDAR_ONLY)
    match.given(at_space(29))
    events = night(match, [4])
    moved = only(events, "GodPieceMoved")
    assert (moved["to_space"], moved["pips_used"], moved["pips_lost"]) == (31, 2, 2)
    assert moved["passed_spaces"] == [30]
    assert only(events, "WeatherSet")["weather"] == "normal"
    assert only(events, "WeatherSet")["source"] == "end"
    assert only(events, "CalendarLapCompleted") == {"lap_number": 1}
    assert only(events, "GodPieceReset")["to_space"] == 0
    order = match.types(events)
    assert order.index("WeatherSet") < order.index("CalendarLapCompleted")
    assert order.index("CalendarLapCompleted") < order.index("GodPieceReset")
    assert match.state["board"] == {"god_piece": 0, "laps": 1}
    events = night(match, [2])
    moved = only(events, "GodPieceMoved")
    assert (moved["from_space"], moved["to_space"], moved["passed_spaces"]) == (0, 2, [1])
    assert details(events, "GodPieceReset") == []


def test_cb11_landing_exactly_on_end_loses_no_pips() -> None:
    match = Match(house=CALENDAR_ONLY)
    match.given(at_space(28))
    events = night(match, [3])
    moved = only(events, "GodPieceMoved")
    assert (moved["to_space"], moved["pips_used"], moved["pips_lost"]) == (31, 3, 0)
    assert match.state["board"]["god_piece"] == 0


def test_cb11_reset_before_next_roll_leaves_the_piece_on_end_until_the_next_roll() -> None:
    match = Match(house={**CALENDAR_ONLY, "cb.calendar.resetTiming": "beforeNextRoll"})
    match.given(at_space(30))
    events = night(match, [3])
    assert details(events, "GodPieceReset") == []
    assert match.state["board"] == {"god_piece": 31, "laps": 1}
    events = night(match, [1])
    order = match.types(events)
    assert order.index("GodPieceReset") < order.index("CalendarRolled")
    assert only(events, "GodPieceReset")["timing"] == "beforeNextRoll"
    assert only(events, "GodPieceMoved")["to_space"] == 1


def test_cb12_ceasefire_advances_on_restart_when_the_rule_is_used() -> None:
    setup = {**three_players(), "options": {"ceasefire_rule": True}}
    match = Match(setup, house=CALENDAR_ONLY)
    match.given(lambda state: state.update(ceasefire=2))
    match.given(at_space(29))
    events = night(match, [4])
    assert only(events, "CeasefireAdvanced") == {"from": 2, "to": 3, "capped": False}
    assert match.state["ceasefire"] == 3
    order = match.types(events)
    assert order.index("GodPieceReset") < order.index("CeasefireAdvanced")


def test_cb12_no_ceasefire_rule_no_advance() -> None:
    match = Match(house=CALENDAR_ONLY)
    match.given(at_space(29))
    events = night(match, [4])
    assert details(events, "CeasefireAdvanced") == []
    assert match.state["ceasefire"] == 0


def test_cb12_ceasefire_stops_at_the_house_rule_maximum() -> None:
    setup = {**three_players(), "options": {"ceasefire_rule": True}}
    match = Match(setup, house={**CALENDAR_ONLY, "cb.ceasefire.max": 2})
    match.given(lambda state: state.update(ceasefire=2))
    match.given(at_space(29))
    events = night(match, [4])
    assert only(events, "CeasefireAdvanced") == {"from": 2, "to": 2, "capped": True}
    assert match.state["ceasefire"] == 2


def test_cb12_beforenextroll_advances_the_ceasefire_at_the_delayed_reset() -> None:
    setup = {**three_players(), "options": {"ceasefire_rule": True}}
    match = Match(setup, house={**CALENDAR_ONLY, "cb.calendar.resetTiming": "beforeNextRoll"})
    match.given(at_space(29))
    assert details(night(match, [4]), "CeasefireAdvanced") == []
    assert only(night(match, [1]), "CeasefireAdvanced") == {"from": 0, "to": 1, "capped": False}


# -- CB-13 / CB-17 ------------------------------------------------------------------------------


def test_cb13_supply_on_7_fires_when_passed_from_5_with_a_4() -> None:
    match = Match(armed(A=[weapon("bow", 0, 6, 2)]), house=CALENDAR_ONLY)
    match.given(at_space(5))
    events = night(match, [4])
    assert only(events, "SupplySpaceTriggered") == {
        "space_index": 7,
        "how": "passed",
        "merged_spaces": [],
    }
    assert only(events, "AmmoRegenerated")["after"] == 2
    assert only(events, "GodPieceMoved")["to_space"] == 9
    assert only(events, "WeatherSet")["weather"] == "rain"


def test_cb13_cb17_supply_on_7_fires_when_landed_from_5_with_a_2_and_weather_is_normal() -> None:
    match = Match(armed(A=[weapon("bow", 0, 6, 2)]), house=CALENDAR_ONLY)
    match.given(lambda state: state["weather"].update(current="fog"))
    match.given(at_space(5))
    events = night(match, [2])
    assert only(events, "SupplySpaceTriggered")["how"] == "landed"
    assert only(events, "AmmoRegenerated")["after"] == 2
    weather_set = only(events, "WeatherSet")
    assert (weather_set["weather"], weather_set["source"]) == ("normal", "supply")
    order = match.types(events)
    assert order.index("AmmoRegenerated") < order.index("WeatherSet")


def test_cb17_passing_a_supply_space_does_not_touch_the_weather() -> None:
    match = Match(house=CALENDAR_ONLY)
    match.given(at_space(6))
    events = night(match, [3])  # passes supply 7 and normal 8, lands on rain 9
    assert len(details(events, "SupplySpaceTriggered")) == 1
    assert only(events, "WeatherSet")["weather"] == "rain"
    assert only(events, "WeatherSet")["source"] == "weatherSpace"


def test_cb13_the_move_back_to_start_fires_no_supply() -> None:
    layout = ["start", "supply", "end"]
    match = Match(
        armed(A=[weapon("bow", 0, 6, 2)]), house={**CALENDAR_ONLY, "cb.calendar.layout": layout}
    )
    events = night(match, [3])
    assert only(events, "GodPieceReset")["to_space"] == 0
    # Only the pass over space 1 fires; going back from End to Start crosses nothing.
    assert [d["space_index"] for d in details(events, "SupplySpaceTriggered")] == [1]


TWO_SUPPLIES = ["start", "normal", "supply", "supply", "normal", "end"]


def test_cb13_each_supply_space_crossed_fires_separately() -> None:
    match = Match(
        armed(A=[weapon("bow", 0, 6, 2)]),
        house={**CALENDAR_ONLY, "cb.calendar.layout": TWO_SUPPLIES},
    )
    events = night(match, [4])
    assert [d["space_index"] for d in details(events, "SupplySpaceTriggered")] == [2, 3]
    assert [d["after"] for d in details(events, "AmmoRegenerated")] == [2, 4]


def test_cb13_with_fire_per_space_off_one_move_fires_once() -> None:
    house = {**CALENDAR_ONLY, "cb.calendar.layout": TWO_SUPPLIES, "cb.supply.firePerSpace": False}
    match = Match(armed(A=[weapon("bow", 0, 6, 2)]), house=house)
    events = night(match, [4])
    assert only(events, "SupplySpaceTriggered") == {
        "space_index": 2,
        "how": "passed",
        "merged_spaces": [3],
    }
    assert only(events, "AmmoRegenerated")["after"] == 2


# -- CB-14 / CB-15 / CB-16 ----------------------------------------------------------------------


def supply_night(match: Match, faces: tuple[int, ...] = (2,)) -> list[Any]:
    """A night whose calendar roll lands on supply 7 from 5."""
    match.given(at_space(5))
    return night(match, list(faces))


def test_cb14_regen_2_ammo_3_max_4_gives_4_and_wastes_1() -> None:
    match = Match(
        armed(A=[weapon("gun", 3, 4, 2)], B=[weapon("sling", 0, 4, 2)]), house=CALENDAR_ONLY
    )
    events = supply_night(match)
    regenerated = details(events, "AmmoRegenerated")
    assert regenerated[0] == {
        "player": "A",
        "weapon_id": "gun",
        "before": 3,
        "regen": 2,
        "after": 4,
        "max": 4,
        "wasted": 1,
        "space_index": 7,
        "chosen_by": "automatic",
    }
    assert (regenerated[1]["after"], regenerated[1]["wasted"]) == (2, 0)
    assert match.party("A")["weapons"]["gun"]["ammo"] == 4
    assert match.party("B")["weapons"]["sling"]["ammo"] == 2


def test_cb14_hybrid_weapons_resupply_melee_and_ammo_free_weapons_do_not() -> None:
    setup = armed(
        A=[weapon("spear-gun", 0, 3, 1, kind="hybrid")],
        B=[weapon("sword", 0, 3, 1, kind="melee")],
        C=[weapon("laser", 0, 3, 1, uses_ammo=False)],
    )
    events = supply_night(Match(setup, house=CALENDAR_ONLY))
    assert only(events, "AmmoRegenerated")["weapon_id"] == "spear-gun"
    skipped = details(events, "AmmoRegenerationSkipped")
    assert [(d["player"], d["reason"]) for d in skipped] == [
        ("B", "noEligibleWeapon"),
        ("C", "noEligibleWeapon"),
    ]


def bow_and_crossbow() -> dict[str, Any]:
    """The CB-15 example: B carries a bow 2/6 (regen 2) and a crossbow 0/3 (regen 1)."""
    return armed(B=[weapon("bow", 2, 6, 2), weapon("crossbow", 0, 3, 1)])


def test_cb15_player_chooses_crossbow_and_the_bow_gets_nothing() -> None:
    match = Match(bow_and_crossbow(), house=CALENDAR_ONLY)
    events = supply_night(match)
    assert match.state["pending"]["decision"] == "supply_weapon"
    assert match.state["pending"]["who"] == "B"
    assert match.state["pending"]["options"] == ["bow", "crossbow"]
    assert only(events, "DecisionRequested")["rule"] == "CB-15"
    assert details(events, "WeatherSet") == []  # the step waits for the choice
    refused = match.refused({"type": "choose_supply_weapon", "player": "C", "weapon": "bow"})
    assert refused.rule_id == "CB-15"
    assert match.refused({"type": "end_turn", "player": "A"}).rule_id == "CB-15"
    events = match.run({"type": "choose_supply_weapon", "player": "B", "weapon": "crossbow"})
    chosen = only(events, "AmmoRegenerated")
    assert (chosen["weapon_id"], chosen["after"], chosen["chosen_by"]) == ("crossbow", 1, "player")
    assert match.party("B")["weapons"]["bow"]["ammo"] == 2
    assert only(events, "WeatherSet")["weather"] == "normal"
    assert match.state["night"] is None
    assert match.state["turn"]["player"] == "A"


def test_cb15_a_full_weapon_may_still_be_chosen_and_the_ammo_is_wasted() -> None:
    setup = armed(B=[weapon("bow", 6, 6, 2), weapon("crossbow", 0, 3, 1)])
    match = Match(setup, house=CALENDAR_ONLY)
    supply_night(match)
    events = match.run({"type": "choose_supply_weapon", "player": "B", "weapon": "bow"})
    assert only(events, "AmmoRegenerated")["wasted"] == 2
    assert match.party("B")["weapons"]["crossbow"]["ammo"] == 0


def test_cb15_players_resupply_in_turn_order_from_the_starting_token_holder() -> None:
    setup = armed(
        A=[weapon("a-gun", 0, 4, 1)],
        B=[weapon("b-gun", 0, 4, 1)],
        C=[weapon("c-gun", 0, 4, 1)],
    )
    setup["starting_token"] = "B"
    match = Match(setup, house=CALENDAR_ONLY)
    match.given(at_space(5))
    events = match.end_turns("B", "C", "A", faces=[2])
    assert [d["player"] for d in details(events, "AmmoRegenerated")] == ["B", "C", "A"]


def test_cb15_declining_is_refused_by_default_and_allowed_by_house_rule() -> None:
    match = Match(bow_and_crossbow(), house=CALENDAR_ONLY)
    supply_night(match)
    refused = match.refused({"type": "choose_supply_weapon", "player": "B", "weapon": None})
    assert refused.rule_id == "CB-15"
    unknown = match.not_held({"type": "choose_supply_weapon", "player": "B", "weapon": "axe"})
    assert unknown.field_name == "weapon"

    setup = armed(B=[weapon("bow", 2, 6, 2)])
    match = Match(setup, house={**CALENDAR_ONLY, "cb.supply.mayDecline": True})
    supply_night(match)
    assert match.state["pending"]["options"] == ["bow"]  # a choice even with one weapon
    events = match.run({"type": "choose_supply_weapon", "player": "B", "weapon": None})
    assert details(events, "AmmoRegenerationSkipped")[0] == {
        "player": "B",
        "reason": "declined",
        "space_index": 7,
    }
    assert match.party("B")["weapons"]["bow"]["ammo"] == 2


def test_cb15_a_second_firing_is_a_second_choice() -> None:
    setup = armed(B=[weapon("bow", 2, 6, 2), weapon("crossbow", 0, 3, 1)])
    match = Match(setup, house={**CALENDAR_ONLY, "cb.calendar.layout": TWO_SUPPLIES})
    night(match, [4])
    match.run({"type": "choose_supply_weapon", "player": "B", "weapon": "crossbow"})
    assert match.state["pending"]["context"]["space_index"] == 3
    match.run({"type": "choose_supply_weapon", "player": "B", "weapon": "crossbow"})
    assert match.party("B")["weapons"]["crossbow"]["ammo"] == 2
    assert match.state["night"] is None


def test_cb16_a_looted_rifle_at_0_of_5_stays_at_0() -> None:
    setup = armed(A=[weapon("rifle", 0, 5, 2, looted=True)])
    match = Match(setup, house=CALENDAR_ONLY)
    events = supply_night(match)
    skipped = details(events, "AmmoRegenerationSkipped")
    assert skipped[0] == {"player": "A", "reason": "looted", "space_index": 7}
    assert details(events, "AmmoRegenerated") == []
    assert match.party("A")["weapons"]["rifle"]["ammo"] == 0


def test_cb16_a_looted_weapon_is_not_a_choice_and_is_refused() -> None:
    setup = armed(
        B=[
            weapon("bow", 2, 6, 2),
            weapon("crossbow", 0, 3, 1),
            weapon("rifle", 0, 5, 2, looted=True),
            weapon("sword", 0, 0, 0, kind="melee"),
        ]
    )
    match = Match(setup, house=CALENDAR_ONLY)
    supply_night(match)
    assert match.state["pending"]["options"] == ["bow", "crossbow"]
    refused = match.refused({"type": "choose_supply_weapon", "player": "B", "weapon": "rifle"})
    assert refused.rule_id == "CB-16"
    refused = match.refused({"type": "choose_supply_weapon", "player": "B", "weapon": "sword"})
    assert refused.rule_id == "CB-14"


def test_cb16_a_single_remaining_weapon_is_refilled_without_asking() -> None:
    setup = armed(B=[weapon("bow", 2, 6, 2), weapon("rifle", 0, 5, 2, looted=True)])
    match = Match(setup, house=CALENDAR_ONLY)
    events = supply_night(match)
    assert match.state["pending"] is None
    assert only(events, "AmmoRegenerated")["weapon_id"] == "bow"


@pytest.mark.parametrize("faces", [(2,), (4,)])
def test_cb13_a_supply_night_with_no_weapons_skips_every_player(faces: tuple[int, ...]) -> None:
    match = Match(
        {"players": [player("A", piece("a1", 3)), player("B")], "starting_token": "A"},
        house=CALENDAR_ONLY,
    )
    match.given(at_space(5))
    events = match.end_turns("A", "B", faces=list(faces))
    skipped = details(events, "AmmoRegenerationSkipped")
    assert [(d["player"], d["reason"]) for d in skipped] == [
        ("A", "noEligibleWeapon"),
        ("B", "noEligibleWeapon"),
    ]
