"""Night step 8 and day sleep: ambush, rizz, sleep, exhaustion and elimination (CB-33..CB-41).

Step ``actions`` asks each party for exactly one night action, in turn order from the
starting-token holder (CB-33, G-CB-04). The answer is the command ``night_action``. An ambush
that finds at least one target always waits for ``choose_ambush``, even with a single option,
because the player must name the ambush form of the main rules (CB-35, G-CB-25). Each action,
with its exhaustion change and any elimination, is resolved before the next party is asked.

Day sleep is in ``domain.model.calendar_board.day_sleep``.
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError

from domain.model.calendar_board import action_events, fate, night
from domain.model.calendar_board import state as cb
from domain.model.calendar_board.availability import answers
from domain.model.calendar_board.command_fields import own_piece, player_id
from domain.model.calendar_board.night import step
from domain.model.calendar_board.state_types import Party
from domain.model.command_schema import Values, takes
from domain.model.games import RULES
from domain.model.house_rules import CALENDAR_BOARD
from domain.model.rules_engine import Context
from domain.model.schema_fields import picks, required_when, text

rules = RULES[CALENDAR_BOARD]
rules.declare(
    action_events.NightActionTaken,
    action_events.AmbushRolled,
    action_events.AmbushMissed,
    action_events.AmbushPerformed,
    action_events.RizzAttempted,
    action_events.PartnerGained,
    action_events.RelationshipChanged,
    action_events.ExhaustionChanged,
    action_events.PieceEliminated,
)

NIGHT_ACTIONS = ("ambush", "rizz", "sleep")


def legal_actions(party: Party) -> list[str]:
    """CB-33 / CB-37: the night actions a party may choose; rizz only without a partner."""
    return [a for a in NIGHT_ACTIONS if a != "rizz" or party["partner"] is None]


def _request(
    ctx: Context,
    decision: str,
    who: str,
    rule: str,
    command: str | list[str],
    options: Any,
    **context: Any,
) -> None:
    """Wait for a player's choice and record that the engine is waiting for it."""
    cb.ask(
        ctx,
        decision=decision,
        who=who,
        rule=rule,
        commands=[command] if isinstance(command, str) else command,
        options=options,
        context=context,
    )


@step("actions")
def night_actions(ctx: Context) -> bool:
    """CB-33: ask the next party for its night action; done when every party has acted."""
    state = ctx.state
    data = night.step_data(ctx, "actions")
    if "order" not in data:
        data["order"] = cb.turn_order_from(state, state["starting_token"])
        data["index"] = 0
    if data["index"] >= len(data["order"]):
        return True
    player = data["order"][data["index"]]
    options = legal_actions(state["parties"][player])
    _request(
        ctx, "night_action", player, "CB-33", "night_action", options, order_index=data["index"]
    )
    return False


PARTNER_GIVEN = {"required": ["partner"], "properties": {"partner": {"type": "string"}}}
"""JSON Schema for: a partner is given (not null)."""


def partner_with_rizz(data: dict[str, Any]) -> None:
    """CB-33: a rizz names the partner it brings; no other action has one."""
    if data.get("action") == "rizz" and data.get("partner") is None:
        raise ValidationError("name the partner a successful rizz brings", "partner")
    if data.get("action") != "rizz" and data.get("partner") is not None:
        raise ValidationError("give a partner only with rizz", "partner")


