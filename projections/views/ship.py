"""Ship history: the Integrity of each compartment over time, and the crew and upgrades lost.

The view reads the figures every game event records when it changes them: each compartment's
``ship.<compartment>.integrity`` and ``integrity_max``, and ``page.date`` (``projections.figures``;
an older store's events, which record none, are followed through their JSON Patch). So a row records
each change (hits, destruction, repairs, crew assigned or lost): the page date, the compartment, its
new Integrity and maximum, the value before, and the event that changed it. ``CrewDied`` and
``UpgradeDestroyed`` go to ``ship_losses``. A rollback sets ``undone_by`` on the rows of the
versions it undid and follows the restored ship from there.
"""

from __future__ import annotations

import json
from typing import Any

from domain.facade import COMPARTMENTS, Timeline
from projections.events import Recorded
from projections.figures import apply_figures, qc_places, remember
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
    ANY,
    CREATED,
    ROW_COLUMNS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    View,
    campaign_rows,
    handles,
    page,
    row_basics,
)

HISTORY = table(
    *ROW_COLUMNS,
    "page_date TEXT",
    "compartment TEXT NOT NULL",
    "name TEXT",
    "integrity INTEGER",
    "previous INTEGER",
    "integrity_max INTEGER",
    "event_type TEXT NOT NULL",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc={
        **ROW_DOC,
        "page_date": "The date of the calendar page being played then.",
        "compartment": "The compartment's number (1 to 6).",
        "name": "The compartment's name (e.g. Bridge).",
        "integrity": "Its Integrity after the event.",
        "previous": "Its Integrity before.",
        "integrity_max": "Its maximum Integrity after the event.",
        "event_type": "The type of the event that changed it, e.g. CompartmentHit.",
    },
    kinds={**ROW_KINDS, "page_date": "date"},
)
LOSSES = table(
    *ROW_COLUMNS,
    "page_date TEXT",
    "compartment TEXT",
    "kind TEXT NOT NULL",
    "item_id TEXT",
    "detail TEXT NOT NULL",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc={
        **ROW_DOC,
        "page_date": "The date of the calendar page being played then.",
        "compartment": "The compartment the crew member or upgrade was in.",
        "kind": "crew (a crew member died) or upgrade (an upgrade was destroyed).",
        "item_id": "The crew member's or upgrade's id.",
        "detail": "What else the event records about the loss, as JSON.",
    },
    kinds={**ROW_KINDS, "page_date": "date", "detail": "json"},
)
INTEGRITY = tuple(f"ship.{key}.integrity" for key in COMPARTMENTS)
MAXIMUM = tuple(f"ship.{key}.integrity_max" for key in COMPARTMENTS)
FIGURES = qc_places(*INTEGRITY, *MAXIMUM, "page.date")


class ShipHistory(View):
    """Compartment Integrity over time; crew and upgrades lost."""

    name = "ship"
    tables = {"ship_history": HISTORY, "ship_losses": LOSSES}
    undoable = ("ship_history", "ship_losses")

    @handles(CREATED)
    def created(self, event: Recorded) -> None:
        """Follow the ship of the campaign's first state."""
        self._restore(event.campaign_id, event.data.get("state") or {})

    def _restore(self, campaign_id: str, game_state: dict[str, Any]) -> None:
        state = self.state(campaign_id)
        state["mirror"] = remember(game_state, FIGURES)
        if state["mirror"][FIGURES["page.date"]] is not None:
            state["page_date"] = state["mirror"][FIGURES["page.date"]]

    @handles(ANY)
    def followed(self, event: Recorded) -> None:
        """A row per compartment whose Integrity (or maximum) the event changed."""
        if not event.topic.startswith("qc."):
            return
        state = self.state(event.campaign_id)
        mirror = state.setdefault("mirror", {})
        before = dict(mirror)
        changed = apply_figures(event, mirror, FIGURES)
        if not changed:
            return
        if "page.date" in changed and mirror[FIGURES["page.date"]] is not None:
            state["page_date"] = mirror[FIGURES["page.date"]]
        n = 0
        for key, current, maximum in zip(COMPARTMENTS, INTEGRITY, MAXIMUM, strict=True):
            if current not in changed and maximum not in changed:
                continue
            self.insert(
                "ship_history",
                (
                    event.campaign_id,
                    event.id,
                    n,
                    event.version,
                    state.get("page_date"),
                    key,
                    COMPARTMENTS[key],
                    mirror.get(FIGURES[current]),
                    before.get(FIGURES[current]),
                    mirror.get(FIGURES[maximum]),
                    event.kind,
                    event.timestamp,
                    None,
                ),
            )
            n += 1

    @handles("qc.CrewDied", "qc.UpgradeDestroyed")
    def lost(self, event: Recorded) -> None:
        """A crew member or an upgrade lost with its compartment."""
        self.followed(event)
        details = event.details
        crew = event.kind == "CrewDied"
        item = details.get("crew_id") if crew else details.get("upgrade_id")
        detail = {
            k: v for k, v in details.items() if k not in ("crew_id", "upgrade_id", "compartment")
        }
        self.insert(
            "ship_losses",
            (
                event.campaign_id,
                event.id,
                0,
                event.version,
                self.state(event.campaign_id).get("page_date"),
                None if details.get("compartment") is None else str(details["compartment"]),
                "crew" if crew else "upgrade",
                item,
                json.dumps(detail, sort_keys=True),
                event.timestamp,
                None,
            ),
        )

    def rolled_back(self, event: Recorded, state: dict[str, Any], timeline: Timeline) -> None:
        """Follow the restored ship from here."""
        self._restore(event.campaign_id, event.data.get("restored_state") or {})


def _change(row: dict[str, Any]) -> dict[str, Any]:
    item = row_basics(row)
    item.update(
        page_date=row["page_date"],
        compartment=row["compartment"],
        name=row["name"],
        integrity=row["integrity"],
        previous=row["previous"],
        integrity_max=row["integrity_max"],
        event_type=row["event_type"],
        recorded_at=row["recorded_at"],
    )
    return item


def _loss(row: dict[str, Any]) -> dict[str, Any]:
    item = row_basics(row)
    item.update(
        page_date=row["page_date"],
        compartment=row["compartment"],
        kind=row["kind"],
        item_id=row["item_id"],
        detail=json.loads(row["detail"]),
        recorded_at=row["recorded_at"],
    )
    return item


def ship_history(
    store: ViewStore,
    campaign_id: str,
    *,
    compartment: str | None = None,
    include_undone: bool = True,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """A campaign's compartment Integrity changes in order, optionally of one compartment."""
    key = None if compartment is None else str(compartment)
    template, params = campaign_rows(
        "ship_history", campaign_id, {"compartment": key}, include_undone=include_undone
    )
    return page(store, ShipHistory.name, template, params, after=after, limit=limit, item=_change)


def ship_losses(
    store: ViewStore,
    campaign_id: str,
    *,
    kind: str | None = None,
    include_undone: bool = True,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """The crew (``kind="crew"``) and upgrades (``"upgrade"``) a campaign's ship lost."""
    template, params = campaign_rows(
        "ship_losses", campaign_id, {"kind": kind}, include_undone=include_undone
    )
    return page(store, ShipHistory.name, template, params, after=after, limit=limit, item=_loss)
