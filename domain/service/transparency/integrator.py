"""The integrator: appends the store's events to its transparency log's tree, in the log's order.

Like Tessera's integrator, it follows the order every reader of the log follows
(``recorder.ordered_rows``: SQLite's rowid; PostgreSQL's (transaction id, notification id)
below the horizon) in batches, never inside a command's transaction (that would bring back the
global lock PostgreSQL's appends no longer take). Each event's leaf is its entry
(``merkle.entry``: campaign id, version, the event's chain hash as stored in the event), and the
tree's right edge (``merkle.RightEdge``, loaded from the stored nodes in one read) takes each
leaf in O(log n), giving the complete subtrees each append completes. A batch's nodes, leaves
and new state (size, root, last position) are stored in one transaction
(``TlogTables.tlog_integrating``): a crash mid-batch leaves the old state, and two integrators
never both append a batch (PostgreSQL: a transaction lock; SQLite: a compare-and-set in the
write transaction). The position is what the integrator tracks, never a count: PostgreSQL's ids
can have gaps.

The tree stays append-only when the store's order is rewritten under it (PostgreSQL: a restore
clears foreign transaction ids, an upgrade places legacy positions; ``log_order.restart_tlog``
then sends the position back to the start in the rewrite's transaction) or when a store is
restored: each batch asks the tree, in one statement, which of its events it holds already
(``TlogBatch.held``), skips those and appends only the others, so no event is a leaf twice and
none is missed. An event the tree holds with another chain hash means the store was rewritten
under the log: it is never appended; it is logged as an error naming the campaign and version
and kept (``TlogTables.tlog_conflicts``), for ``GET /readyz`` and ``questlog log checkpoint`` to
show.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple
from uuid import UUID

import orjson
from eventsourcing.persistence import Mapper, StoredEvent

from domain.model.tlog import merkle
from domain.service.audit.read import stored_fields
from domain.storage.log_order import OrderedRow, position_of
from domain.storage.tlog_conflicts import LeafConflict
from domain.storage.tlog_tables import TlogConflict, TlogLeaf, TlogState, TlogTables

log = logging.getLogger("questlog.tlog")
BATCH_SIZE = 2000
"""Events integrated per transaction."""
CONFLICT_RETRIES = 5
"""How many times a batch is computed again after another integrator moved the tree (SQLite)."""


class Batch(NamedTuple):
    """What one batch did: the events it read, and how many of them it appended."""

    read: int
    appended: int


def rewritten(
    events: Sequence[tuple[str, int, str]], held: dict[tuple[str, int], str]
) -> list[LeafConflict]:
    """The events the tree holds with another chain hash than the store's now."""
    now = datetime.now(UTC).isoformat()
    return [
        LeafConflict(campaign, version, held[(campaign, version)], event_hash, now)
        for campaign, version, event_hash in events
        if (campaign, version) in held and held[(campaign, version)] != event_hash
    ]


class Integrator:
    """Appends the events not yet in the tree, a batch per transaction (see the module)."""

    def __init__(self, recorder: Any, mapper: Mapper[Any], batch_size: int = BATCH_SIZE) -> None:
        self.recorder = recorder
        self.tables: TlogTables = recorder
        self.mapper = mapper
        self.batch_size = batch_size
        self._plain = mapper.cipher is None and mapper.compressor is None
        self._lock = threading.Lock()

    def integrate(self) -> int:
        """Integrate every event readable now; how many were appended (by this call)."""
        total = 0
        with self._lock:
            while (done := self._batch_with_retries()) is not None:
                total += done.appended
        return total

    def _batch_with_retries(self) -> Batch | None:
        for _ in range(CONFLICT_RETRIES):
            try:
                return self.integrate_batch()
            except TlogConflict:
                log.info("another integrator moved the tree: this batch is read again")
        return None

    def integrate_batch(self) -> Batch | None:
        """Integrate the next batch, in one transaction: None when there was nothing to read,
        else how many events it read and appended."""
        with self.tables.tlog_integrating() as batch:
            state = batch.state
            rows = self.recorder.ordered_rows(state.position, self.batch_size)
            if not rows:
                return None
            events = [(str(UUID(str(row[2]))), int(row[3]), self.event_hash(row)) for row in rows]
            held = batch.held([(campaign, version) for campaign, version, _ in events])
            fresh = [event for event in events if (event[0], event[1]) not in held]
            conflicts = rewritten(events, held)
            edge = merkle.RightEdge.load(state.size, batch.read_nodes)
            nodes, leaves = self.append(edge, state.size, fresh)
            new = TlogState(edge.size, edge.root(), position_of(rows[-1]))
            batch.write(nodes, leaves, new, conflicts)
        for found in conflicts:
            log.error(
                "campaign %s version %s is in the transparency log with hash %s but the store "
                "now holds %s: the store was rewritten under the log; the event is not appended",
                found.campaign_id,
                found.version,
                found.tree_hash,
                found.store_hash,
            )
        return Batch(len(rows), len(leaves))

    def append(
        self, edge: merkle.RightEdge, start: int, events: Sequence[tuple[str, int, str]]
    ) -> tuple[list[tuple[int, int, bytes]], list[TlogLeaf]]:
        """Append each event's leaf (campaign id, version, chain hash) to the edge: the nodes
        completed (the leaves' own hashes at level 0 among them) and the leaves, to store."""
        nodes: dict[tuple[int, int], bytes] = {}
        leaves: list[TlogLeaf] = []
        for offset, (campaign_id, version, event_hash) in enumerate(events):
            leaf = merkle.leaf_hash(merkle.entry(UUID(campaign_id), version, event_hash))
            index = start + offset
            for level, at, digest in edge.append(leaf):
                nodes[(level, at)] = digest
            leaves.append(TlogLeaf(index, campaign_id, version, event_hash))
        return [(level, at, digest) for (level, at), digest in nodes.items()], leaves

    def event_hash(self, row: OrderedRow) -> str:
        """The chain hash an event stores (``domain.model.chain``: its ``hash`` field)."""
        state = bytes(row[5])
        if self._plain:
            found = orjson.loads(state).get("hash")
        else:
            stored = StoredEvent(UUID(str(row[2])), int(row[3]), str(row[4]), state)
            found = stored_fields(self.mapper, stored).get("hash")
        if not isinstance(found, str):
            raise ValueError(f"event {row[2]} v{row[3]} stores no chain hash")
        return found
