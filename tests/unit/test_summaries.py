"""Every event in words: ``domain.model.events.summaries`` and each game's summaries.

Every declared event type has a summary of its own; a summary reads only the event's stored data
and never raises, whatever the payload (an old or odd one gets the generic line naming the type).
The examples name the rules whose outcome the line tells.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import domain.model.calendar_board
import domain.model.quest_calendar  # noqa: F401  (registers the games and their summaries)
from domain.model import event_summaries
from domain.model.campaign import Campaign
from domain.model.events import summaries
from domain.model.events.payload import EventType
from domain.model.games import RULES

Json = dict[str, Any]
PREFIX = {"quest-calendar": "qc", "calendar-board": "cb"}
SAMPLE = {
    "integer": 3,
    "number": 3,
    "string": "x",
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
    "any": "x",
}


def declared() -> list[tuple[str, EventType]]:
    """Every declared event type by topic: the campaign events and both games' events."""
    found = [(str(cls.TOPIC), cls.PAYLOAD) for cls in Campaign.EVENT_TYPES]
    for game, rules in sorted(RULES.items()):
        found += [(f"{PREFIX[game]}.{name}", t) for name, t in sorted(rules.event_types.items())]
    return found


DECLARED = declared()
TOPICS = [topic for topic, _ in DECLARED]


def sample_payload(declaration: EventType) -> Json:
    """A payload built from the declaration alone: each field, optional ones too, with a value of
    its first declared type."""
    return {f.name: SAMPLE[f.type.split("|")[0]] for f in declaration.fields}


def event(topic: str, details: Json | None = None, **data: Any) -> Json:
    """An event as the API shows it: a game event's data holds ``details``."""
    if topic.startswith(("qc.", "cb.")):
        data = {"command": {}, "details": details or {}, "rolls": [], "effects": [], **data}
    return {"type": topic, "data": data}


EMPTY = {
    "integer": 0,
    "number": 0,
    "string": "",
    "boolean": False,
    "array": [],
    "object": {},
    "null": None,
    "any": None,
}
"""A value of each JSON type that tells nothing: the required facts an example leaves out."""


def complete(topic: str, given: Json) -> Json:
    """A payload as its declaration requires: the facts given, and each required fact not given
    empty (null where it may be), so that it decodes."""
    declaration = dict(DECLARED)[topic]
    left_out = [f for f in declaration.fields if not f.optional and f.name not in given]
    types = {f.name: f.type.split("|") for f in left_out}
    return {**{n: None if "null" in t else EMPTY[t[0]] for n, t in types.items()}, **given}


def example(topic: str, details: Json | None = None, **data: Any) -> Json:
    """An example event as the API shows it: its payload the facts given, completed."""
    if topic.startswith(("qc.", "cb.")):
        return event(topic, complete(topic, details or {}), **data)
    return event(topic, **complete(topic, data))


def built(topic: str, declaration: EventType) -> Json:
    payload = sample_payload(declaration)
    if topic == "questlog.DiceRolled":
        payload["rolls"] = [{"purpose": "x", "notation": "1d20", "dice": [], "total": 3}]
    if topic.startswith(("qc.", "cb.")):
        return event(topic, payload)
    return event(topic, **payload)


def test_every_event_type_is_declared_once_and_both_games_are_covered() -> None:
    assert len(TOPICS) == len(set(TOPICS))
    assert {t.split(".")[0] for t in TOPICS} == {"questlog", "qc", "cb"}
    assert "questlog.CampaignImported" in TOPICS and "questlog.RollbackApproved" in TOPICS


@pytest.mark.parametrize(("topic", "declaration"), DECLARED, ids=TOPICS)
def test_every_declared_event_type_has_a_summary_of_its_own(
    topic: str, declaration: EventType
) -> None:
    assert summaries.has_summary(declaration.cls)
    line = event_summaries.summarise(built(topic, declaration))
    assert line != summaries.fallback(topic), f"{topic} fell back on {sample_payload(declaration)}"
    assert line.strip() == line and "\n" not in line


