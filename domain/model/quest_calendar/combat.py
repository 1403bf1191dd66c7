"""Combat pages in standard, easy and hard mode (QC-20..QC-30, QC-33..QC-37, QC-40).

``start_combat`` takes the page's rounds as printed (hit target, damage needed, enemy attack,
damage when reduced and in full, and an optional Frightened/Restrained/Weakened/Confused check) and
opens ``page["combat"]`` with ``status == "in_progress"`` (items.py reads that key to refuse a Med
Kit between rounds, QC-23). ``combat_round`` then plays the next step for the mode:

- standard (QC-28): one round's condition check, attack and damage, then the decision
  ``combat_round_abilities`` answered by ``resolve_round``; the round closes there;
- easy (QC-29): every remaining round is rolled first, then ``combat_assign_abilities`` answered by
  ``resolve_rounds`` resolves the rounds in order (death stops the rest);
- hard (QC-30): the attack, then ``combat_boost_attack`` (``boost_attack``), and only then the
  damage dice, then ``combat_boost_damage`` (``boost_damage``). An extra attack granted there is
  played the same way before the round closes.

A decision is asked only when the hero has an ability that could apply; otherwise the round closes
at once. Between rounds no decision is open, so items and healing abilities can be used.

An ability is named by id, or as ``{"id", "attempt": "first" | "extra", "roll": "attack" |
"damage"}``: ``attempt`` aims it at the extra attack (standard and easy mode, after the
``extra_attack`` ability in the same list) and ``roll`` says which roll a ``reroll`` replaces when
its effect does not (``effect.roll``). A reroll repeats the roll the same way (Frightened and
Confused still keep the lower, doubled damage stays doubled) and keeps the new result, or the better
one when ``effect.keep == "better"``. Bonus dice from abilities are added after the lower damage is
kept; flat modifiers (damage_mod and any number in the damage dice) are added once, last (QC-26).

Conditions (QC-33) are rolled with ``checks.trait_roll`` (so Malfunction applies) at the start of
their round and live only in that round's record, never in ``hero["conditions"]``. Standard mode
with ``qc.combat.standard.reevaluateAfterAbility`` off judges each attack on its rolls as first
made: abilities are still spent and recorded but do not change the verdict (G-QC-08).
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields

from domain.model.command_schema import Strict, Values, takes
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import combat_rules, fight_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import State, answers, in_progress, needs, no_fight
from domain.model.quest_calendar.combat_rounds import (
    ASSIGN_DECISION,
    BOOST_DECISIONS,
    ROUND_DECISION,
    ability_options,
    apply_ability,
    ask_decision,
    begin_round,
    close_round,
    current_combat,
    roll_attack,
    roll_damage,
    round_preview,
)
from domain.model.quest_calendar.combat_rules import (
    read_rounds,
    read_uses,
)
from domain.model.quest_calendar.command_fields import ABILITIES, DEATH, HUNDREDS, ability_uses
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import integer, item_of, nested, text
from domain.model.schema_fields import items as many
from domain.model.text import quoted

rules = RULES[QUEST_CALENDAR]
rules.declare(
    fight_events.CombatStarted,
    fight_events.AttackRolled,
    fight_events.DamageRolled,
    fight_events.DecisionRequested,
)

ROUND_EXAMPLE = [
    {
        "enemy": "Scrap drone",
        "hit_target": 13,
        "damage_needed": 6,
        "enemy_attack": 12,
        "damage_reduced": 4,
        "damage_full": 7,
    },
    {
        "enemy": "Void hound",
        "hit_target": 14,
        "damage_needed": 7,
        "enemy_attack": 13,
        "damage_reduced": 3,
        "damage_full": 6,
        "condition": {"name": "frightened", "target": 12},
    },
]


# -- what the commands take ------------------------------------------------------------------


COMBAT_DICE = (
    "Per round: d20 (attack; a second d20 if Frightened), then the hero's damage dice (on a "
    "miss too: an ability may still turn it into a hit), then each used ability's dice; a "
    "condition check rolls d20 as a trait check. Which rounds are rolled depends on the mode "
    "and the state." + DEATH
)
"""What combat_round may draw."""


class CombatCondition(Strict):
    """QC-33: the condition an enemy can cause and the check that resists it."""

    name = text("The condition.", required=True, choices=combat_rules.CONDITION_TRAITS)
    target = integer("The check's target.", required=True, minimum=-1000, maximum=1000)


class CombatRound(Strict):
    """A combat round as the page prints it (QC-20, G-QC-05, G-QC-06)."""

    enemy = text("The enemy's name.")
    hit_target = integer("The hero's attack hits at this total.", required=True, **HUNDREDS)
    damage_needed = integer(
        "Damage that defeats the enemy.", required=True, minimum=0, maximum=1000
    )
    enemy_attack = integer("The enemy's attack total.", required=True, **HUNDREDS)
    damage_reduced = integer(
        "Damage the hero takes when the defence holds.", required=True, minimum=0, maximum=1000
    )
    damage_full = integer(
        "Damage the hero takes otherwise.", required=True, minimum=0, maximum=1000
    )
    condition = nested("A condition the enemy can cause (QC-33).", CombatCondition)


MAX_ROUNDS = 50
"""The most rounds a printed combat has."""
ROUND_NUMBERS = frozenset(str(number) for number in range(1, MAX_ROUNDS + 1))


def round_number(value: str) -> None:
    """A combat round's number as an object's key: "1" to "50", as the rounds were given."""
    if value not in ROUND_NUMBERS:
        raise ValidationError(f"{quoted(value)} is not a round number (1 to {MAX_ROUNDS})")


ROUND_KEYS = sorted(ROUND_NUMBERS, key=int)
"""The round numbers as an object's keys, as the document lists them."""


