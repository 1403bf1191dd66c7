"""Quest Calendar property: random command sequences, stored, rebuild to the live state.

Hypothesis draws the commands and every die face, so a failing sequence shrinks to a small one.
Refused commands change nothing; each accepted command is saved to the real store, and then the
state at every version is loaded back and compared with the state the live aggregate had.
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from typing import Any
from uuid import uuid4

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from domain.model.campaign import Campaign
from domain.model.dice.draw import Draw, commitment_of, new_server_seed
from domain.model.errors import InvalidInput, RuleViolation
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR, book
from domain.service.questlog import Questlog
from tests.unit.quest_calendar.harness import HERO

RULES_QC = RULES[QUEST_CALENDAR]

ITEMS = [
    {"id": "med-kit", "kind": "consumable", "price": 5, "effect": {"kind": "heal", "amount": 5}},
    {"id": "antidote", "kind": "consumable", "effect": {"kind": "cure", "condition": "infected"}},
    {"id": "helmet", "kind": "equipment", "slot": "helmet", "price": 6},
    {"id": "parts", "kind": "ship_parts", "price": 3},
]
PLAY_HERO = {
    **HERO,
    "abilities": [
        {
            "id": "smite",
            "usage": "per_page",
            "context": "combat",
            "effect": {"kind": "damage_bonus", "dice": "1d4"},
        },
        {
            "id": "mend",
            "usage": "per_rest",
            "uses": 2,
            "context": "both",
            "effect": {"kind": "heal", "dice": "1d6"},
        },
        {
            "id": "lock-on",
            "usage": "surge",
            "context": "dogfight",
            "effect": {"kind": "aim_bonus", "dice": "1d20"},
        },
        {
            "id": "jink",
            "usage": "per_rest",
            "uses": 1,
            "context": "dogfight",
            "effect": {"kind": "evasion_bonus", "amount": 10},
        },
    ],
    "pool": {"name": "surges", "max": 2},
    "inventory": ITEMS,
}
SHOP = {
    "type": "enter_shop",
    "shop_id": "market",
    "stock": [{"item": item, "price": item.get("price", 2)} for item in ITEMS],
    "sells_upgrades": True,
}
DOGFIGHT_ROUND = {"evasion_target": 60, "enemy_aim": 50, "damage_reduced": 2, "damage_max": 5}
ROUND = {
    "hit_target": 12,
    "damage_needed": 5,
    "enemy_attack": 12,
    "damage_reduced": 2,
    "damage_full": 5,
}


class DrawnDice:
    """Dice whose faces Hypothesis draws, so failures shrink and replay exactly."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def draw(self, sides: Sequence[int]) -> Draw:
        """One face per die, each in range."""
        faces = [self.data.draw(st.integers(1, n), label=f"d{n}") for n in sides]
        return Draw(faces=faces, source="reported", proof=None)


def start_page(day: int) -> st.SearchStrategy[dict[str, Any]]:
    """Open the page of a day, sometimes a Rest or level-up day."""
    date = f"2027-{1 + day // 28:02d}-{1 + day % 28:02d}"
    return st.builds(
        lambda r, u: {"type": "start_page", "date": date, "rest_day": r, "level_up_day": u},
        st.booleans(),
        st.booleans(),
    )


def commands(day: int) -> st.SearchStrategy[dict[str, Any]]:
    """One command, valid or not; the date moves on so pages can keep starting."""
    trait = st.sampled_from(["STR", "DEX", "CON", "INT", "WIS", "CHA"])
    item = st.sampled_from([i["id"] for i in ITEMS])
    return st.one_of(
        st.just({"type": "end_page"}),
        st.builds(
            lambda t, g: {"type": "trait_check", "trait": t, "target": g}, trait, st.integers(0, 25)
        ),
        st.builds(lambda d: {"type": "change_virtue", "delta": d}, st.integers(-4, 4)),
        st.builds(
            lambda c, r: {"type": "pay", "purpose": "toll", "cost": c, "required": r},
            st.integers(0, 12),
            st.booleans(),
        ),
        st.builds(lambda a: {"type": "gain_credits", "amount": a}, st.integers(1, 8)),
        st.builds(lambda a: {"type": "theft", "amount": a}, st.integers(1, 8)),
        st.just({"type": "play_lottery"}),
        st.builds(
            lambda n, a: {"type": "pickpocket", "icon_id": f"icon-{n}", "accept_four": a},
            st.integers(0, 3),
            st.booleans(),
        ),
        st.just(SHOP),
        st.builds(lambda i: {"type": "buy", "item": i}, item),
        st.builds(lambda i: {"type": "sell", "item": i}, item),
        st.just({"type": "leave_shop"}),
        st.builds(lambda n: {"type": "eat_rations", "count": n}, st.integers(0, 4)),
        st.builds(
            lambda c: {"type": "apply_condition", "condition": c, "source": "x"},
            st.sampled_from(["infected", "malfunction"]),
        ),
        st.builds(lambda i: {"type": "use_item", "item": i}, item),
        st.builds(
            lambda a: {"type": "use_ability", "ability": a}, st.sampled_from(["smite", "mend"])
        ),
        st.builds(lambda i, r: {"type": "equip", "item": i, "replace": r}, item, st.booleans()),
        st.builds(lambda s: {"type": "rest", "restore_stat": s}, st.none() | trait),
        st.builds(lambda s: {"type": "choose_rest_stat", "stat": s}, trait),
        st.builds(lambda t: {"type": "level_up", "max_hp_gain": 2, "trait_points": {t: 2}}, trait),
        st.builds(
            lambda n: {"type": "start_combat", "kind": "several_enemies", "rounds": [ROUND] * n},
            st.integers(1, 3),
        ),
        st.just({"type": "combat_round"}),
        st.just({"type": "resolve_round", "abilities": []}),
        st.builds(
            lambda n: {"type": "dogfight", "rounds": [DOGFIGHT_ROUND] * n}, st.integers(1, 2)
        ),
        st.builds(
            lambda n: {"type": "start_dogfight", "rounds": [DOGFIGHT_ROUND] * n},
            st.integers(1, 3),
        ),
        st.just({"type": "dogfight_round"}),
        st.builds(
            lambda c: {"type": "repair_ship", "compartment": c, "parts": 1}, st.integers(1, 6)
        ),
        st.just({"type": "hire_crew", "crew": {"id": "vex"}, "fee": 2}),
        st.builds(
            lambda c: {"type": "assign_crew", "crew": "vex", "compartment": c}, st.integers(1, 6)
        ),
        st.builds(lambda i: {"type": "choose_loot", "item": i}, item),
        st.builds(
            lambda c: {"type": "decide_pickpocket", "choice": c},
            st.sampled_from(["accept", "refuse"]),
        ),
        st.just({"type": "choose_clone_outcome", "replace": False}),
    )


