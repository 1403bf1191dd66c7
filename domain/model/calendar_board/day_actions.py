"""A player's actions by day that this chapter rules on: movement rolls and the actions Fog forbids.

Rules CB-23 (a movement 6 earns a bonus roll, except under Rain, Snow or Hail), CB-27 (Fog forbids
sight spells and fortifying), CB-36 (an eliminated piece does not move) and G-CB-01 (the turn's
movement rolls, ``cb.movement.rollsPerTurn``). The movement itself and the actions are main-rules
mechanics; the weather's part in them is in ``modifiers``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.calendar_board import action_events, modifiers, night
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import NIGHT, State, turn_party
from domain.model.calendar_board.command_fields import own_piece, player_id
from domain.model.calendar_board.house_rules import MOVEMENT_MOVES, MOVEMENT_ROLLS
from domain.model.command_schema import Values, takes
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import text

rules = RULES[CALENDAR_BOARD]
rules.declare(
    action_events.ActionDeclared,
    action_events.MovementRolled,
    action_events.PieceMoved,
)


def _mark_turn_started(ctx: Context, player: str) -> None:
    """An action in the player's own turn closes the window for day sleep (CB-40)."""
    if ctx.state["night"] is None and ctx.state["turn"]["player"] == player:
        ctx.state["turn"]["started"] = True


def can_declare_action(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-27: Fog forbids both the sight spells and fortifying."""
    if state["weather"]["current"] == "fog":
        return ("CB-27", "fog: no sight spell or fortifying while Fog is in effect")
    return None


@rules.command(
    "declare_action",
    summary="A player casts a spell that requires sight or fortifies a structure; refused in Fog.",
    example={"type": "declare_action", "player": "A", "action": "fortify"},
    schema=takes(
        None,
        player=player_id(),
        action=text(
            "Cast a spell that requires sight, or fortify.",
            required=True,
            choices=modifiers.SIGHT_ACTIONS,
        ),
    ),
    available=can_declare_action,
    rules=("CB-27",),
)
def declare_action(ctx: Context, args: Values) -> None:
    """CB-27: Fog forbids sight spells and fortifying; otherwise the action is recorded.

    The action itself is main-rules mechanics; it may be a reaction, so it is not held to the turn.
    """
    player = args["player"]
    action = args["action"]
    cb.party(ctx, player)
    weather = ctx.state["weather"]["current"]
    if not modifiers.action_allowed(weather, action):
        ctx.refuse("CB-27", f"fog: no {action.replace('_', ' ')} while Fog is in effect")
    _mark_turn_started(ctx, player)
    ctx.emit(action_events.ActionDeclared(player=player, action=action, weather=weather))


def can_roll_movement(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-01 by day, CB-36 a piece that is not eliminated, G-CB-01 a movement roll left."""
    if state.get("night") is not None:
        return NIGHT
    pieces = turn_party(state)["pieces"].values()
    if all(piece["location"]["kind"] == "eliminated" for piece in pieces):
        return ("CB-36", f"every piece of {state['turn']['player']} is eliminated")
    limit = house.get(MOVEMENT_ROLLS)
    movement = state["turn"].get("movement") or {"rolls": 0, "bonus": []}
    if limit is not None and movement["rolls"] >= limit and not movement["bonus"]:
        player = state["turn"]["player"]
        return ("G-CB-01", f"{player} has made this turn's movement rolls ({limit})")
    return None


@rules.command(
    "roll_movement",
    summary="The player whose turn it is rolls a piece's movement d6; a 6 earns a bonus roll "
    "except under Rain, Snow or Hail.",
    example={"type": "roll_movement", "player": "A", "piece": "a1"},
    schema=takes("d6.", player=player_id(), piece=own_piece()),
    available=can_roll_movement,
    rules=("CB-23",),
)
def roll_movement(ctx: Context, args: Values) -> None:
    """CB-23: a movement 6 still moves 6, but earns no bonus roll under Rain, Snow or Hail."""
    player = args["player"]
    piece_id = args["piece"]
    night.current_player(ctx, player)
    party = cb.party(ctx, player)
    if piece_id not in party["pieces"]:
        raise NotHeld("piece", f"player {player} has no piece {piece_id!r}")
    if party["pieces"][piece_id]["location"]["kind"] == "eliminated":
        ctx.refuse("CB-36", f"piece {piece_id} is eliminated and cannot move")
    weather = ctx.state["weather"]["current"]
    movement = movement_allowance(ctx, player, piece_id)
    value = ctx.roll("1d6", f"movement {piece_id}")["total"]
    six = value == 6
    if movement is not None and six and modifiers.bonus_roll_on_six(weather):
        movement["bonus"].append(piece_id)
    _mark_turn_started(ctx, player)
    ctx.emit(
        action_events.MovementRolled(
            player=player,
            piece_id=piece_id,
            value=value,
            bonus_roll_earned=six and modifiers.bonus_roll_on_six(weather),
            bonus_roll_suppressed=six and not modifiers.bonus_roll_on_six(weather),
            weather=weather,
        )
    )
    location = party["pieces"][piece_id]["location"]
    if ctx.house.get(MOVEMENT_MOVES, False) and location["kind"] == "pathway":
        start = location["space"]
        location["space"] = start + value
        ctx.emit(
            action_events.PieceMoved(
                player=player,
                piece_id=piece_id,
                from_space=start,
                to_space=start + value,
                spaces=value,
            )
        )


def movement_allowance(ctx: Context, player: str, piece_id: str) -> dict[str, Any] | None:
    """G-CB-01, CB-23: take one of the turn's movement rolls (``cb.movement.rollsPerTurn``), or
    the bonus roll a 6 earned for this piece; refuse when none is left. None: no limit (a match
    whose house rules predate the limit), so nothing is counted."""
    limit = ctx.house.get(MOVEMENT_ROLLS)
    if limit is None:
        return None
    turn = ctx.state["turn"]
    movement: dict[str, Any] = turn.setdefault("movement", {"rolls": 0, "bonus": []})
    if piece_id in movement["bonus"]:
        movement["bonus"].remove(piece_id)
    elif movement["rolls"] >= limit:
        ctx.refuse("G-CB-01", movement_refusal(player, limit, movement["bonus"]))
    else:
        movement["rolls"] += 1
    return movement


def movement_refusal(player: str, limit: int, bonus: list[str]) -> str:
    """Why a movement roll is refused: the turn's rolls are made and no 6 earned this piece one."""
    made = f"{player} has made the {limit} movement roll{'s' if limit != 1 else ''} of this turn"
    if bonus:
        return f"{made}; the bonus roll a 6 earned is for {', '.join(bonus)}"
    return f"{made} (house rule cb.movement.rollsPerTurn); a 6 earns a bonus roll (CB-23)"
