"""Pure combat rules: hits, enough damage, a round's verdict and the damage the hero takes.

Values in, decision out: no dice and no Context. ``combat.py`` rolls and records; these functions
decide (QC-21, QC-22, QC-36, QC-40, G-QC-05, G-QC-06, G-QC-09, G-QC-10), read the page's rounds and
the player's ability lists, and keep a round's record (its attempts, their totals, the options).

A round's record (``work``) holds its number, its condition check, the abilities used and its
attempts: the first attack and, with QC-40, an "extra" one. Each attempt has an ``attack`` (d20
faces, kept d20, ATK, ability bonus, total, hit) and a ``damage`` (``takes``: one list of damage
rolls, or two when Confused; the lower take counts; then ability bonus and flat modifiers), and
``seen``: hit and damage as first rolled, for standard mode without re-evaluation (G-QC-08).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from domain.model.dice.notation import parse

MODES = ("standard", "easy", "hard")
KINDS = ("several_enemies", "one_enemy")
CONDITION_TRAITS = {"frightened": "WIS", "restrained": "DEX", "weakened": "STR", "confused": "INT"}

# Which ability effects can change a combat round, and at which hard-mode decision (QC-30).
COMBAT_KINDS = ("attack_bonus", "damage_bonus", "double_damage", "extra_attack", "reroll")
KINDS_AT = {
    None: COMBAT_KINDS,
    "attack": ("attack_bonus", "reroll"),
    "damage": ("damage_bonus", "double_damage", "extra_attack", "reroll"),
}


def hits(total: int, target: int, rule: str) -> bool:
    """G-QC-05: an attack total against the round's hit target (house ``qc.combat.hitIf``)."""
    return total > target if rule == "total>target" else total >= target


def is_enough(damage: int, needed: int, rule: str) -> bool:
    """G-QC-05: damage against the round's damage needed (house ``qc.combat.enoughIf``)."""
    return damage > needed if rule == "damage>needed" else damage >= needed


def floored(total: int, floor: int | None) -> int:
    """G-QC-10: a damage total never below the house floor (None: no floor)."""
    return total if floor is None else max(floor, total)


def round_verdict(
    attempts: Sequence[tuple[bool, int]], needed: int, *, enough_rule: str, kind: str
) -> dict[str, Any]:
    """QC-21, QC-22, QC-40: won when some attack hits and the hitting attacks' damage is enough.

    ``attempts`` holds (hit, damage) for the first attack and any extra attack; the damage of an
    attack that missed never counts.
    """
    dealt = sum(damage for hit, damage in attempts if hit)
    hit = any(hit for hit, _ in attempts)
    won = hit and is_enough(dealt, needed, enough_rule)
    outcome = "unharmed"
    if won:
        outcome = "killed" if kind == "several_enemies" else "stunned"
    return {"hit": hit, "damage_dealt": dealt, "won": won, "enemy_outcome": outcome}


def damage_taken(
    defense: int,
    spec: Mapping[str, Any],
    *,
    weakened: bool,
    house: Mapping[str, Any],
) -> dict[str, Any]:
    """QC-21 / G-QC-06 and QC-36 / G-QC-09: what a lost round costs the hero.

    Two tiers: DEF above the enemy's attack takes the reduced damage, below it the full damage, and
    a tie follows ``qc.combat.defenseTie``. Subtract: the full damage less DEF, never below 0.
    Weakened doubles the damage after Defense, or before it when ``weakenedAfterDefense`` is off
    (the same in the two-tier model, where Defense picks a printed value).
    """
    factor = 2 if weakened else 1
    full = spec["damage_full"]
    if house["qc.combat.defenseModel"] == "subtract":
        tier = "subtract"
        incoming = full
        if house["qc.conditions.weakenedAfterDefense"]:
            taken = max(0, full - defense) * factor
        else:
            taken = max(0, full * factor - defense)
    else:
        tie_reduces = house["qc.combat.defenseTie"] == "reduced"
        beaten = defense > spec["enemy_attack"] or (defense == spec["enemy_attack"] and tie_reduces)
        tier = "reduced" if beaten else "full"
        incoming = spec["damage_reduced"] if beaten else full
        taken = incoming * factor
    return {"incoming": incoming, "defense_tier": tier, "weakened": weakened, "damage_taken": taken}


def uses_left(ability: Mapping[str, Any], pool: Mapping[str, Any] | None) -> int | None:
    """How many more times an ability can be used now; None means without limit (QC-16..QC-19)."""
    usage = ability["usage"]
    if usage == "per_rest":
        return max(0, int(ability["uses"]) - int(ability["used"]))
    if usage == "per_page":
        return 0 if ability["used_this_page"] else 1
    if usage == "surge" and ability["cost"] > 0:
        if pool is None:
            return 0
        return max(0, int(pool["max"]) - int(pool["spent"])) // int(ability["cost"])
    return None


