"""A dogfight round by round, with dogfight abilities on its rolls (QC-14, QC-15, QC-69..QC-76).

``start_dogfight`` opens ``page["dogfight"]`` with ``"mode": "rounds"`` and the page's rounds as
printed. ``dogfight_round`` rolls the next round's Aim (QC-70). Each roll an ability could still
change stops at the decision ``dogfight_round_abilities`` (rule QC-14), answered by
``resolve_dogfight_round``:

- after a missed Aim, when the hero has an Aim ability with a use left. The abilities apply to the
  Aim and the comparison is made again with the new total: a hit closes the round (no Evasion is
  rolled, QC-70); a miss, or no ability, closes the Aim and the Evasion is rolled (QC-71);
- after an Evasion that gives the maximum damage, when the hero has an Evasion ability with a use
  left; the tier is worked out again, then Shield, compartment hits and overflow follow (QC-72,
  QC-74..QC-76).

So the player sees each roll before committing abilities to it (QC-14), and commits to the Aim
before the Evasion exists: QC-71 rolls the Evasion only after a missed Aim, and whether the Aim
missed is known only once its abilities are decided. An Evasion rolled after the Aim decision
stands; the Aim is closed by then. A roll that no ability could improve (an Aim that hit, an
Evasion at the reduced tier) asks nothing, and neither does a hero without a fitting ability. The
combat difficulty mode (QC-27..QC-30) and its G-QC-08 switch are for ground combat; a dogfight is
always judged again on the boosted totals.

Only abilities with the dogfight context work here (QC-15; "both" means in and out of ground
combat). Their effects on a dogfight roll (validated when used, errors naming ``abilities.N``):

- ``{"kind": "aim_bonus", "dice": "1d10", "amount": 5}``: dice (rolled when used) plus amount added
  to the Aim roll's total, not to the ship's Aim stat;
- ``{"kind": "evasion_bonus", ...}``: the same for the Evasion roll;
- ``{"kind": "reroll", "roll": "aim" | "evasion", "keep": "new" | "better"}``: roll that d100
  again and keep the new value (or the better one); without ``roll`` it rerolls the open roll.

Uses are spent as for any ability (QC-16, QC-17, QC-19); each use is an ``AbilityUsed`` event with
the round, the roll it changed, the totals before and after and the new verdict. The rounds play
the same events as the one-shot ``dogfight`` (ship.py); the dogfight ends after its last round or
at the hero's death (``DogfightEnded``).
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from typing import Any

from marshmallow import fields, validate

from domain.model.command_schema import Values, takes
from domain.model.errors import NoSuchDecision, NotHeld
from domain.model.quest_calendar import fight_events, hero_events, items
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import (
    State,
    answers,
    in_progress,
    needs,
    no_fight_before_dogfight,
)
from domain.model.quest_calendar.combat_rounds import ask_decision
from domain.model.quest_calendar.combat_rules import ability_option, uses_left
from domain.model.quest_calendar.command_fields import (
    ABILITY_IDS,
    DEATH,
    DOGFIGHT_ROLLS,
    dogfight_rounds_field,
    enemy_name,
)
from domain.model.quest_calendar.ship import (
    ROUND_EXAMPLE,
    aim_hits,
    d100_faces,
    evasion_tier,
    hit_round,
    read_enemies,
    read_rounds,
    refuse_if_fighting,
    roll_aim,
    roll_evasion,
    rules,
    started,
    take_fire,
)
from domain.model.quest_calendar.state_types import Hero
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import REQUIRED, picks, text
from domain.model.schema_fields import items as many

DECISION = "dogfight_round_abilities"
BONUS_KINDS = {"aim": "aim_bonus", "evasion": "evasion_bonus"}
DOGFIGHT_EFFECTS = ("aim_bonus", "evasion_bonus", "reroll")
STAT = {"aim": "aim", "evasion": "eva"}


# -- the dogfight and its open round --------------------------------------------------------------


def current_dogfight(ctx: Context) -> dict[str, Any]:
    """The round-by-round dogfight in progress on the open page, or a refusal (QC-69)."""
    qc.hero(ctx)
    fight = qc.page(ctx).get("dogfight")
    if not fight or fight.get("status") != "in_progress" or fight.get("mode") != "rounds":
        ctx.refuse("QC-69", "no dogfight is in progress on this page; start_dogfight first")
    result: dict[str, Any] = fight
    return result


def _spec(fight: dict[str, Any], work: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = fight["specs"][work["round"] - 1]
    return spec


def _roll_state(details: dict[str, Any]) -> dict[str, Any]:
    """An open roll: its AimRolled or EvasionRolled details without the round, and a bonus."""
    return {**deepcopy({k: v for k, v in details.items() if k != "round"}), "bonus": 0}


def _judge(ctx: Context, spec: dict[str, Any], which: str, roll: dict[str, Any]) -> None:
    """Total an open roll again and compare it (QC-70 / QC-71, G-QC-25)."""
    roll["total"] = roll["value"] + roll[STAT[which]] + roll["bonus"]
    if which == "aim":
        roll["hit"] = aim_hits(ctx.house, roll["total"], spec["evasion_target"])
    else:
        roll["tier"] = evasion_tier(ctx.house, roll["total"], spec["enemy_aim"])


def dogfight_options(hero: Hero, which: str) -> list[dict[str, Any]]:
    """The hero's dogfight abilities that could change the open roll and have a use left."""
    options = []
    for ability in hero["abilities"].values():
        effect = ability.get("effect") or {}
        kind = effect.get("kind")
        fits = kind == BONUS_KINDS[which] or (
            kind == "reroll" and effect.get("roll") in (None, which)
        )
        if ability["context"] != "dogfight" or not fits:
            continue
        option = ability_option(ability, hero["pool"])
        if option is not None:
            options.append(option)
    return options


