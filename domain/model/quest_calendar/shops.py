"""Shops and equipment: buying, selling back and leaving (QC-57..QC-59), items and slots (QC-64).

Items come from the player as data (G-QC-01, ``state.read_item``). An item whose effect is
``{"kind": "ration"}`` is a Meal Ration: it goes to the ``rations`` counter, not the inventory.
Credits move through ``economy.record_credits`` so every movement has its ledger entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from typing import Any

from domain.model.command_schema import Values
from domain.model.errors import InvalidInput, NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import economy, page_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.state_types import Hero, Item, Page
from domain.model.rules_engine import Context

rules = RULES[QUEST_CALENDAR]
rules.declare(
    page_events.ShopEntered,
    page_events.ItemBought,
    page_events.ItemSold,
    page_events.ItemGained,
    page_events.EquipmentEquipped,
    page_events.EquipmentUnequipped,
)

ITEM_EXAMPLE = {"id": "med-kit", "name": "Med Kit", "kind": "consumable", "price": 5}
RATION_EXAMPLE = {
    "id": "ration",
    "name": "Meal Ration",
    "kind": "other",
    "effect": {"kind": "ration"},
}
HELMET_EXAMPLE = {"id": "visor", "name": "Void Visor", "kind": "equipment", "slot": "helmet"}


def is_ration(item: Mapping[str, Any]) -> bool:
    """A Meal Ration counts in ``hero["rations"]`` (QC-65)."""
    return bool((item["effect"] or {}).get("kind") == "ration")


def read_goods(ctx: Context, raw: Any, field: str) -> Item:
    """An item from the player whose equipment slot is one of the house's types (G-QC-24).

    Both refusals are the campaign's (409 not-held naming the field): the slot types are its
    house rule ``qc.equipment.types``, and an id is taken by what the hero carries."""
    item = qc.read_item(raw)
    types = ctx.house["qc.equipment.types"]
    if item["kind"] == "equipment" and item["slot"] not in types:
        raise NotHeld(
            f"{field}.slot",
            f"must be one of {', '.join(types)} (the house rule qc.equipment.types)",
        )
    carried = next(
        (i for i in (ctx.state.get("hero") or {}).get("inventory", []) if i["id"] == item["id"]),
        None,
    )
    if carried is not None and not qc.same_item(carried, item):
        # an id names one item: two different ones under it would make `use`, `sell` and the
        # log ambiguous about which one was meant
        raise NotHeld(
            f"{field}.id",
            f"the hero carries a different item with the id {item['id']!r} "
            f"({carried.get('name') or carried['kind']}); give this one an id of its own",
        )
    return item


def mark_acquired(page: Page, item: Mapping[str, Any]) -> None:
    """Record an acquisition; equipment opens equipment changes for the page (QC-64, G-QC-24)."""
    # Upgrades may be installed on the day they are acquired (QC-82 reads ``acquired_items``).
    acquired = page.setdefault("acquired_items", [])
    if item["id"] not in acquired:
        acquired.append(item["id"])
    if item["kind"] != "equipment":
        return
    page["equipment_day"] = True
    slots = page.setdefault("acquired_slots", [])
    if item["slot"] not in slots:
        slots.append(item["slot"])


def take(hero: Hero, item: Item) -> None:
    """Put a gained item where it belongs: the rations counter or the inventory."""
    if is_ration(item):
        hero["rations"] += 1
    else:
        hero["inventory"].append(item)


# -- shops -------------------------------------------------------------------------------------


def read_stock(ctx: Context, entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The shop's stock: item id -> price, item and quantity (None: unlimited, G-QC-23)."""
    stock: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(entries):
        where = f"stock[{index}]"
        price, quantity = entry["price"], entry["quantity"]
        item = read_goods(ctx, entry["item"], f"{where}.item")
        if item["id"] in stock:
            raise InvalidInput.field(f"{where}.item.id", "appears twice in the stock")
        if quantity is None and not ctx.house["qc.shop.unlimitedStock"]:
            quantity = 1
        stock[item["id"]] = {"price": price, "item": item, "quantity": quantity}
    return stock


def open_shop(ctx: Context) -> dict[str, Any]:
    """The shop the hero is in, or a refusal: none entered (QC-57) or already left (QC-59)."""
    page = qc.page(ctx)
    shop = page.get("shop")
    if shop is None:
        left = page.get("shops_left", [])
        if left:
            ctx.refuse("QC-59", f"shop closed: the hero left {left[-1]}; that visit is over")
        ctx.refuse("QC-57", "no shop is open on this page; enter one first")
    result: dict[str, Any] = shop
    return result


