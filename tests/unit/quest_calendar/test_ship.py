"""The ship: dogfights, compartment damage, repairs, crew and upgrades (QC-69..QC-83)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from domain.model import patch
from tests.unit.quest_calendar.harness import HERO, Table

ROUND = {"evasion_target": 60, "enemy_aim": 45, "damage_reduced": 1, "damage_max": 2}
PART = {"id": "ship-parts", "name": "Ship Parts", "kind": "ship_parts", "effect": {}}
TARGETING = {
    "id": "targeting-array",
    "name": "Targeting Array",
    "kind": "upgrade",
    "price": 12,
    "compartments": [2, 4],
    "effect": {"kind": "ship_stat", "stat": "aim", "amount": 5},
}
VEX = {
    "id": "vex",
    "name": "Vex the Mechanic",
    "abilities": [{"id": "patch-up", "usage": "per_page", "context": "dogfight"}],
}


def dogfight(*rounds: dict[str, Any]) -> dict[str, Any]:
    """A dogfight command with the given rounds (the default round once when none)."""
    return {"type": "dogfight", "rounds": list(rounds) or [ROUND]}


def ship(table: Table) -> dict[str, Any]:
    """The ship now."""
    result: dict[str, Any] = table.state["ship"]
    return result


def set_compartment(table: Table, key: str, **values: Any) -> None:
    """Fixture: change one compartment."""
    table.given(lambda s: s["ship"]["compartments"][key].update(values))


def give(table: Table, *items: dict[str, Any]) -> None:
    """Fixture: put items in the hero's inventory."""
    table.given(lambda s: s["hero"]["inventory"].extend(dict(i) for i in items))


def set_page(table: Table, **values: Any) -> None:
    """Fixture: change the open page."""
    table.given(lambda s: s["page"].update(values))


def of(events: list[Any], event_type: str) -> list[dict[str, Any]]:
    """The details of every event of one type."""
    return [e.details for e in events if type(e).__name__ == event_type]


def hire_and_assign(table: Table, crew: dict[str, Any], compartment: int, fee: int = 0) -> None:
    """Hire a crew member and assign them."""
    table.run({"type": "hire_crew", "crew": crew, "fee": fee})
    table.run({"type": "assign_crew", "crew": crew["id"], "compartment": compartment})


# -- dogfight -----------------------------------------------------------------------------------


def test_qc69_dogfight_needs_a_page_and_a_hero() -> None:
    assert Table(page=None).refused(dogfight()).rule_id == "QC-17"
    assert Table(with_hero=False).refused(dogfight()).rule_id == "QC-02"


def test_qc69_dogfight_starts_with_the_ship_stats_and_marks_the_page() -> None:
    table = Table()
    events = table.run({**dogfight(), "enemies": ["raider"]}, faces=[57])
    started = events[0]
    assert table.types(events)[0] == "DogfightStarted"
    assert started.details == {
        "page_date": "2027-01-04",
        "rounds": 1,
        "enemies": ["raider"],
        "aim": 10,
        "eva": 10,
        "shd": 1,
    }
    during = patch.apply({"page": {"dogfight": None, "first_roll_made": False}}, started.effects)
    assert during["page"]["dogfight"]["status"] == "in_progress"
    assert table.types(events)[-1] == "DogfightEnded"
    assert table.state["page"]["dogfight"]["status"] == "finished"
    assert table.state["page"]["first_roll_made"] is True


def test_qc70_aim_hit_means_no_damage_and_no_evasion_roll() -> None:
    table = Table()
    events = table.run(dogfight(), faces=[57])
    assert table.types(events) == [
        "DogfightStarted",
        "AimRolled",
        "DogfightRoundResolved",
        "DogfightEnded",
    ]
    (aim,) = of(events, "AimRolled")
    assert aim["d100_faces"] == {"tens": 50, "units": 7}
    assert (aim["total"], aim["target"], aim["hit"]) == (67, 60, True)
    (resolved,) = of(events, "DogfightRoundResolved")
    assert resolved["enemy_outcome"] == "destroyed"
    assert resolved["net_damage"] == 0
    assert all(c["integrity"] == 3 for c in ship(table)["compartments"].values())


