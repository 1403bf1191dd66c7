"""View revisions: a view whose rows a release changed starts again from the log's start.

A view class says what its rows hold with ``View.revision``, raised when a release adds a column
or fixes a figure. ``ViewStore.ensure`` records each view's revision in ``view_revisions``; a view
an earlier release built at a lower revision (one that recorded none: revision 1) is dropped and
made anew at position 0, so the views process fills it again from the first event. Its figures are
then never half old: the route reading it answers with the view's position, and ``wait_for``
waits for it like any view catching up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from projections.schema import REVISIONS, REVISIONS_TABLE, ViewTables


class ViewStore(Protocol):
    """What the revisions need of the view store (``projections.store.ViewStore``)."""

    def physical(self, logical: str, suffix: str = "") -> str:
        """A logical table's name in the store."""
        ...

    @staticmethod
    def bare(logical: str, suffix: str = "") -> str:
        """A logical table's name without its schema."""
        ...

    def sql(self, template: str, suffix: str = "") -> str:
        """A statement template resolved for the store."""
        ...

    def drop(self, cursor: Any, view: ViewTables, suffix: str = "") -> None:
        """Drop a view's tables and forget its position."""
        ...


def start_outdated_again(store: ViewStore, cursor: Any, views: Sequence[ViewTables]) -> None:
    """Drop every view built at a lower revision than its class's (in the caller's transaction)."""
    physical = store.physical(REVISIONS)
    cursor.execute(REVISIONS_TABLE.create_sql(physical, f"{store.bare(REVISIONS)}_pkey"))
    for view in views:
        if outdated(store, cursor, view):
            store.drop(cursor, view)


def outdated(store: ViewStore, cursor: Any, view: ViewTables) -> bool:
    """Whether a release before this one built the view's rows at a lower revision. A view not
    built yet (no position) is not outdated."""
    cursor.execute(
        store.sql(
            "SELECT r.revision FROM {positions} p LEFT JOIN {view_revisions} r ON r.view = p.view "
            "WHERE p.view = ?"
        ),
        (view.name,),
    )
    found = cursor.fetchone()
    return found is not None and int(found["revision"] or 1) < view.revision


def record(store: ViewStore, cursor: Any, views: Sequence[ViewTables]) -> None:
    """Record the revision each view's rows are built at now."""
    for view in views:
        cursor.execute(
            store.sql(REVISIONS_TABLE.upsert_sql("{view_revisions}")), (view.name, view.revision)
        )
