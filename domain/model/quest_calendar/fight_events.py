"""The Quest Calendar events of combat, the ship and the shipyard (docs/events.md).

Each class is one event type: its name is the stored type, its docstring what happened,
its facts the details stored (``domain.model.events.payload``). The modules that emit an event
declare it to the game (``rules.declare``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.model.events.payload import ABSENT, Absent, Payload, event, fact


@event
class CombatStarted(Payload):
    """A combat started."""

    enemies: Sequence[Any] = fact("the enemies")
    kind: str = fact("the kind of combat")
    mode: str = fact("the combat mode")
    page_date: str = fact("the calendar page's date")
    rounds: int = fact("the number of rounds")


@event
class AttackRolled(Payload):
    """The hero's attack was rolled."""

    atk: int = fact("the hero's attack bonus")
    attempt: str = fact("which attempt in the round")
    bonus: int = fact("the bonus added")
    d20: int | None = fact("the d20 kept (null if no roll)")
    d20_faces: Sequence[Any] = fact("the d20 faces rolled")
    frightened: bool = fact("whether the hero was frightened")
    hit: bool = fact("whether it hit")
    hit_target: int = fact("the number to reach to hit")
    restrained: bool = fact("whether the hero was restrained")
    round: int = fact("the round's number")
    total: int | None = fact("the attack total (null if no roll)")


@event
class DamageRolled(Payload):
    """The hero's damage was rolled."""

    attempt: str = fact("which attempt in the round")
    bonus: int = fact("the bonus added")
    confused: bool = fact("whether the hero was confused")
    dice: str = fact("the damage dice notation")
    dice_total: int = fact("the dice's total")
    doubled: bool = fact("whether the damage was doubled")
    flat_mods: int = fact("flat modifiers added")
    raw_faces: Sequence[Any] = fact("the damage dice's faces")
    restrained: bool = fact("whether the hero was restrained")
    round: int = fact("the round's number")
    total: int = fact("the damage dealt")


@event
class DecisionRequested(Payload):
    """The game waits for the player's decision."""

    context: Mapping[str, Any] | Absent = fact("what the decision is about", default=ABSENT)
    decision: str = fact("the decision asked for")
    options: Sequence[Any] = fact("the options offered")
    rule: str = fact("the rule that asks for it")


@event
class ConditionCheckRolled(Payload):
    """A check against a condition was rolled in combat."""

    afflicted: bool = fact("whether the condition took hold")
    bonus: int = fact("the bonus added")
    booster: int = fact("the trait booster added")
    condition: str = fact("the condition's name")
    d20: int = fact("the d20 kept")
    faces: Sequence[Any] = fact("the faces rolled")
    malfunction: bool = fact("whether a malfunction applied")
    round: int = fact("the round's number")
    target: int = fact("the number to reach")
    total: int = fact("the total")
    trait: str = fact("the trait")
    trait_mod: int = fact("the trait modifier")


@event
class ExtraAttackResolved(Payload):
    """An extra attack was resolved."""

    combined_damage: int = fact("the damage of both attacks together")
    extra_damage: int = fact("the extra attack's damage")
    extra_hit: bool = fact("whether the extra attack hit")
    first_damage: int = fact("the first attack's damage")
    first_hit: bool = fact("whether the first attack hit")
    round: int = fact("the round's number")


@event
class CombatRoundResolved(Payload):
    """A combat round was resolved."""

    abilities: Sequence[Any] = fact("the abilities used in the round")
    condition: Mapping[str, Any] | None = fact("the condition checked in the round (null if none)")
    damage_dealt: int = fact("damage dealt to the enemy")
    damage_needed: int = fact("damage needed to win the round")
    damage_taken: int = fact("damage the hero took")
    defense_tier: str | None = fact("the defence tier reached (null if none)")
    enemy: str | None = fact("the enemy (null here)")
    enemy_outcome: str = fact("what happened to the enemy")
    hit: bool = fact("whether it hit")
    incoming: int = fact("the enemy's incoming damage")
    judged_on: str = fact("what the round was judged on")
    round: int = fact("the round's number")
    weakened: bool = fact("whether the enemy was weakened")
    won: bool = fact("whether the hero won the round")


@event
class CombatEnded(Payload):
    """A combat ended."""

    ended_by: str = fact("what ended it")
    enemies_remaining: int = fact("enemies not beaten")
    page_date: str = fact("the calendar page's date")
    rounds_played: int = fact("rounds played")
    rounds_unplayed: int = fact("rounds not played")
    rounds_won: int = fact("rounds won")


@event
class DogfightStarted(Payload):
    """A dogfight started."""

    aim: int = fact("the ship's aim value")
    enemies: Sequence[Any] = fact("the enemies")
    eva: int = fact("the ship's evasion value")
    page_date: str = fact("the calendar page's date")
    rounds: int = fact("the number of rounds")
    shd: int = fact("the ship's shield")


@event
class AimRolled(Payload):
    """The ship's aim was rolled in a dogfight round."""

    aim: int = fact("the ship's aim value")
    d100_faces: Mapping[str, Any] = fact("the d100 pair's faces (tens and units)")
    hit: bool = fact("whether it hit")
    round: int = fact("the round's number")
    target: int = fact("the number to reach")
    total: int = fact("the aim total")
    value: int = fact("the d100's value")


