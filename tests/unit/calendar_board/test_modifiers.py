"""Weather and wind modifiers (CB-20..CB-27, CB-32) with G-CB-16..G-CB-19 and G-CB-23/24.

The queries are pure functions; CB-23 (movement rolls) and CB-27 (actions Fog forbids) are also
commands, tested at the end. Tackles, attacks and spells belong to the main rules (G-CB-01): the
queries take the pieces' numbers as they are and only report modifiers and flags for them.
"""

from __future__ import annotations

from typing import Any

import pytest

from domain.model.calendar_board.modifiers import (
    piece_modifiers,
    structure_modifiers,
    wind_relation,
)
from domain.model.errors import InvalidInput
from tests.unit.calendar_board.harness import Match, piece, player


def match_in(weather: str, house: dict[str, Any] | None = None) -> Match:
    """A match under this weather: A's pieces at adaptability +1, +3, 0, -2, +2 and +6."""
    setup = {
        "players": [
            player(
                "A",
                piece("plus1", 3, adaptability=1),
                piece("plus3", 5, adaptability=3),
                piece("zero", 6),
                piece("minus2", 7, adaptability=-2),
                piece("plus2", 8, adaptability=2),
                piece("plus6", None, adaptability=6),
            ),
            player("B", piece("b1", 10)),
        ],
    }
    match = Match(setup, house)
    match.given(lambda state: state["weather"].update(current=weather))
    return match


def of(match: Match, piece_id: str, base_range: int | None = None) -> dict[str, Any]:
    """The modifiers of one of A's pieces."""
    return piece_modifiers(
        match.state, match.campaign.house_rules, "A", piece_id, base_range=base_range
    )


def structure(match: Match, base_range: int | None = None) -> dict[str, Any]:
    """The modifiers of a structure."""
    return structure_modifiers(match.state, match.campaign.house_rules, base_range=base_range)


def table_in(weather: str) -> Match:
    """The default three-player match (A's turn) under this weather."""
    match = Match()
    match.given(lambda state: state["weather"].update(current=weather))
    return match


def test_cb20_normal_weather_changes_nothing() -> None:
    match = match_in("normal")
    assert of(match, "minus2", base_range=4) == {
        "player": "A",
        "piece_id": "minus2",
        "weather": "normal",
        "adaptability": -2,
        "tackle": 0,
        "attack_offender": {"modifier": 0, "disadvantage": False},
        "attack_defender": 0,
        "movement_six_bonus_roll": True,
        "sight_spells_allowed": True,
        "fortify_allowed": True,
        "sight_range": 4,
    }


def test_cb21_rain_does_not_change_attack_rolls() -> None:
    result = of(match_in("rain"), "plus1", base_range=3)
    assert result["attack_offender"] == {"modifier": 0, "disadvantage": False}
    assert result["attack_defender"] == 0
    assert result["sight_range"] == 3
    assert result["sight_spells_allowed"] and result["fortify_allowed"]


def test_cb21_g_cb15_wet_is_a_marker_that_changes_no_modifier() -> None:
    match = match_in("rain")
    dry = of(match, "plus1", base_range=3)
    match.given(lambda state: state["parties"]["A"]["pieces"]["plus1"]["conditions"].append("wet"))
    assert match.state["parties"]["A"]["pieces"]["plus1"]["conditions"] == ["wet"]
    assert of(match, "plus1", base_range=3) == dry


@pytest.mark.parametrize("weather", ["rain", "snow", "hail"])
def test_cb22_both_tacklers_add_minus_4_plus_their_own_adaptability(weather: str) -> None:
    match = match_in(weather)
    tackler, target = of(match, "plus1")["tackle"], of(match, "plus3")["tackle"]
    assert (tackler, target) == (-3, -1)
    assert (12 + tackler, 10 + target) == (9, 9)
    assert of(match, "zero")["tackle"] == -4
    assert of(match, "minus2")["tackle"] == -6


@pytest.mark.parametrize("weather", ["normal", "fog"])
def test_cb22_normal_and_fog_leave_tackles_alone(weather: str) -> None:
    assert of(match_in(weather), "minus2")["tackle"] == 0


def test_cb22_g_cb16_the_penalty_is_capped_at_0_by_default() -> None:
    assert of(match_in("rain"), "plus6")["tackle"] == 0
    assert of(match_in("rain", {"cb.weather.penaltyCap": None}), "plus6")["tackle"] == 2
    assert of(match_in("snow", {"cb.weather.penaltyCap": -2}), "plus3")["attack_defender"] == -2


@pytest.mark.parametrize(
    ("weather", "bonus"),
    [("normal", True), ("rain", False), ("snow", False), ("fog", True), ("hail", False)],
)
def test_cb23_a_movement_six_earns_a_bonus_roll_only_outside_rain_snow_hail(
    weather: str, bonus: bool
) -> None:
    assert of(match_in(weather), "zero")["movement_six_bonus_roll"] is bonus


