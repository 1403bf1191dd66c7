"""Calendar Board events in words, naming the seat that acts (``domain.model.events.summaries``).

Each line reads the event's payload, decoded; the unit tests (tests/unit/test_summaries.py)
name the rules whose outcome a line tells.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.calendar_board import action_events as actions
from domain.model.calendar_board import board_events as board
from domain.model.events.summaries import (
    Facts,
    added,
    change,
    choice,
    counted,
    id_words,
    listed,
    outcome,
    summary,
    text,
    words,
)


def _seat(value: Any) -> str:
    return text(value, 40)


def _fate(fate_reroll_of: Any) -> str:
    """A roll that replaced another by a fate reroll says so (not which roll: its id is no word)."""
    return " (a fate reroll)" if fate_reroll_of else ""


def _chosen(by: Any) -> str:
    return "chosen automatically" if by == "automatic" else f"chosen by {words(by)}"


def _wind(wind: Any) -> str:
    if not isinstance(wind, Mapping):
        return text(wind, 40)
    direction = f" {words(wind['direction'])}" if wind.get("direction") else ""
    return f"{words(wind.get('speed'))}{direction}"


@summary(board.TurnStarted)
def _turn_started(p: board.TurnStarted, f: Facts) -> str:
    return f"{_seat(p.player)}'s turn begins (round {p.round})"


@summary(actions.TurnActionsStarted)
def _actions_started(p: actions.TurnActionsStarted, f: Facts) -> str:
    return f"{_seat(p.player)} takes their actions (round {p.round})"


@summary(board.TurnEnded)
def _turn_ended(p: board.TurnEnded, f: Facts) -> str:
    return f"{_seat(p.player)}'s turn ends (round {p.round})"


@summary(actions.TurnSkipped)
def _turn_skipped(p: actions.TurnSkipped, f: Facts) -> str:
    return f"{_seat(p.player)}'s turn is skipped ({words(p.reason)}, round {p.round})"


@summary(actions.ActionDeclared)
def _declared(p: actions.ActionDeclared, f: Facts) -> str:
    return f"{_seat(p.player)} declares {words(p.action)} (weather: {words(p.weather)})"


@summary(actions.MovementRolled)
def _movement(p: actions.MovementRolled, f: Facts) -> str:
    # A six earns a bonus roll unless the weather takes it away.
    line = f"{_seat(p.player)}'s {text(p.piece_id, 20)} rolls {p.value} to move"
    if p.bonus_roll_earned:
        line += ": a bonus roll"
    elif p.bonus_roll_suppressed:
        line += f": no bonus roll in {words(p.weather)}"
    return line


@summary(actions.PieceMoved)
def _piece_moved(p: actions.PieceMoved, f: Facts) -> str:
    return (
        f"{_seat(p.player)}'s {text(p.piece_id, 20)} moves "
        f"{counted(p.spaces, 'space')}, from space {p.from_space} to {p.to_space}"
    )


@summary(board.CalendarRolled)
def _calendar_rolled(p: board.CalendarRolled, f: Facts) -> str:
    return f"{_seat(p.holder)} rolls the calendar d4: {p.d4}"


@summary(board.GodPieceMoved)
def _god_moved(p: board.GodPieceMoved, f: Facts) -> str:
    lost = f", {counted(p.pips_lost, 'pip')} lost at the end" if p.pips_lost else ""
    return (
        f"God piece moves {p.pips_used} of {counted(p.pips_rolled, 'pip')}: space "
        f"{change(p.from_space, p.to_space)}{lost}"
    )


@summary(board.GodPieceReset)
def _god_reset(p: board.GodPieceReset, f: Facts) -> str:
    return f"God piece back to space {p.to_space} from {p.from_space} ({words(p.timing)})"


@summary(board.CalendarLapCompleted)
def _lap(p: board.CalendarLapCompleted, f: Facts) -> str:
    return f"Calendar lap {p.lap_number} completed"


@summary(board.SupplySpaceTriggered)
def _supply(p: board.SupplySpaceTriggered, f: Facts) -> str:
    merged = f", merging {listed(p.merged_spaces)}" if p.merged_spaces else ""
    return f"Supply space {p.space_index} fires ({words(p.how)}){merged}"


@summary(board.AmmoRegenerated)
def _ammo(p: board.AmmoRegenerated, f: Facts) -> str:
    wasted = f", {p.wasted} wasted" if p.wasted else ""
    return (
        f"{_seat(p.player)}'s {text(p.weapon_id, 40)} regains {p.regen} ammo "
        f"({change(p.before, p.after)} of {p.max}{wasted}; {_chosen(p.chosen_by)})"
    )


@summary(board.AmmoRegenerationSkipped)
def _ammo_skipped(p: board.AmmoRegenerationSkipped, f: Facts) -> str:
    return f"{_seat(p.player)} regains no ammo at space {p.space_index} ({words(p.reason)})"


@summary(board.WeatherSet)
def _weather_set(p: board.WeatherSet, f: Facts) -> str:
    when = "from tomorrow" if p.pending else "now"
    hail = "; a hail save is due" if p.hail_save else ""
    return (
        f"Space {p.space_index} ({words(p.space_type)}) sets the weather to "
        f"{words(p.weather)} {when}; tonight: {words(p.in_force_tonight)}{hail}"
    )


@summary(board.WeatherActivated)
def _weather_on(p: board.WeatherActivated, f: Facts) -> str:
    at = f" at {_seat(p.at_turn_of)}'s turn" if p.at_turn_of else " at night"
    return f"{words(p.weather).capitalize()} weather in force{at} (round {p.round})"


@summary(board.WeatherEnded)
def _weather_off(p: board.WeatherEnded, f: Facts) -> str:
    return f"{words(p.weather).capitalize()} weather ends ({words(p.reason)})"


@summary(board.ConditionApplied)
def _condition_on(p: board.ConditionApplied, f: Facts) -> str:
    return (
        f"{_seat(p.player)}'s {text(p.subject_id, 20)} is {words(p.condition)} "
        f"({words(p.duration)}; from {words(p.source)})"
    )


@summary(board.ConditionCleared)
def _condition_off(p: board.ConditionCleared, f: Facts) -> str:
    return (
        f"{_seat(p.player)}'s {text(p.subject_id, 20)} is no longer "
        f"{words(p.condition)} ({words(p.cause)})"
    )


@summary(actions.SleptDuringDay)
def _slept(p: actions.SleptDuringDay, f: Facts) -> str:
    return f"{_seat(p.party)} sleeps through round {p.round} (exhaustion was {p.exhaustion_before})"


@summary(actions.ExhaustionChanged)
def _exhaustion(p: actions.ExhaustionChanged, f: Facts) -> str:
    return f"{_seat(p.party)}'s exhaustion {change(p.from_, p.to)} ({words(p.cause)})"


NIGHT_ROLL_WORDS = {
    "calendar": "the calendar d4 that moves the god piece",
    "basketball": "the basketball shot (2d20)",
    "hail_save": "the hail save (d20)",
    "hail_damage": "the hail damage (d4)",
    "wind": "the wind d20",
    "annustaria": "the Annustaria Breaker check (d20)",
}
"""Each night roll a player is asked to make, in words."""


@summary(board.DecisionRequested)
def _decision(p: board.DecisionRequested, f: Facts) -> str:
    if p.decision == "night_roll" and isinstance(p.context, Mapping):
        kind = str(p.context.get("roll"))
        return f"{_seat(p.who)} to roll {NIGHT_ROLL_WORDS.get(kind, words(kind))}"
    if p.decision == "supply_weapon":
        return _supply_weapon(p)
    return f"Decision for {_seat(p.who)}: {words(p.decision)}; {_asks(p.options)}"


def _supply_weapon(p: board.DecisionRequested) -> str:
    """CB-15: the god piece landed on or passed a supply space, and the seat whose turn it is
    chooses which of its weapons the supply refills (or none, when the house rule allows)."""
    found = p.context
    context: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    space = context.get("space_index")
    where = f"supply space {space}" if isinstance(space, int) else "a supply space"
    weapons = [id_words(w) for w in p.options or []]
    none = ", or none" if context.get("may_decline") else ""
    return (
        f"The god piece reached {where}: {_seat(p.who)} chooses the weapon it refills "
        f"({listed(weapons)}{none})"
    )


def _asks(options: Any) -> str:
    """What a decision offers: an ambush's strikes (CB-35) as piece → target, else each choice."""
    listed_options = options if isinstance(options, list) else []
    shown = [
        f"{text(o['piece'], 20)} on {text(o['target'], 20)} (space {o.get('from')} → {o.get('to')})"
        if isinstance(o, Mapping) and "piece" in o and "target" in o
        else choice(o)
        for o in listed_options
    ]
    return f"options: {listed(shown)}" if shown else "no options listed"


