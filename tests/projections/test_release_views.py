"""Every view projects the store an earlier release wrote (tests/fixtures/
release-2026-12-01.sqlite3) to its end: its events are read as that release stored them, older
payload versions upcast. ``test_facts.py`` compares the rows of the tables the committed rows
hold; this holds every view, a new one included, to reading the whole store without error."""

from __future__ import annotations

import shutil
from pathlib import Path

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.store import open_view_store
from projections.views import ALL_VIEWS
from tests.projections.conftest import log_size, sync
from tests.projections.test_facts import RELEASE


def test_every_view_projects_the_release_store_to_its_end(tmp_path: Path) -> None:
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    store = open_view_store(app.config)
    try:
        store.ensure(ALL_VIEWS)
        sync(app, store)
        positions = store.positions()
        assert {view.name: positions[view.name]["applied"] for view in ALL_VIEWS} == {
            view.name: log_size(app) for view in ALL_VIEWS
        }
    finally:
        store.close()
        app.close()


def test_the_release_store_exports_to_parquet_with_every_read_die(tmp_path: Path) -> None:
    """The analyst's dataset of the release store: every table is written, and a roll's hand-read
    dice keep what the player read (QC-08: a d10's 0 is a 10; QC-09: a d100's tens and units) as
    JSON text, one type for every die, where a number for one and an object for the other once
    made the export fail."""
    import json

    import pyarrow.parquet as pq

    from projections.parquet import write_dataset

    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    store = open_view_store(app.config)
    try:
        store.ensure(ALL_VIEWS)
        sync(app, store)
        written = write_dataset(app, store, tmp_path / "dataset")
    finally:
        store.close()
        app.close()
    assert written.rows["rolls"] > 0
    assert not list((tmp_path / "dataset").glob(".*.part"))
    rolls = pq.read_table(tmp_path / "dataset" / "rolls.parquet").to_pylist()
    read = [
        (d["sides"], d["face"], json.loads(d["raw"])) for r in rolls for d in r["dice"] if d["raw"]
    ]
    assert (10, 10, 0) in read
    assert any(
        sides == 100 and raw == {"tens": face // 10 * 10, "units": face % 10}
        for sides, face, raw in read
    )
    plain = [d for r in rolls for d in r["dice"] if d["raw"] is None]
    assert plain and all(d["face"] >= 1 for d in plain)
