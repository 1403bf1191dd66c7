"""The host's transparency log on the store: its Merkle tree, checkpoints and cosignatures.

One RFC 6962 tree per store is kept beside the events (``domain.model.tlog.merkle``), in side
tables made on both stores like the others (``CREATE TABLE IF NOT EXISTS``: a store written by an
earlier release gets them when it opens, empty, and the integrator then builds its tree from the
events already stored):

- ``questlog_tlog_nodes``: each complete subtree's hash, ``(level, idx)`` (level 0: the leaves'
  hashes). A proof's nodes are read in one statement (``tlog_nodes``); a hash tile is one range
  of one level (``tlog_node_range``).
- ``questlog_tlog_leaves``: leaf ``idx`` -> the event it is (campaign id, version, chain hash),
  with a unique index on (campaign, version): an event is in the tree once, and a campaign's head
  finds its leaf in one probe.
- ``questlog_tlog_state``: one row, the integrator's: tree size, root (hex) and the last
  ``LogPosition`` it integrated.
- ``questlog_tlog_checkpoints``: each signed checkpoint by tree size (its root, note, when).
- ``questlog_tlog_cosignatures``: the cosignature lines collected, by (size, witness name).
- ``questlog_tlog_witnesses``: each witness's submission state (the size it last cosigned, the
  last attempt, its state and error) for the page.
- ``questlog_tlog_conflicts``: each event the integrator found in the store with another hash
  than its leaf in the tree (the store was rewritten under the log): kept, never appended.

A batch of the integrator is one transaction (``tlog_integrating``): the new nodes, the new
leaves and the new state, the state moved only from the one the batch started from (a
compare-and-set ``UPDATE ... RETURNING``), so a crash mid-batch leaves the old state and
two integrators never both append. On PostgreSQL the batch also holds a transaction-level
advisory lock (``tlog_lock_keys``) from its start: the second integrator waits instead of
computing a batch for nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NamedTuple

from domain.storage.advisory_locks import lock_statement, tlog_lock_keys
from domain.storage.log_order import START, TLOG_STATE_TABLE, LogPosition
from domain.storage.tlog_conflicts import LeafConflict, TlogConflicts

NODES_TABLE = "questlog_tlog_nodes"
LEAVES_TABLE = "questlog_tlog_leaves"
LEAVES_INDEX = "questlog_tlog_leaves_event"
STATE_TABLE = TLOG_STATE_TABLE
CHECKPOINTS_TABLE = "questlog_tlog_checkpoints"
COSIGNATURES_TABLE = "questlog_tlog_cosignatures"
WITNESSES_TABLE = "questlog_tlog_witnesses"
EMPTY_ROOT_HEX = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
"""SHA-256 of nothing: the root of the empty tree (RFC 6962 2.1), as the state row starts."""
INTEGRATOR_LOCK_TIMEOUT = "30s"
"""How long a PostgreSQL integrator waits for another's batch before it gives up."""


class TlogState(NamedTuple):
    """The integrator's state: the tree's size and root, and the last log position in it."""

    size: int
    root: bytes
    position: LogPosition


@dataclass(frozen=True, slots=True)
class TlogLeaf:
    """A leaf of the tree: the event it is."""

    index: int
    campaign_id: str
    version: int
    event_hash: str


@dataclass(frozen=True)
class StoredCheckpoint:
    """A signed checkpoint of the tree: its size, root, note and when it was signed (ISO)."""

    size: int
    root: bytes
    note: str
    created: str


@dataclass(frozen=True)
class Cosignature:
    """A witness's cosignature line on the checkpoint of a size, and its timestamp."""

    size: int
    witness: str
    line: str
    timestamp: int


@dataclass(frozen=True)
class WitnessState:
    """Where the log stands with a witness: the size it last cosigned (0: none yet), the last
    attempt (ISO time or None), the state word and the last error."""

    witness: str
    cosigned_size: int = 0
    last_attempt: str | None = None
    state: str = "waiting"
    error: str | None = None


class TlogConflict(RuntimeError):
    """Another integrator moved the tree since this batch began: nothing of it was stored."""


