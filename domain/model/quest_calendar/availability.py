"""The guards Quest Calendar's commands share, for each command's availability (QC-xx).

A command declares whether a state accepts it beside its handler
(``@rules.command(available=...)``), mostly from these guards in its handler's order: a hero
(QC-02), an open page (QC-17), no fight in progress (QC-20 / QC-69). A predicate answers for a
valid body the page could send: None when some such body is not refused by a rule of the state,
else the rule (and why) that refuses every one. The handlers stay the authority;
``tests/unit/quest_calendar/test_availability.py`` runs the commands at every state of a scripted
campaign to hold the two together. A pending decision is answered before any of these
(``GameRules.available``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.model.rules_engine import Availability, Refusal

State = Mapping[str, Any]
Guard = Callable[[State], Refusal | None]
"""One of a handler's guards as a check of the state: None, or the rule that refuses."""
NO_HERO: Refusal = ("QC-02", "no hero has been selected yet")
NO_PAGE: Refusal = ("QC-17", "no calendar page is open; start a page first")


def hero_and_page(state: State) -> Refusal | None:
    """The guard nearly every command starts with: a hero (QC-02), then an open page (QC-17)."""
    if state.get("hero") is None:
        return NO_HERO
    if state.get("page") is None:
        return NO_PAGE
    return None


def page_then_hero(state: State) -> Refusal | None:
    """The guard of Rest and level-up: the page first (QC-17), then the hero (QC-02)."""
    if state.get("page") is None:
        return NO_PAGE
    return NO_HERO if state.get("hero") is None else None


def in_progress(page: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """The page's combat or dogfight while it is in progress."""
    found = page.get(kind)
    if isinstance(found, Mapping) and found.get("status") == "in_progress":
        return found
    return None


def needs(*checks: Guard) -> Availability:
    """A predicate that applies ``checks`` in order (the handler's order) after hero and page."""

    def predicate(state: State, house: Mapping[str, Any]) -> Refusal | None:
        refusal = hero_and_page(state)
        for check in checks:
            if refusal is not None:
                return refusal
            refusal = check(state)
        return refusal

    return predicate


def answers(rule: str, decision: str, *checks: Guard) -> Availability:
    """A command that only answers a decision: refused while none is pending, after ``checks``
    (the handler's guards that come before it looks for its decision)."""

    def predicate(state: State, house: Mapping[str, Any]) -> Refusal | None:
        refusal = needs(*checks)(state, house) if checks else None
        return refusal or (rule, f"no {decision} decision is pending")

    return predicate


def no_fight(state: State) -> Refusal | None:
    """QC-20 / QC-69: one fight at a time on a page."""
    page = state["page"]
    if in_progress(page, "combat"):
        return ("QC-20", "a combat is in progress on this page; finish it first")
    if in_progress(page, "dogfight"):
        return ("QC-69", "a dogfight is in progress on this page; finish it first")
    return None


def no_fight_before_dogfight(state: State) -> Refusal | None:
    """QC-69: a dogfight waits for any fight on the page to end."""
    refusal = no_fight(state)
    return None if refusal is None else ("QC-69", refusal[1])