def _ask(ctx: Context, fight: dict[str, Any], which: str, options: list[Any]) -> None:
    """Stop for the player's abilities on the roll just seen (QC-14)."""
    work = fight["open"]
    spec = _spec(fight, work)
    context = {
        "round": work["round"],
        "rounds": fight["rounds"],
        "roll": which,
        "aim": deepcopy(work["aim"]),
        "evasion": deepcopy(work["evasion"]),
        "damage_reduced": spec["damage_reduced"],
        "damage_max": spec["damage_max"],
    }
    ask_decision(ctx, DECISION, "QC-14", "resolve_dogfight_round", options, context)


def _after_aim(ctx: Context, fight: dict[str, Any], *, ask: bool) -> None:
    """A hit closes the round; a miss asks for Aim abilities (once) or rolls the Evasion."""
    work = fight["open"]
    if work["aim"]["hit"]:
        fight["open"] = None
        hit_round(ctx, work["round"], _spec(fight, work))
        _close(ctx, fight, hero_died=False)
        return
    options = dogfight_options(qc.hero(ctx), "aim") if ask else []
    if options:
        _ask(ctx, fight, "aim", options)
        return
    details = roll_evasion(ctx, work["round"], _spec(fight, work))
    work["evasion"] = _roll_state(details)
    ctx.emit(fight_events.EvasionRolled(**details))
    options = dogfight_options(qc.hero(ctx), "evasion") if details["tier"] == "max" else []
    if options:
        _ask(ctx, fight, "evasion", options)
        return
    _take_fire(ctx, fight)


def _take_fire(ctx: Context, fight: dict[str, Any]) -> None:
    """The missed round's damage (QC-71, QC-72, QC-74..QC-76), then the round closes."""
    work = fight["open"]
    fight["open"] = None
    died = take_fire(ctx, work["round"], _spec(fight, work), work["evasion"]["tier"])
    _close(ctx, fight, hero_died=died)


def _close(ctx: Context, fight: dict[str, Any], *, hero_died: bool) -> None:
    """After a round: the dogfight ends at the hero's death or after its last round."""
    if not hero_died and fight["round"] < fight["rounds"]:
        return
    # On a death, death.die has already ended the encounter unresolved (G-QC-12).
    fight["status"] = "finished"
    fight["ended_by"] = "death" if hero_died else "all_rounds_played"
    ctx.emit(
        fight_events.DogfightEnded(
            page_date=qc.page(ctx)["date"], rounds_played=fight["round"], hero_died=hero_died
        )
    )


