"""The night's rolls, each made by the player whose roll it is (CB-06, CB-09, CB-28, CB-30,
G-CB-08).

The rulebook gives the night's environmental rolls to the god-token holder ("The player with the
god token rolls a d4") and each hail save to the player who owes it. Under the house rule
``cb.night.rolls`` = ``players`` (the default) a night step that reaches such a roll stops at a
``night_roll`` decision for that player; the player answers ``roll_night`` as their own command,
with the server's dice (and their entropy) or their own dice entered as ``faces``, and the step
goes on from the result. Under ``automatic`` the command that reaches the roll makes it, as a
table at one screen may prefer; a match whose house rules predate the rule plays that way, as it
always did.

A module that makes one of these rolls registers what the roll does with ``roller(kind)``; the
roller makes the roll through ``Context.roll`` and returns whether its night step is finished
(True) or must run again to carry on from the progress it keeps (False).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.model.calendar_board import night
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import answers
from domain.model.calendar_board.command_fields import player_id
from domain.model.calendar_board.house_rules import NIGHT_ROLLS, NIGHT_ROLLS_BEFORE
from domain.model.command_schema import Values, takes
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context
from domain.model.schema_fields import text

rules = RULES[CALENDAR_BOARD]

NIGHT_ROLL = "night_roll"
KINDS: dict[str, tuple[str, str]] = {
    "calendar": ("1d4", "CB-09"),
    "basketball": ("2d20", "CB-06"),
    "hail_save": ("1d20", "CB-28"),
    "hail_damage": ("1d4", "CB-28"),
    "wind": ("1d20", "CB-30"),
    "annustaria": ("1d20", "G-CB-08"),
}
"""Each kind of night roll: its dice and the rule that gives it to a player."""

Roller = Callable[[Context, Mapping[str, Any]], bool]
"""Make a night roll asked by a decision (its context); True when the night step is finished."""
ROLLERS: dict[str, Roller] = {}


def roller(kind: str) -> Callable[[Roller], Roller]:
    """Register what rolling one kind of night roll does."""

    def register(function: Roller) -> Roller:
        ROLLERS[kind] = function
        return function

    return register


def by_players(house: Mapping[str, Any]) -> bool:
    """Whether the night's rolls are asked of the players (``cb.night.rolls``)."""
    return bool(house.get(NIGHT_ROLLS, NIGHT_ROLLS_BEFORE) == "players")


def ask(ctx: Context, kind: str, player: str, **context: Any) -> bool:
    """Stop the night for ``player`` to make a ``kind`` roll; False (nothing asked) when the
    house rules have the rolls made automatically."""
    if not by_players(ctx.house):
        return False
    notation, rule = KINDS[kind]
    cb.ask(
        ctx,
        decision=NIGHT_ROLL,
        who=player,
        rule=rule,
        commands=["roll_night"],
        options=[kind],
        context={"roll": kind, "notation": notation, "player": player, **context},
    )
    return True


@rules.command(
    "roll_night",
    summary="The player whose night roll it is makes it (the god-token holder's calendar d4, "
    "wind d20, basketball shot and Annustaria Breaker check; a player's own hail save and its "
    "damage), with the server's dice or their own faces; the night goes on from the result.",
    example={"type": "roll_night", "player": "A", "roll": "calendar", "faces": [3]},
    schema=takes(
        "The asked roll's dice: d4 (calendar), d20 (wind), 2d20 (basketball), d20 (hail save), "
        "d4 (hail damage) or d20 (Annustaria Breaker check); faces in that order.",
        player=player_id(
            "The player whose roll it is: the god-token holder, or the player "
            "who owes the hail save."
        ),
        roll=text(
            "The night roll asked for (the pending night_roll decision's context.roll).",
            required=True,
            choices=tuple(KINDS),
        ),
    ),
    available=answers("CB-09", NIGHT_ROLL),
    rules=("CB-06", "CB-09", "CB-28", "CB-30", "G-CB-08"),
    resolves=(NIGHT_ROLL,),
)
def roll_night(ctx: Context, args: Values) -> None:
    """The asked player makes the asked roll; its step finishes or carries on from it."""
    player = args["player"]
    kind = args["roll"]
    pending = ctx.state.get("pending") or {}
    rule = KINDS[kind][1]
    asked = (pending.get("context") or {}).get("roll")
    if pending.get("decision") == NIGHT_ROLL and asked != kind:
        ctx.refuse(str(pending.get("rule", rule)), f"the roll asked for is the {asked} roll")
    context = cb.require_decision(ctx, NIGHT_ROLL, player, rule)["context"]
    cb.party(ctx, player)
    if ROLLERS[kind](ctx, context):
        ctx.state["night"]["index"] += 1
    night.advance(ctx)
