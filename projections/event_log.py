"""The event log as a table of the analyst's dataset (``events``): a row per event.

The log is read in its order, as the views read it (``projections.batches.read_batch``), up to a
position. Each row says where the event stands in its campaign: its game, the command that
recorded it (a game command's type, else the type of the command's first event), who caused it
(its token's name, never the token's id), the Quest Calendar page and the hero's level then, the
Calendar Board night then, and whether a rollback undid it (from the campaign's rollbacks, known
once the log is read). Its payload is the event's data as JSON without the seeds a reveal holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson
import pyarrow as pa

from domain.facade import START, LogPosition, Questlog, Timeline, cb_board_events, topic_of
from projections.batches import read_batch
from projections.columns import record_batch
from projections.events import Recorded, without_token_id
from projections.figures import apply_figures, qc_places, remember
from projections.schema import table
from projections.view import ROW_DOC, CampaignCreated, RolledBack

CREATED, ROLLED_BACK = topic_of(CampaignCreated), topic_of(RolledBack)
NightPhaseStarted = cb_board_events.NightPhaseStarted
NIGHT_STARTED, NIGHT_ENDED = (
    topic_of(NightPhaseStarted),
    topic_of(cb_board_events.NightPhaseEnded),
)

EVENTS_NAME = "events"
EVENTS_PER_READ = 5_000
"""Events read from the log per query."""
EVENTS = table(
    "position BIGINT NOT NULL",
    "campaign_id TEXT NOT NULL",
    "game TEXT",
    "version BIGINT NOT NULL",
    "topic TEXT NOT NULL",
    "event_type TEXT NOT NULL",
    "command_type TEXT",
    "command_id BIGINT",
    "actor TEXT",
    "undone INTEGER NOT NULL",
    "undone_by BIGINT",
    "page_date TEXT",
    "night INTEGER",
    "level INTEGER",
    "recorded_at TEXT NOT NULL",
    "payload TEXT NOT NULL",
    key=("position",),
    doc={
        "position": "The event's notification id: its place in the log (event_id in the views).",
        "campaign_id": ROW_DOC["campaign_id"],
        "game": "The campaign's game: quest-calendar or calendar-board.",
        "version": ROW_DOC["version"],
        "topic": "The event's stored type, e.g. questlog.DiceRolled or qc.CreditsChanged.",
        "event_type": "The type without its prefix, e.g. DiceRolled or CreditsChanged.",
        "command_type": "The command that recorded the event: a game command's type (e.g. "
        "buy), else the type of the command's first event (e.g. DiceRolled); empty for an event "
        "stored before events named their command.",
        "command_id": "The command's first version: the events of one command share it (empty "
        "for an event stored before events named their command).",
        "actor": "Who caused the event: the name of the API token, or system (the CLI); empty "
        "for an event stored before actors were recorded. Never the token's id or secret.",
        "undone": "Whether a rollback took the event off the campaign's active history.",
        "undone_by": "The version of the rollback that undid the event; empty while it stands.",
        "page_date": "Quest Calendar: the date of the calendar page being played then.",
        "night": "Calendar Board: the number of the night being played then (empty by day).",
        "level": "Quest Calendar: the hero's level then.",
        "recorded_at": ROW_DOC["recorded_at"],
        "payload": "The event's data as JSON (docs/events.md), without seeds: a seed reveal "
        "keeps the commitment, not the seed.",
    },
    kinds={"undone": "bool", "page_date": "date", "recorded_at": "timestamp", "payload": "json"},
)
"""The event log as the dataset has it: a row per event, in the log's order."""

SECRET_FIELDS = frozenset({"revealed_seed", "revealed_seeds"})
"""Payload fields that hold server seeds (``SeedRotated``, ``CampaignImported``)."""
ACTOR_FIELD = "actor"
"""The payload field that names an actor as the log does (``name#id`` of a token;
``RolledBack``)."""


def public_payload(data: dict[str, Any]) -> dict[str, Any]:
    """An event's data without the seeds it reveals and with its actor named without a token
    id."""
    if "revealed_seed" in data or "revealed_seeds" in data or ACTOR_FIELD in data:
        data = {k: v for k, v in data.items() if k not in SECRET_FIELDS}
        if ACTOR_FIELD in data:
            data[ACTOR_FIELD] = without_token_id(data[ACTOR_FIELD])
    return data


CORE_FIGURES = qc_places("page.date", "hero.level")
PAGE, LEVEL = CORE_FIGURES["page.date"], CORE_FIGURES["hero.level"]


@dataclass
class CampaignTrack:
    """What the event log's columns need to remember about one campaign while it is read."""

    game: str | None = None
    memory: dict[str, Any] = field(default_factory=dict)
    night: int | None = None
    night_then: int | None = None
    page_then: Any = None
    commands: dict[int, str] = field(default_factory=dict)
    rollbacks: list[tuple[int, int]] = field(default_factory=list)
    head: int = 0
    actors: dict[int, str] | None = None

    def restart(self, game_state: Any) -> None:
        """Follow a whole recorded state (the first one, or a rollback's)."""
        state = game_state if isinstance(game_state, dict) else {}
        self.memory = remember(state, CORE_FIGURES)
        night = state.get("night")
        self.night = night.get("number") if isinstance(night, dict) else None


