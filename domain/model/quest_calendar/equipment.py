"""Items the hero gains and the equipment they wear (QC-64, QC-65).

A hero equips at most one item per type (its ``slot``, one of the house rule
``qc.equipment.types``), and changes equipment only on a Rest day or on a day new equipment is
gained (G-QC-24 says which slots that day opens). Gained items go where they belong through
``shops.take``: a Meal Ration to the ``rations`` counter, anything else to the inventory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.command_schema import Values, takes
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import page_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import NO_HERO, NO_PAGE, State, needs
from domain.model.quest_calendar.command_fields import Item as ItemSchema
from domain.model.quest_calendar.command_fields import inventory_item
from domain.model.quest_calendar.shops import is_ration, mark_acquired, read_goods, take
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import flag, nested, picks, text

rules = RULES[QUEST_CALENDAR]
rules.declare(
    page_events.ItemGained,
    page_events.EquipmentEquipped,
    page_events.EquipmentUnequipped,
)

HELMET_EXAMPLE = {"id": "visor", "name": "Void Visor", "kind": "equipment", "slot": "helmet"}


@rules.command(
    "gain_item",
    summary="The hero finds or is given an item; new equipment makes this an equipment day.",
    example={"type": "gain_item", "item": HELMET_EXAMPLE},
    schema=takes(None, item=nested("The item gained.", ItemSchema, required=True)),
    available=needs(),
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


def _equipment_window(state: State) -> Refusal | None:
    """QC-64: equipment changes on a Rest day or a day new equipment is gained."""
    page = state["page"]
    if not (page.get("rest_day") or page.get("equipment_day")):
        return ("QC-64", "equipment changes only on a Rest day or a day new equipment is gained")
    return None


def _window(state: State) -> Refusal | None:
    """QC-17 an open page, QC-64 on which equipment may change."""
    return NO_PAGE if state.get("page") is None else _equipment_window(state)


def can_equip(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-64: a carried equipment item not equipped yet, then an open page on a day that
    allows equipment changes (the handler's order)."""
    hero = state.get("hero")
    if hero is None:
        return NO_HERO
    if not any(i["kind"] == "equipment" for i in hero["inventory"]):
        return ("QC-64", "the hero carries no equipment")
    refusal = _window(state)
    if refusal is not None:
        return refusal
    equipped = set(hero.get("equipped", {}).values())
    if not any(i["kind"] == "equipment" and i["id"] not in equipped for i in hero["inventory"]):
        return ("QC-64", "every carried equipment item is equipped already")
    return None


def can_unequip(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-64: an equipped item, then a page that allows equipment changes."""
    hero = state.get("hero")
    if hero is None:
        return NO_HERO
    if not hero.get("equipped"):
        return ("QC-64", "nothing is equipped")
    return _window(state)


@rules.command(
    "equip",
    summary="Equip a carried item in its slot (on a Rest or equipment day); `replace` swaps out "
    "the item in that slot.",
    example={"type": "equip", "item": "visor", "replace": True},
    schema=takes(
        None,
        item=inventory_item(kind="equipment"),
        replace=flag("Swap out the item already in that slot.", default=False),
    ),
    available=can_equip,
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
    schema=takes(
        None,
        item=picks(
            text("The id of an equipped item.", required=True, max_length=80),
            "/hero/equipped",
            label="@key",
        ),
    ),
    available=can_unequip,
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
