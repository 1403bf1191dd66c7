"""Combat pages in standard, easy and hard mode (QC-20..QC-30, QC-33..QC-37, QC-40)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.quest_calendar.harness import HERO, Table

# The QC-21 example: hit on 13, 6 damage needed, 4 damage with DEF >= 12, else 7.
ROUND: dict[str, Any] = {
    "hit_target": 13,
    "damage_needed": 6,
    "enemy_attack": 12,
    "damage_reduced": 4,
    "damage_full": 7,
}


def ability(ability_id: str, usage: str, effect: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A hero-book ability (QC-15..QC-19), in combat unless ``context`` says otherwise."""
    return {"id": ability_id, "usage": usage, "context": "combat", "effect": effect, **extra}


SMITE = ability("smite", "per_page", {"kind": "damage_bonus", "dice": "1d4"})
FOCUS = ability("focus", "per_rest", {"kind": "attack_bonus", "amount": 2}, uses=2)
FURY = ability("fury", "per_page", {"kind": "double_damage"})
FLURRY = ability("flurry", "per_rest", {"kind": "extra_attack"}, uses=1)
LUCKY = ability("lucky", "per_rest", {"kind": "reroll"}, context="both", uses=1)
MEND = ability("mend", "per_rest", {"kind": "heal", "dice": "1d6"}, context="both")
RAM = ability("ram", "per_page", {"kind": "damage_bonus", "amount": 3}, context="dogfight")
SURGE = ability("arc", "surge", {"kind": "damage_bonus", "amount": 2}, cost=1)


def hero(*abilities: dict[str, Any], **stats: Any) -> dict[str, Any]:
    """The harness hero with these abilities and stat changes."""
    return {**HERO, **stats, "abilities": list(abilities)}


def start(
    rounds: list[dict[str, Any]] | None = None, kind: str = "several_enemies", **extra: Any
) -> dict[str, Any]:
    """A start_combat command."""
    return {
        "type": "start_combat",
        "kind": kind,
        "rounds": [ROUND] if rounds is None else rounds,
        **extra,
    }


def details(events: list[Any], event_type: str) -> list[dict[str, Any]]:
    """The details of every event of one type."""
    return [e.details for e in events if type(e).__name__ == event_type]


def combat(table: Table) -> dict[str, Any]:
    """The page's combat."""
    result: dict[str, Any] = table.state["page"]["combat"]
    return result


# -- starting a combat (QC-20, QC-27) ------------------------------------------------------------


def test_qc20_start_combat_opens_the_page_combat() -> None:
    table = Table()
    rounds = [
        ROUND,
        {**ROUND, "enemy": "Void hound", "condition": {"name": "weakened", "target": 9}},
    ]
    (event,) = table.run(start(rounds))
    assert event.details["mode"] == "standard"
    assert event.details["rounds"] == 2
    assert event.details["enemies"][1]["condition"] == {"name": "weakened", "target": 9}
    fight = combat(table)
    assert fight["status"] == "in_progress"
    assert fight["round"] == 0
    assert fight["results"] == []
    assert table.refused(start()).rule_id == "QC-20"


def test_qc20_combat_needs_a_page_a_hero_and_well_formed_rounds() -> None:
    assert Table(page=None).refused(start()).rule_id == "QC-17"
    table = Table()
    assert table.refused({"type": "combat_round"}).rule_id == "QC-20"
    assert "rounds[0].hit_target" in table.invalid(start([{**ROUND, "hit_target": "x"}])).errors
    assert "rounds" in table.invalid(start([])).errors
    bad_condition = {**ROUND, "condition": {"name": "sleepy", "target": 3}}
    assert "rounds[0].condition.name" in table.invalid(start([bad_condition])).errors
    assert "rounds[0].colour" in table.invalid(start([{**ROUND, "colour": "red"}])).errors
    assert "kind" in table.invalid({**start(), "kind": "horde"}).errors


def test_qc27_mode_comes_from_the_house_rule_unless_the_command_names_one() -> None:
    table = Table(house={"qc.combat.mode": "hard"})
    (event,) = table.run(start())
    assert event.details["mode"] == "hard"
    other = Table(house={"qc.combat.mode": "hard"})
    other.run(start(mode="easy"))
    assert combat(other)["mode"] == "easy"


