"""Quest Calendar events in words: pages, Rest, level-ups, shops, items and credits.

See ``domain.model.events.summaries``; each line reads the event's payload, decoded, and its
figures.
"""

from __future__ import annotations

from typing import Any

from domain.model.events.payload import ABSENT
from domain.model.events.summaries import Facts, change, delta, listed, signed, summary, text, words
from domain.model.quest_calendar import hero_events as hero
from domain.model.quest_calendar import page_events as pages


def _credits(before: object, after: object) -> str:
    return f"(credits {change(before, after)})"


@summary(pages.PageStarted)
def _page_started(p: pages.PageStarted, f: Facts) -> str:
    found = (("Rest day", p.rest_day), ("level-up day", p.level_up_day))
    notes = [note for note, noted in found if noted]
    if p.prologue_end:
        notes.append("the prologue's last page")
    extra = f": {', '.join(notes)}" if notes else ""
    return f"Page {text(p.page_date, 20)} ({text(p.weekday, 12)}) begins{extra}"


@summary(pages.PageEnded)
def _page_ended(p: pages.PageEnded, f: Facts) -> str:
    line = f"Page {text(p.page_date, 20)} ends"
    played = f.figures.get("calendar.pages_played")
    if played is not None:
        line += f" ({played} page(s) played)"
    if p.boosters_expired:
        line += f"; boosters expired: {listed([f.name(b) for b in p.boosters_expired])}"
    if p.prologue_complete and _completes_prologue(f):
        line += "; the prologue is complete"
    return line


def _completes_prologue(f: Facts) -> bool:
    """Whether this page's end completed the prologue (its patch sets the calendar's flag), so
    that the line says it once, on that page, and not on every page after."""
    if f.effects is None:  # no patch stored: the line says it, as before
        return True
    return any(
        isinstance(op, dict) and op.get("path") == "/calendar/prologue_complete" for op in f.effects
    )


@summary(hero.Rested)
def _rested(p: hero.Rested, f: Facts) -> str:
    parts = [f"+{p.hp_restored} HP"]
    if p.injury_stat_restored:
        parts.append(f"{words(p.injury_stat_restored)} restored")
    if p.uses_reset:
        parts.append(f"uses back for {listed([f.name(a) for a in p.uses_reset])}")
    if p.pool_restored:
        parts.append(f"surge pool +{p.pool_restored}")
    if p.conditions_cleared:
        parts.append(f"cleared {listed([words(c) for c in p.conditions_cleared])}")
    return f"Rested on {text(p.page_date, 20)}: {', '.join(parts)}"


@summary(hero.LevelledUp)
def _levelled(p: hero.LevelledUp, f: Facts) -> str:
    line = f"Level {change(p.from_level, p.to_level)}: max HP +{p.max_hp_gain}"
    if p.new_abilities:
        line += f", new {listed([f.name(a) for a in p.new_abilities])}"
    pool: Any = p.pool
    if isinstance(pool, dict) and pool.get("max") is not None:
        line += f", surge pool of {pool['max']}"
    return line


@summary(pages.VirtueChanged)
def _virtue(p: pages.VirtueChanged, f: Facts) -> str:
    asked = p.requested_delta
    capped = (
        f" (asked {signed(asked).strip()}, held to the bounds)" if asked != p.applied_delta else ""
    )
    return f"Virtue {change(p.from_, p.to)} ({words(p.cause)}){capped}"


@summary(hero.TraitBoosterApplied)
def _booster(p: hero.TraitBoosterApplied, f: Facts) -> str:
    if p.per_roll or p.bonus is None:
        amount = f"{text(p.dice, 20)} on each roll"
    else:
        dice = f" ({text(p.dice, 20)})" if p.dice else ""  # none: a flat amount
        amount = f"+{p.bonus}{dice}"
    line = f"{f.name(p.item_id)} boosts {text(p.trait, 10)} by {amount}"
    if p.booster_before is not ABSENT and p.booster_after is not ABSENT:
        line += f" (booster {change(p.booster_before, p.booster_after)})"
    return line


@summary(pages.ShopEntered)
def _shop_entered(p: pages.ShopEntered, f: Facts) -> str:
    stock: Any = p.stock or {}
    wares = (
        [f"{f.name(i)} {price}" for i, price in stock.items()] if isinstance(stock, dict) else stock
    )
    upgrades = "; sells ship upgrades" if p.sells_upgrades else ""
    return f"Entered {f.name(p.shop_id)}: {listed(wares, 'nothing in stock')}{upgrades}"


@summary(pages.ShopLeft)
def _shop_left(p: pages.ShopLeft, f: Facts) -> str:
    # Version 1 had no shop_id when a page ended with a shop open (docs/events.md).
    name = f.name(p.shop_id) if p.shop_id else "the shop"
    return f"Left {name} ({words(p.reason)})"


@summary(pages.ItemBought)
def _bought(p: pages.ItemBought, f: Facts) -> str:
    after = p.credits_after
    where = " (to the rations)" if p.to_rations else ""
    return (
        f"Bought {f.name(p.item_id)}{where} at {f.name(p.shop_id)} for {p.price} "
        f"{_credits(after + p.price, after)}"
    )


