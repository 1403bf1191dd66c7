"""Weather, hail and wind: what the landed space sets and when it takes effect, Wet, hail saves,
and the wind roll (CB-17..CB-19, CB-21, CB-28..CB-31).

The calendar step (``domain.model.calendar_board.calendar``) calls ``set_weather`` for the landed
space and ``run_hail`` to make the hail saves. The weather it sets is *pending* until the
starting-token holder's turn begins (CB-19, G-CB-14); ``weather_at_turn_start`` makes it current
then, and ``clear_wet`` takes Wet off every piece when the next night phase starts (CB-21).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.calendar_board import board_events, fate, night, night_rolls
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import answers
from domain.model.calendar_board.command_fields import own_piece, player_id
from domain.model.calendar_board.state_types import Party, Weather, Wind
from domain.model.command_schema import Values, takes
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context

rules = RULES[CALENDAR_BOARD]
rules.declare(
    board_events.WeatherSet,
    board_events.WeatherEnded,
    board_events.WeatherActivated,
    board_events.ConditionApplied,
    board_events.ConditionCleared,
    board_events.HailSaveRolled,
    board_events.HailDamageTaken,
    board_events.WindRolled,
    board_events.WindSet,
)

WEATHER_SPACES = ("rain", "snow", "fog", "hail")
HAIL_DECISION = "hail_damage"
WET = "wet"


# -- the weather a landing sets (CB-17, CB-18, CB-29) ------------------------------------------


def landed_weather(ctx: Context, space_type: str) -> tuple[str, str, str | None]:
    """CB-18/CB-29: the weather a landed space sets, its source and the event behind it."""
    if space_type in WEATHER_SPACES:
        return space_type, "weatherSpace", None
    if space_type == "event":
        options = ctx.state["options"]
        event = options.get("active_event")
        if options["event_rules"] and event:
            return event["special_weather"], "event", event["id"]
        return "normal", "event", None
    if space_type in ("start", "end", "supply"):
        return "normal", space_type, None
    return "normal", "weatherSpace", None


def set_weather(ctx: Context, space_index: int, space_type: str) -> bool:
    """CB-18/CB-19: the landed space sets the new weather; True when a hail save is due (CB-28)."""
    weather: Weather = ctx.state["weather"]
    new, source, event_id = landed_weather(ctx, space_type)
    already_hail = "hail" in (weather["current"], weather["pending"])
    hail_due = new == "hail" and (ctx.house["cb.hail.retriggerOnRepeat"] or not already_hail)
    immediate = ctx.house["cb.weather.activation"] == "immediate"
    gap = ctx.house["cb.weather.nightGap"]
    if immediate or gap != "previous":
        # G-CB-14: the previous weather ends when the new calendar roll resolves.
        ctx.emit(board_events.WeatherEnded(weather=weather["current"], reason="newCalendarRoll"))
    if immediate:
        weather["current"], weather["pending"] = new, None
    else:
        weather["pending"] = new
        if gap == "normal":
            weather["current"] = "normal"
        elif gap == "new":
            weather["current"] = new
    details: dict[str, Any] = {"event_id": event_id} if event_id else {}
    ctx.emit(
        board_events.WeatherSet(
            space_index=space_index,
            space_type=space_type,
            weather=new,
            source=source,
            pending=not immediate,
            in_force_tonight=weather["current"],
            hail_save=hail_due,
            **details,
        )
    )
    if immediate:
        ctx.emit(
            board_events.WeatherActivated(weather=new, round=ctx.state["round"], at_turn_of=None)
        )
        if new == "rain":
            wet_pathway_pieces(ctx)
    return hail_due


# -- when the weather takes effect (CB-19, CB-21, G-CB-14) -------------------------------------


def wet_pathway_pieces(ctx: Context) -> None:
    """CB-21: every piece on the pathway, whoever owns it, becomes Wet (once)."""
    for player in ctx.state["players"]:
        for piece in cb.pathway_pieces(ctx.state["parties"][player]):
            if WET in piece["conditions"]:
                continue
            piece["conditions"].append(WET)
            ctx.emit(
                board_events.ConditionApplied(
                    game="CB",
                    subject_id=piece["id"],
                    player=player,
                    condition=WET,
                    duration="untilNightPhase",
                    source="rain",
                )
            )


def weather_at_turn_start(ctx: Context) -> None:
    """CB-19: the pending weather takes effect as the starting-token holder's turn begins."""
    state = ctx.state
    weather: Weather = state["weather"]
    if state["night"] is not None:
        return
    player = state["turn"]["player"]
    if weather["pending"] is not None and player == state["starting_token"]:
        if ctx.house["cb.weather.nightGap"] == "previous":
            ctx.emit(
                board_events.WeatherEnded(weather=weather["current"], reason="newWeatherActivated")
            )
        weather["current"], weather["pending"] = weather["pending"], None
        ctx.emit(
            board_events.WeatherActivated(
                weather=weather["current"], round=state["round"], at_turn_of=player
            )
        )
        if weather["current"] == "rain":
            wet_pathway_pieces(ctx)
    elif weather["current"] == "rain" and not ctx.house["cb.weather.wetSnapshot"]:
        # G-CB-14 with the snapshot off: pieces that reached the pathway since get wet too.
        wet_pathway_pieces(ctx)