# -- a round: outcome, killed or stunned, damage (QC-20..QC-22, QC-25, QC-26) -------------------


def test_qc21_worked_example_hit_but_not_enough_damage_takes_the_reduced_damage() -> None:
    table = Table()
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[11, 5])
    assert table.types(events) == [
        "AttackRolled",
        "DamageRolled",
        "CombatRoundResolved",
        "HeroDamaged",
        "CombatEnded",
    ]
    (attack,) = details(events, "AttackRolled")
    assert (attack["total"], attack["hit"]) == (14, True)
    (resolved,) = details(events, "CombatRoundResolved")
    assert resolved["damage_dealt"] == 5
    assert resolved["won"] is False
    assert resolved["enemy_outcome"] == "unharmed"
    assert (resolved["defense_tier"], resolved["damage_taken"]) == ("reduced", 4)
    assert table.hero["hp"] == 16
    assert combat(table)["status"] == "finished"
    (ended,) = details(events, "CombatEnded")
    assert ended["rounds_played"] == 1
    assert ended["enemies_remaining"] == 1


def test_qc21_defense_below_the_enemy_attack_takes_the_full_damage() -> None:
    table = Table(hero=hero(**{"def": 11}))
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[2, 8])
    (resolved,) = details(events, "CombatRoundResolved")
    assert resolved["hit"] is False
    assert (resolved["defense_tier"], resolved["damage_taken"]) == ("full", 7)
    assert table.hero["hp"] == 13


@pytest.mark.parametrize(
    ("kind", "outcome"), [("several_enemies", "killed"), ("one_enemy", "stunned")]
)
def test_qc22_a_won_round_kills_or_stuns_and_costs_no_hp(kind: str, outcome: str) -> None:
    table = Table()
    table.run(start([ROUND, ROUND], kind=kind))
    events = table.run({"type": "combat_round"}, faces=[15, 7])
    (resolved,) = details(events, "CombatRoundResolved")
    assert resolved["won"] is True
    assert resolved["enemy_outcome"] == outcome
    assert resolved["damage_taken"] == 0
    assert "HeroDamaged" not in table.types(events)
    assert table.hero["hp"] == 20
    assert combat(table)["status"] == "in_progress"
    events = table.run({"type": "combat_round"}, faces=[15, 7])
    (ended,) = details(events, "CombatEnded")
    assert ended["rounds_won"] == 2
    assert ended["enemies_remaining"] == (0 if kind == "several_enemies" else 1)


def test_qc25_doubling_rolls_the_damage_dice_a_second_time() -> None:
    table = Table(hero=hero(FURY))
    table.run(start())
    table.run({"type": "combat_round"}, faces=[15, 5])
    events = table.run({"type": "resolve_round", "abilities": ["fury"]}, faces=[6])
    (used,) = details(events, "AbilityUsed")
    assert used["effect"] == "double_damage"
    assert used["damage_total"] == 11
    assert events[0].rolls[0]["dice"][0]["face"] == 6
    (resolved,) = details(events, "CombatRoundResolved")
    assert (resolved["damage_dealt"], resolved["won"]) == (11, True)


@pytest.mark.parametrize(("double", "faces", "total"), [(False, [7], 9), (True, [7, 7], 16)])
def test_qc26_flat_modifiers_come_once_after_all_dice(
    double: bool, faces: list[int], total: int
) -> None:
    table = Table(hero=hero(FURY, damage_mod=2))
    table.run(start([{**ROUND, "damage_needed": 20}]))
    events = table.run({"type": "combat_round"}, faces=[15, faces[0]])
    (rolled,) = details(events, "DamageRolled")
    assert (rolled["dice_total"], rolled["flat_mods"]) == (faces[0], 2)
    events = table.run(
        {"type": "resolve_round", "abilities": ["fury"] if double else []}, faces=faces[1:]
    )
    assert details(events, "CombatRoundResolved")[0]["damage_dealt"] == total


def test_qc26_a_modifier_in_the_damage_dice_is_also_added_once() -> None:
    table = Table(hero=hero(FURY, damage_dice="1d8+1", damage_mod=1))
    table.run(start([{**ROUND, "damage_needed": 20}]))
    table.run({"type": "combat_round"}, faces=[15, 7])
    events = table.run({"type": "resolve_round", "abilities": ["fury"]}, faces=[7])
    assert details(events, "CombatRoundResolved")[0]["damage_dealt"] == 16