def test_cb24_snow_gives_both_sides_of_an_attack_minus_4_plus_adaptability() -> None:
    match = match_in("snow")
    offender = of(match, "plus1")["attack_offender"]
    assert offender == {"modifier": -3, "disadvantage": False}
    assert 13 + offender["modifier"] == 10
    assert 11 + of(match, "zero")["attack_defender"] == 7


def test_cb24_g_cb17_a_structure_counts_as_adaptability_0() -> None:
    attacking = structure(match_in("snow"))["attack_offender"]
    assert 15 + attacking["modifier"] == 11
    assert structure(match_in("snow"))["attack_defender"] == -4
    house = {"cb.structures.adaptability": 2}
    assert structure(match_in("snow", house))["attack_offender"]["modifier"] == -2


@pytest.mark.parametrize(("base", "reduced"), [(4, 3), (1, 0), (0, 0)])
def test_cb25_snow_shortens_sight_spell_range_by_one_not_below_0(base: int, reduced: int) -> None:
    assert of(match_in("snow"), "zero", base_range=base)["sight_range"] == reduced
    assert of(match_in("hail"), "zero", base_range=base)["sight_range"] == base


def test_cb25_g_cb18_a_house_range_floor_is_honoured() -> None:
    match = match_in("snow", {"cb.weather.snowSightRangeFloor": 1})
    assert of(match, "zero", base_range=1)["sight_range"] == 1
    assert of(match, "zero", base_range=3)["sight_range"] == 2
    assert of(match, "zero", base_range=0)["sight_range"] == 0
    assert of(match, "zero")["sight_range"] is None


def test_cb26_fog_gives_the_offender_disadvantage_and_the_defender_the_penalty() -> None:
    match = match_in("fog")
    assert of(match, "plus1")["attack_offender"] == {"modifier": 0, "disadvantage": True}
    assert of(match, "plus2")["attack_defender"] == -2
    assert of(match, "zero")["tackle"] == 0
    assert of(match, "zero")["movement_six_bonus_roll"] is True


def test_cb26_g_cb17_fog_covers_structures_unless_the_house_says_not() -> None:
    covered = structure(match_in("fog"))
    assert covered["attack_offender"] == {"modifier": 0, "disadvantage": True}
    assert covered["attack_defender"] == -4
    spared = structure(match_in("fog", {"cb.weather.fogAppliesToStructures": False}))
    assert spared["attack_offender"] == {"modifier": 0, "disadvantage": False}
    assert spared["attack_defender"] == 0
    assert spared["fortify_allowed"] is False


@pytest.mark.parametrize("weather", ["normal", "rain", "snow", "fog", "hail"])
def test_cb27_only_fog_forbids_sight_spells_and_fortifying(weather: str) -> None:
    result = of(match_in(weather), "zero")
    assert result["sight_spells_allowed"] is (weather != "fog")
    assert result["fortify_allowed"] is (weather != "fog")


def test_cb20_unknown_player_or_piece_is_invalid_input_naming_the_field() -> None:
    match = match_in("normal")
    house = match.campaign.house_rules
    with pytest.raises(InvalidInput) as no_player:
        piece_modifiers(match.state, house, "Z", "plus1")
    assert "player" in no_player.value.errors
    with pytest.raises(InvalidInput) as not_theirs:
        piece_modifiers(match.state, house, "A", "b1")
    assert "piece" in not_theirs.value.errors


# -- CB-32 -----------------------------------------------------------------------------------------


def blowing(speed: str, direction: str | None, house: dict[str, Any] | None = None) -> Match:
    """A match with this wind."""
    match = Match(house=house)
    match.given(lambda state: state.update(wind={"speed": speed, "direction": direction}))
    return match


def relation_of(match: Match, facing: str) -> tuple[str, int]:
    """The relation and damage modifier for an acting member with this facing."""
    result = wind_relation(match.state, match.campaign.house_rules, facing)
    return result["relation"], result["modifier"]


def test_cb32_wind_blowing_east() -> None:
    match = blowing("heavy", "east")
    assert relation_of(match, "E") == ("away", 2)
    assert relation_of(match, "W") == ("towards", -3)
    assert relation_of(match, "N") == ("sideways", -1)
    assert relation_of(match, "S") == ("sideways", -1)
    result = wind_relation(match.state, match.campaign.house_rules, "E")
    assert result["wind"] == {"speed": "heavy", "direction": "east"}
    assert result["blows_towards"] == "E"


