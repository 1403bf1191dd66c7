"""The group's library: heroes and items that the people of this server save for every campaign.

Any token reads it; a token that may play adds to it (not an analyst's, nor a viewer's or an
auditor's link); whoever added an entry (or an admin) removes it.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from domain.facade import catalogue
from webapi.http import access
from webapi.http.declared import requires
from webapi.http.plumbing import questlog
from webapi.schemas.library import (
    HeroAdded,
    ItemAdded,
    LibraryHero,
    LibraryHeroes,
    LibraryItem,
    LibraryItems,
    NoQuery,
    Removed,
)

blp = Blueprint("library", __name__, description="The group's saved heroes and known items.")

HERO_EXAMPLE = {
    "name": "Mira the Bold",
    "hero": {
        "id": "mira",
        "name": "Mira",
        "traits": {"STR": 2, "DEX": 1},
        "hp_max": 18,
        "def": 12,
        "atk": 2,
        "damage_dice": "1d6",
    },
}
ITEM_EXAMPLE = {
    "item": {
        "id": "stim-pack",
        "name": "Stim Pack",
        "kind": "consumable",
        "effect": {"kind": "heal", "dice": "1d4"},
    }
}


def me() -> str | None:
    """The caller's token id (None with auth off)."""
    token = access.caller()
    return token.id if token else None


def removal(kind: str, entry_id: str) -> Any:
    """Remove one's own entry (an admin any), or the refusal."""
    entry = questlog().library.library_entry(kind, entry_id)
    token = access.caller()
    if token is not None and not token.admin and entry.added_by != token.id:
        return access.refuse(403, f"Only whoever saved this {kind} (or an admin) may remove it.")
    questlog().library.remove_library_entry(kind, entry_id)
    return {"id": entry_id, "removed": True}


@blp.route("/library/heroes")
class Heroes(MethodView):
    @blp.doc(operationId="listLibraryHeroes")
    @blp.arguments(NoQuery, location="query")
    @blp.response(200, LibraryHeroes)
    @requires("any")
    def get(self, _query: dict[str, Any]) -> Any:
        """The group's saved heroes, each as select_hero takes it."""
        return {"heroes": questlog().library.library_heroes(me())}

    @blp.doc(operationId="saveLibraryHero")
    @blp.arguments(HeroAdded, example=HERO_EXAMPLE)
    @blp.response(201, LibraryHero)
    @requires("contribute")
    def post(self, body: dict[str, Any]) -> Any:
        """Save a hero for the group (checked as select_hero checks it)."""
        return questlog().library.add_library_hero(body["name"], body["hero"], me())


@blp.route("/library/heroes/<entry_id>")
class HeroEntry(MethodView):
    @blp.doc(operationId="deleteLibraryHero")
    @blp.response(200, Removed)
    @requires("contribute")
    def delete(self, entry_id: str) -> Any:
        """Remove a hero one saved (an admin: any)."""
        return removal("hero", entry_id)


@blp.route("/library/items")
class Items(MethodView):
    @blp.doc(operationId="listLibraryItems")
    @blp.arguments(NoQuery, location="query")
    @blp.response(200, LibraryItems)
    @requires("any")
    def get(self, _query: dict[str, Any]) -> Any:
        """The known items (the rulebook's, then the group's) and the words of the sheet."""
        return {"items": questlog().library.library_items(me()), "words": catalogue.sheet_words()}

    @blp.doc(operationId="addLibraryItem")
    @blp.arguments(ItemAdded, example=ITEM_EXAMPLE)
    @blp.response(201, LibraryItem)
    @requires("contribute")
    def post(self, body: dict[str, Any]) -> Any:
        """Add an item to the group's list (checked as gain_item checks it)."""
        return questlog().library.add_library_item(body["item"], me())


@blp.route("/library/items/<entry_id>")
class ItemEntry(MethodView):
    @blp.doc(operationId="deleteLibraryItem")
    @blp.response(200, Removed)
    @requires("contribute")
    def delete(self, entry_id: str) -> Any:
        """Remove an item one added (an admin: any); the rulebook's stay."""
        return removal("item", entry_id)
