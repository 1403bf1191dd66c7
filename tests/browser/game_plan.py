"""The plan of the game: what a table plays on the page, as data the page test replays by
clicks and tests/api/test_game_plan.py plays through the API first.

No Playwright here. A step sends its commands in order; after each, the game's ``answer`` answers
every pending decision, whatever the server dice gave (no body carries ``faces``). A step with
``until`` sends its commands while ``until(state, trace)`` does not hold, ``limit`` times at most.
An undo step rolls back to the version before the last command ("Undo the last command").

Quest Calendar (three pages, QC-02..QC-62):
1. a hero (the Scout, a sample hero of ``domain.model.samples``); page 1: two trait checks, a
   combat of two plain rounds (no condition), a shop (enter, buy the Med Kit for all 5 credits,
   leave), a mistaken required payment, undone by a rollback;
2. page 2: the hopeless fight, one round nobody wins (hit target 1000, 1000 damage), kills the
   hero for certain (QC-41, G-QC-12); then the hero starves (1000 rations asked, QC-65) until the
   clone decision came and two stats are injured. Each death rolls the clone cost d4 (QC-43):
   with no credits and no equipment a 1 or a 3 is rolled again, so it ends on a 2 (an injury,
   QC-45) or a 4, which under the house rule ``qc.death.replaceHeroOnFour`` asks
   ``choose_clone_outcome`` (QC-48);
3. page 3, a Rest day: ``rest`` with two injured stats asks ``choose_rest_stat`` (QC-52).

Calendar Board (one day and one night, CB-01..CB-41): three players on a six-space board whose
first day space is a supply space (always reached, CB-13) and whose other three are hail (CB-28).
A's piece a1 on space 1 has enemies 2 and 5 spaces ahead, so A's night ambush (CB-35) always gets
a fate reroll offer (G-CB-12): a miss that another face could turn into a hit offers it, and a hit
waits for ``choose_ambush`` or ``fate_reroll``. The answer always takes the reroll, so one fate
reroll (CB-10) is certain. B has no partner and rizzes for a catgirl girlfriend (CB-37, CB-38);
C has a partner (no rizz, CB-37), slept through the day (CB-40, CB-41) and sleeps. Two zombies
make the god-token holder order them (CB-04); A picks the weapon the supply refills (CB-15).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from domain.model import samples

Json = dict[str, Any]


@dataclass
class Trace:
    """What a played plan did: bodies sent, decisions answered (in order), undos."""

    sent: list[Json] = field(default_factory=list)
    answered: list[str] = field(default_factory=list)
    undone: int = 0


@dataclass(frozen=True)
class Step:
    """One step of a plan, in words, with the rules it plays."""

    says: str
    bodies: tuple[Json, ...] = ()
    rules: tuple[str, ...] = ()
    until: Callable[[Json, Trace], bool] | None = None
    limit: int = 1
    undo: bool = False


def step(says: str, rules: str, *bodies: Json, **more: Any) -> Step:
    """A step from its words, its rule ids (space-separated) and its command bodies."""
    return Step(says, bodies, tuple(rules.split()), **more)


Answer = Callable[[Json, Json], Json]
"""(pending decision, state) -> the body of the command that answers it."""


class Table(Protocol):
    """Where a plan is played: the API in the API test, the page in the browser test."""

    def send(self, body: Json) -> Json:
        """Send one command; return the campaign state after it."""
        ...

    def undo(self) -> Json:
        """Roll back to the version before the last command; return the state after."""
        ...


class PlanFailed(AssertionError):
    """A step did not reach what it is for within its bound."""


def play(steps: Sequence[Step], table: Table, answer: Answer) -> Trace:
    """Play every step on the table, answering every decision; the trace of what was done."""
    trace = Trace()
    state: Json = {}
    for step in steps:
        if step.undo:
            state = table.undo()
            trace.undone += 1
        else:
            state = play_step(step, table, answer, trace, state)
    return trace


def play_step(step: Step, table: Table, answer: Answer, trace: Trace, state: Json) -> Json:
    """Send the step's commands once, or while ``until`` does not hold yet (``limit`` times at
    most); every decision answered. The state after."""
    for _ in range(step.limit):
        if step.until is not None and step.until(state, trace):
            return state
        for body in step.bodies:
            trace.sent.append(body)
            state = settle(table.send(body), table, answer, trace)
        if step.until is None:
            return state
    if step.until is not None and step.until(state, trace):
        return state
    raise PlanFailed(f"{step.says}: not reached in {step.limit} tries")


def settle(state: Json, table: Table, answer: Answer, trace: Trace, limit: int = 30) -> Json:
    """Answer pending decisions until none is left; the state after."""
    for _ in range(limit):
        pending = state.get("pending")
        if not pending:
            return state
        body = answer(pending, state)
        trace.answered.append(pending["decision"])
        trace.sent.append(body)
        state = table.send(body)
    raise PlanFailed(f"still deciding after {limit} answers: {state.get('pending')}")


# -- Quest Calendar --------------------------------------------------------------------------

QC_CAMPAIGN: Json = {
    "game": "quest-calendar",
    "name": "The Voidspark Chronicles",
    "house_rules": {"qc.death.replaceHeroOnFour": True},  # QC-48, the harder variant
    "setup": {"prologue_complete": True},
}
HERO: Json = copy.deepcopy(samples.SCOUT)
"""A sample hero, as the page offers it. Any hero with ATK < 980, 8 < HP max <= 1000, no
equipment and the Med Kit's price in credits plays the plan (the clone d4 counts then only on 2
and 4)."""

REPLACEMENT: Json = {
    "id": "mystic",
    "name": "The Mystic",
    "level": 1,
    "traits": {"WIS": 2, "INT": 1},
    "hp_max": 16,
    "def": 10,
    "atk": 2,
    "damage_dice": "1d6",
}
"""The new hero of the same level when the clone decision says replace (QC-48)."""


def printed_round(enemy: str, hit: int, needed: int, attack: int, reduced: int, full: int) -> Json:
    """A combat round as the page prints it, with no condition (a plain round)."""
    keys = ("hit_target", "damage_needed", "enemy_attack", "damage_reduced", "damage_full")
    return {"enemy": enemy, **dict(zip(keys, (hit, needed, attack, reduced, full), strict=True))}


PLAIN_ROUNDS = [
    printed_round("Void hound", 12, 5, 11, 2, 4),
    printed_round("Void hound", 13, 6, 13, 3, 4),
]
# No attack reaches 1000 and either damage tier is 1000: the round is lost, the hero dies.
HOPELESS_ROUND = printed_round("Void titan", 1000, 1000, 1000, 1000, 1000)
MED_KIT: Json = {
    "id": "med-kit",
    "name": "Med Kit",
    "kind": "consumable",
    "effect": {"kind": "heal", "dice": "1d6"},
}
CLONE_DECISION = "clone_replace_hero"


def injured_stats(state: Json) -> list[str]:
    """The hero's injured stats, each once, in the order they were injured."""
    return list(dict.fromkeys(i["stat"] for i in (state.get("hero") or {}).get("injuries", [])))


