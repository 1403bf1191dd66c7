"""Quest Calendar: the commands ``GET /actions`` offers are the ones the handlers accept.

Seeded walks through campaigns of the sample heroes (QC-02, QC-04, QC-05), with the week's rounds,
shop and crew (tests/application/qc_week_data.py): at every state each command is tried with the
bodies the state allows (``tests/unit/availability_walk.py``). Rules held: QC-02 (a hero first),
QC-17 (one page at a time), QC-20 / QC-69 (fights), QC-57..QC-59 (shops), QC-51 / QC-53 (Rest and
level-up days), QC-64 (equipment), QC-66 (lottery), QC-77..QC-83 (ship), and every decision answer
(QC-39, QC-46, QC-48, QC-52, the combat and dogfight rounds) only while its decision is pending.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

import domain.model.quest_calendar  # noqa: F401  (registers the game)
from domain.model import samples
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR, book
from tests.application.qc_week_data import DOGFIGHT_ROUNDS, MONDAY_ROUNDS, SHOP, VEX
from tests.unit.availability_walk import Json, Walk, example_body, untried

RULES_QC = RULES[QUEST_CALENDAR]
UPGRADE: Json = {"id": "hull-plate", "name": "Hull Plate", "kind": "upgrade", "price": 4}
WEAK: Json = {
    "enemy": "Training drone",
    "hit_target": 2,
    "damage_needed": 1,
    "enemy_attack": 1,
    "damage_reduced": 0,
    "damage_full": 1,
}


PARTS: Json = {"id": "ship-parts", "name": "Ship Parts", "kind": "ship_parts"}


def _left(state: Json) -> int:
    return len(_page(state).get("shops_left", []))


def _new_crew_id(state: Json) -> str:
    ship = state["ship"]
    taken = {c["crew"]["id"] for c in ship["compartments"].values() if c.get("crew")}
    taken |= {c["id"] for c in ship.get("unassigned_crew", [])}
    return next(f"crew-{n}" for n in range(100) if f"crew-{n}" not in taken)


def _page(state: Json) -> Json:
    return state.get("page") or {}


def _hero(state: Json) -> Json:
    return state.get("hero") or {"inventory": [], "abilities": {}, "equipped": {}, "injuries": []}


def _next_date(state: Json, house: Json) -> str:
    last = state["calendar"].get("last_date")
    if last is None:
        return f"{house['qc.calendar.year']:04d}-01-04"
    return (dt.date.fromisoformat(last) + dt.timedelta(days=1)).isoformat()


def _pending_options(state: Json, decision: str) -> list[Any]:
    pending = state.get("pending") or {}
    options = pending.get("options")
    return list(options) if pending.get("decision") == decision and options else []


def _injured(state: Json) -> list[str]:
    return sorted({injury["stat"] for injury in _hero(state)["injuries"]})


BODIES = {
    "select_hero": lambda s, h: [
        # wearing nothing at first, so that the walk has gear to equip and sell
        {"phase": "prologue", "hero": {**samples.VANGUARD, "equipped": []}},
        {"phase": "main", "hero": samples.SCOUT},
    ],
    "start_page": lambda s, h: [
        {"date": _next_date(s, h)},
        {"date": _next_date(s, h), "rest_day": True, "prologue_end": True},
        {"date": _next_date(s, h), "level_up_day": True},
    ],
    "end_page": lambda s, h: [{}],
    "change_virtue": lambda s, h: [{"delta": 1}],
    "trait_check": lambda s, h: [{"trait": "STR", "target": 12}],
    "use_item": lambda s, h: (
        [
            {
                "item": i["id"],
                **(
                    {"stat": _injured(s)[0]}
                    if i["effect"].get("kind") == "remove_injury" and _injured(s)
                    else {}
                ),
            }
            for i in _hero(s)["inventory"]
            if i["kind"] == "consumable"
        ]
        or [{"item": "med-kit"}]
    ),
    "use_ability": lambda s, h: (
        [
            {
                "ability": a,
                **(
                    {"on_roll": 0}
                    if spec["effect"].get("kind") in ("check_bonus", "reroll")
                    else {}
                ),
                **(
                    {"stat": _injured(s)[0]}
                    if spec["effect"].get("kind") == "remove_injury" and _injured(s)
                    else {}
                ),
            }
            for a, spec in _hero(s)["abilities"].items()
        ]
        or [{"ability": "smite"}]
    ),
    "apply_condition": lambda s, h: [{"condition": "malfunction"}],
    "make_choice": lambda s, h: [
        {"choice": f"c{len(_page(s).get('choices', {}))}", "options": ["1"], "selected": ["1"]}
    ],
    "start_combat": lambda s, h: [
        {"kind": "one_enemy", "mode": "standard", "rounds": [WEAK]},
        {"kind": "several_enemies", "mode": "easy", "rounds": MONDAY_ROUNDS},
        {"kind": "one_enemy", "mode": "hard", "rounds": [WEAK, WEAK]},
    ],
    "combat_round": lambda s, h: [{}],
    "resolve_round": lambda s, h: [{"abilities": []}],
    "resolve_rounds": lambda s, h: [{"assignments": {}}],
    "boost_attack": lambda s, h: [{"abilities": []}],
    "boost_damage": lambda s, h: [{"abilities": []}],
    "choose_loot": lambda s, h: (
        [{"item": o["item"]} for o in _pending_options(s, "clone_loot")] or [{"item": "visor"}]
    ),
    "choose_clone_outcome": lambda s, h: [{"replace": False}],
    "rest": lambda s, h: [{}, *({"restore_stat": stat} for stat in _injured(s))],
    "choose_rest_stat": lambda s, h: (
        [{"stat": o} for o in _pending_options(s, "rest_injury")] or [{"stat": "STR"}]
    ),
    "level_up": lambda s, h: [{"trait_points": {"STR": 2}, "max_hp_gain": 2}],
    "dogfight": lambda s, h: [{"enemies": ["raider"], "rounds": DOGFIGHT_ROUNDS[:1]}],
    "start_dogfight": lambda s, h: [{"enemies": ["raider"], "rounds": DOGFIGHT_ROUNDS[:2]}],
    "dogfight_round": lambda s, h: [{}],
    "resolve_dogfight_round": lambda s, h: [{"abilities": []}],
    "pickpocket": lambda s, h: [{"icon_id": f"icon-{len(_hero(s).get('pickpocketed_icons', []))}"}],
    "decide_pickpocket": lambda s, h: [{"choice": "refuse"}],
    "pay": lambda s, h: [{"purpose": "toll", "cost": 1, "required": True}],
    "gain_credits": lambda s, h: [{"amount": 3}],
    "theft": lambda s, h: [{"amount": 1}],
    "eat_rations": lambda s, h: [{"count": 1}],
    "play_lottery": lambda s, h: [{}],
    "enter_shop": lambda s, h: [
        {**{k: v for k, v in SHOP.items() if k != "type"}, "shop_id": f"dock-{_left(s)}"},
        {
            "shop_id": f"yard-{_left(s)}",
            "stock": [{"item": UPGRADE, "price": 4}],
            "sells_upgrades": True,
        },
    ],
    "buy": lambda s, h: (
        [{"item": i} for i in ((_page(s).get("shop") or {}).get("stock") or {})]
        or [{"item": "med-kit"}]
    ),
    "sell": lambda s, h: (
        [
            {"item": i}
            for i in sorted(
                {x["id"] for x in _hero(s)["inventory"]}
                | set((_page(s).get("shop") or {}).get("stock") or {})
            )
        ]
        or [{"item": "visor"}]
    ),
    "leave_shop": lambda s, h: [{}],
    "gain_item": lambda s, h: [{"item": samples.VISOR}, {"item": samples.MED_KIT}, {"item": PARTS}],
    "equip": lambda s, h: (
        [
            {"item": i["id"], "replace": True}
            for i in _hero(s)["inventory"]
            if i["kind"] == "equipment"
        ]
        or [{"item": "visor"}]
    ),
    "unequip": lambda s, h: (
        [{"item": i} for i in _hero(s)["equipped"].values()] or [{"item": "visor"}]
    ),
    "repair_ship": lambda s, h: [
        {"compartment": int(key), "parts": 1} for key in sorted(s["ship"]["compartments"])
    ],
    "hire_crew": lambda s, h: [{"crew": {**VEX, "id": _new_crew_id(s), "abilities": []}, "fee": 0}],
    "assign_crew": lambda s, h: (
        [
            {"crew": c["id"], "compartment": int(key)}
            for c in s["ship"].get("unassigned_crew", [])
            for key in sorted(s["ship"]["compartments"])
        ]
        or [{"crew": "vex", "compartment": 1}]
    ),
    "install_upgrade": lambda s, h: [
        {"upgrade": UPGRADE, "compartment": k, "replace": True} for k in range(1, 7)
    ],
    "sell_upgrade": lambda s, h: (
        [{"upgrade": i["id"]} for i in _hero(s)["inventory"] if i["kind"] == "upgrade"]
        or [{"upgrade": "hull-plate"}]
    ),
}


GO_ON = ("select_hero", "combat_round", "dogfight_round", "play_lottery", "level_up", "rest")
"""Commands the walk runs whenever it can, so that fights and special days are played out."""


def go_on(state: Json, runnable: list[Json]) -> Json | None:
    """The first runnable command of ``GO_ON`` (a hero is chosen once), else a random one."""
    for name in GO_ON:
        if name == "select_hero" and state.get("hero") is not None:
            continue
        found = [body for body in runnable if body["type"] == name]
        if found:
            return found[0]
    return None


def test_every_command_has_bodies() -> None:
    """The walk tries every command of the game: with the bodies built for it from the state, or
    else with its registered example, which its schema accepts; every builder is a command's."""
    assert set(BODIES) <= set(RULES_QC.commands)
    assert untried(RULES_QC, BODIES) == []