def test_qc70_d100_of_100_reads_from_double_zero() -> None:
    (aim,) = of(Table().run(dogfight(), faces=[100]), "AimRolled")
    assert aim["d100_faces"] == {"tens": 0, "units": 0}
    assert aim["total"] == 110


@pytest.mark.parametrize(("hit_if", "hit"), [("total>=target", True), ("total>target", False)])
def test_qc70_g_qc25_aim_equal_to_target_per_house_rule(hit_if: str, hit: bool) -> None:
    table = Table(house={"qc.dogfight.hitIf": hit_if})
    faces = [50] if hit else [50, 90]
    events = table.run(dogfight({**ROUND, "on_hit": "defensive"}), faces=faces)
    (aim,) = of(events, "AimRolled")
    assert (aim["total"], aim["hit"]) == (60, hit)
    (resolved,) = of(events, "DogfightRoundResolved")
    assert resolved["enemy_outcome"] == ("defensive" if hit else "none")


@pytest.mark.parametrize(("face", "tier", "incoming"), [(42, "reduced", 1), (20, "max", 2)])
def test_qc71_evasion_higher_reduces_lower_takes_max(face: int, tier: str, incoming: int) -> None:
    table = Table()
    faces = [10, face] + ([1] if tier == "max" else [])
    events = table.run(dogfight(), faces=faces)
    (evasion,) = of(events, "EvasionRolled")
    assert (evasion["total"], evasion["enemy_aim"], evasion["tier"]) == (face + 10, 45, tier)
    (resolved,) = of(events, "DogfightRoundResolved")
    assert (resolved["incoming"], resolved["net_damage"]) == (incoming, incoming - 1)


@pytest.mark.parametrize(("tie", "tier"), [("reduced", "reduced"), ("max", "max")])
def test_qc71_g_qc25_evasion_tie_per_house_rule(tie: str, tier: str) -> None:
    table = Table(house={"qc.dogfight.evasionTie": tie})
    faces = [10, 35] + ([1] if tier == "max" else [])
    (evasion,) = of(table.run(dogfight(), faces=faces), "EvasionRolled")
    assert (evasion["total"], evasion["tier"]) == (45, tier)


@pytest.mark.parametrize(("raw", "shd", "net"), [(3, 1, 2), (1, 2, 0)])
def test_qc72_shield_subtracts_and_never_goes_below_zero(raw: int, shd: int, net: int) -> None:
    table = Table()
    table.given(lambda s: s["ship"].update(shd=shd))
    faces = [10, 10] + [1] * net
    events = table.run(dogfight({**ROUND, "damage_max": raw}), faces=faces)
    (taken,) = of(events, "ShipDamageTaken")
    assert (taken["raw"], taken["shield"], taken["net"]) == (raw, shd, net)
    assert len(of(events, "CompartmentHit")) == net
    assert ship(table)["compartments"]["1"]["integrity"] == 3 - net


def test_qc73_the_ship_starts_with_six_compartments_at_integrity_3() -> None:
    compartments = ship(Table())["compartments"]
    names = [compartments[str(n)]["name"] for n in range(1, 7)]
    assert names == ["Engine Room", "Bridge", "Labs", "Weapons", "Crew Quarters", "Cargo"]
    assert all(c["integrity"] == c["integrity_max"] == 3 for c in compartments.values())
    assert (ship(Table())["aim"], ship(Table())["eva"], ship(Table())["shd"]) == (10, 10, 1)


def test_qc74_each_net_point_rolls_a_d6_for_a_compartment() -> None:
    table = Table()
    events = table.run(dogfight({**ROUND, "damage_max": 4}), faces=[10, 10, 1, 5, 1])
    hits = of(events, "CompartmentHit")
    assert [(h["d6"], h["integrity_before"], h["integrity_after"]) for h in hits] == [
        (1, 3, 2),
        (5, 3, 2),
        (1, 2, 1),
    ]
    assert [len(e.rolls) for e in events if type(e).__name__ == "CompartmentHit"] == [1, 1, 1]
    assert ship(table)["compartments"]["1"]["integrity"] == 1