def test_no_summary_is_registered_for_an_undeclared_type() -> None:
    assert summaries.summarised() == {declaration.cls for _, declaration in DECLARED}


@pytest.mark.parametrize(("topic", "declaration"), DECLARED, ids=TOPICS)
def test_a_summary_never_raises_on_an_odd_or_old_payload(
    topic: str, declaration: EventType
) -> None:
    odd: list[Json] = [
        {"type": topic},
        {"type": topic, "data": None},
        {"type": topic, "data": []},
        {"type": topic, "data": {}},
        {"type": topic, "data": {"details": []}},
        event(topic, {}),
        event(topic, {f.name: None for f in declaration.fields}),
        event(topic, {f.name: {"a": [1]} for f in declaration.fields}),
        event(topic, {f.name: "\n\x00" * 200 for f in declaration.fields}),
        event(topic, sample_payload(declaration), figures="odd", rolls="odd", command=[1]),
    ]
    for payload in odd:
        line = event_summaries.summarise(payload)
        assert isinstance(line, str) and line and "\n" not in line and "\x00" not in line


def test_the_fallback_names_the_type_in_words() -> None:
    assert summaries.fallback("qc.AttackRolled") == "Attack rolled (qc.AttackRolled)"
    assert event_summaries.summarise({"type": "qc.NoSuchThing", "data": {}}) == (
        "No such thing (qc.NoSuchThing)"
    )
    assert event_summaries.summarise({"data": {}}) == "Event (event)"


# -- examples: the rules whose outcome a line tells ---------------------------------------------


def test_qc10_a_trait_check_reads_die_plus_trait_against_the_target() -> None:
    details = {"purpose": "INT check", "target": 12, "success": True, "check": 0, "trait": "INT"}
    details |= {"d20": 13, "faces": [13], "trait_mod": 2, "booster": 0, "bonus": 0, "total": 15}
    details["malfunction"] = False
    line = event_summaries.summarise(example("qc.CheckRolled", details))
    assert line == "INT check: 13 + 2 = 15 against 12: success"


def test_qc32_a_check_under_malfunction_names_the_two_d20s() -> None:
    details = {"purpose": "pick the lock", "target": 15, "success": False, "trait": "DEX"}
    details |= {"d20": 4, "faces": [4, 17], "trait_mod": 1, "booster": 0, "bonus": 0, "total": 5}
    details |= {"malfunction": True, "check": 0}
    line = event_summaries.summarise(example("qc.CheckRolled", details))
    assert line == (
        "DEX check (pick the lock): 4 + 1 = 5 against 15: failed (Malfunction: lower of 4, 17)"
    )


def test_qc21_a_lost_round_names_the_enemy_its_hit_and_the_hero_s_hp_before_and_after() -> None:
    round_details = {"round": 1, "enemy": "Void hound", "condition": None, "hit": False}
    round_details |= {"damage_dealt": 0, "won": False, "enemy_outcome": "unharmed"}
    round_details |= {"damage_needed": 7, "judged_on": "final_rolls", "abilities": []}
    round_details |= {"incoming": 6, "defense_tier": "full", "weakened": False, "damage_taken": 6}
    damaged = {"amount": 6, "cause": "combat", "hp_before": 14, "hp_after": 8}

    assert event_summaries.summarise(example("qc.CombatRoundResolved", round_details)) == (
        "Round 1 against Void hound: missed (7 damage needed), round lost (Void hound unharmed); "
        "Void hound hits for 6 (full damage)"
    )
    assert event_summaries.summarise(example("qc.HeroDamaged", damaged)) == (
        "The hero takes 6 damage (combat) (HP 14 → 8)"
    )