def a_combat(state: State) -> Refusal | None:
    """QC-20: a combat in progress."""
    if not in_progress(state["page"], "combat"):
        return ("QC-20", "no combat is in progress on this page; start one first")
    return None


# -- commands --------------------------------------------------------------------------------


@rules.command(
    "start_combat",
    summary="Start a combat page: its rounds as printed (hit target, damage needed, enemy attack, "
    "damage reduced and full, an optional condition check) and the difficulty mode.",
    example={"type": "start_combat", "kind": "several_enemies", "rounds": ROUND_EXAMPLE},
    schema=takes(
        None,
        kind=text("Several enemies or one enemy.", required=True, choices=combat_rules.KINDS),
        mode=text(
            "The difficulty mode (default: the house rule qc.combat.mode).",
            choices=combat_rules.MODES,
        ),
        rounds=many(
            "The rounds as printed.",
            required=True,
            max_items=MAX_ROUNDS,
            item=item_of(CombatRound),
            at_least_one="give at least one round",
        ),
    ),
    available=needs(no_fight),
    rules=("QC-20", "QC-22", "QC-27", "QC-33"),
)
def start_combat(ctx: Context, args: Values) -> None:
    """QC-20: a combat lasts the rounds the page gives; the mode defaults to the house rule."""
    mode = args["mode"] or ctx.house["qc.combat.mode"]
    kind = args["kind"]
    rounds = read_rounds(args["rounds"])
    qc.hero(ctx)
    page = qc.page(ctx)
    current = page.get("combat")
    if current and current["status"] == "in_progress":
        ctx.refuse("QC-20", "a combat is already in progress on this page")
    if (page.get("dogfight") or {}).get("status") == "in_progress":
        ctx.refuse("QC-69", "a dogfight is in progress on this page; finish it first")
    page["combat"] = {
        "status": "in_progress",
        "mode": mode,
        "kind": kind,
        "rounds": rounds,
        "round": 0,
        "open": [],
        "results": [],
        "ended_by": None,
    }
    ctx.emit(
        fight_events.CombatStarted(
            page_date=page["date"], mode=mode, kind=kind, rounds=len(rounds), enemies=rounds
        )
    )


