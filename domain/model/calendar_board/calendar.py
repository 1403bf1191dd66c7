"""Night step 5: calendar roll, god-piece move, supply, laps and the ceasefire, then the weather
and hail of the landed space (CB-08, CB-09, CB-11..CB-19, CB-21, CB-28, CB-29).

Night step 6, the wind, and the weather rules themselves are in
``domain.model.calendar_board.weather``.

The step keeps its progress in ``night.step_data(ctx, "calendar")``: ``landed`` once the piece has
moved, ``firings`` (supply spaces still to resolve, each with the players still to resupply),
``landing_done`` once the landed space has been resolved, and ``hail`` (players owing a save).
It can therefore stop for a player's choice (a supply weapon, a hail damage recipient) and carry
on where it stopped when the answer comes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.calendar_board import board_events, night, night_rolls, weather
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import answers
from domain.model.calendar_board.command_fields import player_id
from domain.model.calendar_board.state_types import Board, Party
from domain.model.command_schema import Values, takes
from domain.model.errors import NotHeld
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context
from domain.model.schema_fields import picks, text

rules = RULES[CALENDAR_BOARD]
rules.declare(
    board_events.CalendarRolled,
    board_events.GodPieceMoved,
    board_events.SupplySpaceTriggered,
    board_events.AmmoRegenerated,
    board_events.AmmoRegenerationSkipped,
    board_events.CalendarLapCompleted,
    board_events.GodPieceReset,
    board_events.CeasefireAdvanced,
    board_events.DecisionRequested,
)

SUPPLY_DECISION = "supply_weapon"
AMMO_KINDS = ("ranged", "hybrid")


def end_space(ctx: Context) -> int:
    """G-CB-09: the End space is the last space of the layout."""
    return len(ctx.house["cb.calendar.layout"]) - 1


@night.step("calendar")
def calendar(ctx: Context) -> bool:
    """CB-09..CB-29: roll, move, resupply, then the landed space's weather, lap and hail."""
    data = night.step_data(ctx, "calendar")
    if "landed" not in data:
        if night_rolls.ask(ctx, "calendar", ctx.state["god_token"]):
            return False
        move_god_piece(ctx, data)
    if not resolve_supply(ctx, data):
        return False
    if not data.get("landing_done"):
        data["landing_done"] = True
        resolve_landing(ctx, data)
    return weather.run_hail(ctx, data)


# -- the roll and the move (CB-09, CB-11) ------------------------------------------------------


@night_rolls.roller("calendar")
def calendar_rolled(ctx: Context, context: Mapping[str, Any]) -> bool:
    """CB-09: the holder's d4, asked of them; the step carries on from the move."""
    move_god_piece(ctx, night.step_data(ctx, "calendar"))
    return False


def move_god_piece(ctx: Context, data: dict[str, Any]) -> None:
    """CB-09/CB-11: the holder rolls 1d4; the piece moves forward and stops on End."""
    layout: list[str] = ctx.house["cb.calendar.layout"]
    end = end_space(ctx)
    board: Board = ctx.state["board"]
    if board["god_piece"] >= end:
        reset_god_piece(ctx)  # G-CB-10 "beforeNextRoll": the piece waited on End
    d4 = ctx.roll("1d4", "calendar")["total"]
    ctx.emit(board_events.CalendarRolled(holder=ctx.state["god_token"], d4=d4))
    start = board["god_piece"]
    landed = min(start + d4, end)
    passed = list(range(start + 1, landed))
    board["god_piece"] = landed
    reached = [(s, "passed") for s in passed if layout[s] == "supply"]
    if layout[landed] == "supply" and landed != end:
        reached.append((landed, "landed"))
    firings: list[dict[str, Any]] = [
        {"space": space, "how": how, "merged": []} for space, how in reached
    ]
    if not ctx.house["cb.supply.firePerSpace"] and firings:
        # G-CB-13 off: a move that reaches several supply spaces fires once, at the first.
        firings[0]["merged"] = [f["space"] for f in firings[1:]]
        del firings[1:]
    data["landed"] = landed
    data["firings"] = firings
    ctx.emit(
        board_events.GodPieceMoved(
            from_space=start,
            to_space=landed,
            pips_rolled=d4,
            pips_used=landed - start,
            pips_lost=d4 - (landed - start),
            passed_spaces=passed,
        )
    )


def resolve_landing(ctx: Context, data: dict[str, Any]) -> None:
    """CB-18/CB-11: the landed space sets the weather; End completes a lap and restarts."""
    landed = data["landed"]
    end = end_space(ctx)
    space_type = "end" if landed == end else ctx.house["cb.calendar.layout"][landed]
    hail_due = weather.set_weather(ctx, landed, space_type)
    if landed == end:
        board: Board = ctx.state["board"]
        board["laps"] += 1
        ctx.emit(board_events.CalendarLapCompleted(lap_number=board["laps"]))
        if ctx.house["cb.calendar.resetTiming"] == "immediate":
            reset_god_piece(ctx)
    if hail_due:
        weather.start_hail(ctx, data)


