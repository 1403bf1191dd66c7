"""The known items and the hero sheet's words (``catalogue``): the rulebook's items are items the
game takes (G-QC-01), every effect kind the engine applies is said in words, and what the library
accepts is what a campaign accepts."""

from __future__ import annotations

from typing import Any

import pytest

from domain.model.errors import InvalidInput
from domain.model.quest_calendar import catalogue
from domain.model.quest_calendar.command_fields import EFFECT_KINDS
from domain.model.quest_calendar.state import CONTEXTS, ITEM_KINDS, TRAITS, USAGES
from domain.model.samples import SCOUT
from tests.unit.quest_calendar.harness import Table


@pytest.mark.parametrize("item", catalogue.RULEBOOK_ITEMS, ids=lambda item: str(item["id"]))
def test_gqc01_each_rulebook_item_is_gained_and_sold_as_the_game_takes_it(item: Any) -> None:
    """G-QC-01: the catalogue's data passes gain_item's schema and a shop sells it (QC-57)."""
    assert catalogue.check_item(item) == item
    table = Table()
    table.run({"type": "gain_item", "item": item})
    stock = [{"item": item, "price": 3}]
    table.run({"type": "enter_shop", "shop_id": "market", "stock": stock})
    assert table.campaign.state["page"]["shop"]["stock"][item["id"]]["price"] == 3


def test_the_rulebook_items_have_ids_of_their_own() -> None:
    ids = [item["id"] for item in catalogue.RULEBOOK_ITEMS]
    assert len(ids) == len(set(ids))


def test_every_applied_effect_kind_and_every_choice_is_in_words() -> None:
    """The sheet's lists cover what the schemas take, each value said in words of its own."""
    assert set(EFFECT_KINDS) | {"ration"} == set(catalogue.EFFECT_WORDS)
    assert set(USAGES) == set(catalogue.USAGE_WORDS)
    assert set(CONTEXTS) == set(catalogue.CONTEXT_WORDS)
    assert set(TRAITS) == set(catalogue.TRAIT_WORDS)
    assert set(ITEM_KINDS) == set(catalogue.KIND_WORDS)
    for choices in catalogue.sheet_words().values():
        said = [choice["words"] for choice in choices]
        assert len(said) == len(set(said))
        assert all(
            choice["words"] != choice["value"] for choice in choices if "_" in choice["value"]
        )


@pytest.mark.parametrize(
    ("effect", "words"),
    [
        ({"kind": "heal", "dice": "1d6", "amount": 1}, "Restores 1d6+1 HP"),
        ({"kind": "cure", "condition": "infected"}, "Cures Infected"),
        ({"kind": "booster", "trait": "STR", "dice": "1d4"}, "Adds 1d4 to Strength"),
        ({"kind": "reroll", "keep": "better"}, "Roll again, keeping the better result"),
        ({"kind": "damage_bonus", "dice": "1d4"}, "Adds 1d4 to a Damage roll"),
        (
            {"kind": "check_bonus", "amount": 3, "traits": ["INT"]},
            "+3 to a trait check (Intellect)",
        ),
        ({}, "No effect the rules apply"),
        ({"kind": "glitter"}, "glitter (described by the page)"),
    ],
)
def test_an_effect_in_words(effect: dict[str, Any], words: str) -> None:
    assert words in catalogue.effect_words(effect)


def test_every_applied_kind_has_words_of_its_own() -> None:
    for kind in EFFECT_KINDS:
        assert "(described by the page)" not in catalogue.effect_words({"kind": kind, "amount": 1})


def test_qc02_a_hero_the_library_accepts_is_a_hero_select_hero_takes() -> None:
    """QC-02: check_hero keeps the hero as given; a bad one is refused by its field's path."""
    assert catalogue.check_hero(SCOUT) == SCOUT
    Table(hero=catalogue.check_hero(SCOUT))
    with pytest.raises(InvalidInput) as refused:
        catalogue.check_hero({**SCOUT, "traits": {"STR": "x"}, "hp_max": 0})
    assert set(refused.value.errors) == {"hero.traits.STR", "hero.hp_max"}
    with pytest.raises(InvalidInput) as refused:
        catalogue.check_item({"id": "helmet", "kind": "equipment"})
    assert set(refused.value.errors) == {"item.slot"}
