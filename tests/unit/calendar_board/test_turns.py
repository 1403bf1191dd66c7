"""Turns, the start of the night phase and the god token (CB-01, CB-02, CB-03)."""

from __future__ import annotations

from tests.unit.calendar_board.harness import Match, three_players


def test_cb01_turns_go_round_and_out_of_turn_is_refused() -> None:
    match = Match()
    assert match.state["turn"]["player"] == "A"
    refused = match.refused({"type": "end_turn", "player": "B"})
    assert refused.rule_id == "CB-01"
    events = match.run({"type": "end_turn", "player": "A"})
    assert match.types(events) == ["TurnEnded", "TurnStarted"]
    assert match.state["turn"]["player"] == "B"


def test_cb01_setup_is_validated_and_names_the_field() -> None:
    setup = three_players()
    setup["players"][1]["pieces"][0]["facing"] = "up"
    try:
        Match(setup)
    except Exception as error:
        assert "players[1].pieces[0].facing" in getattr(error, "errors", {})
    else:
        raise AssertionError("a bad facing was accepted")


def test_cb03_token_passes_to_the_right_once_a_night() -> None:
    match = Match()
    assert match.state["god_token"] == "A"
    match.end_turns("A", "B")
    night = match.run({"type": "end_turn", "player": "C"}, faces=FACES_FOR_A_QUIET_NIGHT)
    passed = [e for e in night if type(e).__name__ == "GodTokenPassed"]
    assert len(passed) == 1
    assert match.state["pending"]["decision"] == "night_action"
    assert match.state["pending"]["who"] == "A"
    assert passed[0].details["from"] == "A"
    assert passed[0].details["to"] == "B"


# A night with no creatures and Annustar 0: basketball 2d20, calendar d4 (1 -> normal space 1),
# wind d20 (1 -> no wind); it then waits for the first night action.
FACES_FOR_A_QUIET_NIGHT: tuple[int, ...] = (1, 1, 1, 1)


def test_cb02_one_night_runs_its_steps_in_order() -> None:
    match = Match()
    match.end_turns("A", "B")
    night = match.run({"type": "end_turn", "player": "C"}, faces=FACES_FOR_A_QUIET_NIGHT)
    order = [
        "NightPhaseStarted",
        "GodTokenPassed",
        "BasketballShotRolled",
        "CalendarRolled",
        "WindRolled",
        "DecisionRequested",
    ]
    seen = [t for t in match.types(night) if t in order]
    assert seen == order


def test_cb01_after_the_last_night_action_the_starting_player_begins_round_two() -> None:
    match = Match()
    match.end_turns("A", "B", "C", faces=FACES_FOR_A_QUIET_NIGHT)
    for who in ("A", "B"):
        match.run({"type": "night_action", "player": who, "action": "sleep"})
    events = match.run({"type": "night_action", "player": "C", "action": "sleep"})
    types = match.types(events)
    assert types.index("NightPhaseEnded") < types.index("TurnStarted")
    assert match.state["night"] is None
    assert match.state["round"] == 2
    assert match.state["turn"]["player"] == "A"
    assert match.state["god_token"] == "B"
