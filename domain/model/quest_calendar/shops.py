"""Shops: entering, buying, selling back and leaving (QC-57..QC-59), and the items the hero
gains from the player (equipment and its slots live in ``equipment``, QC-64).

Items come from the player as data (G-QC-01, ``state.read_item``). An item whose effect is
``{"kind": "ration"}`` is a Meal Ration: it goes to the ``rations`` counter, not the inventory.
Credits move through ``economy.record_credits`` so every movement has its ledger entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from typing import Any

from domain.model.command_schema import Strict, Values, takes
from domain.model.errors import InvalidInput, NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import economy, page_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import NO_PAGE, State, needs
from domain.model.quest_calendar.command_fields import Item as ItemSchema
from domain.model.quest_calendar.command_fields import inventory_item
from domain.model.quest_calendar.state_types import Hero, Item, Page
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import flag, integer, item_of, nested, picks, text
from domain.model.schema_fields import items as many

rules = RULES[QUEST_CALENDAR]
rules.declare(
    page_events.ShopEntered,
    page_events.ItemBought,
    page_events.ItemSold,
)

ITEM_EXAMPLE = {"id": "med-kit", "name": "Med Kit", "kind": "consumable", "price": 5}
RATION_EXAMPLE = {
    "id": "ration",
    "name": "Meal Ration",
    "kind": "other",
    "effect": {"kind": "ration"},
}


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


class StockEntry(Strict):
    """What a shop sells: an item, its price and how many (G-QC-23)."""

    item = nested("The item, defined as in gain_item.", ItemSchema, required=True)
    price = integer("Its price in credits.", required=True, minimum=0, maximum=1_000_000)
    quantity = integer(
        "How many the shop has (default: per the house rule qc.shop.unlimitedStock).",
        minimum=0,
        maximum=10_000,
    )


def _shop_open(state: State) -> Refusal | None:
    """QC-57 / QC-59: the hero is in a shop."""
    page = state["page"]
    if page.get("shop") is None:
        if page.get("shops_left"):
            return ("QC-59", f"shop closed: the hero left {page['shops_left'][-1]}")
        return ("QC-57", "no shop is open on this page; enter one first")
    return None


def _affordable(state: State) -> Refusal | None:
    """QC-57 an item left in stock; QC-62 one the hero can pay for (buying is optional)."""
    shop, credits = state["page"]["shop"], state["hero"]["credits"]
    stocked = [entry for entry in shop["stock"].values() if entry.get("quantity") != 0]
    if not stocked:
        return ("QC-57", f"{shop['id']} has sold out of everything (G-QC-23)")
    if not any(entry["price"] <= 0 or credits >= entry["price"] for entry in stocked):
        return ("QC-62", f"not enough credits: the hero has {credits}")
    return None


def _not_in_shop(state: State) -> Refusal | None:
    """QC-59: one shop at a time."""
    shop = state["page"].get("shop")
    if shop is not None:
        return ("QC-59", f"the hero is still in {shop['id']}; leave it first")
    return None


def _something_to_sell(state: State) -> Refusal | None:
    """QC-58: the shop buys only what it sells, and the hero must carry one."""
    shop = state["page"]["shop"]
    hero = state["hero"]
    carried = {i["id"] for i in hero["inventory"] if i["kind"] != "upgrade"}
    equipped = list(hero.get("equipped", {}).values())
    carried = {
        i for i in carried if sum(1 for x in hero["inventory"] if x["id"] == i) > equipped.count(i)
    }
    if hero.get("rations", 0) > 0:
        carried |= {
            item_id
            for item_id, entry in shop["stock"].items()
            if entry["item"]["effect"].get("kind") == "ration"
        }
    if all(entry["item"]["kind"] == "upgrade" for entry in shop["stock"].values()):
        return ("QC-83", "ship upgrades are sold with sell_upgrade (QC-83), not sell")
    if not carried & set(shop["stock"]):
        return ("QC-58", f"{shop['id']} sells nothing the hero carries, so it buys nothing")
    return None


def can_leave_shop(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-59: leaving needs an open page and an open shop (no hero needed)."""
    page = state.get("page")
    if page is None:
        return NO_PAGE
    if page.get("shop") is None:
        return ("QC-59", "no shop is open")
    return None


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
    schema=takes(
        None,
        shop_id=text(
            "The shop, by the name the page gives it (it names the shop in the log).",
            required=True,
            max_length=80,
        ),
        stock=many(
            "What it sells: each item with its price, each item id once.",
            required=True,
            max_items=200,
            item=item_of(StockEntry),
        ),
        sells_upgrades=flag("Whether it buys and sells ship upgrades.", default=False),
    ),
    available=needs(_not_in_shop),
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
    schema=takes(
        None,
        item=picks(
            text("The id of an item the open shop sells.", required=True, max_length=80),
            "/page/shop/stock",
            value="@key",
            label="item.name",
        ),
    ),
    available=needs(_shop_open, _affordable),
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
    schema=takes(None, item=inventory_item()),
    available=needs(_shop_open, _something_to_sell),
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
    schema=takes(None),
    available=can_leave_shop,
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
