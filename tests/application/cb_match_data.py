"""The set-ups of the two Calendar Board matches played through the API in test_cb_matches.py.

Everything here is what the players would read off the table at the start of a match: seating
order, pieces with their spaces, facings and adaptability, weapons with ammunition, the luck and
intelligence modifiers, the token holder, the options and the creatures in play.
"""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]


def pathway(space: int) -> Json:
    """A location on a pathway space."""
    return {"kind": "pathway", "space": space}


HOME: Json = {"kind": "home"}


def weapon(
    wid: str, kind: str, ammo: int, ammo_max: int, regen: int, *, looted: bool = False
) -> Json:
    """A weapon that uses ammunition."""
    return {
        "id": wid,
        "kind": kind,
        "uses_ammo": True,
        "ammo": ammo,
        "ammo_max": ammo_max,
        "ammo_regen": regen,
        "looted": looted,
    }


SWORD: Json = {"id": "sword", "kind": "melee"}

# -- match 1: three players on a short board -------------------------------------------------

# G-CB-09 as a house rule: a seven-space board, so a lap ends on the third night.
SHORT_LAYOUT = ["start", "normal", "supply", "fog", "hail", "rain", "end"]
SHORT_END = len(SHORT_LAYOUT) - 1

THREE_HOUSE_RULES: Json = {"cb.calendar.layout": SHORT_LAYOUT}

THREE_PLAYERS: Json = {
    "players": [
        {
            "id": "A",
            "luck_mod": 0,
            "int_mod": 2,
            "pieces": [
                {"id": "a1", "location": pathway(3), "facing": "E", "adaptability": 1},
                {"id": "a2", "location": HOME, "facing": "N"},
            ],
            # two eligible weapons (CB-15), one looted (CB-16) and a melee weapon (CB-14)
            "weapons": [
                weapon("bow", "ranged", 1, 6, 2),
                weapon("crossbow", "hybrid", 0, 4, 3),
                weapon("pistol", "ranged", 0, 5, 5, looted=True),
                SWORD,
            ],
        },
        {
            "id": "B",
            "exhaustion": 3,
            "pieces": [
                {"id": "b1", "location": pathway(5), "facing": "S"},
                {"id": "b2", "location": HOME},
            ],
            "weapons": [weapon("sling", "ranged", 2, 3, 2)],
        },
        {
            "id": "C",
            "int_mod": 1,
            "pieces": [
                {"id": "c1", "location": pathway(8), "facing": "W", "adaptability": -1},
                {"id": "c2", "location": HOME},
            ],
        },
    ],
    "starting_token": "A",
    "creatures": [{"id": "zed", "type": "Zombie"}],
    "annustar": 2,
    "options": {"ceasefire_rule": True, "event_rules": False},
}

# -- match 2: four players on the default board ----------------------------------------------

FOUR_HOUSE_RULES: Json = {"cb.basketball.threshold": 30}

BLIZZARD: Json = {"id": "blizzard-week", "special_weather": "snow"}

FOUR_PLAYERS: Json = {
    "players": [
        {
            "id": "A",
            "luck_mod": -1,
            "pieces": [
                {"id": "a1", "location": pathway(2), "facing": "N", "adaptability": 2},
                {"id": "a2", "location": pathway(6), "facing": "E"},
                {"id": "a3", "location": HOME},
            ],
            "weapons": [
                weapon("rifle", "ranged", 0, 8, 4),
                weapon("shotgun", "hybrid", 1, 2, 2),
                {"id": "knife", "kind": "melee"},
            ],
        },
        {
            "id": "B",
            "int_mod": 3,
            "pieces": [
                {"id": "b1", "location": pathway(0), "facing": "N"},
                {"id": "b2", "location": HOME, "facing": "S"},
            ],
        },
        {
            "id": "C",
            "luck_mod": -1,
            "partner": "catboyBoyfriend",
            "relationship": 2,
            "pieces": [{"id": "c1", "location": pathway(9), "facing": "W"}],
            "weapons": [weapon("old-bow", "ranged", 0, 4, 2, looted=True)],
        },
        {
            "id": "D",
            "exhaustion": 4,
            "pieces": [
                {"id": "d1", "location": pathway(11), "facing": "S"},
                {"id": "d2", "location": pathway(15)},
                {"id": "d3", "location": HOME},
            ],
            "weapons": [weapon("javelin", "hybrid", 1, 3, 1)],
        },
    ],
    "starting_token": "B",
    "creatures": [
        {"id": "z1", "type": "Zombie"},
        {"id": "o1", "type": "Ophanim"},
        {"id": "z2", "type": "Zombie"},
        {"id": "bat", "type": "Bat", "night_active": False},
    ],
    "options": {"ceasefire_rule": False, "event_rules": True, "active_event": BLIZZARD},
}
