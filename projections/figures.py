"""The figures the views track, read from the facts game events record.

Every game event records the tracked figures of its game that it changed (its ``figures``: names
and values after the event, docs/events.md "Figures"). A view keeps the figures it needs per
campaign in a memory keyed by where the game state holds each one, the keys views built by
earlier releases remember them by, so a view store carries on across an upgrade unchanged. It
starts that memory from a whole state an event records (a campaign's first state, a rollback's
restored state) and applies each game event's figures to it.

Events stored before events recorded their figures have none. For those alone,
``followed_from_patch`` follows the event's JSON Patch at those places, as views did before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from domain.facade import QC_FIGURES, party_figures
from domain.facade import resolve_pointer as resolve
from projections.events import Recorded
from projections.view import follow

QC_PLACES = QC_FIGURES.locate({})
"""Every Quest Calendar figure by name, and where the state holds it (the memory's key)."""


def qc_places(*names: str) -> dict[str, str]:
    """The memory keys of these Quest Calendar figures, in this order."""
    return {name: QC_PLACES[name] for name in names}


def cb_places(players: Iterable[str]) -> dict[str, str]:
    """The memory keys of the exhaustion figures of these players' parties."""
    return party_figures(players)


def remember(game_state: Any, places: Mapping[str, str]) -> dict[str, Any]:
    """A memory of these figures as a whole recorded state holds them."""
    return {at: resolve(game_state, at) for at in places.values()}


def apply_figures(event: Recorded, memory: dict[str, Any], places: Mapping[str, str]) -> list[str]:
    """Bring the memory up to date with the figures an event changed; returns their names.

    The event's recorded figures; for an event of an older store, which records none, its patch.
    """
    recorded = event.data.get("figures")
    if not isinstance(recorded, dict):
        return followed_from_patch(event, memory, places)
    changed = []
    for name, at in places.items():
        if name in recorded and memory.get(at) != recorded[name]:
            memory[at] = recorded[name]
            changed.append(name)
    return changed


def followed_from_patch(
    event: Recorded, memory: dict[str, Any], places: Mapping[str, str]
) -> list[str]:
    """The figures an event stored before events recorded them changed, followed from its patch.

    Only for such events: the places are the game state's, which a view otherwise never reads.
    """
    if not event.effects:
        return []
    names = {at: name for name, at in places.items()}
    return [names[at] for at in follow(memory, event.effects, list(places.values()))]