# -- standard mode (QC-28, G-QC-08) ------------------------------------------------------------


def test_qc28_standard_mode_asks_after_the_round_and_smite_wins_it() -> None:
    table = Table(hero=hero(SMITE, FOCUS, LUCKY, MEND, RAM))
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[15, 4])
    assert table.types(events)[-1] == "DecisionRequested"
    pending = table.state["pending"]
    assert pending["decision"] == "combat_round_abilities"
    assert pending["commands"] == ["resolve_round"]
    assert [o["id"] for o in pending["options"]] == ["smite", "focus", "lucky"]
    assert pending["context"]["damage_dealt"] == 4
    assert pending["context"]["won"] is False
    assert table.refused({"type": "trait_check", "trait": "STR"}).rule_id == "QC-28"
    events = table.run({"type": "resolve_round", "abilities": ["smite"]}, faces=[3])
    (used,) = details(events, "AbilityUsed")
    assert (used["bonus"], used["damage_total"], used["uses_left"]) == (3, 7, 0)
    (resolved,) = details(events, "CombatRoundResolved")
    assert (resolved["damage_dealt"], resolved["won"]) == (7, True)
    assert resolved["abilities"] == ["smite"]
    assert table.hero["abilities"]["smite"]["used_this_page"] is True
    assert table.hero["hp"] == 20


def test_qc22_qc28_a_missed_round_offers_no_damage_alone_and_a_closed_round_stays_closed() -> None:
    """A miss's damage never counts (QC-22): with only Smite (more damage) there is nothing to
    ask, so the round closes at once, lost, and Smite stays unused."""
    table = Table(hero=hero(SMITE))
    table.run(start([ROUND, ROUND]))
    events = table.run({"type": "combat_round"}, faces=[3, 8])
    assert "DecisionRequested" not in table.types(events)
    assert details(events, "CombatRoundResolved")[0]["won"] is False
    assert table.hero["abilities"]["smite"]["used_this_page"] is False
    assert table.hero["hp"] == 16
    assert combat(table)["status"] == "in_progress"
    assert table.state["pending"] is None
    refused = table.refused({"type": "resolve_round", "abilities": ["smite"]})
    assert refused.rule_id == "pending-decision"


def test_qc22_qc28_a_miss_offers_damage_beside_what_could_make_it_hit() -> None:
    table = Table(hero=hero(SMITE, FOCUS))
    table.run(start())
    table.run({"type": "combat_round"}, faces=[3, 8])
    offered = [option["id"] for option in table.state["pending"]["options"]]
    assert sorted(offered) == ["focus", "smite"]


def test_qc28_no_decision_is_asked_when_no_ability_could_apply() -> None:
    table = Table(hero=hero(MEND, RAM))
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[15, 7])
    assert "DecisionRequested" not in table.types(events)
    assert table.state["pending"] is None


def test_qc28_abilities_that_cannot_change_a_round_are_refused() -> None:
    table = Table(hero=hero(SMITE, MEND, RAM))
    table.run(start())
    table.run({"type": "combat_round"}, faces=[15, 4])
    assert "abilities[0]" in table.invalid({"type": "resolve_round", "abilities": ["mend"]}).errors
    assert (
        table.not_held({"type": "resolve_round", "abilities": ["nope"]}).field_name
        == "abilities[0]"
    )
    assert table.refused({"type": "resolve_round", "abilities": ["ram"]}).rule_id == "QC-15"


def test_g_qc08_without_reevaluation_abilities_do_not_change_the_verdict() -> None:
    table = Table(house={"qc.combat.standard.reevaluateAfterAbility": False}, hero=hero(SMITE))
    table.run(start())
    table.run({"type": "combat_round"}, faces=[15, 4])
    events = table.run({"type": "resolve_round", "abilities": ["smite"]}, faces=[3])
    (resolved,) = details(events, "CombatRoundResolved")
    assert resolved["judged_on"] == "first_rolls"
    assert (resolved["damage_dealt"], resolved["won"]) == (4, False)
    assert table.hero["hp"] == 16


