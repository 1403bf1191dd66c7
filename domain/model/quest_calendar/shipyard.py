"""The shipyard: repairs, crew and upgrades (QC-77..QC-83)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from domain.model.command_schema import Values
from domain.model.errors import NotHeld
from domain.model.quest_calendar import fight_events, hero_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.ship import (
    MAX_CREW,
    apply_upgrade,
    in_progress,
    inventory_upgrade,
    read_compartment,
    read_crew,
    rules,
    stat_bonus,
)
from domain.model.quest_calendar.state_types import Ability, Page, Ship
from domain.model.rules_engine import Context

rules.declare(
    fight_events.ShipRepaired,
    fight_events.CrewHired,
    fight_events.CrewAssigned,
    fight_events.UpgradeInstalled,
    fight_events.UpgradeRemoved,
    fight_events.UpgradeSold,
)

# -- repairs (QC-77) ---------------------------------------------------------------------------


@rules.command(
    "repair_ship",
    summary="Restore a compartment's Integrity with Ship Parts from the inventory (or a repair "
    "ability); never between rounds.",
    example={"type": "repair_ship", "compartment": 4, "parts": 1},
    rules=("QC-77", "QC-82"),
)
def repair_ship(ctx: Context, args: Values) -> None:
    """QC-77 / G-QC-26: each part restores qc.repair.perPart, up to the compartment's max."""
    key = read_compartment(args["compartment"])
    parts = args["parts"]
    ability_id = args["ability"]
    qc.hero(ctx)
    page = qc.page(ctx)
    compartment = ctx.state["ship"]["compartments"][key]
    before = compartment["integrity"]
    missing = compartment["integrity_max"] - before
    if missing <= 0:
        ctx.refuse("QC-77", f"{compartment['name']} is already at full Integrity")
    if parts is not None:
        amount = _use_ship_parts(ctx, key, parts, missing)
    else:
        amount = _repair_by_ability(ctx, ability_id, missing)
    compartment["integrity"] = before + amount
    window = before == 0
    if window:
        windows = page.setdefault("upgrade_window", [])
        if key not in windows:
            windows.append(key)
    ctx.emit(
        fight_events.ShipRepaired(
            compartment=key,
            amount=amount,
            source="shipParts" if parts is not None else "ability",
            ability_id=ability_id,
            integrity_before=before,
            integrity_after=compartment["integrity"],
            integrity_max=compartment["integrity_max"],
            upgrade_window=window,
        )
    )


def _use_ship_parts(ctx: Context, key: str, parts: int, missing: int) -> int:
    """Use up ``parts`` Ship Parts items (one ItemUsed each); returns the Integrity restored."""
    page = qc.page(ctx)
    if in_progress(page.get("combat")) or in_progress(page.get("dogfight")):
        ctx.refuse("QC-77", "Ship Parts cannot be used between rounds of a combat or dogfight")
    if page["first_roll_made"] and not ctx.house["qc.repair.allowPageEnd"]:
        ctx.refuse("QC-77", "Ship Parts are used before the page's first roll (house rule)")
    per_part = int(ctx.house["qc.repair.perPart"])
    needed = math.ceil(missing / per_part)
    if parts > needed:
        ctx.refuse("QC-77", f"{needed} Ship Part(s) restore full Integrity; more would be wasted")
    inventory = qc.hero(ctx)["inventory"]
    stock = [item for item in inventory if item["kind"] == "ship_parts"]
    if len(stock) < parts:
        ctx.refuse("QC-77", f"the hero has {len(stock)} Ship Part(s), not {parts}")
    timing = "after_last_roll" if page["first_roll_made"] else "before_first_roll"
    for item in stock[:parts]:
        inventory.remove(item)
        ctx.emit(
            hero_events.ItemUsed(
                item_id=item["id"],
                name=item.get("name", ""),
                timing=timing,
                effect={"kind": "repair", "compartment": key, "amount": per_part},
            )
        )
    return min(missing, parts * per_part)


def _repair_by_ability(ctx: Context, ability_id: str, missing: int) -> int:
    """A hero ability with effect {"kind": "repair", "amount": n or "dice": ...} (QC-77)."""
    ability = qc.hero(ctx)["abilities"].get(ability_id)
    effect = (None if ability is None else ability["effect"]) or {}
    if effect.get("kind") != "repair":
        raise NotHeld("ability", f"{ability_id!r} is not a ship repair ability")
    dogfight = ability is not None and ability["context"] == "dogfight"
    context = "dogfight" if dogfight and qc.page(ctx).get("dogfight") else "outside"
    qc.spend_ability(ctx, ability_id, context)
    if effect.get("dice") is not None:
        restored = int(ctx.roll(str(effect["dice"]), f"{ability_id}: ship repair")["total"])
    else:
        restored = effect.get("amount") or 1
    return max(0, min(missing, restored))


