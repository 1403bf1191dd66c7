"""The night's rolls asked of the player whose roll they are, and the turn's movement rolls.

Under the default house rules (``cb.night.rolls`` = ``players``) the night stops at a
``night_roll`` decision for the god-token holder's calendar d4 (CB-09), wind d20 (CB-30),
basketball shot (CB-06) and Annustaria Breaker check (G-CB-08), and for each player's own hail
save and its damage (CB-28); ``roll_night`` is that player's own command, with the server's dice
or their faces. A match whose house rules predate the rule rolls them as before. Movement rolls
are limited per turn (``cb.movement.rollsPerTurn``, G-CB-01), a 6 earning a bonus roll (CB-23).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.calendar_board.harness import Match, piece, player, three_players

PLAYERS_ROLL = {
    "cb.night.rolls": "players",
    "cb.movement.rollsPerTurn": 1,
    "cb.movement.movesPiece": True,
}


def match(**house: Any) -> Match:
    """Three players (A holds both tokens), with the night's rolls asked of the players."""
    return Match(house={**PLAYERS_ROLL, **house})


def types(events: list[Any]) -> list[str]:
    """The event types, in order."""
    return [type(e).__name__ for e in events]


def asked(m: Match) -> dict[str, Any]:
    """The pending decision, checked to be a night roll."""
    pending: dict[str, Any] = m.state["pending"]
    assert pending["decision"] == "night_roll"
    assert pending["commands"] == ["roll_night"]
    return pending


def roll(m: Match, who: str, kind: str, faces: list[int]) -> list[Any]:
    """``who`` makes the asked ``kind`` roll with these faces (scripted server dice)."""
    return m.run({"type": "roll_night", "player": who, "roll": kind}, faces)


def test_cb09_the_god_token_holder_is_asked_the_calendar_d4_and_rolls_it_as_their_command() -> None:
    """CB-09: C's end_turn starts the night and stops for the holder's d4; the roll is A's."""
    m = match(**{"cb.night.steps": ["token", "calendar"]})
    events = m.end_turns("A", "B", "C")
    assert "CalendarRolled" not in types(events)
    pending = asked(m)
    assert pending["who"] == m.state["god_token"] == "B"  # the token passed at night start
    assert pending["rule"] == "CB-09"
    assert pending["context"] == {"roll": "calendar", "notation": "1d4", "player": "B"}
    events = roll(m, "B", "calendar", [3])
    rolled = next(e for e in events if type(e).__name__ == "CalendarRolled")
    assert rolled.details == {"holder": "B", "d4": 3}
    assert rolled.command["player"] == "B"
    assert m.state["board"]["god_piece"] == 3
    assert m.state["night"] is None and m.state["pending"] is None


def test_cb09_another_player_cannot_make_the_holders_roll_and_nothing_changes() -> None:
    """CB-09: the decision is the holder's; C's roll_night is refused under the rule."""
    m = match(**{"cb.night.steps": ["token", "calendar"]})
    m.end_turns("A", "B", "C")
    refusal = m.refused({"type": "roll_night", "player": "C", "roll": "calendar"}, [2])
    assert refusal.rule_id == "CB-09"
    assert "B's decision" in str(refusal)


def test_cb30_the_asked_roll_only_and_none_when_no_roll_is_asked() -> None:
    """CB-30: a roll_night naming another roll than the one asked is refused; so is one while
    no night roll is asked."""
    m = match(**{"cb.night.steps": ["token", "wind"]})
    refusal = m.refused({"type": "roll_night", "player": "A", "roll": "wind"}, [5])
    assert "no night_roll decision is pending" in str(refusal)
    m.end_turns("A", "B", "C")
    assert asked(m)["rule"] == "CB-30"
    refusal = m.refused({"type": "roll_night", "player": "B", "roll": "calendar"}, [2])
    assert "the roll asked for is the wind roll" in str(refusal)
    events = roll(m, "B", "wind", [17])
    assert types(events)[:2] == ["WindRolled", "WindSet"]
    assert m.state["wind"] == {"speed": "heavy", "direction": "north"}


