"""Death and cloning (QC-41..QC-50) with the gap defaults G-QC-12..G-QC-16 and their variants."""

from __future__ import annotations

from typing import Any

import pytest

from domain.model.dice.draw import ScriptedDice
from domain.model.quest_calendar import death
from domain.model.rules_engine import Context
from tests.unit.quest_calendar.harness import HERO, Table

HELMET = {"id": "plasma-helmet", "name": "Plasma Helmet", "kind": "equipment", "slot": "helmet"}
BOOTS = {"id": "mag-boots", "name": "Mag Boots", "kind": "equipment", "slot": "boots"}
MEDKIT = {"id": "med-kit", "name": "Med Kit", "kind": "consumable"}
PER_REST = {"id": "second-wind", "usage": "per_rest", "uses": 2, "context": "both"}
PER_PAGE = {"id": "smite", "usage": "per_page", "context": "combat"}


def dying(table: Table, **hero: Any) -> None:
    """Set the hero at 1 HP and infected, so the end-of-page roll can kill them (QC-31, QC-41)."""
    changes = {"hp": 1, **hero}

    def change(state: dict[str, Any]) -> None:
        state["hero"].update(changes)
        state["hero"]["conditions"] = ["infected"]

    table.given(change)


def die_at_page_end(table: Table, faces: list[int]) -> list[Any]:
    """End the page with a failed CON roll (d20 9 + CON 1 = 10 -> 1 HP lost), then clone faces."""
    return table.run({"type": "end_page"}, faces=[9, *faces])


def of_type(table: Table, events: list[Any], name: str) -> list[Any]:
    """The events of one type, in order."""
    return [e for e in events if table.types([e])[0] == name]


def direct_death(table: Table, faces: list[int]) -> Context:
    """Call ``death.die`` the way another command does, on a working copy of the table's state."""
    ctx = Context(table.state, table.campaign.house_rules, ScriptedDice(faces))
    ctx.state["hero"]["hp"] = 0
    death.die(ctx, cause="combat")
    return ctx


def test_qc41_death_by_infection_at_page_end_clones_at_once() -> None:
    table = Table()
    dying(table)
    events = die_at_page_end(table, [2, 5])
    assert table.types(events) == [
        "InfectionTicked",
        "HeroDamaged",
        "Died",
        "CloneRollMade",
        "InjurySuffered",
        "ConditionCleared",
        "Cloned",
        "PageEnded",
    ]
    died = events[2]
    assert died.details["cause"] == "infection"
    assert died.details["page_date"] == "2027-01-04"
    assert table.hero["hp"] == 10
    assert table.hero["traits"]["WIS"] == -1
    assert table.hero["conditions"] == []
    assert table.state["pending"] is None


def test_qc41_die_is_callable_from_another_command_and_emits_its_own_events() -> None:
    table = Table()
    ctx = direct_death(table, [4])
    names = [e.event_type for e in ctx.events]
    assert names == ["Died", "CloneRollMade", "PerRestAbilitiesExhausted", "Cloned"]
    assert ctx.state["hero"]["hp"] == 10
    ctx.close()


@pytest.mark.parametrize(("hp_max", "hp"), [(25, 13), (20, 10)])
def test_qc42_hp_after_cloning_is_half_of_max_rounded_up(hp_max: int, hp: int) -> None:
    table = Table(hero={**HERO, "hp_max": hp_max})
    dying(table)
    events = die_at_page_end(table, [4])
    died = of_type(table, events, "Died")[0]
    assert died.details["hp_after"] == hp
    assert of_type(table, events, "Cloned")[0].details["hp_after"] == hp
    assert table.hero["hp"] == hp


def test_qc43_rerolls_until_a_result_applies_and_logs_each_roll() -> None:
    table = Table(hero={**HERO, "credits": 0})
    dying(table)
    events = die_at_page_end(table, [1, 3, 1, 2, 1])
    rolls = of_type(table, events, "CloneRollMade")
    assert [r.details["d4"] for r in rolls] == [1, 3, 1, 2]
    assert [r.details["rerolled"] for r in rolls] == [True, True, True, False]
    assert [r.details["reason"] for r in rolls] == ["noCredits", "noEquipment", "noCredits", None]
    assert all(r.rolls[0]["dice"][0]["sides"] == 4 for r in rolls)
    (injury,) = of_type(table, events, "InjurySuffered")
    assert injury.rolls[0]["dice"][0] == {"sides": 10, "face": 1, "kept": True}
    assert table.hero["injuries"] == [{"stat": "STR", "amount": 1}]
    assert of_type(table, events, "Cloned")[0].details["outcome"] == 2


