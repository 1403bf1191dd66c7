"""Rest (QC-51, QC-52, G-QC-17) and level-up (QC-53..QC-56, G-QC-18)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.quest_calendar.harness import HERO, Table

PER_REST = {"id": "second-wind", "usage": "per_rest", "uses": 2, "context": "both"}
SURGE = {"id": "foresight", "usage": "surge", "cost": 1, "context": "outside"}
HEROIC = {**HERO, "abilities": [PER_REST, SURGE], "pool": {"max": 4}}


def day(
    house: dict[str, Any] | None = None, hero: dict[str, Any] | None = None, **flags: Any
) -> Table:
    """A table on a page with the given flags (rest_day, level_up_day)."""
    table = Table(house, hero=hero or HEROIC, page=None)
    table.run({"type": "start_page", "date": "2027-01-04", **flags})
    return table


def injure(table: Table, *stats: str) -> None:
    """Give the hero injuries (state as death.apply_injury leaves it)."""

    def change(state: dict[str, Any]) -> None:
        hero = state["hero"]
        for stat in stats:
            amount = 2 if stat == "hp_max" else 1
            if stat in hero["traits"]:
                hero["traits"][stat] -= amount
            else:
                hero[stat] -= amount
            hero["injuries"].append({"stat": stat, "amount": amount})
        hero["hp"] = min(hero["hp"], hero["hp_max"])

    table.given(change)


def spend(table: Table, hp: int, used: int, spent: int, *conditions: str) -> None:
    """Put the hero at ``hp`` with per-rest uses and surges spent and the given conditions."""

    def change(state: dict[str, Any]) -> None:
        hero = state["hero"]
        hero.update(hp=hp, conditions=list(conditions))
        hero["abilities"]["second-wind"]["used"] = used
        hero["pool"]["spent"] = spent

    table.given(change)


def test_qc51_example_rest_restores_hp_uses_surges_and_cures() -> None:
    table = day(hero={**HEROIC, "hp_max": 30}, rest_day=True)
    spend(table, 4, 2, 3, "infected", "malfunction")
    events = table.run({"type": "rest"})
    assert table.types(events) == [
        "HeroHealed",
        "AbilityUsesReset",
        "SurgesRestored",
        "ConditionCleared",
        "ConditionCleared",
        "Rested",
    ]
    hero = table.hero
    assert hero["hp"] == 30
    assert hero["abilities"]["second-wind"]["used"] == 0
    assert hero["pool"]["spent"] == 0
    assert hero["conditions"] == []
    rested = events[-1].details
    assert rested["hp_restored"] == 26
    assert rested["uses_reset"] == ["second-wind"]
    assert rested["pool_restored"] == 3
    assert rested["conditions_cleared"] == ["infected", "malfunction"]
    assert rested["equipment_day"] is True
    assert table.state["page"]["equipment_day"] is True


def test_qc51_rest_only_on_a_rest_day_and_once_per_page() -> None:
    table = day()
    assert table.refused({"type": "rest"}).rule_id == "QC-51"
    rest_day = day(rest_day=True)
    rest_day.run({"type": "rest"})
    assert rest_day.refused({"type": "rest"}).rule_id == "QC-51"


def test_qc51_a_rest_then_prevents_the_infected_roll() -> None:
    table = day(rest_day=True)
    spend(table, 5, 0, 0, "infected")
    table.run({"type": "rest"})
    events = table.run({"type": "end_page"})
    assert table.types(events) == ["PageEnded"]


def test_qc52_example_choosing_str_restores_both_str_injuries() -> None:
    table = day(rest_day=True)
    injure(table, "STR", "STR", "atk")
    events = table.run({"type": "rest", "restore_stat": "STR"})
    removed = events[0]
    assert table.types([removed]) == ["InjuryRemoved"]
    assert removed.details == {"stat": "STR", "count": 2, "amount": 2, "cause": "rest"}
    assert table.hero["traits"]["STR"] == 2
    assert table.hero["atk"] == 2
    assert table.hero["injuries"] == [{"stat": "atk", "amount": 1}]
    assert events[-1].details["injury_stat_restored"] == "STR"


def test_qc52_several_injured_stats_and_none_named_asks_the_player() -> None:
    table = day(rest_day=True)
    injure(table, "STR", "STR", "atk")
    events = table.run({"type": "rest"})
    assert table.types(events) == ["DecisionRequested"]
    pending = table.state["pending"]
    assert pending["decision"] == "rest_injury"
    assert pending["options"] == ["STR", "atk"]
    assert pending["commands"] == ["choose_rest_stat"]
    assert table.refused({"type": "rest", "restore_stat": "STR"}).rule_id == "QC-52"
    assert table.refused({"type": "end_page"}).rule_id == "QC-52"
    assert "stat" in table.invalid({"type": "choose_rest_stat", "stat": "DEX"}).errors
    events = table.run({"type": "choose_rest_stat", "stat": "atk"})
    assert table.types(events)[0] == "InjuryRemoved"
    assert table.types(events)[-1] == "Rested"
    assert table.hero["atk"] == 3
    assert table.hero["traits"]["STR"] == 0
    assert table.state["pending"] is None
    assert table.state["page"]["rested"] is True


def test_qc52_a_single_injured_stat_needs_no_question() -> None:
    table = day(rest_day=True)
    injure(table, "def")
    events = table.run({"type": "rest"})
    assert table.types(events)[0] == "InjuryRemoved"
    assert table.hero["def"] == 12


def test_qc52_restore_stat_must_be_injured() -> None:
    table = day(rest_day=True)
    injure(table, "STR")
    assert table.not_held({"type": "rest", "restore_stat": "DEX"}).field_name == "restore_stat"
    assert "restore_stat" in table.invalid({"type": "rest", "restore_stat": "LUCK"}).errors


def test_qc52_choose_rest_stat_without_a_pending_rest_is_refused() -> None:
    table = day(rest_day=True)
    assert table.refused({"type": "choose_rest_stat", "stat": "STR"}).rule_id == "QC-52"


def test_g_qc17_single_removal_takes_one_injury_only() -> None:
    table = day({"qc.rest.injuryRemoval": "single"}, rest_day=True)
    injure(table, "STR", "STR")
    events = table.run({"type": "rest", "restore_stat": "STR"})
    assert events[0].details["count"] == 1
    assert table.hero["traits"]["STR"] == 1
    assert table.hero["injuries"] == [{"stat": "STR", "amount": 1}]


def test_g_qc17_injury_removal_comes_before_hp_so_hp_reaches_the_restored_max() -> None:
    table = day(rest_day=True)
    injure(table, "hp_max")
    table.given(lambda s: s["hero"].update(hp=5))
    events = table.run({"type": "rest"})
    assert table.types(events)[:2] == ["InjuryRemoved", "HeroHealed"]
    assert (table.hero["hp_max"], table.hero["hp"]) == (20, 20)


def level_up(**arguments: Any) -> dict[str, Any]:
    """A level_up command: +1 STR +1 DEX unless told."""
    return {"type": "level_up", "trait_points": {"STR": 1, "DEX": 1}, **arguments}


@pytest.mark.parametrize(
    ("points", "after"),
    [({"STR": 2}, {"STR": 4, "DEX": 1}), ({"STR": 1, "DEX": 1}, {"STR": 3, "DEX": 2})],
)
def test_qc53_two_trait_points_on_one_or_two_traits(
    points: dict[str, int], after: dict[str, int]
) -> None:
    table = day(level_up_day=True)
    events = table.run(level_up(trait_points=points))
    assert table.types(events) == ["LevelledUp", "TraitPointsAllocated"]
    for trait, value in after.items():
        assert table.hero["traits"][trait] == value
    allocations = events[-1].details["allocations"]
    assert sum(a["points"] for a in allocations.values()) == 2
    assert table.hero["level"] == 2


@pytest.mark.parametrize(
    "points", [{"STR": 1}, {"STR": 1, "DEX": 1, "CON": 1}, {}, {"STR": 2, "DEX": 1}]
)
def test_qc53_both_points_must_be_spent(points: dict[str, int]) -> None:
    table = day(level_up_day=True)
    assert table.refused(level_up(trait_points=points)).rule_id == "QC-53"


def test_qc53_trait_points_are_validated() -> None:
    table = day(level_up_day=True)
    assert "trait_points" in table.invalid(level_up(trait_points={"LUCK": 2})).errors
    assert "trait_points.STR" in table.invalid(level_up(trait_points={"STR": 3})).errors
    assert "trait_points" in table.invalid({"type": "level_up"}).errors


def test_qc53_level_up_only_on_a_level_up_day_and_once() -> None:
    assert day().refused(level_up()).rule_id == "QC-53"
    table = day(level_up_day=True)
    table.run(level_up())
    assert table.refused(level_up()).rule_id == "QC-53"


def test_g_qc18_traits_max_is_respected_when_set() -> None:
    table = day({"qc.traits.max": 3}, level_up_day=True)
    assert table.refused(level_up(trait_points={"STR": 2})).rule_id == "QC-53"
    table.run(level_up(trait_points={"STR": 1, "DEX": 1}))
    assert table.hero["traits"]["STR"] == 3


def test_qc53_new_abilities_are_added() -> None:
    table = day(level_up_day=True)
    smite = {"id": "smite", "usage": "per_page", "context": "combat"}
    events = table.run(level_up(new_abilities=[smite]))
    assert events[0].details["new_abilities"] == ["smite"]
    assert table.hero["abilities"]["smite"]["used_this_page"] is False
    bad = table.invalid(level_up(new_abilities=[{"id": "x", "usage": "often"}]))
    assert any(key.startswith("new_abilities[0].") for key in bad.errors)


def test_qc54_example_new_uses_and_pool_capacity_are_available_at_once() -> None:
    table = day(level_up_day=True)
    spend(table, 7, 2, 3, "infected")
    events = table.run(level_up(new_uses={"second-wind": 3}, pool_max=5))
    ability = table.hero["abilities"]["second-wind"]
    assert (ability["uses"], ability["used"]) == (3, 2)
    assert table.hero["pool"] == {"name": "surges", "max": 5, "spent": 3}
    assert events[0].details["new_uses"] == {"second-wind": {"uses": 3, "available": 1}}
    assert table.hero["hp"] == 7
    assert table.hero["conditions"] == ["infected"]


def test_g_qc18_without_immediate_capacity_new_uses_wait_for_a_rest() -> None:
    table = day({"qc.levelUp.newCapacityAvailable": False}, level_up_day=True)
    spend(table, 7, 2, 3)
    fresh = {"id": "bulwark", "usage": "per_rest", "uses": 1, "context": "combat"}
    table.run(level_up(new_uses={"second-wind": 3}, pool_max=5, new_abilities=[fresh]))
    assert table.hero["abilities"]["second-wind"]["used"] == 3
    assert table.hero["abilities"]["bulwark"]["used"] == 1
    assert table.hero["pool"]["spent"] == 4


def test_qc54_new_uses_and_pool_are_checked() -> None:
    table = day(level_up_day=True)
    assert "new_uses.foresight" in table.invalid(level_up(new_uses={"foresight": 2})).errors
    assert "new_uses.second-wind" in table.invalid(level_up(new_uses={"second-wind": 1})).errors
    assert "pool_max" in table.invalid(level_up(pool_max=3)).errors


def test_qc55_max_and_current_hp_rise_by_the_same_gain() -> None:
    table = day(level_up_day=True)
    table.given(lambda s: s["hero"].update(hp=10))
    events = table.run(level_up(max_hp_gain=4))
    assert table.types(events) == ["LevelledUp", "HeroHealed", "TraitPointsAllocated"]
    assert (table.hero["hp_max"], table.hero["hp"]) == (24, 14)
    assert events[1].details["cause"] == "levelUp"
    assert "max_hp_gain" in table.invalid(level_up(max_hp_gain=-1)).errors


def test_qc56_everything_else_carries_over() -> None:
    table = day(hero={**HEROIC, "credits": -4, "virtue": 3}, level_up_day=True)
    injure(table, "CON", "atk")
    spend(table, 12, 1, 2)
    table.run(level_up(trait_points={"CON": 2}))
    hero = table.hero
    assert hero["credits"] == -4
    assert hero["virtue"] == 3
    assert hero["injuries"] == [{"stat": "CON", "amount": 1}, {"stat": "atk", "amount": 1}]
    assert hero["traits"]["CON"] == 2
    assert hero["atk"] == 2
    assert hero["abilities"]["second-wind"]["used"] == 1
    assert hero["pool"]["spent"] == 2
    assert hero["hp"] == 12
