"""Scenario data in one place: sample heroes (``select_hero`` bodies) and sample match set-ups.

The heroes' numbers are what a hero book would give a player (the rulebook prints none, so
``select_hero`` takes them as input: QC-02, QC-04, QC-05); the set-ups are what a table reads off
the board at the start of a match (players in seating order, pieces, weapons). The page offers
them as starting points (``GET /samples``), the domain's command example and the demo use them,
and a test runs each one through the rules. Plain data: this module imports nothing of the games.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

Json = dict[str, Any]

MED_KIT: Json = {
    "id": "med-kit",
    "name": "Med Kit",
    "kind": "consumable",
    "effect": {"kind": "heal", "amount": 5},
}
REPAIR_KIT: Json = {
    "id": "repair-kit",
    "name": "Repair Kit",
    "kind": "consumable",
    "effect": {"kind": "cure", "condition": "malfunction"},
}
VISOR: Json = {"id": "visor", "name": "Void Visor", "kind": "equipment", "slot": "helmet"}
RATION: Json = {
    "id": "ration",
    "name": "Meal Ration",
    "kind": "other",
    "effect": {"kind": "ration"},
}
PLASMA_BLADE: Json = {
    "id": "plasma-blade",
    "name": "Plasma Blade",
    "kind": "equipment",
    "slot": "weapon",
}
FLAK_VEST: Json = {"id": "flak-vest", "name": "Flak Vest", "kind": "equipment", "slot": "armor"}

SMITE: Json = {
    "id": "smite",
    "name": "Smite",
    "usage": "per_page",
    "context": "combat",
    "effect": {"kind": "damage_bonus", "dice": "1d4"},
}
SECOND_WIND: Json = {
    "id": "second-wind",
    "name": "Second Wind",
    "usage": "per_rest",
    "uses": 1,
    "context": "both",
    "effect": {"kind": "heal", "dice": "1d6"},
}
POWER_STRIKE: Json = {
    "id": "power-strike",
    "name": "Power Strike",
    "usage": "surge",
    "cost": 1,
    "context": "combat",
    "effect": {"kind": "attack_bonus", "amount": 2},
}
KEEN_MIND: Json = {
    "id": "keen-mind",
    "name": "Keen Mind",
    "usage": "per_page",
    "context": "outside",
    "effect": {"kind": "check_bonus", "amount": 3},
}

BARE_VANGUARD: Json = {
    "id": "vanguard",
    "name": "The Vanguard",
    "level": 1,
    "traits": {"STR": 2, "DEX": 1, "CON": 1, "INT": 2, "WIS": 0, "CHA": -1},
    "hp_max": 20,
    "def": 12,
    "atk": 3,
    "damage_dice": "1d8",
    "damage_mod": 1,
    "credits": 3,
    "rations": 0,
}
"""The Vanguard's numbers alone: no abilities, pool or gear."""

VANGUARD: Json = {
    **BARE_VANGUARD,
    "abilities": [SMITE, SECOND_WIND],
    "pool": {"name": "surges", "max": 2},
    "inventory": [PLASMA_BLADE, VISOR, FLAK_VEST, MED_KIT],
    "equipped": ["plasma-blade", "flak-vest"],  # the visor rides in the pack, to sell
}
"""The hero of the demo's week and of the application tests' week, wearing its gear."""


def variant(hero: Json, **changes: Any) -> Json:
    """A copy of a sample hero with some fields changed (``None`` leaves a field out): how a test
    or the bench says how its hero differs from a sample instead of copying it."""
    changed = deepcopy(hero)
    for key, value in changes.items():
        if value is None:
            changed.pop(key, None)
        else:
            changed[key] = deepcopy(value)
    return changed


SCOUT: Json = {
    "id": "scout",
    "name": "The Scout",
    "level": 1,
    "traits": {"STR": 1, "DEX": 2, "CON": 0, "INT": 2, "WIS": 1, "CHA": 0},
    "hp_max": 16,
    "def": 11,
    "atk": 2,
    "damage_dice": "1d6",
    "damage_mod": 0,
    "credits": 5,
    "rations": 1,
    "abilities": [KEEN_MIND],
    "inventory": [REPAIR_KIT],
}
"""A hero with no surge pool (the pool is optional) and an ability outside combat."""

HEROES: list[Json] = [
    {"name": "The Vanguard", "phase": "prologue", "hero": VANGUARD},
    {"name": "The Scout", "phase": "prologue", "hero": SCOUT},
]
"""Each sample hero as a ``select_hero`` body without ``type`` (prologue: a new campaign's)."""


