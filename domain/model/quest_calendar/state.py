"""Quest Calendar state: the hero, the ship, the calendar page, and the helpers every rule uses.

The state is plain JSON (dicts, lists, ints, strings) inside the campaign aggregate. Handlers change
a working copy through ``Context.state``; these helpers keep the invariants (HP within 0..max,
virtue clamped, death and cloning at 0 HP) in one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from domain.model.errors import NoSuchDecision, NotHeld
from domain.model.events.payload import figure
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import page_events
from domain.model.quest_calendar.state_types import Ability, Hero, Injury, Item, Page, Ship
from domain.model.rules_engine import Context, Figures

rules = RULES[QUEST_CALENDAR]
rules.declare(
    page_events.SurgeSpent,
)

TRAITS = ("STR", "DEX", "CON", "INT", "WIS", "CHA")
USAGES = ("per_rest", "per_page", "surge", "unlimited")
CONTEXTS = ("combat", "outside", "both", "dogfight")
ITEM_KINDS = ("equipment", "consumable", "upgrade", "ship_parts", "other")
COMPARTMENTS = {
    "1": "Engine Room",
    "2": "Bridge",
    "3": "Labs",
    "4": "Weapons",
    "5": "Crew Quarters",
    "6": "Cargo",
}
HERO_PHASES = ("prologue", "main", "custom", "replacement")
HERO_FIGURES = ("id", "level", "credits", "hp", "hp_max", "virtue")


def _figure_places(state: Mapping[str, Any]) -> dict[str, str]:
    hero = {f"hero.{name}": f"/hero/{name}" for name in HERO_FIGURES}
    ship = {
        f"ship.{key}.{name}": f"/ship/compartments/{key}/{name}"
        for key in COMPARTMENTS
        for name in ("integrity", "integrity_max")
    }
    return {
        **hero,
        "page.date": "/page/date",
        "calendar.pages_played": "/calendar/pages_played",
        "combat.mode": "/page/combat/mode",
        "combat.kind": "/page/combat/kind",
        **ship,
    }


FIGURES = Figures(
    (
        figure("hero.id", str | None, "the hero's id (null without a hero)"),
        figure("hero.level", int | None, "the hero's level"),
        figure("hero.credits", int | None, "the hero's credits (below 0: in debt)"),
        figure("hero.hp", int | None, "the hero's hit points"),
        figure("hero.hp_max", int | None, "the hero's maximum hit points"),
        figure("hero.virtue", int | None, "the hero's virtue"),
        figure("page.date", str | None, "the date of the calendar page being played"),
        figure("calendar.pages_played", int, "the pages played in the campaign"),
        figure("combat.mode", str | None, "the difficulty mode of the combat under way"),
        figure("combat.kind", str | None, "the kind of the combat under way"),
        figure("ship.<compartment>.integrity", int | None, "a compartment's Integrity"),
        figure("ship.<compartment>.integrity_max", int | None, "a compartment's maximum Integrity"),
    ),
    _figure_places,
)
"""The figures every Quest Calendar event records when it changes them (docs/events.md)."""

PLAYER = "player"
"""Whose every Quest Calendar decision is (a campaign holds one hero)."""
ANNOUNCED = ("decision", "rule", "options")
"""The fields a Quest Calendar ``DecisionRequested`` event carries (combat adds ``context``)."""


def initial_state(setup: Mapping[str, Any], house: Mapping[str, Any]) -> dict[str, Any]:
    """A new Quest Calendar campaign from its loaded ``Setup``: no hero yet (QC-02), the ship at
    base stats (QC-69)."""
    return {
        "calendar": {
            "page": None,
            "prologue_complete": setup["prologue_complete"],
            "pages_played": 0,
        },
        "hero": None,
        "ship": new_ship(),
        "page": None,
        "pending": None,
    }


def new_ship() -> Ship:
    """The Karnack/Fang: Aim +10, EVA +10, SHD 1, six compartments at Integrity 3 (QC-69, QC-73)."""
    return {
        "aim": 10,
        "eva": 10,
        "shd": 1,
        "compartments": {
            number: {
                "name": name,
                "integrity": 3,
                "integrity_max": 3,
                "crew": None,
                "upgrade": None,
            }
            for number, name in COMPARTMENTS.items()
        },
    }


def read_hero(loaded: Mapping[str, Any]) -> Hero:
    """A hero as the player defines them (QC-02, QC-04, QC-05), from its loaded ``Hero``."""
    return {
        "id": loaded["id"],
        "name": loaded["name"],
        "level": loaded["level"],
        "traits": {trait: loaded["traits"][trait] for trait in TRAITS},
        "hp": loaded["hp"] if loaded["hp"] is not None else loaded["hp_max"],
        "hp_max": loaded["hp_max"],
        "def": loaded["defence"],
        "atk": loaded["atk"],
        "damage_dice": loaded["damage_dice"],
        "damage_mod": loaded["damage_mod"],
        "virtue": loaded["virtue"],
        "credits": loaded["credits"],
        "rations": loaded["rations"],
        "conditions": [],
        "injuries": [],
        "abilities": {a["id"]: read_ability(a) for a in loaded["abilities"]},
        "pool": (
            None
            if loaded["pool"] is None
            else {"name": loaded["pool"]["name"], "max": loaded["pool"]["max"], "spent": 0}
        ),
        "inventory": [read_item(item) for item in loaded["inventory"]],
        # QC-64: what the hero book shows the hero wearing (checked by the Hero schema)
        "equipped": {
            slot_of(loaded["inventory"], item_id): item_id for item_id in loaded["equipped"]
        },
    }


def slot_of(inventory: Sequence[Mapping[str, Any]], item_id: str) -> str:
    """The slot of a carried equipment item."""
    return str(next(item["slot"] for item in inventory if item["id"] == item_id))


def read_ability(loaded: Mapping[str, Any]) -> Ability:
    """An ability from the hero book (QC-15..QC-19), from its loaded ``Ability``: uses and cost
    default by usage. Its dogfight effect was checked when it was loaded."""
    usage = loaded["usage"]
    uses, cost = loaded["uses"], loaded["cost"]
    return {
        "id": loaded["id"],
        "name": loaded["name"],
        "usage": usage,
        "context": loaded["context"],
        "uses": uses if uses is not None else (1 if usage == "per_rest" else 0),
        "used": 0,
        "cost": cost if cost is not None else (1 if usage == "surge" else 0),
        "used_this_page": False,
        "effect": loaded["effect"],
    }


SAME_ITEM = ("name", "kind", "slot", "usable_between_rounds", "compartments", "effect")
"""What makes two items with one id the same item (a price is the seller's, not the item's)."""


def same_item(one: Mapping[str, Any], other: Mapping[str, Any]) -> bool:
    """Whether two item definitions describe the same item (an id names one item)."""
    return all(one.get(key) == other.get(key) for key in SAME_ITEM)


def read_item(loaded: Mapping[str, Any]) -> Item:
    """An item (G-QC-01 content), from its loaded ``Item``."""
    return {
        "id": loaded["id"],
        "name": loaded["name"],
        "kind": loaded["kind"],
        "slot": loaded["slot"],
        "price": loaded["price"],
        "usable_between_rounds": loaded["usable_between_rounds"],
        "compartments": loaded["compartments"],
        "effect": loaded["effect"],
    }


# -- helpers used by every rule module ---------------------------------------------------------


def hero(ctx: Context) -> Hero:
    """The hero, or a refusal when none has been selected yet (QC-02)."""
    current = ctx.state.get("hero")
    if current is None:
        ctx.refuse("QC-02", "no hero has been selected yet")
    result: Hero = current
    return result


def page(ctx: Context) -> Page:
    """The page being resolved, or a refusal when no page is open (QC-17)."""
    current = ctx.state.get("page")
    if current is None:
        ctx.refuse("QC-17", "no calendar page is open; start a page first")
    result: Page = current
    return result


def change_virtue(ctx: Context, delta: int, cause: str) -> dict[str, Any]:
    """Add to virtue, clamped to the house range (QC-06, G-QC-21); returns what was applied,
    as the keywords of a ``VirtueChanged`` payload."""
    current = hero(ctx)
    before = current["virtue"]
    low, high = ctx.house["qc.virtue.min"], ctx.house["qc.virtue.max"]
    after = max(low, min(high, before + delta))
    current["virtue"] = after
    return {
        "from_": before,
        "to": after,
        "requested_delta": delta,
        "applied_delta": after - before,
        "cause": cause,
    }


def change_credits(ctx: Context, delta: int, cause: str) -> dict[str, Any]:
    """Add a signed amount to credits as is (gains pay debt back first, QC-61); returns the
    movement, as keywords of a ``CreditsChanged`` payload."""
    current = hero(ctx)
    before = current["credits"]
    current["credits"] = before + delta
    return {"from_": before, "to": current["credits"], "delta": delta, "cause": cause}


def lose_credits_without_debt(ctx: Context, loss: int, cause: str) -> dict[str, Any]:
    """Lose up to ``loss`` credits but never below the floor (QC-63, QC-68, G-QC-20)."""
    current = hero(ctx)
    floor = ctx.house["qc.credits.nonDebtLossFloor"]
    taken = max(0, min(loss, current["credits"] - floor))
    result = change_credits(ctx, -taken, cause)
    result["requested"] = loss
    result["taken"] = taken
    return result


def heal(ctx: Context, amount: int, cause: str) -> dict[str, Any]:
    """Restore HP, never above max (G-QC-22)."""
    current = hero(ctx)
    before = current["hp"]
    after = before + max(0, amount)
    if ctx.house["qc.hp.capAtMax"]:
        after = min(after, current["hp_max"])
    current["hp"] = after
    return {"amount": after - before, "cause": cause, "hp_before": before, "hp_after": after}


def cap_hp(ctx: Context) -> None:
    """Keep current HP at or below max HP after max HP drops (G-QC-22)."""
    current = hero(ctx)
    if ctx.house["qc.hp.capAtMax"] and current["hp"] > current["hp_max"]:
        current["hp"] = current["hp_max"]


def ceil_half(value: int) -> int:
    """Half, rounded up: ``ceil(value / 2)``."""
    return math.ceil(value / 2)


def clear_pending(ctx: Context) -> dict[str, Any]:
    """Take the pending decision off the state and return it."""
    pending = ctx.state.get("pending")
    if not pending:
        raise NoSuchDecision("pending-decision", "there is no pending decision to make")
    ctx.state["pending"] = None
    result: dict[str, Any] = pending
    return result


# -- abilities and injuries (shared by several rule modules) -----------------------------------

INJURY_STATS = (*TRAITS, "hp_max", "def", "atk", "damage_mod")
INJURY_AMOUNTS = {"hp_max": 2}


# QC-15: where an ability of each context symbol may be used. "Both" is in and out of ground
# combat; only a dogfight ability works in a dogfight.
CONTEXT_ALLOWS = {
    "both": ("combat", "outside"),
    "combat": ("combat",),
    "outside": ("outside",),
    "dogfight": ("dogfight",),
}


def require_context(ctx: Context, ability: Mapping[str, Any], context: str) -> None:
    """Refuse an ability whose context symbol does not allow it here (QC-15)."""
    if context not in CONTEXT_ALLOWS[ability["context"]]:
        ctx.refuse(
            "QC-15", f"{ability['id']} is a {ability['context']} ability, not usable {context}"
        )


def record_surge(ctx: Context, ability_id: str, ability: Mapping[str, Any]) -> None:
    """QC-19: after a surge ability's use, record what it cost and what is left of the pool."""
    if ability["usage"] != "surge":
        return
    pool = hero(ctx)["pool"]
    if pool is None:
        raise RuntimeError(f"{ability_id} is a surge ability of a hero without a surge pool")
    ctx.emit(
        page_events.SurgeSpent(
            ability_id=ability_id,
            cost=ability["cost"],
            remaining=pool["max"] - pool["spent"],
            pool_max=pool["max"],
        )
    )