def clear_wet(ctx: Context) -> None:
    """CB-21: Wet comes off every piece when the next night phase starts, before its step 1."""
    for player in ctx.state["players"]:
        for piece in ctx.state["parties"][player]["pieces"].values():
            if WET in piece["conditions"]:
                piece["conditions"].remove(WET)
                ctx.emit(
                    board_events.ConditionCleared(
                        game="CB",
                        subject_id=piece["id"],
                        player=player,
                        condition=WET,
                        cause="nightPhaseStarted",
                    )
                )


night.TURN_START_HOOKS.append(weather_at_turn_start)
night.NIGHT_START_HOOKS.append(clear_wet)


# -- hail (CB-28, G-CB-20) ---------------------------------------------------------------------


def counted_pieces(party: Party) -> list[str]:
    """G-CB-20: the player's own pieces on the pathway or in the home area."""
    kinds = ("pathway", "home")
    return [pid for pid, p in party["pieces"].items() if p["location"]["kind"] in kinds]


def start_hail(ctx: Context, data: dict[str, Any]) -> None:
    """CB-28: every player, in turn order from the starting-token holder, owes a hail save."""
    data["hail"] = cb.turn_order_from(ctx.state, ctx.state["starting_token"])


def run_hail(ctx: Context, data: dict[str, Any]) -> bool:
    """CB-28: make the outstanding hail saves; False while a player assigns damage."""
    queue: list[str] = data.get("hail", [])
    while queue:
        player = queue[0]
        party = ctx.state["parties"][player]
        goal = len(counted_pieces(party))
        luck = party["luck_mod"]
        if goal and night_rolls.ask(ctx, "hail_save", player, goal=goal, luck_mod=luck):
            return False
        queue.pop(0)
        if not hail_save(ctx, player):
            return False
    return True


@night_rolls.roller("hail_save")
def hail_save_rolled(ctx: Context, context: Mapping[str, Any]) -> bool:
    """CB-28: the save asked of the player who owes it; the step then carries on."""
    queue: list[str] = night.step_data(ctx, "calendar")["hail"]
    queue.pop(0)
    hail_save(ctx, context["player"])
    return False


def hail_save(ctx: Context, player: str) -> bool:
    """CB-28: one player's save, d20 + luck against the goal; False when damage awaits a choice."""
    party = ctx.state["parties"][player]
    pieces = counted_pieces(party)
    goal = len(pieces)
    luck = party["luck_mod"]
    if goal == 0:
        ctx.emit(
            board_events.HailSaveRolled(
                player=player,
                goal=0,
                die_value=None,
                luck_mod=luck,
                total=None,
                success=True,
                automatic=True,
            )
        )
        return True
    die = ctx.roll("1d20", "hail")["total"]
    if save_rolled(ctx, player, goal, luck, die):
        return True
    if fate.worth_offering(ctx, hail_success(ctx, 20 + luck, goal)) and fate.offer(
        ctx, player=player, kind="hail", context={"goal": goal, "luck_mod": luck}
    ):
        return False
    return hail_failed(ctx, player)


def save_rolled(ctx: Context, player: str, goal: int, luck: int, die: int, **extra: Any) -> bool:
    """Record a save just rolled (``HailSaveRolled``); returns whether it succeeded."""
    total = die + luck
    success = hail_success(ctx, total, goal)
    ctx.emit(
        board_events.HailSaveRolled(
            player=player,
            goal=goal,
            die_value=die,
            luck_mod=luck,
            total=total,
            success=success,
            automatic=False,
            **extra,
        )
    )
    return success


def hail_success(ctx: Context, total: int, goal: int) -> bool:
    """CB-28, G-CB-20: whether a save total beats the goal (``cb.hail.successIf``)."""
    return total > goal if ctx.house["cb.hail.successIf"] == "total>goal" else total >= goal


