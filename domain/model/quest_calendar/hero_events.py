"""The Quest Calendar events of the hero's abilities, death, items and rest (docs/events.md).

Each class is one event type: its name is the stored type, its docstring what happened,
its facts the details stored (``domain.model.events.payload``). The modules that emit an event
declare it to the game (``rules.declare``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.model.events.payload import ABSENT, Absent, Payload, event, fact


def _hero_replaced_v1_v2(details: dict[str, Any]) -> None:
    """A HeroReplaced of version 1 did not record the new hero's credits."""
    details.setdefault("credits", None)


@event
class AbilityUsed(Payload):
    """The hero used an ability."""

    ability_id: str = fact("the ability's id")
    context: str = fact("where it was used: combat, dogfight or outside")
    effect: str | None = fact("the ability's effect kind")
    target_check: int | Absent | None = fact("the check it was used on", default=ABSENT)
    usage: str = fact("how often it may be used")
    uses_left: int | None = fact("uses left (null if unlimited)")
    bonus: int | Absent = fact("the bonus added", default=ABSENT)
    success: bool | Absent | None = fact("whether it succeeded", default=ABSENT)
    total: int | Absent = fact("the roll's total after", default=ABSENT)
    total_before: int | Absent = fact("the total before", default=ABSENT)
    faces: Sequence[Any] | Absent = fact("the faces rolled", default=ABSENT)
    previous_faces: Sequence[Any] | Absent = fact("the faces before the reroll", default=ABSENT)
    hit: bool | Absent = fact("whether it hit", default=ABSENT)
    roll: str | Absent = fact("the roll it changed", default=ABSENT)
    round: int | Absent = fact("the round's number", default=ABSENT)
    tier: str | Absent = fact("the tier reached", default=ABSENT)
    after: int | Sequence[Any] | Absent = fact("the value after the ability", default=ABSENT)
    attempt: str | Absent = fact("the attack it was used on", default=ABSENT)
    before: int | Sequence[Any] | Absent = fact("the value before the ability", default=ABSENT)
    d100_faces: Mapping[str, Any] | Absent = fact(
        "the d100 pair's faces (tens and units)", default=ABSENT
    )
    damage_total: int | Absent = fact("the damage total", default=ABSENT)
    doubled: bool | Absent = fact("whether the damage was doubled", default=ABSENT)
    kept: str | Absent = fact("which roll was kept", default=ABSENT)


@event
class ConditionApplied(Payload):
    """The hero gained a condition."""

    condition: str = fact("the condition's name")
    duration: str = fact("how long it lasts")
    source: str = fact("what applied it")
    subject_id: str = fact("the hero's id")


@event
class ConditionNotStacked(Payload):
    """A condition the hero already had was not applied again."""

    condition: str = fact("the condition's name")
    reason: str = fact("why")
    source: str = fact("where it came from")
    subject_id: str = fact("the hero's id")


@event
class ChoiceMade(Payload):
    """The hero made a page choice."""

    choice_id: str = fact("the choice's id")
    options: Sequence[Any] = fact("the options offered")
    page_date: str = fact("the calendar page's date")
    selected_options: Sequence[Any] = fact("the options chosen")


@event
class HeroDamaged(Payload):
    """The hero lost hit points."""

    amount: int = fact("hit points lost")
    cause: str = fact("what caused it")
    hp_after: int = fact("the hero's hit points after")
    hp_before: int = fact("the hero's hit points before")


@event
class Died(Payload):
    """The hero died."""

    cause: str = fact("what killed the hero")
    encounters_ended: Sequence[Any] = fact("the encounters the death ended")
    hp_after: int = fact("the hero's hit points after")
    hp_max: int = fact("the hero's maximum hit points")
    page_date: str | None = fact("the calendar page's date (null if no page is open)")


@event
class CloneRollMade(Payload):
    """The cloning d4 was rolled."""

    applied: bool = fact("whether the result applies")
    d4: int = fact("the d4's face")
    reason: str | None = fact("why it must be rolled again (null if applied)")
    rerolled: bool = fact("whether the d4 must be rolled again")


@event
class CreditsChanged(Payload):
    """The hero's credits changed."""

    cause: str = fact("what caused it")
    delta: int = fact("the change in credits")
    from_: int = fact("credits before", stored_as="from")
    to: int = fact("credits after")
    icon_id: str | Absent = fact("the page icon's id", default=ABSENT)
    item_id: str | Absent = fact("the item's id", default=ABSENT)
    purpose: str | Absent = fact("what a payment was for", default=ABSENT)
    shop_id: str | Absent = fact("the shop's id", default=ABSENT)


@event
class InjurySuffered(Payload):
    """The hero suffered an injury."""

    amount: int = fact("how much the stat is lowered")
    d10_face: int = fact("the d10's face as rolled")
    d10_value: int = fact("the d10's value as read")
    stat: str = fact("the stat concerned")


@event
class EquipmentSacrificed(Payload):
    """The hero gave up equipment."""

    item_id: str = fact("the item's id")
    item_type: str | None = fact("the equipment slot (null if the item had none)")
    unequipped: Sequence[Any] = fact("the items unequipped")