def test_cb06_the_basketball_shot_is_the_holders_two_d20() -> None:
    """CB-06: the holder rolls both d20 of the shot."""
    m = match(**{"cb.night.steps": ["token", "basketball"]})
    m.end_turns("A", "B", "C")
    assert asked(m)["context"]["notation"] == "2d20"
    events = roll(m, "B", "basketball", [14, 17])
    shot = next(e for e in events if type(e).__name__ == "BasketballShotRolled")
    assert shot.details["made"] is True and shot.details["total"] == 31


def test_cb28_each_player_owing_a_hail_save_is_asked_in_turn_order_then_the_damage() -> None:
    """CB-28: the piece lands on hail (13); A, B and C are asked their saves in turn order from
    the starting token; a failed save asks its owner the damage d4."""
    setup = three_players()
    m = Match(setup, {**PLAYERS_ROLL, "cb.night.steps": ["token", "calendar"]})
    m.given(lambda state: state["board"].update(god_piece=10))
    m.end_turns("A", "B", "C")
    roll(m, "B", "calendar", [3])
    assert m.state["board"]["god_piece"] == 13
    pending = asked(m)
    assert (pending["who"], pending["context"]["roll"]) == ("A", "hail_save")
    assert pending["context"]["goal"] == 2
    roll(m, "A", "hail_save", [15])  # A saves
    assert asked(m)["who"] == "B"
    roll(m, "B", "hail_save", [1])  # B fails, keeps the result: asked the damage
    assert m.state["pending"]["decision"] == "fate_reroll"
    m.run({"type": "decline_fate_reroll", "player": "B"})
    pending = asked(m)
    assert (pending["who"], pending["context"]["roll"]) == ("B", "hail_damage")
    roll(m, "B", "hail_damage", [4])  # two counted pieces: B chooses which one takes it
    assert m.state["pending"]["decision"] == "hail_damage"
    m.run({"type": "assign_hail_damage", "player": "B", "piece": "b1"})
    assert asked(m)["who"] == "C"
    roll(m, "C", "hail_save", [20])
    assert m.state["night"] is None


def test_cb28_a_player_with_no_counted_piece_saves_without_being_asked() -> None:
    """CB-28: goal 0 succeeds automatically; nobody is asked to roll for it."""
    setup = {
        "players": [
            player("A", piece("a1", 3)),
            player("B", {"id": "b1", "location": {"kind": "eliminated"}}),
        ],
        "starting_token": "A",
    }
    m = Match(setup, {**PLAYERS_ROLL, "cb.night.steps": ["token", "calendar"]})
    m.given(lambda state: state["board"].update(god_piece=10))
    m.end_turns("A", "B")
    roll(m, "B", "calendar", [3])
    assert asked(m)["who"] == "A"
    events = roll(m, "A", "hail_save", [18])
    saves = [e.details for e in events if type(e).__name__ == "HailSaveRolled"]
    assert [(s["player"], s["automatic"]) for s in saves] == [("A", False), ("B", True)]


def test_g_cb08_the_annustaria_breaker_checks_are_the_holders() -> None:
    """G-CB-08: at the maximum the holder is asked each check in turn."""
    m = match(**{"cb.night.steps": ["token", "annustaria"], "cb.annustaria.checksPerNight": 2})
    m.given(lambda state: state.update(annustar=20))
    m.end_turns("A", "B", "C")
    assert asked(m)["context"]["check"] == 1
    roll(m, "B", "annustaria", [12])
    assert asked(m)["context"]["check"] == 2
    events = roll(m, "B", "annustaria", [3])
    checks = [e.details for e in events if type(e).__name__ == "AnnustariaBreakerChecked"]
    assert [(c["check"], c["passed"]) for c in checks] == [(2, False)]
    assert m.state["night"] is None and m.state["annustar"] == 20