@summary(board.NightPhaseStarted)
def _night_started(p: board.NightPhaseStarted, f: Facts) -> str:
    return (
        f"Night {p.night_number} begins (round {p.round}): god token with "
        f"{_seat(p.god_token_holder)}, starting token with {_seat(p.starting_token_holder)}"
    )


@summary(board.NightPhaseEnded)
def _night_ended(p: board.NightPhaseEnded, f: Facts) -> str:
    pending = f"; {words(p.weather_pending)} weather to come" if p.weather_pending else ""
    return f"Night {p.night_number} ends; wind {_wind(p.wind)}{pending}"


@summary(board.GodTokenPassed)
def _token(p: board.GodTokenPassed, f: Facts) -> str:
    return (
        f"God token passes {_seat(p.from_)} → {_seat(p.to)} "
        f"(night {p.night_number}, {words(p.timing)})"
    )


@summary(board.WindRolled)
def _wind_rolled(p: board.WindRolled, f: Facts) -> str:
    return f"{_seat(p.holder)} rolls the wind d20: {p.d20}"


@summary(board.WindSet)
def _wind_set(p: board.WindSet, f: Facts) -> str:
    now = _wind({"speed": p.speed, "direction": p.direction})
    return f"Wind {_wind(p.previous)} → {now}"


