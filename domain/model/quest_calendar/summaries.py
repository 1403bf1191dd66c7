"""Quest Calendar events in words: the hero, checks, combat and death
(``domain.model.events.summaries``).

Each summary reads the event's payload, decoded, and its rolls and figures; the unit tests
(tests/unit/test_summaries.py) name the rules whose outcome a line tells. Pages, shops and
credits are in ``economy_summaries``, dogfights and the ship in ``ship_summaries``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.events.payload import ABSENT
from domain.model.events.summaries import (
    Facts,
    added,
    change,
    choice,
    counted,
    given,
    listed,
    outcome,
    signed,
    summary,
    text,
    words,
)
from domain.model.quest_calendar import fight_events as fights
from domain.model.quest_calendar import hero_events as hero
from domain.model.quest_calendar import page_events as pages


def _malfunction(p: pages.CheckRolled | fights.ConditionCheckRolled) -> str:
    """Under Malfunction two d20s are rolled and the lower kept."""
    if not p.malfunction:
        return ""
    return f" (Malfunction: lower of {listed(p.faces)})"


def _hp(before: Any, after: Any) -> str:
    return f"(HP {change(before, after)})"


@summary(pages.HeroSelected)
def _hero_selected(p: pages.HeroSelected, f: Facts) -> str:
    hp = f.figures.get("hero.hp")
    health = f", HP {hp}" if hp is not None else ""
    credits = f", {p.credits} credits" if p.credits is not None else ""
    return f"Hero {f.name(p.hero_id)} chosen ({words(p.phase)}): level {p.level}{credits}{health}"


@summary(hero.TraitPointsAllocated)
def _traits(p: hero.TraitPointsAllocated, f: Facts) -> str:
    parts = [f"{text(trait)} {change(a['from'], a['to'])}" for trait, a in p.allocations.items()]
    return f"Trait points allocated: {', '.join(parts)}"


@summary(pages.CheckRolled)
def _check(p: pages.CheckRolled, f: Facts) -> str:
    label = f"{text(p.trait)} check"
    if p.purpose and p.purpose != label:
        label += f" ({text(p.purpose, 60)})"
    rolled = added(p.d20, p.trait_mod, p.booster, p.bonus, total=p.total)
    return f"{label}: {rolled} against {p.target}: {outcome(p.success)}{_malfunction(p)}"


@summary(fights.ConditionCheckRolled)
def _condition_check(p: fights.ConditionCheckRolled, f: Facts) -> str:
    rolled = added(p.d20, p.trait_mod, p.booster, p.bonus, total=p.total)
    result = f"{words(p.condition)}" if p.afflicted else "resisted"
    return (
        f"Round {p.round} {words(p.condition)} check ({text(p.trait)}): {rolled} "
        f"against {p.target}: {result}{_malfunction(p)}"
    )


@summary(hero.AbilityUsed)
def _ability(p: hero.AbilityUsed, f: Facts) -> str:
    if p.effect == "reroll" and p.before is not ABSENT and p.after is not ABSENT:
        return _reroll_words(p, f)
    line = f"{f.name(p.ability_id)} used ({words(p.context)})"
    if p.effect:
        line += f": {words(p.effect)}"
    if p.total_before is not ABSENT and p.total is not ABSENT:
        roll = "total" if p.roll is ABSENT else p.roll
        line += f", {words(roll)} {change(p.total_before, p.total)}"
    elif p.before is not ABSENT and p.after is not ABSENT:
        line += f", {change(text(p.before, 40), text(p.after, 40))}"
    elif p.bonus:
        line += f", +{p.bonus}"
    for found, yes, no in ((p.success, "success", "failed"), (p.hit, "hit", "missed")):
        if given(found) is not None:
            line += f": {outcome(found, yes, no)}"
    if p.tier:
        line += f": {words(p.tier)} tier"
    if p.uses_left is not None:
        line += f" ({counted(p.uses_left, 'use')} left)"
    return line


def _reroll_words(p: hero.AbilityUsed, f: Facts) -> str:
    """An ability's reroll says which roll it rolled again, what it showed before and after, and
    how that roll came out: "Foresight: the attack roll 2 → 1, a hit" (QC-14)."""
    which = f"the {words(p.roll)} roll" if p.roll else "the roll"
    rolled = change(_reroll_value(p.before), _reroll_value(p.after))
    line = f"{f.name(p.ability_id)}: {which} {rolled}"
    for found, yes, no in ((p.hit, "a hit", "a miss"), (p.success, "a success", "a failure")):
        if given(found) is not None:
            line += f", {outcome(found, yes, no)}"
    if p.uses_left is not None:
        line += f" ({counted(p.uses_left, 'use')} left)"
    return line


def _reroll_value(faces: Any) -> str:
    """A roll's value before or after a reroll: a number, or its faces."""
    if isinstance(faces, list):
        return ", ".join(text(face, 10) for face in faces[:6]) or "none"
    return text(faces, 20)


