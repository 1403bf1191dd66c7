"""Quest Calendar events in words: the hero, checks, combat and death
(``domain.model.events.summaries``).

Each summary reads only the event's stored details, rolls and figures; the unit tests
(tests/unit/test_summaries.py) name the rules whose outcome a line tells. Pages, shops and
credits are in ``economy_summaries``, dogfights and the ship in ``ship_summaries``.
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
    listed,
    outcome,
    signed,
    summary,
    text,
    words,
)


def _malfunction(d: Mapping[str, Any]) -> str:
    """Under Malfunction two d20s are rolled and the lower kept."""
    if not d.get("malfunction"):
        return ""
    return f" (Malfunction: lower of {listed(d.get('faces'))})"


def _hp(f: Facts, before: Any, after: Any) -> str:
    return f"(HP {change(before, after)})"


@summary("qc.HeroSelected")
def _hero_selected(f: Facts) -> str:
    hp = f.figures.get("hero.hp")
    health = f", HP {hp}" if hp is not None else ""
    credits = f", {f.d['credits']} credits" if f.d.get("credits") is not None else ""
    phase = words(f.d.get("phase", "main"))
    return f"Hero {f.name(f.d['hero_id'])} chosen ({phase}): level {f.d['level']}{credits}{health}"


@summary("qc.TraitPointsAllocated")
def _traits(f: Facts) -> str:
    parts = [
        f"{text(trait)} {change(a['from'], a['to'])}" for trait, a in f.d["allocations"].items()
    ]
    return f"Trait points allocated: {', '.join(parts)}"


@summary("qc.CheckRolled")
def _check(f: Facts) -> str:
    d = f.d
    label = f"{text(d['trait'])} check"
    purpose = d.get("purpose")
    if purpose and purpose != label:
        label += f" ({text(purpose, 60)})"
    rolled = added(d["d20"], d.get("trait_mod"), d.get("booster"), d.get("bonus"), total=d["total"])
    return f"{label}: {rolled} against {d['target']}: {outcome(d['success'])}{_malfunction(d)}"


@summary("qc.ConditionCheckRolled")
def _condition_check(f: Facts) -> str:
    d = f.d
    rolled = added(d["d20"], d.get("trait_mod"), d.get("booster"), d.get("bonus"), total=d["total"])
    result = f"{words(d['condition'])}" if d["afflicted"] else "resisted"
    return (
        f"Round {d['round']} {words(d['condition'])} check ({text(d['trait'])}): {rolled} "
        f"against {d['target']}: {result}{_malfunction(d)}"
    )


@summary("qc.AbilityUsed")
def _ability(f: Facts) -> str:
    d = f.d
    if d.get("effect") == "reroll" and "before" in d and "after" in d:
        return _reroll_words(f)
    line = f"{f.name(d['ability_id'])} used ({words(d['context'])})"
    if d.get("effect"):
        line += f": {words(d['effect'])}"
    if "total_before" in d and "total" in d:
        line += f", {words(d.get('roll', 'total'))} {change(d['total_before'], d['total'])}"
    elif "before" in d and "after" in d:
        line += f", {change(text(d['before'], 40), text(d['after'], 40))}"
    elif d.get("bonus"):
        line += f", +{d['bonus']}"
    for key, yes, no in (("success", "success", "failed"), ("hit", "hit", "missed")):
        if d.get(key) is not None:
            line += f": {outcome(d[key], yes, no)}"
    if d.get("tier"):
        line += f": {words(d['tier'])} tier"
    if d.get("uses_left") is not None:
        line += f" ({counted(d['uses_left'], 'use')} left)"
    return line


def _reroll_words(f: Facts) -> str:
    """An ability's reroll says which roll it rolled again, what it showed before and after, and
    how that roll came out: "Foresight: the attack roll 2 → 1, a hit" (QC-14)."""
    d = f.d
    which = f"the {words(d['roll'])} roll" if d.get("roll") else "the roll"
    rolled = change(_reroll_value(d["before"]), _reroll_value(d["after"]))
    line = f"{f.name(d['ability_id'])}: {which} {rolled}"
    for key, yes, no in (("hit", "a hit", "a miss"), ("success", "a success", "a failure")):
        if d.get(key) is not None:
            line += f", {outcome(d[key], yes, no)}"
    if d.get("uses_left") is not None:
        line += f" ({counted(d['uses_left'], 'use')} left)"
    return line


def _reroll_value(faces: Any) -> str:
    """A roll's value before or after a reroll: a number, or its faces."""
    if isinstance(faces, list):
        return ", ".join(text(face, 10) for face in faces[:6]) or "none"
    return text(faces, 20)


@summary("qc.AbilityUsesReset")
def _uses_reset(f: Facts) -> str:
    names = listed([f.name(a) for a in f.d["abilities"]])
    return f"Uses restored ({words(f.d['cause'])}): {names}"


