"""Campaign summary: one row per campaign, across both games.

The game and name, when it started and when it last changed, its head version, and counts: the
events and rolls recorded (server and reported), deaths, clones and eliminations recorded, seed
rotations and rollbacks. ``pages_played`` and ``last_page`` (Quest Calendar) and
``nights_played`` and ``round`` (The Calendar Board) follow the active history: a rollback sets
them to those of the restored state. The counts count everything recorded, undone or not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.facade import (
    campaign_events,
    cb_action_events,
    cb_board_events,
    qc_hero_events,
    qc_page_events,
    topic_of,
)
from projections.events import Recorded
from projections.schema import table
from projections.store import ViewStore
from projections.view import CHUNK, CampaignCreated, RolledBack, View, page

CAMPAIGNS = table(
    "campaign_id TEXT NOT NULL",
    "event_id BIGINT NOT NULL",
    "n INTEGER NOT NULL",
    "game TEXT",
    "name TEXT",
    "created_at TEXT",
    "last_activity TEXT NOT NULL",
    "version BIGINT NOT NULL",
    "events BIGINT NOT NULL",
    "rolls BIGINT NOT NULL",
    "server_rolls BIGINT NOT NULL",
    "reported_rolls BIGINT NOT NULL",
    "pages_played INTEGER",
    "last_page TEXT",
    "nights_played INTEGER",
    "round INTEGER",
    "deaths INTEGER NOT NULL",
    "clones INTEGER NOT NULL",
    "eliminations INTEGER NOT NULL",
    "seed_rotations INTEGER NOT NULL",
    "rollbacks INTEGER NOT NULL",
    key=("campaign_id",),
    doc={
        "campaign_id": "The campaign (its UUID).",
        "event_id": "The notification id of the campaign's last event (its place in the log).",
        "n": "Always 0 (one row per campaign).",
        "game": "The campaign's game: quest-calendar or calendar-board.",
        "name": "The campaign's name, as its owner gave it.",
        "created_at": "When the campaign was created (UTC).",
        "last_activity": "When its last event was recorded (UTC).",
        "version": "Its head version: the number of events it has recorded.",
        "events": "The events recorded, undone or not.",
        "rolls": "The rolls recorded, undone or not.",
        "server_rolls": "The server rolls (verifiable dice) recorded.",
        "reported_rolls": "The rolls reported by hand (rolled at the table).",
        "pages_played": "Quest Calendar: the calendar pages played on the active history.",
        "last_page": "Quest Calendar: the date of the page being played, or the last one.",
        "nights_played": "Calendar Board: the nights played to the end on the active history.",
        "round": "Calendar Board: the round the match is in.",
        "deaths": "Quest Calendar: the hero's deaths recorded (qc.Died).",
        "clones": "Quest Calendar: the clonings recorded (qc.Cloned).",
        "eliminations": "Calendar Board: the pieces eliminated (cb.PieceEliminated).",
        "seed_rotations": "The server seeds revealed and replaced (questlog.SeedRotated).",
        "rollbacks": "The rollbacks recorded (questlog.RolledBack).",
    },
    kinds={"created_at": "timestamp", "last_activity": "timestamp", "last_page": "date"},
    by_event=("event_id", "n"),
    by_game=("game",),
)
COLUMNS = CAMPAIGNS.names
COUNTED = {
    topic_of(qc_hero_events.Died): "deaths",
    topic_of(qc_hero_events.Cloned): "clones",
    topic_of(cb_action_events.PieceEliminated): "eliminations",
    topic_of(campaign_events.SeedRotated): "seed_rotations",
    topic_of(RolledBack): "rollbacks",
}
"""The counters a row keeps of events of a type, by the type's topic."""
PageStarted = qc_page_events.PageStarted
PageEnded = qc_page_events.PageEnded
NightPhaseEnded = cb_board_events.NightPhaseEnded
TurnStarted = cb_board_events.TurnStarted
CREATED, PAGE_STARTED, PAGE_ENDED, NIGHT_ENDED, TURN_STARTED, ROLLED_BACK = (
    topic_of(kind)
    for kind in (CampaignCreated, PageStarted, PageEnded, NightPhaseEnded, TurnStarted, RolledBack)
)