# -- abilities on a dogfight roll (QC-14..QC-19) --------------------------------------------------


def _check_effect(effect: Mapping[str, Any], which: str, where: str, ability_id: str) -> str:
    """Whether a dogfight ability's effect changes the open roll; returns its kind (its shape was
    checked by its schema, ``Effect``, when the ability was defined)."""
    kind = effect.get("kind")
    if kind not in DOGFIGHT_EFFECTS:
        usable = ", ".join(DOGFIGHT_EFFECTS)
        raise NotHeld(
            where, f"{ability_id} ({kind}) cannot change a dogfight roll; usable: {usable}"
        )
    aimed = effect.get("roll") if kind == "reroll" else kind.removesuffix("_bonus")
    if aimed not in (None, which):
        raise NotHeld(
            where, f"{ability_id} changes the {aimed} roll; only the {which} roll is open"
        )
    return str(kind)


def _reroll(
    ctx: Context, roll: dict[str, Any], which: str, effect: dict[str, Any], purpose: str
) -> dict[str, Any]:
    """Roll the d100 again; keep the new value, or the better one with ``keep: better``."""
    value = int(ctx.roll("1d100", purpose)["total"])
    kept = "new" if (effect.get("keep") or "new") == "new" or value >= roll["value"] else "old"
    change = {"before": roll["value"], "after": value, "d100_faces": d100_faces(value)}
    if kept == "new":
        roll.update(value=value, d100_faces=d100_faces(value))
    return {**change, "kept": kept}


def _apply(ctx: Context, fight: dict[str, Any], which: str, ability_id: str, where: str) -> None:
    """Spend one dogfight ability on the open roll and record what it changed."""
    hero = qc.hero(ctx)
    ability = hero["abilities"].get(ability_id)
    if ability is None:
        raise NotHeld(where, f"the hero has no ability {ability_id!r}")
    qc.require_context(ctx, ability, "dogfight")
    kind = _check_effect(ability.get("effect") or {}, which, where, ability_id)
    qc.spend_ability(ctx, ability_id, "dogfight")
    work = fight["open"]
    roll = work[which]
    before = roll["total"]
    purpose = f"dogfight round {work['round']}: {which.capitalize()}"
    change: dict[str, Any]
    if kind == "reroll":
        change = _reroll(ctx, roll, which, ability["effect"], f"{purpose} again ({ability_id})")
    else:
        bonus = items.effect_amount(ctx, ability["effect"], f"{purpose} bonus ({ability_id})")
        roll["bonus"] += bonus
        change = {"bonus": bonus}
    _judge(ctx, _spec(fight, work), which, roll)
    work["abilities"].append(ability_id)
    qc.record_surge(ctx, ability_id, ability)
    verdict = {"hit": roll["hit"]} if which == "aim" else {"tier": roll["tier"]}
    ctx.emit(
        hero_events.AbilityUsed(
            ability_id=ability_id,
            usage=ability["usage"],
            context="dogfight",
            effect=kind,
            round=work["round"],
            roll=which,
            uses_left=uses_left(ability, hero["pool"]),
            **change,
            total_before=before,
            total=roll["total"],
            **verdict,
        )
    )


# -- commands -------------------------------------------------------------------------------------


def a_dogfight_in_rounds(state: State) -> Refusal | None:
    """QC-69: a round-by-round dogfight in progress."""
    found = in_progress(state["page"], "dogfight")
    if found is None or found.get("mode") != "rounds":
        return ("QC-69", "no dogfight is in progress on this page; start_dogfight first")
    return None


