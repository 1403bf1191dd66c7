"""The integrator: every event of the store in the host's Merkle tree, once, in the log's order.

The tree is RFC 6962's (C2SP tlog-checkpoint: "the Merkle Tree Hash of the log", RFC 6962 section
2.1) over the entries ``campaign id\\nversion\\nevent hash\\n``; its root is checked here against a
recursion written from the RFC's definition, and its leaves against the events' stored hashes in
the order ``ordered_rows`` reads the log. Every test runs on both stores.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from domain.service.questlog import Questlog
from domain.service.transparency.integrator import Integrator
from domain.storage.log_order import START, position_of
from domain.storage.tlog_tables import (
    CHECKPOINTS_TABLE,
    LEAVES_TABLE,
    NODES_TABLE,
    STATE_TABLE,
    TlogTables,
)
from tests.conftest import RawStore


def mth(entries: list[bytes]) -> bytes:
    """RFC 6962 section 2.1's Merkle Tree Hash, straight from its definition."""
    if not entries:
        return hashlib.sha256(b"").digest()
    if len(entries) == 1:
        return hashlib.sha256(b"\x00" + entries[0]).digest()
    k = 1 << ((len(entries) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + mth(entries[:k]) + mth(entries[k:])).digest()


def logged(app: Questlog) -> list[tuple[str, int, str]]:
    """Every event in the log's order: (campaign id, version, stored chain hash)."""
    found: list[tuple[str, int, str]] = []
    after = START
    while rows := app.recorder.ordered_rows(after, 500):  # type: ignore[attr-defined]
        for row in rows:
            campaign_id = UUID(str(row[2]))
            (event,) = app.campaign_events(campaign_id, after=int(row[3]) - 1, limit=1)
            found.append((str(campaign_id), int(row[3]), str(event.hash)))
        after = position_of(rows[-1])
    return found


def entries(events: list[tuple[str, int, str]]) -> list[bytes]:
    return [f"{c}\n{v}\n{h}\n".encode() for c, v, h in events]


def tables(app: Questlog) -> TlogTables:
    return app.side_tables


def play(app: Questlog, new_campaign: Callable[..., UUID], rolls: int = 5) -> list[UUID]:
    ids = [new_campaign(name=f"Table {n}") for n in range(2)]
    for n in range(rolls):
        app.dice.roll(ids[n % 2], notation="d20", purpose=f"roll {n}")
    return ids


def test_the_tree_holds_every_event_once_in_the_logs_order(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """RFC 6962 2.1: the root is the MTH of the entries, in the order the log is read."""
    play(app, new_campaign)
    integrator = Integrator(app.recorder, app.mapper, batch_size=3)
    expected = logged(app)
    assert integrator.integrate() == len(expected)
    state = tables(app).tlog_state()
    assert state.size == len(expected)
    assert state.root == mth(entries(expected))
    leaves = tables(app).tlog_leaves(0, state.size)
    assert [(leaf.campaign_id, leaf.version, leaf.event_hash) for leaf in leaves] == expected
    assert integrator.integrate() == 0, "nothing is integrated twice"


def test_later_events_extend_the_tree(app: Questlog, new_campaign: Callable[..., UUID]) -> None:
    """The integrator starts from its stored position and right edge, not from the start."""
    ids = play(app, new_campaign, rolls=3)
    integrator = Integrator(app.recorder, app.mapper)
    first = integrator.integrate()
    app.dice.roll(ids[0], notation="d6", purpose="later")
    assert integrator.integrate() == 1
    expected = logged(app)
    assert len(expected) == first + 1
    assert tables(app).tlog_state().root == mth(entries(expected))
    # Each stored complete subtree is the MTH of its leaves (tlog-tiles hashes are these).
    for level, index in [(0, 0), (1, 0), (2, 1), (3, 0)]:
        width = 1 << level
        if (index + 1) * width <= len(expected):
            (node,) = tables(app).tlog_nodes([(level, index)])
            assert node == mth(entries(expected[index * width : (index + 1) * width]))


def test_a_store_of_an_earlier_release_gets_its_tree_from_its_events(
    make_app: Callable[[], Questlog], new_campaign: Callable[..., UUID], raw: RawStore
) -> None:
    """A store written before the log's tables existed opens with them and is integrated from
    its first event on."""
    app = make_app()
    play(app, new_campaign)
    expected = logged(app)
    for table in (NODES_TABLE, LEAVES_TABLE, STATE_TABLE, CHECKPOINTS_TABLE):
        raw._run(f"DROP TABLE {raw_table(app, table)}")
    app.close()
    reopened = make_app()
    assert tables(reopened).tlog_state().size == 0
    assert Integrator(reopened.recorder, reopened.mapper).integrate() == len(expected)
    assert tables(reopened).tlog_state().root == mth(entries(expected))


def raw_table(app: Questlog, name: str) -> str:
    return tables(app)._table(name)


def test_a_crash_mid_batch_leaves_the_old_state(
    app: Questlog, new_campaign: Callable[..., UUID], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nodes, leaves and state are one transaction: a batch that fails after writing its nodes
    stores none of them, and the next run integrates the same events."""
    play(app, new_campaign)
    integrator = Integrator(app.recorder, app.mapper, batch_size=4)
    integrator.integrate_batch()
    before = tables(app).tlog_state()
    store = tables(app)
    original = store.write_tlog_batch

    def crash(cursor: Any, *args: Any) -> None:
        original(cursor, *args)
        raise OSError("the process died here")

    monkeypatch.setattr(store, "write_tlog_batch", crash)
    with pytest.raises(OSError, match="died"):
        integrator.integrate_batch()
    assert store.tlog_state() == before
    assert store.tlog_leaves(before.size, before.size + 100) == []
    with pytest.raises(LookupError):
        store.tlog_nodes([(0, before.size)])
    monkeypatch.undo()
    integrator.integrate()
    assert store.tlog_state().root == mth(entries(logged(app)))


def test_two_integrators_never_append_one_event_twice(
    make_app: Callable[[], Questlog], new_campaign: Callable[..., UUID]
) -> None:
    """Two processes' integrators at once (PostgreSQL: the lock; SQLite: the state's
    compare-and-set) leave each event in the tree once."""
    app = make_app()
    play(app, new_campaign, rolls=20)
    integrators = [Integrator(a.recorder, a.mapper, batch_size=2) for a in (app, make_app())]
    threads = [threading.Thread(target=i.integrate) for i in integrators]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    expected = logged(app)
    assert tables(app).tlog_state().size == len(expected)
    assert tables(app).tlog_state().root == mth(entries(expected))


def test_a_proofs_nodes_are_read_in_one_statement(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """``tlog_nodes`` answers a list of (level, index) in one read, in the order asked, and
    names the first node it does not hold."""
    play(app, new_campaign)
    Integrator(app.recorder, app.mapper).integrate()
    store = tables(app)
    size = store.tlog_state().size
    asked = [(0, size - 1), (1, 0), (0, 0), (1, 0)]
    found = store.tlog_nodes(asked)
    assert found[1] == found[3] and len(found) == 4
    with pytest.raises(LookupError, match="level 0, index 9999"):
        store.tlog_nodes([(0, 0), (0, 9999)])


@pytest.mark.postgres
@pytest.mark.parametrize("store_config", ["postgres"], indirect=True)
def test_concurrent_appends_are_integrated_once_in_the_readers_order(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """Appends from several threads commit out of their ids' order; an integrator running all
    along follows the readers' order (transaction id, notification id) below the horizon, so
    each event is in the tree once, in exactly the order ``ordered_rows`` reads them."""
    ids = [new_campaign(name=f"Table {n}") for n in range(4)]
    integrator = Integrator(app.recorder, app.mapper, batch_size=7)
    done = threading.Event()

    def roll(campaign_id: UUID) -> None:
        for n in range(15):
            app.dice.roll(campaign_id, notation="d20", purpose=f"roll {n}")

    def follow() -> None:
        while not done.is_set():
            integrator.integrate()

    follower = threading.Thread(target=follow)
    follower.start()
    writers = [threading.Thread(target=roll, args=(campaign_id,)) for campaign_id in ids]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    follower.join()
    integrator.integrate()
    expected = logged(app)
    assert len(expected) == 4 + 4 * 15
    leaves = tables(app).tlog_leaves(0, len(expected) + 1)
    assert [(leaf.campaign_id, leaf.version, leaf.event_hash) for leaf in leaves] == expected
    assert tables(app).tlog_state().root == mth(entries(expected))