@rules.command(
    "enter_shop",
    summary="Enter a shop the page offers, with its stock and prices.",
    example={
        "type": "enter_shop",
        "shop_id": "dock-market",
        "stock": [{"item": ITEM_EXAMPLE, "price": 5}, {"item": RATION_EXAMPLE, "price": 2}],
        "sells_upgrades": False,
    },
    rules=("QC-57", "QC-59"),
)
def enter_shop(ctx: Context, args: Values) -> None:
    """QC-57: one shop open at a time; a shop left on this page cannot be entered again (QC-59)."""
    shop_id = args["shop_id"]
    stock = read_stock(ctx, args["stock"])
    sells_upgrades = args["sells_upgrades"]
    qc.hero(ctx)
    page = qc.page(ctx)
    open_shop = page["shop"]
    if open_shop is not None:
        ctx.refuse("QC-59", f"the hero is still in {open_shop['id']}; leave it first")
    if shop_id in page.get("shops_left", []):
        ctx.refuse("QC-59", f"shop closed: the hero already left {shop_id} on this page")
    page["shop"] = {"id": shop_id, "stock": stock, "sells_upgrades": sells_upgrades}
    ctx.emit(
        page_events.ShopEntered(
            shop_id=shop_id,
            page_date=page["date"],
            stock={item_id: entry["price"] for item_id, entry in stock.items()},
            sells_upgrades=sells_upgrades,
        )
    )


@rules.command(
    "buy",
    summary="Buy one item the open shop sells; buying is optional, so it needs the credits.",
    example={"type": "buy", "item": "med-kit"},
    rules=("QC-57", "QC-59", "QC-62"),
)
def buy(ctx: Context, args: Values) -> None:
    """QC-57 / QC-62: credits >= price, so a hero in debt buys nothing with a positive price."""
    item_id = args["item"]
    hero = qc.hero(ctx)
    shop = open_shop(ctx)
    entry = shop["stock"].get(item_id)
    if entry is None:
        ctx.refuse("QC-57", f"{shop['id']} does not sell {item_id}")
    if entry["quantity"] == 0:
        ctx.refuse("QC-57", f"{shop['id']} has sold out of {item_id} (G-QC-23)")
    price = entry["price"]
    credits = hero["credits"]
    if price > 0 and credits < price:
        reason = "the hero is in debt" if credits < 0 else f"the hero has {credits}"
        ctx.refuse("QC-62", f"not enough credits: the {item_id} costs {price} and {reason}")
    if entry["quantity"] is not None:
        entry["quantity"] -= 1
    item = deepcopy(entry["item"])
    if item["price"] is None:
        # The purchase price stays on the item: an upgrade resells at it (G-QC-28).
        item["price"] = price
    take(hero, item)
    mark_acquired(qc.page(ctx), item)
    movement = qc.change_credits(ctx, -price, "purchase")
    ctx.emit(
        page_events.ItemBought(
            shop_id=shop["id"],
            item_id=item_id,
            price=price,
            to_rations=is_ration(item),
            credits_after=movement["to"],
        )
    )
    economy.record_credits(ctx, movement, shop_id=shop["id"], item_id=item_id)


@rules.command(
    "sell",
    summary="Sell an item back to the open shop, only if it sells the same item, at its price.",
    example={"type": "sell", "item": "ration"},
    rules=("QC-58", "QC-59"),
)
def sell(ctx: Context, args: Values) -> None:
    """QC-58: same item, shop's price; allowed in debt, where it pays debt back (G-QC-23)."""
    item_id = args["item"]
    hero = qc.hero(ctx)
    shop = open_shop(ctx)
    entry = shop["stock"].get(item_id)
    owned = [n for n, item in enumerate(hero["inventory"]) if item["id"] == item_id]
    known = hero["inventory"][owned[0]] if owned else entry["item"] if entry else None
    if known is not None and known["kind"] == "upgrade":
        ctx.refuse("QC-83", "ship upgrades are sold with sell_upgrade (QC-83), not sell")
    if entry is None:
        ctx.refuse("QC-58", f"{shop['id']} does not sell {item_id}, so it will not buy one")
    from_rations = is_ration(entry["item"]) and not owned
    if from_rations:
        if hero["rations"] < 1:
            ctx.refuse("QC-58", "the hero has no Meal Rations to sell")
        hero["rations"] -= 1
    else:
        if not owned:
            ctx.refuse("QC-58", f"the hero has no {item_id} to sell")
        equipped = sum(1 for worn in hero["equipped"].values() if worn == item_id)
        if len(owned) <= equipped:
            ctx.refuse("QC-64", f"{item_id} is equipped; unequip it on a Rest or equipment day")
        del hero["inventory"][owned[-1]]
    price = entry["price"]
    movement = qc.change_credits(ctx, price, "sale")
    ctx.emit(
        page_events.ItemSold(
            shop_id=shop["id"],
            item_id=item_id,
            price=price,
            from_rations=from_rations,
            credits_after=movement["to"],
        )
    )
    economy.record_credits(ctx, movement, shop_id=shop["id"], item_id=item_id)