def cloned_and_twice_injured(state: Json, trace: Trace) -> bool:
    """The death loop is done: the clone decision was answered and two stats are injured, so
    the Rest will ask which one to restore."""
    return CLONE_DECISION in trace.answered and len(injured_stats(state)) >= 2


def qc_steps() -> list[Step]:
    """The three pages, in order."""
    shop = {
        "type": "enter_shop",
        "shop_id": "dock-market",
        "stock": [{"item": MED_KIT, "price": 5}],
    }
    return [
        step(
            "Make the hero",
            "QC-02 QC-04 QC-05",
            {"type": "select_hero", "phase": "main", "hero": HERO},
        ),
        step("Open page 1", "QC-12 QC-17", {"type": "start_page", "date": "2027-01-04"}),
        step(
            "An INT check against 12",
            "QC-10",
            {"type": "trait_check", "trait": "INT", "target": 12},
        ),
        step(
            "A STR check to force the door",
            "QC-10",
            {"type": "trait_check", "trait": "STR", "target": 10, "purpose": "force the door"},
        ),
        step(
            "A combat of two plain rounds: each round rolled, no ability used",
            "QC-20 QC-21 QC-22 QC-28",
            {"type": "start_combat", "kind": "several_enemies", "rounds": PLAIN_ROUNDS},
            {"type": "combat_round"},
            {"type": "combat_round"},
        ),
        step(
            "The dock market: buy the Med Kit with all 5 credits, then leave",
            "QC-57 QC-59",
            shop,
            {"type": "buy", "item": "med-kit"},
            {"type": "leave_shop"},
        ),
        step(
            "A mistake: a toll printed on another page, paid into debt",
            "QC-60",
            {"type": "pay", "purpose": "city toll", "cost": 2, "required": True},
        ),
        step("Undo the last command", "QC-60", undo=True),
        step("Close page 1", "QC-17", {"type": "end_page"}),
        step("Open page 2", "QC-12", {"type": "start_page", "date": "2027-01-05"}),
        step(
            "The hopeless fight: the Void titan kills the hero, the clone cost is paid",
            "QC-20 QC-41 QC-42 QC-43 QC-44 QC-45 QC-46 QC-47 QC-48 QC-49",
            {"type": "start_combat", "kind": "one_enemy", "rounds": [HOPELESS_ROUND]},
            {"type": "combat_round"},
        ),
        step(
            "Starving (1000 rations asked) until the clone decision came and two stats are hurt",
            "QC-65 QC-41 QC-43 QC-45 QC-48",
            {"type": "eat_rations", "count": 1000},
            until=cloned_and_twice_injured,
            limit=40,
        ),
        step("Close page 2", "QC-17", {"type": "end_page"}),
        step(
            "Open page 3, a Rest day",
            "QC-51",
            {"type": "start_page", "date": "2027-01-06", "rest_day": True},
        ),
        step(
            "Rest: two stats are injured, so the player names one",
            "QC-16 QC-19 QC-51 QC-52",
            {"type": "rest"},
        ),
        step("Close page 3", "QC-17", {"type": "end_page"}),
    ]


