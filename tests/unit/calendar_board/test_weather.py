"""Weather from the landed space, when it takes effect, Wet, hail saves, event weather (G-CB-21)
and the wind (CB-18, CB-19, CB-21, CB-28..CB-31)."""

from __future__ import annotations

from typing import Any

import pytest

from domain.model.calendar_board import weather
from domain.model.dice.draw import ScriptedDice
from domain.model.errors import RuleViolation
from domain.model.rules_engine import Context
from tests.unit.calendar_board.harness import Match, piece, player, three_players
from tests.unit.calendar_board.test_calendar import at_space, details, night, only

CALENDAR_ONLY = {"cb.night.steps": ["calendar"]}


def move(piece_id: str, owner: str, space: int) -> Any:
    """A fixture moving a piece onto a pathway space."""

    def change(state: dict[str, Any]) -> None:
        state["parties"][owner]["pieces"][piece_id]["location"] = {
            "kind": "pathway",
            "space": space,
        }

    return change


def weather_is(current: str) -> Any:
    """A fixture setting the weather in effect."""
    return lambda state: state["weather"].update(current=current)


# -- CB-18 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("space_type", "weather", "source"),
    [
        ("normal", "normal", "weatherSpace"),
        ("rain", "rain", "weatherSpace"),
        ("snow", "snow", "weatherSpace"),
        ("fog", "fog", "weatherSpace"),
        ("hail", "hail", "weatherSpace"),
        ("supply", "normal", "supply"),
        ("event", "normal", "event"),
    ],
)
def test_cb18_the_landed_space_type_sets_the_weather(
    space_type: str, weather: str, source: str
) -> None:
    layout = ["start", space_type, "end"]
    match = Match(house={**CALENDAR_ONLY, "cb.calendar.layout": layout})
    faces = [1, 20, 20, 20] if space_type == "hail" else [1]  # hail: three saves
    events = night(match, faces)
    weather_set = only(events, "WeatherSet")
    assert (weather_set["weather"], weather_set["source"]) == (weather, source)
    assert weather_set["pending"] is True
    assert match.state["weather"] == {"current": weather, "pending": None}


# -- CB-19 --------------------------------------------------------------------------------------


def test_cb19_snow_takes_effect_at_the_starting_turn_and_lasts_until_the_next_roll() -> None:
    match = Match(house=CALENDAR_ONLY)
    match.given(at_space(3))
    events = night(match, [2])  # lands on snow 5
    order = match.types(events)
    assert order.index("WeatherSet") < order.index("NightPhaseEnded")
    assert order.index("TurnStarted") < order.index("WeatherActivated")
    assert only(events, "WeatherActivated") == {"weather": "snow", "round": 2, "at_turn_of": "A"}
    assert only(events, "WeatherEnded") == {"weather": "normal", "reason": "newCalendarRoll"}
    assert match.state["weather"] == {"current": "snow", "pending": None}
    match.end_turns("A", "B")
    assert match.state["weather"]["current"] == "snow"
    events = match.run({"type": "end_turn", "player": "C"}, faces=[1])  # lands on normal 6
    order = match.types(events)
    assert only(events, "WeatherEnded") == {"weather": "snow", "reason": "newCalendarRoll"}
    assert order.index("CalendarRolled") < order.index("WeatherEnded") < order.index("WeatherSet")
    assert match.state["weather"]["current"] == "normal"


def hail_match(**house: Any) -> Match:
    """The CB-28 example table: A has 3 pieces on the pathway and 2 at home, luck +1."""
    setup = {
        "players": [
            player(
                "A",
                piece("a1", 1),
                piece("a2", 2),
                piece("a3", 3),
                piece("a4"),
                piece("a5"),
                {"id": "a6", "location": {"kind": "elsewhere"}},
                luck_mod=1,
            ),
            player("B", piece("b1", 4)),
            player("C", {"id": "c1", "location": {"kind": "eliminated"}}),
        ],
        "starting_token": "A",
    }
    match = Match(setup, house={**CALENDAR_ONLY, **house})
    match.given(at_space(11))
    return match


# Calendar d4 2 (11 -> hail 13), A's d20 3 (3 + 1 = 4 < 5): the night offers A a fate reroll
# (G-CB-12); A declines and rolls the damage d4 2; B rolls after.
HAIL_FACES = [2, 3]


def declined(match: Match, who: str, faces: list[int]) -> list[Any]:
    """G-CB-12: keep the failed save; the consequences are rolled with ``faces``."""
    pending = match.state["pending"]
    assert (pending["decision"], pending["who"], pending["context"]["roll"]) == (
        "fate_reroll",
        who,
        "hail",
    )
    return list(match.run({"type": "decline_fate_reroll", "player": who}, faces=faces))


