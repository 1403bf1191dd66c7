"""Consumable items (QC-18, QC-23, QC-24, QC-31, QC-32, QC-50) and effects shared with abilities.

An item's effect is data (G-QC-01), one of:
- ``{"kind": "heal", "dice": "1d6", "amount": 0}``: restore HP, never above max (G-QC-22);
- ``{"kind": "cure", "condition": "infected" | "malfunction"}``: Antidote, Repair Kit;
- ``{"kind": "remove_injury"}``: Wound Sealant; the player names the injured stat (``stat``);
- ``{"kind": "booster", "trait": "STR", "dice": "1d4"}``: a trait booster for this page (QC-18);
- ``{}``: no effect the engine applies (the page's text says what happens).

Timing (QC-23, QC-24, G-QC-07): while a combat or dogfight on the page has ``status ==
"in_progress"`` an item may be used only if its ``usable_between_rounds`` is true; when the item
leaves it unset, healing items default to false and every other item to true.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.command_schema import Values, takes
from domain.model.dice.notation import parse
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import hero_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import State, needs
from domain.model.quest_calendar.command_fields import inventory_item
from domain.model.quest_calendar.state_types import Page
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import text

rules = RULES[QUEST_CALENDAR]
rules.declare(
    hero_events.ItemUsed,
    hero_events.HeroHealed,
    hero_events.TraitBoosterApplied,
    hero_events.InjuryRemoved,
)

ITEM_EFFECTS = ("heal", "cure", "remove_injury", "booster")
CURED_BY_ITEM = {"infected": "antidote", "malfunction": "repair_kit"}
CURE_RULE = {"infected": "QC-31", "malfunction": "QC-32"}
FIGHTS = ("combat", "dogfight")


# -- where the hero is on the page (QC-15, QC-23) ----------------------------------------------


def fight_in_progress(page: Mapping[str, Any]) -> str | None:
    """ "combat" or "dogfight" while that fight's rounds are being played, else None."""
    for kind in FIGHTS:
        fight = page.get(kind)
        if isinstance(fight, dict) and fight.get("status") == "in_progress":
            # QC-23: before the first roll of a fight a Med Kit is still allowed (a one-shot
            # dogfight is never in progress between commands).
            if fight.get("round") == 0 and not fight.get("open"):
                continue
            return kind
    return None


def context_now(page: Mapping[str, Any]) -> str:
    """The ability context right now (QC-15): "combat", "dogfight" or "outside"."""
    return fight_in_progress(page) or "outside"


def timing_now(page: Mapping[str, Any]) -> str:
    """When on the page an item is used, for the ItemUsed record (QC-23).

    A fight is put on the page already in progress, so one that is no longer is over; one in
    progress that ``fight_in_progress`` does not count has not rolled yet.
    """
    if fight_in_progress(page):
        return "between_rounds"
    fights = [fight for fight in map(page.get, FIGHTS) if isinstance(fight, dict)]
    if any(fight.get("status") == "in_progress" for fight in fights):
        return "before_first_roll"
    if fights:
        return "after_last_round"
    return "out_of_combat"


# -- effects shared by items and abilities -----------------------------------------------------


def check_effect(effect: Mapping[str, Any], allowed: tuple[str, ...], field: str) -> str | None:
    """An effect's kind if this command applies it (None: no effect the engine applies); its
    shape was checked by its schema (``Effect``) when the item or ability was defined."""
    kind = effect.get("kind")
    if kind is None:
        return None
    if kind not in allowed:
        raise NotHeld(
            f"{field}.kind", f"{kind!r} is not applied by this command; use one of {allowed}"
        )
    result: str = kind
    return result


def effect_amount(ctx: Context, effect: dict[str, Any], purpose: str) -> int:
    """An effect's size: its dice, rolled now, plus its flat amount."""
    amount = int(effect.get("amount") or 0)
    if effect.get("dice") is not None:
        amount += int(ctx.roll(effect["dice"], purpose)["total"])
    return amount


def can_apply(ctx: Context, kind: str | None, effect: dict[str, Any], stat: str | None) -> None:
    """Refuse an effect with nothing to act on, before anything is spent (QC-31, QC-32, QC-50)."""
    hero = qc.hero(ctx)
    if kind != "remove_injury" and stat is not None:
        raise NotHeld("stat", "is only for an effect that removes an injury")
    if kind == "cure" and effect["condition"] not in hero["conditions"]:
        condition = effect["condition"]
        ctx.refuse(CURE_RULE[condition], f"the hero is not {condition}; there is nothing to cure")
    if kind == "remove_injury":
        injured = sorted({injury["stat"] for injury in hero["injuries"]})
        if not injured:
            ctx.refuse("QC-50", "the hero has no injury to remove")
        if stat is None:
            raise NotHeld("stat", f"name the injured stat: one of {', '.join(injured)}")
        if stat not in injured:
            ctx.refuse("QC-50", f"the hero has no {stat} injury; injured: {', '.join(injured)}")


def apply_effect(
    ctx: Context,
    kind: str | None,
    effect: dict[str, Any],
    *,
    cause: str,
    source: str,
    stat: str | None = None,
) -> None:
    """Apply a heal, cure or injury removal and emit its event (after the caller's own event)."""
    hero = qc.hero(ctx)
    if kind == "heal":
        rolled = effect_amount(ctx, effect, f"{source}: healing")
        healed = qc.heal(ctx, rolled, cause)
        ctx.emit(hero_events.HeroHealed(source=source, rolled=rolled, **healed))
    elif kind == "cure":
        condition = effect["condition"]
        hero["conditions"].remove(condition)
        cured_by = CURED_BY_ITEM[condition] if cause == "item" else cause
        ctx.emit(
            hero_events.ConditionCleared(
                subject_id=hero["id"], condition=condition, cause=cured_by, source=source
            )
        )
    elif kind == "remove_injury" and stat is not None:
        removed = qc.remove_injuries(ctx, stat, 1)
        ctx.emit(hero_events.InjuryRemoved(cause=cause, source=source, **removed))