@pytest.mark.parametrize(("credits", "after"), [(9, 4), (1, 0), (10, 5)])
def test_qc44_result_1_loses_half_the_credits_rounded_up(credits: int, after: int) -> None:
    table = Table(hero={**HERO, "credits": credits})
    dying(table)
    events = die_at_page_end(table, [1])
    (change,) = of_type(table, events, "CreditsChanged")
    assert change.details == {
        "from": credits,
        "to": after,
        "delta": after - credits,
        "cause": "cloning",
    }
    assert table.hero["credits"] == after


def test_qc44_g_qc14_debt_counts_as_no_credits_by_default() -> None:
    table = Table(hero={**HERO, "credits": -3})
    dying(table)
    events = die_at_page_end(table, [1, 4])
    assert of_type(table, events, "CloneRollMade")[0].details["reason"] == "noCredits"
    assert table.hero["credits"] == -3


def test_g_qc14_credits_none_only_at_zero_halves_a_debt() -> None:
    table = Table({"qc.death.creditsNoneIf": "==0"}, hero={**HERO, "credits": -3})
    dying(table)
    events = die_at_page_end(table, [1])
    assert of_type(table, events, "CloneRollMade")[0].details["applied"] is True
    assert table.hero["credits"] == -2
    zero = Table({"qc.death.creditsNoneIf": "==0"}, hero={**HERO, "credits": 0})
    dying(zero)
    rolls = of_type(zero, die_at_page_end(zero, [1, 4]), "CloneRollMade")
    assert [r.details["reason"] for r in rolls] == ["noCredits", None]


@pytest.mark.parametrize(
    ("face", "stat", "path", "before", "after"),
    [
        (1, "STR", ("traits", "STR"), 2, 1),
        (2, "DEX", ("traits", "DEX"), 1, 0),
        (3, "CON", ("traits", "CON"), 1, 0),
        (4, "INT", ("traits", "INT"), 2, 1),
        (5, "WIS", ("traits", "WIS"), 0, -1),
        (6, "CHA", ("traits", "CHA"), -1, -2),
        (7, "hp_max", ("hp_max",), 20, 18),
        (8, "def", ("def",), 12, 11),
        (9, "atk", ("atk",), 3, 2),
        (10, "damage_mod", ("damage_mod",), 2, 1),
    ],
)
def test_qc45_injury_table(
    face: int, stat: str, path: tuple[str, ...], before: int, after: int
) -> None:
    table = Table(hero={**HERO, "damage_mod": 2})

    def read(hero: dict[str, Any]) -> int:
        value: Any = hero
        for key in path:
            value = value[key]
        return int(value)

    assert read(table.hero) == before
    dying(table)
    events = die_at_page_end(table, [2, face])
    (injury,) = of_type(table, events, "InjurySuffered")
    assert injury.details["stat"] == stat
    assert injury.details["d10_value"] == face
    assert read(table.hero) == after


@pytest.mark.parametrize(("hp_max", "after", "taken"), [(3, 1, 2), (2, 1, 1), (1, 1, 0)])
def test_qc45_a_max_hp_injury_never_takes_max_hp_below_1(
    hp_max: int, after: int, taken: int
) -> None:
    table = Table(hero={**HERO, "hp_max": hp_max})
    dying(table)
    events = die_at_page_end(table, [2, 7])
    (injury,) = of_type(table, events, "InjurySuffered")
    assert (injury.details["stat"], table.hero["hp_max"]) == ("hp_max", after)
    assert table.hero["injuries"] == [{"stat": "hp_max", "amount": taken}]
    assert table.hero["hp"] >= 1


def test_qc45_injuries_stack_as_separate_entries() -> None:
    table = Table()
    dying(table)
    die_at_page_end(table, [2, 1])
    table.run({"type": "start_page", "date": "2027-01-05"})
    dying(table)
    die_at_page_end(table, [2, 1])
    assert table.hero["injuries"] == [{"stat": "STR", "amount": 1}] * 2
    assert table.hero["traits"]["STR"] == 0


def test_qc46_result_3_asks_which_equipment_and_waits_for_the_player() -> None:
    table = Table(hero={**HERO, "inventory": [HELMET, BOOTS, MEDKIT]})
    table.given(lambda s: s["hero"]["equipped"].update(helmet="plasma-helmet"))
    dying(table)
    events = die_at_page_end(table, [3])
    assert "Cloned" not in table.types(events)
    assert table.types(events)[-2:] == ["DecisionRequested", "PageEnded"]
    pending = table.state["pending"]
    assert pending["decision"] == "clone_loot"
    assert pending["commands"] == ["choose_loot"]
    assert [o["item"] for o in pending["options"]] == ["plasma-helmet", "mag-boots"]
    assert pending["options"][0]["equipped"] is True
    refused = table.refused({"type": "start_page", "date": "2027-01-05"})
    assert refused.rule_id == "QC-46"
    assert "item" in table.invalid({"type": "choose_loot", "item": "med-kit"}).errors
    events = table.run({"type": "choose_loot", "item": "plasma-helmet"})
    assert table.types(events) == ["EquipmentSacrificed", "ConditionCleared", "Cloned"]
    assert events[0].details["item_id"] == "plasma-helmet"
    assert events[0].details["unequipped"] == ["helmet"]
    assert [i["id"] for i in table.hero["inventory"]] == ["mag-boots", "med-kit"]
    assert table.hero["equipped"] == {}
    assert table.hero["conditions"] == []
    assert table.hero["hp"] == 10
    assert table.state["pending"] is None