@rules.command(
    "start_dogfight",
    summary="Start a dogfight page played round by round (dogfight abilities may then change its "
    "Aim and Evasion rolls): its rounds as printed and the enemies.",
    example={"type": "start_dogfight", "enemies": ["raider"], "rounds": [ROUND_EXAMPLE]},
    schema=takes(
        None,
        rounds=dogfight_rounds_field(),
        enemies=many("The enemy ships' names.", default=[], max_items=20, item=enemy_name()),
    ),
    available=needs(no_fight_before_dogfight),
    rules=("QC-69",),
)
def start_dogfight(ctx: Context, args: Values) -> None:
    """QC-69 / G-QC-25: the page gives each round's targets and damage; no die is rolled yet."""
    rounds = read_rounds(args["rounds"])
    enemies = read_enemies(args["enemies"])
    qc.hero(ctx)
    page = qc.page(ctx)
    refuse_if_fighting(ctx, page)
    page["dogfight"] = {
        "status": "in_progress",
        "mode": "rounds",
        "round": 0,
        "rounds": len(rounds),
        "specs": rounds,
        "open": None,
        "ended_by": None,
    }
    ctx.emit(started(ctx, page, len(rounds), enemies))


@rules.command(
    "dogfight_round",
    summary="Roll the next dogfight round: Aim (d100 + Aim), on a miss Evasion (d100 + EVA); asks "
    "which dogfight abilities to use when one could change the roll just made.",
    example={"type": "dogfight_round"},
    schema=takes(
        "d100 (Aim); on a miss d100 (Evasion); then a d6 per point of net damage. It stops "
        "early when a dogfight ability could change the roll just made." + DEATH,
    ),
    available=needs(a_dogfight_in_rounds),
    rules=("QC-14", "QC-70", "QC-71", "QC-72", "QC-74", "QC-75", "QC-76"),
)
def dogfight_round(ctx: Context, args: Values) -> None:
    """QC-70: the Aim first; QC-71: the Evasion only once the Aim has missed for good."""
    fight = current_dogfight(ctx)
    qc.page(ctx)["first_roll_made"] = True
    fight["round"] += 1
    number = fight["round"]
    details = roll_aim(ctx, number, fight["specs"][number - 1])
    fight["open"] = {
        "round": number,
        "aim": _roll_state(details),
        "evasion": None,
        "abilities": [],
    }
    ctx.emit(fight_events.AimRolled(**details))
    _after_aim(ctx, fight, ask=True)


@rules.command(
    "resolve_dogfight_round",
    summary="Apply dogfight abilities (possibly none) to the dogfight roll just seen, then go on: "
    "the Evasion after a missed Aim, or the round's damage.",
    example={"type": "resolve_dogfight_round", "roll": "aim", "abilities": ["lock-on"]},
    schema=takes(
        "A re-roll ability rolls d100; other abilities their effect dice; then as dogfight_round "
        "goes on: d100 (Evasion) after a missed Aim, a d6 per point of net damage." + DEATH,
        abilities=many(
            "Dogfight ability ids to use.",
            default=[],
            max_items=20,
            item=picks(
                fields.String(
                    validate=validate.Length(1, 80, error="must be an ability id"),
                    error_messages={"invalid": "must be an ability id", **REQUIRED},
                ),
                ABILITY_IDS,
                label="name",
            ),
        ),
        roll=text(
            "The roll the abilities change (default: the roll just made).",
            choices=DOGFIGHT_ROLLS,
        ),
    ),
    available=answers("pending-decision", DECISION, a_dogfight_in_rounds),
    rules=("QC-14", "QC-15", "QC-16", "QC-17", "QC-19", *(f"QC-{n}" for n in range(70, 77))),
    resolves=(DECISION,),
)
def resolve_dogfight_round(ctx: Context, args: Values) -> None:
    """QC-14: abilities on the open roll only; the comparison is made again with the new total."""
    names = args["abilities"]
    roll = args["roll"]
    fight = current_dogfight(ctx)
    pending = ctx.state.get("pending") or {}
    if pending.get("decision") != DECISION:
        raise NoSuchDecision(
            "pending-decision", "no dogfight roll is waiting for abilities; roll a round"
        )
    which = qc.clear_pending(ctx)["context"]["roll"]
    if roll not in (None, which):
        raise NotHeld("roll", f"the {which} roll is open, not the {roll} roll")
    for index, name in enumerate(names):
        _apply(ctx, fight, which, name, f"abilities[{index}]")
    if which == "aim":
        _after_aim(ctx, fight, ask=False)
    else:
        _take_fire(ctx, fight)
