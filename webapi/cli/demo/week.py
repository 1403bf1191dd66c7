"""The demo's Quest Calendar week: a hero, seven pages, every part of the game once.

The hero, items, shop and enemies are those of the week the application tests play
(tests/application/qc_week_data.py), which the rules accept. The dice are the server's, so the
script reads the state after each command: it keeps fighting a weak drone until a combat is won,
keeps fighting the Void titan until the hero dies, and pays a toll two credits above what the hero
holds so that the payment goes into debt whatever the dice gave before.
"""

from __future__ import annotations

from typing import Any

from domain.facade import Questlog, samples
from webapi.cli.demo.player import DemoError, Json, Player, of_type

NAME = "Demo: a week of the Voidspark Chronicles"

HERO: Json = samples.VANGUARD

DRONE: Json = {
    "enemy": "Training drone",
    "hit_target": 6,
    "damage_needed": 2,
    "enemy_attack": 8,
    "damage_reduced": 1,
    "damage_full": 2,
}
"""An enemy the hero beats on almost any roll: fought until a combat is won."""

HOUND: Json = {
    "enemy": "Void hound",
    "hit_target": 19,
    "damage_needed": 9,
    "enemy_attack": 20,
    "damage_reduced": 3,
    "damage_full": 6,
}
"""An enemy the hero rarely beats: Monday's combat that is lost."""

TITAN: Json = {
    "enemy": "Void titan",
    "hit_target": 20,
    "damage_needed": 12,
    "enemy_attack": 20,
    "damage_reduced": 10,
    "damage_full": 20,
}
"""An enemy that kills: fought until the hero dies and is cloned."""

SHOP: Json = samples.DOCK_MARKET
VEX: Json = {"id": "vex", "name": "Vex the Mechanic"}
DOGFIGHT_ROUNDS: list[Json] = [
    {"evasion_target": 95, "enemy_aim": 100, "damage_reduced": 4, "damage_max": 8},
    {"evasion_target": 95, "enemy_aim": 100, "damage_reduced": 4, "damage_max": 8},
    {"evasion_target": 95, "enemy_aim": 100, "damage_reduced": 4, "damage_max": 8},
]
"""A raider the hero seldom hits and that always aims true: its hits spread over the ship's
compartments, the Bridge among them."""
MOST_FIGHTS = 12
"""A bound on the combats fought for one story beat (each is a few percent likely to miss it)."""


def play_week(questlog: Questlog, name: str = NAME) -> Player:
    """Create the campaign and play Monday 2027-01-04 to Sunday 2027-01-10."""
    week = Player.create(
        questlog, game="quest-calendar", name=name, setup={"prologue_complete": True}
    )
    week.run({"type": "select_hero", "phase": "main", "hero": HERO})
    for day in (monday, tuesday, wednesday, thursday, friday, saturday, sunday):
        day(week)
    return week


def monday(week: Player) -> None:
    """Trait checks, a mistaken command rolled back, a combat won and one lost."""
    week.run({"type": "start_page", "date": "2027-01-04"})
    week.run({"type": "trait_check", "trait": "INT", "purpose": "decode the panel", "target": 12})
    week.run({"type": "trait_check", "trait": "STR", "purpose": "force the hatch", "target": 15})
    before = week.version
    week.run({"type": "gain_credits", "amount": 50, "cause": "salvage"})
    week.roll_back(before, "typed 50 credits of salvage instead of 5")
    week.run({"type": "gain_credits", "amount": 5, "cause": "salvage"})
    fight_until(week, DRONE, won=True)
    fight_until(week, HOUND, won=False)
    answer_pending(week)
    week.run({"type": "end_page"})


def tuesday(week: Player) -> None:
    """A shop (a sale, a ration bought), then a required toll the hero cannot pay: a debt."""
    week.run({"type": "start_page", "date": "2027-01-05"})
    week.run(SHOP)
    week.run({"type": "sell", "item": "visor"})
    if credits(week) >= 2:
        week.run({"type": "buy", "item": "ration"})
    week.run({"type": "leave_shop"})
    toll = max(credits(week), 0) + 2
    week.run({"type": "pay", "purpose": "docking toll", "cost": toll, "required": True})
    week.run({"type": "gain_credits", "amount": 1, "cause": "salvage"})
    week.run({"type": "end_page"})