def test_qc14_reroll_needs_a_target_roll_and_keeps_the_new_result() -> None:
    table = Table(hero=hero(LUCKY))
    table.run(start())
    table.run({"type": "combat_round"}, faces=[5, 7])
    error = table.invalid({"type": "resolve_round", "abilities": ["lucky"]})
    assert "abilities[0].roll" in error.errors
    events = table.run(
        {"type": "resolve_round", "abilities": [{"id": "lucky", "roll": "attack"}]}, faces=[12]
    )
    (used,) = details(events, "AbilityUsed")
    assert (used["before"], used["after"], used["kept"]) == ([5], [12], "new")
    assert details(events, "CombatRoundResolved")[0]["won"] is True


def test_qc19_a_surge_ability_spends_the_pool() -> None:
    table = Table(hero={**hero(SURGE), "pool": {"name": "surges", "max": 1}})
    table.run(start([ROUND, ROUND]))
    table.run({"type": "combat_round"}, faces=[15, 4])
    events = table.run({"type": "resolve_round", "abilities": ["arc"]})
    assert table.types(events)[:2] == ["SurgeSpent", "AbilityUsed"]
    assert details(events, "AbilityUsed")[0]["uses_left"] == 0
    events = table.run({"type": "combat_round"}, faces=[15, 4])
    assert "DecisionRequested" not in table.types(events)


# -- easy mode (QC-29) -------------------------------------------------------------------------


def test_qc29_easy_mode_rolls_every_round_then_assigns_smite_to_round_3() -> None:
    table = Table(hero=hero(SMITE, FOCUS))
    table.run(start([ROUND, ROUND, ROUND], mode="easy"))
    # Round 1 wins; round 2 misses by 1 (12); round 3 hits but falls 2 short (4).
    events = table.run({"type": "combat_round"}, faces=[15, 7, 9, 8, 14, 4])
    assert table.types(events) == ["AttackRolled", "DamageRolled"] * 3 + ["DecisionRequested"]
    pending = table.state["pending"]
    assert pending["decision"] == "combat_assign_abilities"
    assert pending["commands"] == ["resolve_rounds"]
    previews = pending["context"]["rounds"]
    assert [p["won"] for p in previews] == [True, False, False]
    events = table.run(
        {"type": "resolve_rounds", "assignments": {"3": ["smite"], "2": ["focus"]}}, faces=[2]
    )
    resolved = details(events, "CombatRoundResolved")
    assert [r["won"] for r in resolved] == [True, True, True]
    assert [r["abilities"] for r in resolved] == [[], ["focus"], ["smite"]]
    assert table.hero["hp"] == 20
    assert combat(table)["status"] == "finished"


def test_qc29_easy_mode_assignments_name_rolled_rounds_and_uses_are_counted() -> None:
    table = Table(hero=hero(SMITE))
    table.run(start([ROUND, ROUND], mode="easy"))
    table.run({"type": "combat_round"}, faces=[15, 4, 15, 4])
    error = table.invalid({"type": "resolve_rounds", "assignments": {"5": ["smite"]}})
    assert "assignments.5" in error.errors
    twice = {"type": "resolve_rounds", "assignments": {"1": ["smite"], "2": ["smite"]}}
    assert table.refused(twice, faces=[3, 3]).rule_id == "QC-17"
    events = table.run({"type": "resolve_rounds", "assignments": {}})
    assert [r["damage_taken"] for r in details(events, "CombatRoundResolved")] == [4, 4]
    assert table.types(events)[-1] == "CombatEnded"
    assert table.hero["hp"] == 12


# -- hard mode (QC-30) -------------------------------------------------------------------------