ABILITY_ANSWERS = "resolve_round resolve_rounds boost_attack boost_damage resolve_dogfight_round"


def qc_answer(pending: Json, state: Json, *, replace: bool = False) -> Json:
    """A valid answer to any Quest Calendar decision: no ability on a roll (plain rounds), keep
    the rushed clone (or ``replace`` it by the Mystic, once), the first item or stat offered,
    and accept a pickpocketed 4."""
    decision = pending["decision"]
    options = pending.get("options") or []
    if decision == CLONE_DECISION:
        # Replace once at most: each replacement heals every injury, and the Rest needs two.
        if replace and state["hero"].get("phase") != "replacement":
            return {
                "type": "choose_clone_outcome",
                "replace": True,
                "hero": {**REPLACEMENT, "level": state["hero"]["level"]},
            }
        return {"type": "choose_clone_outcome", "replace": False}
    if decision == "clone_loot":
        return {"type": "choose_loot", "item": options[0]["item"]}
    if decision == "rest_injury":
        return {"type": "choose_rest_stat", "stat": options[0]}
    if decision == "pickpocket_four":
        return {"type": "decide_pickpocket", "choice": "accept"}
    command = pending["commands"][0]
    if command in ABILITY_ANSWERS.split():
        return {"type": command}  # no ability: the body holds nothing the player did not choose
    raise PlanFailed(f"no answer for the decision {decision}")


# -- Calendar Board --------------------------------------------------------------------------

BOARD = ["start", "supply", "hail", "hail", "hail", "end"]
"""G-CB-09 as a house rule: from Start every calendar d4 passes or lands on the supply space 1,
then lands on hail (2, 3 or 4) unless it shows 1."""


def ammo(weapon_id: str, kind: str, loaded: int, capacity: int, regen: int) -> Json:
    """A weapon that uses ammunition."""
    numbers = {"ammo": loaded, "ammo_max": capacity, "ammo_regen": regen}
    return {"id": weapon_id, "kind": kind, "uses_ammo": True, **numbers}