def test_qc46_a_single_option_is_still_asked() -> None:
    table = Table(hero={**HERO, "inventory": [BOOTS]})
    dying(table)
    die_at_page_end(table, [3])
    assert table.state["pending"]["options"] == [
        {"item": "mag-boots", "name": "Mag Boots", "slot": "boots", "equipped": False}
    ]
    table.run({"type": "choose_loot", "item": "mag-boots"})
    assert table.hero["inventory"] == []


def test_qc46_consumables_are_not_equipment_so_3_rerolls() -> None:
    table = Table(hero={**HERO, "inventory": [MEDKIT]})
    dying(table)
    events = die_at_page_end(table, [3, 4])
    assert of_type(table, events, "CloneRollMade")[0].details["reason"] == "noEquipment"
    assert table.hero["inventory"][0]["id"] == "med-kit"


def test_qc46_choose_loot_without_a_pending_decision_is_refused() -> None:
    table = Table(hero={**HERO, "inventory": [BOOTS]})
    assert table.refused({"type": "choose_loot", "item": "mag-boots"}).rule_id == "QC-46"


def test_g_qc15_equipped_scope_ignores_carried_equipment() -> None:
    table = Table({"qc.death.lootScope": "equipped"}, hero={**HERO, "inventory": [HELMET, BOOTS]})
    dying(table)
    events = die_at_page_end(table, [3, 4])
    assert of_type(table, events, "CloneRollMade")[0].details["reason"] == "noEquipment"
    table.given(lambda s: s["hero"]["equipped"].update(boots="mag-boots"))
    table.run({"type": "start_page", "date": "2027-01-05"})
    dying(table)
    die_at_page_end(table, [3])
    assert [o["item"] for o in table.state["pending"]["options"]] == ["mag-boots"]
    table.run({"type": "choose_loot", "item": "mag-boots"})
    assert [i["id"] for i in table.hero["inventory"]] == ["plasma-helmet"]


def test_qc47_result_4_marks_every_per_rest_ability_used() -> None:
    hero = {**HERO, "abilities": [PER_REST, PER_PAGE], "pool": {"max": 4}}
    table = Table(hero=hero)
    dying(table)
    events = die_at_page_end(table, [4])
    (exhausted,) = of_type(table, events, "PerRestAbilitiesExhausted")
    assert exhausted.details["abilities"] == ["second-wind"]
    assert table.hero["abilities"]["second-wind"]["used"] == 2
    assert table.hero["abilities"]["smite"]["used_this_page"] is False
    assert table.hero["pool"]["spent"] == 0


def test_g_qc16_result_4_drains_surges_when_the_house_says_so() -> None:
    table = Table({"qc.death.result4DrainsSurges": True}, hero={**HERO, "pool": {"max": 4}})
    dying(table)
    die_at_page_end(table, [4])
    assert table.hero["pool"]["spent"] == 4


def replacement(**changes: Any) -> dict[str, Any]:
    """A new hero definition for QC-48."""
    return {**HERO, "id": "mystic", "hp_max": 16, "credits": 3, "virtue": 0, **changes}


def harder_table(house: dict[str, Any] | None = None) -> Table:
    """A hero with credits, virtue, equipment, a consumable and a spent ability, dying on a 4."""
    hero = {**HERO, "virtue": 4, "inventory": [HELMET, MEDKIT], "abilities": [PER_REST]}
    table = Table({"qc.death.replaceHeroOnFour": True, **(house or {})}, hero=hero)
    table.given(lambda s: s["hero"]["injuries"].append({"stat": "STR", "amount": 1}))
    dying(table)
    events = die_at_page_end(table, [4])
    assert "Cloned" not in table.types(events)
    return table