@rules.command(
    "leave_shop",
    summary="Leave the open shop; that visit is over and nothing more can be bought or sold there.",
    example={"type": "leave_shop"},
    rules=("QC-59",),
)
def leave_shop(ctx: Context, args: Values) -> None:
    """QC-59: the shop closes when the hero moves on."""
    page = qc.page(ctx)
    shop = page.get("shop")
    if shop is None:
        ctx.refuse("QC-59", "no shop is open")
    page["shop"] = None
    page.setdefault("shops_left", []).append(shop["id"])
    ctx.emit(page_events.ShopLeft(shop_id=shop["id"], reason="left"))


# -- items and equipment -----------------------------------------------------------------------


@rules.command(
    "gain_item",
    summary="The hero finds or is given an item; new equipment makes this an equipment day.",
    example={"type": "gain_item", "item": HELMET_EXAMPLE},
    rules=("QC-64", "QC-65"),
)
def gain_item(ctx: Context, args: Values) -> None:
    """QC-64: a day new equipment is acquired allows equipment changes (G-QC-24)."""
    item = read_goods(ctx, args["item"], "item")
    hero = qc.hero(ctx)
    page = qc.page(ctx)
    take(hero, item)
    mark_acquired(page, item)
    ctx.emit(
        page_events.ItemGained(
            item_id=item["id"],
            kind=item["kind"],
            slot=item["slot"],
            to_rations=is_ration(item),
            equipment_day=page["equipment_day"],
        )
    )


def change_window(ctx: Context, slot: str) -> str:
    """Why equipment may change now ("rest" or "acquisitionDay"), or a QC-64 refusal."""
    page = qc.page(ctx)
    if page.get("rest_day"):
        return "rest"
    if page.get("equipment_day"):
        acquired = page.get("acquired_slots", [])
        if ctx.house["qc.equipment.swapScopeOnAcquire"] == "sameType" and slot not in acquired:
            ctx.refuse(
                "QC-64",
                f"only the slot of today's new equipment ({', '.join(acquired)}) may change "
                "(G-QC-24 sameType)",
            )
        return "acquisitionDay"
    ctx.refuse("QC-64", "equipment changes only on a Rest day or a day new equipment is gained")


@rules.command(
    "equip",
    summary="Equip a carried item in its slot (on a Rest or equipment day); `replace` swaps out "
    "the item in that slot.",
    example={"type": "equip", "item": "visor", "replace": True},
    rules=("QC-64",),
)
def equip(ctx: Context, args: Values) -> None:
    """QC-64: one item per type; a second one is refused unless it replaces the first."""
    item_id = args["item"]
    replace = args["replace"]
    hero = qc.hero(ctx)
    item = next((i for i in hero["inventory"] if i["id"] == item_id), None)
    if item is None:
        ctx.refuse("QC-64", f"the hero does not carry {item_id}")
    if item["kind"] != "equipment":
        ctx.refuse("QC-64", f"{item_id} is {item['kind']}, not equipment")
    slot = item["slot"]
    if slot is None:
        ctx.refuse("QC-64", f"{item_id} has no equipment slot")
    timing = change_window(ctx, slot)
    current = hero["equipped"].get(slot)
    if current == item_id:
        ctx.refuse("QC-64", f"{item_id} is already equipped")
    if current is not None and not replace:
        ctx.refuse(
            "QC-64",
            f"the {current} is already equipped as {slot}; send replace: true to swap",
        )
    hero["equipped"][slot] = item_id
    replaced: Mapping[str, Any] = next((i for i in hero["inventory"] if i["id"] == current), {})
    ctx.emit(
        page_events.EquipmentEquipped(
            item_id=item_id,
            item_type=slot,
            timing=timing,
            replaced_item_id=current,
            **{"name": item["name"]} if item.get("name") else {},
            **{"replaced_name": replaced["name"]} if replaced.get("name") else {},
        )
    )


@rules.command(
    "unequip",
    summary="Take off an equipped item (on a Rest or equipment day); it stays in the inventory.",
    example={"type": "unequip", "item": "visor"},
    rules=("QC-64",),
)
def unequip(ctx: Context, args: Values) -> None:
    """QC-64: equipment changes only at a Rest or on an acquisition day."""
    item_id = args["item"]
    hero = qc.hero(ctx)
    slot = next((s for s, worn in hero["equipped"].items() if worn == item_id), None)
    if slot is None:
        ctx.refuse("QC-64", f"{item_id} is not equipped")
    timing = change_window(ctx, slot)
    del hero["equipped"][slot]
    ctx.emit(page_events.EquipmentUnequipped(item_id=item_id, item_type=slot, timing=timing))