@event
class EvasionRolled(Payload):
    """The ship's evasion was rolled in a dogfight round."""

    d100_faces: Mapping[str, Any] = fact("the d100 pair's faces (tens and units)")
    enemy_aim: int = fact("the enemy's aim")
    eva: int = fact("the ship's evasion value")
    round: int = fact("the round's number")
    tier: str = fact("the tier reached")
    total: int = fact("the evasion total")
    value: int = fact("the d100's value")


@event
class DogfightRoundResolved(Payload):
    """A dogfight round was resolved."""

    enemy_outcome: str = fact("what happened to the enemy")
    hit: bool = fact("whether it hit")
    incoming: int = fact("the enemy's incoming damage")
    net_damage: int = fact("the damage after the shield")
    round: int = fact("the round's number")
    shield: int = fact("the ship's shield")


@event
class ShipDamageTaken(Payload):
    """The ship took damage."""

    net: int = fact("the damage after the shield")
    raw: int = fact("the damage before the shield")
    round: int = fact("the round's number")
    shield: int = fact("the ship's shield")


@event
class CompartmentHit(Payload):
    """A ship compartment was hit."""

    compartment: str = fact("the compartment's key")
    d6: int = fact("the d6's face")
    integrity_after: int = fact("the compartment's integrity after")
    integrity_before: int = fact("the compartment's integrity before")
    name: str = fact("the compartment's name")
    overflow_to_hero: int = fact("damage passed on to the hero")
    point: int = fact("the hit's number")
    round: int = fact("the round's number")


@event
class CompartmentDestroyed(Payload):
    """A ship compartment was destroyed."""

    compartment: str = fact("the compartment's key")
    crew_lost: str | None = fact("the crew member lost with it (null if none)")
    name: str = fact("the compartment's name")
    upgrade_lost: str | None = fact("the upgrade lost with it (null if none)")


@event
class CrewDied(Payload):
    """A crew member died."""

    abilities_lost: Sequence[Any] = fact("the ability ids lost with the crew member")
    compartment: str = fact("the compartment's key")
    crew_id: str = fact("the crew member's id")
    integrity_bonus_lost: int = fact("the integrity bonus lost")
    integrity_max_after: int = fact("the compartment's maximum integrity after")


@event
class UpgradeDestroyed(Payload):
    """A ship upgrade was destroyed."""

    compartment: str = fact("the compartment's key")
    stats_after: Mapping[str, Any] = fact("the ship's stats after")
    upgrade_id: str = fact("the upgrade's id")


@event
class DogfightEnded(Payload):
    """A dogfight ended."""

    hero_died: bool = fact("whether the hero died")
    page_date: str = fact("the calendar page's date")
    rounds_played: int = fact("rounds played")


@event
class ShipRepaired(Payload):
    """A ship compartment was repaired."""

    ability_id: str | None = fact("the ability used (null for ship parts)")
    amount: int = fact("integrity restored")
    compartment: str = fact("the compartment's key")
    integrity_after: int = fact("the compartment's integrity after")
    integrity_before: int = fact("the compartment's integrity before")
    integrity_max: int = fact("the compartment's maximum integrity")
    source: str = fact("shipParts or ability")
    upgrade_window: bool = fact("whether an upgrade may be installed now")


@event
class CrewHired(Payload):
    """A crew member was hired."""

    credits_after: int = fact("the hero's credits after")
    credits_before: int = fact("the hero's credits before")
    crew_id: str = fact("the crew member's id")
    fee: int = fact("the hiring fee")
    name: str = fact("the crew member's name")


@event
class CrewAssigned(Payload):
    """A crew member was assigned to a compartment."""

    abilities: Sequence[Any] = fact("the abilities the crew member brings")
    compartment: str = fact("the compartment's key")
    crew_id: str = fact("the crew member's id")
    integrity_after: int = fact("the compartment's integrity after")
    integrity_bonus: int = fact("the integrity the crew member adds")
    integrity_max_after: int = fact("the compartment's maximum integrity after")


@event
class UpgradeInstalled(Payload):
    """A ship upgrade was installed."""

    compartment: str = fact("the compartment's key")
    replaced_upgrade_id: str | None = fact("the upgrade it replaced (null if none)")
    stats_after: Mapping[str, Any] = fact("the ship's stats after")
    trigger: str = fact("what triggered it")
    upgrade_id: str = fact("the upgrade's id")


@event
class UpgradeRemoved(Payload):
    """A ship upgrade was removed."""

    compartment: str = fact("the compartment's key")
    to_inventory: bool = fact("whether it went to the inventory")
    upgrade_id: str = fact("the upgrade's id")


@event
class UpgradeSold(Payload):
    """A ship upgrade was sold."""

    credits_after: int = fact("the hero's credits after")
    credits_before: int = fact("the hero's credits before")
    price: int = fact("the price")
    shop_id: str = fact("the shop's id")
    upgrade_id: str = fact("the upgrade's id")
