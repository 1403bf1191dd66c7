"""Which Quest Calendar commands a state accepts, from each handler's guards (QC-xx).

A predicate answers for a valid body the page could send: None when some such body is not refused
by a rule of the state, else the rule (and why) that refuses every one. The handlers stay the
authority; ``tests/unit/quest_calendar/test_availability.py`` runs the commands at every state of
a scripted campaign to hold the two together. A pending decision is answered before any of these
(``GameRules.available``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from domain.model.quest_calendar import usable
from domain.model.rules_engine import Availability, Refusal

State = Mapping[str, Any]
NO_HERO: Refusal = ("QC-02", "no hero has been selected yet")
NO_PAGE: Refusal = ("QC-17", "no calendar page is open; start a page first")


def _hero_and_page(state: State) -> Refusal | None:
    """The guard nearly every command starts with: a hero (QC-02), then an open page (QC-17)."""
    if state.get("hero") is None:
        return NO_HERO
    if state.get("page") is None:
        return NO_PAGE
    return None


def _page_then_hero(state: State) -> Refusal | None:
    """The guard of Rest and level-up: the page first (QC-17), then the hero (QC-02)."""
    if state.get("page") is None:
        return NO_PAGE
    return NO_HERO if state.get("hero") is None else None


def _fight(page: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    """The page's combat or dogfight while it is in progress."""
    fight = page.get(kind)
    if isinstance(fight, Mapping) and fight.get("status") == "in_progress":
        return fight
    return None


def needs(*checks: Callable[[State], Refusal | None]) -> Availability:
    """A predicate that applies ``checks`` in order (the handler's order) after hero and page."""

    def predicate(state: State, house: Mapping[str, Any]) -> Refusal | None:
        refusal = _hero_and_page(state)
        for check in checks:
            if refusal is not None:
                return refusal
            refusal = check(state)
        return refusal

    return predicate