# -- trait boosters (QC-18, G-QC-04) -----------------------------------------------------------


def _highest(notation: str) -> int:
    """The most a dice expression can give, to compare boosters that do not stack."""
    expression = parse(notation)
    dice = sum(
        term.sign * (term.keep_count or term.count) * (term.sides if term.sign > 0 else 1)
        for term in expression.terms
    )
    return dice + expression.modifier


def apply_booster(ctx: Context, item: Mapping[str, Any], page: Page) -> None:
    """Raise a trait for every roll of it on this page; stacking and rolling per house rules."""
    effect = item["effect"]
    trait = effect["trait"]
    stack = ctx.house["qc.boosters.stack"]
    details: dict[str, Any] = {
        "item_id": item["id"],
        "trait": trait,
        "dice": effect.get("dice"),
        "page_date": page["date"],
        "stack": stack,
    }
    if ctx.house["qc.boosters.rollOncePerPage"] or effect.get("dice") is None:
        rolled = effect_amount(ctx, effect, f"{item['id']}: {trait} booster")
        boosters = page.setdefault("boosters", {})
        before = int(boosters.get(trait, 0))
        after = before + rolled if stack or trait not in boosters else max(before, rolled)
        boosters[trait] = after
        details.update(per_roll=False, bonus=rolled, booster_before=before, booster_after=after)
    else:
        # qc.boosters.rollOncePerPage=false: the die is rolled again on each roll of the trait.
        notation = effect["dice"]
        per_roll = page.setdefault("booster_dice", {}).setdefault(trait, [])
        if stack or not per_roll:
            per_roll.append(notation)
        elif _highest(notation) > _highest(per_roll[0]):
            per_roll[:] = [notation]
        details.update(per_roll=True, bonus=None, booster_dice=list(per_roll))
    ctx.emit(hero_events.TraitBoosterApplied(**details))


# -- the command -------------------------------------------------------------------------------


def effect_refusal(hero: Mapping[str, Any], kind: str | None, effect: Mapping[str, Any]) -> Any:
    """QC-31 / QC-32 a cure needs its condition; QC-50 an injury removal needs an injury: as the
    availability of use_item and use_ability says it."""
    if kind == "cure" and effect.get("condition") not in hero["conditions"]:
        condition = effect.get("condition")
        return (CURE_RULE.get(str(condition), "QC-31"), f"the hero is not {condition}")
    if kind == "remove_injury" and not hero["injuries"]:
        return ("QC-50", "the hero has no injury to remove")
    return None


def _item_refusal(page: Mapping[str, Any], hero: Mapping[str, Any], item: Any) -> Refusal | None:
    """Why this carried item may not be used now (use_item's guards, in its order)."""
    kind = item["effect"].get("kind")
    if kind is not None and kind not in ITEM_EFFECTS:
        return ("QC-24", f"{item['id']} has no effect use_item applies")
    if fight_in_progress(dict(page)):
        between = item.get("usable_between_rounds")
        if between is None:
            between = kind != "heal"
        if not between:
            rule = "QC-23" if kind == "heal" else "QC-24"
            return (rule, f"{item['id']} cannot be used between rounds (notBetweenRounds)")
    refusal: Refusal | None = effect_refusal(hero, kind, item["effect"])
    return refusal


def a_consumable_to_use(state: State) -> Refusal | None:
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


@rules.command(
    "use_item",
    summary="Use a consumable from the inventory: heal, cure, remove an injury or boost a trait.",
    example={"type": "use_item", "item": "wound-sealant", "stat": "STR"},
    schema=takes(
        "The item's effect dice if it has any (e.g. a heal of 1d6); otherwise none.",
        item=inventory_item("The id of a consumable in the inventory.", kind="consumable"),
        stat=text("The injured stat an injury-removing item restores.", choices=qc.INJURY_STATS),
    ),
    available=needs(a_consumable_to_use),
    rules=("QC-18", "QC-23", "QC-24", "QC-31", "QC-32", "QC-50"),
)
def use_item(ctx: Context, args: Values) -> None:
    """Consume one item by id; healing items wait until the rounds are over (QC-23, G-QC-07)."""
    item_id = args["item"]
    stat = args["stat"]
    hero = qc.hero(ctx)
    page = qc.page(ctx)
    position = next((i for i, it in enumerate(hero["inventory"]) if it["id"] == item_id), None)
    if position is None:
        raise NotHeld("item", f"the hero carries no item {item_id!r}")
    item = hero["inventory"][position]
    if item["kind"] != "consumable":
        raise NotHeld("item", f"{item_id} is {item['kind']}, not a consumable")
    effect = item["effect"]
    if effect is None:
        raise NotHeld("item", f"{item_id} has no effect to use")
    kind = check_effect(effect, ITEM_EFFECTS, "item.effect")
    if fight_in_progress(page):
        between = item["usable_between_rounds"]
        if between is None:
            between = kind != "heal"
        if not between:
            rule = "QC-23" if kind == "heal" else "QC-24"
            ctx.refuse(rule, f"{item_id} cannot be used between rounds (notBetweenRounds)")
    can_apply(ctx, kind, effect, stat)
    del hero["inventory"][position]
    ctx.emit(
        hero_events.ItemUsed(
            item_id=item_id, name=item["name"], timing=timing_now(page), effect=effect
        )
    )
    if kind == "booster":
        apply_booster(ctx, item, page)
    else:
        apply_effect(ctx, kind, effect, cause="item", source=item_id, stat=stat)
