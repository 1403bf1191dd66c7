"""Death and cloning, Rest and level-up (QC-41..QC-56).

``damage`` takes HP; at 0 it runs ``die`` inside whichever command took the hero there (combat,
infection, rations, ship overflow): it only works through ``ctx`` and emits its own events. When
the cost roll needs the player (which item is lost on a 3; whether to switch hero on a 4 in the
harder variant) it leaves a pending decision and the decision command finishes the cloning. Rest
and level-up live in ``rest``.
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from domain.model import decisions
from domain.model.command_schema import Document, Values, given, takes
from domain.model.errors import NoSuchDecision
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import command_fields, hero_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import answers
from domain.model.quest_calendar.state_types import Hero, Page
from domain.model.rules_engine import Context, one_of
from domain.model.schema_fields import flag, nested, picks, required_when, text

rules = RULES[QUEST_CALENDAR]
rules.declare(
    hero_events.HeroDamaged,
)


rules.declare(
    hero_events.Died,
    hero_events.CloneRollMade,
    hero_events.CreditsChanged,
    hero_events.InjurySuffered,
    hero_events.EquipmentSacrificed,
    hero_events.PerRestAbilitiesExhausted,
    hero_events.HeroReplaced,
    hero_events.ConditionCleared,
    hero_events.Cloned,
)

# QC-45: the d10 injury table, face -> stat (amounts come from state.INJURY_AMOUNTS).
INJURY_TABLE = {
    1: "STR",
    2: "DEX",
    3: "CON",
    4: "INT",
    5: "WIS",
    6: "CHA",
    7: "hp_max",
    8: "def",
    9: "atk",
    10: "damage_mod",
}
CLONE_CONDITIONS = ("infected", "malfunction")
LOOT_DECISION = "clone_loot"
REPLACE_DECISION = "clone_replace_hero"
# G-QC-16: which inventory kinds each carried category of a replacement hero covers.
CARRIED_KINDS = {"consumables": ("consumable", "other"), "ship": ("ship_parts", "upgrade")}


def damage(ctx: Context, amount: int, cause: str) -> dict[str, Any]:
    """Take HP damage; HP stops at 0 and the hero dies and is cloned at once (QC-41, G-QC-12).

    Emits ``HeroDamaged``; when HP reaches 0, runs the death procedure, which emits its own events
    and may leave a pending decision.
    """
    current = qc.hero(ctx)
    before = current["hp"]
    after = max(0, before - max(0, amount))
    current["hp"] = after
    damaged = hero_events.HeroDamaged(
        amount=before - after, cause=cause, hp_before=before, hp_after=after
    )
    ctx.emit(damaged)
    if after == 0:
        die(ctx, cause=cause)
    return damaged.details()


def die(ctx: Context, *, cause: str) -> None:
    """QC-41..QC-49: the hero is at 0 HP; die, roll the clone cost and be cloned (or ask)."""
    hero = qc.hero(ctx)
    if ctx.state.get("pending"):
        raise RuntimeError("the hero died while a decision was pending; resolve decisions first")
    page: Page | None = ctx.state.get("page")
    ended = [] if page is None else _end_encounters(page)
    hero["hp"] = qc.ceil_half(hero["hp_max"])
    ctx.emit(
        hero_events.Died(
            page_date=None if page is None else page["date"],
            cause=cause,
            hp_max=hero["hp_max"],
            hp_after=hero["hp"],
            encounters_ended=ended,
        )
    )
    outcome = _clone_cost_roll(ctx)
    if outcome == 1:
        details = qc.change_credits(ctx, -qc.ceil_half(hero["credits"]), "cloning")
        ctx.emit(hero_events.CreditsChanged(**details))
    elif outcome == 2:
        _injure(ctx)
    elif outcome == 3:
        options = loot_options(ctx)
        decisions.ask(
            ctx,
            decision=LOOT_DECISION,
            who=qc.PLAYER,
            rule="QC-46",
            commands=["choose_loot"],
            options=options,
            context={"cause": cause},
            announce=qc.ANNOUNCED,
        )
        return
    elif ctx.house["qc.death.replaceHeroOnFour"]:
        options = [{"replace": False}, {"replace": True, "level": hero["level"]}]
        decisions.ask(
            ctx,
            decision=REPLACE_DECISION,
            who=qc.PLAYER,
            rule="QC-48",
            commands=["choose_clone_outcome"],
            options=options,
            context={"cause": cause, "level": hero["level"]},
            announce=qc.ANNOUNCED,
        )
        return
    else:
        _exhaust(ctx)
    finish_cloning(ctx, outcome, cause=cause)


def _end_encounters(page: Page) -> list[str]:
    """G-QC-12: the encounter in progress ends unresolved and gives no rewards."""
    ended = []
    for kind in ("combat", "dogfight"):
        encounter = page.get(kind)
        if isinstance(encounter, dict) and encounter.get("status") == "in_progress":
            encounter["status"] = "finished"
            encounter["ended_by"] = "death"
            ended.append(kind)
    return ended


def _clone_cost_roll(ctx: Context) -> int:
    """QC-43: roll d4 until a result applies; every roll is its own CloneRollMade."""
    while True:
        face = int(ctx.roll("1d4", "clone cost roll")["total"])
        reason = _reroll_reason(ctx, face)
        ctx.emit(
            hero_events.CloneRollMade(
                d4=face, applied=reason is None, rerolled=reason is not None, reason=reason
            )
        )
        if reason is None:
            return face


def _reroll_reason(ctx: Context, face: int) -> str | None:
    """Why a d4 face cannot apply (QC-44, QC-46, G-QC-14, G-QC-15); None when it applies."""
    hero = qc.hero(ctx)
    if face == 1:
        credits = hero["credits"]
        none = credits <= 0 if ctx.house["qc.death.creditsNoneIf"] == "<=0" else credits == 0
        return "noCredits" if none else None
    if face == 3:
        return None if loot_options(ctx) else "noEquipment"
    return None


def loot_options(ctx: Context) -> list[dict[str, Any]]:
    """The equipment clone result 3 may take (G-QC-15 ``qc.death.lootScope``), one per item id."""
    hero = qc.hero(ctx)
    equipped_ids = {item_id for item_id in hero["equipped"].values() if item_id}
    only_equipped = ctx.house["qc.death.lootScope"] == "equipped"
    options: dict[str, dict[str, Any]] = {}
    for item in hero["inventory"]:
        if item.get("kind") != "equipment" or item["id"] in options:
            continue
        if only_equipped and item["id"] not in equipped_ids:
            continue
        options[item["id"]] = {
            "item": item["id"],
            "name": item.get("name", ""),
            "slot": item.get("slot"),
            "equipped": item["id"] in equipped_ids,
        }
    # An equipped id with no inventory entry is still owned equipment.
    for slot, item_id in hero["equipped"].items():
        if item_id and item_id not in options:
            options[item_id] = {"item": item_id, "name": "", "slot": slot, "equipped": True}
    return list(options.values())


def _injure(ctx: Context) -> None:
    """QC-45: d10 on the injury table; each injury is its own entry."""
    record = ctx.roll("1d10", "clone injury (d10)")
    # QC-08: the engine's d10 already reads 1..10 (a die showing 0 is reported as 10).
    value = int(record["total"])
    injury = qc.apply_injury(ctx, INJURY_TABLE[value])
    ctx.emit(
        hero_events.InjurySuffered(
            d10_face=int(record["dice"][0]["face"]), d10_value=value, **injury
        )
    )


def _exhaust(ctx: Context) -> None:
    """QC-47: every per-rest ability is marked fully used (the pool too if G-QC-16 says so)."""
    hero = qc.hero(ctx)
    exhausted = []
    for ability_id, ability in sorted(hero["abilities"].items()):
        if ability.get("usage") == "per_rest":
            ability["used"] = ability["uses"]
            exhausted.append(ability_id)
    pool = hero.get("pool")
    drained = False
    if ctx.house["qc.death.result4DrainsSurges"] and pool is not None:
        pool["spent"] = pool["max"]
        drained = True
    ctx.emit(
        hero_events.PerRestAbilitiesExhausted(
            cause="cloneResult4", abilities=exhausted, pool_drained=drained
        )
    )


def finish_cloning(ctx: Context, outcome: int, *, cause: str, replaced: bool = False) -> None:
    """QC-49: HP to half of the final max (G-QC-13), Infected and Malfunction removed."""
    hero = qc.hero(ctx)
    cleared = [c for c in CLONE_CONDITIONS if c in hero["conditions"]]
    for condition in cleared:
        hero["conditions"].remove(condition)
        ctx.emit(hero_events.ConditionCleared(condition=condition, cause="resurrection"))
    if ctx.house["qc.death.hpRecalcAfterCost"]:
        hero["hp"] = qc.ceil_half(hero["hp_max"])
    qc.cap_hp(ctx)
    ctx.emit(
        hero_events.Cloned(
            outcome=outcome,
            cause=cause,
            replaced=replaced,
            hp_max=hero["hp_max"],
            hp_after=hero["hp"],
            conditions_cleared=cleared,
        )
    )


def _pending(ctx: Context, decision: str, rule: str) -> dict[str, Any]:
    """The pending decision ``decision``, or a refusal naming ``rule``."""
    pending = ctx.state.get("pending")
    if not pending or pending.get("decision") != decision:
        raise NoSuchDecision(rule, f"no {decision} decision is pending")
    result: dict[str, Any] = pending
    return result


HERO_WITH_REPLACE: Document = {
    "not": {
        "anyOf": [
            {"properties": {"replace": {"enum": [True]}}, "not": given("hero", "object")},
            {
                "required": ["hero"],
                "properties": {"replace": {"enum": [False]}, "hero": {"type": "object"}},
            },
        ]
    }
}
"""QC-48: a new hero comes with replace: true, and only then (as the document states it)."""


def hero_with_replace(data: dict[str, Any]) -> None:
    """QC-48: a new hero comes with replace: true, and only then."""
    if data.get("replace") and data.get("hero") is None:
        raise ValidationError("is required", "hero")
    if not data.get("replace") and data.get("hero") is not None:
        raise ValidationError("give a hero only with replace: true", "hero")


@rules.command(
    "choose_loot",
    summary="Clone result 3: the player names the equipment item lost for good.",
    example={"type": "choose_loot", "item": "plasma-helmet"},
    schema=takes(
        None,
        item=picks(
            text(
                "The equipment item lost for good: one the pending decision offers.",
                required=True,
                max_length=80,
            ),
            "/pending/options",
            value="item",
            label="name",
        ),
    ),
    available=answers("QC-46", LOOT_DECISION),
    rules=("QC-46", "QC-49"),
    resolves=(LOOT_DECISION,),
)
def choose_loot(ctx: Context, args: Values) -> None:
    """QC-46 / G-QC-15: the chosen equipment leaves inventory and slots; cloning finishes."""
    pending = _pending(ctx, LOOT_DECISION, "QC-46")
    item_id = one_of("item", args["item"], [o["item"] for o in pending["options"]])
    qc.clear_pending(ctx)
    hero = qc.hero(ctx)
    inventory = hero["inventory"]
    lost = next((i for i in inventory if i["id"] == item_id and i.get("kind") == "equipment"), None)
    if lost is not None:
        inventory.remove(lost)
    # A spare copy of the same item keeps its slot, unless only equipped items may be taken.
    spare = any(i["id"] == item_id for i in inventory)
    unequipped = []
    if not spare or ctx.house["qc.death.lootScope"] == "equipped":
        for slot in [s for s, i in hero["equipped"].items() if i == item_id]:
            del hero["equipped"][slot]
            unequipped.append(slot)
    item_type = lost["slot"] if lost else (unequipped[0] if unequipped else None)
    ctx.emit(
        hero_events.EquipmentSacrificed(item_id=item_id, item_type=item_type, unequipped=unequipped)
    )
    finish_cloning(ctx, 3, cause=pending["context"].get("cause", "unknown"))


@rules.command(
    "choose_clone_outcome",
    summary="Clone result 4 in the harder variant: keep the rushed clone, or switch to a new hero "
    "of the same level without the old hero's equipment.",
    example={"type": "choose_clone_outcome", "replace": False},
    schema=takes(
        None,
        replace=flag("true switches to a new hero; false keeps the rushed clone.", required=True),
        hero=required_when(
            nested(
                "The new hero (as in select_hero); only with replace: true.", command_fields.Hero
            ),
            replace=True,
        ),
        checks=[hero_with_replace],
        document=[HERO_WITH_REPLACE],
    ),
    available=answers("QC-48", REPLACE_DECISION),
    rules=("QC-47", "QC-48", "QC-49"),
    resolves=(REPLACE_DECISION,),
)
def choose_clone_outcome(ctx: Context, args: Values) -> None:
    """QC-48 / G-QC-16: a replacement hero replaces the result-4 penalty."""
    pending = _pending(ctx, REPLACE_DECISION, "QC-48")
    replace = args["replace"]
    cause = pending["context"].get("cause", "unknown")
    if not replace:
        qc.clear_pending(ctx)
        _exhaust(ctx)
        finish_cloning(ctx, 4, cause=cause)
        return
    new_hero = qc.read_hero(args["hero"])
    old = qc.hero(ctx)
    if new_hero["level"] != old["level"]:
        ctx.refuse("QC-48", f"the new hero must be of the same level ({old['level']})")
    qc.clear_pending(ctx)
    carried = _carry_over(ctx, old, new_hero)
    ctx.emit(
        hero_events.HeroReplaced(
            old_hero_id=old["id"],
            **{"old_hero_name": old["name"]} if old.get("name") else {},
            new_hero_id=new_hero["id"],
            level=new_hero["level"],
            carried=carried,
            credits=ctx.state["hero"]["credits"],
        )
    )
    finish_cloning(ctx, 4, cause=cause, replaced=True)


def _carry_over(ctx: Context, old: Hero, new_hero: Hero) -> list[str]:
    """G-QC-16 ``qc.death.replacementCarries``: what the new hero keeps; never equipment."""
    carries = [c for c in ctx.house["qc.death.replacementCarries"] if isinstance(c, str)]
    if "credits" in carries:
        new_hero["credits"] = old["credits"]
    if "virtue" in carries:
        new_hero["virtue"] = old["virtue"]
    if "consumables" in carries:
        new_hero["rations"] = old["rations"]
    kinds = {kind for c in carries for kind in CARRIED_KINDS.get(c, ())}
    # The new hero's own starting items stay; of the old hero's, only the carried kinds.
    new_hero["inventory"] = [
        *(i for i in old["inventory"] if i.get("kind") in kinds),
        *new_hero["inventory"],
    ]
    if "ship" not in carries:
        ctx.state["ship"] = qc.new_ship()
    new_hero["hp"] = qc.ceil_half(new_hero["hp_max"])
    new_hero["phase"] = "replacement"
    new_hero["pickpocketed_icons"] = []
    ctx.state["hero"] = new_hero
    return [c for c in carries if c in ("credits", "virtue", "consumables", "ship")]