# -- crew (QC-78..QC-80) -----------------------------------------------------------------------


def _crew_ids(ship: Ship) -> list[str]:
    aboard = [c["crew"]["id"] for c in ship["compartments"].values() if c["crew"]]
    return aboard + [c["id"] for c in ship.get("unassigned_crew", [])]


@rules.command(
    "hire_crew",
    summary="Hire a crew member for a one-time fee (an optional purchase: never into debt by "
    "default); assign them next.",
    example={
        "type": "hire_crew",
        "crew": {"id": "vex", "name": "Vex the Mechanic", "abilities": []},
        "fee": 5,
    },
    rules=("QC-78", "QC-62"),
)
def hire_crew(ctx: Context, args: Values) -> None:
    """QC-78 / G-QC-27: the fee cannot create debt unless qc.crew.feeCanCreateDebt."""
    crew = read_crew(args["crew"])
    fee = args["fee"]
    hero = qc.hero(ctx)
    qc.page(ctx)
    ship: Ship = ctx.state["ship"]
    if crew["id"] in _crew_ids(ship):
        raise NotHeld("crew.id", f"{crew['id']!r} is already on the ship")
    clash = sorted({a["id"] for a in crew["abilities"]} & set(hero["abilities"]))
    if clash:
        raise NotHeld("crew.abilities", f"the hero already has abilities {clash}")
    if len(_crew_ids(ship)) >= MAX_CREW:
        ctx.refuse("QC-79", "the ship already has six crew members, one per compartment")
    if fee > hero["credits"] and not ctx.house["qc.crew.feeCanCreateDebt"]:
        ctx.refuse(
            "QC-78",
            f"hiring is optional and cannot create debt: fee {fee}, credits {hero['credits']}",
        )
    credits = qc.change_credits(ctx, -fee, "crewFee")
    ship.setdefault("unassigned_crew", []).append(crew)
    ctx.emit(
        fight_events.CrewHired(
            crew_id=crew["id"],
            name=crew["name"],
            fee=fee,
            credits_before=credits["from_"],
            credits_after=credits["to"],
        )
    )


@rules.command(
    "assign_crew",
    summary="Assign a hired crew member to a compartment with no crew and Integrity at least 1; "
    "crew never move afterwards.",
    example={"type": "assign_crew", "crew": "vex", "compartment": 1},
    rules=("QC-79",),
)
def assign_crew(ctx: Context, args: Values) -> None:
    """QC-79 / G-QC-27: the crew member adds their Integrity bonus to max and current."""
    crew_id = args["crew"]
    key = read_compartment(args["compartment"])
    hero = qc.hero(ctx)
    ship: Ship = ctx.state["ship"]
    compartments = ship["compartments"]
    if any(c["crew"] and c["crew"]["id"] == crew_id for c in compartments.values()):
        ctx.refuse("QC-79", f"{crew_id} is already assigned; crew members never move")
    waiting = ship.get("unassigned_crew", [])
    member = next((c for c in waiting if c["id"] == crew_id), None)
    if member is None:
        raise NotHeld("crew", f"no hired crew member {crew_id!r} is waiting")
    compartment = compartments[key]
    if compartment["crew"]:
        ctx.refuse("QC-79", f"{compartment['name']} already has a crew member")
    if compartment["integrity"] < 1:
        ctx.refuse("QC-79", f"{compartment['name']} is at Integrity 0")
    bonus = member["integrity_bonus"]
    if bonus is None:
        bonus = ctx.house["qc.crew.integrityBonus"]
    compartment["integrity_max"] += bonus
    compartment["integrity"] += bonus
    waiting.remove(member)
    for ability in member["abilities"]:
        granted: Ability = {**ability, "granted_by": crew_id}
        hero["abilities"][ability["id"]] = granted
    abilities = [a["id"] for a in member["abilities"]]
    compartment["crew"] = {
        "id": crew_id,
        "name": member["name"],
        "integrity_bonus": bonus,
        "abilities": abilities,
    }
    ctx.emit(
        fight_events.CrewAssigned(
            crew_id=crew_id,
            compartment=key,
            integrity_bonus=bonus,
            integrity_after=compartment["integrity"],
            integrity_max_after=compartment["integrity_max"],
            abilities=abilities,
        )
    )