def test_cb09_a_match_whose_house_rules_predate_the_rule_rolls_the_night_as_before() -> None:
    """CB-09: house rules stored without ``cb.night.rolls`` (an earlier release's match): the
    command that reaches the night's rolls makes them, as it always did."""
    m = Match(house={"cb.night.steps": ["calendar", "wind"]})
    del m.campaign.house_rules["cb.night.rolls"]
    events = m.end_turns("A", "B", "C", faces=[2, 9])
    assert {"CalendarRolled", "WindRolled"} <= set(types(events))
    assert m.state["pending"] is None and m.state["night"] is None


def test_cb09_the_automatic_house_rule_rolls_the_night_in_the_ending_command() -> None:
    """CB-09 under ``cb.night.rolls`` = ``automatic``: one screen, one command."""
    m = match(**{"cb.night.rolls": "automatic", "cb.night.steps": ["token", "calendar"]})
    events = m.end_turns("A", "B", "C", faces=[4])
    assert "CalendarRolled" in types(events)


def test_g_cb01_one_movement_roll_a_turn_and_a_six_earns_that_piece_a_bonus_roll() -> None:
    """G-CB-01, CB-23: the turn's one movement roll; a 6 earns a bonus roll for the same piece
    (Normal weather), and after it nothing more."""
    m = match()
    m.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [6])
    refusal = m.refused({"type": "roll_movement", "player": "A", "piece": "a2"}, [2])
    assert refusal.rule_id == "G-CB-01" and "for a1" in str(refusal)
    m.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [2])
    refusal = m.refused({"type": "roll_movement", "player": "A", "piece": "a1"}, [2])
    assert "cb.movement.rollsPerTurn" in str(refusal)
    m.run({"type": "end_turn", "player": "A"})
    m.run({"type": "roll_movement", "player": "B", "piece": "b1"}, [3])


def test_cb23_under_rain_a_six_earns_no_bonus_roll() -> None:
    """CB-23: Rain takes the bonus roll away, so the turn's one roll is all."""
    m = match()
    m.given(lambda state: state["weather"].update(current="rain"))
    m.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [6])
    assert m.refused({"type": "roll_movement", "player": "A", "piece": "a1"}, [1]).rule_id == (
        "G-CB-01"
    )


@pytest.mark.parametrize("limit", [None, 3])
def test_g_cb01_the_movement_limit_is_a_house_rule(limit: int | None) -> None:
    """G-CB-01: ``null`` is no limit; 3 allows three rolls."""
    m = match(**{"cb.movement.rollsPerTurn": limit})
    for _ in range(3):
        m.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [2])
    if limit is None:
        m.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [2])
    else:
        m.refused({"type": "roll_movement", "player": "A", "piece": "a1"}, [2])


def test_g_cb01_a_movement_roll_moves_a_pathway_piece_forward_and_leaves_a_home_piece() -> None:
    """G-CB-01, G-CB-25: a1 on space 3 rolls 4 and stands on 7 (``PieceMoved``); a2 at home
    rolls and stays home (entering the pathway is the main rules')."""
    m = match(**{"cb.movement.rollsPerTurn": 2})
    events = m.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [4])
    assert [e.details for e in events if type(e).__name__ == "PieceMoved"] == [
        {"player": "A", "piece_id": "a1", "from_space": 3, "to_space": 7, "spaces": 4}
    ]
    assert m.party("A")["pieces"]["a1"]["location"] == {"kind": "pathway", "space": 7}
    events = m.run({"type": "roll_movement", "player": "A", "piece": "a2"}, [5])
    assert "PieceMoved" not in types(events)
    assert m.party("A")["pieces"]["a2"]["location"] == {"kind": "home"}


def test_g_cb01_a_match_whose_house_rules_predate_the_movement_rules_moves_and_counts_nothing() -> (
    None
):
    """G-CB-01: house rules stored without the movement rules: no limit and no move."""
    m = match()
    for key in ("cb.movement.rollsPerTurn", "cb.movement.movesPiece"):
        del m.campaign.house_rules[key]
    for _ in range(3):
        events = m.run({"type": "roll_movement", "player": "A", "piece": "a1"}, [4])
        assert "PieceMoved" not in types(events)
    assert "movement" not in m.state["turn"]
