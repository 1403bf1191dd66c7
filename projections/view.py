"""The base of every view: event handlers by payload class, rows by column name, buffered
writes, per-campaign state, undo.

A view class declares its tables and marks methods with ``@handles(PayloadClass, ...)``: each is
called with the event's envelope and its payload, decoded as that class (``Payload.decode``, once
per event), so mypy checks every fact a handler reads. A method marked ``@handles(ANY)`` gets
every other event's envelope alone. The engine makes one instance per batch and calls ``apply``
with the batch's events inside the batch's transaction; rows are given by column name
(``insert``, ``Table.row``), buffered, and written with ``executemany`` in the table's column
order before any other statement and at the end.

A view that needs to remember something per campaign between events (the page being played, the
night, the hero's balance, the rollbacks so far) keeps it in ``state(campaign_id)``: a JSON object
in the view's own ``<name>_campaigns`` table, loaded once per batch and written back at its end,
in the same transaction as the rows. So a rebuild, a restart or a failed batch can never leave the
remembered state out of step with the rows.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from domain.facade import Payload, Timeline, ascii_number, campaign_events, topic_of
from domain.facade import resolve_pointer as resolve
from projections.events import GAMES, Recorded
from projections.schema import Table, table
from projections.store import ViewStore

RolledBack = campaign_events.RolledBack
CampaignCreated = campaign_events.CampaignCreated
ANY = "*"
"""What a handler for every event that has no handler of its own is marked with (its key in
``View._handlers``, where every other handler is under its payload class's topic)."""
CHUNK = 500
STATE_TABLE = table("campaign_id TEXT NOT NULL", "state TEXT NOT NULL", key=("campaign_id",))
ROW_COLUMNS = (
    "campaign_id TEXT NOT NULL",
    "event_id BIGINT NOT NULL",
    "n INTEGER NOT NULL",
    "version BIGINT NOT NULL",
)
"""The first columns of a row table: the campaign, the notification id of the event that wrote
the row, its index within that event, and the event's version in the campaign."""
ROW_KEY = ("campaign_id", "event_id", "n")
ROW_DOC = {
    "campaign_id": "The campaign (its UUID).",
    "event_id": "The notification id of the event that wrote the row (its place in the log).",
    "n": "The row's index among the rows that event wrote (0 for the first).",
    "version": "The event's version in its campaign (1 is the campaign's creation).",
    "recorded_at": "When the event was recorded (UTC), not the game's date.",
    "undone_by": "The version of the rollback that undid the row; empty while it stands.",
}
"""What the common columns of a row table hold, for a table's ``doc``."""
ROW_KINDS = {"recorded_at": "timestamp"}
"""The kinds of the common columns, for a table's ``kinds``."""
ROW_DEFAULTS = {"undone_by": None}
"""The common column a new row leaves out, for a table's ``defaults``: no rollback undid it."""


def common(event: Recorded, n: int = 0) -> dict[str, Any]:
    """The common columns of the ``n``th row an event writes (``ROW_DOC``; ``undone_by`` is
    ``ROW_DEFAULTS``'): ``self.insert("exhaustion", **common(event), party=...)``."""
    return {
        "campaign_id": event.campaign_id,
        "event_id": event.id,
        "n": n,
        "version": event.version,
        "recorded_at": event.timestamp,
    }


@runtime_checkable
class Caused(Protocol):
    """A payload that records what caused it (``cause``), for a handler of every event."""

    @property
    def cause(self) -> object:
        """What caused the event, as the game names it."""
        ...


Handler = Callable[[Any, Recorded], None]
F = TypeVar("F", bound=Callable[..., Any])
Recorder = Callable[..., None]
"""What a handler of every event calls for an event of a type it records: a function of the
view, the event, its payload (decoded) and what else the handler passes on."""


def recorders_of(
    by_class: dict[type[Payload], Recorder],
) -> dict[str, tuple[type[Payload], Recorder]]:
    """Recorders by payload class, keyed by their classes' topics for a handler of every event
    to look up (``recorder(view, event, event.payload(cls), ...)``)."""
    return {topic_of(cls): (cls, recorder) for cls, recorder in by_class.items()}


def handles(*subscriptions: type[Payload] | str) -> Callable[[F], F]:
    """Mark a view method as the handler of events with these payload classes, called with the
    event and its payload decoded as its class: ``def changed(self, event, change:
    ExhaustionChanged)``. ``@handles(ANY)`` marks the handler of every other event, called with
    the event alone."""

    def mark(method: F) -> F:
        method._subscriptions = subscriptions  # type: ignore[attr-defined]
        return method

    return mark


def decoding(method: Callable[..., None], payload: type[Payload]) -> Handler:
    """A handler of ``(view, event)`` that calls ``method`` with the event's payload, decoded."""
    decode = payload.decode
    if topic_of(payload).partition(".")[0] in GAMES:

        def decoded_details(view: Any, event: Recorded) -> None:
            method(view, event, decode(event.details))

        return decoded_details

    def decoded_data(view: Any, event: Recorded) -> None:
        method(view, event, decode(event.data))

    return decoded_data


def handlers_of(cls: type) -> dict[str, Handler]:
    """A view class's handlers by topic (``ANY`` for its handler of every other event)."""
    found: dict[str, Handler] = {}
    for attribute in dir(cls):
        method = getattr(cls, attribute, None)
        for subscription in getattr(method, "_subscriptions", ()):
            if subscription == ANY:
                found[ANY] = method  # type: ignore[assignment]
            elif isinstance(subscription, type) and issubclass(subscription, Payload):
                found[topic_of(subscription)] = decoding(method, subscription)  # type: ignore[arg-type]
            else:
                raise TypeError(
                    f"{cls.__name__}.{attribute} handles a payload class or ANY, "
                    f"not {subscription!r}"
                )
    return found


class View:
    """A read model updated from the event log, one batch of events at a time."""

    name: ClassVar[str] = ""
    tables: ClassVar[dict[str, Table]] = {}
    revision: ClassVar[int] = 1
    """What the rows hold: raised when a release changes it (a new column, a fixed figure), so
    that a view store an earlier release built starts this view again from the log's start."""
    stateful: ClassVar[bool] = True
    undoable: ClassVar[tuple[str, ...]] = ()
    """Tables whose rows carry ``version`` and ``undone_by``, kept in step with rollbacks."""
    internal: ClassVar[dict[str, Table]] = {}
    """Tables the view keeps for itself (what it remembers that is too long for its per-campaign
    state): created, rebuilt and dropped with its rows, but not in the analyst's dataset."""
    _handlers: ClassVar[dict[str, Handler]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._handlers = handlers_of(cls)

    @classmethod
    def all_tables(cls) -> dict[str, Table]:
        """The view's tables by logical name, its internal and per-campaign state tables too."""
        tables = {**cls.tables, **cls.internal}
        if cls.stateful:
            tables[f"{cls.name}_campaigns"] = STATE_TABLE
        return tables

    def __init__(self, store: ViewStore, cursor: Any, suffix: str = "") -> None:
        self.store = store
        self.cursor = cursor
        self.suffix = suffix
        self._pending: dict[str, list[tuple[Any, ...]]] = {}
        self._states: dict[str, dict[str, Any]] = {}
        self._touched: set[str] = set()

    # -- applying a batch ------------------------------------------------------------------

    def apply(self, events: Sequence[Recorded]) -> None:
        """Apply a batch of events (in notification order) and write everything out."""
        handlers = self._handlers
        fallback = handlers.get(ANY)
        relevant = events if fallback else [e for e in events if e.topic in handlers]
        if not relevant:
            return
        if self.stateful:
            self.load_states({event.campaign_id for event in relevant})
        for event in relevant:
            handler = handlers.get(event.topic, fallback)
            if handler is not None:
                handler(self, event)
        self.finish()

    def finish(self) -> None:
        """Write the buffered rows and the touched per-campaign states."""
        self.flush()
        if self._touched:
            rows = [(cid, json.dumps(self._states[cid])) for cid in sorted(self._touched)]
            self.write_rows(f"{self.name}_campaigns", rows, upsert=True)
            self._touched.clear()

    # -- SQL --------------------------------------------------------------------------------

    def sql(self, template: str) -> str:
        """A statement template resolved for this store and this build's tables."""
        return self.store.sql(template, self.suffix)

    def insert(self, logical: str, **values: Any) -> None:
        """Buffer a row for ``logical`` from its values by column name (``Table.row``: a
        missing or unknown column raises ``TypeError`` naming it)."""
        self._pending.setdefault(logical, []).append(self.row(logical, **values))

    def row(self, logical: str, **values: Any) -> tuple[Any, ...]:
        """A row of ``logical`` from its values by column name, in the table's column order."""
        try:
            return self.all_tables()[logical].row(**values)
        except TypeError as error:
            raise TypeError(f"a row of {logical}: {error}") from None

    def pending(self, logical: str) -> list[tuple[Any, ...]]:
        """The buffer of rows for ``logical``, to append rows (``Table.row``) to as ``insert``
        does, without a call per row; valid until the next ``flush`` (any ``execute`` or
        ``query``)."""
        return self._pending.setdefault(logical, [])

    def flush(self) -> None:
        """Write the buffered rows now (before a statement that must see them)."""
        pending, self._pending = self._pending, {}
        for logical, rows in pending.items():
            if rows:
                self.write_rows(logical, rows)

    def write_rows(
        self, logical: str, rows: Sequence[tuple[Any, ...]], *, upsert: bool = False
    ) -> None:
        """Write rows to one of the view's tables now (``upsert``: replace rows with their key)."""
        spec = self.all_tables()[logical]
        self.store.write_rows(self.cursor, spec, logical, rows, suffix=self.suffix, upsert=upsert)

    def execute(self, template: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement after the buffered rows are written."""
        self.flush()
        self.cursor.execute(self.sql(template), tuple(params))
        return self.cursor

    def query(self, template: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run a query (after the buffered rows are written) and return dict rows."""
        return [dict(row) for row in self.execute(template, params).fetchall()]

    # -- per-campaign state -----------------------------------------------------------------

    def load_states(self, campaign_ids: Iterable[str]) -> None:
        """Read the remembered state of these campaigns, a chunk of ids per query."""
        wanted = sorted(set(campaign_ids) - set(self._states))
        state_table = "{" + self.name + "_campaigns}"
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            marks = ", ".join("?" for _ in chunk)
            template = (
                f"SELECT campaign_id, state FROM {state_table} WHERE campaign_id IN ({marks})"
            )
            for row in self.query(template, chunk):
                self._states[str(row["campaign_id"])] = json.loads(row["state"])

    def state(self, campaign_id: str) -> dict[str, Any]:
        """A campaign's remembered state, to read and change (written back at the end)."""
        found = self._states.get(campaign_id)
        if found is None:
            found = self._states[campaign_id] = {}
        self._touched.add(campaign_id)
        return found

    # -- rollbacks --------------------------------------------------------------------------

    @handles(RolledBack)
    def on_rolled_back(self, event: Recorded, rollback: RolledBack) -> None:
        """Mark the rows of the versions the rollback undid (and any a redo restored)."""
        state = self.state(event.campaign_id)
        rollbacks = state.setdefault("rollbacks", [])
        rollbacks.append([event.version, rollback.to_version])
        timeline = Timeline.of(rollbacks, event.version)
        for logical in self.undoable:
            self.mark_undone(logical, event.campaign_id, timeline)
        self.rolled_back(event, rollback, state, timeline)

    def rolled_back(
        self, event: Recorded, rollback: RolledBack, state: dict[str, Any], timeline: Timeline
    ) -> None:
        """Hook for what else a view does on a rollback (restore remembered state, reverse)."""

    def mark_undone(self, logical: str, campaign_id: str, timeline: Timeline) -> None:
        """Set ``undone_by`` on a table's rows from the campaign's active history."""
        name = "{" + logical + "}"
        self.execute(
            f"UPDATE {name} SET undone_by = NULL WHERE campaign_id = ? AND undone_by IS NOT NULL",
            (campaign_id,),
        )
        for gap in timeline.gaps:
            self.execute(
                f"UPDATE {name} SET undone_by = ? "
                "WHERE campaign_id = ? AND version >= ? AND version <= ?",
                (gap.by, campaign_id, gap.first, gap.last),
            )


# -- following parts of the game state through the events' JSON Patches ------------------------


def follow(
    mirror: dict[str, Any], effects: Sequence[dict[str, Any]], watched: Sequence[str]
) -> list[str]:
    """Apply a patch to the watched leaf paths of a mirror; returns the paths that changed.

    An operation on a watched path sets it; one on an ancestor (``/hero`` replaced by a new hero)
    sets it to the value found under the new subtree; a removal sets it to None.
    """
    changed: list[str] = []
    for op in effects:
        path = op["path"]
        for pointer in watched:
            if pointer != path and not pointer.startswith(path + "/"):
                continue
            value = None if op["op"] == "remove" else resolve(op.get("value"), pointer[len(path) :])
            if mirror.get(pointer) != value:
                mirror[pointer] = value
                if pointer not in changed:
                    changed.append(pointer)
    return changed


def seed(state: Any, watched: Sequence[str]) -> dict[str, Any]:
    """A mirror of the watched paths of a whole game state (at creation or after a rollback)."""
    return {pointer: resolve(state, pointer) for pointer in watched}


def split_cursor(after: str | None) -> tuple[int, int]:
    """A page cursor ``"<event_id>-<n>"`` as a key; None starts at the beginning."""
    if not after:
        return 0, -1
    event_text, _, n_text = str(after).partition("-")
    event_id, n = ascii_number(event_text), ascii_number(n_text.removeprefix("-"))
    if event_id is None or n is None:
        raise ValueError(f"not a view cursor: {after!r}")
    return event_id, -n if n_text.startswith("-") else n


def page(
    store: ViewStore,
    view: str,
    template: str,
    params: Sequence[Any],
    *,
    after: str | None,
    limit: int,
    item: Callable[[dict[str, Any]], dict[str, Any]],
) -> dict[str, Any]:
    """One page of a row table, with the next cursor and the view's position, from one snapshot.

    ``template`` selects the rows and ends with its WHERE conditions; the cursor condition, the
    order and the limit are appended here.
    """
    if not 1 <= limit <= 1000:
        raise ValueError("limit must be from 1 to 1000")
    key = split_cursor(after)
    statement = (
        f"{template} AND (event_id > ? OR (event_id = ? AND n > ?)) ORDER BY event_id, n LIMIT ?"
    )
    with store.read() as cursor:
        rows = store.rows(cursor, statement, [*params, key[0], key[0], key[1], limit + 1])
        found = store.rows(cursor, "SELECT position FROM {positions} WHERE view = ?", [view])
    last = rows[limit - 1] if len(rows) > limit else None
    return {
        "items": [item(row) for row in rows[:limit]],
        "next": f"{last['event_id']}-{last['n']}" if last else None,
        "position": int(found[0]["position"]) if found else 0,
    }


def campaign_rows(
    table: str, campaign_id: str, filters: dict[str, Any], *, include_undone: bool
) -> tuple[str, list[Any]]:
    """The SELECT of one campaign's rows of a table, for ``page``: equality filters (None: any)."""
    conditions = ["campaign_id = ?"]
    params: list[Any] = [campaign_id]
    for column, value in filters.items():
        if value is not None:
            conditions.append(f"{column} = ?")
            params.append(value)
    if not include_undone:
        conditions.append("undone_by IS NULL")
    return f"SELECT * FROM {{{table}}} WHERE " + " AND ".join(conditions), params


def row_basics(row: dict[str, Any]) -> dict[str, Any]:
    """The common fields of a row: campaign, version, whether undone and by which rollback."""
    undone_by = row.get("undone_by")
    return {
        "campaign_id": row["campaign_id"],
        "version": int(row["version"]),
        "undone": undone_by is not None,
        "undone_by": None if undone_by is None else int(undone_by),
    }