@summary(pages.ItemSold)
def _sold(p: pages.ItemSold, f: Facts) -> str:
    after = p.credits_after
    return (
        f"Sold {f.name(p.item_id)} at {f.name(p.shop_id)} for {p.price} "
        f"{_credits(after - p.price, after)}"
    )


@summary(pages.ItemGained)
def _gained(p: pages.ItemGained, f: Facts) -> str:
    slot = f", {words(p.slot)}" if p.slot else ""
    where = " to the rations" if p.to_rations else ""
    return f"Gained {f.name(p.item_id)} ({words(p.kind)}{slot}){where}"


@summary(hero.ItemUsed)
def _used(p: hero.ItemUsed, f: Facts) -> str:
    name = text(p.name or f.name(p.item_id), 60)
    effect: Any = p.effect
    kind = f": {words(effect['kind'])}" if isinstance(effect, dict) and effect.get("kind") else ""
    return f"Used {name} ({words(p.timing)}){kind}"


@summary(pages.EquipmentEquipped)
def _equipped(p: pages.EquipmentEquipped, f: Facts) -> str:
    replaced = _item(f, p.replaced_item_id, p.replaced_name)
    replacing = f", replacing {replaced}" if p.replaced_item_id else ""
    slot = f"{words(p.item_type)}{replacing}"
    return f"Equipped {_item(f, p.item_id, p.name)} as {slot} ({words(p.timing)})"


def _item(f: Facts, item_id: object, name: object) -> str:
    """An item by the name the event recorded (``the Plasma Blade``), else by its id."""
    return f"the {text(name, 60)}" if name else f.name(item_id)


@summary(pages.EquipmentUnequipped)
def _unequipped(p: pages.EquipmentUnequipped, f: Facts) -> str:
    return f"Unequipped {f.name(p.item_id)} ({words(p.item_type)}, {words(p.timing)})"


@summary(hero.EquipmentSacrificed)
def _sacrificed(p: hero.EquipmentSacrificed, f: Facts) -> str:
    also = f"; also unequipped {listed([f.name(i) for i in p.unequipped])}" if p.unequipped else ""
    slot = "no slot" if p.item_type is None else words(p.item_type)
    return f"Sacrificed {f.name(p.item_id)} ({slot}){also}"


@summary(hero.CreditsChanged)
def _credits_changed(p: hero.CreditsChanged, f: Facts) -> str:
    what = [f.name(ident) for ident in (p.item_id, p.icon_id) if ident]
    if p.purpose:
        what.append(text(p.purpose, 60))
    about = f", {', '.join(what)}" if what else ""
    return f"Credits {change(p.from_, p.to)} ({delta(p.delta)}, {words(p.cause)}{about})"


@summary(pages.CreditsStolen)
def _stolen(p: pages.CreditsStolen, f: Facts) -> str:
    return (
        f"A thief takes {p.taken} of the {p.requested} credit(s) asked "
        f"(credits now {p.credits_after})"
    )


@summary(pages.PaymentMade)
def _payment(p: pages.PaymentMade, f: Facts) -> str:
    kind = "required" if p.mandatory else "optional"
    return (
        f"Paid {p.cost} for {text(p.purpose, 60)} ({kind}) "
        f"{_credits(p.credits_before, p.credits_after)}"
    )


@summary(pages.DebtIncurred)
def _debt(p: pages.DebtIncurred, f: Facts) -> str:
    again = ", already in debt" if p.already_in_debt else ""
    return (
        f"Debt for {text(p.purpose, 60)}: {p.shortfall} short, penalty {p.penalty}"
        f"{again} (credits now {p.credits_after})"
    )


@summary(pages.DebtPaid)
def _debt_paid(p: pages.DebtPaid, f: Facts) -> str:
    cleared = "; debt cleared" if p.cleared else ""
    return f"Repaid {p.amount} of debt ({words(p.cause)}): credits now {p.credits_after}{cleared}"


@summary(pages.LotteryPlayed)
def _lottery(p: pages.LotteryPlayed, f: Facts) -> str:
    applied = "" if p.applied == p.delta else f" ({delta(p.applied)} applied)"
    won = delta(p.delta)
    return f"Sunday lottery: d6 {p.d6}: {won} credits{applied}, now {p.credits_after}"


@summary(pages.PickpocketRolled)
def _pickpocket_rolled(p: pages.PickpocketRolled, f: Facts) -> str:
    waiting = "; the hero decides" if p.pending else ""
    rolled = f"d4 {p.d4}{signed(p.smuggler_bonus)}"
    return f"Pickpocket at {f.name(p.icon_id)}: {rolled}{waiting}"


@summary(pages.Pickpocketed)
def _pickpocketed(p: pages.Pickpocketed, f: Facts) -> str:
    if p.declined:
        return f"Declined to pick the pocket at {f.name(p.icon_id)}"
    virtue = "; virtue lost" if p.virtue_lost else ""
    return (
        f"Picked a pocket at {f.name(p.icon_id)}: "
        f"d4 {p.d4}{signed(p.smuggler_bonus)}, "
        f"+{p.credits_gained} credit(s) (now {p.credits_after}){virtue}"
    )


@summary(pages.RationsConsumed)
def _rations(p: pages.RationsConsumed, f: Facts) -> str:
    line = f"Ate {p.consumed} of {p.required} ration(s) required"
    if p.missing:
        line += f": {p.missing} missing, {p.hp_lost} HP lost"
    return line