@pytest.mark.parametrize(
    ("speed", "away", "towards", "sideways"),
    [("light", 0, -1, 0), ("moderate", 1, -2, -1), ("heavy", 2, -3, -1)],
)
def test_cb32_g_cb23_the_damage_modifier_follows_the_wind_table(
    speed: str, away: int, towards: int, sideways: int
) -> None:
    match = blowing(speed, "north")
    assert relation_of(match, "N") == ("away", away)
    assert relation_of(match, "S") == ("towards", towards)
    assert relation_of(match, "W") == ("sideways", sideways)


def test_cb32_no_wind_means_no_classification() -> None:
    match = blowing("none", None)
    for facing in ("N", "E", "S", "W"):
        assert relation_of(match, facing) == ("none", 0)


def test_cb32_g_cb24_a_wind_named_from_east_blows_west() -> None:
    match = blowing("moderate", "east", {"cb.wind.directionMeans": "from"})
    assert relation_of(match, "W") == ("away", 1)
    assert relation_of(match, "E") == ("towards", -2)
    assert relation_of(match, "N") == ("sideways", -1)


def test_cb32_g_cb23_a_house_wind_table_is_honoured() -> None:
    effects = {
        "away": {"light": 1, "moderate": 2, "heavy": 4},
        "towards": {"light": -2, "moderate": -4, "heavy": -6},
        "sideways": {"light": 0, "moderate": 0, "heavy": -2},
    }
    match = blowing("heavy", "west", {"cb.wind.effects": effects})
    assert relation_of(match, "W") == ("away", 4)
    assert relation_of(match, "E") == ("towards", -6)
    assert relation_of(match, "S") == ("sideways", -2)


# -- CB-23 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("weather", ["rain", "snow", "hail"])
def test_cb23_a_six_under_rain_snow_or_hail_earns_no_bonus_roll(weather: str) -> None:
    match = table_in(weather)
    events = match.run({"type": "roll_movement", "player": "A", "piece": "a1"}, faces=[6])
    assert events[0].details == {
        "player": "A",
        "piece_id": "a1",
        "value": 6,
        "bonus_roll_earned": False,
        "bonus_roll_suppressed": True,
        "weather": weather,
    }
    assert [d["face"] for d in events[0].rolls[0]["dice"]] == [6]


@pytest.mark.parametrize("weather", ["normal", "fog"])
def test_cb23_a_six_under_normal_or_fog_earns_the_bonus_roll(weather: str) -> None:
    match = table_in(weather)
    events = match.run({"type": "roll_movement", "player": "A", "piece": "a1"}, faces=[6])
    assert events[0].details["bonus_roll_earned"] is True
    assert events[0].details["bonus_roll_suppressed"] is False


def test_cb23_a_roll_below_six_neither_earns_nor_loses_a_bonus_roll() -> None:
    match = table_in("hail")
    events = match.run({"type": "roll_movement", "player": "A", "piece": "a2"}, faces=[5])
    assert events[0].details["value"] == 5
    assert events[0].details["bonus_roll_earned"] is False
    assert events[0].details["bonus_roll_suppressed"] is False
    assert match.state["turn"]["started"] is True


def test_cb23_only_the_player_whose_turn_it_is_rolls_movement_for_their_own_piece() -> None:
    match = table_in("normal")
    assert match.refused({"type": "roll_movement", "player": "B", "piece": "b1"}).rule_id == "CB-01"
    assert (
        match.not_held({"type": "roll_movement", "player": "A", "piece": "b1"}).field_name
        == "piece"
    )
    match.given(
        lambda state: state["parties"]["A"]["pieces"]["a1"].update(location={"kind": "eliminated"})
    )
    assert match.refused({"type": "roll_movement", "player": "A", "piece": "a1"}).rule_id == "CB-36"


# -- CB-27 -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["sight_spell", "fortify"])
def test_cb27_fog_forbids_sight_spells_and_fortifying(action: str) -> None:
    match = table_in("fog")
    refused = match.refused({"type": "declare_action", "player": "B", "action": action})
    assert refused.rule_id == "CB-27"
    assert "fog" in refused.reason


@pytest.mark.parametrize("weather", ["normal", "rain", "snow", "hail"])
def test_cb27_other_weather_allows_them_and_records_the_action(weather: str) -> None:
    match = table_in(weather)
    events = match.run({"type": "declare_action", "player": "A", "action": "fortify"})
    assert events[0].details == {"player": "A", "action": "fortify", "weather": weather}
    assert match.state["turn"]["started"] is True
    other = match.run({"type": "declare_action", "player": "C", "action": "sight_spell"})
    assert match.types(other) == ["ActionDeclared"]


def test_cb27_unknown_actions_are_invalid_input() -> None:
    match = table_in("normal")
    error = match.invalid({"type": "declare_action", "player": "A", "action": "fly"})
    assert "action" in error.errors
