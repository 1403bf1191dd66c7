"""Sleeping during the day (CB-40, CB-41): an exhausted player sleeps through a turn.

Day sleep (``day_sleep``) is allowed only before the turn has started; ``start_acting`` marks
the turn started (the main rules' first action would do the same). Its locks are lifted when
the next night phase ends (G-CB-30), by a hook in ``night.NIGHT_END_HOOKS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.calendar_board import action_events, actions, night
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import NIGHT, State, turn_party
from domain.model.calendar_board.command_fields import player_id
from domain.model.command_schema import Values, takes
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context, Refusal

rules = RULES[CALENDAR_BOARD]
rules.declare(
    action_events.TurnActionsStarted,
    action_events.SleptDuringDay,
    action_events.RestrictionApplied,
    action_events.TurnSkipped,
    action_events.RestrictionLifted,
)

DAY_SLEEP_LOCKS = ["reactions", "bonus"]


def can_start_acting(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-40: the turn's first action, once."""
    if state.get("night") is not None:
        return NIGHT
    if state["turn"].get("started"):
        return ("CB-40", f"{state['turn']['player']}'s turn has already started")
    return None


@rules.command(
    "start_acting",
    summary="The player whose turn it is begins acting; from now on the turn has started and "
    "day sleep is no longer possible.",
    example={"type": "start_acting", "player": "B"},
    schema=takes(None, player=player_id()),
    available=can_start_acting,
    rules=("CB-40",),
)
def start_acting(ctx: Context, args: Values) -> None:
    """CB-40: the first action of a turn closes the window for day sleep."""
    player = args["player"]
    night.current_player(ctx, player)
    cb.party(ctx, player)
    if ctx.state["turn"]["started"]:
        ctx.refuse("CB-40", f"{player}'s turn has already started")
    ctx.state["turn"]["started"] = True
    ctx.emit(action_events.TurnActionsStarted(player=player, round=ctx.state["round"]))


def can_day_sleep(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-40 / CB-41: at the very start of the turn, with exhaustion to sleep off."""
    if state.get("night") is not None:
        return ("CB-40", NIGHT[1])
    if state["turn"].get("started"):
        return ("CB-40", "day sleep is only possible at the very start of the turn")
    if turn_party(state)["exhaustion"] < 1:
        return ("CB-40", f"{state['turn']['player']}'s party is not exhausted (exhaustion 0)")
    return None


@rules.command(
    "day_sleep",
    summary="At the very start of their turn, an exhausted player sleeps through the day: "
    "exhaustion -1, the turn is skipped, reactions and bonus locked until the next night ends.",
    example={"type": "day_sleep", "player": "B"},
    schema=takes(None, player=player_id()),
    available=can_day_sleep,
    rules=("CB-40", "CB-41"),
)
def day_sleep(ctx: Context, args: Values) -> None:
    """CB-40 / CB-41: sleep through the day instead of taking the turn."""
    player = args["player"]
    night.current_player(ctx, player, "CB-40")
    party = cb.party(ctx, player)
    state = ctx.state
    if state["turn"]["started"]:
        ctx.refuse("CB-40", "day sleep is only possible at the very start of the turn")
    before = party["exhaustion"]
    if before < 1:
        ctx.refuse("CB-40", f"{player}'s party is not exhausted (exhaustion 0)")
    ctx.emit(
        action_events.SleptDuringDay(party=player, round=state["round"], exhaustion_before=before)
    )
    actions.set_exhaustion(ctx, player, party, before - 1, "daySleep")
    party["reactions_locked"] = True
    party["bonus_locked"] = True
    ctx.emit(
        action_events.RestrictionApplied(
            party=player, locks=DAY_SLEEP_LOCKS, until=state["nights"] + 1
        )
    )
    ctx.emit(action_events.TurnSkipped(player=player, round=state["round"], reason="daySleep"))
    night.finish_turn(ctx, player)


def lift_day_sleep_locks(ctx: Context) -> None:
    """G-CB-30: day-sleep locks stay on through the next night and are lifted as it ends."""
    for player in ctx.state["players"]:
        party = ctx.state["parties"][player]
        locks = [
            lock
            for lock, flag in (("reactions", "reactions_locked"), ("bonus", "bonus_locked"))
            if party[flag]
        ]
        if not locks:
            continue
        party["reactions_locked"] = False
        party["bonus_locked"] = False
        ctx.emit(action_events.RestrictionLifted(party=player, locks=locks))


night.NIGHT_END_HOOKS.append(lift_day_sleep_locks)
