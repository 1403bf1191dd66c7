"""House rules as data (QC-01): defaults, overrides, and refusals that name the key."""

from __future__ import annotations

import pytest

from domain.model.errors import InvalidInput
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