def test_qc20_an_attack_reads_d20_plus_atk_against_the_hit_target() -> None:
    details = {"round": 2, "attempt": "first", "restrained": False, "frightened": True}
    details |= {"d20_faces": [12], "d20": 12, "atk": 3, "bonus": 0, "total": 15}
    details |= {"hit": True, "hit_target": 13}
    assert event_summaries.summarise(example("qc.AttackRolled", details)) == (
        "Round 2 first attack (frightened): 12 + 3 = 15 against 13: hit"
    )


def test_qc70_the_dogfight_aim_reads_d100_plus_aim_against_the_target() -> None:
    details = {"round": 1, "d100_faces": {"tens": 40, "units": 0}, "value": 40, "aim": 10}
    details |= {"total": 50, "target": 60, "hit": False}
    assert event_summaries.summarise(example("qc.AimRolled", details)) == (
        "Round 1 Aim: 40 + 10 = 50 against 60: missed"
    )


def test_qc57_a_purchase_names_the_item_from_the_command_and_the_credits_before_and_after() -> None:
    details = {"shop_id": "dock-market", "item_id": "med-kit", "price": 4, "to_rations": False}
    details["credits_after"] = 5
    command = {"type": "buy_item", "item": {"id": "med-kit", "name": "Med Kit"}}
    line = event_summaries.summarise(example("qc.ItemBought", details, command=command))
    assert line == "Bought Med Kit at Dock Market for 4 (credits 9 → 5)"


def test_qc67_qc68_the_lottery_says_what_the_d6_paid_and_what_the_purse_allowed() -> None:
    details = {"page_date": "2027-01-10", "d6": 1, "delta": -2, "applied": -1}
    details["credits_after"] = 0
    assert event_summaries.summarise(example("qc.LotteryPlayed", details)) == (
        "Sunday lottery: d6 1: -2 credits (-1 applied), now 0"
    )


def test_a_qc_shop_left_of_payload_version_1_without_its_shop_still_reads() -> None:
    # Version 1 of qc.ShopLeft had no shop_id when a page ended with a shop open.
    assert event_summaries.summarise(example("qc.ShopLeft", {"reason": "page_ended"})) == (
        "Left the shop (page ended)"
    )


def test_cb28_a_hail_save_names_the_seat_the_die_and_the_goal() -> None:
    details = {"player": "A", "goal": 2, "die_value": 1, "luck_mod": 0, "total": 1}
    details |= {"success": False, "automatic": False}
    assert event_summaries.summarise(example("cb.HailSaveRolled", details)) == (
        "A's hail save: 1 against 2: failed"
    )


def test_g_cb_12_a_hail_save_s_fate_reroll_says_it_is_one_without_the_roll_id() -> None:
    details = {"player": "B", "goal": 2, "die_value": 15, "luck_mod": 1, "total": 16}
    details |= {"success": True, "automatic": False, "fate_reroll_of": "200-1"}
    assert event_summaries.summarise(example("cb.HailSaveRolled", details)) == (
        "B's hail save (a fate reroll): 15 + 1 = 16 against 2: success"
    )


@pytest.mark.parametrize(
    ("left", "line"),
    [
        (1, "A spends a fate reroll on the hail roll at night (1 left)"),
        (0, "A spends a fate reroll on the hail roll at night (none left)"),
        (None, "A spends a fate reroll on the hail roll at night"),
    ],
)
def test_g_cb01_g_cb12_a_spent_fate_reroll_says_how_many_are_left(left: Any, line: str) -> None:
    details = {"player": "A", "roll": "hail", "roll_id": "12-1", "at": "night", "left": left}
    assert event_summaries.summarise(example("cb.FateRerollUsed", details)) == line


def test_g_cb01_a_fate_reroll_used_of_payload_version_1_reads_as_before() -> None:
    # Version 1 of cb.FateRerollUsed did not count fate rerolls (no ``left``).
    details = {"player": "B", "roll": "ambush"}
    assert event_summaries.summarise(example("cb.FateRerollUsed", details)) == (
        "B spends a fate reroll on the ambush roll"
    )


