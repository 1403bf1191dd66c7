"""How the store behaves as the events table grows: sizes, and reads and appends timed at each size.

The table is grown with copies of the real events the simulation stored (``INSERT … SELECT`` in
batches, each copy under a new originator id, so each copy is a campaign of its own with the
same shape, sizes and topics as real play). Then, at each size, the probes are the real
campaigns played through ``Questlog``:

- a campaign load: a real campaign's current state on a new ``Questlog`` (an empty aggregate
  cache: the snapshot, then the events after it);
- a notification page read: 100 notifications from the start of the log (what a view rebuild
  reads first) and from its tail (what a caught-up view reads);
- an index lookup: the events of a copied campaign found by its originator id (the primary key);
- an append: a roll on a real campaign through ``Questlog`` (the events table's lock, its two
  index insertions, the side tables and the commit);
- the bytes: ``pg_total_relation_size`` of the events table (table, TOAST and its two indexes),
  ``pg_indexes_size`` of it, and of every table of the schema.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql

from domain.storage.log_order import writer_mark
from domain.storage.store import StoreConfig

PAGE = 100
SAMPLES = 15
BATCH_ROWS = 250_000


@dataclass
class SizePoint:
    """The figures at one size of the events table."""

    rows: int
    table_bytes: int
    index_bytes: int
    schema_bytes: int
    load_ms: float
    page_start_ms: float
    page_tail_ms: float
    lookup_ms: float
    append_ms: float
    append_p99_ms: float

    @property
    def bytes_per_event(self) -> float:
        """The events table with its indexes, per row."""
        return self.table_bytes / max(self.rows, 1)

    def as_dict(self) -> dict[str, Any]:
        """The figures as JSON, with the bytes per event."""
        return {**asdict(self), "bytes_per_event": round(self.bytes_per_event, 1)}


def median_ms(action: Callable[[], object], samples: int = SAMPLES) -> float:
    """The median wall time of ``action``, in milliseconds."""
    times = []
    for _ in range(samples):
        began = time.perf_counter()
        action()
        times.append((time.perf_counter() - began) * 1e3)
    return statistics.median(times)


class Growth:
    """Grows one schema's events table and measures it at each size."""

    def __init__(self, config: StoreConfig, probes: list[UUID]) -> None:
        assert config.database_url and config.postgres_schema
        self.config = config
        self.url = config.database_url
        self.schema = config.postgres_schema
        self.events = sql.Identifier(self.schema, "questlog_events")
        self.probes = probes

    def rows(self, conn: psycopg.Connection[Any]) -> int:
        """The rows of the events table now (exact)."""
        row = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(self.events)).fetchone()
        return int(row[0]) if row else 0

    def grow_to(self, target: int, note: Callable[[str], None]) -> float:
        """Copy real events under new originator ids until the table has ``target`` rows.

        Returns the rate of the copy in rows per second (a bulk insert, not the append path).
        """
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(
                sql.SQL(
                    "CREATE TABLE IF NOT EXISTS {} AS SELECT originator_id, originator_version, "
                    "topic, state FROM {} ORDER BY notification_id"
                ).format(sql.Identifier(self.schema, "sim_real_events"), self.events)
            )
            real = conn.execute(
                sql.SQL("SELECT count(*) FROM {}").format(
                    sql.Identifier(self.schema, "sim_real_events")
                )
            ).fetchone()
            per_copy = int(real[0]) if real else 0
            if per_copy == 0:
                raise RuntimeError("no real events to copy: the load part stored nothing")
            began, copied = time.perf_counter(), 0
            while (missing := target - self.rows(conn)) > 0:
                copies = max(1, min(missing, BATCH_ROWS) // per_copy)
                # An append's writer mark first, as every append of the events holds it, so that
                # the views never pass these rows (domain.storage.log_order).
                mark, keys = writer_mark(self.schema, "questlog_events")
                with conn.transaction():
                    conn.execute(f"SELECT {mark}", keys)
                    conn.execute(
                        sql.SQL(
                            "INSERT INTO {events} (originator_id, originator_version, topic, "
                            "state) SELECT md5(r.originator_id::text || ':' || g || ':' || "
                            "clock_timestamp()::text)::uuid, r.originator_version, r.topic, "
                            "r.state FROM {real} r CROSS JOIN generate_series(1, %s) g"
                        ).format(
                            events=self.events,
                            real=sql.Identifier(self.schema, "sim_real_events"),
                        ),
                        (copies,),
                    )
                copied += copies * per_copy
                note(f"  events table: {self.rows(conn):,} rows")
            conn.execute(sql.SQL("ANALYZE {}").format(self.events))
            seconds = time.perf_counter() - began
        return copied / seconds if copied and seconds else 0.0

    def measure(self) -> SizePoint:
        """Time the reads and an append at the table's current size, and its bytes."""
        from domain.service.questlog import Questlog

        with psycopg.connect(self.url, autocommit=True) as conn:
            rows = self.rows(conn)
            sizes = conn.execute(
                "SELECT pg_total_relation_size(%s::regclass), pg_indexes_size(%s::regclass), "
                "(SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
                " JOIN pg_namespace n ON n.oid = c.relnamespace "
                " WHERE n.nspname = %s AND c.relkind = 'r')",
                (f"{self.schema}.questlog_events",) * 2 + (self.schema,),
            ).fetchone()
            copied = conn.execute(
                sql.SQL(
                    "SELECT originator_id FROM {} ORDER BY notification_id DESC LIMIT 1"
                ).format(self.events)
            ).fetchone()
        assert sizes is not None and copied is not None
        probe = self.probes[0]
        load_times = []
        for _ in range(5):
            app = Questlog(self.config)
            try:
                app.recorder.max_notification_id()  # the pool's connection, opened untimed
                began = time.perf_counter()
                app.campaign(probe)
                load_times.append((time.perf_counter() - began) * 1e3)
            finally:
                app.close()
        app = Questlog(self.config)
        try:
            recorder = app.recorder
            tail = max(1, (recorder.max_notification_id() or 1) - PAGE)
            page_start = median_ms(lambda: recorder.select_notifications(start=1, limit=PAGE))
            page_tail = median_ms(lambda: recorder.select_notifications(start=tail, limit=PAGE))
            lookup = median_ms(lambda: recorder.select_events(copied[0]))
            appends = []
            for n in range(50):
                began = time.perf_counter()
                app.dice.roll(
                    self.probes[n % len(self.probes)], notation="d20", purpose="growth probe"
                )
                appends.append((time.perf_counter() - began) * 1e3)
        finally:
            app.close()
        appends.sort()
        return SizePoint(
            rows=rows,
            table_bytes=int(sizes[0]),
            index_bytes=int(sizes[1]),
            schema_bytes=int(sizes[2] or 0),
            load_ms=statistics.median(load_times),
            page_start_ms=page_start,
            page_tail_ms=page_tail,
            lookup_ms=lookup,
            append_ms=statistics.median(appends),
            append_p99_ms=appends[int(len(appends) * 0.99) - 1],
        )