def test_qc30_hard_mode_asks_boost_attack_before_any_damage_die() -> None:
    table = Table(hero=hero(FOCUS, SMITE))
    table.run(start(mode="hard"))
    events = table.run({"type": "combat_round"}, faces=[9])
    assert table.types(events) == ["AttackRolled", "DecisionRequested"]
    assert all(roll["notation"] == "1d20" for e in events for roll in e.rolls)
    pending = table.state["pending"]
    assert (pending["decision"], pending["commands"]) == ("combat_boost_attack", ["boost_attack"])
    assert [o["id"] for o in pending["options"]] == ["focus"]
    assert table.refused({"type": "resolve_round"}).rule_id == "QC-30"
    assert "abilities[0]" in table.invalid({"type": "boost_attack", "abilities": ["smite"]}).errors
    events = table.run({"type": "boost_attack", "abilities": ["focus"]}, faces=[4])
    assert table.types(events) == ["AbilityUsed", "DamageRolled", "DecisionRequested"]
    assert details(events, "AbilityUsed")[0]["hit"] is True
    assert table.state["pending"]["decision"] == "combat_boost_damage"
    assert [o["id"] for o in table.state["pending"]["options"]] == ["smite"]
    events = table.run({"type": "boost_damage", "abilities": ["smite"]}, faces=[2])
    (resolved,) = details(events, "CombatRoundResolved")
    assert (resolved["damage_dealt"], resolved["won"]) == (6, True)


def test_qc30_hard_mode_extra_attack_is_played_roll_by_roll() -> None:
    table = Table(hero=hero(FLURRY, FOCUS))
    table.run(start([{**ROUND, "damage_needed": 5}], mode="hard"))
    table.run({"type": "combat_round"}, faces=[2])
    table.run({"type": "boost_attack", "abilities": []}, faces=[6])
    assert [o["id"] for o in table.state["pending"]["options"]] == ["flurry"]
    events = table.run({"type": "boost_damage", "abilities": ["flurry"]}, faces=[10])
    assert table.types(events) == ["AbilityUsed", "AttackRolled", "DecisionRequested"]
    assert table.state["pending"]["context"]["attempt"] == "extra"
    events = table.run({"type": "boost_attack", "abilities": ["focus"]}, faces=[6])
    (extra,) = details(events, "ExtraAttackResolved")
    assert (extra["first_hit"], extra["extra_hit"], extra["combined_damage"]) == (False, True, 6)
    assert details(events, "CombatRoundResolved")[0]["won"] is True


# -- round conditions (QC-33..QC-37, G-QC-09) -------------------------------------------------


@pytest.mark.parametrize(("face", "afflicted"), [(9, True), (10, False)])
def test_qc33_condition_check_below_the_target_afflicts_for_that_round(
    face: int, afflicted: bool
) -> None:
    table = Table(hero=hero(traits={**HERO["traits"], "WIS": 2}))
    frightened = {**ROUND, "condition": {"name": "frightened", "target": 12}}
    table.run(start([frightened, ROUND]))
    faces = [face, 15, 2, 7] if afflicted else [face, 15, 7]
    events = table.run({"type": "combat_round"}, faces=faces)
    (check,) = details(events, "ConditionCheckRolled")
    assert (check["trait"], check["total"], check["afflicted"]) == ("WIS", face + 2, afflicted)
    assert table.types(events)[0] == "ConditionCheckRolled"
    assert details(events, "AttackRolled")[0]["frightened"] is afflicted
    events = table.run({"type": "combat_round"}, faces=[15, 7])
    assert details(events, "AttackRolled")[0]["frightened"] is False
    assert "frightened" not in table.hero["conditions"]


def test_qc33_malfunction_applies_to_the_condition_check() -> None:
    table = Table()
    table.given(lambda s: s["hero"]["conditions"].append("malfunction"))
    weakened = {**ROUND, "condition": {"name": "weakened", "target": 10}}
    table.run(start([weakened]))
    events = table.run({"type": "combat_round"}, faces=[14, 6, 15, 7])
    (check,) = details(events, "ConditionCheckRolled")
    assert (check["faces"], check["total"], check["afflicted"]) == ([14, 6], 8, True)
    assert check["malfunction"] is True


@pytest.mark.parametrize(("second", "kept"), [(8, 8), (18, 15)])
def test_qc34_frightened_rolls_the_attack_again_and_keeps_the_lower(second: int, kept: int) -> None:
    table = Table()
    table.run(start([{**ROUND, "condition": {"name": "frightened", "target": 30}}]))
    events = table.run({"type": "combat_round"}, faces=[1, 15, second, 7])
    (attack,) = details(events, "AttackRolled")
    assert (attack["d20_faces"], attack["d20"], attack["total"]) == ([15, second], kept, kept + 3)
    attack_event = next(e for e in events if type(e).__name__ == "AttackRolled")
    assert len(attack_event.rolls) == 2


