"""The known items and the words of a hero's sheet: the rulebook's items as data (G-QC-01), each
effect said in words, and the words for the choices a hero's abilities and items take (usage,
context, effect kinds, traits), so that a page offers them in the rulebook's words and sends only
the internal name.

The rulebook names its items but not their numbers; the numbers here are this implementation's
(the same as the samples' where a sample carries the item). A group adds its own items beside
these (the library, ``domain.service.library``); ``check_item`` and ``check_hero`` validate what
it adds exactly as ``gain_item`` and ``select_hero`` would.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from domain.model.command_schema import load
from domain.model.errors import InvalidInput
from domain.model.quest_calendar.command_fields import Hero, Item
from domain.model.samples import MED_KIT, RATION, REPAIR_KIT

Json = dict[str, Any]

RULEBOOK_ITEMS: tuple[Json, ...] = (
    MED_KIT,
    {
        "id": "antidote",
        "name": "Antidote",
        "kind": "consumable",
        "effect": {"kind": "cure", "condition": "infected"},
    },
    REPAIR_KIT,
    {
        "id": "wound-sealant",
        "name": "Wound Sealant",
        "kind": "consumable",
        "effect": {"kind": "remove_injury"},
    },
    {
        "id": "strengthener-rx",
        "name": "Strengthener Rx",
        "kind": "consumable",
        "effect": {"kind": "booster", "trait": "STR", "dice": "1d4"},
    },
    {
        "id": "solar-grenade",
        "name": "Solar Grenade",
        "kind": "consumable",
        "usable_between_rounds": True,
    },
    {
        "id": "combat-tonic",
        "name": "Combat Tonic",
        "kind": "consumable",
        "usable_between_rounds": True,
    },
    {"id": "ship-parts", "name": "Ship Parts", "kind": "ship_parts"},
    RATION,
)
"""The items the rulebook names (QC-18, QC-23, QC-24, QC-31, QC-32, QC-50, QC-65, QC-77)."""

TRAIT_WORDS = {
    "STR": "Strength",
    "DEX": "Dexterity",
    "CON": "Constitution",
    "INT": "Intellect",
    "WIS": "Wisdom",
    "CHA": "Charisma",
}
USAGE_WORDS = {
    "per_rest": "Per Rest (a set number of uses between Rests)",
    "per_page": "Once per Page",
    "surge": "Uses surges or charges from the pool",
    "unlimited": "Any number of times",
}
CONTEXT_WORDS = {
    "combat": "In combat",
    "outside": "Outside of combat",
    "both": "Both in and outside of combat",
    "dogfight": "In ship combat (dogfight)",
}
KIND_WORDS = {
    "equipment": "Equipment (worn: helmet, boots, weapon...)",
    "consumable": "Consumable (used up)",
    "upgrade": "Ship upgrade",
    "ship_parts": "Ship Parts",
    "other": "Other",
}
EFFECT_WORDS = {
    "heal": "Restores HP",
    "cure": "Ends a condition",
    "remove_injury": "Removes an injury",
    "booster": "Trait booster for the page",
    "check_bonus": "Adds to a trait check",
    "reroll": "Roll again",
    "attack_bonus": "Adds to an Attack roll",
    "damage_bonus": "Adds to a Damage roll",
    "double_damage": "Doubles a hit's Damage",
    "extra_attack": "An extra Attack and Damage roll",
    "aim_bonus": "Adds to a dogfight Aim roll",
    "evasion_bonus": "Adds to a dogfight Evasion roll",
    "repair": "Restores ship Integrity",
    "ship_stat": "Changes a ship stat while installed",
    "ration": "A Meal Ration",
}
"""Each effect kind the engine applies, in words (the page shows these, and sends the key)."""
CONDITION_WORDS = {"infected": "Infected", "malfunction": "Malfunction"}


def _bonus(effect: Json) -> str:
    """An effect's dice and amount, as ``d4``, ``+2`` or ``1d6+1``."""
    dice, amount = effect.get("dice"), effect.get("amount")
    if dice and amount:
        return f"{dice}{amount:+d}"
    if dice:
        return str(dice)
    return f"{amount:+d}" if amount is not None else ""