def test_g_cb01_fate_rerolls_coming_back_name_each_seat_and_its_number() -> None:
    details = {"night_number": 3, "players": {"A": 2, "C": 1}}
    assert event_summaries.summarise(example("cb.FateRerollsRestored", details)) == (
        "Night 3: fate rerolls come back (A 2, C 1)"
    )


def test_cb33_a_night_action_decision_names_who_decides_and_the_options() -> None:
    details = {"decision": "night_action", "who": "B", "rule": "CB-33"}
    details |= {"options": ["ambush", "rizz", "sleep"], "context": {}}
    assert event_summaries.summarise(example("cb.DecisionRequested", details)) == (
        "Decision for B: night action; options: ambush, rizz, sleep"
    )


def test_cb09_a_night_roll_decision_says_whose_roll_and_which_in_words() -> None:
    details = {"decision": "night_roll", "who": "B", "rule": "CB-09", "options": ["calendar"]}
    details["context"] = {"roll": "calendar", "notation": "1d4", "player": "B"}
    assert event_summaries.summarise(example("cb.DecisionRequested", details)) == (
        "B to roll the calendar d4 that moves the god piece"
    )


def test_cb38_a_rizz_reads_die_plus_int_against_the_defender_and_names_the_partner_won() -> None:
    details = {"player": "B", "party": "B", "exhaustion_before": 0, "defender_value": 10}
    details |= {"die_value": 8, "int_mod": 3, "total": 11, "success": True}
    details["chosen_partner_type"] = "catgirlGirlfriend"
    assert event_summaries.summarise(example("cb.RizzAttempted", details)) == (
        "B's rizz: 8 + 3 = 11 against 10: success, wins a catgirl girlfriend"
    )


def test_the_campaign_events_read_in_words() -> None:
    rolled_back = {"to_version": 19, "reason": "misread the page", "actor": "owner"}
    rolled_back |= {"undone_versions": [20, 21], "undone_rolls": ["20-1"], "flagged": True}
    rolled_back |= {"proposal_id": None, "server_rolls_undone": 1, "policy": "flag"}
    house_rule = {"key": "qc.combat.mode", "old_value": "standard", "new_value": "easy"}
    house_rule["gap"] = "G-QC-08"

    assert event_summaries.summarise(example("questlog.RolledBack", **rolled_back)) == (
        "Rolled back to version 19 by the owner: “misread the page”; undid 2 events and "
        "1 roll, flagged"
    )
    assert event_summaries.summarise(example("questlog.HouseRuleConfigured", **house_rule)) == (
        "House rule combat mode: standard → easy"
    )


def test_recorded_text_is_kept_to_one_short_line() -> None:
    reason = "line one\nline two\x00" + "x" * 500
    line = event_summaries.summarise(
        example(
            "questlog.RollbackProposed",
            proposal_id="p",
            to_version=2,
            reason=reason,
            proposer="A",
            players=["A", "B"],
        )
    )
    assert "\n" not in line and "\x00" not in line
    assert "line one line two" in line and "…" in line and len(line) < 250


def test_an_actor_reads_as_its_token_name_or_the_owner_never_as_a_token_id() -> None:
    rolled_back = {"to_version": 3, "reason": "a slip", "actor": "admin#67b4fd5bcbea"}
    rolled_back |= {"undone_versions": [4], "undone_rolls": [], "flagged": False}
    line = event_summaries.summarise(example("questlog.RolledBack", **rolled_back))
    assert line == "Rolled back to version 3 by admin: “a slip”; undid 1 event and 0 rolls"
    proposed = {"proposal_id": "p", "to_version": 2, "reason": "r", "players": ["A", "B"]}
    assert event_summaries.summarise(
        example("questlog.RollbackProposed", proposer="owner", **proposed)
    ).startswith("The owner proposed rolling back to version 2")
    assert event_summaries.summarise(
        example("questlog.RollbackApproved", proposal_id="p", player="B")
    ) == ("B agreed to the rollback proposal")


