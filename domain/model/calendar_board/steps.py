"""Night steps 2, 3, 4 and 7, and fate rerolls.

Rules CB-04..CB-07 (creatures, relationship decay, basketball, Annustaria upkeep) and CB-10 (fate
rerolls). What a creature does at night, what a made basketball shot does and what an Annustaria
check does belong to the main rules (G-CB-01, G-CB-05, G-CB-07, G-CB-08): they plug in through the
hooks below, which do nothing by default. Movement rolls and the actions Fog forbids are in
``day_actions``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.model.calendar_board import action_events, fate, night, night_rolls
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import State, answers
from domain.model.calendar_board.command_fields import player_id
from domain.model.calendar_board.night import step
from domain.model.command_schema import Values, takes
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import integer, items, picks, text

rules = RULES[CALENDAR_BOARD]


rules.declare(
    action_events.CreatureOrderChosen,
    action_events.NightCreatureActed,
    action_events.PartnerLost,
    action_events.BasketballShotRolled,
    action_events.AnnustarDamageValueChanged,
    action_events.AnnustariaBreakerChecked,
)

CreatureBehaviour = Callable[[Context, dict[str, Any]], None]
RollHook = Callable[[Context, dict[str, Any]], None]
# G-CB-05: creature type -> its night behaviour (creature.<type>.nightBehaviour); none by default.
NIGHT_BEHAVIOURS: dict[str, CreatureBehaviour] = {}
# G-CB-07 / G-CB-08: effects of a made shot and of an Annustaria check, given the event details.
BASKETBALL_MADE_HOOKS: list[RollHook] = []
ANNUSTARIA_CHECK_HOOKS: list[RollHook] = []

CREATURE_DECISION = "creature_order"


# -- step 2: night creatures ---------------------------------------------------------------------


def creature_groups(ctx: Context) -> list[list[Any]]:
    """G-CB-05: night-active creatures as [type, [ids]], in ``cb.night.creatureOrder`` then A-Z."""
    by_type: dict[str, list[str]] = {}
    for creature in ctx.state["creatures"]:
        if creature["night_active"]:
            by_type.setdefault(creature["type"], []).append(creature["id"])
    listed = [t for t in dict.fromkeys(ctx.house["cb.night.creatureOrder"]) if t in by_type]
    others = sorted(t for t in by_type if t not in listed)
    return [[kind, by_type[kind]] for kind in [*listed, *others]]


@step("creatures")
def creatures(ctx: Context) -> bool:
    """CB-04: creatures act type by type; the god-token holder orders several of one type."""
    data = night.step_data(ctx, "creatures")
    if "groups" not in data:
        data.update(groups=creature_groups(ctx), next=0, acted=0)
    while data["next"] < len(data["groups"]):
        kind, ids = data["groups"][data["next"]]
        chosen: dict[str, Any] = {}
        if len(ids) > 1:
            if "chosen" not in data:
                _ask_creature_order(ctx, kind, ids)
                return False
            chosen = data.pop("chosen")
        for creature_id in chosen.get("order", ids):
            data["acted"] += 1
            extra = {"chosen_by": chosen["by"]} if chosen else {}
            ctx.emit(
                action_events.NightCreatureActed(
                    creature_id=creature_id, creature_type=kind, order_index=data["acted"], **extra
                )
            )
            behaviour = NIGHT_BEHAVIOURS.get(kind)
            if behaviour is not None:
                creature = next(c for c in ctx.state["creatures"] if c["id"] == creature_id)
                behaviour(ctx, creature)
        data["next"] += 1
    return True


def _ask_creature_order(ctx: Context, kind: str, ids: list[str]) -> None:
    holder = ctx.state["god_token"]
    context = {"creature_type": kind}
    cb.ask(
        ctx,
        decision=CREATURE_DECISION,
        who=holder,
        rule="CB-04",
        commands=["order_creatures"],
        options=ids,
        context=context,
    )


@rules.command(
    "order_creatures",
    summary="The god-token holder orders the night creatures of one type (every id once).",
    example={"type": "order_creatures", "player": "B", "order": ["zombie-2", "zombie-1"]},
    schema=takes(
        None,
        player=player_id("The god-token holder."),
        order=items(
            "The creature ids of one type, each once, in the order they act.",
            required=True,
            item=picks(
                text("A creature id.", required=True, max_length=80),
                "/creatures",
                value="id",
                label="type",
            ),
        ),
    ),
    available=answers("CB-04", CREATURE_DECISION),
    rules=("CB-04",),
    resolves=(CREATURE_DECISION,),
)
def order_creatures(ctx: Context, args: Values) -> None:
    """CB-04: the holder picks the order in which creatures of one type act."""
    player = args["player"]
    order = args["order"]
    pending = cb.require_decision(ctx, CREATURE_DECISION, player, "CB-04")
    cb.party(ctx, player)
    options: list[str] = pending["options"]
    if sorted(order) != sorted(options):
        raise NotHeld("order", f"must list each of {', '.join(options)} exactly once")
    night.step_data(ctx, "creatures")["chosen"] = {"order": order, "by": player}
    ctx.emit(
        action_events.CreatureOrderChosen(
            player=player, creature_type=pending["context"]["creature_type"], order=order
        )
    )
    night.advance(ctx)


# -- step 3: relationship decay ------------------------------------------------------------------


@step("decay")
def decay(ctx: Context) -> bool:
    """CB-05, G-CB-06: every partner relationship loses 1 (floored); at breakupAt it ends."""
    floor = ctx.house["cb.relationship.floor"]
    breakup_at = ctx.house["cb.relationship.breakupAt"]
    for player in ctx.state["players"]:
        party = ctx.state["parties"][player]
        partner = party["partner"]
        if partner is None:
            continue
        before = party["relationship"]
        party["relationship"] = max(before - 1, min(before, floor))
        after = party["relationship"]
        if after != before:
            ctx.emit(
                action_events.RelationshipChanged(
                    party=player, partner_type=partner, from_=before, to=after, cause="nightlyDecay"
                )
            )
        if breakup_at is not None and after <= breakup_at:
            party["partner"] = None
            party["relationship"] = None
            reason = "relationshipZero" if after == 0 else "relationshipAtBreakup"
            ctx.emit(action_events.PartnerLost(party=player, partner_type=partner, reason=reason))
    return True


# -- step 4: basketball ---------------------------------------------------------------------------


@step("basketball")
def basketball(ctx: Context) -> bool:
    """CB-06, G-CB-07: the holder rolls 2d20; the shot is made at the threshold or above."""
    if night_rolls.ask(ctx, "basketball", ctx.state["god_token"]):
        return False
    return basketball_rolled(ctx, {})


@night_rolls.roller("basketball")
def basketball_rolled(ctx: Context, context: Mapping[str, Any]) -> bool:
    """CB-06: the shot's two d20 and whether it is made; the step is then finished."""
    holder = ctx.state["god_token"]
    roll = ctx.roll("2d20", "basketball")
    first, second = (die["face"] for die in roll["dice"])
    total = first + second
    details = {
        "holder": holder,
        "d20a": first,
        "d20b": second,
        "total": total,
        "threshold": ctx.house["cb.basketball.threshold"],
        "made": total >= ctx.house["cb.basketball.threshold"],
    }
    ctx.emit(action_events.BasketballShotRolled(**details))
    if details["made"]:
        for hook in BASKETBALL_MADE_HOOKS:
            hook(ctx, details)
    return True


