"""The shapes of a Quest Calendar campaign's state, as the rules read them (``state.py`` builds
them; every event's patch changes them). mypy checks each key a rule reads or writes.

The nested records a fight or a shop keeps (``Page["combat"]``, ``Page["shop"]``...) stay plain
mappings: each is read by one module, next to where it is built.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Ability(TypedDict):
    """An ability from the hero book (QC-15..QC-19)."""

    id: str
    name: str
    usage: str
    context: str
    uses: int
    used: int
    cost: int
    used_this_page: bool
    effect: dict[str, Any]
    granted_by: NotRequired[str]
    """The compartment whose crew grants it (a crew ability, QC-70)."""


class Item(TypedDict):
    """An item the hero carries (G-QC-01 content)."""

    id: str
    name: str
    kind: str
    slot: str | None
    price: int | None
    usable_between_rounds: bool | None
    compartments: list[str] | None
    effect: dict[str, Any] | None


class Pool(TypedDict):
    """The hero's surge pool (QC-19)."""

    name: str
    max: int
    spent: int


class Injury(TypedDict):
    """One injury: the stat it lowers and by how much (QC-46)."""

    stat: str
    amount: int


Hero = TypedDict(
    "Hero",
    {
        "id": str,
        "name": str,
        "level": int,
        "traits": dict[str, int],
        "hp": int,
        "hp_max": int,
        "def": int,
        "atk": int,
        "damage_dice": str,
        "damage_mod": int,
        "virtue": int,
        "credits": int,
        "rations": int,
        "conditions": list[str],
        "injuries": list[Injury],
        "abilities": dict[str, Ability],
        "pool": Pool | None,
        "inventory": list[Item],
        "equipped": dict[str, str],
        "phase": NotRequired[str],
        "pickpocketed_icons": NotRequired[list[str]],
    },
)
"""The hero (QC-02..QC-05): ``def`` is the defence stat, a Python keyword, hence this form."""


class Page(TypedDict):
    """The calendar page being played (QC-12..QC-14): its date and day flags, and what happened
    on it so far."""

    date: str
    weekday: str
    rest_day: bool
    level_up_day: bool
    prologue_end: bool
    equipment_day: bool
    lottery_played: bool
    boosters: dict[str, Any]
    shop: dict[str, Any] | None
    combat: dict[str, Any] | None
    dogfight: dict[str, Any] | None
    first_roll_made: bool
    rested: NotRequired[bool]
    levelled_up: NotRequired[bool]
    acquired_items: NotRequired[list[str]]
    acquired_slots: NotRequired[list[str]]
    checks: NotRequired[list[dict[str, Any]]]
    choices: NotRequired[dict[str, Any]]
    shops_left: NotRequired[list[str]]
    upgrade_window: NotRequired[list[str]]
    booster_dice: NotRequired[dict[str, list[Any]]]


class Compartment(TypedDict):
    """One of the ship's six compartments (QC-69, QC-73)."""

    name: str
    integrity: int
    integrity_max: int
    crew: dict[str, Any] | None
    upgrade: Item | None


class CrewMember(TypedDict):
    """A hired crew member (QC-78): the abilities they give and an optional Integrity bonus."""

    id: str
    name: str
    abilities: list[Ability]
    integrity_bonus: int | None


class Ship(TypedDict):
    """The Karnack/Fang (QC-69): Aim, EVA, SHD and its compartments by number."""

    aim: int
    eva: int
    shd: int
    compartments: dict[str, Compartment]
    unassigned_crew: NotRequired[list[CrewMember]]
    """Crew hired while no compartment could take them (QC-78)."""
