"""Schemas of the group's library: saved heroes and the known items."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from webapi.schemas.fields import Text

HERO_DESCRIPTION = (
    "The hero as select_hero takes it (id, name, level, traits, hp_max, def, atk, damage_dice, "
    "abilities, pool, inventory...); checked by the same schema, so every campaign accepts it."
)
ITEM_DESCRIPTION = "The item as gain_item takes it (id, name, kind, slot, price, effect...)."


def as_sent(component: str, description: str) -> fields.Dict:
    """A body part the document shows as its real shape (the ``component`` select_hero or
    gain_item takes) but that is passed on as sent: the library checks it with that same schema,
    whose messages name each wrong field under the body's key and which renames some fields on
    load (so it is not loaded here)."""
    ref = {"$ref": f"#/components/schemas/{component}"}
    return fields.Dict(required=True, metadata={"description": description, "allOf": [ref]})


class NoQuery(Schema):
    """The library's reads take no query parameter: any is refused by name (422)."""


class HeroAdded(Schema):
    """A hero to save for the group, under a name."""

    name = Text(required=True, blank=False, validate=validate.Length(1, 200))
    hero = as_sent("Hero", HERO_DESCRIPTION)


class ItemAdded(Schema):
    """An item to add to the group's list of known items."""

    item = as_sent("Item", ITEM_DESCRIPTION)


class Entry(Schema):
    """Who saved an entry and when."""

    id = fields.String()
    name = fields.String()
    added_by = fields.String(metadata={"description": "The name of the token that saved it."})
    added_at = fields.String(metadata={"description": "When it was saved (ISO-8601, UTC)."})
    mine = fields.Boolean(metadata={"description": "Whether the caller's token saved it."})


class LibraryHero(Entry):
    """A saved hero."""

    hero = fields.Dict(metadata={"description": HERO_DESCRIPTION})


class LibraryItem(Schema):
    """A known item: the rulebook's or one the group added, with what it does in words."""

    id = fields.String(metadata={"description": "The item's id."})
    name = fields.String()
    item = fields.Dict(metadata={"description": ITEM_DESCRIPTION})
    words = fields.String(metadata={"description": "What it is and does, in words."})
    source = fields.String(validate=validate.OneOf(("rulebook", "group")))
    added_by = fields.String()
    added_at = fields.String()
    mine = fields.Boolean()


class Choice(Schema):
    """One choice of the sheet: the value sent and its words."""

    value = fields.String()
    words = fields.String()


class SheetWords(Schema):
    """The words of a hero's sheet and an item's form, each with the value sent."""

    traits = fields.List(fields.Nested(Choice))
    usages = fields.List(fields.Nested(Choice))
    contexts = fields.List(fields.Nested(Choice))
    item_kinds = fields.List(fields.Nested(Choice))
    effect_kinds = fields.List(fields.Nested(Choice))
    conditions = fields.List(fields.Nested(Choice))


class LibraryHeroes(Schema):
    """The group's saved heroes, oldest first."""

    heroes = fields.List(fields.Nested(LibraryHero))


class LibraryItems(Schema):
    """The known items (the rulebook's, then the group's) and the words of the sheet."""

    items = fields.List(fields.Nested(LibraryItem))
    words = fields.Nested(SheetWords)


class Removed(Schema):
    """The entry removed."""

    id = fields.String()
    removed = fields.Boolean()
