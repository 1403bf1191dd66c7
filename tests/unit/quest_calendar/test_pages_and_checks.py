"""Heroes, pages, virtue, trait checks, Malfunction and the end-of-page Infected roll."""

from __future__ import annotations

import pytest

from domain.model.errors import NotHeld
from tests.unit.quest_calendar.harness import HERO, Table


def test_qc02_prologue_hero_then_main_hero_after_the_prologue() -> None:
    table = Table(prologue_complete=False, page=None)
    assert table.state["hero"]["phase"] == "prologue"
    refused = table.refused({"type": "select_hero", "phase": "main", "hero": HERO})
    assert refused.rule_id == "QC-02"
    table.run({"type": "start_page", "date": "2027-01-07", "prologue_end": True})
    table.run({"type": "end_page"})
    assert table.state["calendar"]["prologue_complete"] is True
    events = table.run({"type": "select_hero", "phase": "main", "hero": {**HERO, "id": "mystic"}})
    assert table.types(events) == ["HeroSelected"]
    assert table.hero["id"] == "mystic"
    again = table.refused({"type": "select_hero", "phase": "custom", "hero": HERO})
    assert again.rule_id == "QC-02"


def test_qc05_hero_numbers_are_validated_and_name_the_field() -> None:
    table = Table(prologue_complete=False, page=None, hero={**HERO})
    error = table.invalid(
        {"type": "select_hero", "phase": "prologue", "hero": {**HERO, "damage_dice": "d7"}}
    )
    assert "hero.dice" in error.errors or "hero.damage_dice" in error.errors or error.errors


def test_g_qc03_weekday_is_computed_from_the_date() -> None:
    table = Table(page=None)
    (started,) = table.run({"type": "start_page", "date": "2027-01-03"})
    assert started.details["weekday"] == "Sunday"
    assert table.state["page"]["weekday"] == "Sunday"


def test_g_qc03_a_weekday_that_does_not_match_the_date_is_refused_not_stored_beside_another() -> (
    None
):
    """Trial snag: 'Friday' for Monday 2027-01-04 was accepted and the log held both weekdays."""
    table = Table(page=None)
    refused = table.refused({"type": "start_page", "date": "2027-01-04", "weekday": "Friday"})
    assert refused.rule_id == "G-QC-03"
    assert "Friday" in str(refused) and "Monday" in str(refused)
    (started,) = table.run({"type": "start_page", "date": "2027-01-04", "weekday": "Monday"})
    assert started.details["weekday"] == "Monday"


def test_g_qc03_under_the_page_house_rule_the_pages_weekday_wins() -> None:
    table = Table({"qc.calendar.weekdaySource": "page"}, page=None)
    (started,) = table.run({"type": "start_page", "date": "2027-01-04", "weekday": "Friday"})
    assert started.details["weekday"] == "Friday"


def test_qc17_one_page_at_a_time_in_date_order() -> None:
    table = Table(page="2027-01-04")
    assert table.refused({"type": "start_page", "date": "2027-01-05"}).rule_id == "QC-17"
    table.run({"type": "end_page"})
    assert table.refused({"type": "start_page", "date": "2027-01-04"}).rule_id == "QC-12"
    table.run({"type": "start_page", "date": "01-05"})
    assert table.state["page"]["date"] == "2027-01-05"


def test_g_qc03_02_29_is_a_day_only_of_a_campaign_year_that_has_one() -> None:
    """MM-DD reads in the campaign's year (its house rule): the state's answer, a 409 not-held;
    a day no year has is the body's own mistake (422)."""
    assert "date" in Table(page=None).not_held({"type": "start_page", "date": "02-29"}).errors
    wrong = Table(page=None).invalid({"type": "start_page", "date": "02-30"})
    assert "date" in wrong.errors and not isinstance(wrong, NotHeld)
    leap = Table({"qc.calendar.year": 2028}, page=None)
    leap.run({"type": "start_page", "date": "02-29"})
    assert leap.state["page"]["date"] == "2028-02-29"


def test_qc17_per_page_ability_resets_when_the_page_ends() -> None:
    table = Table()
    table.given(
        lambda s: s["hero"]["abilities"].update(
            smite={"id": "smite", "usage": "per_page", "used_this_page": True}
        )
    )
    table.run({"type": "end_page"})
    assert table.hero["abilities"]["smite"]["used_this_page"] is False