DECISIONS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "choose_loot": st.builds(
        lambda i: {"type": "choose_loot", "item": i}, st.sampled_from([i["id"] for i in ITEMS])
    ),
    "decide_pickpocket": st.builds(
        lambda c: {"type": "decide_pickpocket", "choice": c}, st.sampled_from(["accept", "refuse"])
    ),
    "choose_clone_outcome": st.just({"type": "choose_clone_outcome", "replace": False}),
    "choose_rest_stat": st.builds(
        lambda t: {"type": "choose_rest_stat", "stat": t},
        st.sampled_from(["STR", "DEX", "CON", "INT", "WIS", "CHA"]),
    ),
    "resolve_round": st.just({"type": "resolve_round", "abilities": []}),
    "resolve_rounds": st.just({"type": "resolve_rounds", "assignments": {}}),
    "boost_attack": st.just({"type": "boost_attack", "abilities": []}),
    "boost_damage": st.just({"type": "boost_damage", "abilities": []}),
    "resolve_dogfight_round": st.builds(
        lambda a: {"type": "resolve_dogfight_round", "abilities": a},
        st.sampled_from([[], ["lock-on"], ["jink"], ["lock-on", "lock-on"], ["smite"]]),
    ),
}


def next_command(state: dict[str, Any], day: int) -> st.SearchStrategy[dict[str, Any]]:
    """Mostly commands that fit the state (a page open, a decision answered), some that do not."""
    pending = state.get("pending")
    if pending:
        fitting = [DECISIONS[c] for c in pending["commands"] if c in DECISIONS]
        if fitting:
            return st.one_of(*fitting) if len(fitting) > 1 else fitting[0]
    if state.get("page") is None:
        return st.integers(0, 9).flatmap(lambda n: commands(day) if n == 9 else start_page(day))
    combat = state["page"].get("combat") or {}
    if combat.get("status") == "in_progress":
        return st.integers(0, 3).flatmap(
            lambda n: st.just({"type": "combat_round"}) if n else commands(day)
        )
    dogfight = state["page"].get("dogfight") or {}
    if dogfight.get("status") == "in_progress":
        return st.integers(0, 3).flatmap(
            lambda n: st.just({"type": "dogfight_round"}) if n else commands(day)
        )
    return commands(day)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_qc_random_commands_rebuild_to_the_live_state_at_every_version(
    app: Questlog, data: st.DataObject
) -> None:
    house = book(QUEST_CALENDAR).resolve(
        {"qc.combat.mode": data.draw(st.sampled_from(["standard", "easy", "hard"]))}
    )
    campaign = Campaign.start(
        campaign_id=uuid4(),
        game=QUEST_CALENDAR,
        name="property",
        house_rules=house,
        commitment=commitment_of(new_server_seed()),
        client_seed="property",
        state=RULES_QC.initial_state({"prologue_complete": True}, house),
    )
    campaign.run_command(
        RULES_QC,
        {"type": "select_hero", "phase": "main", "hero": deepcopy(PLAY_HERO)},
        DrawnDice(data),
    )
    app.save(campaign)
    live = {campaign.version: campaign.view()}
    steps = data.draw(st.integers(5, 40), label="steps")
    for day in range(steps):
        command = data.draw(next_command(campaign.state, day), label="command")
        before = deepcopy(campaign.state)
        try:
            campaign.run_command(RULES_QC, command, DrawnDice(data))
        except (RuleViolation, InvalidInput):
            assert campaign.collect_events() == []
            assert campaign.state == before
            continue
        app.save(campaign)
        live[campaign.version] = campaign.view()
    event(f"accepted commands: {min(len(live) // 5 * 5, 30)}+")
    for version, view in live.items():
        assert app.campaign(campaign.id, version=version).view() == view
    fresh = Questlog(app.config)
    try:
        assert fresh.campaign(campaign.id).view() == live[campaign.version]
    finally:
        fresh.close()
