"""Exhaustion history: every change of a party's exhaustion, and the eliminations it caused.

A row per ``ExhaustionChanged`` of a Calendar Board match: the party, the night it happened in
(NULL by day, e.g. a day sleep), the round, from, to and cause. The ``PieceEliminated`` events with
cause ``exhaustion`` that follow are counted on the party's latest change (``eliminations``, and
the piece ids in ``eliminated``). A rollback sets ``undone_by`` on the changes it undid.
"""

from __future__ import annotations

import json
from typing import Any

from domain.facade import Timeline
from projections.events import Recorded
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
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

EXHAUSTION = table(
    *ROW_COLUMNS,
    "party TEXT NOT NULL",
    "night INTEGER",
    "round INTEGER",
    "from_value INTEGER",
    "to_value INTEGER NOT NULL",
    "cause TEXT",
    "eliminations INTEGER NOT NULL",
    "eliminated TEXT NOT NULL",
    "recorded_at TEXT NOT NULL",
    "undone_by BIGINT",
    key=ROW_KEY,
    doc={
        **ROW_DOC,
        "party": "The party (the player's seat, e.g. A) whose exhaustion changed.",
        "night": "The night it changed in; empty by day (e.g. a day sleep).",
        "round": "The match's round then.",
        "from_value": "The party's exhaustion before.",
        "to_value": "The party's exhaustion after.",
        "cause": "Why it changed, as the event records it (e.g. rizz, daySleep).",
        "eliminations": "The pieces the change eliminated (by exhaustion).",
        "eliminated": "The ids of those pieces.",
    },
    kinds={**ROW_KINDS, "eliminated": "json"},
    by_night=("night",),
)


class ExhaustionHistory(View):
    """Exhaustion changes per match and party."""

    name = "exhaustion"
    tables = {"exhaustion": EXHAUSTION}
    undoable = ("exhaustion",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.eliminated: dict[tuple[str, int, int], list[str]] = {}

    @handles(CREATED)
    def created(self, event: Recorded) -> None:
        """Start from the match's set-up: its round and night (if any)."""
        self._restore(event.campaign_id, event.data.get("state") or {})

    def _restore(self, campaign_id: str, game_state: dict[str, Any]) -> None:
        night = game_state.get("night")
        state = self.state(campaign_id)
        state.update(
            night=night.get("number") if isinstance(night, dict) else None,
            round=game_state.get("round"),
            last={},
        )

    @handles("cb.NightPhaseStarted")
    def night_started(self, event: Recorded) -> None:
        """Changes from now on happen in this night."""
        state = self.state(event.campaign_id)
        state["night"] = event.details.get("night_number")
        state["round"] = event.details.get("round", state.get("round"))

    @handles("cb.NightPhaseEnded")
    def night_ended(self, event: Recorded) -> None:
        """Changes from now on happen by day."""
        self.state(event.campaign_id)["night"] = None

    @handles("cb.TurnStarted")
    def turn_started(self, event: Recorded) -> None:
        """Keep the round."""
        self.state(event.campaign_id)["round"] = event.details.get("round")

    @handles("cb.ExhaustionChanged")
    def changed(self, event: Recorded) -> None:
        """A row per change."""
        details = event.details
        state = self.state(event.campaign_id)
        party = str(details.get("party"))
        self.insert(
            "exhaustion",
            (
                event.campaign_id,
                event.id,
                0,
                event.version,
                party,
                state.get("night"),
                state.get("round"),
                details.get("from"),
                details.get("to"),
                details.get("cause"),
                0,
                "[]",
                event.timestamp,
                None,
            ),
        )
        state.setdefault("last", {})[party] = [event.id, 0, []]

    @handles("cb.PieceEliminated")
    def eliminated_piece(self, event: Recorded) -> None:
        """An elimination by exhaustion counts on the party's latest change."""
        details = event.details
        if details.get("cause") != "exhaustion":
            return
        last = self.state(event.campaign_id).get("last", {}).get(str(details.get("party")))
        if last is None:
            return
        last[2].append(details.get("piece_id"))
        self.eliminated[(event.campaign_id, last[0], last[1])] = list(last[2])

    def flush(self) -> None:
        """Write the rows, then the elimination counts (some on rows of this batch)."""
        super().flush()
        if self.eliminated:
            updates = [(len(ids), json.dumps(ids), *key) for key, ids in self.eliminated.items()]
            self.eliminated.clear()
            self.cursor.executemany(
                self.sql(
                    "UPDATE {exhaustion} SET eliminations = ?, eliminated = ? "
                    "WHERE campaign_id = ? AND event_id = ? AND n = ?"
                ),
                updates,
            )

    def rolled_back(self, event: Recorded, state: dict[str, Any], timeline: Timeline) -> None:
        """The night and round are those of the restored state."""
        self._restore(event.campaign_id, event.data.get("restored_state") or {})


def _item(row: dict[str, Any]) -> dict[str, Any]:
    item = row_basics(row)
    item.update(
        party=row["party"],
        night=row["night"],
        round=row["round"],
        **{"from": row["from_value"], "to": row["to_value"]},
        cause=row["cause"],
        eliminations=int(row["eliminations"]),
        eliminated=json.loads(row["eliminated"]),
        recorded_at=row["recorded_at"],
    )
    return item


def exhaustion_history(
    store: ViewStore,
    campaign_id: str,
    *,
    party: str | None = None,
    night: int | None = None,
    include_undone: bool = True,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """A match's exhaustion changes in order, optionally of one party or one night."""
    template, params = campaign_rows(
        "exhaustion", campaign_id, {"party": party, "night": night}, include_undone=include_undone
    )
    return page(
        store, ExhaustionHistory.name, template, params, after=after, limit=limit, item=_item
    )
