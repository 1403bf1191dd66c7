"""The ship: dogfights, compartment damage, repairs, crew and upgrades (QC-69..QC-83).

The ship lives in ``state["ship"]`` (see ``state.new_ship``). An upgrade whose effect is
``{"kind": "ship_stat", "stat": "aim" | "eva" | "shd", "amount": n}`` changes that ship stat while
it is installed (QC-69). Crew abilities join the hero's abilities, marked ``granted_by``, while
the crew member lives (QC-78, QC-80).

``dogfight`` plays every round in one command; ``dogfight_rounds.py`` plays the same rounds one at
a time with the player's dogfight abilities, through the round helpers here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.command_schema import Values, takes
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import death, fight_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import needs, no_fight_before_dogfight
from domain.model.quest_calendar.command_fields import DEATH, dogfight_rounds_field, enemy_name
from domain.model.quest_calendar.state_types import CrewMember, Item, Page, Ship
from domain.model.rules_engine import Context
from domain.model.schema_fields import items as many

rules = RULES[QUEST_CALENDAR]
rules.declare(
    fight_events.DogfightStarted,
    fight_events.AimRolled,
    fight_events.EvasionRolled,
    fight_events.DogfightRoundResolved,
    fight_events.ShipDamageTaken,
    fight_events.CompartmentHit,
    fight_events.CompartmentDestroyed,
    fight_events.CrewDied,
    fight_events.UpgradeDestroyed,
    fight_events.DogfightEnded,
)
MAX_CREW = 6
ROUND_EXAMPLE = {"evasion_target": 60, "enemy_aim": 45, "damage_reduced": 2, "damage_max": 4}


# -- reading arguments -------------------------------------------------------------------------


def read_compartment(value: int | str) -> str:
    """A compartment number 1..6 (QC-73), given as an integer or a string; returns its key."""
    return str(value)


def read_rounds(raw_rounds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The dogfight rounds as the page prints them (G-QC-25), as loaded."""
    return [dict(entry) for entry in raw_rounds]


def read_crew(loaded: dict[str, Any]) -> CrewMember:
    """A crew member: id, name, the abilities they give and an optional Integrity bonus."""
    return {
        "id": loaded["id"],
        "name": loaded["name"],
        "abilities": [qc.read_ability(a) for a in loaded["abilities"]],
        "integrity_bonus": loaded["integrity_bonus"],
    }


def stat_bonus(upgrade: Mapping[str, Any]) -> tuple[str, int] | None:
    """The ship stat an upgrade changes while installed, if its effect says so."""
    effect = upgrade.get("effect") or {}
    if effect.get("kind") != "ship_stat":
        return None
    return str(effect["stat"]), int(effect["amount"])


def apply_upgrade(ship: Ship, upgrade: Mapping[str, Any], sign: int) -> dict[str, int]:
    """Add (sign +1) or remove (sign -1) an upgrade's ship-stat bonus; returns the change."""
    bonus = stat_bonus(upgrade)
    if bonus is None:
        return {}
    stat, amount = bonus
    if stat == "aim":
        ship["aim"] += sign * amount
        return {"aim": ship["aim"]}
    if stat == "eva":
        ship["eva"] += sign * amount
        return {"eva": ship["eva"]}
    if stat == "shd":
        ship["shd"] += sign * amount
        return {"shd": ship["shd"]}
    raise RuntimeError(f"{stat} is not a ship stat an upgrade changes")


def in_progress(entry: Any) -> bool:
    """Whether a page entry (combat or dogfight) is being played right now."""
    return isinstance(entry, dict) and entry.get("status") == "in_progress"


def inventory_upgrade(ctx: Context, item_id: str) -> Item:
    """An upgrade from the hero's inventory by id, or invalid input naming it."""
    for item in qc.hero(ctx)["inventory"]:
        if item["id"] == item_id and item["kind"] == "upgrade":
            return item
    raise NotHeld("upgrade", f"the hero's inventory holds no ship upgrade {item_id!r}")


# -- dogfight (QC-69..QC-76) -------------------------------------------------------------------