def _traits(effect: Json) -> str:
    names = [TRAIT_WORDS.get(t, str(t)) for t in effect.get("traits") or []]
    return f" ({', '.join(names)})" if names else ""


def effect_words(effect: Json | None) -> str:
    """What an item's or ability's effect does, in words."""
    effect = effect or {}
    kind = effect.get("kind")
    bonus = _bonus(effect)
    said = {
        "heal": f"Restores {bonus or 'some'} HP",
        "cure": f"Cures {CONDITION_WORDS.get(str(effect.get('condition')), 'a condition')}",
        "remove_injury": "Removes an injury (gives back what it took)",
        "booster": f"Adds {bonus} to {TRAIT_WORDS.get(str(effect.get('trait')), 'a trait')} "
        "for every roll on this page",
        "check_bonus": f"Adds {bonus} to a trait check{_traits(effect)}",
        "reroll": "Roll again, keeping the "
        + ("better result" if effect.get("keep") == "better" else "new result"),
        "attack_bonus": f"Adds {bonus} to an Attack roll",
        "damage_bonus": f"Adds {bonus} to a Damage roll",
        "double_damage": "Doubles a hit's Damage",
        "extra_attack": "An extra Attack and Damage roll in the round",
        "aim_bonus": f"Adds {bonus} to a dogfight Aim roll",
        "evasion_bonus": f"Adds {bonus} to a dogfight Evasion roll",
        "repair": f"Restores {bonus or '1'} ship Integrity",
        "ship_stat": f"{bonus} to the ship's {effect.get('stat')} while installed",
        "ration": "A Meal Ration",
    }
    if kind is None:
        return "No effect the rules apply (the page says what it does)"
    return said.get(str(kind), f"{kind} (described by the page)")


def item_words(item: Json) -> str:
    """An item in words: its kind, slot, effect and whether it may be used between rounds."""
    bits = [KIND_WORDS.get(str(item.get("kind")), str(item.get("kind")))]
    if item.get("slot"):
        bits.append(f"worn as {item['slot']}")
    if item.get("effect"):
        bits.append(effect_words(item["effect"]))
    if item.get("usable_between_rounds"):
        bits.append("may be used between combat rounds")
    return "; ".join(bits)


def known_items() -> list[Json]:
    """The rulebook's items, each with its words (copies: a caller cannot change the data)."""
    return [
        {"id": item["id"], "item": deepcopy(item), "words": item_words(item), "source": "rulebook"}
        for item in RULEBOOK_ITEMS
    ]


def sheet_words() -> Json:
    """The words of a hero's sheet: each choice's internal name and its words."""

    def pairs(table: dict[str, str]) -> list[Json]:
        return [{"value": key, "words": said} for key, said in table.items()]

    return {
        "traits": pairs(TRAIT_WORDS),
        "usages": pairs(USAGE_WORDS),
        "contexts": pairs(CONTEXT_WORDS),
        "item_kinds": pairs(KIND_WORDS),
        "effect_kinds": pairs(EFFECT_WORDS),
        "conditions": pairs(CONDITION_WORDS),
    }


def _checked(schema: Any, raw: object, name: str) -> Json:
    """``raw`` if ``schema`` loads it, else ``InvalidInput`` naming each field under ``name``."""
    try:
        load(schema, raw, name)
    except InvalidInput as error:
        named = {
            key if key == name else f"{name}.{key}": said for key, said in error.errors.items()
        }
        raise InvalidInput.of(named) from None
    return deepcopy(dict(raw))  # type: ignore[call-overload]  # load refused all but a mapping


def check_item(raw: object) -> Json:
    """An item as ``gain_item`` takes it, or ``InvalidInput`` naming each wrong field."""
    return _checked(Item(), raw, "item")


def check_hero(raw: object) -> Json:
    """A hero as ``select_hero`` takes it, or ``InvalidInput`` naming each wrong field."""
    return _checked(Hero(), raw, "hero")