def test_a_command_without_bodies_is_tried_with_its_example() -> None:
    """A new command needs no entry in BODIES: the walk tries its example at every state."""
    house = book(QUEST_CALENDAR).resolve({})
    state = RULES_QC.initial_state({"prologue_complete": False}, house)
    builders = {name: build for name, build in BODIES.items() if name != "theft"}
    walk = Walk(RULES_QC, house, builders, seed=1)
    assert walk.bodies_at("theft", state) == [{"amount": 5}] == [example_body(RULES_QC, "theft")]
    assert untried(RULES_QC, builders) == []
    assert walk.bodies_at("pay", state) == BODIES["pay"](state, house)
    walk.check(state, 0)
    assert walk.problems == [] and walk.seen["theft"] == {False}


@pytest.mark.parametrize(
    ("seed", "steps"), [(1, 150), pytest.param(2, 300, marks=pytest.mark.slow)]
)
def test_available_commands_run_and_unavailable_ones_are_refused(seed: int, steps: int) -> None:
    """At every state of the walk each command's availability agrees with its handler."""
    house = book(QUEST_CALENDAR).resolve({"qc.hp.capAtMax": True})
    state = RULES_QC.initial_state({"prologue_complete": False}, house)
    walk = Walk(RULES_QC, house, BODIES, seed)
    walk.run(state, steps, go_on)
    assert walk.problems == []
    never = {name for name, seen in walk.seen.items() if seen == {False}}
    answers = {name for name, spec in RULES_QC.commands.items() if spec.resolves}
    # A walk of random pages need not reach every decision, a shop that buys upgrades or a
    # Sunday after the prologue.
    assert never <= answers | {"unequip", "sell_upgrade", "play_lottery"}, never