def test_qc35_restrained_makes_no_roll_and_takes_the_damage() -> None:
    table = Table(hero=hero(SMITE))
    restrained = {**ROUND, "enemy_attack": 13, "condition": {"name": "restrained", "target": 30}}
    table.run(start([restrained]))
    events = table.run({"type": "combat_round"}, faces=[1])
    assert "DecisionRequested" not in table.types(events)
    (attack,) = details(events, "AttackRolled")
    assert (attack["restrained"], attack["d20_faces"], attack["hit"]) == (True, [], False)
    (resolved,) = details(events, "CombatRoundResolved")
    assert (resolved["won"], resolved["damage_taken"]) == (False, 7)
    assert table.hero["hp"] == 13


@pytest.mark.parametrize(("faces", "taken"), [([1, 2, 7], 8), ([1, 15, 7], 0)])
def test_qc36_weakened_doubles_the_damage_taken(faces: list[int], taken: int) -> None:
    table = Table()
    table.run(start([{**ROUND, "condition": {"name": "weakened", "target": 30}}]))
    events = table.run({"type": "combat_round"}, faces=faces)
    (resolved,) = details(events, "CombatRoundResolved")
    assert resolved["weakened"] is True
    assert resolved["damage_taken"] == taken
    assert table.hero["hp"] == 20 - taken


@pytest.mark.parametrize(("after", "taken"), [(True, 4), (False, 9)])
def test_g_qc09_weakened_before_or_after_defense_in_the_subtract_model(
    after: bool, taken: int
) -> None:
    house = {"qc.combat.defenseModel": "subtract", "qc.conditions.weakenedAfterDefense": after}
    table = Table(house=house, hero=hero(**{"def": 5}))
    table.run(start([{**ROUND, "condition": {"name": "weakened", "target": 30}}]))
    events = table.run({"type": "combat_round"}, faces=[1, 2, 7])
    (resolved,) = details(events, "CombatRoundResolved")
    assert (resolved["defense_tier"], resolved["damage_taken"]) == ("subtract", taken)


def test_qc37_confused_rolls_damage_twice_and_keeps_the_lower() -> None:
    table = Table(hero=hero(damage_mod=1))
    table.run(start([{**ROUND, "condition": {"name": "confused", "target": 30}}]))
    events = table.run({"type": "combat_round"}, faces=[1, 15, 7, 4])
    (rolled,) = details(events, "DamageRolled")
    assert rolled["confused"] is True
    assert rolled["raw_faces"] == [[[7]], [[4]]]
    assert (rolled["dice_total"], rolled["total"]) == (4, 5)
    damage_event = next(e for e in events if type(e).__name__ == "DamageRolled")
    assert len(damage_event.rolls) == 2


def test_g_qc09_confused_doubling_rerolls_both_takes_and_keeps_the_lower_sum() -> None:
    table = Table(hero=hero(FURY))
    table.run(
        start([{**ROUND, "damage_needed": 30, "condition": {"name": "confused", "target": 30}}])
    )
    table.run({"type": "combat_round"}, faces=[1, 15, 7, 4])
    events = table.run({"type": "resolve_round", "abilities": ["fury"]}, faces=[1, 6])
    (used,) = details(events, "AbilityUsed")
    assert used["damage_total"] == 8


# -- extra attack (QC-40) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("faces", "combined", "won"),
    [
        ([2, 4, 15, 6], 6, True),
        ([15, 3, 15, 3], 6, True),
        ([15, 3, 2, 8], 3, False),
    ],
)
def test_qc40_extra_attack_adds_only_hitting_damage(
    faces: list[int], combined: int, won: bool
) -> None:
    table = Table(hero=hero(FLURRY))
    table.run(start([{**ROUND, "damage_needed": 5}]))
    table.run({"type": "combat_round"}, faces=faces[:2])
    events = table.run({"type": "resolve_round", "abilities": ["flurry"]}, faces=faces[2:])
    assert table.types(events)[:3] == ["AbilityUsed", "AttackRolled", "DamageRolled"]
    (extra,) = details(events, "ExtraAttackResolved")
    assert extra["combined_damage"] == combined
    (resolved,) = details(events, "CombatRoundResolved")
    assert resolved["won"] is won
    assert table.hero["hp"] == (20 if won else 16)