@pytest.mark.parametrize(
    ("number", "line"), [(0, "0 enemies left"), (1, "1 enemy left"), (2, "2 enemies left")]
)
def test_qc22_a_combat_ended_counts_enemies_in_the_singular_or_the_plural(
    number: int, line: str
) -> None:
    details = {"ended_by": "all_rounds_played", "rounds_won": 1, "rounds_played": 1}
    said = event_summaries.summarise(
        example("qc.CombatEnded", {**details, "enemies_remaining": number})
    )
    assert said == f"Combat ended (all rounds played): 1 of 1 round won, {line}"


def test_qc41_the_death_line_says_what_killed_the_hero_and_not_the_clones_hp() -> None:
    died = {"cause": "infection", "encounters_ended": [], "hp_after": 8, "hp_max": 16}
    line = event_summaries.summarise(example("qc.Died", {**died, "page_date": "2027-01-04"}))
    assert line == "The hero died, killed by infection, on 2027-01-04: HP 0, cloning follows"
    assert "8" not in line


@pytest.mark.parametrize(
    ("roll", "line"),
    [
        (
            {"d4": 1, "applied": False, "rerolled": True, "reason": "noCredits"},
            "Clone cost roll: the d4 shows 1, which cannot apply (no credits): rolled again",
        ),
        (
            {"d4": 2, "applied": True, "rerolled": False, "reason": None},
            "Clone cost roll: the d4 shows 2: a physical injury",
        ),
        (
            {"d4": 4, "applied": True, "rerolled": False, "reason": None},
            "Clone cost roll: the d4 shows 4: a rushed clone: per-rest abilities used up",
        ),
    ],
)
def test_qc43_a_clone_roll_says_its_face_and_its_price_or_why_it_is_rolled_again(
    roll: Json, line: str
) -> None:
    assert event_summaries.summarise(example("qc.CloneRollMade", roll)) == line


def test_qc49_cloning_says_the_clone_roll_and_the_new_hp() -> None:
    cloned = {"cause": "combat", "conditions_cleared": [], "hp_after": 9, "hp_max": 18}
    line = event_summaries.summarise(
        example("qc.Cloned", {**cloned, "outcome": 2, "replaced": False})
    )
    assert line == "Cloned back to life (clone roll 2, after combat): HP 9 of 18"


def test_qc14_a_reroll_says_which_roll_was_rolled_again_and_how_it_came_out() -> None:
    used = {"ability_id": "foresight", "context": "combat", "effect": "reroll"}
    used |= {"usage": "per_rest", "uses_left": 1, "roll": "attack", "before": 2, "after": 1}
    line = event_summaries.summarise(example("qc.AbilityUsed", {**used, "hit": True}))
    assert line == "Foresight: the attack roll 2 → 1, a hit (1 use left)"
    named = example("qc.AbilityUsed", {**used, "hit": False, "uses_left": 0})
    named["data"]["command"] = {"abilities": [{"id": "foresight", "name": "Foresight"}]}
    assert (
        event_summaries.summarise(named) == "Foresight: the attack roll 2 → 1, a miss (0 uses left)"
    )


def test_qc02_the_prologue_is_complete_is_said_on_the_page_that_completes_it_only() -> None:
    ended = {"page_date": "2027-01-04", "boosters_expired": [], "prologue_complete": True}
    completing = example("qc.PageEnded", ended)
    completing["data"]["effects"] = [
        {"op": "replace", "path": "/calendar/prologue_complete", "value": True}
    ]
    assert event_summaries.summarise(completing).endswith("; the prologue is complete")
    later = example("qc.PageEnded", {**ended, "page_date": "2027-01-05"})
    assert "prologue" not in event_summaries.summarise(later)


# -- rolls --------------------------------------------------------------------------------------