def hail_failed(ctx: Context, player: str) -> bool:
    """CB-28: the d4 of damage (asked of the player when they roll the night's dice); False
    while it or the piece that takes it waits for the player."""
    if night_rolls.ask(ctx, "hail_damage", player):
        return False
    return hail_damage(ctx, player)


@night_rolls.roller("hail_damage")
def hail_damage_rolled(ctx: Context, context: Mapping[str, Any]) -> bool:
    """CB-28: the damage d4 asked of the player who failed the save."""
    hail_damage(ctx, context["player"])
    return False


def hail_damage(ctx: Context, player: str) -> bool:
    """CB-28: roll the d4 of damage; False while the player chooses the piece that takes it."""
    pieces = counted_pieces(ctx.state["parties"][player])
    d4 = ctx.roll("1d4", "hail_damage")["total"]
    if len(pieces) == 1:
        take_hail_damage(ctx, player, pieces[0], d4, chosen_by="automatic")
        return True
    context = {"d4": d4}
    cb.ask(
        ctx,
        decision=HAIL_DECISION,
        who=player,
        rule="CB-28",
        commands=["assign_hail_damage"],
        options=pieces,
        context=context,
    )
    return False


@fate.resolver("hail")
def hail_after_fate(ctx: Context, context: dict[str, Any], rerolled: bool) -> None:
    """G-CB-12: a rerolled save that succeeds takes no damage; a failed one (or a declined
    reroll) takes the d4 once."""
    player = context["player"]
    if rerolled:
        die = fate.reroll(ctx, "1d20", "hail", player, context)
        goal, luck, original = context["goal"], context["luck_mod"], context["roll_id"]
        if save_rolled(ctx, player, goal, luck, die, fate_reroll_of=original):
            return
    hail_failed(ctx, player)


def take_hail_damage(ctx: Context, player: str, piece: str, d4: int, *, chosen_by: str) -> None:
    """CB-28: the d4 of normal natural damage goes to the main rules' damage pipeline."""
    ctx.emit(
        board_events.HailDamageTaken(
            player=player, piece_id=piece, d4=d4, damage_type="normal/natural", chosen_by=chosen_by
        )
    )


@rules.command(
    "assign_hail_damage",
    summary="A player who failed the hail save puts the 1d4 damage on one of their counted pieces.",
    example={"type": "assign_hail_damage", "player": "A", "piece": "a1"},
    schema=takes(
        "None (the d4 was rolled with the hail save).",
        player=player_id(),
        piece=own_piece("The counted piece that takes the damage."),
    ),
    available=answers("CB-28", HAIL_DECISION),
    rules=("CB-28",),
    resolves=(HAIL_DECISION,),
)
def assign_hail_damage(ctx: Context, args: Values) -> None:
    """CB-28/G-CB-20: the damage goes to a piece counted in the player's goal."""
    player = args["player"]
    piece = args["piece"]
    pending = cb.require_decision(ctx, HAIL_DECISION, player, "CB-28")
    party = cb.party(ctx, player)
    if piece not in party["pieces"]:
        raise NotHeld("piece", f"{player} has no piece {piece!r}")
    if piece not in pending["options"]:
        ctx.refuse("CB-28", f"{piece} is not on the pathway or in the home area (G-CB-20)")
    take_hail_damage(ctx, player, piece, pending["context"]["d4"], chosen_by="player")
    night.advance(ctx)


# -- wind (CB-30, CB-31, G-CB-22, G-CB-23) -----------------------------------------------------


def wind_for(ctx: Context, d20: int) -> dict[str, Any]:
    """G-CB-22: the wind table row for a d20 reading."""
    for low, high, speed, direction in ctx.house["cb.wind.table"]:
        if low <= d20 <= high:
            return {"speed": speed, "direction": direction if speed != "none" else None}
    ctx.refuse("CB-30", f"house rule cb.wind.table has no row for a d20 of {d20} (G-CB-22)")


@night.step("wind")
def wind(ctx: Context) -> bool:
    """CB-30/CB-31: the god-token holder rolls the wind d20; it lasts until the next wind roll."""
    if night_rolls.ask(ctx, "wind", ctx.state["god_token"]):
        return False
    return wind_rolled(ctx, {})


@night_rolls.roller("wind")
def wind_rolled(ctx: Context, context: Mapping[str, Any]) -> bool:
    """CB-30: the wind d20 and the wind it sets; the step is then finished."""
    d20 = ctx.roll("1d20", "wind")["total"]
    ctx.emit(board_events.WindRolled(holder=ctx.state["god_token"], d20=d20))
    previous: Wind = ctx.state["wind"]
    ctx.state["wind"] = wind_for(ctx, d20)
    ctx.emit(board_events.WindSet(**ctx.state["wind"], previous=previous))
    return True