def test_qc40_abilities_can_aim_at_the_extra_attack_after_it_is_made() -> None:
    table = Table(hero=hero(FLURRY, SMITE))
    table.run(start([{**ROUND, "damage_needed": 8}]))
    table.run({"type": "combat_round"}, faces=[2, 4])
    aimed = {"id": "smite", "attempt": "extra"}
    error = table.invalid({"type": "resolve_round", "abilities": [aimed, "flurry"]})
    assert "abilities[0]" in error.errors
    events = table.run({"type": "resolve_round", "abilities": ["flurry", aimed]}, faces=[15, 5, 3])
    assert details(events, "AbilityUsed")[1]["attempt"] == "extra"
    assert details(events, "CombatRoundResolved")[0]["damage_dealt"] == 8


@pytest.mark.parametrize(
    ("applies", "faces"), [(True, [1, 2, 4, 3, 15, 3, 6]), (False, [1, 2, 4, 3, 15, 6])]
)
def test_g_qc09_round_conditions_reach_the_extra_attack_only_by_default(
    applies: bool, faces: list[int]
) -> None:
    table = Table(house={"qc.conditions.applyToExtraAttack": applies}, hero=hero(FLURRY))
    frightened = {**ROUND, "damage_needed": 5, "condition": {"name": "frightened", "target": 30}}
    table.run(start([frightened]))
    table.run({"type": "combat_round"}, faces=faces[:4])
    events = table.run({"type": "resolve_round", "abilities": ["flurry"]}, faces=faces[4:])
    extra = details(events, "AttackRolled")[0]
    assert extra["frightened"] is applies
    assert extra["hit"] is not applies


# -- house rules for hits, defence and the damage floor (G-QC-05, G-QC-06, G-QC-10) ----------


def test_g_qc05_strict_comparisons_make_ties_miss_and_fall_short() -> None:
    house = {"qc.combat.hitIf": "total>target", "qc.combat.enoughIf": "damage>needed"}
    table = Table(house=house)
    table.run(start([ROUND, ROUND]))
    events = table.run({"type": "combat_round"}, faces=[10, 8])
    assert details(events, "AttackRolled")[0]["hit"] is False
    events = table.run({"type": "combat_round"}, faces=[11, 6])
    (resolved,) = details(events, "CombatRoundResolved")
    assert (resolved["hit"], resolved["won"]) == (True, False)


def test_g_qc06_a_defense_tie_can_take_the_full_damage() -> None:
    table = Table(house={"qc.combat.defenseTie": "full"})
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[2, 8])
    (resolved,) = details(events, "CombatRoundResolved")
    assert (resolved["defense_tier"], resolved["damage_taken"]) == ("full", 7)


def test_g_qc06_subtract_model_takes_full_damage_less_defense() -> None:
    table = Table(house={"qc.combat.defenseModel": "subtract"}, hero=hero(**{"def": 5}))
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[2, 8])
    assert details(events, "CombatRoundResolved")[0]["damage_taken"] == 2
    table = Table(house={"qc.combat.defenseModel": "subtract"})
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[2, 8])
    assert details(events, "CombatRoundResolved")[0]["damage_taken"] == 0
    assert "HeroDamaged" not in table.types(events)


@pytest.mark.parametrize(("floor", "total"), [(0, 0), (None, -2)])
def test_g_qc10_damage_never_goes_below_the_floor(floor: int | None, total: int) -> None:
    table = Table(house={"qc.damage.floor": floor}, hero=hero(damage_mod=-3))
    table.run(start())
    events = table.run({"type": "combat_round"}, faces=[15, 1])
    assert details(events, "DamageRolled")[0]["total"] == total


# -- between rounds and death (QC-23, QC-41, G-QC-12) ------------------------------------------


def test_qc23_between_rounds_the_combat_is_in_progress_so_a_med_kit_waits() -> None:
    med_kit = {
        "id": "med-kit",
        "kind": "consumable",
        "effect": {"kind": "heal", "amount": 5},
    }
    table = Table(hero={**hero(), "inventory": [med_kit]})
    table.run(start([ROUND, ROUND]))
    table.run({"type": "combat_round"}, faces=[2, 8])
    assert combat(table)["status"] == "in_progress"
    assert table.refused({"type": "use_item", "item": "med-kit"}).rule_id == "QC-23"
    table.run({"type": "combat_round"}, faces=[15, 7])
    assert combat(table)["status"] == "finished"
    table.run({"type": "use_item", "item": "med-kit"})
    assert table.hero["hp"] == 20