def _new_row(event: Recorded) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS, 0)
    row.update(
        campaign_id=event.campaign_id,
        event_id=event.id,
        game=None,
        name=None,
        created_at=None,
        pages_played=None,
        last_page=None,
        nights_played=None,
        round=None,
    )
    return row


def _from_state(row: dict[str, Any], game_state: Mapping[str, Any]) -> None:
    """Pages, nights and round as a whole game state has them."""
    calendar = game_state.get("calendar")
    if isinstance(calendar, dict):
        page_now = game_state.get("page")
        row["pages_played"] = calendar.get("pages_played", 0)
        row["last_page"] = (
            page_now.get("date") if isinstance(page_now, dict) else calendar.get("last_date")
        )
    if "nights" in game_state:
        running = 1 if game_state.get("night") else 0
        row["nights_played"] = int(game_state["nights"]) - running
        row["round"] = game_state.get("round")


class CampaignSummary(View):
    """One row per campaign, updated in memory per batch and written once per campaign."""

    name = "campaigns"
    tables = {"campaigns": CAMPAIGNS}
    stateful = False

    def apply(self, events: Sequence[Recorded]) -> None:
        """Fold the batch into the rows of its campaigns."""
        rows = self._load({event.campaign_id for event in events})
        for event in events:
            row = rows.get(event.campaign_id)
            if row is None:
                row = rows[event.campaign_id] = _new_row(event)
            self._fold(row, event)
        values = [CAMPAIGNS.row(**rows[cid]) for cid in sorted(rows)]
        self.write_rows("campaigns", values, upsert=True)

    def _load(self, campaign_ids: set[str]) -> dict[str, dict[str, Any]]:
        wanted = sorted(campaign_ids)
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            marks = ", ".join("?" for _ in chunk)
            template = f"SELECT * FROM {{campaigns}} WHERE campaign_id IN ({marks})"
            for row in self.query(template, chunk):
                found[str(row["campaign_id"])] = row
        return found

    @staticmethod
    def _fold(row: dict[str, Any], event: Recorded) -> None:
        row["events"] += 1
        row["version"] = event.version
        row["last_activity"] = event.timestamp
        for record in event.rolls:
            row["rolls"] += 1
            source = record.get("source")
            if source == "server":
                row["server_rolls"] += 1
            elif source == "reported":
                row["reported_rolls"] += 1
        counted = COUNTED.get(event.topic)
        if counted is not None:
            row[counted] += 1
        topic = event.topic
        if topic == CREATED:
            created = event.payload(CampaignCreated)
            row.update(
                event_id=event.id, game=created.game, name=created.name, created_at=event.timestamp
            )
            _from_state(row, created.state)
        elif topic == PAGE_STARTED:
            row["last_page"] = event.payload(PageStarted).page_date
        elif topic == PAGE_ENDED:
            row["pages_played"] = (row["pages_played"] or 0) + 1
        elif topic == NIGHT_ENDED:
            row["nights_played"] = event.payload(NightPhaseEnded).night_number
        elif topic == TURN_STARTED:
            row["round"] = event.payload(TurnStarted).round
        elif topic == ROLLED_BACK:
            _from_state(row, event.payload(RolledBack).restored_state)


def _item(row: dict[str, Any]) -> dict[str, Any]:
    item = {c: row[c] for c in COLUMNS if c not in ("event_id", "n")}
    return item


def campaign_summaries(
    store: ViewStore,
    *,
    game: str | None = None,
    after: str | None = None,
    limit: int = 100,
) -> dict[str, Any]:
    """Every campaign's summary, in creation order, optionally of one game."""
    template = "SELECT * FROM {campaigns} WHERE 1 = 1"
    params: list[Any] = []
    if game is not None:
        template += " AND game = ?"
        params.append(game)
    return page(store, CampaignSummary.name, template, params, after=after, limit=limit, item=_item)


def campaign_summary(store: ViewStore, campaign_id: str) -> dict[str, Any] | None:
    """One campaign's summary with the view's position, or None if the view has not seen it."""
    with store.read() as cursor:
        rows = store.rows(cursor, "SELECT * FROM {campaigns} WHERE campaign_id = ?", [campaign_id])
        found = store.rows(
            cursor, "SELECT position FROM {positions} WHERE view = ?", [CampaignSummary.name]
        )
    if not rows:
        return None
    return {**_item(rows[0]), "position": int(found[0]["position"]) if found else 0}