@summary("qc.PerRestAbilitiesExhausted")
def _per_rest_exhausted(f: Facts) -> str:
    drained = "; surge pool drained" if f.d.get("pool_drained") else ""
    names = listed([f.name(a) for a in f.d["abilities"]])
    return f"Per-rest abilities spent ({words(f.d['cause'])}): {names}{drained}"


@summary("qc.SurgeSpent")
def _surge_spent(f: Facts) -> str:
    d = f.d
    return (
        f"{d['cost']} surge spent on {f.name(d['ability_id'])}: "
        f"{d['remaining']} of {d['pool_max']} left"
    )


@summary("qc.SurgesRestored")
def _surges_restored(f: Facts) -> str:
    d = f.d
    return f"Surge pool +{d['restored']} ({words(d['cause'])}), pool of {d['pool_max']}"


@summary("qc.ChoiceMade")
def _choice(f: Facts) -> str:
    d = f.d
    return (
        f"Choice {text(d['choice_id'], 40)}: {listed(d['selected_options'])} "
        f"(of {listed(d['options'])})"
    )


@summary("qc.ConditionApplied")
def _condition_applied(f: Facts) -> str:
    d = f.d
    return (
        f"The hero gains the {words(d['condition'])} condition "
        f"({words(d['duration'])}; from {text(d['source'], 40)})"
    )


@summary("qc.ConditionCleared")
def _condition_cleared(f: Facts) -> str:
    d = f.d
    by = f", with {f.name(d['source'])}" if d.get("source") else ""
    return f"The hero loses the {words(d['condition'])} condition ({words(d['cause'])}{by})"


@summary("qc.ConditionNotStacked")
def _not_stacked(f: Facts) -> str:
    d = f.d
    return (
        f"The hero already has the {words(d['condition'])} condition: not applied again "
        f"({words(d['reason'])}; from {text(d['source'], 40)})"
    )


@summary("qc.CombatStarted")
def _combat_started(f: Facts) -> str:
    d = f.d
    enemies = [e.get("enemy") if isinstance(e, Mapping) else e for e in d["enemies"]]
    return (
        f"{words(d['mode']).capitalize()} combat ({words(d['kind'])}), "
        f"{counted(d['rounds'], 'round')} against {listed(enemies)}"
    )


@summary("qc.AttackRolled")
def _attack(f: Facts) -> str:
    d = f.d
    if d["d20"] is None:
        rolled = f"no roll, total {d['total']}"
    else:
        rolled = f"{d['d20']}{signed(d['atk'])}{signed(d.get('bonus'))} = {d['total']}"
    states = [s for s in ("frightened", "restrained") if d.get(s)]
    state = f" ({', '.join(states)})" if states else ""
    return (
        f"Round {d['round']} {words(d['attempt'])} attack{state}: {rolled} against "
        f"{d['hit_target']}: {outcome(d['hit'], 'hit', 'missed')}"
    )


@summary("qc.DamageRolled")
def _damage(f: Facts) -> str:
    d = f.d
    line = (
        f"Round {d['round']} {words(d['attempt'])} damage: {text(d['dice'], 20)} rolled "
        f"{d['dice_total']}{signed(d.get('flat_mods'))}{signed(d.get('bonus'))} = {d['total']}"
    )
    notes = [n for n in ("doubled", "confused", "restrained") if d.get(n)]
    return line + (f" ({', '.join(notes)})" if notes else "")


@summary("qc.ExtraAttackResolved")
def _extra_attack(f: Facts) -> str:
    d = f.d
    extra = f"hit for {d['extra_damage']}" if d["extra_hit"] else "missed"
    first = f"hit for {d['first_damage']}" if d["first_hit"] else "missed"
    return (
        f"Round {d['round']} extra attack {extra} (first attack {first}): "
        f"{d['combined_damage']} damage in all"
    )


@summary("qc.CombatRoundResolved")
def _round(f: Facts) -> str:
    d = f.d
    enemy = text(d["enemy"], 60)
    if d["hit"]:
        attack = f"hit for {d['damage_dealt']} of {d['damage_needed']} needed"
    else:
        attack = f"missed ({d['damage_needed']} damage needed)"
    line = f"Round {d['round']} against {enemy}: {attack}, round {outcome(d['won'], 'won', 'lost')}"
    if d.get("enemy_outcome"):
        line += f" ({enemy} {words(d['enemy_outcome'])})"
    if d.get("damage_taken"):
        tier = f" ({words(d['defense_tier'])} damage)" if d.get("defense_tier") else ""
        line += f"; {enemy} hits for {d['damage_taken']}{tier}"
    if d.get("abilities"):
        line += f" (with {listed([f.name(a) for a in d['abilities']])})"
    return line