@event
class PerRestAbilitiesExhausted(Payload):
    """Per-rest abilities lost their uses."""

    abilities: Sequence[Any] = fact("the per-rest abilities exhausted")
    cause: str = fact("what caused it")
    pool_drained: bool = fact("whether the surge pool was drained")


@event
class HeroReplaced(Payload):
    """A new hero replaced the old one."""

    VERSION = 2
    UPCASTERS = (_hero_replaced_v1_v2,)

    carried: Sequence[Any] = fact("what the new hero carried over")
    level: int = fact("the new hero's level")
    new_hero_id: str = fact("the new hero's id")
    old_hero_id: str = fact("the old hero's id")
    old_hero_name: str | Absent = fact(
        "the old hero's name (for the summary; absent before it)", default=ABSENT
    )
    credits: int | None = fact("the new hero's credits (null in version 1)")


@event
class ConditionCleared(Payload):
    """The hero lost a condition."""

    cause: str = fact("what caused it")
    condition: str = fact("the condition's name")
    source: str | Absent = fact("the item that cleared it", default=ABSENT)
    subject_id: str | Absent = fact("the hero's id", default=ABSENT)


@event
class Cloned(Payload):
    """The hero was cloned back to life."""

    cause: str = fact("what killed the hero")
    conditions_cleared: Sequence[Any] = fact("the conditions cleared")
    hp_after: int = fact("the hero's hit points after")
    hp_max: int = fact("the hero's maximum hit points")
    outcome: int = fact("the cloning outcome")
    replaced: bool = fact("whether the hero was replaced")


@event
class ItemUsed(Payload):
    """The hero used an item."""

    effect: Mapping[str, Any] = fact("the item's effect")
    item_id: str = fact("the item's id")
    name: str = fact("the item's name")
    timing: str = fact("when it was used")


@event
class HeroHealed(Payload):
    """The hero regained hit points."""

    amount: int = fact("hit points regained")
    cause: str = fact("what caused it")
    hp_after: int = fact("the hero's hit points after")
    hp_before: int = fact("the hero's hit points before")
    rolled: int | Absent = fact("the healing rolled", default=ABSENT)
    source: str | Absent = fact("the item that healed", default=ABSENT)
    hp_max_after: int | Absent = fact("maximum hit points after", default=ABSENT)
    hp_max_before: int | Absent = fact("maximum hit points before", default=ABSENT)


@event
class TraitBoosterApplied(Payload):
    """A trait booster took effect."""

    bonus: int | None = fact("the bonus (null when rolled per roll)")
    booster_after: int | Absent = fact("the booster's value after", default=ABSENT)
    booster_before: int | Absent = fact("the booster's value before", default=ABSENT)
    dice: str | None = fact("the booster's dice (null for a flat amount)")
    item_id: str = fact("the item's id")
    page_date: str = fact("the calendar page's date")
    per_roll: bool = fact("whether it applies to each roll")
    stack: bool = fact("whether it stacks")
    trait: str = fact("the trait")
    booster_dice: Sequence[Any] | Absent = fact("the booster dice kept", default=ABSENT)


@event
class InjuryRemoved(Payload):
    """An injury was healed."""

    amount: int = fact("how much the stat was lowered")
    cause: str = fact("what caused it")
    count: int = fact("how many injuries of that stat remain")
    source: str | Absent = fact("the item that healed it", default=ABSENT)
    stat: str = fact("the stat concerned")


@event
class Rested(Payload):
    """The hero rested."""

    conditions_cleared: Sequence[Any] = fact("the conditions cleared")
    equipment_day: bool = fact("whether the page is an equipment day")
    hp_restored: int = fact("hit points restored")
    injury_stat_restored: str | None = fact("the stat an injury stopped lowering, or null")
    page_date: str = fact("the calendar page's date")
    pool_restored: int = fact("surge points restored")
    uses_reset: Sequence[Any] = fact("the abilities whose uses were reset")


@event
class AbilityUsesReset(Payload):
    """Abilities regained their uses."""

    abilities: Sequence[Any] = fact("the abilities whose uses were reset")
    cause: str = fact("what caused it")


@event
class SurgesRestored(Payload):
    """The hero's surge pool was restored."""

    cause: str = fact("what caused it")
    pool_max: int = fact("the surge pool's maximum")
    restored: int = fact("surge points restored")


@event
class LevelledUp(Payload):
    """The hero levelled up."""

    from_level: int = fact("the level before")
    max_hp_gain: int = fact("maximum hit points gained")
    new_abilities: Sequence[Any] = fact("the abilities gained")
    new_capacity_available: bool = fact("whether new ability capacity is available")
    new_uses: Mapping[str, Any] = fact("ability uses gained, by ability")
    pool: Mapping[str, Any] | None = fact("the surge pool after (null without one)")
    to_level: int = fact("the level after")


@event
class TraitPointsAllocated(Payload):
    """Trait points were allocated."""

    allocations: Mapping[str, Any] = fact("trait points added, by trait")
