"""The analyst's dataset: every view's row tables and the event log, as typed Arrow tables.

One module builds it, and every consumer reads it from here: ``questlog export --all`` (Parquet
files, ``projections.parquet``), ``questlog sql`` and ``GET /analytics/sql`` (DuckDB,
``projections.sql``). It is driven by the ``Table`` definitions of the views (``ALL_VIEWS``): a
column's SQL type and its ``kinds`` give its Arrow type (integers int64, ``bool`` booleans,
``date`` date32, ``timestamp`` UTC timestamps, ``json`` JSON text, or the fixed shape ``SHAPES``
names), and its ``doc`` the words of the data dictionary. A view added with its ``doc`` and
``kinds`` is in the dataset without a change here; the per-campaign state tables
(``<view>_campaigns``) are internal and left out.

Every table comes from one snapshot of the view store (one read transaction), read in key order a
chunk at a time and built column by column. The event log (``events``) is read in the log's order
up to the position every view had reached in that snapshot, so its events are exactly the ones the
view tables were made from. Its payloads never hold a seed or a token: a seed reveal's seed is
left out (its commitment stays), and an actor is named by its token's name without the token's id.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import orjson
import pyarrow as pa
import pyarrow.json as pa_json

from domain.facade import START, LogPosition, Questlog, Timeline
from projections.engine import read_batch
from projections.events import Recorded
from projections.figures import apply_figures, qc_places, remember
from projections.schema import Table, table
from projections.store import ViewStore, position_in
from projections.view import CREATED, ROLLED_BACK, ROW_DOC
from projections.views import ALL_VIEWS

CHUNK = 50_000
"""Rows per query and per record batch: what the export holds in memory at once per table."""
EVENTS_PER_READ = 5_000
JSON_BLOCK = 1 << 24
"""Bytes per block of Arrow's JSON reader: more than any one value."""
EVENTS_NAME = "events"

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

DIE = pa.struct([("sides", pa.int64()), ("face", pa.int64()), ("kept", pa.bool_())])
SHAPES: dict[tuple[str, str], pa.DataType] = {
    ("rolls", "dice"): pa.list_(DIE),
    ("rolls", "faces"): pa.list_(pa.int64()),
    ("exhaustion", "eliminated"): pa.list_(pa.string()),
}
"""The JSON columns with a fixed shape, typed as that shape; other JSON columns stay text."""
SECRET_FIELDS = frozenset({"revealed_seed", "revealed_seeds"})
"""Payload fields that hold server seeds (``SeedRotated``, ``CampaignImported``)."""
ACTOR_FIELD = "actor"
"""The payload field that names an actor as the log does (``name#id`` of a token;
``RolledBack``)."""
_TOKEN_ID = re.compile(r"#[0-9a-f]{12}$")


def row_tables() -> dict[str, Table]:
    """Every view's row tables by name, in the views' order (not their state tables)."""
    return {name: spec for view in ALL_VIEWS for name, spec in view.tables.items()}


def dataset_tables() -> dict[str, Table]:
    """Every table of the dataset by name: the views' row tables, then ``events``."""
    return {**row_tables(), EVENTS_NAME: EVENTS}


def arrow_type(name: str, column: str, spec: Table) -> pa.DataType:
    """The Arrow type of a column: its shape, else its kind, else its SQL type."""
    shape = SHAPES.get((name, column))
    if shape is not None:
        return shape
    kind = spec.kinds.get(column)
    if kind == "bool":
        return pa.bool_()
    if kind == "date":
        return pa.date32()
    if kind == "timestamp":
        return pa.timestamp("us", tz="UTC")
    sql_type = dict(spec.columns)[column].split()[0].upper()
    return pa.int64() if sql_type in ("INTEGER", "BIGINT") else pa.string()


def arrow_schema(name: str, spec: Table) -> pa.Schema:
    """A table's Arrow schema: typed columns, each with its words (``description``) and, for
    JSON text, ``kind: json`` in the field's metadata."""
    fields = []
    for column, sql_type in spec.columns:
        metadata = {"description": spec.doc.get(column, "")}
        if spec.kinds.get(column) == "json" and (name, column) not in SHAPES:
            metadata["kind"] = "json"
        nullable = "NOT NULL" not in sql_type.upper()
        fields.append(pa.field(column, arrow_type(name, column, spec), nullable, metadata))
    return pa.schema(fields)


def schema_of(name: str, columns: Sequence[str] | None = None) -> pa.Schema:
    """The Arrow schema of a table of the dataset, or of some of its columns (in its order)."""
    tables = dataset_tables()
    if name not in tables:
        raise KeyError(f"no table named {name!r}; the tables are {', '.join(tables)}")
    schema = arrow_schema(name, tables[name])
    if columns is None:
        return schema
    wanted = set(columns)
    return pa.schema([column for column in schema if column.name in wanted])


def type_name(data_type: pa.DataType) -> str:
    """A type as the data dictionary writes it (``int64``, ``list<int64>``...)."""
    if pa.types.is_timestamp(data_type):
        return "timestamp (UTC)"
    if pa.types.is_date32(data_type):
        return "date"
    return str(data_type).replace("list<item: ", "list<")


def _json_array(values: Sequence[Any], data_type: pa.DataType) -> pa.Array:
    """JSON texts parsed into their fixed shape by Arrow's JSON reader (no Python object per
    value): each text becomes the one field of a JSON Lines row."""
    if not values:
        return pa.array([], data_type)
    lines = "\n".join(['{"v":' + ("null" if v is None else v) + "}" for v in values])
    parsed = pa_json.read_json(
        io.BytesIO(lines.encode()),
        read_options=pa_json.ReadOptions(block_size=JSON_BLOCK),
        parse_options=pa_json.ParseOptions(explicit_schema=pa.schema([("v", data_type)])),
    )
    return parsed.column("v").combine_chunks()