def test_qc75_destroyed_compartment_loses_crew_and_upgrade_for_good() -> None:
    table = Table()
    give(table, TARGETING)
    set_page(table, equipment_day=True)
    table.run({"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 2})
    hire_and_assign(table, VEX, 2)
    set_compartment(table, "2", integrity=1)
    events = table.run(dogfight(), faces=[10, 10, 2])
    assert table.types(events)[-5:-1] == [
        "CompartmentHit",
        "CompartmentDestroyed",
        "CrewDied",
        "UpgradeDestroyed",
    ]
    (destroyed,) = of(events, "CompartmentDestroyed")
    assert (destroyed["crew_lost"], destroyed["upgrade_lost"]) == ("vex", "targeting-array")
    bridge = ship(table)["compartments"]["2"]
    assert (bridge["crew"], bridge["upgrade"], bridge["integrity"]) == (None, None, 0)
    assert table.hero["inventory"] == []
    assert ship(table)["aim"] == 10


def test_qc76_worked_example_two_destroyed_and_hero_loses_2_hp() -> None:
    table = Table(hero={**HERO, "hp": 9})
    upgrade = {**TARGETING, "effect": {}}
    crew = {"id": "vex", "name": "Vex", "integrity_bonus": 1, "abilities": []}
    for key, integrity in {"1": 3, "2": 1, "3": 2, "4": 0, "5": 3, "6": 1}.items():
        set_compartment(table, key, integrity=integrity)
    set_compartment(table, "2", upgrade=upgrade)
    set_compartment(table, "6", crew=crew, integrity_max=4)
    round_ = {"evasion_target": 60, "enemy_aim": 45, "damage_reduced": 3, "damage_max": 5}
    events = table.run(dogfight(round_), faces=[30, 20, 2, 4, 6, 2])
    (taken,) = of(events, "ShipDamageTaken")
    assert (taken["raw"], taken["shield"], taken["net"]) == (5, 1, 4)
    hits = of(events, "CompartmentHit")
    assert [(h["compartment"], h["integrity_after"], h["overflow_to_hero"]) for h in hits] == [
        ("2", 0, 0),
        ("4", 0, 1),
        ("6", 0, 0),
        ("2", 0, 1),
    ]
    assert table.types(events)[5:] == [
        "CompartmentHit",
        "CompartmentDestroyed",
        "UpgradeDestroyed",
        "CompartmentHit",
        "HeroDamaged",
        "CompartmentHit",
        "CompartmentDestroyed",
        "CrewDied",
        "CompartmentHit",
        "HeroDamaged",
        "DogfightEnded",
    ]
    damaged = of(events, "HeroDamaged")
    assert [(d["hp_before"], d["hp_after"], d["cause"]) for d in damaged] == [
        (9, 8, "shipOverflow"),
        (8, 7, "shipOverflow"),
    ]
    assert table.hero["hp"] == 7
    assert len(of(events, "CompartmentDestroyed")) == 2
    cargo = ship(table)["compartments"]["6"]
    assert (cargo["crew"], cargo["integrity_max"]) == (None, 3)
    assert ship(table)["compartments"]["2"]["upgrade"] is None
    assert of(events, "DogfightEnded")[0]["hero_died"] is False


def test_qc76_overflow_that_kills_the_hero_stops_the_dogfight() -> None:
    table = Table(hero={**HERO, "hp": 1})
    set_compartment(table, "4", integrity=0)
    # d100 10 and 10 miss and take max damage 3 -> net 2; d6 4 overflows; clone d4 = 4.
    events = table.run(dogfight({**ROUND, "damage_max": 3}, ROUND), faces=[10, 10, 4, 4])
    assert len(of(events, "CompartmentHit")) == 1
    assert len(of(events, "AimRolled")) == 1
    assert "Died" in table.types(events)
    assert table.types(events)[-1] == "DogfightEnded"
    assert of(events, "DogfightEnded")[0] == {
        "page_date": "2027-01-04",
        "rounds_played": 1,
        "hero_died": True,
    }
    assert table.state["page"]["dogfight"]["status"] == "finished"
    assert table.hero["hp"] == 10


def test_dogfight_rounds_are_validated_and_name_the_field() -> None:
    table = Table()
    assert "rounds" in table.invalid({"type": "dogfight", "rounds": []}).errors
    errors = table.invalid(dogfight({"evasion_target": 60, "enemy_aim": 45})).errors
    assert "rounds[0].damage_reduced" in errors
    errors = table.invalid(dogfight({**ROUND, "damage_max": -1})).errors
    assert "rounds[0].damage_max" in errors


# -- repairs ------------------------------------------------------------------------------------


def test_qc77_one_ship_part_brings_weapons_from_0_to_1_and_opens_an_upgrade_window() -> None:
    table = Table()
    set_compartment(table, "4", integrity=0)
    give(table, PART, {**TARGETING, "compartments": [4]})
    events = table.run({"type": "repair_ship", "compartment": 4, "parts": 1})
    assert table.types(events) == ["ItemUsed", "ShipRepaired"]
    assert of(events, "ItemUsed")[0]["timing"] == "before_first_roll"
    repaired = of(events, "ShipRepaired")[0]
    assert (repaired["integrity_after"], repaired["integrity_max"]) == (1, 3)
    assert repaired["upgrade_window"] is True
    assert table.state["page"]["upgrade_window"] == ["4"]
    assert [i["id"] for i in table.hero["inventory"]] == ["targeting-array"]
    (installed,) = table.run(
        {"type": "install_upgrade", "upgrade": "targeting-array", "compartment": "4"}
    )
    assert installed.details["trigger"] == "compartmentRestored"
    assert table.state["page"]["upgrade_window"] == []


@pytest.mark.parametrize("busy", ["combat", "dogfight"])
def test_qc77_ship_part_refused_between_rounds(busy: str) -> None:
    table = Table()
    set_compartment(table, "1", integrity=2)
    give(table, PART)
    set_page(table, **{busy: {"status": "in_progress"}})
    refused = table.refused({"type": "repair_ship", "compartment": 1, "parts": 1})
    assert refused.rule_id == "QC-77"


@pytest.mark.parametrize(("allow", "ok"), [(True, True), (False, False)])
def test_qc77_g_qc26_after_the_last_roll_per_house_rule(allow: bool, ok: bool) -> None:
    table = Table(house={"qc.repair.allowPageEnd": allow})
    set_compartment(table, "1", integrity=2)
    give(table, PART)
    table.run({"type": "trait_check", "trait": "STR"}, faces=[12])
    command = {"type": "repair_ship", "compartment": 1, "parts": 1}
    if ok:
        events = table.run(command)
        assert of(events, "ItemUsed")[0]["timing"] == "after_last_roll"
        assert ship(table)["compartments"]["1"]["integrity"] == 3
    else:
        assert table.refused(command).rule_id == "QC-77"


def test_qc77_g_qc26_per_part_amount_capped_at_max() -> None:
    table = Table(house={"qc.repair.perPart": 2})
    set_compartment(table, "3", integrity=0)
    set_compartment(table, "5", integrity=2)
    give(table, PART, PART, PART)
    (_, repaired) = table.run({"type": "repair_ship", "compartment": 3, "parts": 1})
    assert repaired.details["amount"] == 2
    assert ship(table)["compartments"]["3"]["integrity"] == 2
    wasteful = {"type": "repair_ship", "compartment": 5, "parts": 2}
    assert table.refused(wasteful).rule_id == "QC-77"
    table.run({"type": "repair_ship", "compartment": 5, "parts": 1})
    assert ship(table)["compartments"]["5"]["integrity"] == 3
    assert len(table.hero["inventory"]) == 1


def test_qc77_repair_needs_damage_and_enough_parts() -> None:
    table = Table()
    give(table, PART)
    assert table.refused({"type": "repair_ship", "compartment": 1, "parts": 1}).rule_id == "QC-77"
    set_compartment(table, "1", integrity=0)
    assert table.refused({"type": "repair_ship", "compartment": 1, "parts": 2}).rule_id == "QC-77"
    assert (
        "compartment" in table.invalid({"type": "repair_ship", "compartment": 7, "parts": 1}).errors
    )
    assert "parts" in table.invalid({"type": "repair_ship", "compartment": 1}).errors


def test_qc77_a_hero_ability_can_repair() -> None:
    ability = {
        "id": "tinker",
        "usage": "per_rest",
        "uses": 1,
        "context": "outside",
        "effect": {"kind": "repair", "amount": 2},
    }
    table = Table(hero={**HERO, "abilities": [ability]})
    set_compartment(table, "1", integrity=0)
    (repaired,) = table.run({"type": "repair_ship", "compartment": 1, "ability": "tinker"})
    assert (repaired.details["source"], repaired.details["amount"]) == ("ability", 2)
    assert table.hero["abilities"]["tinker"]["used"] == 1
    assert table.state["page"]["upgrade_window"] == ["1"]


# -- crew ---------------------------------------------------------------------------------------


def test_qc78_hiring_pays_the_fee_and_the_crew_member_waits() -> None:
    table = Table()
    (hired,) = table.run({"type": "hire_crew", "crew": VEX, "fee": 4})
    assert (hired.details["credits_before"], hired.details["credits_after"]) == (10, 6)
    assert [c["id"] for c in ship(table)["unassigned_crew"]] == ["vex"]


@pytest.mark.parametrize(("can_debt", "credits"), [(False, None), (True, -2)])
def test_qc78_g_qc27_fee_cannot_create_debt_unless_house_rule(
    can_debt: bool, credits: int | None
) -> None:
    table = Table(house={"qc.crew.feeCanCreateDebt": can_debt})
    command = {"type": "hire_crew", "crew": VEX, "fee": 12}
    if credits is None:
        assert table.refused(command).rule_id == "QC-78"
    else:
        table.run(command)
        assert table.hero["credits"] == credits


def test_qc79_assign_adds_the_integrity_bonus_and_crew_abilities() -> None:
    table = Table()
    table.run({"type": "hire_crew", "crew": VEX, "fee": 0})
    (assigned,) = table.run({"type": "assign_crew", "crew": "vex", "compartment": 1})
    engine = ship(table)["compartments"]["1"]
    assert (engine["integrity"], engine["integrity_max"]) == (4, 4)
    assert engine["crew"]["id"] == "vex"
    assert assigned.details["integrity_bonus"] == 1
    assert table.hero["abilities"]["patch-up"]["granted_by"] == "vex"
    assert ship(table)["unassigned_crew"] == []


@pytest.mark.parametrize(
    ("setup", "compartment"),
    [
        (lambda t: set_compartment(t, "4", integrity=0), 4),
        (lambda t: hire_and_assign(t, {**VEX, "id": "ola", "abilities": []}, 4), 4),
    ],
)
def test_qc79_refused_at_integrity_0_or_with_crew_already_there(
    setup: Callable[[Table], None], compartment: int
) -> None:
    table = Table()
    setup(table)
    table.run({"type": "hire_crew", "crew": VEX})
    refused = table.refused({"type": "assign_crew", "crew": "vex", "compartment": compartment})
    assert refused.rule_id == "QC-79"


def test_qc79_crew_never_move_and_house_bonus_or_crew_data_sets_the_bonus() -> None:
    table = Table(house={"qc.crew.integrityBonus": 2})
    hire_and_assign(table, VEX, 3)
    assert ship(table)["compartments"]["3"]["integrity_max"] == 5
    moved = table.refused({"type": "assign_crew", "crew": "vex", "compartment": 5})
    assert moved.rule_id == "QC-79"
    hire_and_assign(table, {"id": "ola", "integrity_bonus": 0}, 5)
    assert ship(table)["compartments"]["5"]["integrity_max"] == 3
    assert (
        table.not_held({"type": "assign_crew", "crew": "nobody", "compartment": 6}).field_name
        == "crew"
    )


def test_qc80_g_qc27_crew_death_takes_abilities_and_the_bonus_from_max() -> None:
    table = Table()
    hire_and_assign(table, VEX, 6)
    set_compartment(table, "6", integrity=1)
    events = table.run(dogfight(), faces=[10, 10, 6])
    (died,) = of(events, "CrewDied")
    assert died == {
        "crew_id": "vex",
        "compartment": "6",
        "integrity_bonus_lost": 1,
        "integrity_max_after": 3,
        "abilities_lost": ["patch-up"],
    }
    assert "patch-up" not in table.hero["abilities"]


# -- upgrades -----------------------------------------------------------------------------------


def test_qc81_upgrade_goes_only_in_an_allowed_empty_compartment() -> None:
    table = Table()
    give(table, TARGETING, {**TARGETING, "id": "array-2"})
    set_page(table, equipment_day=True)
    wrong = {"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 1}
    assert table.refused(wrong).rule_id == "QC-81"
    (installed,) = table.run({**wrong, "compartment": 2})
    assert installed.details["stats_after"] == {"aim": 15}
    assert ship(table)["aim"] == 15
    occupied = {"type": "install_upgrade", "upgrade": "array-2", "compartment": 2}
    assert table.refused(occupied).rule_id == "QC-81"


def test_qc81_g_qc28_swap_puts_the_old_upgrade_in_the_inventory_to_sell() -> None:
    table = Table()
    give(table, TARGETING, {**TARGETING, "id": "array-2", "price": 7})
    set_page(table, equipment_day=True)
    table.run({"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 2})
    events = table.run(
        {"type": "install_upgrade", "upgrade": "array-2", "compartment": 2, "replace": True}
    )
    assert table.types(events) == ["UpgradeRemoved", "UpgradeInstalled"]
    assert events[1].details["replaced_upgrade_id"] == "targeting-array"
    assert [i["id"] for i in table.hero["inventory"]] == ["targeting-array"]
    assert ship(table)["aim"] == 15
    set_page(table, shop={"id": "dock", "stock": {}, "sells_upgrades": True})
    table.run({"type": "sell_upgrade", "upgrade": "targeting-array"})
    assert table.hero["credits"] == 22


def test_qc82_upgrade_installs_only_when_acquired_or_after_a_repair() -> None:
    table = Table()
    give(table, TARGETING)
    command = {"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 4}
    assert table.refused(command).rule_id == "QC-82"
    set_page(table, equipment_day=True)
    (installed,) = table.run(command)
    assert installed.details["trigger"] == "acquired"


def test_qc82_an_upgrade_found_on_the_page_installs_at_once() -> None:
    table = Table()
    found = {**TARGETING, "effect": {}}
    (installed,) = table.run({"type": "install_upgrade", "upgrade": found, "compartment": 4})
    assert installed.details["trigger"] == "acquired"
    assert ship(table)["compartments"]["4"]["upgrade"]["id"] == "targeting-array"
    bad = {"type": "install_upgrade", "upgrade": {**found, "kind": "other"}, "compartment": 4}
    assert "upgrade.kind" in table.invalid(bad).errors


@pytest.mark.parametrize(("minimum", "ok"), [(1, True), (2, False)])
def test_qc82_g_qc28_install_needs_minimum_integrity(minimum: int, ok: bool) -> None:
    table = Table(house={"qc.upgrades.installMinIntegrity": minimum})
    set_compartment(table, "4", integrity=0)
    give(table, PART, TARGETING)
    table.run({"type": "repair_ship", "compartment": 4, "parts": 1})
    command = {"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 4}
    if ok:
        table.run(command)
        assert ship(table)["compartments"]["4"]["upgrade"]["id"] == "targeting-array"
    else:
        assert table.refused(command).rule_id == "QC-82"


def test_qc83_upgrade_sells_at_full_price_to_any_upgrade_shop() -> None:
    table = Table()
    give(table, TARGETING)
    stock = {"targeting-array": {"price": 8, "item": TARGETING}}
    set_page(table, shop={"id": "dock", "stock": stock, "sells_upgrades": True})
    (sold,) = table.run({"type": "sell_upgrade", "upgrade": "targeting-array"})
    assert (sold.details["price"], sold.details["shop_id"]) == (12, "dock")
    assert (sold.details["credits_before"], sold.details["credits_after"]) == (10, 22)
    assert table.hero["inventory"] == []


def test_qc83_refused_without_a_shop_that_sells_upgrades() -> None:
    table = Table()
    give(table, TARGETING)
    command = {"type": "sell_upgrade", "upgrade": "targeting-array"}
    assert table.refused(command).rule_id == "QC-83"
    set_page(table, shop={"id": "grocer", "stock": {}, "sells_upgrades": False})
    assert table.refused(command).rule_id == "QC-83"
    assert table.not_held({"type": "sell_upgrade", "upgrade": "nothing"}).field_name == "upgrade"