@summary(hero.AbilityUsesReset)
def _uses_reset(p: hero.AbilityUsesReset, f: Facts) -> str:
    names = listed([f.name(a) for a in p.abilities])
    return f"Uses restored ({words(p.cause)}): {names}"


@summary(hero.PerRestAbilitiesExhausted)
def _per_rest_exhausted(p: hero.PerRestAbilitiesExhausted, f: Facts) -> str:
    drained = "; surge pool drained" if p.pool_drained else ""
    names = listed([f.name(a) for a in p.abilities])
    return f"Per-rest abilities spent ({words(p.cause)}): {names}{drained}"


@summary(pages.SurgeSpent)
def _surge_spent(p: pages.SurgeSpent, f: Facts) -> str:
    return f"{p.cost} surge spent on {f.name(p.ability_id)}: {p.remaining} of {p.pool_max} left"


@summary(hero.SurgesRestored)
def _surges_restored(p: hero.SurgesRestored, f: Facts) -> str:
    return f"Surge pool +{p.restored} ({words(p.cause)}), pool of {p.pool_max}"


@summary(hero.ChoiceMade)
def _choice(p: hero.ChoiceMade, f: Facts) -> str:
    return f"Choice {text(p.choice_id, 40)}: {listed(p.selected_options)} (of {listed(p.options)})"


@summary(hero.ConditionApplied)
def _condition_applied(p: hero.ConditionApplied, f: Facts) -> str:
    return (
        f"The hero gains the {words(p.condition)} condition "
        f"({words(p.duration)}; from {text(p.source, 40)})"
    )


@summary(hero.ConditionCleared)
def _condition_cleared(p: hero.ConditionCleared, f: Facts) -> str:
    by = f", with {f.name(p.source)}" if p.source else ""
    return f"The hero loses the {words(p.condition)} condition ({words(p.cause)}{by})"


@summary(hero.ConditionNotStacked)
def _not_stacked(p: hero.ConditionNotStacked, f: Facts) -> str:
    return (
        f"The hero already has the {words(p.condition)} condition: not applied again "
        f"({words(p.reason)}; from {text(p.source, 40)})"
    )


@summary(fights.CombatStarted)
def _combat_started(p: fights.CombatStarted, f: Facts) -> str:
    enemies = [e.get("enemy") if isinstance(e, Mapping) else e for e in p.enemies]
    return (
        f"{words(p.mode).capitalize()} combat ({words(p.kind)}), "
        f"{counted(p.rounds, 'round')} against {listed(enemies)}"
    )


@summary(fights.AttackRolled)
def _attack(p: fights.AttackRolled, f: Facts) -> str:
    if p.d20 is None:
        rolled = f"no roll, total {p.total}"
    else:
        rolled = f"{p.d20}{signed(p.atk)}{signed(p.bonus)} = {p.total}"
    states = [
        s for s, found in (("frightened", p.frightened), ("restrained", p.restrained)) if found
    ]
    state = f" ({', '.join(states)})" if states else ""
    return (
        f"Round {p.round} {words(p.attempt)} attack{state}: {rolled} against "
        f"{p.hit_target}: {outcome(p.hit, 'hit', 'missed')}"
    )


@summary(fights.DamageRolled)
def _damage(p: fights.DamageRolled, f: Facts) -> str:
    line = (
        f"Round {p.round} {words(p.attempt)} damage: {text(p.dice, 20)} rolled "
        f"{p.dice_total}{signed(p.flat_mods)}{signed(p.bonus)} = {p.total}"
    )
    found = (("doubled", p.doubled), ("confused", p.confused), ("restrained", p.restrained))
    notes = [note for note, noted in found if noted]
    return line + (f" ({', '.join(notes)})" if notes else "")


@summary(fights.ExtraAttackResolved)
def _extra_attack(p: fights.ExtraAttackResolved, f: Facts) -> str:
    extra = f"hit for {p.extra_damage}" if p.extra_hit else "missed"
    first = f"hit for {p.first_damage}" if p.first_hit else "missed"
    return (
        f"Round {p.round} extra attack {extra} (first attack {first}): "
        f"{p.combined_damage} damage in all"
    )


@summary(fights.CombatRoundResolved)
def _round(p: fights.CombatRoundResolved, f: Facts) -> str:
    enemy = text(p.enemy, 60)
    if p.hit:
        attack = f"hit for {p.damage_dealt} of {p.damage_needed} needed"
    else:
        attack = f"missed ({p.damage_needed} damage needed)"
    line = f"Round {p.round} against {enemy}: {attack}, round {outcome(p.won, 'won', 'lost')}"
    if p.enemy_outcome:
        line += f" ({enemy} {words(p.enemy_outcome)})"
    if p.damage_taken:
        tier = f" ({words(p.defense_tier)} damage)" if p.defense_tier else ""
        line += f"; {enemy} hits for {p.damage_taken}{tier}"
    if p.abilities:
        line += f" (with {listed([f.name(a) for a in p.abilities])})"
    return line