def wednesday(week: Player) -> None:
    """The debt paid back, then the Void titan until the hero dies and is cloned."""
    week.run({"type": "start_page", "date": "2027-01-06"})
    week.run({"type": "gain_credits", "amount": -credits(week) + 6, "cause": "bounty"})
    fight_until_death(week, TITAN)
    week.run({"type": "eat_rations", "count": 1})
    week.run({"type": "end_page"})


def thursday(week: Player) -> None:
    """A quiet page: a check on server dice and the Med Kit."""
    week.run({"type": "start_page", "date": "2027-01-07"})
    week.run({"type": "trait_check", "trait": "DEX", "purpose": "dodge the patrol", "target": 11})
    if any(item["id"] == "med-kit" for item in hero(week)["inventory"]):
        week.run({"type": "use_item", "item": "med-kit"})
    week.run({"type": "end_page"})


def friday(week: Player) -> None:
    """Crew on the Bridge, then dogfights against a raider until the Bridge is destroyed and
    its crew with it."""
    week.run({"type": "start_page", "date": "2027-01-08"})
    week.run({"type": "hire_crew", "crew": VEX, "fee": 0})
    week.run({"type": "assign_crew", "crew": "vex", "compartment": 2})
    for _ in range(MOST_FIGHTS):
        week.run({"type": "dogfight", "enemies": ["raider"], "rounds": DOGFIGHT_ROUNDS})
        answer_pending(week)
        if week.count("CrewDied"):
            break
    else:
        raise DemoError("no dogfight destroyed the crewed Bridge")
    week.run({"type": "end_page"})


def saturday(week: Player) -> None:
    """A Rest day."""
    week.run({"type": "start_page", "date": "2027-01-09", "rest_day": True})
    week.run({"type": "rest"})
    answer_pending(week)
    week.run({"type": "end_page"})


def sunday(week: Player) -> None:
    """A pickpocket at the market, then the Sunday lottery, once."""
    week.run({"type": "start_page", "date": "2027-01-10"})
    week.run({"type": "pickpocket", "icon_id": "market-crowd", "accept_four": True})
    week.run({"type": "play_lottery"})
    week.run({"type": "end_page"})


def fight_until(week: Player, enemy: Json, *, won: bool) -> None:
    """Fight one-round combats against ``enemy`` until one is won (or lost), as a player would
    take the next encounter; the hero's death on the way is answered and the fight goes on."""
    for _ in range(MOST_FIGHTS):
        if fight(week, enemy) is won:
            return
        answer_pending(week)
    raise DemoError(f"no combat against {enemy['enemy']} was {'won' if won else 'lost'}")


def fight_until_death(week: Player, enemy: Json) -> None:
    """Fight ``enemy`` until the hero dies, then answer the clone's decisions."""
    deaths = week.count("Died")
    for _ in range(MOST_FIGHTS):
        fight(week, enemy)
        if week.count("Died") > deaths:
            answer_pending(week)
            return
    raise DemoError(f"the hero survived every fight with the {enemy['enemy']}")


def fight(week: Player, enemy: Json) -> bool:
    """One one-round combat in the campaign's combat mode; True if its round was won."""
    week.run({"type": "start_combat", "kind": "one_enemy", "rounds": [enemy]})
    events = week.run({"type": "combat_round"})
    pending = week.pending
    if pending is not None and pending["decision"] == "combat_round_abilities":
        events = week.run({"type": "resolve_round", "abilities": []})
    resolved = of_type(events, "CombatRoundResolved")
    return bool(resolved and resolved[-1]["won"])


def answer_pending(week: Player) -> None:
    """Answer the decisions a death leaves (the loot, replacing the hero) and a Rest's
    with the first option offered, until none is pending."""
    while week.pending is not None:
        week.run(answer(week.pending))


def answer(pending: Json) -> Json:
    """The command that answers a pending decision with its first option."""
    decision = pending["decision"]
    options: list[Any] = pending.get("options") or []
    if decision == "clone_loot":
        return {"type": "choose_loot", "item": options[0]["item"]}
    if decision == "clone_replace_hero":
        return {"type": "choose_clone_outcome", "replace": False}
    if decision == "rest_injury":
        return {"type": "choose_rest_stat", "stat": options[0]}
    if decision == "combat_round_abilities":
        return {"type": "resolve_round", "abilities": []}
    raise DemoError(f"the demo cannot answer the decision {decision!r}")


def hero(week: Player) -> Json:
    """The hero as the last command left it."""
    found: Json = week.state["hero"]
    return found


def credits(week: Player) -> int:
    """The hero's credits now (below 0 in debt)."""
    return int(hero(week)["credits"])