@summary(board.CeasefireAdvanced)
def _ceasefire(p: board.CeasefireAdvanced, f: Facts) -> str:
    capped = " (at its cap)" if p.capped else ""
    return f"Ceasefire {change(p.from_, p.to)}{capped}"


@summary(actions.AnnustarDamageValueChanged)
def _annustar(p: actions.AnnustarDamageValueChanged, f: Facts) -> str:
    return f"Annustar's damage value {change(p.from_, p.to)} ({words(p.cause)})"


@summary(actions.AnnustariaBreakerChecked)
def _breaker(p: actions.AnnustariaBreakerChecked, f: Facts) -> str:
    return (
        f"{_seat(p.holder)}'s Annustaria breaker check {p.check} of {p.checks}: "
        f"{p.die_value} against {p.target}: {outcome(p.passed, 'passed', 'failed')} "
        f"(damage value {p.value})"
    )


@summary(actions.BasketballShotRolled)
def _basketball(p: actions.BasketballShotRolled, f: Facts) -> str:
    return (
        f"{_seat(p.holder)}'s basketball shot: {p.d20a} + {p.d20b} = {p.total} "
        f"against {p.threshold}: {outcome(p.made, 'made', 'missed')}"
    )


@summary(actions.NightActionTaken)
def _night_action(p: actions.NightActionTaken, f: Facts) -> str:
    order = p.order_index + 1
    return f"{_seat(p.player)} takes the night action {words(p.action)} (order {order})"


@summary(actions.NightCreatureActed)
def _creature(p: actions.NightCreatureActed, f: Facts) -> str:
    chosen = f", target chosen by {_seat(p.chosen_by)}" if p.chosen_by else ""
    return (
        f"{text(p.creature_type, 40)} {text(p.creature_id, 20)} acts "
        f"(order {p.order_index + 1}){chosen}"
    )


@summary(actions.CreatureOrderChosen)
def _creature_order(p: actions.CreatureOrderChosen, f: Facts) -> str:
    return f"{_seat(p.player)} orders the {text(p.creature_type, 40)}s: {listed(p.order)}"


@summary(board.HailSaveRolled)
def _hail_save(p: board.HailSaveRolled, f: Facts) -> str:
    # The hail save: d20 + luck against the goal.
    who = f"{_seat(p.player)}'s hail save"
    if p.automatic:
        return f"{who}: automatic {outcome(p.success)}"
    rolled = added(p.die_value, p.luck_mod, total=p.total)
    return f"{who}{_fate(p.fate_reroll_of)}: {rolled} against {p.goal}: {outcome(p.success)}"


@summary(board.HailDamageTaken)
def _hail_damage(p: board.HailDamageTaken, f: Facts) -> str:
    return (
        f"{_seat(p.player)}'s {text(p.piece_id, 20)} takes hail damage: d4 {p.d4} "
        f"({text(p.damage_type, 40)}; {_chosen(p.chosen_by)})"
    )