@pytest.mark.parametrize(
    ("gap", "tonight"), [("normal", "normal"), ("previous", "fog"), ("new", "hail")]
)
def test_cb19_weather_for_the_rest_of_the_night_follows_the_house_rule(
    gap: str, tonight: str
) -> None:
    match = hail_match(**{"cb.weather.nightGap": gap})
    match.given(weather_is("fog"))
    events = night(match, HAIL_FACES) + declined(match, "A", [2])
    assert match.state["night"] is not None  # stopped at A's hail damage choice, mid-night
    assert match.state["weather"] == {"current": tonight, "pending": "hail"}
    assert only(events, "WeatherSet")["in_force_tonight"] == tonight
    ended = details(events, "WeatherEnded")
    assert ended == ([] if gap == "previous" else [{"weather": "fog", "reason": "newCalendarRoll"}])
    events = match.run({"type": "assign_hail_damage", "player": "A", "piece": "a1"}, faces=[20])
    assert match.state["weather"] == {"current": "hail", "pending": None}
    if gap == "previous":
        assert only(events, "WeatherEnded") == {"weather": "fog", "reason": "newWeatherActivated"}


def test_cb19_immediate_activation_makes_the_weather_current_at_once() -> None:
    match = Match(house={**CALENDAR_ONLY, "cb.weather.activation": "immediate"})
    match.given(at_space(3))
    events = night(match, [2])
    order = match.types(events)
    assert order.index("WeatherActivated") < order.index("NightPhaseEnded")
    assert only(events, "WeatherSet")["pending"] is False
    assert only(events, "WeatherActivated")["at_turn_of"] is None
    assert match.state["weather"] == {"current": "snow", "pending": None}


# -- CB-21 --------------------------------------------------------------------------------------


def conditions(match: Match) -> dict[str, list[str]]:
    """Every piece's conditions."""
    return {
        pid: p["conditions"]
        for party in match.state["parties"].values()
        for pid, p in party["pieces"].items()
    }


def test_cb21_rain_wets_every_pathway_piece_when_it_takes_effect_and_dries_next_night() -> None:
    match = Match(house={"cb.night.steps": ["token", "calendar"]})
    events = night(match, [2])  # lands on rain 2
    assert [d["subject_id"] for d in details(events, "ConditionApplied")] == ["a1", "b1", "c1"]
    assert only(events, "WeatherActivated")["weather"] == "rain"
    order = match.types(events)
    assert order.index("WeatherActivated") < order.index("ConditionApplied")
    assert conditions(match) == {
        "a1": ["wet"],
        "a2": [],
        "b1": ["wet"],
        "b2": [],
        "c1": ["wet"],
        "c2": [],
    }
    match.given(move("a2", "A", 4))  # arrives on the pathway after the rain began
    match.end_turns("A")
    assert conditions(match)["a2"] == []
    events = match.end_turns("B", "C", faces=[1])
    order = match.types(events)
    cleared = details(events, "ConditionCleared")
    assert [d["subject_id"] for d in cleared] == ["a1", "b1", "c1"]
    assert cleared[0]["cause"] == "nightPhaseStarted"
    assert order.index("NightPhaseStarted") < order.index("ConditionCleared")
    assert order.index("ConditionCleared") < order.index("GodTokenPassed")
    assert all(found == [] for found in conditions(match).values())


def test_cb21_with_the_snapshot_off_later_arrivals_get_wet_too() -> None:
    match = Match(house={**CALENDAR_ONLY, "cb.weather.wetSnapshot": False})
    night(match, [2])
    match.given(move("a2", "A", 4))
    events = match.end_turns("A")
    assert [d["subject_id"] for d in details(events, "ConditionApplied")] == ["a2"]
    assert conditions(match)["a2"] == ["wet"]


def test_cb21_no_rain_no_wet() -> None:
    match = Match(house=CALENDAR_ONLY)
    events = night(match, [4])  # fog 4
    assert details(events, "ConditionApplied") == []


# -- CB-28 --------------------------------------------------------------------------------------


