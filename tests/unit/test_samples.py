"""The sample scenario data (``domain.model.samples``) is what the rules accept, and the engine's
availability answers a pending decision first.

Every sample hero is a ``select_hero`` body a new campaign takes (QC-02, QC-04, QC-05); every
sample set-up starts a match under its house rules (at least two players, unique ids: the
``Setup`` schema; CB-01 the first player's turn).
"""

from __future__ import annotations

import pytest

import domain.model.calendar_board
import domain.model.quest_calendar  # noqa: F401  (registers the games)
from domain.model import samples
from domain.model.dice.draw import ScriptedDice
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD, QUEST_CALENDAR, book
from domain.model.quest_calendar import pages


@pytest.mark.parametrize("sample", samples.samples()["heroes"], ids=lambda h: h["name"])
def test_every_sample_hero_is_accepted_by_select_hero(sample: dict[str, object]) -> None:
    """A new campaign's select_hero takes the body as it is served."""
    rules = RULES[QUEST_CALENDAR]
    house = book(QUEST_CALENDAR).resolve({})
    state = rules.initial_state({"prologue_complete": False}, house)
    hero = sample["hero"]
    assert isinstance(hero, dict)
    events = rules.run(state, house, {"type": "select_hero", **hero}, ScriptedDice([]))
    assert [e.event_type for e in events] == ["HeroSelected"]
    assert events[0].details["hero_id"] == hero["hero"]["id"]


@pytest.mark.parametrize("sample", samples.SETUPS, ids=lambda s: s["name"])
def test_every_sample_setup_starts_a_match(sample: dict[str, object]) -> None:
    """CB-01: the match starts with the starting player's turn, by day."""
    rules = RULES[CALENDAR_BOARD]
    setup, house_rules = sample["setup"], sample["house_rules"]
    assert isinstance(setup, dict) and isinstance(house_rules, dict)
    house = book(CALENDAR_BOARD).resolve(house_rules)
    state = rules.initial_state(setup, house)
    players = [p["id"] for p in setup["players"]]
    assert state["players"] == players
    assert state["turn"]["player"] == setup.get("starting_token", players[0])
    assert rules.available("end_turn", state, house) is None


def test_the_select_hero_example_is_a_sample() -> None:
    """The command's example and the samples are one definition."""
    assert pages.HERO_EXAMPLE is samples.VANGUARD
    example = RULES[QUEST_CALENDAR].commands["select_hero"].example
    assert example["hero"] == samples.VANGUARD


def test_the_samples_served_are_copies() -> None:
    """A caller changing what it got changes no sample."""
    served = samples.samples()
    served["heroes"][0]["hero"]["hero"]["name"] = "changed"
    assert samples.VANGUARD["name"] == "The Vanguard"


def test_a_pending_decision_decides_availability_first() -> None:
    """QC-39: while a pickpocket 4 waits, only its answer is available, under its rule."""
    rules = RULES[QUEST_CALENDAR]
    house = book(QUEST_CALENDAR).resolve({})
    state = rules.initial_state({"prologue_complete": False}, house)
    state["pending"] = {
        "decision": "pickpocket_four",
        "who": "player",
        "rule": "QC-39",
        "commands": ["decide_pickpocket"],
        "options": ["accept", "refuse"],
    }
    assert rules.available("decide_pickpocket", state, house) is None
    refusal = rules.available("trait_check", state, house)
    assert refusal is not None and refusal[0] == "QC-39"
    state["pending"] = None
    assert rules.available("decide_pickpocket", state, house) == (
        "QC-39",
        "no pickpocket_four decision is pending",
    )
    assert rules.available("trait_check", state, house) == (
        "QC-02",
        "no hero has been selected yet",
    )