@rules.command(
    "combat_round",
    summary="Play on: standard rolls the next round, easy rolls every round left, hard rolls the "
    "next attack; each then asks which abilities to use.",
    example={"type": "combat_round"},
    schema=takes(COMBAT_DICE),
    available=needs(a_combat),
    rules=("QC-20", "QC-28", "QC-29", "QC-30", "QC-33", "QC-34", "QC-35", "QC-37"),
)
def combat_round(ctx: Context, args: Values) -> None:
    """QC-28..QC-30: how many rolls the player sees before committing abilities."""
    combat = current_combat(ctx)
    if combat["open"]:
        # Only reached with the round's decision set aside (the refusal's "also" hint): the
        # rolled round closes first, by the decision the mode asks for.
        rule = {"easy": "QC-29", "hard": "QC-30"}.get(combat["mode"], "QC-28")
        opened = ", ".join(str(work["round"]) for work in combat["open"])
        ctx.refuse(rule, f"round {opened} is rolled and waits for its abilities to be chosen")
    qc.page(ctx)["first_roll_made"] = True
    if combat["mode"] == "easy":
        _roll_every_round(ctx, combat)
        return
    work = begin_round(ctx, combat)
    if combat["mode"] == "hard":
        _hard_attack(ctx, combat, work, "first")
        return
    ctx.emit(fight_events.AttackRolled(**roll_attack(ctx, combat, work, "first")))
    ctx.emit(fight_events.DamageRolled(**roll_damage(ctx, combat, work, "first")))
    options = ability_options(ctx, work, "first", None)
    if not options:
        close_round(ctx, combat, work)
        return
    context = round_preview(ctx, combat, work)
    ask_decision(ctx, ROUND_DECISION, "QC-28", "resolve_round", options, context)


def _roll_every_round(ctx: Context, combat: dict[str, Any]) -> None:
    """QC-29: attack and damage for every round first, then one decision for all of them."""
    works = []
    while combat["round"] + len(combat["open"]) < len(combat["rounds"]):
        work = begin_round(ctx, combat)
        ctx.emit(fight_events.AttackRolled(**roll_attack(ctx, combat, work, "first")))
        ctx.emit(fight_events.DamageRolled(**roll_damage(ctx, combat, work, "first")))
        works.append(work)
    # Any rolled round may take an ability: offer each one that fits some round, once.
    offered = {o["id"]: o for work in works for o in ability_options(ctx, work, "first", None)}
    options = list(offered.values())
    if options:
        context = {"rounds": [round_preview(ctx, combat, work) for work in works]}
        ask_decision(ctx, ASSIGN_DECISION, "QC-29", "resolve_rounds", options, context)
        return
    for work in works:
        if not close_round(ctx, combat, work):
            return


def _hard_attack(ctx: Context, combat: dict[str, Any], work: dict[str, Any], attempt: str) -> None:
    """QC-30: roll the attack, then ask "boost attack?" before any damage die is rolled."""
    ctx.emit(fight_events.AttackRolled(**roll_attack(ctx, combat, work, attempt)))
    options = ability_options(ctx, work, attempt, "attack")
    if options:
        context = {**round_preview(ctx, combat, work), "attempt": attempt}
        ask_decision(ctx, BOOST_DECISIONS["attack"], "QC-30", "boost_attack", options, context)
        return
    _hard_damage(ctx, combat, work, attempt)


def _hard_damage(ctx: Context, combat: dict[str, Any], work: dict[str, Any], attempt: str) -> None:
    """QC-30: roll the damage, then ask "boost damage?" before the round closes."""
    ctx.emit(fight_events.DamageRolled(**roll_damage(ctx, combat, work, attempt)))
    options = ability_options(ctx, work, attempt, "damage")
    if options:
        context = {**round_preview(ctx, combat, work), "attempt": attempt}
        ask_decision(ctx, BOOST_DECISIONS["damage"], "QC-30", "boost_damage", options, context)
        return
    close_round(ctx, combat, work)


ABILITIES_EXAMPLE = ["smite", {"id": "lucky", "roll": "attack"}]


@rules.command(
    "resolve_round",
    summary="Standard mode: apply the chosen abilities (possibly none) to the round just rolled "
    "and close it.",
    example={"type": "resolve_round", "abilities": ABILITIES_EXAMPLE},
    schema=takes(
        "Each used ability's dice; an extra attack rolls d20 and the damage dice again." + DEATH,
        abilities=ability_uses(ABILITIES),
    ),
    available=answers("pending-decision", ROUND_DECISION),
    rules=("QC-14", "QC-21", "QC-22", "QC-25", "QC-26", "QC-28", "QC-36", "QC-40"),
    resolves=(ROUND_DECISION,),
)
def resolve_round(ctx: Context, args: Values) -> None:
    """QC-28 / G-QC-08: abilities on this round only; an extra attack is resolved in it."""
    uses = read_uses(args["abilities"], "abilities")
    qc.clear_pending(ctx)
    combat = current_combat(ctx)
    work = combat["open"][0]
    for use in uses:
        apply_ability(ctx, combat, work, use, stage=None, attempt="first")
    close_round(ctx, combat, work)