def test_cb28_goal_5_d20_3_luck_1_fails_and_the_player_puts_the_d4_2_on_a_piece() -> None:
    match = hail_match()
    events = night(match, HAIL_FACES) + declined(match, "A", [2])
    assert details(events, "HailSaveRolled") == [
        {
            "player": "A",
            "goal": 5,
            "die_value": 3,
            "luck_mod": 1,
            "total": 4,
            "success": False,
            "automatic": False,
        }
    ]
    pending = match.state["pending"]
    assert (pending["decision"], pending["who"]) == ("hail_damage", "A")
    assert pending["options"] == ["a1", "a2", "a3", "a4", "a5"]
    assert pending["context"] == {"d4": 2}
    assert match.refused({"type": "assign_hail_damage", "player": "B", "piece": "b1"}).rule_id == (
        "CB-28"
    )
    refused = match.refused({"type": "assign_hail_damage", "player": "A", "piece": "a6"}, [20])
    assert refused.rule_id == "CB-28"
    assert (
        match.not_held({"type": "assign_hail_damage", "player": "A", "piece": "x"}).field_name
        == "piece"
    )
    events = match.run({"type": "assign_hail_damage", "player": "A", "piece": "a3"}, faces=[20])
    assert only(events, "HailDamageTaken") == {
        "player": "A",
        "piece_id": "a3",
        "d4": 2,
        "damage_type": "normal/natural",
        "chosen_by": "player",
    }
    saves = details(events, "HailSaveRolled")
    assert [(d["player"], d["goal"], d["success"]) for d in saves] == [
        ("B", 1, True),
        ("C", 0, True),
    ]
    assert (saves[1]["die_value"], saves[1]["automatic"]) == (None, True)  # goal 0: no roll
    assert match.state["night"] is None


def test_cb28_total_equal_to_goal_succeeds_by_default_and_fails_with_strictly_greater() -> None:
    match = hail_match()
    events = night(match, [2, 4, 20])  # 4 + 1 = 5 >= 5; B's 20
    assert [d["success"] for d in details(events, "HailSaveRolled")] == [True, True, True]
    match = hail_match(**{"cb.hail.successIf": "total>goal"})
    night(match, [2, 4])  # 4 + 1 = 5, not > 5
    declined(match, "A", [1])  # damage d4 1
    assert match.state["pending"]["decision"] == "hail_damage"


def test_cb28_only_own_pieces_count_and_one_counted_piece_takes_the_damage_directly() -> None:
    match = Match(house=CALENDAR_ONLY)  # A, B, C: one piece on the pathway and one at home each
    match.given(at_space(11))
    match.given(lambda state: state["parties"]["C"]["pieces"].pop("c2"))
    events = night(match, [2, 20, 20, 1])  # C: goal 1, d20 1 + luck 0 = 1 >= 1
    assert [d["goal"] for d in details(events, "HailSaveRolled")] == [2, 2, 1]
    assert details(events, "HailDamageTaken") == []
    match = Match(house=CALENDAR_ONLY)
    match.given(at_space(11))
    match.given(lambda state: state["parties"]["C"]["pieces"].pop("c2"))
    match.given(lambda state: state["parties"]["C"].update(luck_mod=-5))
    events = night(match, [2, 20, 20, 5])  # C: 5 - 5 = 0 < 1
    events += declined(match, "C", [3])  # damage d4 3 to c1
    assert only(events, "HailDamageTaken")["piece_id"] == "c1"
    assert only(events, "HailDamageTaken")["chosen_by"] == "automatic"
    assert match.state["pending"] is None


def test_cb28_hail_saves_come_before_the_wind_roll() -> None:
    match = Match(house={"cb.night.steps": ["calendar", "wind"]})
    match.given(at_space(11))
    events = night(match, [2, 20, 20, 20, 1])
    order = match.types(events)
    assert order.index("WeatherSet") < order.index("HailSaveRolled") < order.index("WindRolled")


def test_cb28_landing_on_hail_again_saves_again_unless_the_house_rule_says_not() -> None:
    match = hail_match()
    match.given(weather_is("hail"))
    assert len(details(night(match, [2, 20, 20]), "HailSaveRolled")) == 3
    match = hail_match(**{"cb.hail.retriggerOnRepeat": False})
    match.given(weather_is("hail"))
    events = night(match, [2])
    assert details(events, "HailSaveRolled") == []
    assert only(events, "WeatherSet")["hail_save"] is False


# -- CB-29 --------------------------------------------------------------------------------------


def event_match(options: dict[str, Any]) -> Match:
    """A match with event options whose god piece is 2 short of event space 10."""
    match = Match({**three_players(), "options": options}, house=CALENDAR_ONLY)
    match.given(at_space(8))
    return match


BLIZZARD = {"id": "blizzard-week", "special_weather": "snow"}


