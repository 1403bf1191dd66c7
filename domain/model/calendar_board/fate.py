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

Fate rerolls are a resource of the main rules (G-CB-01). A match's set-up may give each player a
number of them (``fate_rerolls``); the party then keeps ``fate_rerolls`` (how many are left) and
``fate_rerolls_given`` (the set-up's number). Each one spent takes one off, and ``FateRerollUsed``
records how many are left; a player with none left is not offered one, and their ``fate_reroll`` is
refused under G-CB-01. A reroll refused under CB-10 costs nothing. Without a number (and in a match
stored before fate rerolls were counted) they are not counted: unlimited. The rules do not say
whether the number comes back, so that is the house rule ``cb.fateReroll.refresh``: ``match`` (the
default: the set-up's number lasts the whole match) or ``night`` (every night phase starts with each
counted party back at its set-up's number, ``FateRerollsRestored``).

The module that makes a kind of roll registers what a reroll and a decline do with
``resolver(kind)``; the ``fate_reroll`` command (``steps``) and ``decline_fate_reroll`` (here)
call it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.model.calendar_board import action_events, board_events, night
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import answers
from domain.model.calendar_board.command_fields import player_id
from domain.model.calendar_board.house_rules import FATE_OFFER, FATE_OFFER_BEFORE
from domain.model.command_schema import Values, takes
from domain.model.events.payload import ABSENT
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context, Refusal

rules = RULES[CALENDAR_BOARD]
rules.declare(
    action_events.FateRerollUsed,
    board_events.FateRerollDeclined,
    board_events.FateRerollsRestored,
)

FATE_DECISION = "fate_reroll"
REROLLABLE = ("ambush", "rizz", "hail")
"""The kinds of roll a fate reroll can touch (G-CB-12): a party's own night rolls, the ambush d6,
the rizz contest and the hail save, each offered right after it is made and rerolled by its
resolver. The environmental rolls (calendar and wind, CB-10; basketball and Annustaria) never
are, and ``cb.fateReroll.forbidden`` may exclude more."""
FATE_COMMANDS = ["fate_reroll", "decline_fate_reroll"]
REFRESH = "cb.fateReroll.refresh"
REFRESH_DEFAULT = "match"
"""A match stored before the house rule existed has no value for it: the default applies."""
Resolve = Callable[[Context, dict[str, Any], bool], None]
"""What happens after the decision: (ctx, the decision's context, whether to reroll)."""
RESOLVERS: dict[str, Resolve] = {}


def resolver(kind: str) -> Callable[[Resolve], Resolve]:
    """Register what a fate reroll (or its decline) of one kind of night roll does."""

    def register(function: Resolve) -> Resolve:
        RESOLVERS[kind] = function
        return function

    return register


def allowed(ctx: Context, kind: str, player: str) -> bool:
    """G-CB-12, G-CB-01: whether the house rules let a fate reroll touch this kind of roll, and
    the player has one left to spend on it."""
    return (
        kind not in ctx.house["cb.fateReroll.forbidden"]
        and none_left(ctx.state, ctx.house, player) is None
    )


def worth_offering(ctx: Context, could_change: bool) -> bool:
    """G-CB-12, ``cb.fateReroll.offer``: whether to offer a reroll of a failed or missed roll;
    under ``useful`` only when another face could change the outcome."""
    return could_change or ctx.house.get(FATE_OFFER, FATE_OFFER_BEFORE) == "always"


def left(party: Mapping[str, Any]) -> int | None:
    """How many fate rerolls a party has left; None when they are not counted (unlimited)."""
    count: int | None = party.get("fate_rerolls")
    return count


def none_left(state: Mapping[str, Any], house: Mapping[str, Any], player: str) -> Refusal | None:
    """G-CB-01: the refusal of a fate reroll by a player who has none left, else None."""
    party = state["parties"][player]
    if left(party) != 0:
        return None
    if house.get(REFRESH, REFRESH_DEFAULT) == "night":
        until = "until the next night phase"
    else:
        until = f"(the match gave them {party.get('fate_rerolls_given')}, for the whole match)"
    return ("G-CB-01", f"{player} has no fate reroll left {until}")


def nothing_to_reroll(kind: str | None = None) -> Refusal:
    """G-CB-12: the refusal of a fate reroll while no decision is pending, so no roll of the
    party's is on offer to reroll."""
    roll = f"{kind} roll" if kind else "roll"
    return (
        "G-CB-12",
        f"no {roll} is on offer to fate-reroll: a fate reroll is spent on the party's own night "
        "roll just made, when the night offers one",
    )


def spend(ctx: Context, player: str) -> int | None:
    """G-CB-01: take one of the player's fate rerolls; the number left (None: not counted)."""
    refusal = none_left(ctx.state, ctx.house, player)
    if refusal is not None:
        ctx.refuse(*refusal)
    party = ctx.state["parties"][player]
    count = left(party)
    if count is None:
        return None
    party["fate_rerolls"] = count - 1
    return count - 1


def restore_at_night(ctx: Context) -> None:
    """House rule ``cb.fateReroll.refresh`` = ``night``: each counted party starts the night
    phase with the number of fate rerolls its set-up gave."""
    if ctx.house.get(REFRESH, REFRESH_DEFAULT) != "night":
        return
    restored: dict[str, int] = {}
    for player in ctx.state["players"]:
        party = ctx.state["parties"][player]
        given = party.get("fate_rerolls_given")
        if given is not None and left(party) != given:
            party["fate_rerolls"] = given
            restored[player] = given
    if restored:
        ctx.emit(
            board_events.FateRerollsRestored(night_number=ctx.state["nights"], players=restored)
        )


night.NIGHT_START_HOOKS.append(restore_at_night)


def offer(ctx: Context, *, player: str, kind: str, context: dict[str, Any]) -> bool:
    """Stop at a fate-reroll decision for the roll just made; False if the house forbids it or
    the player has no fate reroll left.

    Call it only when a reroll could change the outcome; ``context`` carries what the resolver
    needs to apply the consequences afterwards.
    """
    if not allowed(ctx, kind, player):
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
    remaining = spend(ctx, player)
    ctx.emit(
        action_events.FateRerollUsed(
            player=player,
            roll=kind,
            roll_id=ABSENT if original is None else original,
            at="night",
            left=remaining,
        )
    )
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
    schema=takes(None, player=player_id()),
    available=answers("G-CB-12", FATE_DECISION),
    rules=("CB-10", "G-CB-12"),
    resolves=(FATE_DECISION,),
)
def decline_fate_reroll(ctx: Context, args: Values) -> None:
    """G-CB-12: the first result stands; the night goes on from it."""
    player = args["player"]
    pending = cb.require_decision(ctx, FATE_DECISION, player, "G-CB-12")
    cb.party(ctx, player)
    context = pending["context"]
    ctx.emit(
        board_events.FateRerollDeclined(
            player=player, roll=context["roll"], roll_id=context["roll_id"]
        )
    )
    RESOLVERS[context["roll"]](ctx, context, False)
    night.advance(ctx)