class TlogBatch:
    """One integrator batch in progress (``TlogTables.tlog_integrating``): the state it starts
    from, the tree's nodes as they stand, and ``write`` to store its result."""

    def __init__(self, tables: TlogTables, state: TlogState, cursor: Any | None) -> None:
        self.tables = tables
        self.state = state
        self._cursor = cursor
        self.written = False

    def read_nodes(self, coordinates: Sequence[tuple[int, int]]) -> list[bytes]:
        """The hashes of complete subtrees, in the order asked, in one statement (the batch's
        transaction on PostgreSQL)."""
        return self.tables.tlog_nodes(coordinates, cursor=self._cursor)

    def held(self, events: Sequence[tuple[str, int]]) -> dict[tuple[str, int], str]:
        """The chain hash of each of these events (campaign id, version) the tree holds already,
        read in one statement."""
        return self.tables.tlog_held(events, cursor=self._cursor)

    def write(
        self,
        nodes: Sequence[tuple[int, int, bytes]],
        leaves: Sequence[TlogLeaf],
        state: TlogState,
        conflicts: Sequence[LeafConflict] = (),
    ) -> None:
        """Store the batch: the state moved from the batch's first one, the nodes, leaves and
        conflicts found; ``TlogConflict`` (and nothing stored) if the state is no longer that
        one."""
        if self._cursor is not None:
            self.tables.write_tlog_batch(self._cursor, self.state, nodes, leaves, state)
            self.tables.write_leaf_conflicts(self._cursor, conflicts)
        else:
            with self.tables.datastore.transaction(commit=True) as cursor:
                self.tables.write_tlog_batch(cursor, self.state, nodes, leaves, state)
                self.tables.write_leaf_conflicts(cursor, conflicts)
        self.written = True


