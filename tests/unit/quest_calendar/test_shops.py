"""Shops (buying, selling back, leaving), gained items, equipment slots and swapping."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.quest_calendar.harness import HERO, Table

MED_KIT = {
    "id": "med-kit",
    "name": "Med Kit",
    "kind": "consumable",
    "effect": {"kind": "heal", "dice": "1d6"},
}
RATION = {"id": "ration", "name": "Meal Ration", "kind": "other", "effect": {"kind": "ration"}}
ANTIDOTE = {"id": "antidote", "name": "Antidote", "kind": "consumable", "price": 4}
VISOR = {"id": "visor", "name": "Void Visor", "kind": "equipment", "slot": "helmet"}
HALO = {"id": "halo", "name": "Halo Helm", "kind": "equipment", "slot": "helmet"}
BOOTS = {"id": "mag-boots", "name": "Mag Boots", "kind": "equipment", "slot": "boots"}
ARRAY = {"id": "array", "name": "Targeting Array", "kind": "upgrade", "price": 9}


def hero(**changes: Any) -> dict[str, Any]:
    """The harness hero with some numbers changed."""
    return {**HERO, **changes}


def shop(*stock: tuple[dict[str, Any], int], shop_id: str = "dock-market") -> dict[str, Any]:
    """An enter_shop command."""
    entries = [{"item": item, "price": price} for item, price in stock]
    return {"type": "enter_shop", "shop_id": shop_id, "stock": entries}


# -- QC-57 buying ------------------------------------------------------------------------------


def test_qc57_buying_takes_the_price_example() -> None:
    table = Table(hero=hero(credits=12))
    (entered,) = table.run(shop((MED_KIT, 5), (RATION, 2)))
    assert entered.details["stock"] == {"med-kit": 5, "ration": 2}
    assert table.state["page"]["shop"]["stock"]["med-kit"]["price"] == 5
    events = table.run({"type": "buy", "item": "med-kit"})
    assert table.types(events) == ["ItemBought", "CreditsChanged"]
    assert events[0].details["credits_after"] == 7
    assert events[1].details == {
        "from": 12,
        "to": 7,
        "delta": -5,
        "cause": "purchase",
        "shop_id": "dock-market",
        "item_id": "med-kit",
    }
    assert table.hero["credits"] == 7
    assert [item["id"] for item in table.hero["inventory"]] == ["med-kit"]
    assert table.hero["inventory"][0]["price"] == 5


def test_qc57_bought_meal_rations_go_to_the_rations_counter() -> None:
    table = Table()
    table.run(shop((RATION, 2)))
    (bought, _) = table.run({"type": "buy", "item": "ration"})
    assert bought.details["to_rations"] is True
    assert table.hero["rations"] == 3
    assert table.hero["inventory"] == []


def test_qc57_only_listed_items_in_an_open_shop() -> None:
    table = Table()
    assert table.refused({"type": "buy", "item": "med-kit"}).rule_id == "QC-57"
    table.run(shop((MED_KIT, 5)))
    assert table.refused({"type": "buy", "item": "antidote"}).rule_id == "QC-57"


def test_qc57_g_qc23_listed_stock_runs_out() -> None:
    table = Table()
    entries = [{"item": MED_KIT, "price": 1, "quantity": 1}, {"item": RATION, "price": 1}]
    table.run({"type": "enter_shop", "shop_id": "stall", "stock": entries})
    table.run({"type": "buy", "item": "med-kit"})
    assert table.refused({"type": "buy", "item": "med-kit"}).rule_id == "QC-57"
    table.run({"type": "buy", "item": "ration"})
    table.run({"type": "buy", "item": "ration"})
    assert table.hero["rations"] == 4


def test_qc57_g_qc23_limited_stock_house_rule_means_one_of_each() -> None:
    table = Table({"qc.shop.unlimitedStock": False})
    table.run(shop((RATION, 1)))
    table.run({"type": "buy", "item": "ration"})
    assert "sold out" in table.refused({"type": "buy", "item": "ration"}).reason


def test_qc57_stock_is_validated_field_by_field() -> None:
    table = Table()
    no_price = table.invalid({"type": "enter_shop", "shop_id": "s", "stock": [{"item": MED_KIT}]})
    assert "stock[0].price" in no_price.errors
    bad_slot = table.invalid(shop(({**VISOR, "slot": "tail"}, 3)))
    assert "stock[0].item.slot" in bad_slot.errors
    twice = table.invalid(shop((MED_KIT, 3), (MED_KIT, 4)))
    assert "stock[1].item.id" in twice.errors


def test_qc57_buying_equipment_makes_an_equipment_day() -> None:
    table = Table()
    table.run(shop((VISOR, 3)))
    table.run({"type": "buy", "item": "visor"})
    assert table.state["page"]["equipment_day"] is True
    (equipped,) = table.run({"type": "equip", "item": "visor"})
    assert equipped.details["timing"] == "acquisitionDay"


@pytest.mark.parametrize(("credits", "price"), [(4, 5), (-1, 1), (-1, 5)])
def test_qc62_purchase_refused_without_the_credits(credits: int, price: int) -> None:
    table = Table(hero=hero(credits=credits))
    table.run(shop((RATION, price)))
    refused = table.refused({"type": "buy", "item": "ration"})
    assert refused.rule_id == "QC-62"
    assert "not enough credits" in refused.reason


def test_qc62_a_free_item_can_be_taken_in_debt() -> None:
    table = Table(hero=hero(credits=-1))
    table.run(shop((RATION, 0)))
    table.run({"type": "buy", "item": "ration"})
    assert (table.hero["credits"], table.hero["rations"]) == (-1, 3)


# -- QC-58 selling -----------------------------------------------------------------------------


def test_qc58_sell_a_ration_to_a_shop_that_sells_rations() -> None:
    table = Table()
    table.run(shop((RATION, 2)))
    events = table.run({"type": "sell", "item": "ration"})
    assert table.types(events) == ["ItemSold", "CreditsChanged"]
    assert events[0].details["from_rations"] is True
    assert events[1].details["cause"] == "sale"
    assert (table.hero["credits"], table.hero["rations"]) == (12, 1)


def test_qc58_no_sale_to_a_shop_that_does_not_sell_the_item() -> None:
    table = Table(hero=hero(inventory=[ANTIDOTE]))
    table.run(shop((RATION, 2)))
    refused = table.refused({"type": "sell", "item": "antidote"})
    assert refused.rule_id == "QC-58"
    assert "does not sell antidote" in refused.reason


def test_qc58_the_hero_must_have_the_item() -> None:
    table = Table(hero=hero(rations=0))
    table.run(shop((MED_KIT, 5), (RATION, 2)))
    assert table.refused({"type": "sell", "item": "med-kit"}).rule_id == "QC-58"
    assert table.refused({"type": "sell", "item": "ration"}).rule_id == "QC-58"


def test_qc58_sells_at_the_shops_price_not_the_items() -> None:
    table = Table(hero=hero(inventory=[ANTIDOTE]))
    table.run(shop(({**ANTIDOTE, "price": 1}, 3)))
    (sold, _) = table.run({"type": "sell", "item": "antidote"})
    assert sold.details["price"] == 3
    assert table.hero["credits"] == 13
    assert table.hero["inventory"] == []


def test_qc58_g_qc23_selling_in_debt_pays_it_back() -> None:
    table = Table(hero=hero(credits=-4, inventory=[ANTIDOTE]))
    table.run(shop((ANTIDOTE, 6)))
    events = table.run({"type": "sell", "item": "antidote"})
    assert table.types(events) == ["ItemSold", "CreditsChanged", "DebtPaid"]
    assert table.hero["credits"] == 2


def test_qc58_upgrades_are_sold_under_qc83() -> None:
    table = Table(hero=hero(inventory=[ARRAY]))
    table.run({**shop((ARRAY, 9)), "sells_upgrades": True})
    refused = table.refused({"type": "sell", "item": "array"})
    assert refused.rule_id == "QC-83"
    assert "sell_upgrade" in refused.reason


def test_qc58_an_equipped_item_is_not_sold_unless_a_spare_is_carried() -> None:
    table = Table(hero=hero(inventory=[VISOR]))
    table.given(lambda s: s["hero"]["equipped"].update(helmet="visor"))
    table.run(shop((VISOR, 3)))
    assert table.refused({"type": "sell", "item": "visor"}).rule_id == "QC-64"
    table.run({"type": "buy", "item": "visor"})
    table.run({"type": "sell", "item": "visor"})
    assert [item["id"] for item in table.hero["inventory"]] == ["visor"]
    assert table.hero["equipped"] == {"helmet": "visor"}


# -- QC-59 leaving -----------------------------------------------------------------------------


def test_qc59_no_buying_or_selling_after_leaving() -> None:
    table = Table()
    table.run(shop((RATION, 2)))
    (left,) = table.run({"type": "leave_shop"})
    assert left.details == {"shop_id": "dock-market", "reason": "left"}
    assert table.state["page"]["shop"] is None
    bought = table.refused({"type": "buy", "item": "ration"})
    assert (bought.rule_id, bought.reason.startswith("shop closed")) == ("QC-59", True)
    assert table.refused({"type": "sell", "item": "ration"}).rule_id == "QC-59"
    assert table.refused(shop((RATION, 2))).rule_id == "QC-59"
    assert table.refused({"type": "leave_shop"}).rule_id == "QC-59"
    table.run(shop((RATION, 3), shop_id="bazaar"))
    table.run({"type": "buy", "item": "ration"})
    assert table.hero["credits"] == 7


def test_qc59_one_shop_open_at_a_time_and_the_page_end_closes_it() -> None:
    table = Table()
    table.run(shop((RATION, 2)))
    assert table.refused(shop((RATION, 2), shop_id="bazaar")).rule_id == "QC-59"
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-05"})
    assert table.refused({"type": "buy", "item": "ration"}).rule_id == "QC-57"
    table.run(shop((RATION, 2)))


# -- QC-64 equipment ---------------------------------------------------------------------------


def test_qc64_gaining_equipment_makes_an_equipment_day_and_swaps_need_replace() -> None:
    table = Table()
    (gained,) = table.run({"type": "gain_item", "item": VISOR})
    assert gained.details["equipment_day"] is True
    table.run({"type": "equip", "item": "visor"})
    table.run({"type": "gain_item", "item": HALO})
    refused = table.refused({"type": "equip", "item": "halo"})
    assert (refused.rule_id, "is already equipped" in refused.reason) == ("QC-64", True)
    (swapped,) = table.run({"type": "equip", "item": "halo", "replace": True})
    assert swapped.details == {
        "item_id": "halo",
        "item_type": "helmet",
        "timing": "acquisitionDay",
        "replaced_item_id": "visor",
        "name": "Halo Helm",
        "replaced_name": "Void Visor",
    }
    assert table.hero["equipped"] == {"helmet": "halo"}
    assert [item["id"] for item in table.hero["inventory"]] == ["visor", "halo"]
    assert table.refused({"type": "equip", "item": "halo"}).rule_id == "QC-64"


def test_qc02_qc64_a_hero_starts_wearing_the_equipment_its_book_shows() -> None:
    table = Table(hero=hero(inventory=[VISOR, BOOTS, MED_KIT], equipped=["visor", "mag-boots"]))
    assert table.hero["equipped"] == {"helmet": "visor", "boots": "mag-boots"}
    # worn from the first page on: an ordinary day still changes nothing (QC-64)
    assert table.refused({"type": "unequip", "item": "visor"}).rule_id == "QC-64"


@pytest.mark.parametrize(
    ("inventory", "equipped", "says"),
    [
        ([VISOR], ["halo"], "'halo' is not in the inventory"),
        ([VISOR, MED_KIT], ["med-kit"], "'med-kit' is not equipment"),
        ([VISOR, HALO], ["visor", "halo"], "one item per type (QC-64)"),
    ],
)
def test_qc64_what_a_new_hero_wears_is_checked_field_by_field(
    inventory: list[dict[str, Any]], equipped: list[str], says: str
) -> None:
    table = Table(with_hero=False)
    body = {"phase": "main", "hero": hero(inventory=inventory, equipped=equipped)}
    errors = table.invalid({"type": "select_hero", **body}).errors
    (where,) = [key for key in errors if key.startswith("hero.equipped.")]
    assert says in str(errors[where])
    assert table.state.get("hero") is None


HEALING_KIT = {**MED_KIT, "effect": {"kind": "heal", "amount": 5}}
"""Another item under the Med Kit's id."""


