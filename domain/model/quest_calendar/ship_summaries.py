"""Quest Calendar events in words: dogfights, the ship, its crew and upgrades.

See ``domain.model.events.summaries``; each line reads only the event's stored details and figures.
"""

from __future__ import annotations

from domain.model.events.summaries import Facts, change, listed, outcome, summary, text, words


def _compartment(f: Facts) -> str:
    """A compartment by its name where the event records one, else by its key."""
    name = f.d.get("name")
    key = text(f.d["compartment"], 20)
    return f"{text(name, 40)} (compartment {key})" if name else f"compartment {key}"


@summary("qc.DogfightStarted")
def _dogfight_started(f: Facts) -> str:
    d = f.d
    return (
        f"Dogfight against {listed(d['enemies'])}, {d['rounds']} round(s) "
        f"(Aim {d['aim']}, Evasion {d['eva']}, Shield {d['shd']})"
    )


@summary("qc.AimRolled")
def _aim(f: Facts) -> str:
    d = f.d
    return (
        f"Round {d['round']} Aim: {d['value']} + {d['aim']} = {d['total']} against "
        f"{d['target']}: {outcome(d['hit'], 'hit', 'missed')}"
    )


@summary("qc.EvasionRolled")
def _evasion(f: Facts) -> str:
    d = f.d
    return (
        f"Round {d['round']} Evasion: {d['value']} + {d['eva']} = {d['total']} against enemy "
        f"Aim {d['enemy_aim']}: {words(d['tier'])} damage"
    )


@summary("qc.DogfightRoundResolved")
def _dogfight_round(f: Facts) -> str:
    d = f.d
    attack = f"hit, enemy {words(d['enemy_outcome'])}" if d["hit"] else "missed"
    return (
        f"Dogfight round {d['round']}: {attack}; incoming {d['incoming']} - Shield "
        f"{d['shield']} = {d['net_damage']} damage"
    )


@summary("qc.ShipDamageTaken")
def _ship_damage(f: Facts) -> str:
    d = f.d
    return (
        f"Round {d['round']}: the ship takes {d['raw']} - Shield {d['shield']} = {d['net']} damage"
    )


@summary("qc.CompartmentHit")
def _compartment_hit(f: Facts) -> str:
    d = f.d
    line = (
        f"Round {d['round']} damage point {d['point']}: d6 {d['d6']} hits {_compartment(f)} "
        f"(Integrity {change(d['integrity_before'], d['integrity_after'])})"
    )
    if d.get("overflow_to_hero"):
        line += f"; {d['overflow_to_hero']} overflows to the hero"
    return line


@summary("qc.CompartmentDestroyed")
def _compartment_destroyed(f: Facts) -> str:
    d = f.d
    lost = [f.name(x) for x in (d.get("crew_lost"), d.get("upgrade_lost")) if x]
    return f"{_compartment(f)} destroyed" + (f"; lost {listed(lost)}" if lost else "")


@summary("qc.DogfightEnded")
def _dogfight_ended(f: Facts) -> str:
    died = ": the hero died" if f.d.get("hero_died") else ""
    return f"Dogfight ended after {f.d['rounds_played']} round(s){died}"


@summary("qc.CrewHired")
def _crew_hired(f: Facts) -> str:
    d = f.d
    name = text(d.get("name") or d["crew_id"], 60)
    return (
        f"{name} hired for {d['fee']} credit(s) "
        f"(credits {change(d['credits_before'], d['credits_after'])})"
    )


@summary("qc.CrewAssigned")
def _crew_assigned(f: Facts) -> str:
    d = f.d
    return (
        f"{f.name(d['crew_id'])} assigned to {_compartment(f)}: +{d['integrity_bonus']} "
        f"Integrity, now {d['integrity_after']} of {d['integrity_max_after']}"
    )


@summary("qc.CrewDied")
def _crew_died(f: Facts) -> str:
    d = f.d
    lost = (
        f"; lost {listed([f.name(a) for a in d['abilities_lost']])}"
        if d.get("abilities_lost")
        else ""
    )
    return (
        f"{f.name(d['crew_id'])} died in {_compartment(f)}: max Integrity "
        f"-{d['integrity_bonus_lost']}, now {d['integrity_max_after']}{lost}"
    )


@summary("qc.ShipRepaired")
def _repaired(f: Facts) -> str:
    d = f.d
    by = f.name(d["ability_id"]) if d.get("ability_id") else words(d["source"])
    return (
        f"{_compartment(f)} repaired by {d['amount']} with {by} "
        f"(Integrity {change(d['integrity_before'], d['integrity_after'])} of {d['integrity_max']})"
    )


@summary("qc.UpgradeInstalled")
def _upgrade_installed(f: Facts) -> str:
    d = f.d
    replacing = (
        f", replacing {f.name(d['replaced_upgrade_id'])}" if d.get("replaced_upgrade_id") else ""
    )
    return f"Upgrade {f.name(d['upgrade_id'])} installed in {_compartment(f)}{replacing}"


@summary("qc.UpgradeRemoved")
def _upgrade_removed(f: Facts) -> str:
    d = f.d
    where = " to the inventory" if d.get("to_inventory") else ""
    return f"Upgrade {f.name(d['upgrade_id'])} removed from {_compartment(f)}{where}"


@summary("qc.UpgradeDestroyed")
def _upgrade_destroyed(f: Facts) -> str:
    return f"Upgrade {f.name(f.d['upgrade_id'])} destroyed with {_compartment(f)}"


@summary("qc.UpgradeSold")
def _upgrade_sold(f: Facts) -> str:
    d = f.d
    return (
        f"Upgrade {f.name(d['upgrade_id'])} sold for {d['price']} credit(s) "
        f"(credits {change(d['credits_before'], d['credits_after'])})"
    )
