"""The guards the Calendar Board's availability predicates share (CB-01 and the night decisions).

Each command declares whether a state accepts it beside its handler
(``@rules.command(available=...)``), from the handler's guards (CB-xx, G-CB-xx). A predicate
answers for a valid body the page could send, the acting player being the one whose turn it is
(by day) or the one a pending decision waits for: None when such a body is not refused by a rule
of the state, else the rule (and why) that refuses it. A pending decision is answered before any
of these (``GameRules.available``); at night one is always pending, since the night steps run
until one waits for a player. ``tests/unit/calendar_board/test_availability.py`` runs the
commands at every state of a scripted match to hold the predicates to the handlers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.rules_engine import Availability, Refusal

State = Mapping[str, Any]
NIGHT: Refusal = ("CB-01", "the night phase is running: no player has a turn")


def turn_party(state: State) -> Mapping[str, Any]:
    """The party of the player whose turn it is."""
    party: Mapping[str, Any] = state["parties"][state["turn"]["player"]]
    return party


def answers(rule: str, decision: str) -> Availability:
    """A command that only answers a decision: refused under its rule while none is pending."""

    def predicate(state: State, house: Mapping[str, Any]) -> Refusal | None:
        return (rule, f"no {decision} decision is pending")

    return predicate
