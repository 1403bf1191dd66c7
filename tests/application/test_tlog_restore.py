"""The host's Merkle log stays append-only when the store under it is reordered or restored.

C2SP tlog-witness ("the witness MUST check that the checkpoint ... is consistent with the latest
checkpoint it cosigned") and RFC 6962 section 2.1.2 (consistency proofs): a log only ever appends.
So when a store's order is rewritten (PostgreSQL: a restore from another server clears the
events' transaction ids, ``log_order.forget_foreign_transactions``, and sends the integrator
back to the start, ``log_order.restart_tlog``) or a backup is restored, the integrator reads the
log again and appends only the events its tree does not hold: none twice, none missed, and
every checkpoint signed before still proves consistent with the next. An event whose (campaign,
version) the tree holds with another hash means the store was rewritten under the log: it is
never appended, the integrator goes on, and the conflict is kept and shown. Every test runs on
both stores.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

import pytest
from eventsourcing.persistence import StoredEvent

from domain.model.tlog import merkle
from domain.service.audit.read import encoded, stored_fields
from domain.service.questlog import Questlog
from domain.service.transparency.integrator import Integrator
from domain.storage.backup import copy_sqlite
from domain.storage.log_order import START
from domain.storage.store import StoreConfig
from domain.storage.tlog_tables import STATE_TABLE, TlogState
from projections.store import open_view_store
from projections.views import ALL_VIEWS
from tests.application.test_tlog_integrator import entries, logged, mth, play, tables
from tests.conftest import RawStore, StoreFactory
from tests.machine import missing
from tests.projections.scenarios import many_rolls


def tree_leaves(app: Questlog) -> list[tuple[str, int, str]]:
    size = tables(app).tlog_state().size
    return [(x.campaign_id, x.version, x.event_hash) for x in tables(app).tlog_leaves(0, size)]


def assert_appended_to(app: Questlog, before: TlogState) -> None:
    """The tree holds every event of the store once, its root is the MTH of its leaves, and it
    extends the tree it was (RFC 6962 2.1.2: a consistency proof from the old size verifies)."""
    leaves = tree_leaves(app)
    assert len(set(leaves)) == len(leaves), "an event is a leaf twice"
    assert sorted(leaves) == sorted(logged(app)), "the tree misses an event or holds a stranger"
    state = tables(app).tlog_state()
    assert state.root == mth(entries(leaves))
    proof = merkle.consistency_proof(before.size, state.size, tables(app).tlog_nodes)
    merkle.verify_consistency(before.size, state.size, proof, before.root, state.root)


def more_rolls(app: Questlog, ids: list[UUID], count: int) -> None:
    for n in range(count):
        app.dice.roll(ids[n % len(ids)], notation="d6", purpose=f"later {n}")


def is_postgres(app: Questlog) -> bool:
    return app.config.kind != "sqlite"


def order_key(app: Questlog) -> str:
    """The column that places an event in the log's order after its transaction id."""
    return "notification_id" if is_postgres(app) else "rowid"


def mark_foreign(raw: RawStore) -> None:
    """Give the last event a transaction id ahead of this server's, as a dump restored from
    another server carries: the next start clears them all (``forget_foreign_transactions``)."""
    raw._run(
        f"UPDATE {raw.events_table} SET transaction_id = "
        "(pg_current_xact_id()::text::bigint + 1000000)::text::xid8 "
        f"WHERE notification_id = (SELECT max(notification_id) FROM {raw.events_table})"
    )


def test_positions_rewritten_after_some_integration_keep_the_tree_append_only(
    make_app: Callable[[], Questlog], new_campaign: Callable[..., UUID]
) -> None:
    """Events the tree does not hold yet now sort before its position, and one it holds sorts
    after it: the integrator, sent back to the start, appends each new event once and skips
    the held ones (one query per batch), so the tree only grows."""
    app = make_app()
    ids = play(app, new_campaign)
    Integrator(app.recorder, app.mapper, batch_size=3).integrate()
    before = tables(app).tlog_state()
    more_rolls(app, ids, 4)
    raw = RawStore(app)
    if is_postgres(app):
        mark_foreign(raw)
        app.close()
        app = make_app()  # (the upgrade at start clears the ids and restarts the integrator)
        moved = tables(app).tlog_state()
        assert (moved.size, moved.root, moved.position) == (before.size, before.root, START)
    else:  # (what the rewrite's transaction does to the state, by hand)
        raw._run(f"UPDATE {STATE_TABLE} SET position_transaction = 0, position_id = 0")
    held = tree_leaves(app)[0]
    key = order_key(app)
    raw._run(
        f"UPDATE {raw.events_table} SET {key} = (SELECT max({key}) + 1 FROM {raw.events_table}) "
        "WHERE originator_id = ? AND originator_version = ?",
        (raw._id(UUID(held[0])), held[1]),
    )
    integrator = Integrator(app.recorder, app.mapper, batch_size=3)
    assert integrator.integrate() == 4
    assert integrator.integrate() == 0
    assert_appended_to(app, before)
    assert tables(app).tlog_conflicts() == []


