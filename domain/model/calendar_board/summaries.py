"""Calendar Board events in words, naming the seat that acts (``domain.model.events.summaries``).

Each line reads only the event's stored details; the unit tests (tests/unit/test_summaries.py)
name the rules whose outcome a line tells.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


def _fate(f: Facts) -> str:
    """A roll that replaced another by a fate reroll says so (not which roll: its id is no word)."""
    return " (a fate reroll)" if f.d.get("fate_reroll_of") else ""


def _chosen(by: Any) -> str:
    return "chosen automatically" if by == "automatic" else f"chosen by {words(by)}"


def _wind(wind: Any) -> str:
    if not isinstance(wind, Mapping):
        return text(wind, 40)
    direction = f" {words(wind['direction'])}" if wind.get("direction") else ""
    return f"{words(wind.get('speed'))}{direction}"


@summary("cb.TurnStarted")
def _turn_started(f: Facts) -> str:
    return f"{_seat(f.d['player'])}'s turn begins (round {f.d['round']})"


@summary("cb.TurnActionsStarted")
def _actions_started(f: Facts) -> str:
    return f"{_seat(f.d['player'])} takes their actions (round {f.d['round']})"


@summary("cb.TurnEnded")
def _turn_ended(f: Facts) -> str:
    return f"{_seat(f.d['player'])}'s turn ends (round {f.d['round']})"


@summary("cb.TurnSkipped")
def _turn_skipped(f: Facts) -> str:
    d = f.d
    return f"{_seat(d['player'])}'s turn is skipped ({words(d['reason'])}, round {d['round']})"


@summary("cb.ActionDeclared")
def _declared(f: Facts) -> str:
    d = f.d
    return f"{_seat(d['player'])} declares {words(d['action'])} (weather: {words(d['weather'])})"


@summary("cb.MovementRolled")
def _movement(f: Facts) -> str:
    # A six earns a bonus roll unless the weather takes it away.
    d = f.d
    line = f"{_seat(d['player'])}'s {text(d['piece_id'], 20)} rolls {d['value']} to move"
    if d.get("bonus_roll_earned"):
        line += ": a bonus roll"
    elif d.get("bonus_roll_suppressed"):
        line += f": no bonus roll in {words(d['weather'])}"
    return line


@summary("cb.PieceMoved")
def _piece_moved(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['player'])}'s {text(d['piece_id'], 20)} moves "
        f"{counted(d['spaces'], 'space')}, from space {d['from_space']} to {d['to_space']}"
    )


@summary("cb.CalendarRolled")
def _calendar_rolled(f: Facts) -> str:
    return f"{_seat(f.d['holder'])} rolls the calendar d4: {f.d['d4']}"


@summary("cb.GodPieceMoved")
def _god_moved(f: Facts) -> str:
    d = f.d
    lost = f", {counted(d['pips_lost'], 'pip')} lost at the end" if d.get("pips_lost") else ""
    return (
        f"God piece moves {d['pips_used']} of {counted(d['pips_rolled'], 'pip')}: space "
        f"{change(d['from_space'], d['to_space'])}{lost}"
    )


@summary("cb.GodPieceReset")
def _god_reset(f: Facts) -> str:
    d = f.d
    return f"God piece back to space {d['to_space']} from {d['from_space']} ({words(d['timing'])})"


@summary("cb.CalendarLapCompleted")
def _lap(f: Facts) -> str:
    return f"Calendar lap {f.d['lap_number']} completed"


@summary("cb.SupplySpaceTriggered")
def _supply(f: Facts) -> str:
    d = f.d
    merged = f", merging {listed(d['merged_spaces'])}" if d.get("merged_spaces") else ""
    return f"Supply space {d['space_index']} fires ({words(d['how'])}){merged}"


@summary("cb.AmmoRegenerated")
def _ammo(f: Facts) -> str:
    d = f.d
    wasted = f", {d['wasted']} wasted" if d.get("wasted") else ""
    return (
        f"{_seat(d['player'])}'s {text(d['weapon_id'], 40)} regains {d['regen']} ammo "
        f"({change(d['before'], d['after'])} of {d['max']}{wasted}; {_chosen(d['chosen_by'])})"
    )


@summary("cb.AmmoRegenerationSkipped")
def _ammo_skipped(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['player'])} regains no ammo at space {d['space_index']} ({words(d['reason'])})"
    )


@summary("cb.WeatherSet")
def _weather_set(f: Facts) -> str:
    d = f.d
    when = "from tomorrow" if d.get("pending") else "now"
    hail = "; a hail save is due" if d.get("hail_save") else ""
    return (
        f"Space {d['space_index']} ({words(d['space_type'])}) sets the weather to "
        f"{words(d['weather'])} {when}; tonight: {words(d['in_force_tonight'])}{hail}"
    )


@summary("cb.WeatherActivated")
def _weather_on(f: Facts) -> str:
    d = f.d
    at = f" at {_seat(d['at_turn_of'])}'s turn" if d.get("at_turn_of") else " at night"
    return f"{words(d['weather']).capitalize()} weather in force{at} (round {d['round']})"


@summary("cb.WeatherEnded")
def _weather_off(f: Facts) -> str:
    return f"{words(f.d['weather']).capitalize()} weather ends ({words(f.d['reason'])})"


@summary("cb.ConditionApplied")
def _condition_on(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['player'])}'s {text(d['subject_id'], 20)} is {words(d['condition'])} "
        f"({words(d['duration'])}; from {words(d['source'])})"
    )


@summary("cb.ConditionCleared")
def _condition_off(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['player'])}'s {text(d['subject_id'], 20)} is no longer "
        f"{words(d['condition'])} ({words(d['cause'])})"
    )


@summary("cb.SleptDuringDay")
def _slept(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['party'])} sleeps through round {d['round']} "
        f"(exhaustion was {d['exhaustion_before']})"
    )


@summary("cb.ExhaustionChanged")
def _exhaustion(f: Facts) -> str:
    d = f.d
    return f"{_seat(d['party'])}'s exhaustion {change(d['from'], d['to'])} ({words(d['cause'])})"


NIGHT_ROLL_WORDS = {
    "calendar": "the calendar d4 that moves the god piece",
    "basketball": "the basketball shot (2d20)",
    "hail_save": "the hail save (d20)",
    "hail_damage": "the hail damage (d4)",
    "wind": "the wind d20",
    "annustaria": "the Annustaria Breaker check (d20)",
}
"""Each night roll a player is asked to make, in words."""


@summary("cb.DecisionRequested")
def _decision(f: Facts) -> str:
    d = f.d
    if d["decision"] == "night_roll" and isinstance(d.get("context"), Mapping):
        kind = str(d["context"].get("roll"))
        return f"{_seat(d['who'])} to roll {NIGHT_ROLL_WORDS.get(kind, words(kind))}"
    if d["decision"] == "supply_weapon":
        return _supply_weapon(f)
    return f"Decision for {_seat(d['who'])}: {words(d['decision'])}; {_asks(d.get('options'))}"


def _supply_weapon(f: Facts) -> str:
    """CB-15: the god piece landed on or passed a supply space, and the seat whose turn it is
    chooses which of its weapons the supply refills (or none, when the house rule allows)."""
    d = f.d
    found = d.get("context")
    context: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    space = context.get("space_index")
    where = f"supply space {space}" if isinstance(space, int) else "a supply space"
    weapons = [id_words(w) for w in d.get("options") or []]
    none = ", or none" if context.get("may_decline") else ""
    return (
        f"The god piece reached {where}: {_seat(d['who'])} chooses the weapon it refills "
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


@summary("cb.NightPhaseStarted")
def _night_started(f: Facts) -> str:
    d = f.d
    return (
        f"Night {d['night_number']} begins (round {d['round']}): god token with "
        f"{_seat(d['god_token_holder'])}, starting token with {_seat(d['starting_token_holder'])}"
    )


@summary("cb.NightPhaseEnded")
def _night_ended(f: Facts) -> str:
    d = f.d
    pending = f"; {words(d['weather_pending'])} weather to come" if d.get("weather_pending") else ""
    return f"Night {d['night_number']} ends; wind {_wind(d['wind'])}{pending}"


@summary("cb.GodTokenPassed")
def _token(f: Facts) -> str:
    d = f.d
    return (
        f"God token passes {_seat(d['from'])} → {_seat(d['to'])} "
        f"(night {d['night_number']}, {words(d['timing'])})"
    )


@summary("cb.WindRolled")
def _wind_rolled(f: Facts) -> str:
    return f"{_seat(f.d['holder'])} rolls the wind d20: {f.d['d20']}"


@summary("cb.WindSet")
def _wind_set(f: Facts) -> str:
    d = f.d
    now = _wind({"speed": d["speed"], "direction": d.get("direction")})
    return f"Wind {_wind(d['previous'])} → {now}"


@summary("cb.CeasefireAdvanced")
def _ceasefire(f: Facts) -> str:
    d = f.d
    capped = " (at its cap)" if d.get("capped") else ""
    return f"Ceasefire {change(d['from'], d['to'])}{capped}"


@summary("cb.AnnustarDamageValueChanged")
def _annustar(f: Facts) -> str:
    d = f.d
    return f"Annustar's damage value {change(d['from'], d['to'])} ({words(d['cause'])})"


@summary("cb.AnnustariaBreakerChecked")
def _breaker(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['holder'])}'s Annustaria breaker check {d['check']} of {d['checks']}: "
        f"{d['die_value']} against {d['target']}: {outcome(d['passed'], 'passed', 'failed')} "
        f"(damage value {d['value']})"
    )


@summary("cb.BasketballShotRolled")
def _basketball(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['holder'])}'s basketball shot: {d['d20a']} + {d['d20b']} = {d['total']} "
        f"against {d['threshold']}: {outcome(d['made'], 'made', 'missed')}"
    )


@summary("cb.NightActionTaken")
def _night_action(f: Facts) -> str:
    d = f.d
    order = d["order_index"] + 1
    return f"{_seat(d['player'])} takes the night action {words(d['action'])} (order {order})"


@summary("cb.NightCreatureActed")
def _creature(f: Facts) -> str:
    d = f.d
    chosen = f", target chosen by {_seat(d['chosen_by'])}" if d.get("chosen_by") else ""
    return (
        f"{text(d['creature_type'], 40)} {text(d['creature_id'], 20)} acts "
        f"(order {d['order_index'] + 1}){chosen}"
    )


@summary("cb.CreatureOrderChosen")
def _creature_order(f: Facts) -> str:
    d = f.d
    return f"{_seat(d['player'])} orders the {text(d['creature_type'], 40)}s: {listed(d['order'])}"


@summary("cb.HailSaveRolled")
def _hail_save(f: Facts) -> str:
    # The hail save: d20 + luck against the goal.
    d = f.d
    who = f"{_seat(d['player'])}'s hail save"
    if d.get("automatic"):
        return f"{who}: automatic {outcome(d['success'])}"
    rolled = added(d["die_value"], d.get("luck_mod"), total=d["total"])
    return f"{who}{_fate(f)}: {rolled} against {d['goal']}: {outcome(d['success'])}"


@summary("cb.HailDamageTaken")
def _hail_damage(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['player'])}'s {text(d['piece_id'], 20)} takes hail damage: d4 {d['d4']} "
        f"({text(d['damage_type'], 40)}; {_chosen(d['chosen_by'])})"
    )


@summary("cb.FateRerollUsed")
def _fate_used(f: Facts) -> str:
    d = f.d
    at = f" at {words(d['at'])}" if d.get("at") else ""
    roll = f"{words(d['roll'])} roll"
    return f"{_seat(d['player'])} spends a fate reroll on the {roll}{at}{_left(d.get('left'))}"


def _left(count: Any) -> str:
    """G-CB-01: how many fate rerolls are left; nothing when they are not counted (None)."""
    if count is None:
        return ""
    return " (none left)" if count == 0 else f" ({count} left)"


@summary("cb.FateRerollsRestored")
def _fate_restored(f: Facts) -> str:
    # House rule cb.fateReroll.refresh = night: each counted party's number comes back.
    players = f.d.get("players")
    if isinstance(players, Mapping) and players:
        counts = ", ".join(f"{_seat(p)} {text(n, 10)}" for p, n in players.items())
    else:
        counts = "none"
    return f"Night {text(f.d.get('night_number'), 10)}: fate rerolls come back ({counts})"


@summary("cb.FateRerollDeclined")
def _fate_declined(f: Facts) -> str:
    d = f.d
    roll = f"{words(d['roll'])} roll"
    return f"{_seat(d['player'])} keeps the {roll} (no fate reroll)"


@summary("cb.AmbushRolled")
def _ambush_rolled(f: Facts) -> str:
    d = f.d
    can = d.get("candidate_piece_ids") or []
    who = (
        f"{counted(len(can), 'piece')} can strike ({listed(can)})" if can else "no piece can strike"
    )
    return f"{_seat(d['player'])}'s ambush roll{_fate(f)}: d6 {d['d6']}: {who}"


@summary("cb.AmbushMissed")
def _ambush_missed(f: Facts) -> str:
    return f"{_seat(f.d['player'])}'s ambush misses (d6 {f.d['d6']})"


@summary("cb.AmbushPerformed")
def _ambush(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['player'])}'s {text(d['piece_id'], 20)} ambushes "
        f"{text(d['target_piece_id'], 20)} "
        f"({words(d['form'])}): space {change(d['from_space'], d['to_space'])}"
    )


@summary("cb.RizzAttempted")
def _rizz(f: Facts) -> str:
    # The rizz: d20 + INT against the defender's value.
    d = f.d
    won = f", wins a {words(d['chosen_partner_type'])}" if d.get("chosen_partner_type") else ""
    return (
        f"{_seat(d['player'])}'s rizz{_fate(f)}: "
        f"{added(d['die_value'], d.get('int_mod'), total=d['total'])} "
        f"against {d['defender_value']}: {outcome(d['success'])}{won}"
    )


@summary("cb.PartnerGained")
def _partner_gained(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['party'])} gains a {words(d['partner_type'])} (relationship {d['relationship']})"
    )


@summary("cb.PartnerLost")
def _partner_lost(f: Facts) -> str:
    d = f.d
    return f"{_seat(d['party'])} loses their {words(d['partner_type'])} ({words(d['reason'])})"


@summary("cb.RelationshipChanged")
def _relationship(f: Facts) -> str:
    d = f.d
    before = "none" if d.get("from") is None else d["from"]
    return (
        f"{_seat(d['party'])}'s relationship with their {words(d['partner_type'])}: "
        f"{change(before, d['to'])} ({words(d['cause'])})"
    )


@summary("cb.RestrictionApplied")
def _restricted(f: Facts) -> str:
    d = f.d
    return f"{_seat(d['party'])} may not use {listed(d['locks'])} until night {d['until']}"


@summary("cb.RestrictionLifted")
def _unrestricted(f: Facts) -> str:
    d = f.d
    return f"{_seat(d['party'])} may use {listed(d['locks'])} again"


@summary("cb.PieceEliminated")
def _eliminated(f: Facts) -> str:
    d = f.d
    return (
        f"{_seat(d['party'])}'s {text(d['piece_id'], 20)} is eliminated on space {d['space']} "
        f"({words(d['cause'])})"
    )