def roll(purpose: str, faces: list[tuple[int, bool]], modifier: int, total: int) -> Json:
    dice = [{"sides": 20, "face": face, "kept": kept} for face, kept in faces]
    notation = "2d20kh1+2" if len(faces) > 1 else f"1d20{'+' if modifier else ''}{modifier or ''}"
    return {
        "purpose": purpose,
        "notation": notation,
        "dice": dice,
        "modifier": modifier,
        "total": total,
    }


def test_a_plain_roll_reads_its_dice_modifier_and_total() -> None:
    assert event_summaries.roll_summary(roll("open the door", [(13, True)], 2, 15)) == (
        "open the door: 13 + 2 = 15 (1d20+2)"
    )
    assert event_summaries.roll_summary(roll("advantage", [(15, True), (4, False)], 2, 17)) == (
        "advantage: 15 + 2 = 17 (dropped 4) (2d20kh1+2)"
    )
    assert event_summaries.roll_summary(roll("plain", [(6, True)], 0, 6)) == "plain: 6 (1d20)"


def test_qc10_a_game_roll_adds_the_outcome_of_the_event_that_made_it() -> None:
    details = {"purpose": "INT check", "target": 12, "success": True, "check": 0, "trait": "INT"}
    details |= {"d20": 13, "faces": [13], "trait_mod": 2, "booster": 0, "bonus": 0, "total": 15}
    details["malfunction"] = False
    made_by = example("qc.CheckRolled", details)
    line = event_summaries.roll_summary(roll("INT check", [(13, True)], 0, 13), made_by)
    assert line == "INT check: 13 (1d20) — INT check: 13 + 2 = 15 against 12: success"


def test_a_roll_of_an_odd_shape_still_gets_a_line() -> None:
    assert event_summaries.roll_summary({}) == "roll: 0 (None)"
    assert event_summaries.roll_summary({"dice": "odd"}).startswith("roll")


# -- names, not ids: what a new player read in the toasts, the timeline and the export ------------


def test_an_id_nothing_names_reads_as_its_words_capitalised() -> None:
    """Where the event stores only an id, the id reads as a name: "lucky-break" is "Lucky Break";
    an id that is not a lower-case slug is kept as written."""
    assert summaries.id_words("lucky-break") == "Lucky Break"
    assert summaries.id_words("med_kit") == "Med Kit"
    assert summaries.id_words("Old Cutlass") == "Old Cutlass"
    assert summaries.id_words("a1") == "A1"


def test_qc14_a_combat_round_decision_names_its_abilities_without_the_rule_id() -> None:
    options = [
        {"id": "power-strike", "kind": "bonus", "usage": "per_rest", "uses_left": 1},
        {"id": "lucky-break", "kind": "reroll", "usage": "per_rest", "uses_left": 1},
    ]
    details = {"decision": "combat_round_abilities", "rule": "QC-28", "options": options}
    assert event_summaries.summarise(example("qc.DecisionRequested", details)) == (
        "Decision for the hero: combat round abilities; options: Power Strike, Lucky Break"
    )


def test_qc14_an_ability_used_or_restored_reads_by_name() -> None:
    reroll = {"ability_id": "lucky-break", "context": "combat", "effect": "reroll"}
    reroll |= {"roll": "attack", "before": 8, "after": 15}
    assert event_summaries.summarise(example("qc.AbilityUsed", reroll)) == (
        "Lucky Break: the attack roll 8 → 15"
    )
    heal = {"ability_id": "second-wind", "context": "outside", "effect": "heal"}
    assert (
        event_summaries.summarise(example("qc.AbilityUsed", heal))
        == "Second Wind used (outside): heal"
    )
    reset = {"abilities": ["second-wind"], "cause": "rest"}
    assert event_summaries.summarise(example("qc.AbilityUsesReset", reset)) == (
        "Uses restored (rest): Second Wind"
    )