def test_qc57_an_id_names_one_item_so_a_different_one_under_it_is_refused() -> None:
    """The trial's Med Kit: a second, different item under a carried item's id would make use,
    sell and the log ambiguous, so the shop stock and a gained item naming it are refused: the
    id is taken by what the hero carries, the state's answer (409 not-held naming the field)."""
    table = Table(hero=hero(inventory=[MED_KIT]))
    errors = table.not_held(shop((HEALING_KIT, 3))).errors
    assert "different item with the id 'med-kit'" in str(errors["stock[0].item.id"])
    errors = table.not_held({"type": "gain_item", "item": HEALING_KIT}).errors
    assert "give this one an id of its own" in str(errors["item.id"])
    table.run({"type": "gain_item", "item": {**MED_KIT, "price": 4}})  # the same item: a copy
    assert [item["id"] for item in table.hero["inventory"]] == ["med-kit", "med-kit"]


def test_qc57_a_new_hero_carries_one_item_per_id() -> None:
    table = Table(with_hero=False)
    body = {"phase": "main", "hero": hero(inventory=[MED_KIT, HEALING_KIT])}
    errors = table.invalid({"type": "select_hero", **body}).errors
    assert "hero.inventory.1.id" in errors, errors


def test_qc64_no_equipment_change_on_an_ordinary_day() -> None:
    table = Table(hero=hero(inventory=[VISOR, MED_KIT]))
    assert table.refused({"type": "equip", "item": "visor"}).rule_id == "QC-64"
    table.given(lambda s: s["hero"]["equipped"].update(helmet="visor"))
    assert table.refused({"type": "unequip", "item": "visor"}).rule_id == "QC-64"
    table.run({"type": "gain_item", "item": MED_KIT})
    assert table.state["page"]["equipment_day"] is False
    assert table.refused({"type": "unequip", "item": "visor"}).rule_id == "QC-64"


