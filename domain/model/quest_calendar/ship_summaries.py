"""Quest Calendar events in words: dogfights, the ship, its crew and upgrades.

See ``domain.model.events.summaries``; each line reads the event's payload, decoded.
"""

from __future__ import annotations

from domain.model.events.summaries import Facts, change, listed, outcome, summary, text, words
from domain.model.quest_calendar import fight_events as fights


def _compartment(compartment: object, name: object = None) -> str:
    """A compartment by its name where the event records one, else by its key."""
    key = text(compartment, 20)
    return f"{text(name, 40)} (compartment {key})" if name else f"compartment {key}"


@summary(fights.DogfightStarted)
def _dogfight_started(p: fights.DogfightStarted, f: Facts) -> str:
    return (
        f"Dogfight against {listed(p.enemies)}, {p.rounds} round(s) "
        f"(Aim {p.aim}, Evasion {p.eva}, Shield {p.shd})"
    )


@summary(fights.AimRolled)
def _aim(p: fights.AimRolled, f: Facts) -> str:
    return (
        f"Round {p.round} Aim: {p.value} + {p.aim} = {p.total} against "
        f"{p.target}: {outcome(p.hit, 'hit', 'missed')}"
    )


@summary(fights.EvasionRolled)
def _evasion(p: fights.EvasionRolled, f: Facts) -> str:
    return (
        f"Round {p.round} Evasion: {p.value} + {p.eva} = {p.total} against enemy "
        f"Aim {p.enemy_aim}: {words(p.tier)} damage"
    )


@summary(fights.DogfightRoundResolved)
def _dogfight_round(p: fights.DogfightRoundResolved, f: Facts) -> str:
    attack = f"hit, enemy {words(p.enemy_outcome)}" if p.hit else "missed"
    return (
        f"Dogfight round {p.round}: {attack}; incoming {p.incoming} - Shield "
        f"{p.shield} = {p.net_damage} damage"
    )


@summary(fights.ShipDamageTaken)
def _ship_damage(p: fights.ShipDamageTaken, f: Facts) -> str:
    return f"Round {p.round}: the ship takes {p.raw} - Shield {p.shield} = {p.net} damage"


@summary(fights.CompartmentHit)
def _compartment_hit(p: fights.CompartmentHit, f: Facts) -> str:
    line = (
        f"Round {p.round} damage point {p.point}: d6 {p.d6} hits "
        f"{_compartment(p.compartment, p.name)} "
        f"(Integrity {change(p.integrity_before, p.integrity_after)})"
    )
    if p.overflow_to_hero:
        line += f"; {p.overflow_to_hero} overflows to the hero"
    return line


@summary(fights.CompartmentDestroyed)
def _compartment_destroyed(p: fights.CompartmentDestroyed, f: Facts) -> str:
    lost = [f.name(x) for x in (p.crew_lost, p.upgrade_lost) if x]
    destroyed = f"{_compartment(p.compartment, p.name)} destroyed"
    return destroyed + (f"; lost {listed(lost)}" if lost else "")


@summary(fights.DogfightEnded)
def _dogfight_ended(p: fights.DogfightEnded, f: Facts) -> str:
    died = ": the hero died" if p.hero_died else ""
    return f"Dogfight ended after {p.rounds_played} round(s){died}"


@summary(fights.CrewHired)
def _crew_hired(p: fights.CrewHired, f: Facts) -> str:
    name = text(p.name or p.crew_id, 60)
    return (
        f"{name} hired for {p.fee} credit(s) (credits {change(p.credits_before, p.credits_after)})"
    )


@summary(fights.CrewAssigned)
def _crew_assigned(p: fights.CrewAssigned, f: Facts) -> str:
    return (
        f"{f.name(p.crew_id)} assigned to {_compartment(p.compartment)}: +{p.integrity_bonus} "
        f"Integrity, now {p.integrity_after} of {p.integrity_max_after}"
    )


@summary(fights.CrewDied)
def _crew_died(p: fights.CrewDied, f: Facts) -> str:
    lost = f"; lost {listed([f.name(a) for a in p.abilities_lost])}" if p.abilities_lost else ""
    return (
        f"{f.name(p.crew_id)} died in {_compartment(p.compartment)}: max Integrity "
        f"-{p.integrity_bonus_lost}, now {p.integrity_max_after}{lost}"
    )


@summary(fights.ShipRepaired)
def _repaired(p: fights.ShipRepaired, f: Facts) -> str:
    by = f.name(p.ability_id) if p.ability_id else words(p.source)
    return (
        f"{_compartment(p.compartment)} repaired by {p.amount} with {by} "
        f"(Integrity {change(p.integrity_before, p.integrity_after)} of {p.integrity_max})"
    )


@summary(fights.UpgradeInstalled)
def _upgrade_installed(p: fights.UpgradeInstalled, f: Facts) -> str:
    replacing = f", replacing {f.name(p.replaced_upgrade_id)}" if p.replaced_upgrade_id else ""
    where = _compartment(p.compartment)
    return f"Upgrade {f.name(p.upgrade_id)} installed in {where}{replacing}"


@summary(fights.UpgradeRemoved)
def _upgrade_removed(p: fights.UpgradeRemoved, f: Facts) -> str:
    where = " to the inventory" if p.to_inventory else ""
    return f"Upgrade {f.name(p.upgrade_id)} removed from {_compartment(p.compartment)}{where}"


@summary(fights.UpgradeDestroyed)
def _upgrade_destroyed(p: fights.UpgradeDestroyed, f: Facts) -> str:
    return f"Upgrade {f.name(p.upgrade_id)} destroyed with {_compartment(p.compartment)}"


@summary(fights.UpgradeSold)
def _upgrade_sold(p: fights.UpgradeSold, f: Facts) -> str:
    return (
        f"Upgrade {f.name(p.upgrade_id)} sold for {p.price} credit(s) "
        f"(credits {change(p.credits_before, p.credits_after)})"
    )
