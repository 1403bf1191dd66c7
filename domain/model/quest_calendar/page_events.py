"""The Quest Calendar events of pages, checks, the economy and shops (docs/events.md).

Each class is one event type: its name is the stored type, its docstring what happened,
its facts the details stored (``domain.model.events.payload``). The modules that emit an event
declare it to the game (``rules.declare``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.model.events.payload import ABSENT, Absent, Payload, event, fact


def _hero_selected_v1_v2(details: dict[str, Any]) -> None:
    """A HeroSelected of version 1 did not record the hero's credits."""
    details.setdefault("credits", None)


def _page_ended_v1_v2(details: dict[str, Any]) -> None:
    """A PageEnded of version 1 did not record the figures the page left."""
    details.setdefault("figures", None)


def _shop_left_v1_v2(details: dict[str, Any]) -> None:
    """A ShopLeft of version 1 recorded at a page's end did not name the shop."""
    details.setdefault("shop_id", None)


@event
class CheckRolled(Payload):
    """A trait check was rolled."""

    bonus: int = fact("the bonus added")
    booster: int = fact("the trait booster added")
    check: int = fact("the check's index on the page")
    d20: int = fact("the d20 kept")
    faces: Sequence[Any] = fact("the faces rolled")
    malfunction: bool = fact("whether a malfunction applied")
    purpose: str = fact("what it was for")
    success: bool | None = fact("whether it succeeded (null without a target)")
    target: int | None = fact("the number to reach (null if none)")
    total: int = fact("the total")
    trait: str = fact("the trait")
    trait_mod: int = fact("the trait modifier")


@event
class PickpocketRolled(Payload):
    """The pickpocket d4 was rolled."""

    d4: int = fact("the d4's face")
    icon_id: str = fact("the page icon's id")
    pending: bool = fact("whether the hero must now decide")
    smuggler_bonus: int = fact("the smuggler's bonus")


@event
class Pickpocketed(Payload):
    """The hero picked a pocket (or declined to)."""

    credits_after: int = fact("the hero's credits after")
    credits_gained: int = fact("credits gained")
    d4: int = fact("the d4's face")
    declined: bool = fact("whether the hero declined")
    icon_id: str = fact("the page icon's id")
    smuggler_bonus: int = fact("the smuggler's bonus")
    virtue_lost: bool = fact("whether the hero lost virtue")


@event
class DebtPaid(Payload):
    """The hero paid off debt."""

    amount: int = fact("debt paid off")
    cause: str = fact("what caused it")
    cleared: bool = fact("whether the debt is cleared")
    credits_after: int = fact("the hero's credits after")


@event
class PaymentMade(Payload):
    """The hero paid for something."""

    cost: int = fact("the cost")
    credits_after: int = fact("the hero's credits after")
    credits_before: int = fact("the hero's credits before")
    mandatory: bool = fact("whether the payment was required")
    purpose: str = fact("what it was for")


@event
class DebtIncurred(Payload):
    """The hero went into debt."""

    already_in_debt: bool = fact("whether the hero was in debt before")
    credits_after: int = fact("the hero's credits after")
    penalty: int = fact("the debt penalty")
    purpose: str = fact("what it was for")
    shortfall: int = fact("credits missing")


@event
class CreditsStolen(Payload):
    """Credits were stolen from the hero."""

    credits_after: int = fact("the hero's credits after")
    requested: int = fact("credits the thief asked for")
    taken: int = fact("credits taken")


@event
class RationsConsumed(Payload):
    """The hero ate rations."""

    available: int = fact("rations the hero had")
    consumed: int = fact("rations eaten")
    hp_lost: int = fact("hit points lost")
    missing: int = fact("rations missing")
    required: int = fact("rations required")


@event
class LotteryPlayed(Payload):
    """The hero played the lottery."""

    applied: int = fact("the change actually applied")
    credits_after: int = fact("the hero's credits after")
    d6: int = fact("the d6's face")
    delta: int = fact("the credits the d6 gives or takes")
    page_date: str = fact("the calendar page's date")


