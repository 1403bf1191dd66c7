"""The ship: dogfights, compartment damage, repairs, crew and upgrades (QC-69..QC-83).

The ship lives in ``state["ship"]`` (see ``state.new_ship``). An upgrade whose effect is
``{"kind": "ship_stat", "stat": "aim" | "eva" | "shd", "amount": n}`` changes that ship stat while
it is installed (QC-69). Crew abilities join the hero's abilities, marked ``granted_by``, while
the crew member lives (QC-78, QC-80).
"""

from __future__ import annotations

import math
from typing import Any

from domain.engine import Args, Context
from domain.errors import InvalidInput
from domain.games import RULES
from domain.house_rules import QUEST_CALENDAR
from domain.quest_calendar import state as qc

rules = RULES[QUEST_CALENDAR]
rules.declare(
    "DogfightStarted",
    "AimRolled",
    "EvasionRolled",
    "DogfightRoundResolved",
    "ShipDamageTaken",
    "CompartmentHit",
    "CompartmentDestroyed",
    "CrewDied",
    "UpgradeDestroyed",
    "DogfightEnded",
    "ItemUsed",
    "ShipRepaired",
    "CrewHired",
    "CrewAssigned",
    "UpgradeInstalled",
    "UpgradeRemoved",
    "UpgradeSold",
)
SHIP_STATS = ("aim", "eva", "shd")
MAX_CREW = 6
ROUND_EXAMPLE = {"evasion_target": 60, "enemy_aim": 45, "damage_reduced": 2, "damage_max": 4}


# -- reading arguments -------------------------------------------------------------------------


def _prefixed(error: InvalidInput, prefix: str) -> InvalidInput:
    return InvalidInput(
        {f"{prefix}.{k}": v for k, v in error.errors.items()}, message=error.message
    )


def _sub_args(raw: Any, where: str) -> Args:
    if not isinstance(raw, dict):
        raise InvalidInput.field(where, "must be an object")
    sub = Args(raw)
    sub.used.clear()  # "type" and "faces" are ordinary unknown keys inside a nested object
    return sub


def read_compartment(args: Args, name: str = "compartment") -> str:
    """A compartment number 1..6 (QC-73), given as an integer or a string; returns its key."""
    if isinstance(args.raw.get(name), int) and not isinstance(args.raw.get(name), bool):
        return str(args.integer(name, minimum=1, maximum=6))
    return str(args.text(name, choices=qc.COMPARTMENTS))


def read_rounds(args: Args) -> list[dict[str, Any]]:
    """The dogfight rounds as the page prints them (G-QC-25)."""
    rounds = []
    for index, raw in enumerate(args.items("rounds", max_items=50)):
        where = f"rounds[{index}]"
        sub = _sub_args(raw, where)
        try:
            rounds.append(
                {
                    "evasion_target": sub.integer("evasion_target", minimum=-1000, maximum=1000),
                    "enemy_aim": sub.integer("enemy_aim", minimum=-1000, maximum=1000),
                    "damage_reduced": sub.integer("damage_reduced", minimum=0, maximum=100),
                    "damage_max": sub.integer("damage_max", minimum=0, maximum=100),
                    "on_hit": sub.text("on_hit", "destroyed", choices=("destroyed", "defensive")),
                }
            )
            sub.finish()
        except InvalidInput as error:
            raise _prefixed(error, where) from None
    if not rounds:
        raise InvalidInput.field("rounds", "a dogfight has at least one round")
    return rounds


def read_crew(args: Args) -> dict[str, Any]:
    """A crew member: id, name, the abilities they give and an optional Integrity bonus."""
    sub = _sub_args(args.mapping("crew"), "crew")
    try:
        crew = {
            "id": sub.text("id", max_length=80),
            "name": sub.text("name", "", max_length=200),
            "abilities": [qc.read_ability(a) for a in sub.items("abilities", [], max_items=20)],
            "integrity_bonus": sub.integer("integrity_bonus", None, minimum=0, maximum=10),
        }
        sub.finish()
    except InvalidInput as error:
        raise _prefixed(error, "crew") from None
    return crew


