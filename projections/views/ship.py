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
from collections.abc import Mapping
from typing import Any

from domain.facade import COMPARTMENTS, Timeline, qc_fight_events
from projections.events import Recorded
from projections.figures import apply_figures, qc_places, remember
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
    ANY,
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    CampaignCreated,
    RolledBack,
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
    defaults=ROW_DEFAULTS,
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
    defaults=ROW_DEFAULTS,
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


CrewDied = qc_fight_events.CrewDied
UpgradeDestroyed = qc_fight_events.UpgradeDestroyed


class ShipHistory(View):
    """Compartment Integrity over time; crew and upgrades lost."""

    name = "ship"
    tables = {"ship_history": HISTORY, "ship_losses": LOSSES}
    undoable = ("ship_history", "ship_losses")

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Follow the ship of the campaign's first state."""
        self._restore(event.campaign_id, created.state)

    def _restore(self, campaign_id: str, game_state: Mapping[str, Any]) -> None:
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
                campaign_id=event.campaign_id,
                event_id=event.id,
                n=n,
                version=event.version,
                page_date=state.get("page_date"),
                compartment=key,
                name=COMPARTMENTS[key],
                integrity=mirror.get(FIGURES[current]),
                previous=before.get(FIGURES[current]),
                integrity_max=mirror.get(FIGURES[maximum]),
                event_type=event.kind,
                recorded_at=event.timestamp,
            )
            n += 1

    @handles(CrewDied, UpgradeDestroyed)
    def lost(self, event: Recorded, loss: CrewDied | UpgradeDestroyed) -> None:
        """A crew member or an upgrade lost with its compartment (its other facts: the
        detail)."""
        self.followed(event)
        crew = isinstance(loss, CrewDied)
        item = loss.crew_id if isinstance(loss, CrewDied) else loss.upgrade_id
        detail = {
            k: v
            for k, v in loss.details().items()
            if k not in ("crew_id", "upgrade_id", "compartment")
        }
        self.insert(
            "ship_losses",
            campaign_id=event.campaign_id,
            event_id=event.id,
            n=0,
            version=event.version,
            page_date=self.state(event.campaign_id).get("page_date"),
            compartment=loss.compartment,
            kind="crew" if crew else "upgrade",
            item_id=item,
            detail=json.dumps(detail, sort_keys=True),
            recorded_at=event.timestamp,
        )

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """Follow the restored ship from here."""
        self._restore(event.campaign_id, rollback.restored_state)


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