def _array(values: Sequence[Any], data_type: pa.DataType, is_json: bool) -> pa.Array:
    """One column of a chunk as an Arrow array, converted as a whole where Arrow can."""
    if is_json:
        return _json_array(values, data_type)
    if pa.types.is_boolean(data_type):
        return pa.array(values, pa.int64()).cast(data_type)
    if pa.types.is_date32(data_type) or pa.types.is_timestamp(data_type):
        return pa.array(values, pa.string()).cast(data_type)
    return pa.array(values, data_type)


def record_batch(name: str, schema: pa.Schema, rows: Sequence[Sequence[Any]]) -> pa.RecordBatch:
    """A chunk of rows (tuples in the schema's column order) as a record batch of the schema."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in schema]
    arrays = [
        _array(values, column.type, (name, column.name) in SHAPES)
        for values, column in zip(columns, schema, strict=True)
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


@dataclass(frozen=True)
class Scope:
    """Which campaigns the dataset holds: one campaign, one game's, or all."""

    campaign_id: str | None = None
    game: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """The condition on a view table's rows (``?`` parameters) and its parameters."""
        conditions, params = ["1 = 1"], []
        if self.campaign_id is not None:
            conditions.append("campaign_id = ?")
            params.append(self.campaign_id)
        if self.game is not None:
            conditions.append("campaign_id IN (SELECT campaign_id FROM {campaigns} WHERE game = ?)")
            params.append(self.game)
        return " AND ".join(conditions), params


class Dataset:
    """One snapshot of the view store, read a table at a time (see ``snapshot``)."""

    def __init__(
        self, app: Questlog, store: ViewStore, cursor: Any, scope: Scope, chunk: int = CHUNK
    ) -> None:
        self.app = app
        self.store = store
        self.cursor = cursor
        self.scope = scope
        self.chunk = chunk
        rows = store.rows(cursor, "SELECT view, position, transaction_id FROM {positions}")
        found = {str(row["view"]): row for row in rows}
        self.positions = {
            view.name: int(found[view.name]["position"]) if view.name in found else 0
            for view in ALL_VIEWS
        }
        """Each view's position in the snapshot (the notification id of its last event)."""
        self.until = min((position_in(found.get(view.name)) for view in ALL_VIEWS), default=START)
        """The events every view had applied: the event log is read up to here."""

    def batches(
        self, name: str, columns: Sequence[str] | None = None, *, ordered: bool = True
    ) -> Iterator[pa.RecordBatch]:
        """A table's rows, a chunk at a time: every column, or only ``columns`` (of a view
        table, in the table's order); in key order (the event log in the log's order), or as the
        store reads them fastest (``ordered=False``, for a query that orders them itself)."""
        schema = schema_of(name, columns)
        if name == EVENTS_NAME:
            yield from EventRows(self.app, self.scope, self.until, self.chunk).batches(
                schema_of(name)
            )
            return
        spec = dataset_tables()[name]
        where, params = self.scope.where()
        statement = f"SELECT {', '.join(schema.names)} FROM {{{name}}} WHERE {where}"
        if ordered:
            statement += f" ORDER BY {', '.join(spec.key)}"
        empty = True
        for rows in self.store.stream(self.cursor, statement, params, self.chunk):
            empty = False
            yield record_batch(name, schema, rows)
        if empty:
            yield record_batch(name, schema, [])

    def table(
        self, name: str, columns: Sequence[str] | None = None, *, ordered: bool = True
    ) -> pa.Table:
        """A whole table of the dataset (every column, or only ``columns``)."""
        batches = list(self.batches(name, columns, ordered=ordered))
        if name == EVENTS_NAME and columns is not None:
            return pa.Table.from_batches(batches).select(list(schema_of(name, columns).names))
        return pa.Table.from_batches(batches, schema_of(name, columns))


@contextmanager
def snapshot(app: Questlog, store: ViewStore, scope: Scope | None = None) -> Iterator[Dataset]:
    """The dataset of one snapshot of the views (a read transaction held while the block runs)."""
    with store.read() as cursor:
        yield Dataset(app, store, cursor, scope or Scope())


def tables(
    app: Questlog,
    store: ViewStore,
    *,
    scope: Scope | None = None,
    names: Sequence[str] | None = None,
) -> Iterator[tuple[str, pa.Table]]:
    """Each table of the dataset (``names``, else all) as one Arrow table, from one snapshot."""
    with snapshot(app, store, scope) as data:
        for name in names or list(dataset_tables()):
            yield name, data.table(name)


# -- the event log ------------------------------------------------------------------------------


def without_token_id(actor: Any) -> Any:
    """An actor as the log names it (``name#id``) without its token's id: ``name``."""
    if isinstance(actor, str):
        return _TOKEN_ID.sub("", actor)
    return actor


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

    def __init__(self, app: Questlog, scope: Scope, until: LogPosition, chunk: int) -> None:
        self.app = app
        self.scope = scope
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
        wanted_campaign, wanted_game = self.scope.campaign_id, self.scope.game
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
            track.game = event.data.get("game")
            track.restart(event.data.get("state"))
        elif topic == ROLLED_BACK:
            track.rollbacks.append((event.version, int(event.data["to_version"])))
            track.restart(event.data.get("restored_state"))
        elif topic == "cb.NightPhaseStarted":
            track.night = event.details.get("night_number")
        track.night_then = track.night
        if topic == "cb.NightPhaseEnded":
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
            actors = self.app.actors(UUID(event.campaign_id))
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
