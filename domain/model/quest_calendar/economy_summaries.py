"""Quest Calendar events in words: pages, Rest, level-ups, shops, items and credits.

See ``domain.model.events.summaries``; each line reads only the event's stored details and figures.
"""

from __future__ import annotations

from domain.model.events.summaries import Facts, change, delta, listed, signed, summary, text, words


def _credits(before: object, after: object) -> str:
    return f"(credits {change(before, after)})"


@summary("qc.PageStarted")
def _page_started(f: Facts) -> str:
    d = f.d
    notes = [
        n for n, key in (("Rest day", "rest_day"), ("level-up day", "level_up_day")) if d.get(key)
    ]
    if d.get("prologue_end"):
        notes.append("the prologue's last page")
    extra = f": {', '.join(notes)}" if notes else ""
    return f"Page {text(d['page_date'], 20)} ({text(d['weekday'], 12)}) begins{extra}"


@summary("qc.PageEnded")
def _page_ended(f: Facts) -> str:
    d = f.d
    line = f"Page {text(d['page_date'], 20)} ends"
    pages = f.figures.get("calendar.pages_played")
    if pages is not None:
        line += f" ({pages} page(s) played)"
    if d.get("boosters_expired"):
        line += f"; boosters expired: {listed([f.name(b) for b in d['boosters_expired']])}"
    if d.get("prologue_complete") and _completes_prologue(f):
        line += "; the prologue is complete"
    return line


def _completes_prologue(f: Facts) -> bool:
    """Whether this page's end completed the prologue (its patch sets the calendar's flag), so
    that the line says it once, on that page, and not on every page after."""
    effects = f.data.get("effects")
    if not isinstance(effects, list):  # no patch stored: the line says it, as before
        return True
    return any(
        isinstance(op, dict) and op.get("path") == "/calendar/prologue_complete" for op in effects
    )


@summary("qc.Rested")
def _rested(f: Facts) -> str:
    d = f.d
    parts = [f"+{d['hp_restored']} HP"]
    if d.get("injury_stat_restored"):
        parts.append(f"{words(d['injury_stat_restored'])} restored")
    if d.get("uses_reset"):
        parts.append(f"uses back for {listed([f.name(a) for a in d['uses_reset']])}")
    if d.get("pool_restored"):
        parts.append(f"surge pool +{d['pool_restored']}")
    if d.get("conditions_cleared"):
        parts.append(f"cleared {listed([words(c) for c in d['conditions_cleared']])}")
    return f"Rested on {text(d['page_date'], 20)}: {', '.join(parts)}"


@summary("qc.LevelledUp")
def _levelled(f: Facts) -> str:
    d = f.d
    line = f"Level {change(d['from_level'], d['to_level'])}: max HP +{d['max_hp_gain']}"
    if d.get("new_abilities"):
        line += f", new {listed([f.name(a) for a in d['new_abilities']])}"
    pool = d.get("pool")
    if isinstance(pool, dict) and pool.get("max") is not None:
        line += f", surge pool of {pool['max']}"
    return line


@summary("qc.VirtueChanged")
def _virtue(f: Facts) -> str:
    d = f.d
    asked = d.get("requested_delta")
    capped = (
        f" (asked {signed(asked).strip()}, held to the bounds)"
        if asked != d.get("applied_delta")
        else ""
    )
    return f"Virtue {change(d['from'], d['to'])} ({words(d['cause'])}){capped}"


@summary("qc.TraitBoosterApplied")
def _booster(f: Facts) -> str:
    d = f.d
    if d.get("per_roll") or d.get("bonus") is None:
        amount = f"{text(d['dice'], 20)} on each roll"
    else:
        dice = f" ({text(d['dice'], 20)})" if d.get("dice") else ""  # none: a flat amount
        amount = f"+{d['bonus']}{dice}"
    line = f"{f.name(d['item_id'])} boosts {text(d['trait'], 10)} by {amount}"
    if "booster_before" in d and "booster_after" in d:
        line += f" (booster {change(d['booster_before'], d['booster_after'])})"
    return line


@summary("qc.ShopEntered")
def _shop_entered(f: Facts) -> str:
    d = f.d
    stock = d.get("stock") or {}
    wares = [f"{f.name(i)} {p}" for i, p in stock.items()] if isinstance(stock, dict) else stock
    upgrades = "; sells ship upgrades" if d.get("sells_upgrades") else ""
    return f"Entered {f.name(d['shop_id'])}: {listed(wares, 'nothing in stock')}{upgrades}"


@summary("qc.ShopLeft")
def _shop_left(f: Facts) -> str:
    # Version 1 had no shop_id when a page ended with a shop open (docs/events.md).
    shop = f.d.get("shop_id")
    name = f.name(shop) if shop else "the shop"
    return f"Left {name} ({words(f.d.get('reason', 'left'))})"


@summary("qc.ItemBought")
def _bought(f: Facts) -> str:
    d = f.d
    after = d["credits_after"]
    where = " (to the rations)" if d.get("to_rations") else ""
    return (
        f"Bought {f.name(d['item_id'])}{where} at {f.name(d['shop_id'])} for {d['price']} "
        f"{_credits(after + d['price'], after)}"
    )


@summary("qc.ItemSold")
def _sold(f: Facts) -> str:
    d = f.d
    after = d["credits_after"]
    return (
        f"Sold {f.name(d['item_id'])} at {f.name(d['shop_id'])} for {d['price']} "
        f"{_credits(after - d['price'], after)}"
    )


