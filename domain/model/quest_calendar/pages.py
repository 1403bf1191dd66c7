"""Heroes and calendar pages: selecting a hero, starting and ending a page, virtue, house rules.

Convention for every handler in this package: change ``ctx.state``, then ``ctx.emit`` the
past-tense event that those changes belong to, *before* calling a helper that emits its own events
(``death.damage`` emits ``HeroDamaged`` and may run death and cloning).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Mapping
from typing import Any

from domain.model import samples
from domain.model.command_schema import Values, takes
from domain.model.errors import InvalidInput, NotHeld
from domain.model.games import RULES
from domain.model.house_rules import QUEST_CALENDAR
from domain.model.quest_calendar import command_fields, death, page_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import (
    NO_HERO,
    NO_PAGE,
    State,
    in_progress,
)
from domain.model.quest_calendar.checks import trait_roll
from domain.model.quest_calendar.command_fields import CHECK_DICE, DEATH
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import flag, integer, nested, text

rules = RULES[QUEST_CALENDAR]


FIGURES = ("hero_id", "level", "credits", "hp", "hp_max", "virtue")
"""The hero's figures a PageEnded records (``hero_id`` is the hero's ``id``)."""


def page_figures(state: dict[str, Any]) -> dict[str, Any]:
    """What a page leaves: the pages played and the hero's figures (None without a hero)."""
    hero = state.get("hero") or {}
    figures = {name: hero.get("id" if name == "hero_id" else name) for name in FIGURES}
    return {"pages_played": state["calendar"]["pages_played"], **figures}