@rules.command(
    "resolve_rounds",
    summary="Easy mode: assign abilities to the rolled rounds (round number -> abilities) and "
    "resolve every round in order.",
    example={"type": "resolve_rounds", "assignments": {"2": ["smite"]}},
    schema=takes(
        "Each assigned ability's dice, round by round; an extra attack rolls d20 and the damage "
        "dice again." + DEATH,
        assignments=fields.Dict(
            keys=fields.String(validate=round_number),
            values=ability_uses("The abilities used in this round."),
            load_default={},
            allow_none=True,
            metadata={
                "description": "Round number (as a string, 1 to 50) -> the abilities used in it."
            },
        ),
        document=[{"properties": {"assignments": {"propertyNames": {"enum": ROUND_KEYS}}}}],
    ),
    available=answers("pending-decision", ASSIGN_DECISION, a_combat),
    rules=("QC-14", "QC-21", "QC-22", "QC-25", "QC-26", "QC-29", "QC-36", "QC-40"),
    resolves=(ASSIGN_DECISION,),
)
def resolve_rounds(ctx: Context, args: Values) -> None:
    """QC-29: the rounds resolve in order; a death ends the combat and the rest are not played."""
    assignments = args["assignments"]
    combat = current_combat(ctx)
    rolled = [str(work["round"]) for work in combat["open"]]
    plan = {}
    for key, value in assignments.items():
        where = f"assignments.{key}"
        if key not in rolled:
            raise NotHeld(where, f"not a rolled round; rounds: {', '.join(rolled)}")
        plan[key] = read_uses(value, where)
    qc.clear_pending(ctx)
    for work in list(combat["open"]):
        for use in plan.get(str(work["round"]), []):
            apply_ability(ctx, combat, work, use, stage=None, attempt="first")
        if not close_round(ctx, combat, work):
            return


@rules.command(
    "boost_attack",
    summary="Hard mode: boost the attack just rolled (or not) before the damage is rolled.",
    example={"type": "boost_attack", "abilities": ["battle-focus"]},
    schema=takes(
        "Each used ability's dice, then the hero's damage dice (on a miss too)." + DEATH,
        abilities=ability_uses(ABILITIES),
    ),
    available=answers("pending-decision", BOOST_DECISIONS["attack"]),
    rules=("QC-14", "QC-30"),
    resolves=(BOOST_DECISIONS["attack"],),
)
def boost_attack(ctx: Context, args: Values) -> None:
    """QC-30: an attack boost is final before the damage roll is made."""
    uses = read_uses(args["abilities"], "abilities")
    attempt = qc.clear_pending(ctx)["context"]["attempt"]
    combat = current_combat(ctx)
    work = combat["open"][0]
    for use in uses:
        apply_ability(ctx, combat, work, use, stage="attack", attempt=attempt)
    _hard_damage(ctx, combat, work, attempt)


@rules.command(
    "boost_damage",
    summary="Hard mode: boost the damage just rolled (or not), possibly with an extra attack, "
    "then the round closes.",
    example={"type": "boost_damage", "abilities": ["smite"]},
    schema=takes(
        "Each used ability's dice; an extra attack rolls d20 and the damage dice again." + DEATH,
        abilities=ability_uses(ABILITIES),
    ),
    available=answers("pending-decision", BOOST_DECISIONS["damage"]),
    rules=("QC-14", "QC-21", "QC-25", "QC-30", "QC-40"),
    resolves=(BOOST_DECISIONS["damage"],),
)
def boost_damage(ctx: Context, args: Values) -> None:
    """QC-30: a damage boost is final; an extra attack is then played roll by roll (QC-40)."""
    uses = read_uses(args["abilities"], "abilities")
    attempt = qc.clear_pending(ctx)["context"]["attempt"]
    combat = current_combat(ctx)
    work = combat["open"][0]
    kinds = [apply_ability(ctx, combat, work, use, stage="damage", attempt=attempt) for use in uses]
    if "extra_attack" in kinds:
        _hard_attack(ctx, combat, work, "extra")
        return
    close_round(ctx, combat, work)