def d100_faces(value: int) -> dict[str, int]:
    """QC-09: the tens and units dice that read as ``value`` (100 reads from 00 + 0)."""
    return {"tens": value // 10 * 10 % 100, "units": value % 10}


def aim_hits(house: Mapping[str, Any], total: int, target: int) -> bool:
    """QC-70 / G-QC-25: an Aim total against the round's evasion target (``qc.dogfight.hitIf``)."""
    return total > target if house["qc.dogfight.hitIf"] == "total>target" else total >= target


def evasion_tier(house: Mapping[str, Any], total: int, enemy_aim: int) -> str:
    """QC-71 / G-QC-25: "reduced" if Evasion beats the enemy's Aim (a tie per house), else "max"."""
    tie_reduces = house["qc.dogfight.evasionTie"] == "reduced"
    return "reduced" if total > enemy_aim or (total == enemy_aim and tie_reduces) else "max"


def read_enemies(enemies: list[str]) -> list[str]:
    """The enemy names the page prints (for the record only)."""
    return list(enemies)


def refuse_if_fighting(ctx: Context, page: Page) -> None:
    """QC-69: one fight at a time on a page, a ground combat or a dogfight."""
    if in_progress(page.get("combat")):
        ctx.refuse("QC-69", "a combat is in progress on this page; finish it first")
    if in_progress(page.get("dogfight")):
        ctx.refuse("QC-69", "a dogfight is in progress on this page; finish it first")


def started(
    ctx: Context, page: Page, rounds: int, enemies: list[str]
) -> fight_events.DogfightStarted:
    """The DogfightStarted event: the page, its rounds and enemies, the ship's stats (QC-69)."""
    ship: Ship = ctx.state["ship"]
    return fight_events.DogfightStarted(
        page_date=page["date"],
        rounds=rounds,
        enemies=enemies,
        aim=ship["aim"],
        eva=ship["eva"],
        shd=ship["shd"],
    )


DOGFIGHT_DICE = (
    "Per round: d100 (Aim); on a miss d100 (Evasion); then a d6 per point of net damage "
    "(the compartment hit). How many depends on the rounds and the hits." + DEATH
)
"""What dogfight may draw."""


@rules.command(
    "dogfight",
    summary="A dogfight page: each round Aim (d100 + Aim), on a miss Evasion (d100 + EVA); net "
    "damage after Shield hits a d6 compartment per point, overflowing to the hero.",
    example={"type": "dogfight", "enemies": ["raider"], "rounds": [ROUND_EXAMPLE]},
    schema=takes(
        DOGFIGHT_DICE,
        rounds=dogfight_rounds_field(),
        enemies=many("The enemy ships' names.", default=[], max_items=20, item=enemy_name()),
    ),
    available=needs(no_fight_before_dogfight),
    rules=tuple(f"QC-{n}" for n in range(69, 77)),
)
def dogfight(ctx: Context, args: Values) -> None:
    """QC-69..QC-76: play every round the page prints; stop if the hero dies."""
    rounds = read_rounds(args["rounds"])
    enemies = read_enemies(args["enemies"])
    qc.hero(ctx)
    page = qc.page(ctx)
    refuse_if_fighting(ctx, page)
    dogfight = page["dogfight"] = {"status": "in_progress", "round": 0, "rounds": len(rounds)}
    page["first_roll_made"] = True
    ctx.emit(started(ctx, page, len(rounds), enemies))
    played, hero_died = 0, False
    for number, spec in enumerate(rounds, start=1):
        dogfight["round"] = played = number
        hero_died = _play_round(ctx, number, spec)
        if hero_died:
            break
    current = ctx.state.get("page")
    if current is not None and current.get("dogfight") is not None:
        current["dogfight"]["status"] = "finished"
    ctx.emit(
        fight_events.DogfightEnded(
            page_date=page["date"], rounds_played=played, hero_died=hero_died
        )
    )


def _play_round(ctx: Context, number: int, spec: dict[str, Any]) -> bool:
    """One round (QC-70..QC-72); returns whether the hero died."""
    aim = roll_aim(ctx, number, spec)
    ctx.emit(fight_events.AimRolled(**aim))
    if aim["hit"]:
        hit_round(ctx, number, spec)
        return False
    evasion = roll_evasion(ctx, number, spec)
    ctx.emit(fight_events.EvasionRolled(**evasion))
    return take_fire(ctx, number, spec, evasion["tier"])


def roll_aim(ctx: Context, number: int, spec: dict[str, Any]) -> dict[str, Any]:
    """QC-70: roll d100 + Aim against the round's evasion target; the AimRolled details."""
    aim = ctx.state["ship"]["aim"]
    value = ctx.roll("1d100", f"dogfight round {number}: Aim")["total"]
    total = value + aim
    target = spec["evasion_target"]
    return {
        "round": number,
        "d100_faces": d100_faces(value),
        "value": value,
        "aim": aim,
        "total": total,
        "target": target,
        "hit": aim_hits(ctx.house, total, target),
    }


def roll_evasion(ctx: Context, number: int, spec: dict[str, Any]) -> dict[str, Any]:
    """QC-71: roll d100 + EVA against the enemy's Aim; the EvasionRolled details."""
    eva = ctx.state["ship"]["eva"]
    value = ctx.roll("1d100", f"dogfight round {number}: Evasion")["total"]
    total = value + eva
    enemy_aim = spec["enemy_aim"]
    return {
        "round": number,
        "d100_faces": d100_faces(value),
        "value": value,
        "eva": eva,
        "total": total,
        "enemy_aim": enemy_aim,
        "tier": evasion_tier(ctx.house, total, enemy_aim),
    }


def hit_round(ctx: Context, number: int, spec: dict[str, Any]) -> None:
    """QC-70: the Aim hit, so the enemy is destroyed or defensive and the ship takes nothing."""
    ctx.emit(
        fight_events.DogfightRoundResolved(
            round=number,
            hit=True,
            enemy_outcome=spec["on_hit"],
            incoming=0,
            shield=ctx.state["ship"]["shd"],
            net_damage=0,
        )
    )


def take_fire(ctx: Context, number: int, spec: dict[str, Any], tier: str) -> bool:
    """QC-71, QC-72, QC-74: the damage of the Evasion tier, less Shield, point by point.

    Returns whether the hero died (QC-76).
    """
    shield = ctx.state["ship"]["shd"]
    incoming = spec["damage_reduced"] if tier == "reduced" else spec["damage_max"]
    net = max(0, incoming - shield)
    ctx.emit(
        fight_events.DogfightRoundResolved(
            round=number,
            hit=False,
            enemy_outcome="none",
            incoming=incoming,
            shield=shield,
            net_damage=net,
        )
    )
    ctx.emit(fight_events.ShipDamageTaken(round=number, raw=incoming, shield=shield, net=net))
    return any(_damage_point(ctx, number, point) for point in range(1, net + 1))


def _damage_point(ctx: Context, number: int, point: int) -> bool:
    """QC-74..QC-76: one net damage point, resolved fully; returns whether the hero died."""
    compartments = ctx.state["ship"]["compartments"]
    d6 = ctx.roll("1d6", f"dogfight round {number}: damage point {point}")["total"]
    key = str(d6)
    compartment = compartments[key]
    before = compartment["integrity"]
    compartment["integrity"] = max(0, before - 1)
    ctx.emit(
        fight_events.CompartmentHit(
            round=number,
            point=point,
            d6=d6,
            compartment=key,
            name=compartment["name"],
            integrity_before=before,
            integrity_after=compartment["integrity"],
            overflow_to_hero=0 if before else 1,
        )
    )
    if before == 0:
        return bool(death.damage(ctx, 1, "shipOverflow")["hp_after"] == 0)
    if compartment["integrity"] == 0:
        destroy_compartment(ctx, key)
    return False


def destroy_compartment(ctx: Context, key: str) -> None:
    """QC-75, QC-80: a compartment at 0 loses its crew (and their bonus) and its upgrade."""
    ship: Ship = ctx.state["ship"]
    compartment = ship["compartments"][key]
    crew, upgrade = compartment["crew"], compartment["upgrade"]
    ctx.emit(
        fight_events.CompartmentDestroyed(
            compartment=key,
            name=compartment["name"],
            crew_lost=crew["id"] if crew else None,
            upgrade_lost=upgrade["id"] if upgrade else None,
        )
    )
    if crew:
        compartment["crew"] = None
        bonus = crew["integrity_bonus"]
        compartment["integrity_max"] = max(0, compartment["integrity_max"] - bonus)
        hero = ctx.state.get("hero")
        lost = []
        if hero is not None:
            lost = [a for a, v in hero["abilities"].items() if v.get("granted_by") == crew["id"]]
            for ability_id in lost:
                del hero["abilities"][ability_id]
        ctx.emit(
            fight_events.CrewDied(
                crew_id=crew["id"],
                compartment=key,
                integrity_bonus_lost=bonus,
                integrity_max_after=compartment["integrity_max"],
                abilities_lost=lost,
            )
        )
    if upgrade:
        compartment["upgrade"] = None
        stats = apply_upgrade(ship, upgrade, -1)
        ctx.emit(
            fight_events.UpgradeDestroyed(
                upgrade_id=upgrade["id"], compartment=key, stats_after=stats
            )
        )
