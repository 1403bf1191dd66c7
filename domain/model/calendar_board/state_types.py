"""The shapes of a Calendar Board match's state, as the rules read them (``state.py`` builds them;
every event's patch changes them). mypy checks each key a rule reads or writes.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Location(TypedDict):
    """Where a piece is: on the pathway at a space, or off it (``kind``)."""

    kind: str
    space: NotRequired[int]


class Piece(TypedDict):
    """A party member on the board: where it is, which way it faces, its adaptability."""

    id: str
    location: Location
    facing: str
    adaptability: int
    conditions: list[str]


class Weapon(TypedDict):
    """A party's weapon: its kind, ammunition, capacity, regeneration and the looted flag."""

    id: str
    kind: str
    uses_ammo: bool
    ammo: int
    ammo_max: int | None
    ammo_regen: int | None
    looted: bool


class Party(TypedDict):
    """A player's party (CB-30..CB-36): exhaustion, partner and relationship, modifiers, fate
    rerolls (G-CB-01; None: not counted), pieces and weapons by id."""

    exhaustion: int
    partner: str | None
    relationship: int | None
    reactions_locked: bool
    bonus_locked: bool
    luck_mod: int
    int_mod: int
    fate_rerolls: int | None
    fate_rerolls_given: int | None
    pieces: dict[str, Piece]
    weapons: dict[str, Weapon]


class Board(TypedDict):
    """The god piece on the calendar track and its laps (CB-13..CB-16)."""

    god_piece: int
    laps: int


class Weather(TypedDict):
    """The weather in force and the one rolled to come (CB-20..CB-29)."""

    current: str
    pending: str | None


class Wind(TypedDict):
    """The wind's speed and direction (CB-24)."""

    speed: str
    direction: Any