@rules.command(
    "night_action",
    summary="The party whose turn it is in step 8 takes its one night action: ambush, rizz "
    "(with the partner it wants on success) or sleep.",
    example={"type": "night_action", "player": "A", "action": "rizz", "partner": "catboyBoyfriend"},
    schema=takes(
        "rizz rolls d20; ambush rolls d6; sleep rolls none.",
        player=player_id(),
        action=text("The night action.", required=True, choices=NIGHT_ACTIONS),
        partner=required_when(
            text("The partner wanted if the rizz succeeds.", choices=cb.PARTNERS), action="rizz"
        ),
        checks=[partner_with_rizz],
        document=[
            {
                "not": {
                    "anyOf": [
                        {"properties": {"action": {"enum": ["rizz"]}}, "not": PARTNER_GIVEN},
                        {
                            "required": ["partner"],
                            "properties": {
                                "action": {"not": {"enum": ["rizz"]}},
                                "partner": {"type": "string"},
                            },
                        },
                    ]
                }
            }
        ],
    ),
    available=answers("CB-33", "night_action"),
    rules=("CB-33", "CB-34", "CB-35", "CB-36", "CB-37", "CB-38", "CB-39"),
    resolves=("night_action",),
)
def night_action(ctx: Context, args: Values) -> None:
    """CB-33: one night action per party, fully resolved before the next party chooses."""
    player = args["player"]
    action = args["action"]
    partner = args["partner"]
    pending = cb.require_decision(ctx, "night_action", player, "CB-33")
    party = cb.party(ctx, player)
    if action not in legal_actions(party):
        ctx.refuse("CB-37", f"{player}'s party already has a partner")
    data = night.step_data(ctx, "actions")
    data["index"] += 1
    order_index = pending["context"]["order_index"]
    ctx.emit(
        action_events.NightActionTaken(
            player=player, party=player, action=action, order_index=order_index
        )
    )
    if action == "sleep":
        _sleep(ctx, player, party)
    elif action == "rizz":
        if _rizz(ctx, player, party, partner):
            return  # the player may spend a fate reroll on the contest first
    elif _ambush(ctx, player, party, order_index):
        return  # the player chooses the piece, target and form (or a fate reroll) first
    night.advance(ctx)


# -- exhaustion and elimination (CB-34, CB-36) --------------------------------------------------


def set_exhaustion(ctx: Context, player: str, party: Party, to: int, cause: str) -> None:
    """CB-34: the exhaustion track moves; no event when it does not change."""
    before = party["exhaustion"]
    if to == before:
        return
    party["exhaustion"] = to
    ctx.emit(action_events.ExhaustionChanged(party=player, from_=before, to=to, cause=cause))


def _exhaust(ctx: Context, player: str, party: Party, cause: str, gain: bool) -> None:
    """CB-34 / CB-36: +1 exhaustion (up to the maximum), then the elimination check."""
    if gain:
        raised = min(party["exhaustion"] + 1, ctx.house["cb.exhaustion.max"])
        set_exhaustion(ctx, player, party, max(raised, party["exhaustion"]), cause)
    if party["exhaustion"] >= ctx.house["cb.exhaustion.eliminateAt"]:
        for piece in cb.pathway_pieces(party):
            space = piece["location"]["space"]
            piece["location"] = {"kind": "eliminated"}
            ctx.emit(
                action_events.PieceEliminated(
                    piece_id=piece["id"], party=player, space=space, cause="exhaustion"
                )
            )


# -- sleep (CB-39) ------------------------------------------------------------------------------


def _sleep(ctx: Context, player: str, party: Party) -> None:
    """CB-39 / G-CB-29: sleep lowers exhaustion, never below 0, and never eliminates."""
    lowered = max(party["exhaustion"] - ctx.house["cb.sleep.nightReduction"], 0)
    set_exhaustion(ctx, player, party, lowered, "nightSleep")


# -- rizz (CB-37, CB-38) ------------------------------------------------------------------------


def rizz_defender(chart: list[int], exhaustion: int) -> int:
    """G-CB-27: the chart value at this exhaustion (the last entry for anything beyond it)."""
    return chart[max(0, min(exhaustion, len(chart) - 1))]


def _rizz(ctx: Context, player: str, party: Party, partner: str) -> bool:
    """CB-38: d20 + INT against the chart at the exhaustion before this action's +1.

    True while a failed contest waits for the player's fate-reroll decision (G-CB-12).
    """
    before = party["exhaustion"]
    defender = rizz_defender(ctx.house["cb.rizz.chart"], before)
    die = ctx.roll("1d20", "rizz")["total"]
    success = _rizz_attempted(ctx, player, party, partner, defender, die)
    if not success and fate.worth_offering(ctx, rizz_wins(ctx, 20 + party["int_mod"], defender)):
        context = {"partner": partner, "defender_value": defender, "exhaustion_before": before}
        if fate.offer(ctx, player=player, kind="rizz", context=context):
            return True
    _rizz_outcome(ctx, player, party, partner, success)
    return False