CB_CAMPAIGN: Json = {
    "game": "calendar-board",
    "name": "Calendar Board, three players",
    "house_rules": {"cb.calendar.layout": BOARD},
    "setup": {
        "players": [
            {
                "id": "A",
                "luck_mod": -5,
                "pieces": [
                    {"id": "a1", "location": {"kind": "pathway", "space": 1}, "facing": "E"},
                    {"id": "a2", "location": {"kind": "home"}},
                ],
                "weapons": [ammo("bow", "ranged", 1, 6, 2), ammo("crossbow", "hybrid", 0, 4, 3)],
            },
            {
                "id": "B",
                "pieces": [{"id": "b1", "location": {"kind": "pathway", "space": 3}}],
                "weapons": [ammo("sling", "ranged", 2, 3, 2)],
            },
            {
                "id": "C",
                "exhaustion": 1,
                "partner": "catboyBoyfriend",
                "relationship": 12,
                "pieces": [{"id": "c1", "location": {"kind": "pathway", "space": 6}}],
                "weapons": [{"id": "sword", "kind": "melee"}],
            },
        ],
        "creatures": [{"id": "z1", "type": "Zombie"}, {"id": "z2", "type": "Zombie"}],
    },
}
NIGHT_ACTIONS: dict[str, Json] = {
    "A": {"action": "ambush"},
    "B": {"action": "rizz", "partner": "catgirlGirlfriend"},
    "C": {"action": "sleep"},
}
AMBUSH_FORM = "surprise attack"


def night_over(state: Json, trace: Trace) -> bool:
    """The night has ended and the starting player's turn of round 2 has begun (CB-01)."""
    return state.get("night") is None and state.get("round") == 2 and not state.get("pending")


def cb_steps() -> list[Step]:
    """One day (A rolls a movement die, A and B end their turns, C sleeps through the day) and
    the night that follows, every decision of it answered."""
    night = "CB-01 CB-02 CB-03 CB-04 CB-05 CB-09 CB-10 CB-13 CB-15 CB-28 CB-30 CB-33 CB-35 CB-37"
    return [
        step(
            "A rolls a1's movement",
            "CB-23",
            {"type": "roll_movement", "player": "A", "piece": "a1"},
        ),
        step("A ends the turn", "CB-01", {"type": "end_turn", "player": "A"}),
        step("B ends the turn", "CB-01", {"type": "end_turn", "player": "B"}),
        step(
            "C sleeps through the day; the night runs, every decision answered",
            night + " CB-38 CB-39 CB-40 CB-41",
            {"type": "day_sleep", "player": "C"},
            until=night_over,
        ),
    ]


def cb_answer(pending: Json, state: Json) -> Json:
    """A valid answer to any Calendar Board decision: take every fate reroll offered, the night
    action NIGHT_ACTIONS gives (sleep if it is not allowed), the first option otherwise."""
    decision, who = pending["decision"], pending["who"]
    options = pending.get("options") or []
    mine = {"player": who}
    if decision == "night_roll":  # the holder's or a saving player's own roll (CB-09, CB-28)
        return {"type": "roll_night", **mine, "roll": pending["context"]["roll"]}
    if decision == "fate_reroll":
        return {"type": "fate_reroll", **mine, "roll": pending["context"]["roll"]}
    if decision == "ambush_target":
        if "fate_reroll" in pending["commands"]:
            return {"type": "fate_reroll", **mine, "roll": "ambush"}
        pick = {key: options[0][key] for key in ("piece", "target")}
        return {"type": "choose_ambush", **mine, **pick, "form": AMBUSH_FORM}
    if decision == "night_action":
        wanted = NIGHT_ACTIONS.get(who, {"action": "sleep"})
        chosen = wanted if wanted["action"] in options else {"action": "sleep"}
        return {"type": "night_action", **mine, **chosen}
    if decision == "creature_order":
        return {"type": "order_creatures", **mine, "order": list(reversed(options))}
    if decision == "supply_weapon":
        return {"type": "choose_supply_weapon", **mine, "weapon": options[0]}
    if decision == "hail_damage":
        return {"type": "assign_hail_damage", **mine, "piece": options[0]}
    raise PlanFailed(f"no answer for the decision {decision}")