@summary(fights.CombatEnded)
def _combat_ended(p: fights.CombatEnded, f: Facts) -> str:
    return (
        f"Combat ended ({words(p.ended_by)}): {p.rounds_won} of "
        f"{counted(p.rounds_played, 'round')} won, "
        f"{counted(p.enemies_remaining, 'enemy', 'enemies')} left"
    )


@summary(hero.HeroDamaged)
def _damaged(p: hero.HeroDamaged, f: Facts) -> str:
    return f"The hero takes {p.amount} damage ({words(p.cause)}) {_hp(p.hp_before, p.hp_after)}"


@summary(hero.HeroHealed)
def _healed(p: hero.HeroHealed, f: Facts) -> str:
    by = f" with {f.name(p.source)}" if p.source else ""
    rolled = f" (rolled {p.rolled})" if given(p.rolled) not in (None, p.amount) else ""
    line = f"The hero heals {p.amount}{by}{rolled} {_hp(p.hp_before, p.hp_after)}"
    if p.hp_max_before is not ABSENT and p.hp_max_after is not ABSENT:
        line += f", max HP {change(p.hp_max_before, p.hp_max_after)}"
    return line


@summary(hero.Died)
def _died(p: hero.Died, f: Facts) -> str:
    ended = f"; ended {listed(p.encounters_ended)}" if p.encounters_ended else ""
    when = "with no page open" if p.page_date is None else f"on {text(p.page_date, 20)}"
    # the HP recorded is the clone's, told by Cloned: the death itself is HP 0 (QC-41)
    return f"The hero died, killed by {words(p.cause)}, {when}: HP 0, cloning follows{ended}"


CLONE_PRICES = {
    1: "half the credits lost",
    2: "a physical injury",
    3: "an equipment item lost",
    4: "a rushed clone: per-rest abilities used up",
}
"""What each face of the clone cost d4 costs (QC-43..QC-47)."""


@summary(hero.CloneRollMade)
def _clone_roll(p: hero.CloneRollMade, f: Facts) -> str:
    line = f"Clone cost roll: the d4 shows {p.d4}"
    if p.rerolled or not p.applied:
        return f"{line}, which cannot apply ({words(p.reason or 'no reason')}): rolled again"
    return f"{line}: {CLONE_PRICES.get(p.d4, 'its result')}"


@summary(hero.Cloned)
def _cloned(p: hero.Cloned, f: Facts) -> str:
    line = (
        f"Cloned back to life (clone roll {p.outcome}, after {words(p.cause)}): "
        f"HP {p.hp_after} of {p.hp_max}"
    )
    if p.replaced:
        line += ", a new hero replaces the old"
    if p.conditions_cleared:
        line += f"; cleared {listed([words(c) for c in p.conditions_cleared])}"
    return line


@summary(hero.InjurySuffered)
def _injury(p: hero.InjurySuffered, f: Facts) -> str:
    return f"Clone injury: d10 {p.d10_value}: {words(p.stat)} -{p.amount}"


@summary(hero.InjuryRemoved)
def _injury_removed(p: hero.InjuryRemoved, f: Facts) -> str:
    by = f" with {f.name(p.source)}" if p.source else ""
    return (
        f"Injury to {words(p.stat)} removed ({words(p.cause)}{by}): "
        f"+{p.amount}, {counted(p.count, 'injury', 'injuries')}"
    )


@summary(hero.HeroReplaced)
def _replaced(p: hero.HeroReplaced, f: Facts) -> str:
    credits = f", {p.credits} credits" if p.credits is not None else ""
    carried = f"; carried over {listed(p.carried)}" if p.carried else ""
    old = text(p.old_hero_name, 60) if p.old_hero_name else f"Hero {f.name(p.old_hero_id)}"
    return f"{old} replaced by {f.name(p.new_hero_id)} (level {p.level}{credits}){carried}"


@summary(pages.InfectionTicked)
def _infection(p: pages.InfectionTicked, f: Facts) -> str:
    lost = f": {p.hp_lost} HP lost" if p.hp_lost else ": no HP lost"
    return f"Infected roll on {text(p.page_date, 20)}: {p.total}{lost}"


@summary(fights.DecisionRequested)
def _decision(p: fights.DecisionRequested, f: Facts) -> str:
    return f"Decision for the hero: {words(p.decision)}; {_asks(p.options)}"


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