@summary(actions.FateRerollUsed)
def _fate_used(p: actions.FateRerollUsed, f: Facts) -> str:
    at = f" at {words(p.at)}" if p.at else ""
    roll = f"{words(p.roll)} roll"
    return f"{_seat(p.player)} spends a fate reroll on the {roll}{at}{_left(p.left)}"


def _left(count: Any) -> str:
    """G-CB-01: how many fate rerolls are left; nothing when they are not counted (None)."""
    if count is None:
        return ""
    return " (none left)" if count == 0 else f" ({count} left)"


@summary(board.FateRerollsRestored)
def _fate_restored(p: board.FateRerollsRestored, f: Facts) -> str:
    # House rule cb.fateReroll.refresh = night: each counted party's number comes back.
    players = p.players
    if isinstance(players, Mapping) and players:
        counts = ", ".join(f"{_seat(seat)} {text(n, 10)}" for seat, n in players.items())
    else:
        counts = "none"
    return f"Night {text(p.night_number, 10)}: fate rerolls come back ({counts})"


@summary(board.FateRerollDeclined)
def _fate_declined(p: board.FateRerollDeclined, f: Facts) -> str:
    roll = f"{words(p.roll)} roll"
    return f"{_seat(p.player)} keeps the {roll} (no fate reroll)"


@summary(actions.AmbushRolled)
def _ambush_rolled(p: actions.AmbushRolled, f: Facts) -> str:
    can = p.candidate_piece_ids or []
    who = (
        f"{counted(len(can), 'piece')} can strike ({listed(can)})" if can else "no piece can strike"
    )
    return f"{_seat(p.player)}'s ambush roll{_fate(p.fate_reroll_of)}: d6 {p.d6}: {who}"


@summary(actions.AmbushMissed)
def _ambush_missed(p: actions.AmbushMissed, f: Facts) -> str:
    return f"{_seat(p.player)}'s ambush misses (d6 {p.d6})"


@summary(actions.AmbushPerformed)
def _ambush(p: actions.AmbushPerformed, f: Facts) -> str:
    return (
        f"{_seat(p.player)}'s {text(p.piece_id, 20)} ambushes "
        f"{text(p.target_piece_id, 20)} "
        f"({words(p.form)}): space {change(p.from_space, p.to_space)}"
    )


@summary(actions.RizzAttempted)
def _rizz(p: actions.RizzAttempted, f: Facts) -> str:
    # The rizz: d20 + INT against the defender's value.
    won = f", wins a {words(p.chosen_partner_type)}" if p.chosen_partner_type else ""
    return (
        f"{_seat(p.player)}'s rizz{_fate(p.fate_reroll_of)}: "
        f"{added(p.die_value, p.int_mod, total=p.total)} "
        f"against {p.defender_value}: {outcome(p.success)}{won}"
    )


@summary(actions.PartnerGained)
def _partner_gained(p: actions.PartnerGained, f: Facts) -> str:
    return f"{_seat(p.party)} gains a {words(p.partner_type)} (relationship {p.relationship})"


@summary(actions.PartnerLost)
def _partner_lost(p: actions.PartnerLost, f: Facts) -> str:
    return f"{_seat(p.party)} loses their {words(p.partner_type)} ({words(p.reason)})"


@summary(actions.RelationshipChanged)
def _relationship(p: actions.RelationshipChanged, f: Facts) -> str:
    before = "none" if p.from_ is None else p.from_
    return (
        f"{_seat(p.party)}'s relationship with their {words(p.partner_type)}: "
        f"{change(before, p.to)} ({words(p.cause)})"
    )


@summary(actions.RestrictionApplied)
def _restricted(p: actions.RestrictionApplied, f: Facts) -> str:
    return f"{_seat(p.party)} may not use {listed(p.locks)} until night {p.until}"


@summary(actions.RestrictionLifted)
def _unrestricted(p: actions.RestrictionLifted, f: Facts) -> str:
    return f"{_seat(p.party)} may use {listed(p.locks)} again"


@summary(actions.PieceEliminated)
def _eliminated(p: actions.PieceEliminated, f: Facts) -> str:
    return (
        f"{_seat(p.party)}'s {text(p.piece_id, 20)} is eliminated on space {p.space} "
        f"({words(p.cause)})"
    )
