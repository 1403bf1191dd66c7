"""The ``house_rule`` analytics filter's pattern in the document says what the server takes:
every key of either game with a value its rule allows (the route-bodies measurement generates from
it; here the pattern itself is checked against the server's parser)."""

from __future__ import annotations

import json
import re

import pytest
from marshmallow import ValidationError

from webapi.schemas.analytics import RULE_PATTERN, HouseRuleFilter
from webapi.schemas.house_rules import integer_pattern, rules_by_key

RANGES = [(0, 10), (0, 100), (1, 20), (2, 41), (0, 1000), (-10, 10), (1900, 2200), (-1000, 0)]


@pytest.mark.parametrize(("low", "high"), RANGES)
def test_an_integer_pattern_matches_its_range_and_nothing_else(low: int, high: int) -> None:
    pattern = re.compile(f"^(?:{integer_pattern(low, high)})$")
    for value in range(low - 3000, high + 3000):
        assert bool(pattern.match(str(value))) is (low <= value <= high), value
    assert not pattern.match(f"0{high}") and not pattern.match(f"+{high}")


def test_every_rule_s_default_fits_the_pattern_and_the_server_takes_it() -> None:
    pattern = re.compile(RULE_PATTERN)
    parse = HouseRuleFilter()
    for key, rules in rules_by_key().items():
        for rule in rules:
            text = f"{key}={json.dumps(rule.default, separators=(',', ':'))}"
            if len(text) > 400:
                continue  # longer than a filter may be: the pattern need not say it
            assert pattern.match(text), text
            assert parse.deserialize(text) == (key, rule.default)


@pytest.mark.parametrize(
    "text",
    [
        "cb.weather.nightGap=prev",  # not one of the choices
        "qc.traits.max=true",  # a number's rule given a boolean
        "no.such.rule=1",  # no game has it
        "cb.supply.mayDecline=yes",  # a boolean's rule given a word
    ],
)
def test_what_the_pattern_refuses_the_server_refuses(text: str) -> None:
    assert not re.match(RULE_PATTERN, text)
    with pytest.raises(ValidationError):
        HouseRuleFilter().deserialize(text)
