"""Rest (QC-51, QC-52) and level-up (QC-53..QC-56).

Imported by the package's ``__init__`` so that its commands register with the game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import ValidationError, fields, validate

from domain.model import decisions
from domain.model.command_schema import Values, takes
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import hero_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import State, answers, page_then_hero
from domain.model.quest_calendar.command_fields import Ability as AbilitySchema
from domain.model.quest_calendar.state_types import Ability, Hero, Pool
from domain.model.rules_engine import Context, Refusal, one_of
from domain.model.schema_fields import (
    REQUIRED,
    StrictInteger,
    integer,
    item_of,
    mapping,
    picks,
    text,
)
from domain.model.schema_fields import items as many

rules = RULES[QUEST_CALENDAR]
rules.declare(
    hero_events.Rested,
    hero_events.AbilityUsesReset,
    hero_events.SurgesRestored,
    hero_events.LevelledUp,
    hero_events.TraitPointsAllocated,
)

REST_DECISION = "rest_injury"
REST_CONDITIONS = ("infected", "malfunction")
# G-QC-17 default order; a campaign may set ``qc.rest.order`` to reorder the steps.
REST_ORDER = ("injury", "hp", "abilities", "pool", "conditions", "equipment")


def injured_stats(hero: Hero) -> list[str]:
    """The stats that carry at least one injury, in the order they were first injured."""
    return list(dict.fromkeys(injury["stat"] for injury in hero["injuries"]))


def _rest_day(state: State) -> Refusal | None:
    """QC-51: a Rest day, once."""
    page = state["page"]
    if not page.get("rest_day"):
        return ("QC-51", f"{page['date']} is not a Rest day")
    if page.get("rested"):
        return ("QC-51", "the hero has already rested on this page")
    return None


@rules.command(
    "rest",
    summary="Rest on a Rest day: restore one injured stat, HP, per-rest uses, the pool, and "
    "clear Infected and Malfunction; equipment may change today.",
    example={"type": "rest", "restore_stat": "STR"},
    schema=takes(
        None,
        restore_stat=text(
            "The injured stat to restore (asked for when several are injured).",
            choices=qc.INJURY_STATS,
        ),
    ),
    available=lambda state, house: page_then_hero(state) or _rest_day(state),
    rules=("QC-16", "QC-19", "QC-51", "QC-52"),
)
def rest(ctx: Context, args: Values) -> None:
    """QC-51 / QC-52: the player picks the injured stat; several and none named -> ask."""
    stat = args["restore_stat"]
    page = qc.page(ctx)
    hero = qc.hero(ctx)
    if not page.get("rest_day"):
        ctx.refuse("QC-51", f"{page['date']} is not a Rest day")
    if page.get("rested"):
        ctx.refuse("QC-51", "the hero has already rested on this page")
    injured = injured_stats(hero)
    if stat is not None and stat not in injured:
        have = ", ".join(injured) or "none"
        raise NotHeld("restore_stat", f"{stat} has no injury (injured: {have})")
    if stat is None and len(injured) == 1:
        stat = injured[0]
    if stat is None and injured:
        decisions.ask(
            ctx,
            decision=REST_DECISION,
            who=qc.PLAYER,
            rule="QC-52",
            commands=["choose_rest_stat"],
            options=injured,
            announce=qc.ANNOUNCED,
        )
        return
    _do_rest(ctx, stat)


@rules.command(
    "choose_rest_stat",
    summary="The Rest is waiting for the player: name the injured stat to restore.",
    example={"type": "choose_rest_stat", "stat": "STR"},
    schema=takes(
        None,
        stat=picks(
            text("The injured stat to restore: one the pending Rest offers.", required=True),
            "/pending/options",
        ),
    ),
    available=answers("QC-52", REST_DECISION),
    rules=("QC-51", "QC-52"),
    resolves=(REST_DECISION,),
)
def choose_rest_stat(ctx: Context, args: Values) -> None:
    """QC-52: the chosen stat is restored, then the rest of the Rest runs."""
    pending = ctx.state.get("pending")
    if not pending or pending.get("decision") != REST_DECISION:
        ctx.refuse("QC-52", "no Rest is waiting for a stat to restore")
    stat = one_of("stat", args["stat"], pending["options"])
    qc.clear_pending(ctx)
    _do_rest(ctx, stat)


def _do_rest(ctx: Context, stat: str | None) -> None:
    """Run the Rest steps in the house order and close with ``Rested``."""
    summary: dict[str, Any] = {
        "injury_stat_restored": None,
        "hp_restored": 0,
        "uses_reset": [],
        "pool_restored": 0,
        "conditions_cleared": [],
    }
    steps: dict[str, Callable[[Context, dict[str, Any]], None]] = {
        "injury": lambda c, s: _remove_injury(c, stat, s),
        "hp": _restore_hp,
        "abilities": _reset_uses,
        "pool": _restore_pool,
        "conditions": _clear_conditions,
        "equipment": _open_equipment,
    }
    order = ctx.house.get("qc.rest.order") or REST_ORDER
    for step in [*order, *(s for s in REST_ORDER if s not in order)]:
        if step in steps:
            steps.pop(step)(ctx, summary)
    page = qc.page(ctx)
    page["rested"] = True
    ctx.emit(
        hero_events.Rested(page_date=page["date"], equipment_day=page["equipment_day"], **summary)
    )


def _remove_injury(ctx: Context, stat: str | None, summary: dict[str, Any]) -> None:
    """QC-52 / G-QC-17: every injury of the stat, or one with ``qc.rest.injuryRemoval`` single."""
    if stat is None:
        return
    count = 1 if ctx.house["qc.rest.injuryRemoval"] == "single" else None
    removed = qc.remove_injuries(ctx, stat, count)
    summary["injury_stat_restored"] = stat
    ctx.emit(hero_events.InjuryRemoved(cause="rest", **removed))


def _restore_hp(ctx: Context, summary: dict[str, Any]) -> None:
    """QC-51 step 2: current HP to max."""
    hero = qc.hero(ctx)
    if hero["hp"] < hero["hp_max"]:
        healed = qc.heal(ctx, hero["hp_max"] - hero["hp"], "rest")
        summary["hp_restored"] = healed["amount"]
        ctx.emit(hero_events.HeroHealed(**healed))


def _reset_uses(ctx: Context, summary: dict[str, Any]) -> None:
    """QC-16: a Rest clears every per-rest mark."""
    reset = []
    for ability_id, ability in sorted(qc.hero(ctx)["abilities"].items()):
        if ability.get("usage") == "per_rest" and ability.get("used"):
            ability["used"] = 0
            reset.append(ability_id)
    if reset:
        summary["uses_reset"] = reset
        ctx.emit(hero_events.AbilityUsesReset(cause="rest", abilities=reset))


def _restore_pool(ctx: Context, summary: dict[str, Any]) -> None:
    """QC-19: a Rest restores the whole surge/charge pool."""
    pool = qc.hero(ctx).get("pool")
    if pool and pool["spent"]:
        summary["pool_restored"] = pool["spent"]
        pool["spent"] = 0
        ctx.emit(
            hero_events.SurgesRestored(
                cause="rest", pool_max=pool["max"], restored=summary["pool_restored"]
            )
        )


def _clear_conditions(ctx: Context, summary: dict[str, Any]) -> None:
    """QC-51 step 5: Infected and Malfunction end."""
    hero = qc.hero(ctx)
    for condition in REST_CONDITIONS:
        if condition in hero["conditions"]:
            hero["conditions"].remove(condition)
            summary["conditions_cleared"].append(condition)
            ctx.emit(hero_events.ConditionCleared(condition=condition, cause="rest"))


def _open_equipment(ctx: Context, summary: dict[str, Any]) -> None:
    """QC-51 step 6 / QC-64: equipment may be changed for the rest of this page."""
    qc.page(ctx)["equipment_day"] = True


# -- level-up ----------------------------------------------------------------------------------


def _read_trait_points(ctx: Context, raw: dict[str, Any]) -> dict[str, int]:
    """QC-53: +2 to one trait or +1 to two; both points spent now (G-QC-18)."""
    points: dict[str, int] = dict(raw)
    if sum(points.values()) != 2:
        ctx.refuse("QC-53", "spend exactly 2 trait points: +2 to one trait or +1 to two")
    return points


def _read_new_abilities(entries: list[dict[str, Any]]) -> list[Ability]:
    """Abilities the new level grants, defined like the hero book's (QC-15..QC-19)."""
    return [qc.read_ability(entry) for entry in entries]


