"""The group's library: heroes and items saved by the people of this server, for every campaign.

A hero is saved as ``select_hero`` takes it and an item as ``gain_item`` does, checked by the same
schemas, so that whatever the library holds a campaign accepts. The known items are the
rulebook's (``domain.model.quest_calendar.catalogue``) and then the group's; an item's id names
one item across both.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

from domain.model.errors import NotFound, NotHeld
from domain.model.quest_calendar import catalogue
from domain.model.text import MAX_NAME_LENGTH, check_text
from domain.service.commands_service import CommandService
from domain.storage.library import LibraryEntry, LibraryTables

Json = dict[str, Any]


class LibraryService:
    """The library's reads and writes, on the core's side tables."""

    def __init__(self, app: CommandService) -> None:
        self.app = app

    def _tables(self) -> LibraryTables:
        tables = self.app.side_tables
        assert isinstance(tables, LibraryTables)
        return tables

    def _shown(self, entry: LibraryEntry, caller: str | None) -> Json:
        """An entry as the library's reader sees it: who added it (by token name) and whether
        the caller did."""
        token = self._tables().find_token(entry.added_by)
        return {
            "id": entry.id,
            "name": entry.name,
            "added_by": token.name if token else entry.added_by,
            "added_at": entry.added_at,
            "mine": caller is not None and entry.added_by == caller,
        }

    def may_add_to_library(self, token_id: str) -> bool:
        """Whether a (non-admin, non-analyst) token may add to the library: a token of its own,
        or one the server made for a campaign where it plays or owns (not a viewer's share link
        nor an auditor's invitation)."""
        tables = self._tables()
        campaign = tables.invited_to(token_id)
        if campaign is None:
            return True
        member = tables.membership(campaign, token_id)
        return member is not None and member.role in ("owner", "player")

    def library_heroes(self, caller: str | None) -> list[Json]:
        """The group's heroes, oldest first, each with its ``select_hero`` hero."""
        return [
            {**self._shown(entry, caller), "hero": entry.body}
            for entry in self._tables().library("hero")
        ]

    def library_items(self, caller: str | None) -> list[Json]:
        """The known items: the rulebook's, then the group's, each with its effect in words."""
        group = [
            {
                **self._shown(entry, caller),
                "item": entry.body,
                "words": catalogue.item_words(entry.body),
                "source": "group",
            }
            for entry in self._tables().library("item")
        ]
        return [*catalogue.known_items(), *group]

    def add_library_hero(self, name: str, hero: object, caller: str | None) -> Json:
        """Save a hero for the group under a name; nothing is stored if either is refused."""
        check_text("name", name, MAX_NAME_LENGTH)
        checked = catalogue.check_hero(hero)
        entry = LibraryEntry(
            "hero", uuid4().hex[:12], name.strip(), checked, caller or "system", _now()
        )
        self._tables().add_library_entry(entry)
        return {**self._shown(entry, caller), "hero": entry.body}

    def add_library_item(self, item: object, caller: str | None) -> Json:
        """Add an item to the group's list; its id must name no known item yet."""
        checked = catalogue.check_item(item)
        item_id = str(checked["id"])
        if any(known["id"] == item_id for known in catalogue.RULEBOOK_ITEMS):
            raise NotHeld("item.id", f"{item_id!r} is a rulebook item already")
        name = str(checked.get("name") or item_id)
        entry = LibraryEntry("item", item_id, name, checked, caller or "system", _now())
        if not self._tables().add_library_entry(entry):
            raise NotHeld("item.id", f"the group's list has an item {item_id!r}")
        shown = self._shown(entry, caller)
        return {**shown, "item": checked, "words": catalogue.item_words(checked), "source": "group"}

    def library_entry(self, kind: str, entry_id: str) -> LibraryEntry:
        """One of the group's entries, or ``NotFound``."""
        found = self._tables().library_entry(kind, entry_id)
        if found is None:
            raise NotFound(f"The group's library has no {kind} {entry_id!r}.")
        return found

    def remove_library_entry(self, kind: str, entry_id: str) -> None:
        """Remove one of the group's entries (the caller checked who may)."""
        self.library_entry(kind, entry_id)
        self._tables().remove_library_entry(kind, entry_id)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")