rules.declare(
    page_events.HeroSelected,
    page_events.PageStarted,
    page_events.PageEnded,
    page_events.ShopLeft,
    page_events.InfectionTicked,
    page_events.VirtueChanged,
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
DATE = r"^([0-9]{4}-)?(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
"""A page's date as the document states it: months 01-12 and days 01-31 (the calendar says which
days a month has)."""

HERO_EXAMPLE = samples.VANGUARD
"""The sample hero (``domain.model.samples``) is the command's example."""


def can_select_hero(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-02: the prologue hero may be followed by the chosen one, and then no other."""
    hero = state.get("hero")
    if hero is not None and hero.get("phase") != "prologue":
        return ("QC-02", "a hero has already been chosen for this campaign")
    return None


@rules.command(
    "select_hero",
    summary="Select the hero: the prologue hero, then one of the six (or a custom hero).",
    example={"type": "select_hero", "phase": "prologue", "hero": HERO_EXAMPLE},
    schema=takes(
        None,
        phase=text("Which hero this is.", required=True, choices=("prologue", "main", "custom")),
        hero=nested("The hero.", command_fields.Hero, required=True),
    ),
    available=can_select_hero,
    rules=("QC-02", "QC-04", "QC-05"),
)
def select_hero(ctx: Context, args: Values) -> None:
    """QC-02: the prologue has a fixed hero; the choice of hero comes once the prologue is over."""
    phase = args["phase"]
    new_hero = qc.read_hero(args["hero"])
    prologue_done = ctx.state["calendar"]["prologue_complete"]
    current = ctx.state.get("hero")
    if phase == "prologue" and prologue_done:
        ctx.refuse("QC-02", "the prologue is over; select a main or custom hero")
    if phase != "prologue" and not prologue_done:
        ctx.refuse("QC-02", "no choice of hero is offered during the prologue")
    if current is not None and current["phase"] != "prologue":
        ctx.refuse("QC-02", "a hero has already been chosen for this campaign")
    new_hero["phase"] = phase
    new_hero["pickpocketed_icons"] = []
    if current is not None:
        # Moving on from the prologue hero: credits and belongings stay with the campaign.
        new_hero["credits"] = current["credits"]
    ctx.state["hero"] = new_hero
    ctx.emit(
        page_events.HeroSelected(
            hero_id=new_hero["id"],
            level=new_hero["level"],
            phase=phase,
            credits=new_hero["credits"],
        )
    )


def read_date(ctx: Context, text: str) -> dt.date:
    """A page date, YYYY-MM-DD, or MM-DD in the campaign year (G-QC-03). A date no calendar has
    is the body's mistake (422); 02-29 in a campaign year that is not a leap year is the
    campaign's answer (its house rule qc.calendar.year: 409 not-held naming ``date``)."""
    year = ctx.house["qc.calendar.year"]
    if text == "02-29" and not calendar.isleap(year):
        raise NotHeld("date", f"02-29 is no day of {year}, the campaign's year (qc.calendar.year)")
    try:
        if len(text) == 5:
            return dt.date.fromisoformat(f"{year:04d}-{text}")
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InvalidInput.field("date", "must be a date, YYYY-MM-DD or MM-DD") from None


def can_start_page(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-17: one page is open at a time."""
    if state.get("page") is not None:
        return ("QC-17", f"page {state['page']['date']} is still open; end it first")
    return None


@rules.command(
    "start_page",
    summary="Open the calendar page of a date: its weekday, and whether it is a Rest, level-up "
    "or prologue-ending day.",
    example={"type": "start_page", "date": "2027-01-03", "rest_day": False},
    schema=takes(
        None,
        date=text(
            "The page's date, YYYY-MM-DD or MM-DD (in the campaign's year): a real day of the "
            "calendar (no February 30).",
            required=True,
            max_length=10,
            pattern=DATE,
        ),
        weekday=text(
            "The weekday printed on the page: it must match the date unless the house rule "
            "qc.calendar.weekdaySource is 'page' (G-QC-03).",
            choices=WEEKDAYS,
        ),
        rest_day=flag("A Rest day.", default=False),
        level_up_day=flag("A level-up day.", default=False),
        prologue_end=flag("The page that ends the prologue.", default=False),
    ),
    available=can_start_page,
    rules=("QC-12", "QC-17", "QC-66"),
)
def start_page(ctx: Context, args: Values) -> None:
    """Start a page; pages go in date order and one is open at a time (QC-12, QC-17, G-QC-03)."""
    date = read_date(ctx, args["date"])
    given_weekday = args["weekday"]
    flags = {
        "rest_day": args["rest_day"],
        "level_up_day": args["level_up_day"],
        "prologue_end": args["prologue_end"],
    }
    if ctx.state["page"] is not None:
        ctx.refuse("QC-17", f"page {ctx.state['page']['date']} is still open; end it first")
    last = ctx.state["calendar"].get("last_date")
    if last is not None and date.isoformat() <= last:
        ctx.refuse("QC-12", f"pages are resolved in date order; the last page was {last}")
    weekday = WEEKDAYS[date.weekday()]
    if given_weekday and ctx.house["qc.calendar.weekdaySource"] == "page":
        weekday = given_weekday
    elif given_weekday and given_weekday != weekday:
        ctx.refuse(
            "G-QC-03",
            f"weekday {given_weekday} does not match {date.isoformat()}, a {weekday}: the weekday "
            "is computed from the date (house rule qc.calendar.weekdaySource 'computed'; "
            "'page' lets the page's weekday win)",
        )
    if ctx.house["qc.prologue.endPage"] == date.isoformat():
        flags["prologue_end"] = True
    ctx.state["page"] = {
        "date": date.isoformat(),
        "weekday": weekday,
        **flags,
        "equipment_day": False,
        "lottery_played": False,
        "boosters": {},
        "shop": None,
        "combat": None,
        "dogfight": None,
        "first_roll_made": False,
    }
    ctx.emit(
        page_events.PageStarted(
            page_date=date.isoformat(), weekday=weekday, is_sunday=weekday == "Sunday", **flags
        )
    )


def can_end_page(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-17 an open page; QC-20 no fight left in progress on it."""
    page = state.get("page")
    if page is None:
        return NO_PAGE
    for kind in ("combat", "dogfight"):
        if in_progress(page, kind):
            return ("QC-20", f"the {kind} on this page is still in progress; finish it first")
    return None


@rules.command(
    "end_page",
    summary="End the page: the Infected roll if still infected, then per-page abilities and "
    "trait boosters reset.",
    example={"type": "end_page"},
    schema=takes("Only if the hero is still Infected: a CON check, " + CHECK_DICE + DEATH),
    available=can_end_page,
    rules=("QC-17", "QC-18", "QC-31"),
)
def end_page(ctx: Context, args: Values) -> None:
    """QC-31 end-of-page Infected roll; QC-17/QC-18 per-page abilities and boosters expire."""
    current = qc.page(ctx)
    for fight, entry in (("combat", current["combat"]), ("dogfight", current["dogfight"])):
        if (entry or {}).get("status") == "in_progress":
            ctx.refuse("QC-20", f"the {fight} on this page is still in progress; finish it first")
    if current["shop"] is not None:
        shop_id = current["shop"]["id"]
        current["shop"] = None
        ctx.emit(page_events.ShopLeft(shop_id=shop_id, reason="pageEnded"))
    hero = ctx.state.get("hero")
    if hero is not None and "infected" in hero["conditions"]:
        roll = trait_roll(ctx, "CON", "end-of-page Infected roll")
        lost = 1 if roll["total"] <= 10 else 0
        ctx.emit(
            page_events.InfectionTicked(
                page_date=current["date"], total=roll["total"], hp_lost=lost
            )
        )
        if lost:
            death.damage(ctx, 1, "infection")
    hero = ctx.state.get("hero")
    expired = sorted(current["boosters"])
    if hero is not None:
        for ability in hero["abilities"].values():
            ability["used_this_page"] = False
    calendar = ctx.state["calendar"]
    calendar["last_date"] = current["date"]
    calendar["pages_played"] += 1
    if current["prologue_end"]:
        calendar["prologue_complete"] = True
    ctx.state["page"] = None
    ctx.emit(
        page_events.PageEnded(
            page_date=current["date"],
            boosters_expired=expired,
            prologue_complete=calendar["prologue_complete"],
            figures=page_figures(ctx.state),
        )
    )


def can_change_virtue(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-06: virtue is the hero's (no page needed)."""
    return NO_HERO if state.get("hero") is None else None


@rules.command(
    "change_virtue",
    summary="A decision changes virtue; the result is clamped to -10..+10.",
    example={"type": "change_virtue", "delta": 2, "cause": "spared the smuggler"},
    schema=takes(
        None,
        delta=integer("The change in virtue.", required=True, minimum=-100, maximum=100),
        cause=text("The decision that changed it.", default="decision"),
    ),
    available=can_change_virtue,
    rules=("QC-06",),
)
def change_virtue(ctx: Context, args: Values) -> None:
    """QC-06 / G-QC-21: record both the requested and the applied change."""
    delta = args["delta"]
    cause = args["cause"]
    details: dict[str, Any] = qc.change_virtue(ctx, delta, cause)
    ctx.emit(page_events.VirtueChanged(**details))