def trait_name(value: str) -> None:
    """A trait a level-up raises (QC-53)."""
    if value not in qc.TRAITS:
        raise ValidationError(f"{value!r} is not one of {qc.TRAITS}")


def _level_up_day(state: State) -> Refusal | None:
    """QC-53: a level-up day, once."""
    page = state["page"]
    if not page.get("level_up_day"):
        return ("QC-53", f"{page['date']} is not a level-up day")
    if page.get("levelled_up"):
        return ("QC-53", "the hero has already levelled up on this page")
    return None


@rules.command(
    "level_up",
    summary="Level up on a level-up day: max and current HP rise by the gain, 2 trait points, "
    "new abilities, uses and pool; nothing is restored.",
    example={
        "type": "level_up",
        "max_hp_gain": 4,
        "trait_points": {"STR": 1, "DEX": 1},
        "new_uses": {"second-wind": 3},
        "pool_max": 4,
    },
    schema=takes(
        None,
        max_hp_gain=integer("How much max HP rises.", default=0, minimum=0, maximum=1000),
        trait_points=fields.Dict(
            keys=fields.String(validate=trait_name),
            values=StrictInteger(
                validate=validate.Range(1, 2, error="must be 1 or 2"),
                error_messages={"invalid": "must be 1 or 2", **REQUIRED},
                metadata={"description": "The points this trait gains."},
            ),
            required=True,
            error_messages={"invalid": "must be an object", **REQUIRED},
            metadata={"description": "Trait -> points gained: +2 to one trait or +1 to two."},
        ),
        document=[{"properties": {"trait_points": {"propertyNames": {"enum": list(qc.TRAITS)}}}}],
        new_abilities=many(
            "New abilities, each defined as in select_hero.",
            default=[],
            item=item_of(AbilitySchema),
        ),
        new_uses=mapping(
            "Ability id (the id of a per-rest ability of the hero: text with no control "
            "characters) -> its new number of uses (at least its uses now).",
            default={},
            keys=text("A per-rest ability's id.", required=True, max_length=80),
            values=integer("Its new number of uses.", required=True, minimum=0, maximum=100),
        ),
        pool_max=integer("The pool's new maximum.", minimum=0, maximum=100),
    ),
    available=lambda state, house: page_then_hero(state) or _level_up_day(state),
    rules=("QC-53", "QC-54", "QC-55", "QC-56"),
)
def level_up(ctx: Context, args: Values) -> None:
    """QC-53..QC-56: not a Rest; new capacity per G-QC-18; everything else carries over."""
    gain = args["max_hp_gain"]
    points = _read_trait_points(ctx, args["trait_points"])
    new_abilities = _read_new_abilities(args["new_abilities"])
    new_uses = args["new_uses"]
    pool_max = args["pool_max"]
    page = qc.page(ctx)
    hero = qc.hero(ctx)
    if not page.get("level_up_day"):
        ctx.refuse("QC-53", f"{page['date']} is not a level-up day")
    if page.get("levelled_up"):
        ctx.refuse("QC-53", "the hero has already levelled up on this page")
    _check_level_up(ctx, hero, points, new_abilities, new_uses, pool_max)

    # G-QC-18: without immediate capacity the new uses count as spent until the next Rest.
    at_once = ctx.house["qc.levelUp.newCapacityAvailable"]
    uses_details = _grow_capacity(hero, new_abilities, new_uses, at_once)
    pool = _grow_pool(hero, pool_max, at_once)
    before = hero["level"]
    hero["level"] = before + 1
    page["levelled_up"] = True
    ctx.emit(
        hero_events.LevelledUp(
            from_level=before,
            to_level=hero["level"],
            max_hp_gain=gain,
            new_abilities=[a["id"] for a in new_abilities],
            new_uses=uses_details,
            pool=None if pool is None else {"max": pool["max"], "spent": pool["spent"]},
            new_capacity_available=at_once,
        )
    )
    if gain:
        hp_before, max_before = hero["hp"], hero["hp_max"]
        hero["hp_max"] += gain
        hero["hp"] += gain
        ctx.emit(
            hero_events.HeroHealed(
                amount=gain,
                cause="levelUp",
                hp_before=hp_before,
                hp_after=hero["hp"],
                hp_max_before=max_before,
                hp_max_after=hero["hp_max"],
            )
        )
    allocations = {}
    for trait, value in sorted(points.items()):
        allocations[trait] = {"points": value, "from": hero["traits"][trait]}
        hero["traits"][trait] += value
        allocations[trait]["to"] = hero["traits"][trait]
    ctx.emit(hero_events.TraitPointsAllocated(allocations=allocations))


