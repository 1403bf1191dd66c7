"""Which Calendar Board commands a state accepts, from each handler's guards (CB-xx, G-CB-xx).

A predicate answers for a valid body the page could send, the acting player being the one whose
turn it is (by day) or the one a pending decision waits for: None when such a body is not refused
by a rule of the state, else the rule (and why) that refuses it. A pending decision is answered
before any of these (``GameRules.available``); at night one is always pending, since the night
steps run until one waits for a player. ``tests/unit/calendar_board/test_availability.py`` runs
the commands at every state of a scripted match to hold the predicates to the handlers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.calendar_board import fate
from domain.model.calendar_board.house_rules import MOVEMENT_ROLLS
from domain.model.calendar_board.steps import ROLL_KINDS
from domain.model.rules_engine import Availability, Refusal

State = Mapping[str, Any]
NIGHT: Refusal = ("CB-01", "the night phase is running: no player has a turn")


def _turn_party(state: State) -> Mapping[str, Any]:
    """The party of the player whose turn it is."""
    party: Mapping[str, Any] = state["parties"][state["turn"]["player"]]
    return party


def can_end_turn(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-01: by day the player whose turn it is may end it."""
    return NIGHT if state.get("night") is not None else None


def can_start_acting(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-40: the turn's first action, once."""
    if state.get("night") is not None:
        return NIGHT
    if state["turn"].get("started"):
        return ("CB-40", f"{state['turn']['player']}'s turn has already started")
    return None


def can_day_sleep(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-40 / CB-41: at the very start of the turn, with exhaustion to sleep off."""
    if state.get("night") is not None:
        return ("CB-40", NIGHT[1])
    if state["turn"].get("started"):
        return ("CB-40", "day sleep is only possible at the very start of the turn")
    if _turn_party(state)["exhaustion"] < 1:
        return ("CB-40", f"{state['turn']['player']}'s party is not exhausted (exhaustion 0)")
    return None


def can_roll_movement(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-01 by day, CB-36 a piece that is not eliminated."""
    if state.get("night") is not None:
        return NIGHT
    pieces = _turn_party(state)["pieces"].values()
    if all(piece["location"]["kind"] == "eliminated" for piece in pieces):
        return ("CB-36", f"every piece of {state['turn']['player']} is eliminated")
    limit = house.get(MOVEMENT_ROLLS)
    movement = state["turn"].get("movement") or {"rolls": 0, "bonus": []}
    if limit is not None and movement["rolls"] >= limit and not movement["bonus"]:
        player = state["turn"]["player"]
        return ("G-CB-01", f"{player} has made this turn's movement rolls ({limit})")
    return None


def can_declare_action(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-27: Fog forbids both the sight spells and fortifying."""
    if state["weather"]["current"] == "fog":
        return ("CB-27", "fog: no sight spell or fortifying while Fog is in effect")
    return None


def can_fate_reroll(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-10: a reroll of some kind of roll the house rules allow; G-CB-01: by a player with a
    fate reroll left (by day; at night only when a decision offers one)."""
    if set(ROLL_KINDS) <= set(house.get("cb.fateReroll.forbidden", ())):
        return ("CB-10", "the house rules forbid a fate reroll on every kind of roll")
    player = state["turn"]["player"]
    return None if player is None else fate.none_left(state, house, player)


def answers(rule: str, decision: str) -> Availability:
    """A command that only answers a decision: refused under its rule while none is pending."""

    def predicate(state: State, house: Mapping[str, Any]) -> Refusal | None:
        return (rule, f"no {decision} decision is pending")

    return predicate


AVAILABILITY: dict[str, Availability] = {
    "end_turn": can_end_turn,
    "start_acting": can_start_acting,
    "day_sleep": can_day_sleep,
    "roll_movement": can_roll_movement,
    "declare_action": can_declare_action,
    "fate_reroll": can_fate_reroll,
    "night_action": answers("CB-33", "night_action"),
    "choose_ambush": answers("CB-35", "ambush_target"),
    "choose_supply_weapon": answers("CB-15", "supply_weapon"),
    "decline_fate_reroll": answers("G-CB-12", "fate_reroll"),
    "order_creatures": answers("CB-04", "creature_order"),
    "assign_hail_damage": answers("CB-28", "hail_damage"),
    "roll_night": answers("CB-09", "night_roll"),
}
"""Each command's predicate (``raise_annustar`` is always accepted: it has none)."""