# -- step 7: Annustaria Breaker upkeep ------------------------------------------------------------


@step("annustaria")
def annustaria(ctx: Context) -> bool:
    """CB-07, G-CB-08: checks at the maximum (value kept), else count down to 0."""
    value = ctx.state["annustar"]
    maximum = ctx.house["cb.annustaria.max"]
    made = ctx.state["night"]["data"].get("annustaria", {}).get("made", 0)
    if value >= maximum or made:
        checks = ctx.house["cb.annustaria.checksPerNight"]
        for check in range(made + 1, checks + 1):
            if night_rolls.ask(ctx, "annustaria", ctx.state["god_token"], check=check):
                return False
            annustaria_check(ctx, check)
    elif value > 0:
        ctx.state["annustar"] = value - 1
        ctx.emit(
            action_events.AnnustarDamageValueChanged(
                from_=value, to=value - 1, cause="nightlyDecrement"
            )
        )
    return True


def annustaria_check(ctx: Context, check: int) -> None:
    """G-CB-08: one Annustaria Breaker check by the god-token holder; the value is kept."""
    checks = ctx.house["cb.annustaria.checksPerNight"]
    target = ctx.house["cb.annustaria.checkTarget"]
    face = ctx.roll("1d20", "annustaria breaker check")["total"]
    details = {
        "holder": ctx.state["god_token"],
        "value": ctx.state["annustar"],
        "die_value": face,
        "target": target,
        "passed": face >= target,
        "check": check,
        "checks": checks,
    }
    ctx.emit(action_events.AnnustariaBreakerChecked(**details))
    for hook in ANNUSTARIA_CHECK_HOOKS:
        hook(ctx, details)