@event
class HeroSelected(Payload):
    """A hero was chosen."""

    VERSION = 2
    UPCASTERS = (_hero_selected_v1_v2,)

    hero_id: str = fact("the hero's id")
    level: int = fact("the hero's level")
    phase: str = fact("the phase of the game")
    credits: int | None = fact("the hero's credits now (null in version 1)")


@event
class PageStarted(Payload):
    """A calendar page started."""

    is_sunday: bool = fact("whether the page is a Sunday")
    level_up_day: bool = fact("whether the page is a level-up day")
    page_date: str = fact("the calendar page's date")
    prologue_end: bool = fact("whether the page ends the prologue")
    rest_day: bool = fact("whether the page is a rest day")
    weekday: str = fact("the page's weekday")


@event
class PageEnded(Payload):
    """A calendar page ended."""

    VERSION = 2
    UPCASTERS = (_page_ended_v1_v2,)

    boosters_expired: Sequence[Any] = fact("the boosters that expired with the page")
    page_date: str = fact("the calendar page's date")
    prologue_complete: bool = fact("whether the prologue is complete")
    figures: Mapping[str, Any] | None = fact(
        "what the page left: pages_played, and the hero's hero_id, level, credits, hp, hp_max "
        "and virtue (null without a hero); null in version 1"
    )


@event
class ShopLeft(Payload):
    """The hero left a shop."""

    VERSION = 2
    UPCASTERS = (_shop_left_v1_v2,)

    shop_id: str | None = fact("the shop's id (null in a version 1 event of a page's end)")
    reason: str = fact("left, or pageEnded")


@event
class InfectionTicked(Payload):
    """An infection cost the hero hit points."""

    hp_lost: int = fact("hit points lost")
    page_date: str = fact("the calendar page's date")
    total: int = fact("the infection roll's total")


@event
class VirtueChanged(Payload):
    """The hero's virtue changed."""

    applied_delta: int = fact("the change actually applied (after bounds)")
    cause: str = fact("what caused it")
    from_: int = fact("virtue before", stored_as="from")
    requested_delta: int = fact("the change asked for")
    to: int = fact("virtue after")


@event
class ShopEntered(Payload):
    """The hero entered a shop."""

    page_date: str = fact("the calendar page's date")
    sells_upgrades: bool = fact("whether the shop sells ship upgrades")
    shop_id: str = fact("the shop's id")
    stock: Mapping[str, Any] = fact("prices by item id")


@event
class ItemBought(Payload):
    """The hero bought an item."""

    credits_after: int = fact("the hero's credits after")
    item_id: str = fact("the item's id")
    price: int = fact("the price")
    shop_id: str = fact("the shop's id")
    to_rations: bool = fact("whether it went to the rations")


@event
class ItemSold(Payload):
    """The hero sold an item."""

    credits_after: int = fact("the hero's credits after")
    from_rations: bool = fact("whether it was sold from the rations")
    item_id: str = fact("the item's id")
    price: int = fact("the price")
    shop_id: str = fact("the shop's id")


@event
class ItemGained(Payload):
    """The hero gained an item."""

    equipment_day: bool = fact("whether it is an equipment day")
    item_id: str = fact("the item's id")
    kind: str = fact("the item's kind")
    slot: str | None = fact("its equipment slot (null if none)")
    to_rations: bool = fact("whether it went to the rations")


@event
class EquipmentEquipped(Payload):
    """The hero equipped an item."""

    item_id: str = fact("the item's id")
    item_type: str = fact("the equipment slot")
    replaced_item_id: str | None = fact("the item it replaced (null if none)")
    name: str | Absent = fact("the item's name (for the summary; absent before it)", default=ABSENT)
    replaced_name: str | Absent = fact(
        "the replaced item's name (absent if none or unnamed)", default=ABSENT
    )
    timing: str = fact("when it happened")


@event
class EquipmentUnequipped(Payload):
    """The hero unequipped an item."""

    item_id: str = fact("the item's id")
    item_type: str = fact("the equipment slot")
    timing: str = fact("when it happened")


@event
class SurgeSpent(Payload):
    """The hero spent surge points."""

    ability_id: str = fact("the ability's id")
    cost: int = fact("the cost")
    pool_max: int = fact("the surge pool's maximum")
    remaining: int = fact("surge points left")