def test_qc57_a_credits_change_names_the_item_by_its_name_or_its_words() -> None:
    details = {"from": 5, "to": 2, "delta": -3, "cause": "purchase", "item_id": "med-kit"}
    assert event_summaries.summarise(example("qc.CreditsChanged", details)) == (
        "Credits 5 → 2 (-3, purchase, Med Kit)"
    )
    named = example("qc.CreditsChanged", details)
    named["data"]["command"] = {"item": {"id": "med-kit", "name": "Field Medkit"}}
    assert event_summaries.summarise(named) == "Credits 5 → 2 (-3, purchase, Field Medkit)"


def test_a_cb_decision_keeps_its_rule_id_out_of_the_sentence() -> None:
    details = {"decision": "night_action", "who": "A", "rule": "G-CB-12"}
    details |= {"options": ["ambush", "sleep"], "context": {}}
    line = event_summaries.summarise(example("cb.DecisionRequested", details))
    assert line == "Decision for A: night action; options: ambush, sleep"
    assert "CB-" not in line


def test_cb28_a_hail_damage_decision_lists_the_piece_ids_as_they_are() -> None:
    details = {"decision": "hail_damage", "who": "A", "rule": "CB-28"}
    details |= {"options": ["a1", "a2"], "context": {}}
    assert event_summaries.summarise(example("cb.DecisionRequested", details)) == (
        "Decision for A: hail damage; options: a1, a2"
    )


@pytest.mark.parametrize(("spaces", "moved"), [(1, "1 space"), (3, "3 spaces")])
def test_cb_a_piece_move_counts_its_spaces_in_the_singular_or_plural(
    spaces: int, moved: str
) -> None:
    details = {"player": "C", "piece_id": "c1", "spaces": spaces, "from_space": 4, "to_space": 5}
    assert event_summaries.summarise(example("cb.PieceMoved", details)).startswith(
        f"C's c1 moves {moved},"
    )


@pytest.mark.parametrize(
    ("key", "said"),
    [("qc.combat.mode", "combat mode"), ("cb.fateReroll.refresh", "fate reroll refresh")],
)
def test_a_house_rule_says_its_setting_in_words_without_the_gap_id(key: str, said: str) -> None:
    data = {"key": key, "old_value": "a", "new_value": "b", "gap": "G-QC-08"}
    assert event_summaries.summarise(example("questlog.HouseRuleConfigured", **data)) == (
        f"House rule {said}: a → b"
    )


def test_a_roll_purpose_recorded_as_a_code_name_reads_in_words() -> None:
    roll = {"purpose": "hail_damage", "notation": "1d4", "dice": [{"face": 3}], "total": 3}
    assert summaries.roll_words(roll) == "hail damage: 3 (1d4)"
    told = {**roll, "purpose": "force_the door"}
    assert summaries.roll_words(told) == "force_the door: 3 (1d4)"


def test_cb15_a_supply_weapon_decision_says_the_god_piece_reached_the_supply_space() -> None:
    details = {"decision": "supply_weapon", "who": "A", "rule": "CB-15"}
    details |= {"options": ["crossbow", "laser-rifle"], "context": {"space_index": 7}}
    assert event_summaries.summarise(example("cb.DecisionRequested", details)) == (
        "The god piece reached supply space 7: A chooses the weapon it refills "
        "(Crossbow, Laser Rifle)"
    )
    details["context"] = {"space_index": 7, "may_decline": True}
    assert event_summaries.summarise(example("cb.DecisionRequested", details)).endswith(
        "(Crossbow, Laser Rifle, or none)"
    )


def test_the_summary_docs_events_md_shows_is_the_code() -> None:
    """docs/events.md quotes the summary of ``HeroSelected``: each line it shows is there."""
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs/events.md").read_text(encoding="utf-8")
    marker = "<!-- example: checked-by tests/unit/test_summaries.py -->\n```python\n"
    block = doc.split(marker, 1)[1].split("```", 1)[0]
    source = (root / "domain/model/quest_calendar/summaries.py").read_text(encoding="utf-8")
    shown = [line for line in block.splitlines() if line.strip()]
    assert "@summary(pages.HeroSelected)" in shown
    assert all(line in source.splitlines() for line in shown), shown
