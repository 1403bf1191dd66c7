"""The schema of a new Calendar Board match: players in seating order, their parties, the token
holders, the options and the creatures in play."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import ValidationError, validate, validates_schema

from domain.model.calendar_board import state as cb
from domain.model.command_schema import Document, Strict
from domain.model.schema_fields import (
    flag,
    integer,
    item_of,
    items,
    nested,
    text,
)

SPACE_GIVEN = {"required": ["space"], "properties": {"space": {"type": "integer"}}}
"""JSON Schema for: a space is given (not null)."""


class Location(Strict):
    """Where a piece is: a pathway space, home, elsewhere or eliminated."""

    kind = text("Where the piece is.", required=True, choices=cb.LOCATION_KINDS)
    space = integer("The pathway space (only on the pathway).", minimum=0, maximum=10_000)

    document: ClassVar[Document] = {
        "not": {
            "anyOf": [
                {"properties": {"kind": {"enum": ["pathway"]}}, "not": SPACE_GIVEN},
                {"properties": {"kind": {"not": {"enum": ["pathway"]}}}, **SPACE_GIVEN},
            ]
        }
    }

    @validates_schema
    def space_on_the_pathway(self, data: dict[str, Any], **_: Any) -> None:
        """A pathway location names its space; no other location has one."""
        if data.get("kind") == "pathway" and data.get("space") is None:
            raise ValidationError("is required", "space")
        if data.get("kind") != "pathway" and data.get("space") is not None:
            raise ValidationError("unknown field for this command", "space")


class Piece(Strict):
    """A party member: id, location, facing and adaptability modifier."""

    id = text("The piece's id (unique across the match).", required=True, max_length=80)
    location = nested("Where it starts.", Location, required=True)
    facing = text("The way it faces.", default="N", choices=cb.FACINGS)
    adaptability = integer("Its adaptability modifier.", default=0, minimum=-20, maximum=20)


class Weapon(Strict):
    """A weapon: kind, ammunition, capacity, regeneration and the looted flag."""

    id = text("The weapon's id (unique within the party).", required=True, max_length=80)
    kind = text("Its kind.", required=True, choices=cb.WEAPON_KINDS)
    uses_ammo = flag("Whether it uses ammunition.", default=False)
    ammo = integer("Its ammunition now.", default=0, minimum=0, maximum=10_000)
    ammo_max = integer("Its capacity.", default=0, minimum=0, maximum=10_000)
    ammo_regen = integer("Ammunition regained each night.", default=0, minimum=0, maximum=10_000)
    looted = flag("Whether it was looted.", default=False)

    @validates_schema
    def ammo_within_capacity(self, data: dict[str, Any], **_: Any) -> None:
        """No more ammunition than the weapon holds."""
        if data.get("ammo", 0) > data.get("ammo_max", 0):
            raise ValidationError("must not exceed ammo_max", "ammo")


class Player(Strict):
    """A player and their party."""

    id = text("The player's id.", required=True, max_length=80)
    pieces = items("The party's pieces.", default=[], max_items=50, item=item_of(Piece))
    weapons = items("The party's weapons.", default=[], max_items=50, item=item_of(Weapon))
    partner = text("The party's partner, if any.", choices=cb.PARTNERS)
    relationship = integer("The relationship with the partner.", minimum=0, maximum=1000)
    exhaustion = integer("The party's exhaustion.", default=0, minimum=0, maximum=20)
    luck_mod = integer("The party's luck modifier.", default=0, minimum=-20, maximum=20)
    int_mod = integer("The party's INT modifier.", default=0, minimum=-20, maximum=20)
    fate_rerolls = integer(
        "The fate rerolls the player has (the main rules' resource, G-CB-01): each one spent on "
        "a roll is gone, a player with none left is not offered one and their fate_reroll is "
        "refused, and a refused one (CB-10) costs nothing. They last the whole match, or come "
        "back at every night phase with house rule cb.fateReroll.refresh = night. Leave it out "
        "(or null) for fate rerolls that are not counted: unlimited.",
        minimum=0,
        maximum=100,
    )

    document: ClassVar[Document] = {
        "not": {
            "required": ["partner"],
            "properties": {"partner": {"type": "string"}},
            "not": {
                "required": ["relationship"],
                "properties": {"relationship": {"type": "integer"}},
            },
        }
    }

    @validates_schema
    def party(self, data: dict[str, Any], **_: Any) -> None:
        """Weapon ids unique within the party; a partner comes with a relationship."""
        weapon_ids = [w["id"] for w in data.get("weapons") or []]
        if len(set(weapon_ids)) != len(weapon_ids):
            raise ValidationError("weapon ids must be unique within a party", "weapons")
        if data.get("partner") is not None and data.get("relationship") is None:
            raise ValidationError("a party with a partner needs a relationship", "relationship")


class Creature(Strict):
    """A creature in play: id, type, and whether it acts at night."""

    id = text("The creature's id.", required=True, max_length=80)
    type = text("Its type.", required=True, max_length=80)
    night_active = flag("Whether it acts at night.", default=True)


class ActiveEvent(Strict):
    """The event in play, if the event rules are on."""

    id = text("The event's id.", required=True, max_length=80)
    special_weather = text("The weather it brings.", default="normal", choices=cb.WEATHERS)


class Options(Strict):
    """The match's optional rules."""

    ceasefire_rule = flag("Play with the ceasefire rule.", default=False)
    event_rules = flag("Play with the event rules.", default=False)
    active_event = nested("The event in play.", ActiveEvent)


class Setup(Strict):
    """A new match: players in seating order, their parties (each with its fate rerolls, if they
    are counted), the token holders and options."""

    players = items(
        "The players in seating order, with their parties.",
        required=True,
        max_items=8,
        item=item_of(Player),
        check=validate.Length(min=2, error="a match needs at least 2 players"),
    )
    starting_token = text("The id of the player who starts (default: the first).", max_length=80)
    options = nested("Optional rules.", Options, default={})
    creatures = items("Creatures in play.", default=[], max_items=100, item=item_of(Creature))
    annustar = integer(
        "Annustar damage at the start (at most the house rule cb.annustaria.max).",
        default=0,
        minimum=0,
    )

    @validates_schema
    def match(self, data: dict[str, Any], **_: Any) -> None:
        """Player, piece and creature ids unique; a starting player among the players."""
        players = data.get("players") or []
        ids = [p["id"] for p in players]
        if len(set(ids)) != len(ids):
            raise ValidationError("player ids must be unique", "players")
        pieces = [piece["id"] for p in players for piece in p["pieces"]]
        if len(set(pieces)) != len(pieces):
            raise ValidationError("piece ids must be unique across the match", "players")
        starting = data.get("starting_token")
        if starting is not None and starting not in ids:
            raise ValidationError(f"must be one of {', '.join(ids)}", "starting_token")
        creatures = [c["id"] for c in data.get("creatures") or []]
        if len(set(creatures)) != len(creatures):
            raise ValidationError("creature ids must be unique", "creatures")