def pathway(space: int) -> Json:
    """A location on a pathway space."""
    return {"kind": "pathway", "space": space}


def weapon(wid: str, kind: str, ammo: int, ammo_max: int, regen: int) -> Json:
    """A weapon that uses ammunition."""
    return {
        "id": wid,
        "kind": kind,
        "uses_ammo": True,
        "ammo": ammo,
        "ammo_max": ammo_max,
        "ammo_regen": regen,
    }


THREE_PLAYERS: Json = {
    "players": [
        {
            "id": "A",
            "int_mod": 2,
            "pieces": [
                {"id": "a1", "location": pathway(3), "facing": "E", "adaptability": 1},
                {"id": "a2", "location": {"kind": "home"}, "facing": "N"},
            ],
            "weapons": [weapon("bow", "ranged", 1, 6, 2), weapon("crossbow", "hybrid", 0, 4, 3)],
        },
        {
            "id": "B",
            "exhaustion": 1,
            "pieces": [
                {"id": "b1", "location": pathway(5), "facing": "S"},
                {"id": "b2", "location": {"kind": "home"}},
            ],
            "weapons": [weapon("sling", "ranged", 2, 3, 2)],
        },
        {
            "id": "C",
            "int_mod": 1,
            "pieces": [
                {"id": "c1", "location": pathway(8), "facing": "W", "adaptability": -1},
                {"id": "c2", "location": {"kind": "home"}},
            ],
        },
    ],
    "starting_token": "A",
    "creatures": [{"id": "zed", "type": "Zombie"}],
    "annustar": 2,
    "options": {"ceasefire_rule": True, "event_rules": False},
}
"""The demo's three players (A, B, C), each with pieces on the pathway and at home."""

TWO_PLAYERS: Json = {
    "players": [
        {
            "id": "A",
            "pieces": [
                {"id": "a1", "location": pathway(1)},
                {"id": "a2", "location": {"kind": "home"}},
            ],
            "weapons": [weapon("bow", "ranged", 2, 6, 2), {"id": "sword", "kind": "melee"}],
        },
        {
            "id": "B",
            "pieces": [
                {"id": "b1", "location": pathway(2)},
                {"id": "b2", "location": {"kind": "home"}},
            ],
            "weapons": [weapon("sling", "ranged", 2, 3, 2)],
        },
    ],
}
"""The smallest match: two players, two pieces each."""

DOCK_MARKET: Json = {
    "type": "enter_shop",
    "shop_id": "dock-market",
    "stock": [
        {"item": MED_KIT, "price": 4},
        {"item": VISOR, "price": 6},
        {"item": RATION, "price": 2},
    ],
}
"""A shop's stock as a page prints it (an ``enter_shop`` command): a med kit, a visor, a ration."""

DEMO_LAYOUT = ["start", "supply", "hail", "hail", "hail", "hail", "hail", "hail", "hail", "end"]
"""The demo's board (cb.calendar.layout): a supply space right after Start, then hail."""

ONE_SCREEN: Json = {
    "cb.night.rolls": "automatic",
    "cb.movement.rollsPerTurn": None,
    "cb.movement.movesPiece": False,
    "cb.fateReroll.offer": "useful",
}
"""Calendar Board house rules for a table at one screen, as every match was played before these
rules existed: the command that reaches a night roll makes it, movement rolls are not counted and
move nothing, and a fate reroll is offered only where another face could change the outcome. The
tests that script a whole night in one command play by them."""

SETUPS: list[Json] = [
    {"name": "Three players on the default board", "setup": THREE_PLAYERS, "house_rules": {}},
    {"name": "Two players on the default board", "setup": TWO_PLAYERS, "house_rules": {}},
    {
        "name": "Three players on the demo's short board",
        "setup": THREE_PLAYERS,
        "house_rules": {"cb.calendar.layout": DEMO_LAYOUT},
    },
]
"""Sample match set-ups with the house rules they are meant for ({}: the defaults)."""


def samples() -> Json:
    """Every sample, as ``GET /samples`` answers: copies, so a caller cannot change the data."""
    return {
        "heroes": [
            {"name": h["name"], "hero": {"phase": h["phase"], "hero": h["hero"]}}
            for h in deepcopy(HEROES)
        ],
        "setups": deepcopy(SETUPS),
    }