def _check_level_up(
    ctx: Context,
    hero: Hero,
    points: dict[str, int],
    new_abilities: list[Ability],
    new_uses: dict[str, int],
    pool_max: int | None,
) -> None:
    """Refuse teaching a known ability, shrinking a capacity or passing the trait cap."""
    known = set(hero["abilities"])
    for ability in new_abilities:
        if ability["id"] in known:
            raise NotHeld("new_abilities", f"the hero already has {ability['id']!r}")
        known.add(ability["id"])
    for ability_id, uses in new_uses.items():
        growing = hero["abilities"].get(ability_id)
        if growing is None or growing["usage"] != "per_rest":
            raise NotHeld(f"new_uses.{ability_id}", "not a per-rest ability of the hero")
        if uses < growing["uses"]:
            raise NotHeld(
                f"new_uses.{ability_id}", f"must be an integer from {growing['uses']} to 100"
            )
    pool = hero.get("pool")
    if pool_max is not None and pool is not None and pool_max < pool["max"]:
        raise NotHeld("pool_max", f"the pool only grows (now {pool['max']})")
    limit = ctx.house["qc.traits.max"]
    for trait, value in points.items():
        if limit is not None and hero["traits"][trait] + value > limit:
            ctx.refuse("QC-53", f"{trait} would exceed the house maximum of {limit}")


def _grow_capacity(
    hero: Hero,
    new_abilities: list[Ability],
    new_uses: dict[str, int],
    at_once: bool,
) -> dict[str, dict[str, int]]:
    """Raise per-rest uses and teach new abilities; answer the raised uses."""
    uses_details = {}
    for ability_id, uses in sorted(new_uses.items()):
        ability = hero["abilities"][ability_id]
        growth = uses - ability["uses"]
        ability["uses"] = uses
        if not at_once:
            ability["used"] += growth
        uses_details[ability_id] = {"uses": uses, "available": uses - ability["used"]}
    for ability in new_abilities:
        if not at_once and ability["usage"] == "per_rest":
            ability["used"] = ability["uses"]
        hero["abilities"][ability["id"]] = ability
    return uses_details


def _grow_pool(hero: Hero, pool_max: int | None, at_once: bool) -> Pool | None:
    """Raise the hero's pool to pool_max (creating it if need be); answer the pool."""
    pool = hero["pool"]
    if pool_max is not None:
        if pool is None:
            pool = hero["pool"] = {"name": "surges", "max": 0, "spent": 0}
        growth = pool_max - pool["max"]
        pool["max"] = pool_max
        if not at_once:
            pool["spent"] += growth
    return pool
