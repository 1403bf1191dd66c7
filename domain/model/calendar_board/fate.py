"""Fate rerolls on a party's own night rolls (CB-10, G-CB-12).

The rolls a player makes for their own party at night (the hail save, the ambush d6, the rizz
contest) may be fate-rerolled; the environmental ones (calendar, wind, basketball, Annustaria) may
not, and ``cb.fateReroll.forbidden`` lists which kinds are excluded. After such a roll, when a
fate reroll could change its outcome, the night stops at a ``fate_reroll`` decision before the
consequences are rolled or applied: the player answers ``fate_reroll`` (the die is rolled again,
and the new result stands) or ``decline_fate_reroll`` (the first result stands).

A roll is fate-rerolled at most once. The new roll is recorded with ``fate_reroll_of`` naming the
roll it replaces, and a ``FateRerollUsed`` event before it says whose fate reroll was spent, so the
roll log and the audit show it as that roll's fate reroll, never as an unexplained second roll.

The module that makes a kind of roll registers what a reroll and a decline do with
``resolver(kind)``; the ``fate_reroll`` command (``steps``) and ``decline_fate_reroll`` (here)
call it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.model.calendar_board import night
from domain.model.calendar_board import state as cb
from domain.model.command_schema import Values
from domain.model.engine import Context, event_type
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD

rules = RULES[CALENDAR_BOARD]
rules.declare(
    event_type(
        "FateRerollDeclined",
        "A player declined a fate reroll.",
        {
            "player": "string: the player concerned",
            "roll": "string: which kind of roll",
            "roll_id": "string: the roll kept",
        },
    ),
)

FATE_DECISION = "fate_reroll"
FATE_COMMANDS = ["fate_reroll", "decline_fate_reroll"]
Resolve = Callable[[Context, dict[str, Any], bool], None]
"""What happens after the decision: (ctx, the decision's context, whether to reroll)."""
RESOLVERS: dict[str, Resolve] = {}


def resolver(kind: str) -> Callable[[Resolve], Resolve]:
    """Register what a fate reroll (or its decline) of one kind of night roll does."""

    def register(function: Resolve) -> Resolve:
        RESOLVERS[kind] = function
        return function

    return register


def allowed(ctx: Context, kind: str) -> bool:
    """G-CB-12: whether the house rules let a fate reroll touch this kind of roll."""
    return kind not in ctx.house["cb.fateReroll.forbidden"]


def offer(ctx: Context, *, player: str, kind: str, context: dict[str, Any]) -> bool:
    """Stop at a fate-reroll decision for the roll just made; False if the house forbids it.

    Call it only when a reroll could change the outcome; ``context`` carries what the resolver
    needs to apply the consequences afterwards.
    """
    if not allowed(ctx, kind):
        return False
    details = {"roll": kind, "roll_id": ctx.last_roll_id, "player": player, **context}
    cb.ask(
        ctx,
        decision=FATE_DECISION,
        who=player,
        rule="G-CB-12",
        commands=list(FATE_COMMANDS),
        options=["fate_reroll", "decline"],
        context=details,
    )
    return True


def reroll(ctx: Context, notation: str, purpose: str, player: str, context: dict[str, Any]) -> int:
    """Spend the player's fate reroll on the roll named in ``context`` and roll it again.

    Returns the new total; it stands (CB-10: no second reroll of the same roll).
    """
    kind = context["roll"]
    original = context.get("roll_id")
    ctx.emit("FateRerollUsed", player=player, roll=kind, roll_id=original, at="night")
    label = f"{purpose} (fate reroll of {original})" if original else f"{purpose} (fate reroll)"
    record = ctx.roll(notation, label, fate_reroll_of=original)
    total: int = record["total"]
    return total


def night_reroll(ctx: Context, player: str, kind: str) -> None:
    """The ``fate_reroll`` command while a night decision offers it."""
    pending = ctx.state["pending"]
    context = dict(pending["context"])
    if pending["decision"] == FATE_DECISION:
        cb.require_decision(ctx, FATE_DECISION, player, "G-CB-12")
    else:
        cb.require_decision(ctx, pending["decision"], player, pending["rule"])
        context.setdefault("player", player)
    if context.get("roll") != kind:
        ctx.refuse("G-CB-12", f"the roll offered for a fate reroll is the {context['roll']} roll")
    RESOLVERS[kind](ctx, context, True)
    night.advance(ctx)


@rules.command(
    "decline_fate_reroll",
    summary="After a party's own night roll: keep the result and let its consequences follow "
    "(instead of spending a fate reroll on it).",
    example={"type": "decline_fate_reroll", "player": "A"},
    rules=("CB-10", "G-CB-12"),
    resolves=(FATE_DECISION,),
)
def decline_fate_reroll(ctx: Context, args: Values) -> None:
    """G-CB-12: the first result stands; the night goes on from it."""
    player = args["player"]
    cb.party(ctx, player)
    pending = cb.require_decision(ctx, FATE_DECISION, player, "G-CB-12")
    context = pending["context"]
    ctx.emit("FateRerollDeclined", player=player, roll=context["roll"], roll_id=context["roll_id"])
    RESOLVERS[context["roll"]](ctx, context, False)
    night.advance(ctx)