@night_rolls.roller("annustaria")
def annustaria_rolled(ctx: Context, context: Mapping[str, Any]) -> bool:
    """G-CB-08: a check asked of the holder; the step runs again for any check still to make."""
    night.step_data(ctx, "annustaria")["made"] = context["check"]
    annustaria_check(ctx, context["check"])
    return False


@rules.command(
    "raise_annustar",
    summary="A main-rules effect changes the Annustar damage value (kept within 0..max).",
    example={"type": "raise_annustar", "amount": 3, "cause": "annustar strike"},
    schema=takes(
        None,
        amount=integer(
            "The change in Annustar damage.", required=True, minimum=-1000, maximum=1000
        ),
        cause=text("The main-rules effect that changes it.", required=True),
    ),
    rules=("CB-07",),
)
def raise_annustar(ctx: Context, args: Values) -> None:
    """CB-07, G-CB-08: the value rises (or falls, for a negative amount), clamped to 0..max."""
    amount = args["amount"]
    cause = args["cause"]
    before = ctx.state["annustar"]
    ctx.state["annustar"] = max(0, min(before + amount, ctx.house["cb.annustaria.max"]))
    ctx.emit(
        action_events.AnnustarDamageValueChanged(
            from_=before, to=ctx.state["annustar"], cause="external", amount=amount, effect=cause
        )
    )


# -- fate rerolls ---------------------------------------------------------------------------------


def can_fate_reroll(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """With no decision pending (a decision that offers one accepts it): refused, under CB-10
    when the house rules forbid a fate reroll on every kind of roll, G-CB-01 when the player whose
    turn it is has none left, else G-CB-12, since no roll is on offer to reroll."""
    if set(fate.REROLLABLE) <= set(house.get("cb.fateReroll.forbidden", ())):
        return ("CB-10", "the house rules forbid a fate reroll on every kind of roll")
    player = state["turn"]["player"]
    none_left = None if player is None else fate.none_left(state, house, player)
    return none_left or fate.nothing_to_reroll()


@rules.command(
    "fate_reroll",
    summary="A player spends a fate reroll on their party's own night roll just made (hail "
    "save, ambush d6 or rizz contest), when the night offers one; refused for the kinds of roll "
    "the house rules forbid (always the calendar and wind rolls), when no such roll is on offer, "
    "and when the player has none left of the number the match's set-up gave.",
    example={"type": "fate_reroll", "player": "A", "roll": "hail"},
    schema=takes(
        "The rerolled roll's dice again: d20 hail, d20 rizz or d6 ambush (a movement roll is "
        "not rerolled here; calendar, wind, basketball and Annustaria never are).",
        player=player_id(),
        roll=text(
            "The kind of roll rerolled: the party's own night roll on offer (the pending "
            "decision's context.roll).",
            required=True,
            choices=fate.REROLLABLE,
        ),
    ),
    available=can_fate_reroll,
    rules=("CB-10", "G-CB-12", "G-CB-01"),
    resolves=(fate.FATE_DECISION,),
)
def fate_reroll(ctx: Context, args: Values) -> None:
    """CB-10, G-CB-12, G-CB-01: refuse a forbidden roll kind (which costs nothing), then a
    player with no fate reroll left, then a reroll with no roll on offer; else reroll the roll
    the night offers.

    A fate reroll is spent on a roll: the rolls it may touch are a party's own night rolls (hail
    save, ambush d6, rizz contest), and after one the night waits for the player's answer
    (``fate``). With no decision pending, no such roll is on offer (by day none is made, and a
    night roll's offer ends with its answer), so the reroll is refused and nothing is spent.
    """
    player = args["player"]
    kind = args["roll"]
    cb.party(ctx, player)
    if kind in ctx.house["cb.fateReroll.forbidden"]:
        ctx.refuse("CB-10", f"no fate reroll on the {kind} roll: the original result stands")
    if not ctx.state.get("pending"):
        none_left = fate.none_left(ctx.state, ctx.house, player)
        ctx.refuse(*(none_left or fate.nothing_to_reroll(kind)))
    fate.night_reroll(ctx, player, kind)
