"""The hero, rounds and crew of the Quest Calendar week played in test_qc_week.py (its items and
shop are the shared samples, ``domain.model.samples``).

Everything here is what the hero book and the printed pages would give the player: the service
takes the numbers as input (QC-02, QC-04, QC-05, G-QC-01).
"""

from __future__ import annotations

from typing import Any

from domain.model import samples

Json = dict[str, Any]

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
SHOP: Json = samples.DOCK_MARKET
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