def can_select_hero(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-02: the prologue hero may be followed by the chosen one, and then no other."""
    hero = state.get("hero")
    if hero is not None and hero.get("phase") != "prologue":
        return ("QC-02", "a hero has already been chosen for this campaign")
    return None


def can_start_page(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-17: one page is open at a time."""
    if state.get("page") is not None:
        return ("QC-17", f"page {state['page']['date']} is still open; end it first")
    return None


def can_end_page(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-17 an open page; QC-20 no fight left in progress on it."""
    page = state.get("page")
    if page is None:
        return NO_PAGE
    for kind in ("combat", "dogfight"):
        if _fight(page, kind):
            return ("QC-20", f"the {kind} on this page is still in progress; finish it first")
    return None


def can_change_virtue(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-06: virtue is the hero's (no page needed)."""
    return NO_HERO if state.get("hero") is None else None


def can_make_choice(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-11: a printed choice is made on the open page."""
    return NO_PAGE if state.get("page") is None else None


def _no_fight(state: State) -> Refusal | None:
    """QC-20 / QC-69: one fight at a time on a page."""
    page = state["page"]
    if _fight(page, "combat"):
        return ("QC-20", "a combat is in progress on this page; finish it first")
    if _fight(page, "dogfight"):
        return ("QC-69", "a dogfight is in progress on this page; finish it first")
    return None


def _no_fight_dogfight_rule(state: State) -> Refusal | None:
    """QC-69: a dogfight waits for any fight on the page to end."""
    refusal = _no_fight(state)
    return None if refusal is None else ("QC-69", refusal[1])


def _combat(state: State) -> Refusal | None:
    """QC-20: a combat in progress."""
    if not _fight(state["page"], "combat"):
        return ("QC-20", "no combat is in progress on this page; start one first")
    return None


def _dogfight_rounds(state: State) -> Refusal | None:
    """QC-69: a round-by-round dogfight in progress."""
    fight = _fight(state["page"], "dogfight")
    if fight is None or fight.get("mode") != "rounds":
        return ("QC-69", "no dogfight is in progress on this page; start_dogfight first")
    return None


def _shop_open(state: State) -> Refusal | None:
    """QC-57 / QC-59: the hero is in a shop."""
    page = state["page"]
    if page.get("shop") is None:
        if page.get("shops_left"):
            return ("QC-59", f"shop closed: the hero left {page['shops_left'][-1]}")
        return ("QC-57", "no shop is open on this page; enter one first")
    return None


def _affordable(state: State) -> Refusal | None:
    """QC-57 an item left in stock; QC-62 one the hero can pay for (buying is optional)."""
    shop, credits = state["page"]["shop"], state["hero"]["credits"]
    stocked = [entry for entry in shop["stock"].values() if entry.get("quantity") != 0]
    if not stocked:
        return ("QC-57", f"{shop['id']} has sold out of everything (G-QC-23)")
    if not any(entry["price"] <= 0 or credits >= entry["price"] for entry in stocked):
        return ("QC-62", f"not enough credits: the hero has {credits}")
    return None


def _not_in_shop(state: State) -> Refusal | None:
    """QC-59: one shop at a time."""
    shop = state["page"].get("shop")
    if shop is not None:
        return ("QC-59", f"the hero is still in {shop['id']}; leave it first")
    return None


def can_leave_shop(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-59: leaving needs an open page and an open shop (no hero needed)."""
    page = state.get("page")
    if page is None:
        return NO_PAGE
    if page.get("shop") is None:
        return ("QC-59", "no shop is open")
    return None


def _rest_day(state: State) -> Refusal | None:
    """QC-51: a Rest day, once."""
    page = state["page"]
    if not page.get("rest_day"):
        return ("QC-51", f"{page['date']} is not a Rest day")
    if page.get("rested"):
        return ("QC-51", "the hero has already rested on this page")
    return None


def _level_up_day(state: State) -> Refusal | None:
    """QC-53: a level-up day, once."""
    page = state["page"]
    if not page.get("level_up_day"):
        return ("QC-53", f"{page['date']} is not a level-up day")
    if page.get("levelled_up"):
        return ("QC-53", "the hero has already levelled up on this page")
    return None


def _lottery(state: State) -> Refusal | None:
    """QC-66: after the prologue, on a Sunday, once."""
    page = state["page"]
    if not state["calendar"].get("prologue_complete"):
        return ("QC-66", "prologue: the lottery opens only after the prologue")
    if page.get("weekday") != "Sunday":
        return (
            "QC-66",
            f"the lottery is played on Sundays; {page['date']} is a {page.get('weekday')}",
        )
    if page.get("lottery_played"):
        return ("QC-66", "the lottery was already played on this Sunday")
    return None


def _equipment_window(state: State) -> Refusal | None:
    """QC-64: equipment changes on a Rest day or a day new equipment is gained."""
    page = state["page"]
    if not (page.get("rest_day") or page.get("equipment_day")):
        return ("QC-64", "equipment changes only on a Rest day or a day new equipment is gained")
    return None


def can_equip(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-64: a carried equipment item not equipped yet, then an open page on a day that
    allows equipment changes (the handler's order)."""
    hero = state.get("hero")
    if hero is None:
        return NO_HERO
    if not any(i["kind"] == "equipment" for i in hero["inventory"]):
        return ("QC-64", "the hero carries no equipment")
    refusal = _window(state)
    if refusal is not None:
        return refusal
    equipped = set(hero.get("equipped", {}).values())
    if not any(i["kind"] == "equipment" and i["id"] not in equipped for i in hero["inventory"]):
        return ("QC-64", "every carried equipment item is equipped already")
    return None


def can_unequip(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-64: an equipped item, then a page that allows equipment changes."""
    hero = state.get("hero")
    if hero is None:
        return NO_HERO
    if not hero.get("equipped"):
        return ("QC-64", "nothing is equipped")
    return _window(state)


def _window(state: State) -> Refusal | None:
    """QC-17 an open page, QC-64 on which equipment may change."""
    return NO_PAGE if state.get("page") is None else _equipment_window(state)


def can_hire_crew(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-79 fewer than six crew members, aboard or waiting; QC-78 a fee the hero can pay (a
    hero in debt hires nobody, even for free, unless qc.crew.feeCanCreateDebt)."""
    refusal = _hero_and_page(state)
    if refusal is not None:
        return refusal
    ship = state["ship"]
    aboard = [c for c in ship["compartments"].values() if c.get("crew")]
    if len(aboard) + len(ship.get("unassigned_crew", [])) >= len(ship["compartments"]):
        return ("QC-79", "the ship already has six crew members, one per compartment")
    credits = state["hero"]["credits"]
    if credits < 0 and not house.get("qc.crew.feeCanCreateDebt"):
        return ("QC-78", f"hiring cannot create debt: the hero has {credits} credits")
    return None


def can_assign_crew(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-79: a hired crew member waits, and a compartment with no crew and Integrity left."""
    if state.get("hero") is None:
        return NO_HERO
    ship = state["ship"]
    if not ship.get("unassigned_crew"):
        return ("QC-79", "no hired crew member is waiting for a compartment")
    if not any(not c.get("crew") and c["integrity"] >= 1 for c in ship["compartments"].values()):
        return ("QC-79", "no compartment without crew has Integrity left")
    return None


def _upgrade_room(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-82: an upgrade defined with the command is acquired now; it needs a compartment with
    the Integrity the house rule asks for."""
    minimum = house.get("qc.upgrades.installMinIntegrity", 0)
    if not any(c["integrity"] >= minimum for c in state["ship"]["compartments"].values()):
        return ("QC-82", f"installing needs Integrity {minimum}; no compartment has it")
    return None


def _upgrade_shop(state: State) -> Refusal | None:
    """QC-83: a shop that buys upgrades, and an upgrade to sell."""
    shop = state["page"].get("shop")
    if shop is None:
        return ("QC-83", "no shop is open on this page")
    if not shop.get("sells_upgrades"):
        return ("QC-83", f"shop {shop.get('id')} does not sell ship upgrades")
    if not any(i["kind"] == "upgrade" for i in state["hero"]["inventory"]):
        return ("QC-83", "the hero carries no ship upgrade")
    return None


def _something_to_sell(state: State) -> Refusal | None:
    """QC-58: the shop buys only what it sells, and the hero must carry one."""
    shop = state["page"]["shop"]
    hero = state["hero"]
    carried = {i["id"] for i in hero["inventory"] if i["kind"] != "upgrade"}
    equipped = list(hero.get("equipped", {}).values())
    carried = {
        i for i in carried if sum(1 for x in hero["inventory"] if x["id"] == i) > equipped.count(i)
    }
    if hero.get("rations", 0) > 0:
        carried |= {
            item_id
            for item_id, entry in shop["stock"].items()
            if entry["item"]["effect"].get("kind") == "ration"
        }
    if all(entry["item"]["kind"] == "upgrade" for entry in shop["stock"].values()):
        return ("QC-83", "ship upgrades are sold with sell_upgrade (QC-83), not sell")
    if not carried & set(shop["stock"]):
        return ("QC-58", f"{shop['id']} sells nothing the hero carries, so it buys nothing")
    return None


def _pickpocket(state: State) -> Refusal | None:
    """QC-38: any icon not used yet may be rolled (the body names it)."""
    return None


def answers(rule: str, decision: str, *checks: Callable[[State], Refusal | None]) -> Availability:
    """A command that only answers a decision: refused while none is pending, after ``checks``
    (the handler's guards that come before it looks for its decision)."""

    def predicate(state: State, house: Mapping[str, Any]) -> Refusal | None:
        refusal = needs(*checks)(state, house) if checks else None
        return refusal or (rule, f"no {decision} decision is pending")

    return predicate


AVAILABILITY: dict[str, Availability] = {
    "select_hero": can_select_hero,
    "start_page": can_start_page,
    "end_page": can_end_page,
    "change_virtue": can_change_virtue,
    "make_choice": can_make_choice,
    "leave_shop": can_leave_shop,
    "trait_check": needs(),
    "apply_condition": needs(),
    "use_item": needs(usable.consumable),
    "use_ability": needs(usable.ability),
    "start_combat": needs(_no_fight),
    "combat_round": needs(_combat),
    "dogfight": needs(_no_fight_dogfight_rule),
    "start_dogfight": needs(_no_fight_dogfight_rule),
    "dogfight_round": needs(_dogfight_rounds),
    "pickpocket": needs(_pickpocket),
    "pay": needs(),
    "gain_credits": needs(),
    "theft": needs(),
    "eat_rations": needs(),
    "play_lottery": needs(_lottery),
    "enter_shop": needs(_not_in_shop),
    "buy": needs(_shop_open, _affordable),
    "sell": needs(_shop_open, _something_to_sell),
    "gain_item": needs(),
    "equip": can_equip,
    "unequip": can_unequip,
    "rest": lambda state, house: _page_then_hero(state) or _rest_day(state),
    "level_up": lambda state, house: _page_then_hero(state) or _level_up_day(state),
    "repair_ship": lambda state, house: _hero_and_page(state) or usable.repair(state, house),
    "hire_crew": can_hire_crew,
    "assign_crew": can_assign_crew,
    "install_upgrade": lambda state, house: _hero_and_page(state) or _upgrade_room(state, house),
    "sell_upgrade": needs(_upgrade_shop),
    "choose_loot": answers("QC-46", "clone_loot"),
    "choose_clone_outcome": answers("QC-48", "clone_replace_hero"),
    "decide_pickpocket": answers("QC-39", "pickpocket_four"),
    "choose_rest_stat": answers("QC-52", "rest_injury"),
    "resolve_round": answers("pending-decision", "combat_round_abilities"),
    "resolve_rounds": answers("pending-decision", "combat_assign_abilities", _combat),
    "boost_attack": answers("pending-decision", "combat_boost_attack"),
    "boost_damage": answers("pending-decision", "combat_boost_damage"),
    "resolve_dogfight_round": answers(
        "pending-decision", "dogfight_round_abilities", _dogfight_rounds
    ),
}
"""Each command's predicate; the decision answers (``resolves``) are refused with no decision."""