@summary("qc.ItemGained")
def _gained(f: Facts) -> str:
    d = f.d
    slot = f", {words(d['slot'])}" if d.get("slot") else ""
    where = " to the rations" if d.get("to_rations") else ""
    return f"Gained {f.name(d['item_id'])} ({words(d['kind'])}{slot}){where}"


@summary("qc.ItemUsed")
def _used(f: Facts) -> str:
    d = f.d
    name = text(d.get("name") or f.name(d["item_id"]), 60)
    effect = d.get("effect")
    kind = f": {words(effect['kind'])}" if isinstance(effect, dict) and effect.get("kind") else ""
    return f"Used {name} ({words(d['timing'])}){kind}"


@summary("qc.EquipmentEquipped")
def _equipped(f: Facts) -> str:
    d = f.d
    replaced = _item(f, d.get("replaced_item_id"), d.get("replaced_name"))
    replacing = f", replacing {replaced}" if d.get("replaced_item_id") else ""
    slot = f"{words(d['item_type'])}{replacing}"
    return f"Equipped {_item(f, d['item_id'], d.get('name'))} as {slot} ({words(d['timing'])})"


def _item(f: Facts, item_id: object, name: object) -> str:
    """An item by the name the event recorded (``the Plasma Blade``), else by its id."""
    return f"the {text(name, 60)}" if name else f.name(item_id)


@summary("qc.EquipmentUnequipped")
def _unequipped(f: Facts) -> str:
    d = f.d
    return f"Unequipped {f.name(d['item_id'])} ({words(d['item_type'])}, {words(d['timing'])})"


@summary("qc.EquipmentSacrificed")
def _sacrificed(f: Facts) -> str:
    d = f.d
    also = (
        f"; also unequipped {listed([f.name(i) for i in d['unequipped']])}"
        if d.get("unequipped")
        else ""
    )
    slot = "no slot" if d["item_type"] is None else words(d["item_type"])
    return f"Sacrificed {f.name(d['item_id'])} ({slot}){also}"


@summary("qc.CreditsChanged")
def _credits_changed(f: Facts) -> str:
    d = f.d
    what = [f.name(d[k]) for k in ("item_id", "icon_id") if d.get(k)]
    if d.get("purpose"):
        what.append(text(d["purpose"], 60))
    about = f", {', '.join(what)}" if what else ""
    return f"Credits {change(d['from'], d['to'])} ({delta(d['delta'])}, {words(d['cause'])}{about})"


@summary("qc.CreditsStolen")
def _stolen(f: Facts) -> str:
    d = f.d
    return (
        f"A thief takes {d['taken']} of the {d['requested']} credit(s) asked "
        f"(credits now {d['credits_after']})"
    )


@summary("qc.PaymentMade")
def _payment(f: Facts) -> str:
    d = f.d
    kind = "required" if d.get("mandatory") else "optional"
    return (
        f"Paid {d['cost']} for {text(d['purpose'], 60)} ({kind}) "
        f"{_credits(d['credits_before'], d['credits_after'])}"
    )


@summary("qc.DebtIncurred")
def _debt(f: Facts) -> str:
    d = f.d
    again = ", already in debt" if d.get("already_in_debt") else ""
    return (
        f"Debt for {text(d['purpose'], 60)}: {d['shortfall']} short, penalty {d['penalty']}"
        f"{again} (credits now {d['credits_after']})"
    )


@summary("qc.DebtPaid")
def _debt_paid(f: Facts) -> str:
    d = f.d
    cleared = "; debt cleared" if d.get("cleared") else ""
    now = f"credits now {d['credits_after']}{cleared}"
    return f"Repaid {d['amount']} of debt ({words(d['cause'])}): {now}"


@summary("qc.LotteryPlayed")
def _lottery(f: Facts) -> str:
    d = f.d
    applied = "" if d["applied"] == d["delta"] else f" ({delta(d['applied'])} applied)"
    won = delta(d["delta"])
    return f"Sunday lottery: d6 {d['d6']}: {won} credits{applied}, now {d['credits_after']}"


@summary("qc.PickpocketRolled")
def _pickpocket_rolled(f: Facts) -> str:
    d = f.d
    waiting = "; the hero decides" if d.get("pending") else ""
    rolled = f"d4 {d['d4']}{signed(d.get('smuggler_bonus'))}"
    return f"Pickpocket at {f.name(d['icon_id'])}: {rolled}{waiting}"


@summary("qc.Pickpocketed")
def _pickpocketed(f: Facts) -> str:
    d = f.d
    if d.get("declined"):
        return f"Declined to pick the pocket at {f.name(d['icon_id'])}"
    virtue = "; virtue lost" if d.get("virtue_lost") else ""
    return (
        f"Picked a pocket at {f.name(d['icon_id'])}: "
        f"d4 {d['d4']}{signed(d.get('smuggler_bonus'))}, "
        f"+{d['credits_gained']} credit(s) (now {d['credits_after']}){virtue}"
    )


@summary("qc.RationsConsumed")
def _rations(f: Facts) -> str:
    d = f.d
    line = f"Ate {d['consumed']} of {d['required']} ration(s) required"
    if d.get("missing"):
        line += f": {d['missing']} missing, {d['hp_lost']} HP lost"
    return line
