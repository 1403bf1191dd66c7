"""Turns and the night phase as a state machine (CB-01, CB-02, CB-03).

The night's steps run in the order of ``cb.night.steps`` (CB-02, G-CB-03). A step is a function
registered with ``@step(name)``; it returns True when it is done, or False after asking a player
for a decision (``state.ask``). The command that answers calls ``advance`` again, which resumes
the same step; a step keeps its progress in ``night["data"][name]``. Steps that need no choice run
as soon as the step before them is done.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.model.calendar_board import board_events
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import NIGHT, State
from domain.model.calendar_board.command_fields import player_id
from domain.model.command_schema import Values, takes
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context, Refusal

rules = RULES[CALENDAR_BOARD]
rules.declare(
    board_events.TurnEnded,
    board_events.TurnStarted,
    board_events.NightPhaseStarted,
    board_events.NightPhaseEnded,
    board_events.GodTokenPassed,
)

Step = Callable[[Context], bool]
Hook = Callable[[Context], None]
STEPS: dict[str, Step] = {}
NIGHT_START_HOOKS: list[Hook] = []
NIGHT_END_HOOKS: list[Hook] = []
TURN_START_HOOKS: list[Hook] = []


def step(name: str) -> Callable[[Step], Step]:
    """Register the function that runs one night step."""

    def register(function: Step) -> Step:
        STEPS[name] = function
        return function

    return register


def step_order(ctx: Context) -> list[str]:
    """The night's steps in order; with ``afterWind`` the token passes after the wind (G-CB-02)."""
    order = [s for s in ctx.house["cb.night.steps"] if s in STEPS]
    if ctx.house["cb.godToken.passTiming"] == "afterWind" and "token" in order:
        order.remove("token")
        order.insert(order.index("wind") + 1 if "wind" in order else len(order), "token")
    return order


def step_data(ctx: Context, name: str) -> dict[str, Any]:
    """The progress record of a step in the current night."""
    data: dict[str, Any] = ctx.state["night"]["data"].setdefault(name, {})
    return data


def advance(ctx: Context) -> None:
    """Run night steps until one waits for a decision or the night is over."""
    while ctx.state["night"] is not None and not ctx.state["pending"]:
        night = ctx.state["night"]
        order = night["order"]
        if night["index"] >= len(order):
            end_night(ctx)
            return
        night["step"] = order[night["index"]]
        if not STEPS[night["step"]](ctx):
            return
        night["index"] += 1


def start_night(ctx: Context) -> None:
    """CB-01: every player has had a turn; the night phase starts and no player is active."""
    state = ctx.state
    state["nights"] += 1
    state["turn"] = {"player": None, "started": False, "done": []}
    state["night"] = {
        "number": state["nights"],
        "round": state["round"],
        "order": [],
        "index": 0,
        "step": None,
        "data": {},
    }
    state["night"]["order"] = step_order(ctx)
    ctx.emit(
        board_events.NightPhaseStarted(
            night_number=state["nights"],
            round=state["round"],
            starting_token_holder=state["starting_token"],
            god_token_holder=state["god_token"],
        )
    )
    for hook in NIGHT_START_HOOKS:
        hook(ctx)
    advance(ctx)


def end_night(ctx: Context) -> None:
    """After the last step: the night ends and the starting-token holder begins a new round."""
    state = ctx.state
    night = state["night"]
    for hook in NIGHT_END_HOOKS:
        hook(ctx)
    state["night"] = None
    ctx.emit(
        board_events.NightPhaseEnded(
            night_number=night["number"],
            weather_pending=state["weather"]["pending"],
            wind=state["wind"],
        )
    )
    state["round"] += 1
    state["turn"] = {"player": state["starting_token"], "started": False, "done": []}
    ctx.emit(board_events.TurnStarted(player=state["starting_token"], round=state["round"]))
    for hook in TURN_START_HOOKS:
        hook(ctx)


@step("token")
def pass_god_token(ctx: Context) -> bool:
    """CB-03: the god-token holder hands the token to the seat on their right, once a night."""
    state = ctx.state
    before = state["god_token"]
    state["god_token"] = cb.next_player(state, before)
    ctx.emit(
        board_events.GodTokenPassed(
            from_=before,
            to=state["god_token"],
            night_number=state["night"]["number"],
            timing=ctx.house["cb.godToken.passTiming"],
        )
    )
    return True


def current_player(ctx: Context, player: str, rule: str = "CB-01") -> None:
    """Refuse a turn action by anyone but the player whose turn it is."""
    if ctx.state["night"] is not None:
        ctx.refuse(rule, "the night phase is running: no player has a turn")
    if ctx.state["turn"]["player"] != player:
        ctx.refuse(rule, f"it is {ctx.state['turn']['player']}'s turn, not {player}'s")


def finish_turn(ctx: Context, player: str) -> None:
    """The player's turn is over; the next player starts, or the night phase begins (CB-01)."""
    state = ctx.state
    done = [*state["turn"]["done"], player]
    following = cb.next_player(state, player)
    if following == state["starting_token"]:
        start_night(ctx)
        return
    state["turn"] = {"player": following, "started": False, "done": done}
    ctx.emit(board_events.TurnStarted(player=following, round=state["round"]))
    for hook in TURN_START_HOOKS:
        hook(ctx)


def can_end_turn(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """CB-01: by day the player whose turn it is may end it."""
    return NIGHT if state.get("night") is not None else None


@rules.command(
    "end_turn",
    summary="The player whose turn it is ends it; after the last player the night phase runs.",
    example={"type": "end_turn", "player": "B"},
    schema=takes(
        "None until the last player ends the turn; then the night phase runs and its dice "
        "depend on the state: d4 (calendar), d20 (hail save per exposed piece), d4 (hail "
        "damage), d20 (wind), 2d20 (basketball), d20 (annustaria breaker), in the order the "
        "night's steps reach them.",
        player=player_id(),
    ),
    available=can_end_turn,
    rules=("CB-01", "CB-02"),
)
def end_turn(ctx: Context, args: Values) -> None:
    """CB-01: a night phase starts when every player has had a turn in the round."""
    player = args["player"]
    current_player(ctx, player)
    cb.party(ctx, player)
    ctx.emit(board_events.TurnEnded(player=player, round=ctx.state["round"]))
    finish_turn(ctx, player)
