"""What the hero may use now: a consumable, an ability, a ship repair (QC-14..QC-19, QC-23,
QC-24, QC-31, QC-32, QC-50, QC-77), for ``availability``: each predicate follows its handler's
guards in their order and answers None, or the rule (and why) that refuses every choice."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.quest_calendar import abilities, items
from domain.model.quest_calendar import state as qc
from domain.model.rules_engine import Refusal

State = Mapping[str, Any]


def _effect_refusal(hero: Mapping[str, Any], kind: str | None, effect: Mapping[str, Any]) -> Any:
    """QC-31 / QC-32 a cure needs its condition; QC-50 an injury removal needs an injury."""
    if kind == "cure" and effect.get("condition") not in hero["conditions"]:
        condition = effect.get("condition")
        return (items.CURE_RULE.get(str(condition), "QC-31"), f"the hero is not {condition}")
    if kind == "remove_injury" and not hero["injuries"]:
        return ("QC-50", "the hero has no injury to remove")
    return None


def _item_refusal(page: Mapping[str, Any], hero: Mapping[str, Any], item: Any) -> Refusal | None:
    """Why this carried item may not be used now (use_item's guards, in its order)."""
    kind = item["effect"].get("kind")
    if kind is not None and kind not in items.ITEM_EFFECTS:
        return ("QC-24", f"{item['id']} has no effect use_item applies")
    if items.fight_in_progress(dict(page)):
        between = item.get("usable_between_rounds")
        if between is None:
            between = kind != "heal"
        if not between:
            rule = "QC-23" if kind == "heal" else "QC-24"
            return (rule, f"{item['id']} cannot be used between rounds (notBetweenRounds)")
    refusal: Refusal | None = _effect_refusal(hero, kind, item["effect"])
    return refusal


def consumable(state: State) -> Refusal | None:
    """QC-23 / QC-24 / QC-31 / QC-32 / QC-50: a carried consumable that may be used now."""
    hero, page = state["hero"], state["page"]
    refusals = [
        _item_refusal(page, hero, item)
        for item in hero["inventory"]
        if item.get("kind") == "consumable"
    ]
    if not refusals:
        return ("QC-23", "the hero carries no consumable")
    if None in refusals:
        return None
    return refusals[0]


def _ability_refusal(page: Mapping[str, Any], hero: Mapping[str, Any], ability: Any) -> Any:
    """Why this ability may not be used now (use_ability's guards, in its order)."""
    context = items.context_now(dict(page))
    if context not in qc.CONTEXT_ALLOWS[ability["context"]]:
        return ("QC-15", f"{ability['id']} is a {ability['context']} ability, not usable {context}")
    kind = ability["effect"].get("kind")
    if kind in abilities.CHECK_EFFECTS and not page.get("checks"):
        return ("QC-14", "no check has been rolled on this page for it to change")
    refusal = _effect_refusal(hero, kind, ability["effect"])
    if refusal is not None:
        return refusal
    usage, pool = ability["usage"], hero.get("pool")
    if usage == "surge" and (pool is None or pool["max"] - pool["spent"] < ability["cost"]):
        return ("QC-19", f"{ability['id']} needs {ability['cost']} unspent surge(s)")
    if usage == "per_rest" and ability["used"] >= ability["uses"]:
        return ("QC-16", f"{ability['id']} has no uses left until the next Rest")
    if usage == "per_page" and ability["used_this_page"]:
        return ("QC-17", f"{ability['id']} was already used on this page")
    return None


def ability(state: State) -> Refusal | None:
    """QC-14..QC-19: an ability the hero may use now (one whose effect use_ability applies)."""
    hero, page = state["hero"], state["page"]
    applied = [
        ability
        for ability in hero["abilities"].values()
        if ability["effect"].get("kind") in (None, *abilities.ABILITY_EFFECTS)
    ]
    refusals = [_ability_refusal(page, hero, ability) for ability in applied]
    if not refusals:
        return ("QC-15", "the hero has no ability that use_ability applies")
    if None in refusals:
        return None
    refusal: Refusal = refusals[0]
    return refusal


def repair(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-77: a damaged compartment, and Ship Parts usable now or a repair ability with a use."""
    compartments = state["ship"]["compartments"].values()
    if all(c["integrity"] >= c["integrity_max"] for c in compartments):
        return ("QC-77", "every compartment is at full Integrity")
    page, hero = state["page"], state["hero"]
    fighting = any(
        isinstance(page.get(kind), Mapping) and page[kind].get("status") == "in_progress"
        for kind in ("combat", "dogfight")
    )
    late = page.get("first_roll_made") and not house.get("qc.repair.allowPageEnd")
    parts = any(item["kind"] == "ship_parts" for item in hero["inventory"])
    if parts and not fighting and not late:
        return None
    for ability in hero["abilities"].values():
        if ability["effect"].get("kind") == "repair" and _has_use(hero, ability):
            return None
    if parts:
        when = "between rounds" if fighting else "after the page's first roll"
        return ("QC-77", f"Ship Parts cannot be used {when}, and no repair ability has a use")
    return ("QC-77", "the hero has no Ship Parts and no repair ability with a use left")


def _has_use(hero: Mapping[str, Any], ability: Mapping[str, Any]) -> bool:
    """QC-16 / QC-17 / QC-19: a use left of this ability."""
    usage, pool = ability["usage"], hero.get("pool")
    if usage == "surge":
        return pool is not None and pool["max"] - pool["spent"] >= ability["cost"]
    if usage == "per_rest":
        return bool(ability["used"] < ability["uses"])
    if usage == "per_page":
        return not ability["used_this_page"]
    return True