def restore(app: Questlog, backup: Path) -> None:
    """Put the backup in the store's place, as docs/operations.md restores (the app closed)."""
    config = app.config
    if config.sqlite_path is not None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{config.sqlite_path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(backup, config.sqlite_path)
        return
    raw = RawStore(app)
    raw._run(f'DROP SCHEMA "{config.postgres_schema}" CASCADE')
    assert config.database_url is not None
    subprocess.run(
        ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={config.database_url}", backup],
        check=True,
        timeout=120,
    )


def take_backup(config: StoreConfig, target: Path) -> None:
    if config.sqlite_path is not None:
        copy_sqlite(config.sqlite_path, target)
        return
    if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
        missing("pg_dump and pg_restore are not installed (apt-get install postgresql-client)")
    assert config.database_url is not None
    schema = f"--schema={config.postgres_schema}"
    command = ["pg_dump", "--format=custom", schema, f"--file={target}", config.database_url]
    subprocess.run(command, check=True, timeout=120)


def test_a_restored_backup_keeps_a_consistent_tree(
    make_app: Callable[[], Questlog], new_campaign: Callable[..., UUID], tmp_path: Path
) -> None:
    """A backup taken with events not yet in its tree (``questlog backup`` on SQLite; pg_dump on
    PostgreSQL, restored as on another server, whose transaction ids are behind) restores to a
    tree that holds exactly the restored events once, and extends as new events come."""
    app = make_app()
    ids = play(app, new_campaign)
    app.transparency.integrate()
    before = tables(app).tlog_state()
    more_rolls(app, ids, 3)
    backup = tmp_path / "questlog.backup"
    take_backup(app.config, backup)
    more_rolls(app, ids, 2)  # (lost with the restore: written after the backup)
    app.transparency.publish(submit=False)
    app.close()
    restore(app, backup)
    if is_postgres(app):
        mark_foreign(RawStore(app))
    restored = make_app()
    assert tables(restored).tlog_state().size == before.size
    assert restored.transparency.integrate() == 3
    assert_appended_to(restored, before)
    more_rolls(restored, ids, 2)
    assert restored.transparency.integrate() == 2
    assert_appended_to(restored, before)
    assert restored.transparency.conflicts() == []


def rewrite_hash(app: Questlog, campaign_id: UUID, version: int) -> str:
    """Delete an event and store it again (after every other, in the log's order) with another
    chain hash, as a host rewriting its store would; the new hash."""
    raw = RawStore(app)
    key = raw._id(campaign_id)
    ((topic, state),) = raw._run(
        f"SELECT topic, state FROM {raw.events_table} "
        "WHERE originator_id = ? AND originator_version = ?",
        (key, version),
    )
    stored = StoredEvent(campaign_id, version, str(topic), bytes(state))  # type: ignore[arg-type]
    fields = stored_fields(app.mapper, stored)
    fields["hash"] = "ab" * 32
    raw.delete_event(campaign_id, version)
    raw._run(
        f"INSERT INTO {raw.events_table} (originator_id, originator_version, topic, state) "
        "VALUES (?, ?, ?, ?)",
        (key, version, str(topic), encoded(app.mapper, fields)),
    )
    return str(fields["hash"])


def test_an_event_rewritten_under_the_log_is_never_appended_and_is_shown(
    app: Questlog, new_campaign: Callable[..., UUID], caplog: pytest.LogCaptureFixture
) -> None:
    """The store holds an event the tree has with another hash: the integrator appends the
    other events, never that one, logs an error naming the campaign and version, and keeps
    the conflict (``Transparency.conflicts``: ``GET /readyz`` and ``questlog log checkpoint``)."""
    ids = play(app, new_campaign)
    app.transparency.integrate()
    before = tables(app).tlog_state()
    tree_hash = tables(app).tlog_leaf_of(str(ids[0]), 2)
    assert tree_hash is not None
    store_hash = rewrite_hash(app, ids[0], 2)
    more_rolls(app, [ids[1]], 1)
    with caplog.at_level(logging.ERROR, logger="questlog.tlog"):
        assert app.transparency.integrate() == 1
    assert f"campaign {ids[0]} version 2" in caplog.text
    assert app.transparency.integrate() == 0
    (found,) = app.transparency.conflicts()
    assert (found.campaign_id, found.version) == (str(ids[0]), 2)
    assert (found.tree_hash, found.store_hash) == (tree_hash.event_hash, store_hash)
    state = tables(app).tlog_state()
    assert state.size == before.size + 1
    leaves = tree_leaves(app)
    assert leaves.count((str(ids[0]), 2, tree_hash.event_hash)) == 1
    assert state.root == mth(entries(leaves))
    # Read again from the start: the conflict is found again, kept once, and nothing appended.
    RawStore(app)._run(f"UPDATE {STATE_TABLE} SET position_transaction = 0, position_id = 0")
    assert app.transparency.integrate() == 0
    assert len(app.transparency.conflicts()) == 1
    assert tables(app).tlog_state().size == before.size + 1


@pytest.mark.postgres
def test_legacy_view_positions_placed_in_the_logs_order_restart_the_integrator(
    factory: StoreFactory,
) -> None:
    """PostgreSQL: placing an earlier release's view positions (``legacy_positions_statements``)
    clears the transaction ids of the events up to them, which then sort before the integrator's
    position; the same transaction sends the integrator back to the start, and the events it
    had not integrated are appended once."""
    config = factory.new()
    app = Questlog(config)
    views = open_view_store(config)
    try:
        views.ensure(ALL_VIEWS)
        first = many_rolls(app, 6)
        app.transparency.integrate()
        before = tables(app).tlog_state()
        many_rolls(app, 3)
        raw = RawStore(app)
        ((last,),) = raw._run(f"SELECT max(notification_id) FROM {raw.events_table}")
        raw._run(
            "UPDATE view_positions SET transaction_id = NULL, position = ? "
            "WHERE view = (SELECT min(view) FROM view_positions)",
            (last,),
        )
        views.ensure(ALL_VIEWS)
        moved = tables(app).tlog_state()
        assert (moved.size, moved.position) == (before.size, START)
        assert app.transparency.integrate() == len(logged(app)) - before.size > 0
        assert_appended_to(app, before)
        assert app.reading.audit(first).ok
    finally:
        views.close()
        app.close()