class EventRows:
    """The event log's rows, built while the log is read in its order."""

    def __init__(
        self,
        app: Questlog,
        until: LogPosition,
        chunk: int,
        *,
        campaign_id: str | None = None,
        game: str | None = None,
    ) -> None:
        self.app = app
        self.campaign_id = campaign_id
        self.game = game
        self.until = until
        self.chunk = chunk
        self.tracks: dict[str, CampaignTrack] = {}

    def batches(self, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
        """The rows in record batches; ``undone`` and ``undone_by`` are filled in at the end,
        from each campaign's rollbacks, once they are all known."""
        built: list[pa.RecordBatch] = []
        campaigns: list[list[str]] = []
        versions: list[list[int]] = []
        rows: list[tuple[Any, ...]] = []
        for row in self.rows():
            rows.append(row)
            if len(rows) == self.chunk:
                built.append(record_batch(EVENTS_NAME, schema, rows))
                campaigns.append([r[1] for r in rows])
                versions.append([r[3] for r in rows])
                rows = []
        if rows or not built:
            built.append(record_batch(EVENTS_NAME, schema, rows))
            campaigns.append([r[1] for r in rows])
            versions.append([r[3] for r in rows])
        timelines = {
            cid: Timeline.of(track.rollbacks, track.head) for cid, track in self.tracks.items()
        }
        undone_at = schema.get_field_index("undone")
        by_at = schema.get_field_index("undone_by")
        for batch, ids, numbers in zip(built, campaigns, versions, strict=True):
            by = [timelines[c].undone_by(v) for c, v in zip(ids, numbers, strict=True)]
            columns = list(batch.columns)
            columns[undone_at] = pa.array([b is not None for b in by], pa.bool_())
            columns[by_at] = pa.array(by, pa.int64())
            yield pa.RecordBatch.from_arrays(columns, schema=schema)

    def rows(self) -> Iterator[tuple[Any, ...]]:
        """A row per event in scope, in the log's order, up to ``until``."""
        position = START
        wanted_campaign, wanted_game = self.campaign_id, self.game
        while position < self.until:
            events = read_batch(self.app.recorder, self.app.mapper, position, EVENTS_PER_READ)
            if not events:
                return
            last = events[-1].position > self.until
            for event in events:
                if last and event.position > self.until:
                    return
                track = self.follow(event)
                if wanted_campaign is not None and event.campaign_id != wanted_campaign:
                    continue
                if wanted_game is not None and track.game != wanted_game:
                    continue
                yield self.row(event, track)
            position = events[-1].position

    def follow(self, event: Recorded) -> CampaignTrack:
        """Bring a campaign's track up to this event: its game, page, night, level, rollbacks;
        ``page_then`` and ``night_then`` are the page and night the event happened in."""
        track = self.tracks.get(event.campaign_id)
        if track is None:
            track = self.tracks[event.campaign_id] = CampaignTrack()
        track.head = event.version
        topic = event.topic
        if topic.startswith("qc."):
            before = track.memory.get(PAGE)
            apply_figures(event, track.memory, CORE_FIGURES)
            # The event that ends a page is still played on it.
            track.page_then = track.memory.get(PAGE) or before
            return track
        if topic == CREATED:
            created = event.payload(CampaignCreated)
            track.game = created.game
            track.restart(created.state)
        elif topic == ROLLED_BACK:
            rollback = event.payload(RolledBack)
            track.rollbacks.append((event.version, rollback.to_version))
            track.restart(rollback.restored_state)
        elif topic == NIGHT_STARTED:
            track.night = event.payload(NightPhaseStarted).night_number
        track.night_then = track.night
        if topic == NIGHT_ENDED:
            track.night = None  # the night ends with this event, which is still in it
        track.page_then = track.memory.get(PAGE)
        return track

    def row(self, event: Recorded, track: CampaignTrack) -> tuple[Any, ...]:
        """The event's row (``undone`` and ``undone_by`` still to come)."""
        data = event.data
        kind = event.kind
        command_id = data.get("command_id")
        command_type = None
        if isinstance(command_id, int):
            command_type = track.commands.get(command_id)
            if command_type is None:
                command = data.get("command")
                command_type = (command.get("type") if isinstance(command, dict) else None) or kind
                track.commands[command_id] = command_type
        if track.actors is None:
            actors = self.app.reading.actors(UUID(event.campaign_id))
            track.actors = {version: without_token_id(a) for version, a in actors.items()}
        return (
            event.id,
            event.campaign_id,
            track.game,
            event.version,
            event.topic,
            kind,
            command_type,
            command_id if isinstance(command_id, int) else None,
            track.actors.get(event.version),
            0,
            None,
            track.page_then,
            track.night_then,
            track.memory.get(LEVEL),
            event.timestamp,
            orjson.dumps(public_payload(data), default=str).decode(),
        )