def rizz_wins(ctx: Context, total: int, defender: int) -> bool:
    """CB-38, G-CB-26: the offender wins above the chart value (ties per ``cb.rizz.tieGoesTo``)."""
    tie_wins = ctx.house["cb.rizz.tieGoesTo"] == "offender"
    return total > defender or (tie_wins and total == defender)


def _rizz_attempted(
    ctx: Context,
    player: str,
    party: Party,
    partner: str,
    defender: int,
    die: int,
    **extra: Any,
) -> bool:
    """Record the contest just rolled; returns whether it succeeded."""
    total = die + party["int_mod"]
    success = rizz_wins(ctx, total, defender)
    ctx.emit(
        action_events.RizzAttempted(
            player=player,
            party=player,
            exhaustion_before=party["exhaustion"],
            defender_value=defender,
            die_value=die,
            int_mod=party["int_mod"],
            total=total,
            success=success,
            chosen_partner_type=partner if success else None,
            **extra,
        )
    )
    return success


def _rizz_outcome(ctx: Context, player: str, party: Party, partner: str, success: bool) -> None:
    """CB-38: a won contest brings the partner; either way the exhaustion follows (G-CB-28).
    The new partner's relationship is ``cb.relationship.initial``, never below
    ``cb.relationship.floor`` (G-CB-06)."""
    if success:
        initial = max(ctx.house["cb.relationship.initial"], ctx.house["cb.relationship.floor"])
        party["partner"] = partner
        ctx.emit(
            action_events.PartnerGained(party=player, partner_type=partner, relationship=initial)
        )
        party["relationship"] = initial
        ctx.emit(
            action_events.RelationshipChanged(
                party=player, partner_type=partner, from_=None, to=initial, cause="rizzSuccess"
            )
        )
    _exhaust(ctx, player, party, "rizz", gain=success or ctx.house["cb.rizz.exhaustionOnFail"])


@fate.resolver("rizz")
def rizz_after_fate(ctx: Context, context: dict[str, Any], rerolled: bool) -> None:
    """G-CB-12: a rerolled contest's new result stands; a declined one stays failed."""
    player, partner = context["player"], context["partner"]
    party = ctx.state["parties"][player]
    success = False
    if rerolled:
        die = fate.reroll(ctx, "1d20", "rizz", player, context)
        success = _rizz_attempted(
            ctx,
            player,
            party,
            partner,
            context["defender_value"],
            die,
            fate_reroll_of=context["roll_id"],
        )
    _rizz_outcome(ctx, player, party, partner, success)


# -- ambush (CB-35) -----------------------------------------------------------------------------


def ambush_options(ctx: Context, player: str, d6: int) -> list[dict[str, Any]]:
    """G-CB-25: each own pathway piece that ends exactly on an enemy piece, with each target."""
    enemies: dict[int, list[str]] = {}
    for other in ctx.state["players"]:
        if other == player:
            continue
        for enemy in cb.pathway_pieces(ctx.state["parties"][other]):
            enemies.setdefault(enemy["location"]["space"], []).append(enemy["id"])
    options = []
    for piece in cb.pathway_pieces(ctx.state["parties"][player]):
        start = piece["location"]["space"]
        for target in enemies.get(start + d6, []):
            options.append(
                {"piece": piece["id"], "target": target, "from": start, "to": start + d6}
            )
    return options


def _ambush(ctx: Context, player: str, party: Party, order_index: int) -> bool:
    """CB-35: roll 1d6; a miss moves nothing; a hit waits for the player's choice (True).

    A miss that another face would have turned into a hit first offers a fate reroll (G-CB-12),
    and so does the choice after a hit: the reroll's new result stands.
    """
    d6 = ctx.roll("1d6", "ambush")["total"]
    return _ambush_rolled(ctx, player, party, order_index, d6, rerollable=True)