def test_qc48_harder_variant_asks_and_keeping_the_clone_exhausts_abilities() -> None:
    table = harder_table()
    pending = table.state["pending"]
    assert pending["decision"] == "clone_replace_hero"
    assert pending["commands"] == ["choose_clone_outcome"]
    assert table.refused({"type": "trait_check", "trait": "STR"}).rule_id == "QC-48"
    events = table.run({"type": "choose_clone_outcome", "replace": False})
    assert table.types(events) == ["PerRestAbilitiesExhausted", "ConditionCleared", "Cloned"]
    assert table.hero["id"] == "vanguard"
    assert table.hero["abilities"]["second-wind"]["used"] == 2


def test_qc48_replacement_hero_of_the_same_level_without_equipment() -> None:
    table = harder_table()
    wrong = table.refused(
        {"type": "choose_clone_outcome", "replace": True, "hero": replacement(level=2)}
    )
    assert wrong.rule_id == "QC-48"
    events = table.run({"type": "choose_clone_outcome", "replace": True, "hero": replacement()})
    assert table.types(events) == ["HeroReplaced", "Cloned"]
    assert events[0].details["carried"] == ["credits", "virtue", "consumables", "ship"]
    hero = table.hero
    assert hero["id"] == "mystic"
    assert hero["phase"] == "replacement"
    assert hero["credits"] == 10
    assert hero["virtue"] == 4
    assert [i["id"] for i in hero["inventory"]] == ["med-kit"]
    assert hero["equipped"] == {}
    assert hero["injuries"] == []
    assert hero["hp"] == 8
    assert events[1].details["replaced"] is True


def test_g_qc16_replacement_carries_only_what_the_house_lists() -> None:
    table = harder_table(
        {"qc.death.replacementCarries": ["virtue"], "qc.death.hpRecalcAfterCost": False}
    )
    table.given(lambda s: s["ship"]["compartments"]["1"].update(integrity=1))
    table.run({"type": "choose_clone_outcome", "replace": True, "hero": replacement()})
    assert table.hero["credits"] == 3
    assert table.hero["virtue"] == 4
    assert table.hero["inventory"] == []
    assert table.state["ship"]["compartments"]["1"]["integrity"] == 3
    assert table.hero["hp"] == 8


def test_qc48_a_hero_is_only_given_with_replace_true() -> None:
    table = harder_table()
    error = table.invalid({"type": "choose_clone_outcome", "replace": False, "hero": replacement()})
    assert "hero" in error.errors


def test_qc49_example_max_hp_injury_then_half_of_the_new_max() -> None:
    table = Table()
    dying(table)
    table.given(lambda s: s["hero"]["conditions"].append("malfunction"))
    # Malfunction: the CON roll is rolled twice and the lower d20 kept.
    events = table.run({"type": "end_page"}, faces=[9, 15, 2, 7])
    assert table.hero["hp_max"] == 18
    assert table.hero["hp"] == 9
    cloned = of_type(table, events, "Cloned")[0]
    assert cloned.details["conditions_cleared"] == ["infected", "malfunction"]
    assert cloned.details["hp_max"] == 18
    assert table.hero["conditions"] == []


def test_g_qc13_without_recalculation_hp_stays_half_of_the_old_max() -> None:
    table = Table({"qc.death.hpRecalcAfterCost": False})
    dying(table)
    die_at_page_end(table, [2, 7])
    assert table.hero["hp_max"] == 18
    assert table.hero["hp"] == 10


def test_g_qc12_the_encounter_in_progress_ends_unresolved() -> None:
    table = Table()
    table.given(
        lambda s: s["page"].update(
            combat={"status": "in_progress", "round": 2}, dogfight={"status": "finished"}
        )
    )
    ctx = direct_death(table, [4])
    assert ctx.state["page"]["combat"] == {"status": "finished", "round": 2, "ended_by": "death"}
    assert ctx.state["page"]["dogfight"] == {"status": "finished"}
    assert ctx.events[0].details["encounters_ended"] == ["combat"]


def test_qc41_death_while_a_decision_is_pending_is_a_programming_error() -> None:
    table = Table(hero={**HERO, "inventory": [BOOTS]})
    dying(table)
    die_at_page_end(table, [3])
    with pytest.raises(RuntimeError):
        direct_death(table, [4])


def test_qc50_a_rest_gives_back_exactly_what_a_clone_injury_took() -> None:
    table = Table()
    dying(table)
    die_at_page_end(table, [2, 7])
    assert (table.hero["hp_max"], table.hero["hp"]) == (18, 9)
    table.run({"type": "start_page", "date": "2027-01-05", "rest_day": True})
    events = table.run({"type": "rest"})
    assert of_type(table, events, "InjuryRemoved")[0].details == {
        "stat": "hp_max",
        "count": 1,
        "amount": 2,
        "cause": "rest",
    }
    assert (table.hero["hp_max"], table.hero["hp"]) == (20, 20)
    assert table.hero["injuries"] == []
