"""The ship's crew: hiring a crew member for a fee and assigning them to a compartment
(QC-78..QC-80). A crew member brings abilities the hero may use and an Integrity bonus to the
compartment they join, where they stay."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.model.command_schema import Strict, Values, takes
from domain.model.errors import NotHeld
from domain.model.quest_calendar import fight_events
from domain.model.quest_calendar import state as qc
from domain.model.quest_calendar.availability import NO_HERO, State, hero_and_page
from domain.model.quest_calendar.command_fields import Ability as AbilitySchema
from domain.model.quest_calendar.command_fields import ship_compartment
from domain.model.quest_calendar.ship import MAX_CREW, read_compartment, read_crew, rules
from domain.model.quest_calendar.state_types import Ability, Ship
from domain.model.rules_engine import Context, Refusal
from domain.model.schema_fields import integer, item_of, nested, picks, text
from domain.model.schema_fields import items as many

rules.declare(
    fight_events.CrewHired,
    fight_events.CrewAssigned,
)


class Crew(Strict):
    """A crew member: id, name, the abilities they give and an optional Integrity bonus."""

    id = text("The crew member's id.", required=True, max_length=80)
    name = text("Their name.", default="", max_length=200)
    abilities = many(
        "The abilities they give.", default=[], max_items=20, item=item_of(AbilitySchema)
    )
    integrity_bonus = integer("Integrity the compartment gains.", minimum=0, maximum=10)


def can_hire_crew(state: State, house: Mapping[str, Any]) -> Refusal | None:
    """QC-79 fewer than six crew members, aboard or waiting; QC-78 a fee the hero can pay (a
    hero in debt hires nobody, even for free, unless qc.crew.feeCanCreateDebt)."""
    refusal = hero_and_page(state)
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


def _crew_ids(ship: Ship) -> list[str]:
    aboard = [c["crew"]["id"] for c in ship["compartments"].values() if c["crew"]]
    return aboard + [c["id"] for c in ship.get("unassigned_crew", [])]


@rules.command(
    "hire_crew",
    summary="Hire a crew member for a one-time fee (an optional purchase: never into debt by "
    "default); assign them next.",
    example={
        "type": "hire_crew",
        "crew": {"id": "vex", "name": "Vex the Mechanic", "abilities": []},
        "fee": 5,
    },
    schema=takes(
        None,
        crew=nested("The crew member.", Crew, required=True),
        fee=integer("The one-time fee in credits.", default=0, minimum=0, maximum=1_000_000),
    ),
    available=can_hire_crew,
    rules=("QC-78", "QC-62"),
)
def hire_crew(ctx: Context, args: Values) -> None:
    """QC-78 / G-QC-27: the fee cannot create debt unless qc.crew.feeCanCreateDebt."""
    crew = read_crew(args["crew"])
    fee = args["fee"]
    hero = qc.hero(ctx)
    qc.page(ctx)
    ship: Ship = ctx.state["ship"]
    if crew["id"] in _crew_ids(ship):
        raise NotHeld("crew.id", f"{crew['id']!r} is already on the ship")
    clash = sorted({a["id"] for a in crew["abilities"]} & set(hero["abilities"]))
    if clash:
        raise NotHeld("crew.abilities", f"the hero already has abilities {clash}")
    if len(_crew_ids(ship)) >= MAX_CREW:
        ctx.refuse("QC-79", "the ship already has six crew members, one per compartment")
    if fee > hero["credits"] and not ctx.house["qc.crew.feeCanCreateDebt"]:
        ctx.refuse(
            "QC-78",
            f"hiring is optional and cannot create debt: fee {fee}, credits {hero['credits']}",
        )
    credits = qc.change_credits(ctx, -fee, "crewFee")
    ship.setdefault("unassigned_crew", []).append(crew)
    ctx.emit(
        fight_events.CrewHired(
            crew_id=crew["id"],
            name=crew["name"],
            fee=fee,
            credits_before=credits["from_"],
            credits_after=credits["to"],
        )
    )


@rules.command(
    "assign_crew",
    summary="Assign a hired crew member to a compartment with no crew and Integrity at least 1; "
    "crew never move afterwards.",
    example={"type": "assign_crew", "crew": "vex", "compartment": 1},
    schema=takes(
        None,
        crew=picks(
            text("The id of a hired crew member.", required=True, max_length=80),
            "/ship/unassigned_crew",
            value="id",
            label="name",
        ),
        compartment=ship_compartment("The compartment (1-6)."),
    ),
    available=can_assign_crew,
    rules=("QC-79",),
)
def assign_crew(ctx: Context, args: Values) -> None:
    """QC-79 / G-QC-27: the crew member adds their Integrity bonus to max and current."""
    crew_id = args["crew"]
    key = read_compartment(args["compartment"])
    hero = qc.hero(ctx)
    ship: Ship = ctx.state["ship"]
    compartments = ship["compartments"]
    if any(c["crew"] and c["crew"]["id"] == crew_id for c in compartments.values()):
        ctx.refuse("QC-79", f"{crew_id} is already assigned; crew members never move")
    waiting = ship.get("unassigned_crew", [])
    member = next((c for c in waiting if c["id"] == crew_id), None)
    if member is None:
        raise NotHeld("crew", f"no hired crew member {crew_id!r} is waiting")
    compartment = compartments[key]
    if compartment["crew"]:
        ctx.refuse("QC-79", f"{compartment['name']} already has a crew member")
    if compartment["integrity"] < 1:
        ctx.refuse("QC-79", f"{compartment['name']} is at Integrity 0")
    bonus = member["integrity_bonus"]
    if bonus is None:
        bonus = ctx.house["qc.crew.integrityBonus"]
    compartment["integrity_max"] += bonus
    compartment["integrity"] += bonus
    waiting.remove(member)
    for ability in member["abilities"]:
        granted: Ability = {**ability, "granted_by": crew_id}
        hero["abilities"][ability["id"]] = granted
    abilities = [a["id"] for a in member["abilities"]]
    compartment["crew"] = {
        "id": crew_id,
        "name": member["name"],
        "integrity_bonus": bonus,
        "abilities": abilities,
    }
    ctx.emit(
        fight_events.CrewAssigned(
            crew_id=crew_id,
            compartment=key,
            integrity_bonus=bonus,
            integrity_after=compartment["integrity"],
            integrity_max_after=compartment["integrity_max"],
            abilities=abilities,
        )
    )
