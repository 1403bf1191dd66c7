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