def test_qc64_equipment_changes_on_a_rest_day() -> None:
    table = Table(hero=hero(inventory=[VISOR, BOOTS, MED_KIT]), page=None)
    table.run({"type": "start_page", "date": "2027-01-06", "rest_day": True})
    (equipped,) = table.run({"type": "equip", "item": "mag-boots"})
    assert equipped.details["timing"] == "rest"
    table.run({"type": "equip", "item": "visor"})
    (removed,) = table.run({"type": "unequip", "item": "visor"})
    assert removed.details == {"item_id": "visor", "item_type": "helmet", "timing": "rest"}
    assert table.hero["equipped"] == {"boots": "mag-boots"}
    assert table.refused({"type": "equip", "item": "med-kit"}).rule_id == "QC-64"
    assert table.refused({"type": "equip", "item": "cloak"}).rule_id == "QC-64"
    assert table.refused({"type": "unequip", "item": "visor"}).rule_id == "QC-64"


@pytest.mark.parametrize(("scope", "allowed"), [("all", True), ("sameType", False)])
def test_qc64_g_qc24_swap_scope_on_an_acquisition_day(scope: str, allowed: bool) -> None:
    table = Table({"qc.equipment.swapScopeOnAcquire": scope}, hero=hero(inventory=[BOOTS]))
    table.run({"type": "gain_item", "item": VISOR})
    command = {"type": "equip", "item": "mag-boots"}
    if allowed:
        table.run(command)
        assert table.hero["equipped"] == {"boots": "mag-boots"}
    else:
        assert "sameType" in table.refused(command).reason
    table.run({"type": "equip", "item": "visor"})
    assert table.hero["equipped"]["helmet"] == "visor"


def test_qc64_g_qc24_slot_types_come_from_the_house_rules() -> None:
    table = Table()  # the slot types are the campaign's house rule: a 409 not-held
    assert (
        "item.slot"
        in table.not_held({"type": "gain_item", "item": {**VISOR, "slot": "tail"}}).errors
    )
    assert (
        "item.kind" in table.invalid({"type": "gain_item", "item": {**VISOR, "kind": "x"}}).errors
    )
    tails = Table({"qc.equipment.types": ["tail"]})
    tails.run({"type": "gain_item", "item": {**VISOR, "slot": "tail"}})
    tails.run({"type": "equip", "item": "visor"})
    assert tails.hero["equipped"] == {"tail": "visor"}


def test_qc65_gained_meal_rations_are_counted() -> None:
    table = Table()
    (gained,) = table.run({"type": "gain_item", "item": RATION})
    assert gained.details["to_rations"] is True
    assert table.hero["rations"] == 3
    assert table.state["page"]["equipment_day"] is False
