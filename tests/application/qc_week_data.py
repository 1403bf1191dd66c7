"""The hero, items, shop, rounds and crew of the Quest Calendar week played in test_qc_week.py.

Everything here is what the hero book and the printed pages would give the player: the service
takes the numbers as input (QC-02, QC-04, QC-05, G-QC-01).
"""

from __future__ import annotations

from typing import Any

from domain.model import samples

Json = dict[str, Any]

PLASMA_BLADE: Json = {
    "id": "plasma-blade",
    "name": "Plasma Blade",
    "kind": "equipment",
    "slot": "weapon",
}
VISOR: Json = {"id": "visor", "name": "Void Visor", "kind": "equipment", "slot": "helmet"}
FLAK_VEST: Json = {"id": "flak-vest", "name": "Flak Vest", "kind": "equipment", "slot": "armor"}
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
RATION: Json = {
    "id": "ration",
    "name": "Meal Ration",
    "kind": "other",
    "effect": {"kind": "ration"},
}

HERO: Json = samples.variant(
    samples.VANGUARD,
    abilities=[*samples.VANGUARD["abilities"], samples.POWER_STRIKE, samples.KEEN_MIND],
    inventory=[*samples.VANGUARD["inventory"], samples.REPAIR_KIT],
    equipped=None,
)
"""The sample Vanguard with two more abilities and a repair kit, wearing nothing at the start."""

MONDAY_ROUNDS: list[Json] = [
    {
        "enemy": "Void hound",
        "hit_target": 14,
        "damage_needed": 7,
        "enemy_attack": 13,
        "damage_reduced": 3,
        "damage_full": 6,
    },
    {
        "enemy": "Scrap drone",
        "hit_target": 13,
        "damage_needed": 6,
        "enemy_attack": 12,
        "damage_reduced": 4,
        "damage_full": 7,
    },
]
WEDNESDAY_ROUNDS: list[Json] = [
    {
        "enemy": "Dock thug",
        "hit_target": 13,
        "damage_needed": 7,
        "enemy_attack": 11,
        "damage_reduced": 2,
        "damage_full": 5,
    },
    {
        "enemy": "Void titan",
        "hit_target": 14,
        "damage_needed": 9,
        "enemy_attack": 14,
        "damage_reduced": 10,
        "damage_full": 20,
        "condition": {"name": "frightened", "target": 12},
    },
]
THURSDAY_ROUNDS: list[Json] = [
    {
        "enemy": "Warden",
        "hit_target": 15,
        "damage_needed": 6,
        "enemy_attack": 11,
        "damage_reduced": 2,
        "damage_full": 5,
    },
    {
        "enemy": "Warden",
        "hit_target": 16,
        "damage_needed": 8,
        "enemy_attack": 13,
        "damage_reduced": 4,
        "damage_full": 12,
    },
]
SHOP: Json = {
    "type": "enter_shop",
    "shop_id": "dock-market",
    "stock": [
        {"item": MED_KIT, "price": 4},
        {"item": VISOR, "price": 6},
        {"item": RATION, "price": 2},
    ],
}
VEX: Json = {
    "id": "vex",
    "name": "Vex the Mechanic",
    "abilities": [{"id": "patch-up", "usage": "per_page", "context": "dogfight"}],
}
DOGFIGHT_ROUNDS: list[Json] = [
    {"evasion_target": 60, "enemy_aim": 45, "damage_reduced": 2, "damage_max": 4},
    {"evasion_target": 80, "enemy_aim": 50, "damage_reduced": 3, "damage_max": 6},
    {"evasion_target": 80, "enemy_aim": 50, "damage_reduced": 3, "damage_max": 10},
]