def combat_options(
    abilities: Iterable[Mapping[str, Any]],
    pool: Mapping[str, Any] | None,
    kinds: Iterable[str],
    stage: str | None = None,
) -> list[dict[str, Any]]:
    """The hero's combat abilities of these effect kinds that still have a use (QC-14, QC-15)."""
    wanted = set(kinds)
    options = []
    for ability in abilities:
        effect = ability.get("effect") or {}
        kind = effect.get("kind")
        if ability["context"] not in ("combat", "both") or kind not in wanted:
            continue
        if kind == "reroll" and stage is not None and effect.get("roll") not in (None, stage):
            continue
        option = ability_option(ability, pool)
        if option is not None:
            options.append(option)
    return options


def ability_option(
    ability: Mapping[str, Any], pool: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """An ability as a decision offers it, or None when it has no use left (QC-16..QC-19)."""
    left = uses_left(ability, pool)
    if left is not None and left < 1:
        return None
    effect = ability.get("effect") or {}
    return {
        "id": ability["id"],
        "kind": effect.get("kind"),
        "usage": ability["usage"],
        "uses_left": left,
        "effect": dict(effect),
    }


# -- reading the page and the player's abilities -----------------------------------------------


def read_rounds(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rounds as the page prints them (QC-20, G-QC-05, G-QC-06, QC-33), as loaded."""
    keys = ("enemy", "hit_target", "damage_needed", "enemy_attack", "damage_reduced")
    return [
        {**{key: entry[key] for key in (*keys, "damage_full")}, "condition": entry["condition"]}
        for entry in raw
    ]


def read_uses(raw: list[Any], where: str) -> list[dict[str, Any]]:
    """Abilities to apply: ids, or objects naming the attempt and the roll they change."""
    uses = []
    for index, entry in enumerate(raw):
        if isinstance(entry, str):
            uses.append({"id": entry, "attempt": None, "roll": None, "where": f"{where}[{index}]"})
            continue
        use = {
            "id": entry["id"],
            "attempt": entry["attempt"],
            "roll": entry["roll"],
            "where": f"{where}[{index}]",
        }
        uses.append(use)
    return uses


# -- a round's record ----------------------------------------------------------------------------


def new_round(number: int) -> dict[str, Any]:
    """An open round, before its condition check and rolls."""
    return {"round": number, "condition": None, "attempts": [], "abilities": [], "extra": False}


def spec_of(combat: Mapping[str, Any], work: Mapping[str, Any]) -> dict[str, Any]:
    """The round as the page prints it."""
    spec: dict[str, Any] = combat["rounds"][work["round"] - 1]
    return spec


def attempt_of(work: Mapping[str, Any], attempt: str) -> dict[str, Any] | None:
    """The first or the extra attack of a round, if made."""
    return next((a for a in work["attempts"] if a["attempt"] == attempt), None)


def label(work: Mapping[str, Any], attempt: str) -> str:
    """How a roll of this attack is named in the roll records."""
    return f"round {work['round']}" + (" extra attack" if attempt == "extra" else "")


def afflicted(
    house: Mapping[str, Any], work: Mapping[str, Any], name: str, attempt: str = "first"
) -> bool:
    """Whether the round's condition is ``name`` and reaches this attack (QC-33, G-QC-09)."""
    condition = work["condition"]
    if not condition or not condition["afflicted"] or condition["name"] != name:
        return False
    return attempt == "first" or bool(house["qc.conditions.applyToExtraAttack"])


def new_attempt(hero: Mapping[str, Any], attempt: str, faces: list[int], **flags: bool) -> Any:
    """An attack as rolled (no faces while Restrained, QC-35); the damage comes next."""
    attack = {
        "rolled": not flags["restrained"],
        "faces": faces,
        "d20": min(faces) if faces else None,
        "atk": hero["atk"],
        "bonus": 0,
        "total": None,
        "hit": False,
        "frightened": flags["frightened"],
    }
    return {"attempt": attempt, "attack": attack, "damage": None, "seen": None}


def new_damage(hero: Mapping[str, Any], takes: list[Any], *, confused: bool) -> dict[str, Any]:
    """A damage roll: the dice takes, then flat modifiers once (damage_mod and the dice's own)."""
    return {
        "rolled": bool(takes),
        "dice": hero["damage_dice"],
        "takes": takes,
        "doubled": False,
        "confused": confused,
        "dice_total": 0,
        "bonus": 0,
        "flat": hero["damage_mod"] + parse(hero["damage_dice"]).modifier,
        "total": 0,
    }


def judge(house: Mapping[str, Any], spec: Mapping[str, Any], entry: Any) -> None:
    """Work an attempt's attack total, hit and damage total out again (QC-26, G-QC-05, G-QC-10)."""
    attack, damage = entry["attack"], entry["damage"]
    if attack["rolled"]:
        attack["total"] = attack["d20"] + attack["atk"] + attack["bonus"]
        attack["hit"] = hits(attack["total"], spec["hit_target"], house["qc.combat.hitIf"])
    if damage is not None and damage["rolled"]:
        damage["dice_total"] = min(take["sum"] for take in damage["takes"])
        total = damage["dice_total"] + damage["bonus"] + damage["flat"]
        damage["total"] = floored(total, house["qc.damage.floor"])


def attack_details(work: Mapping[str, Any], entry: Any, hit_target: int) -> dict[str, Any]:
    """The AttackRolled details of an attempt."""
    attack = entry["attack"]
    return {
        "round": work["round"],
        "attempt": entry["attempt"],
        "restrained": not attack["rolled"],
        "frightened": attack["frightened"],
        "d20_faces": attack["faces"],
        **{key: attack[key] for key in ("d20", "atk", "bonus", "total", "hit")},
        "hit_target": hit_target,
    }


def damage_details(work: Mapping[str, Any], entry: Any) -> dict[str, Any]:
    """The DamageRolled details of an attempt."""
    damage = entry["damage"]
    return {
        "round": work["round"],
        "attempt": entry["attempt"],
        "restrained": not damage["rolled"],
        "dice": damage["dice"],
        "raw_faces": [take["faces"] for take in damage["takes"]],
        "doubled": damage["doubled"],
        "confused": damage["confused"],
        "dice_total": damage["dice_total"],
        "bonus": damage["bonus"],
        "flat_mods": damage["flat"],
        "total": damage["total"],
    }


def attempt_pairs(work: Mapping[str, Any], *, first: bool) -> list[tuple[bool, int]]:
    """(hit, damage) of each attack now, or as first rolled when ``first`` (G-QC-08)."""
    pairs = []
    for entry in work["attempts"]:
        if first and entry["seen"] is not None:
            pairs.append((bool(entry["seen"]["hit"]), int(entry["seen"]["damage"])))
        else:
            damage = entry["damage"]["total"] if entry["damage"] else 0
            pairs.append((bool(entry["attack"]["hit"]), int(damage)))
    return pairs


def verdict_of(
    combat: Mapping[str, Any], work: Mapping[str, Any], house: Mapping[str, Any], *, first: bool
) -> dict[str, Any]:
    """The round's verdict from its attacks (QC-21, QC-22, QC-40)."""
    return round_verdict(
        attempt_pairs(work, first=first),
        spec_of(combat, work)["damage_needed"],
        enough_rule=house["qc.combat.enoughIf"],
        kind=combat["kind"],
    )


def round_options(
    hero: Mapping[str, Any],
    house: Mapping[str, Any],
    work: Mapping[str, Any],
    attempt: str,
    stage: str | None,
) -> list[dict[str, Any]]:
    """The abilities that could still change this round (in hard mode: this roll)."""
    kinds = set(KINDS_AT[stage])
    if work["extra"] or attempt == "extra" or afflicted(house, work, "restrained", "extra"):
        kinds.discard("extra_attack")
    entry = attempt_of(work, attempt)
    if entry is not None and not entry["attack"]["rolled"]:
        # Restrained: only an extra attack the condition does not reach is left to make.
        kinds = kinds if "extra_attack" in kinds else set()
        if stage is not None:
            kinds &= {"extra_attack"}
    if stage == "damage" and entry is not None and entry["damage"]["doubled"]:
        kinds.discard("double_damage")
    options = combat_options(hero["abilities"].values(), hero["pool"], sorted(kinds), stage)
    missed = entry is not None and entry["attack"]["rolled"] and not entry["attack"]["hit"]
    if missed and not any(makes_a_hit(option) for option in options):
        # QC-22: a missed attack's damage never counts, so more damage is worth offering only
        # beside an ability that could still make an attack hit
        options = [o for o in options if o["kind"] not in DAMAGE_ONLY]
    return options


DAMAGE_ONLY = ("damage_bonus", "double_damage")


def makes_a_hit(option: Mapping[str, Any]) -> bool:
    """Whether an offered ability could turn a miss into a hit (a bonus, a new attack, a reroll
    of the attack roll)."""
    if option["kind"] in ("attack_bonus", "extra_attack"):
        return True
    return option["kind"] == "reroll" and option["effect"].get("roll") in (None, "attack")
