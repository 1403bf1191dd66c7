"""The demo's Calendar Board match: three players, two days and two nights.

The parties are those of the three-player match the application tests play
(tests/application/cb_match_data.py). The board is a house rule (cb.calendar.layout) chosen for
the story: a supply space right after Start, then hail. The first night's d4 (on server dice)
passes the supply space or lands on it, and the nights land on hail, so hail saves come whatever
the dice say. On the first night A tries a rizz, B ambushes and C sleeps; on the second, C tries
a rizz and the others sleep. An action the rules do not offer at that moment (a rizz with a
partner already, say) becomes a sleep. On the second day B, tired (exhaustion 1 at the start, more
after the ambush), sleeps through the day.
"""

from __future__ import annotations

from typing import Any

from domain.facade import Questlog, samples
from webapi.cli.demo.player import DemoError, Json, Player

NAME = "Demo: a Calendar Board match, two nights"

LAYOUT = samples.DEMO_LAYOUT
"""The board (cb.calendar.layout) from Start to End (see the module docstring for why this one)."""


SETUP: Json = samples.THREE_PLAYERS

NIGHT_PLANS: list[dict[str, str]] = [
    {"A": "rizz", "B": "ambush", "C": "sleep"},
    {"A": "sleep", "B": "sleep", "C": "rizz"},
]
"""What each player wants to do at night, night by night."""

PARTNERS = {"A": "catboyBoyfriend", "C": "catgirlGirlfriend"}
"""Whom a player's rizz is for."""


def play_match(questlog: Questlog, name: str = NAME) -> Player:
    """Create the match and play two days and two nights."""
    match = Player.create(
        questlog,
        game="calendar-board",
        name=name,
        house_rules={"cb.calendar.layout": LAYOUT},
        setup=SETUP,
    )
    # Day 1: every player ends the turn; the last one starts night 1.
    for player in ("A", "B", "C"):
        match.run({"type": "end_turn", "player": player})
    play_night(match, NIGHT_PLANS[0])
    # Day 2: A moves a piece; B, tired, sleeps through the day; C ends the day.
    match.run({"type": "roll_movement", "player": "A", "piece": "a1"})
    play_night(match, NIGHT_PLANS[0])
    match.run({"type": "end_turn", "player": "A"})
    if exhaustion(match, "B") > 0:
        match.run({"type": "day_sleep", "player": "B"})
    else:
        match.run({"type": "end_turn", "player": "B"})
    match.run({"type": "end_turn", "player": "C"})
    play_night(match, NIGHT_PLANS[1])
    return match


def play_night(match: Player, plan: dict[str, str]) -> None:
    """Answer every decision pending (a night's: each player's own night rolls on server dice,
    supply, hail, fate rerolls, night actions by ``plan``) until none is."""
    while match.pending is not None:
        match.run(answer(match.pending, plan))


def answer(pending: Json, plan: dict[str, str]) -> Json:
    """The command that answers one pending decision of the match."""
    decision, who = pending["decision"], pending["who"]
    options: list[Any] = pending.get("options") or []
    if decision == "night_action":
        return night_action(who, plan.get(who, "sleep"), options)
    if decision == "ambush_target":
        first = options[0]
        return {
            "type": "choose_ambush",
            "player": who,
            "piece": first["piece"],
            "target": first["target"],
            "form": "surprise attack",
        }
    if decision == "supply_weapon":
        return {"type": "choose_supply_weapon", "player": who, "weapon": options[0]}
    if decision == "hail_damage":
        return {"type": "assign_hail_damage", "player": who, "piece": options[0]}
    if decision == "fate_reroll":
        return {"type": "decline_fate_reroll", "player": who}
    if decision == "night_roll":
        return {"type": "roll_night", "player": who, "roll": pending["context"]["roll"]}
    if decision == "creature_order":
        return {"type": "order_creatures", "player": who, "order": list(options)}
    raise DemoError(f"the demo cannot answer the decision {decision!r}")


def night_action(player: str, wanted: str, offered: list[str]) -> Json:
    """The player's planned night action if the rules offer it now, else a sleep."""
    action = wanted if wanted in offered else "sleep"
    command: Json = {"type": "night_action", "player": player, "action": action}
    if action == "rizz":
        command["partner"] = PARTNERS.get(player, "catboyBoyfriend")
    return command


def exhaustion(match: Player, player: str) -> int:
    """A party's exhaustion now."""
    return int(match.state["parties"][player]["exhaustion"])