class TlogTables(TlogConflicts):
    """The transparency log's tables, on the side tables' connections (``SideTables`` has it)."""

    datastore: Any
    events_table_name: str
    blob_type = "BLOB"
    """The column type of raw bytes (PostgreSQL: ``BYTEA``)."""
    locks_integrator = False
    """Whether a batch takes the integrator's advisory lock (PostgreSQL)."""
    inserts_arrays = False
    """Whether a batch's rows go in as one array per column (PostgreSQL's ``unnest``)."""

    def _table(self, name: str) -> str:
        return name

    def _sql(self, statement: str) -> str:
        return statement

    def _fetch(self, statement: str, params: tuple[Any, ...]) -> list[Any]:
        raise NotImplementedError

    def tlog_table_statements(self) -> list[str]:
        """CREATE statements of the log's tables. (No row is written here: a write in the
        tables' transaction would fail at once on SQLite when another process has written since
        it began. The state's row is made by the first batch.)"""
        blob = self.blob_type
        return [
            f"CREATE TABLE IF NOT EXISTS {self._table(NODES_TABLE)} ("
            f"level INTEGER NOT NULL, idx BIGINT NOT NULL, hash {blob} NOT NULL, "
            "PRIMARY KEY (level, idx))",
            f"CREATE TABLE IF NOT EXISTS {self._table(LEAVES_TABLE)} ("
            "idx BIGINT PRIMARY KEY, campaign_id TEXT NOT NULL, version INTEGER NOT NULL, "
            "event_hash TEXT NOT NULL)",
            f"CREATE UNIQUE INDEX IF NOT EXISTS {LEAVES_INDEX} "
            f"ON {self._table(LEAVES_TABLE)} (campaign_id, version)",
            f"CREATE TABLE IF NOT EXISTS {self._table(STATE_TABLE)} ("
            "id TEXT PRIMARY KEY, size BIGINT NOT NULL, root TEXT NOT NULL, "
            "position_transaction BIGINT NOT NULL, position_id BIGINT NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {self._table(CHECKPOINTS_TABLE)} ("
            "size BIGINT PRIMARY KEY, root TEXT NOT NULL, note TEXT NOT NULL, "
            "created TEXT NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {self._table(COSIGNATURES_TABLE)} ("
            "size BIGINT NOT NULL, witness TEXT NOT NULL, line TEXT NOT NULL, "
            "timestamp BIGINT NOT NULL, PRIMARY KEY (size, witness))",
            f"CREATE TABLE IF NOT EXISTS {self._table(WITNESSES_TABLE)} ("
            "witness TEXT PRIMARY KEY, cosigned_size BIGINT NOT NULL, last_attempt TEXT, "
            "state TEXT NOT NULL, error TEXT)",
            self.conflicts_table_statement(),
        ]

    # -- the tree -----------------------------------------------------------------------------

    def tlog_state(self, cursor: Any | None = None) -> TlogState:
        """The integrator's state as last committed (or as the batch's transaction sees it)."""
        statement = (
            f"SELECT size, root, position_transaction, position_id "
            f"FROM {self._table(STATE_TABLE)} WHERE id = 'tree'"
        )
        rows = self._rows(statement, (), cursor)
        if not rows:  # (the first batch makes the row)
            return TlogState(0, bytes.fromhex(EMPTY_ROOT_HEX), START)
        row = rows[0]
        position = LogPosition(int(row["position_transaction"]), int(row["position_id"]))
        return TlogState(int(row["size"]), bytes.fromhex(str(row["root"])), position)

    def tlog_nodes(
        self, coordinates: Sequence[tuple[int, int]], *, cursor: Any | None = None
    ) -> list[bytes]:
        """The hashes of the complete subtrees at ``(level, index)``, in the order asked, read
        in one statement (``merkle.NodesReader``); ``LookupError`` naming the first missing."""
        if not coordinates:
            return []
        wanted = list(dict.fromkeys(coordinates))
        # One equality pair per node, ORed: both stores look each one up in the primary key
        # (SQLite scans the whole table for a row-value IN over a VALUES list).
        pairs = " OR ".join(["(level = ? AND idx = ?)"] * len(wanted))
        statement = f"SELECT level, idx, hash FROM {self._table(NODES_TABLE)} WHERE {pairs}"
        params = tuple(value for pair in wanted for value in pair)
        rows = self._rows(statement, params, cursor)
        found = {(int(r["level"]), int(r["idx"])): bytes(r["hash"]) for r in rows}
        missing = [pair for pair in coordinates if pair not in found]
        if missing:
            level, index = missing[0]
            raise LookupError(f"the tree has no node at level {level}, index {index}")
        return [found[pair] for pair in coordinates]

    def tlog_node_range(self, level: int, start: int, end: int) -> list[bytes]:
        """The hashes of the nodes of one level from index ``start`` up to ``end`` (excluded),
        in order: a hash tile's, in one range of the primary key."""
        statement = (
            f"SELECT hash FROM {self._table(NODES_TABLE)} "
            "WHERE level = ? AND idx >= ? AND idx < ? ORDER BY idx"
        )
        return [bytes(row["hash"]) for row in self._rows(statement, (level, start, end), None)]

    def tlog_leaves(self, start: int, end: int) -> list[TlogLeaf]:
        """The leaves from index ``start`` up to ``end`` (excluded), in order."""
        statement = (
            f"SELECT idx, campaign_id, version, event_hash FROM {self._table(LEAVES_TABLE)} "
            "WHERE idx >= ? AND idx < ? ORDER BY idx"
        )
        return [_leaf(row) for row in self._rows(statement, (start, end), None)]

    def tlog_leaf_of(self, campaign_id: str, version: int) -> TlogLeaf | None:
        """The leaf of a campaign's event at a version, if the tree has it yet."""
        statement = (
            f"SELECT idx, campaign_id, version, event_hash FROM {self._table(LEAVES_TABLE)} "
            "WHERE campaign_id = ? AND version = ?"
        )
        rows = self._rows(statement, (campaign_id, version), None)
        return _leaf(rows[0]) if rows else None

    def tlog_latest_with_leaf(
        self, campaign_id: str
    ) -> tuple[StoredCheckpoint, list[Cosignature], TlogLeaf | None] | None:
        """The latest checkpoint, its cosignatures and the campaign's last leaf inside it, in
        one statement (a proof's first round trip; its nodes are the second). A campaign's
        events are in the tree in version order (each is appended after the one before it
        committed), so the walk down its versions stops at the first below the size."""
        checkpoints, leaves = self._table(CHECKPOINTS_TABLE), self._table(LEAVES_TABLE)
        statement = (
            "SELECT c.size, c.root, c.note, c.created, l.idx, l.version, l.event_hash, "
            "s.witness, s.line, s.timestamp "
            f"FROM (SELECT size, root, note, created FROM {checkpoints} "
            "ORDER BY size DESC LIMIT 1) AS c "
            f"LEFT JOIN {leaves} AS l ON l.idx = (SELECT idx FROM {leaves} "
            "WHERE campaign_id = ? AND idx < c.size ORDER BY version DESC LIMIT 1) "
            f"LEFT JOIN {self._table(COSIGNATURES_TABLE)} AS s ON s.size = c.size "
            "ORDER BY s.witness"
        )
        rows = self._rows(statement, (campaign_id,), None)
        if not rows:
            return None
        first = rows[0]
        size = int(first["size"])
        latest = StoredCheckpoint(
            size, bytes.fromhex(str(first["root"])), str(first["note"]), str(first["created"])
        )
        cosigned = [
            Cosignature(size, str(r["witness"]), str(r["line"]), int(r["timestamp"]))
            for r in rows
            if r["witness"] is not None
        ]
        leaf = None
        if first["idx"] is not None:
            version, event_hash = int(first["version"]), str(first["event_hash"])
            leaf = TlogLeaf(int(first["idx"]), campaign_id, version, event_hash)
        return latest, cosigned, leaf

    @contextmanager
    def tlog_integrating(self) -> Iterator[TlogBatch]:
        """One integrator batch: its state, then ``write`` in one transaction (see the module).

        On PostgreSQL the batch is a transaction holding the integrator's advisory lock from its
        start, its state read under the lock; it commits when the block ends (rolls back on an
        error). On SQLite the state is read as last committed and ``write`` is a write
        transaction that stores nothing (``TlogConflict``) unless the state is still that one.
        """
        if not self.locks_integrator:
            yield TlogBatch(self, self.tlog_state(), None)
            return
        with self.datastore.transaction(commit=True) as cursor:
            keys = tlog_lock_keys(self.datastore.schema, self.events_table_name)
            cursor.execute(*lock_statement(keys, transaction=True, timeout=INTEGRATOR_LOCK_TIMEOUT))
            yield TlogBatch(self, self.tlog_state(cursor), cursor)

    def write_tlog_batch(
        self,
        cursor: Any,
        old: TlogState,
        nodes: Sequence[tuple[int, int, bytes]],
        leaves: Sequence[TlogLeaf],
        new: TlogState,
    ) -> None:
        """In the caller's transaction: move the state from ``old`` to ``new`` (first, so that
        on SQLite the write lock is taken at once; the first batch makes the state's row), then
        insert the nodes and leaves."""
        table = self._table(STATE_TABLE)
        cursor.execute(
            self._sql(
                f"INSERT INTO {table} AS state (id, size, root, position_transaction, position_id) "
                "VALUES ('tree', ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET size = excluded.size, "
                "root = excluded.root, position_transaction = excluded.position_transaction, "
                "position_id = excluded.position_id WHERE state.size = ? "
                "AND state.position_transaction = ? AND state.position_id = ? RETURNING size"
            ),
            (new.size, new.root.hex(), *new.position, old.size, *old.position),
        )
        if cursor.fetchone() is None:
            raise TlogConflict("another integrator moved the tree since this batch began")
        if nodes:
            node_columns = ("level", "idx", "hash")
            self._insert_many(cursor, NODES_TABLE, node_columns, ("int", "bigint", "bytea"), nodes)
        if leaves:
            columns = ("idx", "campaign_id", "version", "event_hash")
            rows = [(x.index, x.campaign_id, x.version, x.event_hash) for x in leaves]
            self._insert_many(
                cursor, LEAVES_TABLE, columns, ("bigint", "text", "int", "text"), rows
            )

    def _insert_many(
        self,
        cursor: Any,
        table: str,
        columns: Sequence[str],
        types: Sequence[str],
        rows: Sequence[tuple[Any, ...]],
    ) -> None:
        """Insert rows in the caller's transaction: on PostgreSQL as one statement over one
        array per column (``unnest``), a round trip for the batch; on SQLite, ``executemany``."""
        names = ", ".join(columns)
        if self.inserts_arrays:
            arrays = ", ".join(f"%s::{kind}[]" for kind in types)
            statement = f"INSERT INTO {self._table(table)} ({names}) SELECT * FROM unnest({arrays})"
            cursor.execute(statement, [list(column) for column in zip(*rows, strict=True)])
            return
        marks = ", ".join("?" * len(columns))
        cursor.executemany(f"INSERT INTO {self._table(table)} ({names}) VALUES ({marks})", rows)

    # -- checkpoints and witnesses -------------------------------------------------------------

    def add_tlog_checkpoint(self, checkpoint: StoredCheckpoint) -> StoredCheckpoint:
        """Keep a signed checkpoint; the one kept for its size (the first signed, if two
        publishers signed the same size)."""
        self._write(
            f"INSERT INTO {self._table(CHECKPOINTS_TABLE)} (size, root, note, created) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (size) DO NOTHING",
            (checkpoint.size, checkpoint.root.hex(), checkpoint.note, checkpoint.created),
        )
        kept = self.tlog_checkpoint(checkpoint.size)
        assert kept is not None
        return kept

    def tlog_checkpoint(self, size: int | None = None) -> StoredCheckpoint | None:
        """The signed checkpoint of a size (default: the latest), if there is one."""
        statement = f"SELECT size, root, note, created FROM {self._table(CHECKPOINTS_TABLE)}"
        params: tuple[Any, ...] = ()
        if size is None:
            statement += " ORDER BY size DESC LIMIT 1"
        else:
            statement, params = statement + " WHERE size = ?", (size,)
        rows = self._rows(statement, params, None)
        if not rows:
            return None
        row = rows[0]
        return StoredCheckpoint(
            int(row["size"]), bytes.fromhex(str(row["root"])), str(row["note"]), str(row["created"])
        )

    def tlog_first_checkpoint_after(self, size: int) -> StoredCheckpoint | None:
        """The first signed checkpoint larger than ``size`` (when a witness at ``size`` first had
        something new to cosign), if there is one."""
        statement = (
            f"SELECT size, root, note, created FROM {self._table(CHECKPOINTS_TABLE)} "
            "WHERE size > ? ORDER BY size LIMIT 1"
        )
        rows = self._rows(statement, (size,), None)
        if not rows:
            return None
        row = rows[0]
        return StoredCheckpoint(
            int(row["size"]), bytes.fromhex(str(row["root"])), str(row["note"]), str(row["created"])
        )

    def add_cosignature(self, cosignature: Cosignature) -> None:
        """Keep a witness's cosignature of a checkpoint (the first one kept, if it sends two)."""
        self._write(
            f"INSERT INTO {self._table(COSIGNATURES_TABLE)} (size, witness, line, timestamp) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (size, witness) DO NOTHING",
            (cosignature.size, cosignature.witness, cosignature.line, cosignature.timestamp),
        )

    def cosignatures(self, size: int) -> list[Cosignature]:
        """The cosignatures collected on the checkpoint of a size, by witness name."""
        statement = (
            f"SELECT size, witness, line, timestamp FROM {self._table(COSIGNATURES_TABLE)} "
            "WHERE size = ? ORDER BY witness"
        )
        return [
            Cosignature(int(r["size"]), str(r["witness"]), str(r["line"]), int(r["timestamp"]))
            for r in self._rows(statement, (size,), None)
        ]

    def witness_states(self) -> dict[str, WitnessState]:
        """Each witness's submission state, by name (a witness never tried: absent)."""
        statement = (
            "SELECT witness, cosigned_size, last_attempt, state, error "
            f"FROM {self._table(WITNESSES_TABLE)}"
        )
        return {
            str(r["witness"]): WitnessState(
                str(r["witness"]),
                int(r["cosigned_size"]),
                r["last_attempt"] and str(r["last_attempt"]),
                str(r["state"]),
                r["error"] and str(r["error"]),
            )
            for r in self._rows(statement, (), None)
        }

    def set_witness_state(self, state: WitnessState) -> None:
        """Record a witness's submission state (replacing the one it had)."""
        self._write(
            f"INSERT INTO {self._table(WITNESSES_TABLE)} "
            "(witness, cosigned_size, last_attempt, state, error) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (witness) DO UPDATE SET cosigned_size = excluded.cosigned_size, "
            "last_attempt = excluded.last_attempt, state = excluded.state, error = excluded.error",
            (state.witness, state.cosigned_size, state.last_attempt, state.state, state.error),
        )

    def _write(self, statement: str, params: tuple[Any, ...]) -> None:
        raise NotImplementedError

    def _rows(self, statement: str, params: tuple[Any, ...], cursor: Any | None) -> list[Any]:
        if cursor is None:
            return self._fetch(statement, params)
        cursor.execute(self._sql(statement), params)
        return list(cursor.fetchall())


def _leaf(row: Any) -> TlogLeaf:
    return TlogLeaf(
        int(row["idx"]), str(row["campaign_id"]), int(row["version"]), str(row["event_hash"])
    )