def stat_bonus(upgrade: dict[str, Any]) -> tuple[str, int] | None:
    """The ship stat an upgrade changes while installed, if its effect says so."""
    effect = upgrade.get("effect") or {}
    if effect.get("kind") != "ship_stat":
        return None
    stat, amount = effect.get("stat"), effect.get("amount")
    if stat not in SHIP_STATS or isinstance(amount, bool) or not isinstance(amount, int):
        raise InvalidInput.field(
            "upgrade.effect", "a ship_stat effect needs stat aim|eva|shd and an integer amount"
        )
    return stat, amount


def _apply_upgrade(ship: dict[str, Any], upgrade: dict[str, Any], sign: int) -> dict[str, int]:
    bonus = stat_bonus(upgrade)
    if bonus is None:
        return {}
    ship[bonus[0]] += sign * bonus[1]
    return {bonus[0]: ship[bonus[0]]}


def _in_progress(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("status") == "in_progress"


def _inventory_upgrade(ctx: Context, item_id: str) -> dict[str, Any]:
    for item in qc.hero(ctx)["inventory"]:
        if item["id"] == item_id and item["kind"] == "upgrade":
            result: dict[str, Any] = item
            return result
    raise InvalidInput.field("upgrade", f"the hero's inventory holds no ship upgrade {item_id!r}")


# -- dogfight (QC-69..QC-76) -------------------------------------------------------------------


def d100_faces(value: int) -> dict[str, int]:
    """QC-09: the tens and units dice that read as ``value`` (100 reads from 00 + 0)."""
    return {"tens": value // 10 * 10 % 100, "units": value % 10}


@rules.command(
    "dogfight",
    summary="A dogfight page: each round Aim (d100 + Aim), on a miss Evasion (d100 + EVA); net "
    "damage after Shield hits a d6 compartment per point, overflowing to the hero.",
    example={"type": "dogfight", "enemies": ["raider"], "rounds": [ROUND_EXAMPLE]},
    rules=tuple(f"QC-{n}" for n in range(69, 77)),
)
def dogfight(ctx: Context, args: Args) -> None:
    """QC-69..QC-76: play every round the page prints; stop if the hero dies."""
    rounds = read_rounds(args)
    enemies = args.items("enemies", [], max_items=20)
    if not all(isinstance(e, str) and len(e) <= 200 for e in enemies):
        raise InvalidInput.field("enemies", "must be a list of names")
    qc.hero(ctx)
    page = qc.page(ctx)
    if _in_progress(page.get("combat")):
        ctx.refuse("QC-69", "a combat is in progress on this page; finish it first")
    ship = ctx.state["ship"]
    page["dogfight"] = {"status": "in_progress", "round": 0, "rounds": len(rounds)}
    page["first_roll_made"] = True
    ctx.emit(
        "DogfightStarted",
        page_date=page["date"],
        rounds=len(rounds),
        enemies=enemies,
        **{stat: ship[stat] for stat in SHIP_STATS},
    )
    played, hero_died = 0, False
    for number, spec in enumerate(rounds, start=1):
        page["dogfight"]["round"] = played = number
        hero_died = _play_round(ctx, number, spec)
        if hero_died:
            break
    current = ctx.state.get("page")
    if current is not None and current.get("dogfight") is not None:
        current["dogfight"]["status"] = "finished"
    ctx.emit("DogfightEnded", page_date=page["date"], rounds_played=played, hero_died=hero_died)


def _play_round(ctx: Context, number: int, spec: dict[str, Any]) -> bool:
    """One round (QC-70..QC-72); returns whether the hero died."""
    ship = ctx.state["ship"]
    value = ctx.roll("1d100", f"dogfight round {number}: Aim")["total"]
    total = value + ship["aim"]
    target = spec["evasion_target"]
    hit = total > target if ctx.house["qc.dogfight.hitIf"] == "total>target" else total >= target
    ctx.emit(
        "AimRolled",
        round=number,
        d100_faces=d100_faces(value),
        value=value,
        aim=ship["aim"],
        total=total,
        target=target,
        hit=hit,
    )
    if hit:
        ctx.emit(
            "DogfightRoundResolved",
            round=number,
            hit=True,
            enemy_outcome=spec["on_hit"],
            incoming=0,
            shield=ship["shd"],
            net_damage=0,
        )
        return False
    value = ctx.roll("1d100", f"dogfight round {number}: Evasion")["total"]
    total = value + ship["eva"]
    enemy_aim = spec["enemy_aim"]
    tie_reduces = ctx.house["qc.dogfight.evasionTie"] == "reduced"
    tier = "reduced" if total > enemy_aim or (total == enemy_aim and tie_reduces) else "max"
    ctx.emit(
        "EvasionRolled",
        round=number,
        d100_faces=d100_faces(value),
        value=value,
        eva=ship["eva"],
        total=total,
        enemy_aim=enemy_aim,
        tier=tier,
    )
    incoming = spec["damage_reduced"] if tier == "reduced" else spec["damage_max"]
    net = max(0, incoming - ship["shd"])
    ctx.emit(
        "DogfightRoundResolved",
        round=number,
        hit=False,
        enemy_outcome="none",
        incoming=incoming,
        shield=ship["shd"],
        net_damage=net,
    )
    ctx.emit("ShipDamageTaken", round=number, raw=incoming, shield=ship["shd"], net=net)
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
        "CompartmentHit",
        round=number,
        point=point,
        d6=d6,
        compartment=key,
        name=compartment["name"],
        integrity_before=before,
        integrity_after=compartment["integrity"],
        overflow_to_hero=0 if before else 1,
    )
    if before == 0:
        return bool(qc.damage(ctx, 1, "shipOverflow")["hp_after"] == 0)
    if compartment["integrity"] == 0:
        destroy_compartment(ctx, key)
    return False


def destroy_compartment(ctx: Context, key: str) -> None:
    """QC-75, QC-80: a compartment at 0 loses its crew (and their bonus) and its upgrade."""
    ship = ctx.state["ship"]
    compartment = ship["compartments"][key]
    crew, upgrade = compartment["crew"], compartment["upgrade"]
    ctx.emit(
        "CompartmentDestroyed",
        compartment=key,
        name=compartment["name"],
        crew_lost=crew["id"] if crew else None,
        upgrade_lost=upgrade["id"] if upgrade else None,
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
            "CrewDied",
            crew_id=crew["id"],
            compartment=key,
            integrity_bonus_lost=bonus,
            integrity_max_after=compartment["integrity_max"],
            abilities_lost=lost,
        )
    if upgrade:
        compartment["upgrade"] = None
        stats = _apply_upgrade(ship, upgrade, -1)
        ctx.emit("UpgradeDestroyed", upgrade_id=upgrade["id"], compartment=key, stats_after=stats)


# -- repairs (QC-77) ---------------------------------------------------------------------------


@rules.command(
    "repair_ship",
    summary="Restore a compartment's Integrity with Ship Parts from the inventory (or a repair "
    "ability); never between rounds.",
    example={"type": "repair_ship", "compartment": 4, "parts": 1},
    rules=("QC-77", "QC-82"),
)
def repair_ship(ctx: Context, args: Args) -> None:
    """QC-77 / G-QC-26: each part restores qc.repair.perPart, up to the compartment's max."""
    key = read_compartment(args)
    parts = args.integer("parts", None, minimum=1, maximum=100)
    ability_id = args.text("ability", None, max_length=80)
    if (parts is None) == (ability_id is None):
        raise InvalidInput.field("parts", "give either parts or ability")
    qc.hero(ctx)
    page = qc.page(ctx)
    compartment = ctx.state["ship"]["compartments"][key]
    before = compartment["integrity"]
    missing = compartment["integrity_max"] - before
    if missing <= 0:
        ctx.refuse("QC-77", f"{compartment['name']} is already at full Integrity")
    if parts is not None:
        amount = _use_ship_parts(ctx, key, parts, missing)
    else:
        amount = _repair_by_ability(ctx, ability_id, missing)
    compartment["integrity"] = before + amount
    window = before == 0
    if window:
        windows = page.setdefault("upgrade_window", [])
        if key not in windows:
            windows.append(key)
    ctx.emit(
        "ShipRepaired",
        compartment=key,
        amount=amount,
        source="shipParts" if parts is not None else "ability",
        ability_id=ability_id,
        integrity_before=before,
        integrity_after=compartment["integrity"],
        integrity_max=compartment["integrity_max"],
        upgrade_window=window,
    )


def _use_ship_parts(ctx: Context, key: str, parts: int, missing: int) -> int:
    """Use up ``parts`` Ship Parts items (one ItemUsed each); returns the Integrity restored."""
    page = qc.page(ctx)
    if _in_progress(page.get("combat")) or _in_progress(page.get("dogfight")):
        ctx.refuse("QC-77", "Ship Parts cannot be used between rounds of a combat or dogfight")
    if page["first_roll_made"] and not ctx.house["qc.repair.allowPageEnd"]:
        ctx.refuse("QC-77", "Ship Parts are used before the page's first roll (house rule)")
    per_part = int(ctx.house["qc.repair.perPart"])
    needed = math.ceil(missing / per_part)
    if parts > needed:
        ctx.refuse("QC-77", f"{needed} Ship Part(s) restore full Integrity; more would be wasted")
    inventory = qc.hero(ctx)["inventory"]
    stock = [item for item in inventory if item["kind"] == "ship_parts"]
    if len(stock) < parts:
        ctx.refuse("QC-77", f"the hero has {len(stock)} Ship Part(s), not {parts}")
    timing = "after_last_roll" if page["first_roll_made"] else "before_first_roll"
    for item in stock[:parts]:
        inventory.remove(item)
        ctx.emit(
            "ItemUsed",
            item_id=item["id"],
            name=item.get("name", ""),
            timing=timing,
            effect={"kind": "repair", "compartment": key, "amount": per_part},
        )
    return min(missing, parts * per_part)


def _repair_by_ability(ctx: Context, ability_id: str, missing: int) -> int:
    """A hero ability with effect {"kind": "repair", "amount": n or "dice": ...} (QC-77)."""
    ability = qc.hero(ctx)["abilities"].get(ability_id)
    effect = (ability or {}).get("effect") or {}
    if effect.get("kind") != "repair":
        raise InvalidInput.field("ability", f"{ability_id!r} is not a ship repair ability")
    dogfight = ability is not None and ability["context"] == "dogfight"
    context = "dogfight" if dogfight and qc.page(ctx).get("dogfight") else "outside"
    qc.spend_ability(ctx, ability_id, context)
    if "dice" in effect:
        restored = ctx.roll(str(effect["dice"]), f"{ability_id}: ship repair")["total"]
    else:
        restored = effect.get("amount", 1)
    if isinstance(restored, bool) or not isinstance(restored, int):
        raise InvalidInput.field("ability", f"{ability_id!r} has no whole repair amount")
    return max(0, min(missing, restored))


# -- crew (QC-78..QC-80) -----------------------------------------------------------------------


def _crew_ids(ship: dict[str, Any]) -> list[str]:
    aboard = [c["crew"]["id"] for c in ship["compartments"].values() if c["crew"]]
    return aboard + [c["id"] for c in ship.get("unassigned_crew", [])]


@rules.command(
    "hire_crew",
    summary="Hire a crew member for a one-time fee (an optional purchase: never into debt by "
    "default); assign them next.",
    example={
        "type": "hire_crew",
        "crew": {"id": "vex", "name": "Vex the Mechanic", "abilities": []},
        "fee": 5,
    },
    rules=("QC-78", "QC-62"),
)
def hire_crew(ctx: Context, args: Args) -> None:
    """QC-78 / G-QC-27: the fee cannot create debt unless qc.crew.feeCanCreateDebt."""
    crew = read_crew(args)
    fee = args.integer("fee", 0, minimum=0, maximum=1_000_000)
    hero = qc.hero(ctx)
    qc.page(ctx)
    ship = ctx.state["ship"]
    if crew["id"] in _crew_ids(ship):
        raise InvalidInput.field("crew.id", f"{crew['id']!r} is already on the ship")
    clash = sorted({a["id"] for a in crew["abilities"]} & set(hero["abilities"]))
    if clash:
        raise InvalidInput.field("crew.abilities", f"the hero already has abilities {clash}")
    if len(_crew_ids(ship)) >= MAX_CREW:
        ctx.refuse("QC-79", "the ship already has six crew members, one per compartment")
    if fee > hero["credits"] and not ctx.house["qc.crew.feeCanCreateDebt"]:
        ctx.refuse(
            "QC-78",
            f"hiring is optional and cannot create debt: fee {fee}, credits {hero['credits']}",
        )
    credits = qc.change_credits(ctx, -fee, "crewFee")
    ship.setdefault("unassigned_crew", []).append(crew)
    ctx.emit(
        "CrewHired",
        crew_id=crew["id"],
        name=crew["name"],
        fee=fee,
        credits_before=credits["from"],
        credits_after=credits["to"],
    )


@rules.command(
    "assign_crew",
    summary="Assign a hired crew member to a compartment with no crew and Integrity at least 1; "
    "crew never move afterwards.",
    example={"type": "assign_crew", "crew": "vex", "compartment": 1},
    rules=("QC-79",),
)
def assign_crew(ctx: Context, args: Args) -> None:
    """QC-79 / G-QC-27: the crew member adds their Integrity bonus to max and current."""
    crew_id = args.text("crew", max_length=80)
    key = read_compartment(args)
    hero = qc.hero(ctx)
    ship = ctx.state["ship"]
    compartments = ship["compartments"]
    if any(c["crew"] and c["crew"]["id"] == crew_id for c in compartments.values()):
        ctx.refuse("QC-79", f"{crew_id} is already assigned; crew members never move")
    waiting = ship.get("unassigned_crew", [])
    member = next((c for c in waiting if c["id"] == crew_id), None)
    if member is None:
        raise InvalidInput.field("crew", f"no hired crew member {crew_id!r} is waiting")
    compartment = compartments[key]
    if compartment["crew"]:
        ctx.refuse("QC-79", f"{compartment['name']} already has a crew member")
    if compartment["integrity"] < 1:
        ctx.refuse("QC-79", f"{compartment['name']} is at Integrity 0")
    bonus = member["integrity_bonus"]
    if bonus is None:
        bonus = ctx.house["qc.crew.integrityBonus"]
    compartment["integrity_max"] += bonus
    compartment["integrity"] += bonus
    waiting.remove(member)
    for ability in member["abilities"]:
        hero["abilities"][ability["id"]] = {**ability, "granted_by": crew_id}
    abilities = [a["id"] for a in member["abilities"]]
    compartment["crew"] = {
        "id": crew_id,
        "name": member["name"],
        "integrity_bonus": bonus,
        "abilities": abilities,
    }
    ctx.emit(
        "CrewAssigned",
        crew_id=crew_id,
        compartment=key,
        integrity_bonus=bonus,
        integrity_after=compartment["integrity"],
        integrity_max_after=compartment["integrity_max"],
        abilities=abilities,
    )


# -- upgrades (QC-81..QC-83) -------------------------------------------------------------------


def _acquired_today(page: dict[str, Any], item: dict[str, Any]) -> bool:
    """QC-82 (a): an equipment day, or this item recorded as acquired on this page."""
    return bool(
        page.get("equipment_day")
        or item["id"] in page.get("acquired_items", [])
        or item.get("acquired_on") == page["date"]
    )


@rules.command(
    "install_upgrade",
    summary="Install (or, with replace, swap) a ship upgrade in an allowed compartment, on the "
    "day it is acquired or after repairing a destroyed compartment.",
    example={"type": "install_upgrade", "upgrade": "targeting-array", "compartment": 4},
    rules=("QC-81", "QC-82"),
)
def install_upgrade(ctx: Context, args: Args) -> None:
    """QC-81, QC-82 / G-QC-28: one per compartment; a swapped-out upgrade goes to inventory.

    ``upgrade`` is the id of an upgrade in the inventory, or a full item for one acquired now.
    """
    found = isinstance(args.raw.get("upgrade"), dict)
    if found:
        try:
            item = qc.read_item(args.mapping("upgrade"))
        except InvalidInput as error:
            raise _prefixed(error, "upgrade") from None
        if item["kind"] != "upgrade":
            raise InvalidInput.field("upgrade.kind", "must be upgrade")
    else:
        item = _inventory_upgrade(ctx, args.text("upgrade", max_length=80))
    key = read_compartment(args)
    replace = args.flag("replace", False)
    stat_bonus(item)
    hero = qc.hero(ctx)
    page = qc.page(ctx)
    ship = ctx.state["ship"]
    compartment = ship["compartments"][key]
    allowed = item["compartments"]
    if allowed is not None and key not in {str(c) for c in allowed}:
        ctx.refuse("QC-81", f"{item['id']} fits compartments {allowed}, not {key}")
    old = compartment["upgrade"]
    if old and not replace:
        ctx.refuse("QC-81", f"{compartment['name']} already holds {old['id']} (replace to swap)")
    acquired = found or _acquired_today(page, item)
    windows = page.get("upgrade_window") or []
    if not acquired and key not in windows:
        ctx.refuse(
            "QC-82",
            "upgrades change only when acquired or after a destroyed compartment is repaired",
        )
    minimum = ctx.house["qc.upgrades.installMinIntegrity"]
    if compartment["integrity"] < minimum:
        ctx.refuse(
            "QC-82",
            f"installing needs Integrity {minimum}; {compartment['name']} has "
            f"{compartment['integrity']}",
        )
    if old:
        compartment["upgrade"] = None
        _apply_upgrade(ship, old, -1)
        hero["inventory"].append(old)
        ctx.emit("UpgradeRemoved", upgrade_id=old["id"], compartment=key, to_inventory=True)
    if not found:
        hero["inventory"].remove(item)
    compartment["upgrade"] = item
    stats = _apply_upgrade(ship, item, 1)
    if not acquired:
        windows.remove(key)
    ctx.emit(
        "UpgradeInstalled",
        upgrade_id=item["id"],
        compartment=key,
        replaced_upgrade_id=old["id"] if old else None,
        trigger="acquired" if acquired else "compartmentRestored",
        stats_after=stats,
    )


@rules.command(
    "sell_upgrade",
    summary="Sell a ship upgrade from the inventory at its full catalogue price to an open shop "
    "that sells ship upgrades.",
    example={"type": "sell_upgrade", "upgrade": "targeting-array"},
    rules=("QC-83",),
)
def sell_upgrade(ctx: Context, args: Args) -> None:
    """QC-83 / G-QC-28: any upgrade-selling shop pays the price recorded on the item."""
    item = _inventory_upgrade(ctx, args.text("upgrade", max_length=80))
    hero = qc.hero(ctx)
    shop = qc.page(ctx).get("shop")
    if not shop:
        ctx.refuse("QC-83", "no shop is open on this page")
    if not shop.get("sells_upgrades"):
        ctx.refuse("QC-83", f"shop {shop.get('id')} does not sell ship upgrades")
    price = item["price"]
    if price is None:
        ctx.refuse("QC-83", f"{item['id']} has no recorded catalogue price")
    hero["inventory"].remove(item)
    credits = qc.change_credits(ctx, price, "sale")
    ctx.emit(
        "UpgradeSold",
        upgrade_id=item["id"],
        shop_id=shop.get("id"),
        price=price,
        credits_before=credits["from"],
        credits_after=credits["to"],
    )