def spend_ability(ctx: Context, ability_id: str, context: str) -> Ability:
    """Mark one use of an ability, refusing what its usage or context forbids (QC-15..QC-19).

    ``context`` is where it is used: "combat", "outside" or "dogfight". Returns the ability.
    """
    current = hero(ctx)
    ability = current["abilities"].get(ability_id)
    if ability is None:
        raise NotHeld("ability", f"the hero has no ability {ability_id!r}")
    require_context(ctx, ability, context)
    usage = ability["usage"]
    if usage == "per_rest":
        if ability["used"] >= ability["uses"]:
            ctx.refuse("QC-16", f"{ability_id} has no uses left until the next Rest")
        ability["used"] += 1
    elif usage == "per_page":
        if ability["used_this_page"]:
            ctx.refuse("QC-17", f"{ability_id} was already used on this page")
        ability["used_this_page"] = True
    elif usage == "surge":
        pool = current["pool"]
        if pool is None or pool["max"] - pool["spent"] < ability["cost"]:
            ctx.refuse("QC-19", f"{ability_id} needs {ability['cost']} unspent surge(s)")
        pool["spent"] += ability["cost"]
    return ability


def apply_injury(ctx: Context, stat: str) -> dict[str, Any]:
    """Record one injury and take its amount off the stat (QC-45); max HP drops cap HP."""
    current = hero(ctx)
    amount = INJURY_AMOUNTS.get(stat, 1)
    if stat == "hp_max":
        # max HP never falls below 1: a hero of max HP 0 could neither heal nor ever die again
        amount = max(0, min(amount, current["hp_max"] - 1))
    _add_to_stat(current, stat, -amount)
    current["injuries"].append({"stat": stat, "amount": amount})
    cap_hp(ctx)
    return {"stat": stat, "amount": amount}


def remove_injuries(ctx: Context, stat: str, count: int | None = None) -> dict[str, Any]:
    """Remove up to ``count`` injuries (all when None) of one stat, giving back what they took."""
    current = hero(ctx)
    kept: list[Injury] = []
    removed: list[Injury] = []
    for injury in current["injuries"]:
        if injury["stat"] == stat and (count is None or len(removed) < count):
            removed.append(injury)
        else:
            kept.append(injury)
    total = sum(i["amount"] for i in removed)
    if removed:
        _add_to_stat(current, stat, total)
    current["injuries"] = kept
    return {"stat": stat, "count": len(removed), "amount": total}


def _add_to_stat(current: Hero, stat: str, amount: int) -> None:
    """Add to one of the stats an injury lowers (``INJURY_STATS``): a trait or a hero stat."""
    if stat in TRAITS:
        current["traits"][stat] += amount
    elif stat == "hp_max":
        current["hp_max"] += amount
    elif stat == "def":
        current["def"] += amount
    elif stat == "atk":
        current["atk"] += amount
    elif stat == "damage_mod":
        current["damage_mod"] += amount
    else:
        raise RuntimeError(f"{stat} is not a stat an injury lowers")
