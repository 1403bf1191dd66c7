"""Calendar Board: the commands ``GET /actions`` offers are the ones the handlers accept.

Seeded walks through matches of the sample set-ups (``domain.model.samples``: players, pieces and
weapons) on the default and the demo's boards: at every state each command is tried with the
bodies the state allows, for the player whose turn it is or whom a decision waits for
(``tests/unit/availability_walk.py``). Rules held: CB-01 (turns by day, none at night), CB-40 /
CB-41 (day sleep at the very start of a turn, with exhaustion), CB-36 (eliminated pieces), CB-27
(Fog), CB-10 (fate rerolls the house rules allow), G-CB-01 (a player with none left), and each
night decision (CB-04, CB-15, CB-28, CB-33, CB-35, G-CB-12) only while it is pending.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest

import domain.model.calendar_board  # noqa: F401  (registers the game)
from domain.model import samples
from domain.model.calendar_board.fate import REROLLABLE
from domain.model.calendar_board.state import PARTNERS
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD, book
from tests.unit.availability_walk import Json, Walk

RULES_CB = RULES[CALENDAR_BOARD]


def actor(state: Json) -> str:
    """The player who acts now: whom a decision waits for, else whose turn it is."""
    pending = state.get("pending") or {}
    player = pending.get("who") or state["turn"]["player"]
    return str(player or state["players"][0])


def options(state: Json, decision: str) -> list[Any]:
    """The options of the pending decision if it is ``decision``."""
    pending = state.get("pending") or {}
    found = pending.get("options")
    return list(found) if pending.get("decision") == decision and found else []


def pieces(state: Json, player: str) -> list[str]:
    """The ids of a player's pieces."""
    return sorted(state["parties"][player]["pieces"])


def ambushes(state: Json) -> list[Json]:
    """Each ambush the pending decision offers, as a body."""
    bodies = []
    for option in options(state, "ambush_target"):
        if isinstance(option, dict):
            body = {"piece": option["piece"], "target": option["target"], "form": "strike"}
            bodies.append({"player": actor(state), **body})
    return bodies or [{"player": actor(state), "piece": "a1", "target": "b1", "form": "strike"}]


BODIES = {
    "end_turn": lambda s, h: [{"player": actor(s)}],
    "start_acting": lambda s, h: [{"player": actor(s)}],
    "day_sleep": lambda s, h: [{"player": actor(s)}],
    "roll_movement": lambda s, h: [
        {"player": actor(s), "piece": piece} for piece in pieces(s, actor(s))
    ],
    "declare_action": lambda s, h: [
        {"player": actor(s), "action": action} for action in ("fortify", "sight_spell")
    ],
    "fate_reroll": lambda s, h: [{"player": actor(s), "roll": kind} for kind in REROLLABLE],
    "raise_annustar": lambda s, h: [{"amount": 1, "cause": "a spell"}],
    "night_action": lambda s, h: [
        {"player": actor(s), "action": "sleep"},
        {"player": actor(s), "action": "ambush"},
        *({"player": actor(s), "action": "rizz", "partner": p} for p in PARTNERS),
    ],
    "choose_ambush": lambda s, h: ambushes(s),
    "choose_supply_weapon": lambda s, h: [
        *({"player": actor(s), "weapon": w} for w in options(s, "supply_weapon")),
        {"player": actor(s), "weapon": None},
    ],
    "decline_fate_reroll": lambda s, h: [{"player": actor(s)}],
    "order_creatures": lambda s, h: [
        {"player": actor(s), "order": options(s, "creature_order") or ["zed"]}
    ],
    "roll_night": lambda s, h: [
        {"player": actor(s), "roll": kind, "faces": [1] * int(kind == "basketball") + [1]}
        for kind in ("calendar", "basketball", "hail_save", "hail_damage", "wind", "annustaria")
    ],
    "assign_hail_damage": lambda s, h: [
        {"player": actor(s), "piece": p} for p in options(s, "hail_damage") or pieces(s, actor(s))
    ],
}


def test_every_command_has_bodies() -> None:
    """The walk tries every command of the game."""
    assert set(BODIES) == set(RULES_CB.commands)


@pytest.mark.parametrize(
    ("sample", "seed", "steps"),
    [(0, 1, 120), (2, 2, 120), pytest.param(0, 3, 300, marks=pytest.mark.slow)],
)
def test_available_commands_run_and_unavailable_ones_are_refused(
    sample: int, seed: int, steps: int
) -> None:
    """At every state of the walk each command's availability agrees with its handler."""
    chosen = samples.SETUPS[sample]
    house = book(CALENDAR_BOARD).resolve(chosen["house_rules"])
    state = RULES_CB.initial_state(chosen["setup"], house)
    walk = Walk(RULES_CB, house, BODIES, seed)
    walk.run(state, steps, lambda s, runnable: None)
    assert walk.problems == []
    both = {name for name, seen in walk.seen.items() if seen == {True, False}}
    assert {"end_turn", "start_acting", "day_sleep", "night_action"} <= both


@pytest.mark.parametrize("refresh", ["match", "night"])
def test_g_cb01_counted_fate_rerolls_are_offered_and_refused_as_the_handlers_do(
    refresh: str,
) -> None:
    """The demo's hail board with A given one fate reroll and B none (C's not counted): at every
    state ``fate_reroll`` is available exactly when the handler takes it (G-CB-01, G-CB-12)."""
    chosen = samples.SETUPS[2]
    setup = deepcopy(chosen["setup"])
    setup["players"][0]["fate_rerolls"] = 1
    setup["players"][1]["fate_rerolls"] = 0
    house = book(CALENDAR_BOARD).resolve(
        {**chosen["house_rules"], "cb.fateReroll.refresh": refresh}
    )
    state = RULES_CB.initial_state(setup, house)
    walk = Walk(RULES_CB, house, BODIES, 4)
    refusals: set[str | None] = set()

    def note(state: Json, runnable: list[Json]) -> None:
        refusal = RULES_CB.available("fate_reroll", state, house)
        refusals.add(refusal and refusal[0])

    walk.run(state, 150, note)
    assert walk.problems == []
    assert {None, "G-CB-01"} <= refusals