def reset_god_piece(ctx: Context) -> None:
    """CB-11/CB-12: the piece goes back to Start, passing and landing on nothing; ceasefire +1."""
    board: Board = ctx.state["board"]
    before = board["god_piece"]
    board["god_piece"] = 0
    ctx.emit(
        board_events.GodPieceReset(
            from_space=before, to_space=0, timing=ctx.house["cb.calendar.resetTiming"]
        )
    )
    if not ctx.state["options"]["ceasefire_rule"]:
        return
    before = ctx.state["ceasefire"]
    cap = ctx.house["cb.ceasefire.max"]
    after = before + 1 if cap is None else min(before + 1, cap)
    ctx.state["ceasefire"] = after
    ctx.emit(board_events.CeasefireAdvanced(from_=before, to=after, capped=after == before))


# -- supply (CB-13..CB-16, G-CB-13) ------------------------------------------------------------


def resolve_supply(ctx: Context, data: dict[str, Any]) -> bool:
    """CB-13: each supply space reached fires; False while a player chooses a weapon."""
    firings: list[dict[str, Any]] = data["firings"]
    while firings:
        firing = firings[0]
        if "queue" not in firing:
            firing["queue"] = cb.turn_order_from(ctx.state, ctx.state["starting_token"])
            ctx.emit(
                board_events.SupplySpaceTriggered(
                    space_index=firing["space"], how=firing["how"], merged_spaces=firing["merged"]
                )
            )
        while firing["queue"]:
            player = firing["queue"].pop(0)
            if not resupply(ctx, player, firing["space"]):
                return False
        firings.pop(0)
    return True


def eligible_weapons(party: Party) -> list[str]:
    """CB-14/CB-16: ranged or hybrid weapons that use ammunition and are not looted."""
    return [
        wid
        for wid, w in party["weapons"].items()
        if w["kind"] in AMMO_KINDS and w["uses_ammo"] and not w["looted"]
    ]


def resupply(ctx: Context, player: str, space: int) -> bool:
    """CB-15: refill the player's one eligible weapon, or ask which; False while asking."""
    party = ctx.state["parties"][player]
    eligible = eligible_weapons(party)
    may_decline = bool(ctx.house["cb.supply.mayDecline"])
    if not eligible:
        looted = any(
            w["kind"] in AMMO_KINDS and w["uses_ammo"] and w["looted"]
            for w in party["weapons"].values()
        )
        ctx.emit(
            board_events.AmmoRegenerationSkipped(
                player=player, reason="looted" if looted else "noEligibleWeapon", space_index=space
            )
        )
        return True
    if len(eligible) == 1 and not may_decline:
        regenerate(ctx, player, eligible[0], space, chosen_by="automatic")
        return True
    context = {"space_index": space, "may_decline": may_decline}
    cb.ask(
        ctx,
        decision=SUPPLY_DECISION,
        who=player,
        rule="CB-15",
        commands=["choose_supply_weapon"],
        options=eligible,
        context=context,
    )
    return False


def regenerate(ctx: Context, player: str, weapon_id: str, space: int, *, chosen_by: str) -> None:
    """CB-14: ammo becomes min(ammo + regeneration, capacity); the excess is wasted."""
    weapon = ctx.state["parties"][player]["weapons"][weapon_id]
    before = weapon["ammo"]
    after = min(before + weapon["ammo_regen"], weapon["ammo_max"])
    weapon["ammo"] = after
    ctx.emit(
        board_events.AmmoRegenerated(
            player=player,
            weapon_id=weapon_id,
            before=before,
            regen=weapon["ammo_regen"],
            after=after,
            max=weapon["ammo_max"],
            wasted=before + weapon["ammo_regen"] - after,
            space_index=space,
            chosen_by=chosen_by,
        )
    )


@rules.command(
    "choose_supply_weapon",
    summary="A player with several eligible weapons picks the one a supply space refills "
    "(weapon null declines, when the house rule allows it).",
    example={"type": "choose_supply_weapon", "player": "B", "weapon": "crossbow"},
    schema=takes(
        None,
        player=player_id(),
        weapon=picks(
            text(
                "The id of the weapon the supply space refills (null declines, if allowed).",
                max_length=80,
            ),
            "/parties/{player}/weapons",
            label="kind",
        ),
    ),
    available=answers("CB-15", SUPPLY_DECISION),
    rules=("CB-14", "CB-15", "CB-16"),
    resolves=(SUPPLY_DECISION,),
)
def choose_supply_weapon(ctx: Context, args: Values) -> None:
    """CB-15: refill the chosen weapon; a looted or non-ammo weapon is refused (CB-16, CB-14)."""
    player = args["player"]
    weapon = args["weapon"]
    pending = cb.require_decision(ctx, SUPPLY_DECISION, player, "CB-15")
    party = cb.party(ctx, player)
    space = pending["context"]["space_index"]
    if weapon is None:
        if not pending["context"]["may_decline"]:
            ctx.refuse("CB-15", "a weapon must be chosen: declining is off (G-CB-13)")
        ctx.emit(
            board_events.AmmoRegenerationSkipped(
                player=player, reason="declined", space_index=space
            )
        )
    elif weapon not in party["weapons"]:
        raise NotHeld("weapon", f"{player} has no weapon {weapon!r}")
    elif weapon not in pending["options"]:
        if party["weapons"][weapon]["looted"]:
            ctx.refuse("CB-16", f"{weapon} is looted: looted weapons never resupply")
        ctx.refuse("CB-14", f"{weapon} is not a ranged or hybrid weapon that uses ammunition")
    else:
        regenerate(ctx, player, weapon, space, chosen_by="player")
    night.advance(ctx)
