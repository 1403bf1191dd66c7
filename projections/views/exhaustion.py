"""Exhaustion history: every change of a party's exhaustion, and the eliminations it caused.

A row per ``ExhaustionChanged`` of a Calendar Board match: the party, the night it happened in
(NULL by day, e.g. a day sleep), the round, from, to and cause. The ``PieceEliminated`` events with
cause ``exhaustion`` that follow are counted on the party's latest change (``eliminations``, and
the piece ids in ``eliminated``). A rollback sets ``undone_by`` on the changes it undid.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from domain.facade import Timeline, cb_action_events, cb_board_events
from projections.events import Recorded
from projections.schema import table
from projections.store import ViewStore
from projections.view import (
    ROW_COLUMNS,
    ROW_DEFAULTS,
    ROW_DOC,
    ROW_KEY,
    ROW_KINDS,
    CampaignCreated,
    RolledBack,
    View,
    campaign_rows,
    common,
    handles,
    page,
    row_basics,
)

ExhaustionChanged = cb_action_events.ExhaustionChanged
PieceEliminated = cb_action_events.PieceEliminated
NightPhaseStarted = cb_board_events.NightPhaseStarted
NightPhaseEnded = cb_board_events.NightPhaseEnded
TurnStarted = cb_board_events.TurnStarted

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
    defaults={**ROW_DEFAULTS, "eliminations": 0, "eliminated": "[]"},
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

    @handles(CampaignCreated)
    def created(self, event: Recorded, created: CampaignCreated) -> None:
        """Start from the match's set-up: its round and night (if any)."""
        self._restore(event.campaign_id, created.state)

    def _restore(self, campaign_id: str, game_state: Mapping[str, Any]) -> None:
        night = game_state.get("night")
        state = self.state(campaign_id)
        state.update(
            night=night.get("number") if isinstance(night, dict) else None,
            round=game_state.get("round"),
            last={},
        )

    @handles(NightPhaseStarted)
    def night_started(self, event: Recorded, started: NightPhaseStarted) -> None:
        """Changes from now on happen in this night."""
        state = self.state(event.campaign_id)
        state["night"] = started.night_number
        state["round"] = started.round

    @handles(NightPhaseEnded)
    def night_ended(self, event: Recorded, ended: NightPhaseEnded) -> None:
        """Changes from now on happen by day."""
        self.state(event.campaign_id)["night"] = None

    @handles(TurnStarted)
    def turn_started(self, event: Recorded, turn: TurnStarted) -> None:
        """Keep the round."""
        self.state(event.campaign_id)["round"] = turn.round

    @handles(ExhaustionChanged)
    def changed(self, event: Recorded, change: ExhaustionChanged) -> None:
        """A row per change."""
        state = self.state(event.campaign_id)
        self.insert(
            "exhaustion",
            **common(event),
            party=change.party,
            night=state.get("night"),
            round=state.get("round"),
            from_value=change.from_,
            to_value=change.to,
            cause=change.cause,
        )
        state.setdefault("last", {})[change.party] = [event.id, 0, []]

    @handles(PieceEliminated)
    def eliminated_piece(self, event: Recorded, elimination: PieceEliminated) -> None:
        """An elimination by exhaustion counts on the party's latest change."""
        if elimination.cause != "exhaustion":
            return
        last = self.state(event.campaign_id).get("last", {}).get(elimination.party)
        if last is None:
            return
        last[2].append(elimination.piece_id)
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

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """The night and round are those of the restored state."""
        self._restore(event.campaign_id, rollback.restored_state)


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
