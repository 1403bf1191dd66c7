"""One event shape: the event list, a replay step and a command's answer show an event alike,
also for an event stored at an older payload version (shown as stored, which its hash covers)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from domain.model import chain
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.api.conftest import client_as
from webapi.app import create_app

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "release-2026-12-01.sqlite3"


@pytest.fixture
def release_client(tmp_path: Path) -> Iterator[FlaskClient]:
    """An API over a copy of the committed release store (events of older payload versions)."""
    copy = tmp_path / FIXTURE.name
    shutil.copyfile(FIXTURE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    _, secret = app.access.create_token("shape-admin", admin=True)
    yield client_as(create_app(app, auth=True, rate_limit=0, TESTING=True), secret)
    app.close()


def campaign_ids() -> list[str]:
    manifest = json.loads(FIXTURE.with_suffix(".json").read_text())
    return [c["id"] for c in manifest["campaigns"]]


def listed(client: FlaskClient, cid: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = client.get(f"/campaigns/{cid}/events?after={after}&limit=100").get_json()
        items += page["items"]
        after = page["next_after"]
    return items


def test_a_replay_step_shows_each_event_of_an_earlier_release_as_the_event_list_does(
    release_client: FlaskClient,
) -> None:
    for cid in campaign_ids():
        events = listed(release_client, cid)
        steps = release_client.get(f"/campaigns/{cid}/replay?from=1").get_json()["items"]

        assert [step["event"] for step in steps] == events[: len(steps)]
        for shown in events:
            assert "class_version" not in shown["data"]  # none was stored in that release
            assert shown["hash"] == chain.event_hash(
                campaign_id=cid,
                version=shown["version"],
                event_type=shown["type"],
                timestamp=datetime.fromisoformat(shown["timestamp"]),
                data=shown["data"],
                prev_hash=shown["prev_hash"],
                actor=shown["actor"],
            )
