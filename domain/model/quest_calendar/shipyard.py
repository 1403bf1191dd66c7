"""The shipyard: repairs and upgrades (QC-77, QC-81..QC-83); the crew live in ``crew``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from marshmallow import ValidationError

from domain.model.command_schema import Document, Values, exactly_one, given, takes
from domain.model.errors import NotHeld
from domain.model.quest_calendar import fight_events, hero_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import State, hero_and_page, needs
from domain.model.quest_calendar.command_fields import (
    INVENTORY,
    Item,
    hero_ability,
    inventory_item,
    ship_compartment,
)
from domain.model.quest_calendar.ship import (
    apply_upgrade,
    in_progress,
    inventory_upgrade,
    read_compartment,
    rules,
    stat_bonus,
)
from domain.model.quest_calendar.state_types import Page, Ship
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import flag, id_or_object, integer, picks

rules.declare(
    fight_events.ShipRepaired,
    fight_events.UpgradeInstalled,
    fight_events.UpgradeRemoved,
    fight_events.UpgradeSold,
)

# -- repairs (QC-77) ---------------------------------------------------------------------------


def parts_or_ability(data: dict[str, Any]) -> None:
    """QC-77: a repair uses parts or an ability, not both."""
    if (data.get("parts") is None) == (data.get("ability") is None):
        raise ValidationError("give either parts or ability", "parts")


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


def _repairable(state: State, house: Mapping[str, Any]) -> Refusal | None:
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


@rules.command(
    "repair_ship",
    summary="Restore a compartment's Integrity with Ship Parts from the inventory (or a repair "
    "ability); never between rounds.",
    example={"type": "repair_ship", "compartment": 4, "parts": 1},
    schema=takes(
        "The repair ability's dice when an ability repairs; otherwise none.",
        compartment=ship_compartment("The compartment repaired (1-6)."),
        parts=integer("Ship Parts to use.", minimum=1, maximum=100),
        ability=hero_ability("A repair ability to use instead of parts.", required=False),
        checks=[parts_or_ability],
        document=[exactly_one(given("parts", "integer"), given("ability", "string"))],
    ),
    available=lambda state, house: hero_and_page(state) or _repairable(state, house),
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


# -- upgrades (QC-81..QC-83) -------------------------------------------------------------------


def _acquired_today(page: Page, item: Mapping[str, Any]) -> bool:
    """QC-82 (a): an equipment day, or this item recorded as acquired on this page."""
    return bool(
        page.get("equipment_day")
        or item["id"] in page.get("acquired_items", [])
        or item.get("acquired_on") == page["date"]
    )


UPGRADE_ONLY: Document = {
    "not": {
        "required": ["upgrade"],
        "properties": {
            "upgrade": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"not": {"enum": ["upgrade"]}}},
            }
        },
    }
}
"""An upgrade defined in the command is an item of kind upgrade (as the document states it)."""


def an_upgrade(data: dict[str, Any]) -> None:
    """An upgrade defined here is of kind upgrade."""
    upgrade = data.get("upgrade")
    if isinstance(upgrade, dict) and upgrade["kind"] != "upgrade":
        raise ValidationError("must be upgrade", "upgrade.kind")


def _upgrade_room(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-82: an upgrade defined with the command is acquired now; it needs a compartment with
    the Integrity the house rule asks for."""
    minimum = house.get("qc.upgrades.installMinIntegrity", 0)
    if not any(c["integrity"] >= minimum for c in state["ship"]["compartments"].values()):
        return ("QC-82", f"installing needs Integrity {minimum}; no compartment has it")
    return None


@rules.command(
    "install_upgrade",
    summary="Install (or, with replace, swap) a ship upgrade in an allowed compartment, on the "
    "day it is acquired or after repairing a destroyed compartment.",
    example={"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 4},
    schema=takes(
        None,
        upgrade=picks(
            id_or_object("An upgrade in the inventory (its id), or one defined here.", Item),
            INVENTORY,
            value="id",
            label="name",
            where={"kind": "upgrade"},
            free=True,
        ),
        checks=[an_upgrade],
        document=[UPGRADE_ONLY],
        compartment=ship_compartment("The compartment (1-6)."),
        replace=flag("Swap out the upgrade already installed there.", default=False),
    ),
    available=lambda state, house: hero_and_page(state) or _upgrade_room(state, house),
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


def _upgrade_shop(state: State) -> Refusal | None:
    """QC-83: a shop that buys upgrades, and an upgrade to sell."""
    shop = state["page"].get("shop")
    if shop is None:
        return ("QC-83", "no shop is open on this page")
    if not shop.get("sells_upgrades"):
        return ("QC-83", f"shop {shop.get('id')} does not sell ship upgrades")
    if not any(i["kind"] == "upgrade" for i in state["hero"]["inventory"]):
        return ("QC-83", "the hero carries no ship upgrade")
    return None


@rules.command(
    "sell_upgrade",
    summary="Sell a ship upgrade from the inventory at its full catalogue price to an open shop "
    "that sells ship upgrades.",
    example={"type": "sell_upgrade", "upgrade": "targeting-array"},
    schema=takes(
        None,
        upgrade=inventory_item("The id of an upgrade in the inventory.", kind="upgrade"),
    ),
    available=needs(_upgrade_shop),
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