def test_cb29_blizzard_week_makes_an_event_space_snow() -> None:
    match = event_match({"event_rules": True, "active_event": BLIZZARD})
    events = night(match, [2])
    weather_set = only(events, "WeatherSet")
    assert (weather_set["weather"], weather_set["source"]) == ("snow", "event")
    assert weather_set["event_id"] == "blizzard-week"
    assert match.state["weather"]["current"] == "snow"


@pytest.mark.parametrize(
    "options",
    [{"event_rules": True}, {"event_rules": False, "active_event": BLIZZARD}],
)
def test_cb29_without_event_rules_or_an_active_event_the_weather_is_normal(
    options: dict[str, Any],
) -> None:
    events = night(event_match(options), [2])
    weather_set = only(events, "WeatherSet")
    assert (weather_set["weather"], weather_set["source"]) == ("normal", "event")
    assert "event_id" not in weather_set


def test_cb29_g_cb21_an_active_event_without_special_weather_brings_normal_weather() -> None:
    fair = {"id": "harvest-fair"}
    match = event_match({"event_rules": True, "active_event": fair})
    assert match.state["options"]["active_event"] == {**fair, "special_weather": "normal"}
    weather_set = only(night(match, [2]), "WeatherSet")
    assert (weather_set["weather"], weather_set["source"]) == ("normal", "event")
    assert weather_set["event_id"] == "harvest-fair"


def test_cb29_event_hail_changes_the_weather_to_hail_and_calls_for_saves() -> None:
    storm = {"id": "ice-storm", "special_weather": "hail"}
    events = night(event_match({"event_rules": True, "active_event": storm}), [2, 20, 20, 20])
    assert len(details(events, "HailSaveRolled")) == 3


# -- CB-30 / CB-31 ------------------------------------------------------------------------------


def test_cb30_the_god_token_holder_rolls_17_for_heavy_north_which_lasts_until_the_next_roll() -> (
    None
):
    match = Match(house={"cb.night.steps": ["token", "calendar", "wind"]})
    events = night(match, [1, 17])
    assert only(events, "WindRolled") == {"holder": "B", "d20": 17}
    assert only(events, "WindSet") == {
        "speed": "heavy",
        "direction": "north",
        "previous": {"speed": "none", "direction": None},
    }
    wind_roll = next(e for e in events if type(e).__name__ == "WindRolled")
    assert [r["purpose"] for r in wind_roll.rolls] == ["wind"]
    match.end_turns("A", "B")
    assert match.state["wind"] == {"speed": "heavy", "direction": "north"}
    events = match.run({"type": "end_turn", "player": "C"}, faces=[1, 2])
    assert only(events, "WindRolled")["holder"] == "C"
    assert match.state["wind"] == {"speed": "none", "direction": None}


def wind_step(table: list[list[Any]], d20: int) -> Context:
    """Run the wind step directly under a wind table (``cb.wind.table`` rows cannot yet be
    configured through a campaign: its list check accepts only strings and integers)."""
    match = Match(house={"cb.night.steps": ["wind"]})
    house = {**match.campaign.house_rules, "cb.wind.table": table}
    ctx = Context(match.state, house, ScriptedDice([d20]))
    assert weather.wind(ctx) is True
    return ctx


def test_cb30_a_house_rule_wind_table_is_used() -> None:
    ctx = wind_step([[1, 10, "light", "east"], [11, 20, "moderate", "west"]], 17)
    assert ctx.state["wind"] == {"speed": "moderate", "direction": "west"}
    assert [e.event_type for e in ctx.close()] == ["WindRolled", "WindSet"]


def test_cb30_a_wind_table_with_a_hole_is_refused_naming_the_rule() -> None:
    with pytest.raises(RuleViolation) as refused:
        wind_step([[1, 10, "light", "east"]], 15)
    assert refused.value.rule_id == "CB-30"


DEFAULT_WIND = (
    [("none", None)] * 4
    + [("light", "north")] * 2
    + [("light", "west")] * 2
    + [("light", "south")] * 2
    + [("light", "east")] * 2
    + [(speed, d) for speed in ("moderate", "heavy") for d in ("north", "west", "south", "east")]
)


@pytest.mark.parametrize("d20", range(1, 21))
def test_cb31_every_d20_maps_to_one_of_the_13_wind_outcomes(d20: int) -> None:
    assert len(set(DEFAULT_WIND)) == 13
    match = Match(house={"cb.night.steps": ["wind"]})
    events = night(match, [d20])
    speed, direction = DEFAULT_WIND[d20 - 1]
    assert match.state["wind"] == {"speed": speed, "direction": direction}
    assert only(events, "WindSet")["speed"] == speed