@pytest.mark.parametrize(("delta", "start", "end"), [(2, 9, 10), (-1, -10, -10), (-3, 1, -2)])
def test_qc06_virtue_is_clamped_and_both_deltas_recorded(delta: int, start: int, end: int) -> None:
    table = Table(hero={**HERO, "virtue": start})
    (event,) = table.run({"type": "change_virtue", "delta": delta, "cause": "choice"})
    assert table.hero["virtue"] == end
    assert event.details["requested_delta"] == delta
    assert event.details["applied_delta"] == end - start


def test_qc10_trait_check_adds_the_trait_modifier() -> None:
    table = Table()
    (event,) = table.run({"type": "trait_check", "trait": "INT", "target": 17}, faces=[15])
    assert event.details["total"] == 17
    assert event.details["success"] is True
    assert event.rolls[0]["dice"][0]["face"] == 15
    assert event.rolls[0]["roll_id"] == f"{event.originator_version}-1"


def test_qc32_malfunction_rolls_twice_and_keeps_the_lower() -> None:
    table = Table()
    table.given(lambda s: s["hero"]["conditions"].append("malfunction"))
    (event,) = table.run({"type": "trait_check", "trait": "STR"}, faces=[14, 6])
    assert event.details["faces"] == [14, 6]
    assert event.details["total"] == 8
    assert len(event.rolls) == 2


def test_qc10_check_needs_a_page_and_a_known_trait() -> None:
    table = Table(page=None)
    assert table.refused({"type": "trait_check", "trait": "STR"}).rule_id == "QC-17"
    assert "trait" in Table().invalid({"type": "trait_check", "trait": "LUCK"}).errors


@pytest.mark.parametrize(("face", "lost"), [(9, 1), (10, 0)])
def test_qc31_infected_rolls_at_page_end_and_stays_infected(face: int, lost: int) -> None:
    table = Table()
    table.given(lambda s: s["hero"]["conditions"].append("infected"))
    events = table.run({"type": "end_page"}, faces=[face])
    ticked = events[0]
    assert table.types(events)[0] == "InfectionTicked"
    assert ticked.details["total"] == face + 1
    assert table.hero["hp"] == 20 - lost
    assert "infected" in table.hero["conditions"]


def test_unknown_command_and_unknown_fields_are_invalid() -> None:
    table = Table()
    assert "type" in table.invalid({"type": "teleport"}).errors
    assert "colour" in table.invalid({"type": "end_page", "colour": "red"}).errors


def test_qc20_page_cannot_end_while_a_combat_is_in_progress() -> None:
    table = Table()
    table.given(lambda s: s["page"].update(combat={"status": "in_progress", "round": 1}))
    assert table.refused({"type": "end_page"}).rule_id == "QC-20"


def test_qc07_g_qc02_a_die_outside_the_dice_set_is_refused() -> None:
    table = Table(house={"qc.dice.set": ["d4", "d6", "d10", "d%", "d12", "d20"]})
    table.run({"type": "trait_check", "trait": "STR"}, faces=[12])
    round_ = {
        "hit_target": 5,
        "damage_needed": 3,
        "enemy_attack": 10,
        "damage_reduced": 1,
        "damage_full": 2,
    }
    table.run({"type": "start_combat", "kind": "one_enemy", "rounds": [round_]})
    refused = table.refused({"type": "combat_round"}, faces=[15])
    assert refused.rule_id == "QC-07"
    assert "d8" in refused.reason


def test_qc03_two_heroes_on_one_calendar_keep_separate_states() -> None:
    check = {"type": "trait_check", "trait": "INT", "target": 12}
    pickpocket = {"type": "pickpocket", "icon_id": "alley"}
    alone = Table()
    alone.run(check, faces=[15])
    alone.run(pickpocket, faces=[1])
    first, second = Table(), Table()
    (failed,) = first.run(check, faces=[2])
    first.run(pickpocket, faces=[3])
    (passed,) = second.run(check, faces=[15])
    second.run(pickpocket, faces=[1])
    assert (failed.details["success"], passed.details["success"]) == (False, True)
    assert first.state["page"]["date"] == second.state["page"]["date"]
    assert (first.hero["credits"], second.hero["credits"]) == (13, 11)
    assert second.state == alone.state
