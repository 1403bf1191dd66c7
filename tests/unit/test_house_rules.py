"""House rules as data (QC-01): defaults, overrides, and refusals that name the key."""

from __future__ import annotations

import pytest

from domain.model.errors import InvalidInput, NotHeld
from domain.model.house_rules import GAMES, HouseRule, book


@pytest.mark.parametrize("game", GAMES)
def test_qc01_defaults_are_resolved_for_every_game(game: str) -> None:
    resolved = book(game).resolve(None)
    assert resolved["dice_mode"] == "either"


def test_qc01_override_replaces_the_default() -> None:
    assert book("quest-calendar").resolve({"dice_mode": "server"})["dice_mode"] == "server"


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"dice_mode": "sometimes"}, "house_rules.dice_mode"),
        ({"dice_mode": 1}, "house_rules.dice_mode"),
        ({"nope": 1}, "house_rules.nope"),
    ],
)
def test_bad_house_rules_name_the_key(overrides: dict[str, object], key: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        book("calendar-board").resolve(overrides)
    assert key in refused.value.errors


def test_unknown_game_is_invalid_input() -> None:
    with pytest.raises(InvalidInput) as refused:
        book("chess")
    assert "game" in refused.value.errors


@pytest.mark.parametrize(
    ("rule", "value", "ok"),
    [
        (HouseRule("n", 1, "", kind="int", minimum=0, maximum=3), 2, True),
        (HouseRule("n", 1, "", kind="int", minimum=0, maximum=3), 4, False),
        (HouseRule("n", 1, "", kind="int", minimum=0), -1, False),
        (HouseRule("n", 1, "", kind="int"), True, False),
        (HouseRule("b", True, "", kind="bool"), 1, False),
        (HouseRule("b", True, "", kind="bool"), False, True),
        (HouseRule("l", [], "", kind="list"), {}, False),
        (HouseRule("o", {}, "", kind="object"), [], False),
        (HouseRule("x", None, "", kind="int", nullable=True), None, True),
        (HouseRule("x", 0, "", kind="int"), None, False),
    ],
)
def test_house_rule_value_checks(rule: HouseRule, value: object, ok: bool) -> None:
    assert (rule.check(value) is None) is ok


def test_qc01_a_change_is_checked_by_its_own_form_then_by_the_campaigns_game() -> None:
    """A key no game has, or a value its rule takes in no game, is the body's mistake (422); a
    key or value only the other game takes is the campaign's answer (409 not-held), each naming
    its field."""
    quest = book("quest-calendar")
    for key, value, field in (("qc.nope", 1, "key"), ("qc.combat.mode", "brutal", "value")):
        with pytest.raises(InvalidInput) as invalid:
            quest.change({}, key, value)
        assert list(invalid.value.errors) == [field]
        assert not isinstance(invalid.value, NotHeld)
    with pytest.raises(NotHeld) as other_game:
        quest.change({}, "cb.relationship.initial", 10)
    assert list(other_game.value.errors) == ["key"]
    assert quest.change({}, "qc.combat.mode", "easy").key == "qc.combat.mode"