@summary("qc.CombatEnded")
def _combat_ended(f: Facts) -> str:
    d = f.d
    return (
        f"Combat ended ({words(d['ended_by'])}): {d['rounds_won']} of "
        f"{counted(d['rounds_played'], 'round')} won, "
        f"{counted(d['enemies_remaining'], 'enemy', 'enemies')} left"
    )


@summary("qc.HeroDamaged")
def _damaged(f: Facts) -> str:
    d = f.d
    return (
        f"The hero takes {d['amount']} damage ({words(d['cause'])}) "
        f"{_hp(f, d['hp_before'], d['hp_after'])}"
    )


@summary("qc.HeroHealed")
def _healed(f: Facts) -> str:
    d = f.d
    by = f" with {f.name(d['source'])}" if d.get("source") else ""
    rolled = f" (rolled {d['rolled']})" if d.get("rolled") not in (None, d["amount"]) else ""
    line = f"The hero heals {d['amount']}{by}{rolled} {_hp(f, d['hp_before'], d['hp_after'])}"
    if "hp_max_before" in d and "hp_max_after" in d:
        line += f", max HP {change(d['hp_max_before'], d['hp_max_after'])}"
    return line


@summary("qc.Died")
def _died(f: Facts) -> str:
    d = f.d
    ended = f"; ended {listed(d['encounters_ended'])}" if d.get("encounters_ended") else ""
    when = "with no page open" if d["page_date"] is None else f"on {text(d['page_date'], 20)}"
    # the HP recorded is the clone's, told by Cloned: the death itself is HP 0 (QC-41)
    return f"The hero died, killed by {words(d['cause'])}, {when}: HP 0, cloning follows{ended}"


CLONE_PRICES = {
    1: "half the credits lost",
    2: "a physical injury",
    3: "an equipment item lost",
    4: "a rushed clone: per-rest abilities used up",
}
"""What each face of the clone cost d4 costs (QC-43..QC-47)."""


@summary("qc.CloneRollMade")
def _clone_roll(f: Facts) -> str:
    d = f.d
    line = f"Clone cost roll: the d4 shows {d['d4']}"
    if d.get("rerolled") or not d.get("applied", True):
        return f"{line}, which cannot apply ({words(d.get('reason') or 'no reason')}): rolled again"
    return f"{line}: {CLONE_PRICES.get(d['d4'], 'its result')}"


@summary("qc.Cloned")
def _cloned(f: Facts) -> str:
    d = f.d
    line = (
        f"Cloned back to life (clone roll {d['outcome']}, after {words(d['cause'])}): "
        f"HP {d['hp_after']} of {d['hp_max']}"
    )
    if d.get("replaced"):
        line += ", a new hero replaces the old"
    if d.get("conditions_cleared"):
        line += f"; cleared {listed([words(c) for c in d['conditions_cleared']])}"
    return line


@summary("qc.InjurySuffered")
def _injury(f: Facts) -> str:
    d = f.d
    return f"Clone injury: d10 {d['d10_value']}: {words(d['stat'])} -{d['amount']}"


@summary("qc.InjuryRemoved")
def _injury_removed(f: Facts) -> str:
    d = f.d
    by = f" with {f.name(d['source'])}" if d.get("source") else ""
    return (
        f"Injury to {words(d['stat'])} removed ({words(d['cause'])}{by}): "
        f"+{d['amount']}, {counted(d['count'], 'injury', 'injuries')}"
    )


@summary("qc.HeroReplaced")
def _replaced(f: Facts) -> str:
    d = f.d
    credits = f", {d['credits']} credits" if d.get("credits") is not None else ""
    carried = f"; carried over {listed(d['carried'])}" if d.get("carried") else ""
    old = (
        text(d["old_hero_name"], 60)
        if d.get("old_hero_name")
        else f"Hero {f.name(d['old_hero_id'])}"
    )
    return f"{old} replaced by {f.name(d['new_hero_id'])} (level {d['level']}{credits}){carried}"


@summary("qc.InfectionTicked")
def _infection(f: Facts) -> str:
    d = f.d
    lost = f": {d['hp_lost']} HP lost" if d.get("hp_lost") else ": no HP lost"
    return f"Infected roll on {text(d['page_date'], 20)}: {d['total']}{lost}"


@summary("qc.DecisionRequested")
def _decision(f: Facts) -> str:
    d = f.d
    return f"Decision for the hero: {words(d['decision'])}; {_asks(d.get('options'))}"


def _asks(options: Any) -> str:
    """What a decision offers: keep the hero or replace them (QC-48), else each choice."""
    listed_options = options if isinstance(options, list) else []
    shown = [
        (f"a new level {o.get('level')} hero" if o["replace"] else "keep the hero")
        if isinstance(o, Mapping) and "replace" in o
        else choice(o)
        for o in listed_options
    ]
    if shown and all(isinstance(o, Mapping) and "replace" in o for o in listed_options):
        return " or ".join(shown)
    return f"options: {listed(shown)}" if shown else "no options listed"
