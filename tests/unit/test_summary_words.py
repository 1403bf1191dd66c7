"""Summaries read in words, never in Python reprs or internal ids.

A boolean reads yes/no, a decision says what it asks instead of ``options: None``, a roll id is
never shown, and an item or hero is named where the event recorded the name.
"""

from __future__ import annotations

from typing import Any

import domain.model.calendar_board
import domain.model.quest_calendar  # noqa: F401  (registers the games and their summaries)
from domain.model import event_summaries
from domain.model.events import summaries
from tests.application.summarised import code_words
from tests.unit.test_summaries import complete

Json = dict[str, Any]


def game_event(topic: str, details: Json, **data: Any) -> Json:
    """A game event as the API shows it."""
    return {
        "type": topic,
        "data": {"command": {}, "details": complete(topic, details), "rolls": [], **data},
    }


def test_a_house_rule_change_reads_yes_and_no_and_json_values() -> None:
    data = {"key": "cb.supply.mayDecline", "old_value": False, "new_value": True, "gap": None}
    line = event_summaries.summarise({"type": "questlog.HouseRuleConfigured", "data": data})
    assert line == "House rule supply may decline: no → yes"
    data |= {"old_value": None, "new_value": ["credits", "virtue"]}
    line = event_summaries.summarise({"type": "questlog.HouseRuleConfigured", "data": data})
    assert line == 'House rule supply may decline: none → ["credits", "virtue"]'


def test_qc_48_the_clone_decision_says_keep_the_hero_or_a_new_one() -> None:
    options = [{"replace": False}, {"replace": True, "level": 2}]
    details = {"who": "hero", "rule": "QC-48", "decision": "clone_replace_hero", "options": options}
    line = event_summaries.summarise(game_event("qc.DecisionRequested", details))
    assert line == (
        "Decision for the hero: clone replace hero; keep the hero or a new level 2 hero"
    )


def test_cb_35_the_ambush_decision_lists_each_strike() -> None:
    options = [{"piece": "A-p1", "target": "B-p2", "from": 3, "to": 7}]
    details = {"who": "A", "rule": "CB-35", "decision": "ambush_target", "options": options}
    line = event_summaries.summarise(game_event("cb.DecisionRequested", details))
    assert line == "Decision for A: ambush target; options: A-p1 on B-p2 (space 3 → 7)"


def test_a_decision_option_object_without_a_name_reads_its_fields_in_words() -> None:
    assert summaries.choice({"accept": True, "cost": None}) == "accept yes cost none"
    assert summaries.choice(None) == "none"


def test_qc_64_equipping_names_the_item_the_event_recorded() -> None:
    details = {"item_id": "plasma-blade", "item_type": "weapon", "replaced_item_id": None}
    details |= {"timing": "rest", "name": "Plasma Blade"}
    line = event_summaries.summarise(game_event("qc.EquipmentEquipped", details))
    assert line == "Equipped the Plasma Blade as weapon (rest)"


def test_qc_48_a_replaced_hero_is_named() -> None:
    details = {"old_hero_id": "vanguard", "old_hero_name": "The Vanguard", "level": 1}
    details |= {"new_hero_id": "scout", "carried": [], "credits": 5}
    command = {"type": "choose_clone_outcome", "hero": {"id": "scout", "name": "The Scout"}}
    line = event_summaries.summarise(game_event("qc.HeroReplaced", details, command=command))
    assert line == "The Vanguard replaced by The Scout (level 1, 5 credits)"


def test_g_cb_12_keeping_a_roll_does_not_show_its_id() -> None:
    details = {"player": "B", "roll": "ambush", "roll_id": "72-1"}
    line = event_summaries.summarise(game_event("cb.FateRerollDeclined", details))
    assert line == "B keeps the ambush roll (no fate reroll)"
    roll = {"purpose": "rizz (fate reroll of 105-1)", "dice": [{"face": 5}], "total": 5}
    assert summaries.roll_words(roll | {"notation": "1d20"}) == "rizz (fate reroll): 5 (1d20)"


def test_a_partner_reads_in_words() -> None:
    details = {"party": "A", "partner_type": "catboyBoyfriend", "relationship": 1}
    line = event_summaries.summarise(game_event("cb.PartnerGained", details))
    assert line == "A gains a catboy boyfriend (relationship 1)"


def test_the_code_word_check_finds_reprs_and_roll_ids_but_not_dates() -> None:
    lines = ["options: None", "x: False → True", "roll 72-1", "Page 2026-01-05 begins", "a 3 b"]
    lines.append("forked from ff360452-9cd1-4609-8014-1e0ac5c7c715")  # a campaign id is no roll id
    assert code_words(lines) == lines[:3]