def test_qc24_healing_abilities_and_other_items_are_fine_between_rounds() -> None:
    grenade = {"id": "solar-grenade", "kind": "consumable", "effect": {}}
    table = Table(hero={**hero(MEND), "inventory": [grenade]})
    table.run(start([ROUND, ROUND]))
    table.run({"type": "combat_round"}, faces=[2, 8])
    assert table.hero["hp"] == 16
    table.run({"type": "use_ability", "ability": "mend"}, faces=[3])
    assert table.hero["hp"] == 19
    events = table.run({"type": "use_item", "item": "solar-grenade"})
    assert details(events, "ItemUsed")[0]["timing"] == "between_rounds"
    table.run({"type": "combat_round"}, faces=[15, 7])
    assert combat(table)["status"] == "finished"


def test_qc29_a_restrained_first_round_still_offers_abilities_for_the_others() -> None:
    table = Table(hero=hero(SMITE))
    restrained = {**ROUND, "condition": {"name": "restrained", "target": 30}}
    table.run(start([restrained, ROUND], mode="easy"))
    table.run({"type": "combat_round"}, faces=[1, 15, 4])
    assert [o["id"] for o in table.state["pending"]["options"]] == ["smite"]
    refused = table.refused({"type": "resolve_rounds", "assignments": {"1": ["smite"]}}, faces=[3])
    assert refused.rule_id == "QC-35"
    events = table.run({"type": "resolve_rounds", "assignments": {"2": ["smite"]}}, faces=[3])
    assert [r["won"] for r in details(events, "CombatRoundResolved")] == [False, True]


def test_qc20_a_new_combat_can_start_once_the_last_one_is_over() -> None:
    table = Table()
    table.run(start())
    table.run({"type": "combat_round"}, faces=[15, 7])
    (event,) = table.run(start([ROUND, ROUND], kind="one_enemy"))
    assert event.details["kind"] == "one_enemy"
    assert combat(table)["status"] == "in_progress"
    assert combat(table)["results"] == []


def test_g_qc12_death_in_combat_ends_it_unresolved_and_skips_the_rest() -> None:
    table = Table(hero=hero(SMITE, FOCUS, hp=4))
    table.run(start([ROUND, ROUND, ROUND], mode="easy"))
    table.run({"type": "combat_round"}, faces=[2, 8, 2, 8, 2, 8])
    # Round 1 takes 4: HP 0, the clone cost d4 shows 4 (a rushed clone).
    events = table.run({"type": "resolve_rounds", "assignments": {}}, faces=[4])
    types = table.types(events)
    assert types[:3] == ["CombatRoundResolved", "HeroDamaged", "Died"]
    assert types[-1] == "CombatEnded"
    assert types.count("CombatRoundResolved") == 1
    (ended,) = details(events, "CombatEnded")
    assert (ended["ended_by"], ended["rounds_played"], ended["rounds_unplayed"]) == ("death", 1, 2)
    assert combat(table)["status"] == "finished"
    assert combat(table)["open"] == []
    assert table.hero["hp"] == 10


@pytest.mark.parametrize("mode", ["standard", "hard"])
def test_qc28_qc30_play_on_while_the_last_round_waits_is_refused_without_a_traceback(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The refusal's ``also`` hint runs the command as if no decision were pending: with the
    combat's last round open, that run must refuse by a rule, not fail on a round that is not
    there (it logged a traceback on every such command)."""
    table = Table(hero=hero(FURY))
    table.run(start(mode=mode))
    table.run({"type": "combat_round"}, faces=[15, 5])
    assert table.state["pending"] is not None
    with caplog.at_level("WARNING"):
        refused = table.refused({"type": "combat_round"})
    assert refused.rule_id == ("QC-28" if mode == "standard" else "QC-30")
    assert refused.also is not None and refused.also["rule"] == refused.rule_id
    assert "waits" in refused.also["detail"]
    assert not [r for r in caplog.records if r.exc_info], caplog.text
