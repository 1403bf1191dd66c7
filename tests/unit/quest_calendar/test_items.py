"""Items: trait boosters (QC-18), healing timing (QC-23, QC-24, G-QC-07), cures (QC-31, QC-32),
QC-50, and item data checked on use (G-QC-01)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.quest_calendar.harness import HERO, Table
from tests.unit.quest_calendar.test_abilities import fight, injure

MED_KIT = {
    "id": "med-kit",
    "name": "Med Kit",
    "kind": "consumable",
    "effect": {"kind": "heal", "dice": "1d6"},
}
STRENGTHENER = {
    "id": "strengthener-rx",
    "name": "Strengthener Rx",
    "kind": "consumable",
    "effect": {"kind": "booster", "trait": "STR", "dice": "1d4"},
}
ANTIDOTE = {
    "id": "antidote",
    "name": "Antidote",
    "kind": "consumable",
    "effect": {"kind": "cure", "condition": "infected"},
}
REPAIR_KIT = {
    "id": "repair-kit",
    "name": "Repair Kit",
    "kind": "consumable",
    "effect": {"kind": "cure", "condition": "malfunction"},
}
WOUND_SEALANT = {
    "id": "wound-sealant",
    "name": "Wound Sealant",
    "kind": "consumable",
    "effect": {"kind": "remove_injury"},
}
SOLAR_GRENADE = {
    "id": "solar-grenade",
    "name": "Solar Grenade",
    "kind": "consumable",
    "usable_between_rounds": True,
}
COMBAT_TONIC = {
    "id": "combat-tonic",
    "name": "Combat Tonic",
    "kind": "consumable",
    "usable_between_rounds": True,
    "effect": {"kind": "heal", "amount": 2},
}


def carrying(*inventory: dict[str, Any], **stats: Any) -> dict[str, Any]:
    """The harness hero carrying these items."""
    return {**HERO, "inventory": list(inventory), **stats}


def use(item: str, **more: Any) -> dict[str, Any]:
    """A use_item command."""
    return {"type": "use_item", "item": item, **more}


def strength(table: Table, face: int) -> int:
    """The total of a Strength check with this d20 face."""
    (event,) = table.run({"type": "trait_check", "trait": "STR"}, faces=[face])
    total: int = event.details["total"]
    return total


# -- QC-18 trait boosters ------------------------------------------------------------------------


def test_qc18_booster_counts_for_every_roll_of_the_trait_on_this_page_only() -> None:
    table = Table(house={"qc.boosters.rollOncePerPage": True}, hero=carrying(STRENGTHENER))
    used, boosted = table.run(use("strengthener-rx"), faces=[3])
    assert table.types([used, boosted]) == ["ItemUsed", "TraitBoosterApplied"]
    assert boosted.details["bonus"] == 3
    assert boosted.details["booster_after"] == 3
    assert boosted.rolls[0]["dice"][0] == {"sides": 4, "face": 3, "kept": True}
    assert table.hero["inventory"] == []
    assert strength(table, 10) == 15
    assert strength(table, 1) == 6
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-05"})
    assert strength(table, 10) == 12


def test_qc18_two_boosters_stack_by_default() -> None:
    table = Table(hero=carrying(STRENGTHENER, STRENGTHENER))
    table.run(use("strengthener-rx"), faces=[3])
    (_, second) = table.run(use("strengthener-rx"), faces=[2])
    assert (second.details["booster_before"], second.details["booster_after"]) == (3, 5)
    assert table.state["page"]["boosters"] == {"STR": 5}


@pytest.mark.parametrize(("first", "second", "kept"), [(3, 2, 3), (2, 4, 4)])
def test_g_qc04_boosters_that_do_not_stack_keep_the_higher(
    first: int, second: int, kept: int
) -> None:
    table = Table(house={"qc.boosters.stack": False}, hero=carrying(STRENGTHENER, STRENGTHENER))
    table.run(use("strengthener-rx"), faces=[first])
    (_, boosted) = table.run(use("strengthener-rx"), faces=[second])
    assert boosted.details["booster_after"] == kept
    assert boosted.details["stack"] is False
    assert strength(table, 10) == 12 + kept


def test_g_qc04_a_booster_rolled_on_every_roll_records_its_dice_for_the_page() -> None:
    big = {
        **STRENGTHENER,
        "id": "megadose",
        "effect": {"kind": "booster", "trait": "STR", "dice": "1d6"},
    }
    table = Table(
        house={"qc.boosters.rollOncePerPage": False, "qc.boosters.stack": False},
        hero=carrying(STRENGTHENER, big),
    )
    (_, boosted) = table.run(use("strengthener-rx"))
    assert boosted.rolls == []
    assert boosted.details["per_roll"] is True
    table.run(use("megadose"))
    assert table.state["page"]["booster_dice"] == {"STR": ["1d6"]}


# -- QC-23, QC-24 items in combat ----------------------------------------------------------------


def test_qc23_med_kit_is_refused_between_rounds() -> None:
    table = Table(hero=carrying(MED_KIT, hp=10))
    table.given(fight("combat", "in_progress"))
    refused = table.refused(use("med-kit"))
    assert refused.rule_id == "QC-23"
    assert "notBetweenRounds" in refused.reason
    assert table.hero["inventory"][0]["id"] == "med-kit"


@pytest.mark.parametrize(
    ("status", "timing"), [(None, "out_of_combat"), ("ended", "after_last_round")]
)
def test_qc23_med_kit_before_the_combat_or_after_its_last_round(
    status: str | None, timing: str
) -> None:
    table = Table(hero=carrying(MED_KIT, hp=10))
    if status is not None:
        table.given(fight("combat", status))
    used, healed = table.run(use("med-kit"), faces=[4])
    assert used.details["timing"] == timing
    assert healed.details["hp_after"] == 14
    assert healed.details["cause"] == "item"


@pytest.mark.parametrize("kind", ["combat", "dogfight"])
def test_qc23_med_kit_after_a_fight_starts_but_before_its_first_roll(kind: str) -> None:
    table = Table(hero=carrying(MED_KIT, hp=10))
    table.given(lambda s: s["page"].update({kind: {"status": "in_progress", "round": 0}}))
    used, _ = table.run(use("med-kit"), faces=[4])
    assert used.details["timing"] == "before_first_roll"


def test_qc24_g_qc07_items_usable_between_rounds_and_healing_items_that_say_so() -> None:
    table = Table(hero=carrying(SOLAR_GRENADE, COMBAT_TONIC, hp=10))
    table.given(fight("combat", "in_progress"))
    (grenade,) = table.run(use("solar-grenade"))
    assert grenade.details["timing"] == "between_rounds"
    (_, healed) = table.run(use("combat-tonic"))
    assert healed.details["hp_after"] == 12
    assert table.hero["inventory"] == []


def test_qc24_g_qc07_an_item_flagged_not_between_rounds_waits_for_the_fight_to_end() -> None:
    flash = {**SOLAR_GRENADE, "id": "flashbang", "usable_between_rounds": False}
    table = Table(hero=carrying(flash, STRENGTHENER))
    table.given(fight("dogfight", "in_progress"))
    assert table.refused(use("flashbang")).rule_id == "QC-24"
    (_, boosted) = table.run(use("strengthener-rx"), faces=[1])
    assert boosted.details["booster_after"] == 1


def test_g_qc22_healing_stops_at_max_unless_the_house_rule_is_off() -> None:
    table = Table(hero=carrying(MED_KIT, hp=18))
    (_, healed) = table.run(use("med-kit"), faces=[6])
    assert (healed.details["rolled"], healed.details["amount"]) == (6, 2)
    assert table.hero["hp"] == 20
    loose = Table(house={"qc.hp.capAtMax": False}, hero=carrying(MED_KIT, hp=18))
    loose.run(use("med-kit"), faces=[6])
    assert loose.hero["hp"] == 24


# -- QC-31, QC-32 cures --------------------------------------------------------------------------


def test_qc31_antidote_ends_infection_so_no_roll_at_the_end_of_the_page() -> None:
    table = Table(hero=carrying(ANTIDOTE, ANTIDOTE))
    table.run({"type": "apply_condition", "condition": "infected", "source": "spore cloud"})
    used, cleared = table.run(use("antidote"))
    assert used.details["effect"] == {"kind": "cure", "condition": "infected"}
    assert cleared.details["condition"] == "infected"
    assert cleared.details["cause"] == "antidote"
    assert table.hero["conditions"] == []
    events = table.run({"type": "end_page"})
    assert "InfectionTicked" not in table.types(events)
    assert len(table.hero["inventory"]) == 1


def test_qc31_antidote_is_kept_when_there_is_nothing_to_cure() -> None:
    table = Table(hero=carrying(ANTIDOTE))
    assert table.refused(use("antidote")).rule_id == "QC-31"


def test_qc32_repair_kit_ends_malfunction() -> None:
    table = Table(hero=carrying(REPAIR_KIT))
    assert table.refused(use("repair-kit")).rule_id == "QC-32"
    table.run({"type": "apply_condition", "condition": "malfunction"})
    (_, cleared) = table.run(use("repair-kit"))
    assert cleared.details["cause"] == "repair_kit"
    (check,) = table.run({"type": "trait_check", "trait": "STR"}, faces=[14])
    assert check.details["malfunction"] is False


# -- QC-50 Wound Sealant -------------------------------------------------------------------------


def test_qc50_wound_sealant_removes_one_injury_of_the_named_stat() -> None:
    table = Table(hero=carrying(WOUND_SEALANT, WOUND_SEALANT))
    table.given(injure("STR"))
    table.given(injure("STR"))
    (_, removed) = table.run(use("wound-sealant", stat="STR"))
    assert removed.details == {
        "stat": "STR",
        "count": 1,
        "amount": 1,
        "cause": "item",
        "source": "wound-sealant",
    }
    assert table.hero["traits"]["STR"] == 1
    assert table.hero["injuries"] == [{"stat": "STR", "amount": 1}]


def test_qc50_max_hp_injury_removed_gives_max_back_but_not_current() -> None:
    table = Table(hero=carrying(WOUND_SEALANT, hp=15))
    table.given(injure("hp_max", 2))
    table.run(use("wound-sealant", stat="hp_max"))
    assert (table.hero["hp_max"], table.hero["hp"]) == (20, 15)


def test_qc50_wound_sealant_needs_an_injured_stat_named_by_the_player() -> None:
    table = Table(hero=carrying(WOUND_SEALANT))
    assert table.refused(use("wound-sealant", stat="STR")).rule_id == "QC-50"
    table.given(injure("DEX"))
    missing = table.invalid(use("wound-sealant"))
    assert "DEX" in missing.errors["stat"][0]
    assert table.refused(use("wound-sealant", stat="STR")).rule_id == "QC-50"
    assert "stat" in table.invalid(use("wound-sealant", stat="LUCK")).errors


# -- input ---------------------------------------------------------------------------------------


def test_g_qc01_item_data_is_checked_and_bad_input_names_the_field() -> None:
    rope = {"id": "rope", "kind": "equipment", "slot": "belt"}
    odd = {"id": "odd", "kind": "consumable", "effect": {"kind": "teleport"}}
    table = Table(hero=carrying(rope, odd, MED_KIT))
    assert table.not_held(use("ghost")).field_name == "item"
    assert table.not_held(use("rope")).field_name == "item"
    assert "item.effect.kind" in table.invalid(use("odd")).errors
    assert "stat" in table.invalid(use("med-kit", stat="STR")).errors
    assert Table(page=None, hero=carrying(MED_KIT)).refused(use("med-kit")).rule_id == "QC-17"


def test_g_qc04_booster_rolled_on_every_roll_when_not_once_per_page() -> None:
    table = Table(house={"qc.boosters.rollOncePerPage": False}, hero=carrying(STRENGTHENER))
    table.run(use("strengthener-rx"))
    (first,) = table.run({"type": "trait_check", "trait": "STR"}, faces=[10, 3])
    assert first.details["booster"] == 3
    assert first.details["total"] == 10 + 2 + 3
    (second,) = table.run({"type": "trait_check", "trait": "STR"}, faces=[10, 1])
    assert second.details["total"] == 10 + 2 + 1
    assert len(second.rolls) == 2


def test_qc23_med_kit_after_start_combat_but_before_the_first_roll() -> None:
    table = Table(hero=carrying(MED_KIT, hp=10))
    table.given(
        lambda s: s["page"].update(combat={"status": "in_progress", "round": 0, "open": None})
    )
    events = table.run(use("med-kit"), faces=[4])
    assert table.types(events)[-1] == "HeroHealed"
