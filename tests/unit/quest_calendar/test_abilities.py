"""Abilities (QC-13..QC-19, QC-24), conditions (QC-31, QC-32) and choices (QC-11)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.quest_calendar.harness import HERO, Table

KEEN_MIND = {
    "id": "keen-mind",
    "usage": "per_page",
    "context": "outside",
    "effect": {"kind": "check_bonus", "dice": "1d4"},
}
LUCKY = {"id": "lucky", "usage": "unlimited", "context": "both", "effect": {"kind": "reroll"}}
SECOND_WIND = {
    "id": "second-wind",
    "usage": "per_rest",
    "uses": 2,
    "context": "both",
    "effect": {"kind": "heal", "dice": "1d6"},
}
SMITE = {
    "id": "smite",
    "usage": "per_page",
    "context": "combat",
    "effect": {"kind": "damage_bonus", "dice": "1d4"},
}
EVASIVE = {"id": "barrel-roll", "usage": "per_page", "context": "dogfight", "effect": {}}
RALLY = {"id": "rally", "usage": "unlimited", "context": "both", "effect": {}}


def hero_with(*abilities: dict[str, Any], **stats: Any) -> dict[str, Any]:
    """The harness hero with these abilities and stats."""
    return {**HERO, "abilities": list(abilities), **stats}


def fight(kind: str, status: str) -> Any:
    """Fixture: a combat or dogfight on the page, as the combat and dogfight commands keep it."""
    return lambda s: s["page"].update({kind: {"status": status}})


def rolled_check(
    table: Table, trait: str, face: int, target: int | None = None, *, malfunction: bool = False
) -> dict[str, Any]:
    """A trait check on the page, listed in ``page["checks"]`` for QC-14.

    Until checks.trait_check records its checks on the page itself, the test lists the
    ``CheckRolled`` details there the same way.
    """
    faces = [face, face] if malfunction else [face]
    before = len(table.state["page"].get("checks", []))
    (event,) = table.run({"type": "trait_check", "trait": trait, "target": target}, faces=faces)
    details: dict[str, Any] = dict(event.details)
    if len(table.state["page"].get("checks", [])) == before:
        table.given(lambda s: s["page"].setdefault("checks", []).append(dict(details)))
    return details


# -- QC-11 choices ------------------------------------------------------------------------------


def choose(options: list[str], selected: list[str], choice: str = "door") -> dict[str, Any]:
    """A make_choice command."""
    return {"type": "make_choice", "choice": choice, "options": options, "selected": selected}


@pytest.mark.parametrize("selected", [["A", "B"], []])
def test_qc11_lettered_options_take_exactly_one(selected: list[str]) -> None:
    table = Table()
    refused = table.refused(choose(["A", "B", "C"], selected))
    assert refused.rule_id == "QC-11"
    assert "exactly one" in refused.reason


def test_qc11_one_lettered_option_is_recorded_on_the_page() -> None:
    table = Table()
    (event,) = table.run(choose(["A", "B", "C"], ["b"]))
    assert table.types([event]) == ["ChoiceMade"]
    assert event.details["selected_options"] == ["B"]
    assert event.details["page_date"] == "2027-01-04"
    assert table.state["page"]["choices"] == {"door": ["B"]}


def test_qc11_numbered_options_are_all_done_in_order() -> None:
    table = Table()
    assert table.refused(choose(["1", "2", "3"], ["2", "1", "3"])).rule_id == "QC-11"
    missing = table.refused(choose(["1", "2", "3"], ["1", "3"]))
    assert "2 is missing" in missing.reason
    (event,) = table.run(choose(["3", "1", "2"], ["1", "2", "3"]))
    assert event.details["selected_options"] == ["1", "2", "3"]


def test_qc11_numbers_sort_as_numbers_not_text() -> None:
    table = Table()
    options = [str(n) for n in range(1, 11)]
    table.run(choose(options, options))
    assert table.state["page"]["choices"]["door"][-1] == "10"


def test_qc11_combined_do_1_then_exactly_one_of_2a_or_2b() -> None:
    table = Table()
    options = ["1", "2-A", "2-B"]
    assert table.refused(choose(options, ["1", "2-A", "2-B"])).rule_id == "QC-11"
    assert table.refused(choose(options, ["2-A"])).rule_id == "QC-11"
    assert table.refused(choose(options, ["2-B", "1"])).rule_id == "QC-11"
    (event,) = table.run(choose(options, ["1", "2-B"]))
    assert event.details["selected_options"] == ["1", "2-B"]
    assert event.details["options"] == options


def test_qc11_lettered_branch_with_numbered_steps() -> None:
    table = Table()
    options = ["A-1", "A-2", "B"]
    assert table.refused(choose(options, ["A-1"])).rule_id == "QC-11"
    assert table.refused(choose(options, ["A-1", "A-2", "B"])).rule_id == "QC-11"
    table.run(choose(options, ["A-1", "A-2"]))
    assert table.state["page"]["choices"]["door"] == ["A-1", "A-2"]


def test_qc11_a_choice_is_made_once_per_page() -> None:
    table = Table()
    table.run(choose(["A", "B"], ["A"]))
    assert table.refused(choose(["A", "B"], ["B"])).rule_id == "QC-11"
    table.run(choose(["A", "B"], ["B"], choice="window"))
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-05"})
    table.run(choose(["A", "B"], ["B"]))


@pytest.mark.parametrize(
    ("options", "selected", "field"),
    [
        (["1", "A"], ["1"], "options"),
        (["2", "2-A"], ["2"], "options"),
        (["A", "A"], ["A"], "options"),
        (["A/B"], ["A/B"], "options"),
        ([], [], "options"),
        (["A", "B"], ["C"], "selected"),
        (["1", "2"], ["1", "1", "2"], "selected"),
    ],
)
def test_qc11_malformed_choices_name_the_field(
    options: list[str], selected: list[str], field: str
) -> None:
    assert field in Table().invalid(choose(options, selected)).errors


def test_qc11_choice_needs_an_open_page() -> None:
    assert Table(page=None).refused(choose(["A"], ["A"])).rule_id == "QC-17"


# -- QC-13 .. QC-17 abilities -------------------------------------------------------------------


def test_qc13_reminders_are_advisory_any_allowed_ability_may_be_used() -> None:
    table = Table(hero=hero_with(RALLY, SMITE))
    table.given(lambda s: s["page"].update(reminders=["smite"]))
    (event,) = table.run({"type": "use_ability", "ability": "rally"})
    assert table.types([event]) == ["AbilityUsed"]
    assert event.details["context"] == "outside"
    assert event.details["uses_left"] is None


def test_qc14_check_bonus_applied_after_seeing_the_roll_turns_failure_into_success() -> None:
    table = Table(hero=hero_with(KEEN_MIND))
    seen = rolled_check(table, "INT", face=10, target=14)
    assert (seen["total"], seen["success"]) == (12, False)
    (used,) = table.run({"type": "use_ability", "ability": "keen-mind", "on_roll": 0}, faces=[3])
    assert used.details["target_check"] == 0
    assert used.details["bonus"] == 3
    assert (used.details["total_before"], used.details["total"]) == (12, 15)
    assert used.details["success"] is True
    assert used.rolls[0]["dice"][0]["face"] == 3
    check = table.state["page"]["checks"][0]
    assert (check["total"], check["success"], check["ability_bonus"]) == (15, True, 3)


def test_qc14_reroll_keeps_the_new_roll_and_records_both() -> None:
    table = Table(hero=hero_with(LUCKY))
    rolled_check(table, "STR", face=15, target=12)
    rolled_check(table, "STR", face=4, target=12)
    (used,) = table.run({"type": "use_ability", "ability": "lucky", "on_roll": 1}, faces=[2])
    assert used.details["previous_faces"] == [4]
    assert used.details["faces"] == [2]
    assert (used.details["total"], used.details["success"]) == (4, False)
    assert table.state["page"]["checks"][0]["total"] == 17


def test_qc14_reroll_while_malfunctioning_keeps_the_lower_of_two() -> None:
    table = Table(hero=hero_with(LUCKY))
    table.given(lambda s: s["hero"]["conditions"].append("malfunction"))
    rolled_check(table, "STR", face=5, target=12, malfunction=True)
    (used,) = table.run({"type": "use_ability", "ability": "lucky", "on_roll": 0}, faces=[17, 11])
    assert used.details["faces"] == [17, 11]
    assert used.details["total"] == 13
    assert len(used.rolls) == 2


def test_qc14_the_roll_must_be_a_check_of_this_page() -> None:
    table = Table(hero=hero_with(KEEN_MIND, SECOND_WIND))
    assert (
        table.refused({"type": "use_ability", "ability": "keen-mind", "on_roll": 0}).rule_id
        == "QC-14"
    )
    assert "on_roll" in table.invalid({"type": "use_ability", "ability": "keen-mind"}).errors
    rolled_check(table, "INT", face=10)
    wrong = {"type": "use_ability", "ability": "second-wind", "on_roll": 0}
    assert "on_roll" in table.invalid(wrong).errors
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-05"})
    assert (
        table.refused({"type": "use_ability", "ability": "keen-mind", "on_roll": 0}).rule_id
        == "QC-14"
    )


def test_qc14_a_bonus_limited_to_some_traits() -> None:
    sharp = {**KEEN_MIND, "effect": {"kind": "check_bonus", "amount": 2, "traits": ["INT"]}}
    table = Table(hero=hero_with(sharp))
    rolled_check(table, "STR", face=10)
    rolled_check(table, "INT", face=10)
    assert (
        "on_roll"
        in table.invalid({"type": "use_ability", "ability": "keen-mind", "on_roll": 0}).errors
    )
    (used,) = table.run({"type": "use_ability", "ability": "keen-mind", "on_roll": 1})
    assert used.details["total"] == 14
    assert used.rolls == []


def test_qc15_dogfight_ability_is_refused_in_ground_combat() -> None:
    table = Table(hero=hero_with(EVASIVE, SECOND_WIND, KEEN_MIND))
    table.given(fight("combat", "in_progress"))
    refused = table.refused({"type": "use_ability", "ability": "barrel-roll"})
    assert refused.rule_id == "QC-15"
    rolled_check(table, "INT", face=10)
    outside = {"type": "use_ability", "ability": "keen-mind", "on_roll": 0}
    assert table.refused(outside, faces=[2]).rule_id == "QC-15"


def test_qc15_contexts_follow_the_fight_in_progress() -> None:
    table = Table(hero=hero_with(EVASIVE, RALLY))
    assert table.refused({"type": "use_ability", "ability": "barrel-roll"}).rule_id == "QC-15"
    table.given(fight("dogfight", "in_progress"))
    (used,) = table.run({"type": "use_ability", "ability": "barrel-roll"})
    assert used.details["context"] == "dogfight"
    table.given(fight("dogfight", "ended"))
    table.given(fight("combat", "in_progress"))
    (both,) = table.run({"type": "use_ability", "ability": "rally"})
    assert both.details["context"] == "combat"


def test_qc15_attack_and_damage_abilities_are_spent_by_the_combat_commands() -> None:
    table = Table(hero=hero_with(SMITE))
    table.given(fight("combat", "in_progress"))
    assert (
        "ability.effect.kind" in table.invalid({"type": "use_ability", "ability": "smite"}).errors
    )
    assert table.not_held({"type": "use_ability", "ability": "fireball"}).field_name == "ability"


def test_qc16_per_rest_uses_run_out_and_do_not_come_back_with_a_new_page() -> None:
    table = Table(hero=hero_with(SECOND_WIND, hp=5))
    (used, healed) = table.run({"type": "use_ability", "ability": "second-wind"}, faces=[2])
    assert used.details["uses_left"] == 1
    assert healed.details["hp_after"] == 7
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-05"})
    (used, _) = table.run({"type": "use_ability", "ability": "second-wind"}, faces=[1])
    assert used.details["uses_left"] == 0
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-06"})
    refused = table.refused({"type": "use_ability", "ability": "second-wind"})
    assert refused.rule_id == "QC-16"
    assert table.hero["abilities"]["second-wind"]["used"] == 2


def test_qc17_once_per_page_ability_comes_back_on_the_next_page() -> None:
    table = Table(hero=hero_with(KEEN_MIND))
    rolled_check(table, "INT", face=5)
    rolled_check(table, "INT", face=6)
    table.run({"type": "use_ability", "ability": "keen-mind", "on_roll": 0}, faces=[1])
    again = {"type": "use_ability", "ability": "keen-mind", "on_roll": 1}
    assert table.refused(again, faces=[1]).rule_id == "QC-17"
    table.run({"type": "end_page"})
    table.run({"type": "start_page", "date": "2027-01-05"})
    rolled_check(table, "INT", face=7)
    (used,) = table.run({"type": "use_ability", "ability": "keen-mind", "on_roll": 0}, faces=[4])
    assert used.details["uses_left"] == 0
    assert used.details["total"] == 13


def test_qc19_surges_are_spent_until_none_are_left() -> None:
    foresight = {"id": "foresight", "usage": "surge", "context": "both", "effect": {}}
    regenerate = {
        "id": "regenerate",
        "usage": "surge",
        "context": "both",
        "effect": {"kind": "heal", "amount": 3},
    }
    mystic = hero_with(foresight, regenerate, hp=10, pool={"name": "surges", "max": 4})
    table = Table(hero=mystic)
    events = table.run({"type": "use_ability", "ability": "foresight"})
    assert table.types(events) == ["SurgeSpent", "AbilityUsed"]
    assert events[0].details == {
        "ability_id": "foresight",
        "cost": 1,
        "remaining": 3,
        "pool_max": 4,
    }
    events = table.run({"type": "use_ability", "ability": "regenerate"})
    assert table.types(events) == ["SurgeSpent", "AbilityUsed", "HeroHealed"]
    assert events[1].details["uses_left"] == 2
    assert table.hero["hp"] == 13
    table.run({"type": "use_ability", "ability": "foresight"})
    table.run({"type": "use_ability", "ability": "foresight"})
    assert table.hero["pool"]["spent"] == 4
    assert table.refused({"type": "use_ability", "ability": "foresight"}).rule_id == "QC-19"


def test_qc19_an_ability_costing_more_than_is_left_is_refused() -> None:
    nova = {"id": "nova", "usage": "surge", "cost": 3, "context": "both", "effect": {}}
    table = Table(hero=hero_with(nova, pool={"max": 2}))
    assert table.refused({"type": "use_ability", "ability": "nova"}).rule_id == "QC-19"


def test_qc24_healing_abilities_may_be_used_between_rounds() -> None:
    table = Table(hero=hero_with(SECOND_WIND, hp=8))
    table.given(fight("combat", "in_progress"))
    used, healed = table.run({"type": "use_ability", "ability": "second-wind"}, faces=[6])
    assert used.details["context"] == "combat"
    assert healed.details == {
        "source": "second-wind",
        "rolled": 6,
        "amount": 6,
        "cause": "ability",
        "hp_before": 8,
        "hp_after": 14,
    }


# -- QC-31, QC-32 conditions; QC-50 injuries removed by an ability ----------------------------


@pytest.mark.parametrize("condition", ["infected", "malfunction"])
def test_qc31_qc32_conditions_do_not_stack(condition: str) -> None:
    table = Table()
    command = {"type": "apply_condition", "condition": condition, "source": "rat bite"}
    (applied,) = table.run(command)
    assert table.types([applied]) == ["ConditionApplied"]
    assert applied.details["duration"] == "until_cured"
    (again,) = table.run(command)
    assert table.types([again]) == ["ConditionNotStacked"]
    assert table.hero["conditions"] == [condition]


def test_qc31_infected_on_this_page_rolls_at_its_end() -> None:
    table = Table()
    table.run({"type": "apply_condition", "condition": "infected"})
    events = table.run({"type": "end_page"}, faces=[12])
    assert table.types(events)[0] == "InfectionTicked"


def test_qc31_an_ability_that_cures_infection() -> None:
    purge = {
        "id": "purge",
        "usage": "per_rest",
        "context": "both",
        "effect": {"kind": "cure", "condition": "infected"},
    }
    table = Table(hero=hero_with(purge))
    assert table.refused({"type": "use_ability", "ability": "purge"}).rule_id == "QC-31"
    table.run({"type": "apply_condition", "condition": "infected"})
    _, cleared = table.run({"type": "use_ability", "ability": "purge"})
    assert cleared.details["cause"] == "ability"
    assert table.hero["conditions"] == []


def test_qc50_an_ability_removes_one_injury_of_the_named_stat() -> None:
    mend = {
        "id": "mend",
        "usage": "per_rest",
        "context": "outside",
        "effect": {"kind": "remove_injury"},
    }
    table = Table(hero=hero_with(mend))
    assert (
        table.refused({"type": "use_ability", "ability": "mend", "stat": "DEX"}).rule_id == "QC-50"
    )
    table.given(injure("DEX"))
    _, removed = table.run({"type": "use_ability", "ability": "mend", "stat": "DEX"})
    assert removed.details == {
        "stat": "DEX",
        "count": 1,
        "amount": 1,
        "cause": "ability",
        "source": "mend",
    }
    assert table.hero["traits"]["DEX"] == 1


def injure(stat: str, amount: int = 1) -> Any:
    """Fixture: one injury of ``stat``, as the cloning procedure records it (QC-45)."""

    def change(s: dict[str, Any]) -> None:
        hero = s["hero"]
        if stat in hero["traits"]:
            hero["traits"][stat] -= amount
        else:
            hero[stat] -= amount
        hero["injuries"].append({"stat": stat, "amount": amount})

    return change