def _ambush_rolled(
    ctx: Context,
    player: str,
    party: Party,
    order_index: int,
    d6: int,
    *,
    rerollable: bool,
    **extra: Any,
) -> bool:
    """Record the ambush roll and what it reaches; True while a decision waits."""
    roll_id = ctx.last_roll_id
    options = ambush_options(ctx, player, d6)
    candidates = sorted({o["piece"] for o in options})
    ctx.emit(
        action_events.AmbushRolled(player=player, d6=d6, candidate_piece_ids=candidates, **extra)
    )
    rerollable = rerollable and fate.allowed(ctx, "ambush", player)
    if options:
        commands = ["choose_ambush", "fate_reroll"] if rerollable else "choose_ambush"
        context: dict[str, Any] = {"d6": d6, "order_index": order_index}
        if rerollable:
            context.update(roll="ambush", roll_id=roll_id)
        _request(ctx, "ambush_target", player, "CB-35", commands, options, **context)
        return True
    could_hit = any(ambush_options(ctx, player, face) for face in range(1, 7))
    if rerollable and fate.worth_offering(ctx, could_hit):
        context = {"d6": d6, "order_index": order_index}
        if fate.offer(ctx, player=player, kind="ambush", context=context):
            return True
    ctx.emit(action_events.AmbushMissed(player=player, d6=d6))
    _exhaust(ctx, player, party, "ambush", gain=True)
    return False


@fate.resolver("ambush")
def ambush_after_fate(ctx: Context, context: dict[str, Any], rerolled: bool) -> None:
    """G-CB-12: a rerolled d6 is resolved as the ambush roll; a declined miss stays a miss."""
    player, d6 = context["player"], context["d6"]
    party = ctx.state["parties"][player]
    if rerolled:
        d6 = fate.reroll(ctx, "1d6", "ambush", player, context)
        _ambush_rolled(
            ctx,
            player,
            party,
            context["order_index"],
            d6,
            rerollable=False,
            fate_reroll_of=context["roll_id"],
        )
        return
    ctx.emit(action_events.AmbushMissed(player=player, d6=d6))
    _exhaust(ctx, player, party, "ambush", gain=True)


@rules.command(
    "choose_ambush",
    summary="After a night ambush roll that reaches an enemy: the piece that moves, the enemy "
    "piece it ambushes and the ambush form of the main rules (the fight itself is external).",
    example={
        "type": "choose_ambush",
        "player": "A",
        "piece": "a1",
        "target": "b1",
        "form": "surprise attack",
    },
    schema=takes(
        None,
        player=player_id(),
        piece=own_piece("The id of the player's piece that moves."),
        target=picks(
            text("The id of the enemy piece it ambushes.", required=True, max_length=80),
            "/parties/*/pieces",
        ),
        form=text(
            "Which of the two ambush forms of the main rules the player uses, in the table's "
            "words: the rules here do not list the forms (G-CB-25), so the log keeps it as told.",
            required=True,
        ),
    ),
    available=answers("CB-35", "ambush_target"),
    rules=("CB-35", "CB-36"),
    resolves=("ambush_target",),
)
def choose_ambush(ctx: Context, args: Values) -> None:
    """CB-35: move the chosen piece exactly the rolled spaces and ambush the chosen enemy."""
    player = args["player"]
    piece_id = args["piece"]
    target = args["target"]
    form = args["form"]
    pending = cb.require_decision(ctx, "ambush_target", player, "CB-35")
    party = cb.party(ctx, player)
    chosen = [o for o in pending["options"] if o["piece"] == piece_id and o["target"] == target]
    if not chosen:
        ctx.refuse("CB-35", f"{piece_id} cannot ambush {target} with a {pending['context']['d6']}")
    option = chosen[0]
    party["pieces"][piece_id]["location"] = {"kind": "pathway", "space": option["to"]}
    ctx.emit(
        action_events.AmbushPerformed(
            player=player,
            piece_id=piece_id,
            from_space=option["from"],
            to_space=option["to"],
            target_piece_id=target,
            form=form,
        )
    )
    _exhaust(ctx, player, party, "ambush", gain=True)
    night.advance(ctx)