# -- upgrades (QC-81..QC-83) -------------------------------------------------------------------


def _acquired_today(page: Page, item: Mapping[str, Any]) -> bool:
    """QC-82 (a): an equipment day, or this item recorded as acquired on this page."""
    return bool(
        page.get("equipment_day")
        or item["id"] in page.get("acquired_items", [])
        or item.get("acquired_on") == page["date"]
    )


@rules.command(
    "install_upgrade",
    summary="Install (or, with replace, swap) a ship upgrade in an allowed compartment, on the "
    "day it is acquired or after repairing a destroyed compartment.",
    example={"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 4},
    rules=("QC-81", "QC-82"),
)
def install_upgrade(ctx: Context, args: Values) -> None:
    """QC-81, QC-82 / G-QC-28: one per compartment; a swapped-out upgrade goes to inventory.

    ``upgrade`` is the id of an upgrade in the inventory, or a full item for one acquired now.
    """
    found = isinstance(args["upgrade"], dict)
    item = qc.read_item(args["upgrade"]) if found else inventory_upgrade(ctx, args["upgrade"])
    key = read_compartment(args["compartment"])
    replace = args["replace"]
    stat_bonus(item)
    hero = qc.hero(ctx)
    page = qc.page(ctx)
    ship: Ship = ctx.state["ship"]
    compartment = ship["compartments"][key]
    allowed = item["compartments"]
    if allowed is not None and key not in {str(c) for c in allowed}:
        ctx.refuse("QC-81", f"{item['id']} fits compartments {allowed}, not {key}")
    old = compartment["upgrade"]
    if old and not replace:
        ctx.refuse("QC-81", f"{compartment['name']} already holds {old['id']} (replace to swap)")
    acquired = found or _acquired_today(page, item)
    windows = page.get("upgrade_window") or []
    if not acquired and key not in windows:
        ctx.refuse(
            "QC-82",
            "upgrades change only when acquired or after a destroyed compartment is repaired",
        )
    minimum = ctx.house["qc.upgrades.installMinIntegrity"]
    if compartment["integrity"] < minimum:
        ctx.refuse(
            "QC-82",
            f"installing needs Integrity {minimum}; {compartment['name']} has "
            f"{compartment['integrity']}",
        )
    if old:
        compartment["upgrade"] = None
        apply_upgrade(ship, old, -1)
        hero["inventory"].append(old)
        ctx.emit(
            fight_events.UpgradeRemoved(upgrade_id=old["id"], compartment=key, to_inventory=True)
        )
    if not found:
        hero["inventory"].remove(item)
    compartment["upgrade"] = item
    stats = apply_upgrade(ship, item, 1)
    if not acquired:
        windows.remove(key)
    ctx.emit(
        fight_events.UpgradeInstalled(
            upgrade_id=item["id"],
            compartment=key,
            replaced_upgrade_id=old["id"] if old else None,
            trigger="acquired" if acquired else "compartmentRestored",
            stats_after=stats,
        )
    )


@rules.command(
    "sell_upgrade",
    summary="Sell a ship upgrade from the inventory at its full catalogue price to an open shop "
    "that sells ship upgrades.",
    example={"type": "sell_upgrade", "upgrade": "targeting-array"},
    rules=("QC-83",),
)
def sell_upgrade(ctx: Context, args: Values) -> None:
    """QC-83 / G-QC-28: any upgrade-selling shop pays the price recorded on the item."""
    item = inventory_upgrade(ctx, args["upgrade"])
    hero = qc.hero(ctx)
    shop = qc.page(ctx).get("shop")
    if not shop:
        ctx.refuse("QC-83", "no shop is open on this page")
    if not shop.get("sells_upgrades"):
        ctx.refuse("QC-83", f"shop {shop.get('id')} does not sell ship upgrades")
    price = item["price"]
    if price is None:
        ctx.refuse("QC-83", f"{item['id']} has no recorded catalogue price")
    hero["inventory"].remove(item)
    credits = qc.change_credits(ctx, price, "sale")
    ctx.emit(
        fight_events.UpgradeSold(
            upgrade_id=item["id"],
            shop_id=shop["id"],
            price=price,
            credits_before=credits["from_"],
            credits_after=credits["to"],
        )
    )
