"""A changed payload: ``qc.ShopLeft`` version 2 always names the shop; version 1 events upcast.

Release 2026-12-01 recorded ``qc.ShopLeft`` without ``shop_id`` when a page ended with a shop open.
Version 2 records the shop in both cases, and its upcaster gives an event stored at version 1
``shop_id: null`` when it is loaded. The stored bytes are never changed: the audit checks the bytes
and the hash of the payload as it was stored, so an upcast old event still verifies.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

from domain.model import chain
from domain.model.campaign import game_event_class
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.events import decode_notification
from tests.application.test_qc_property import PLAY_HERO
from tests.application.test_rollback import command, qc_campaign
from tests.conftest import RawStore

SHOP = {
    "type": "enter_shop",
    "shop_id": "dock-market",
    # the hero's own Med Kit (an id names one item)
    "stock": [
        {"item": next(i for i in PLAY_HERO["inventory"] if i["id"] == "med-kit"), "price": 5}
    ],
}


def left_shop(app: Questlog) -> tuple[UUID, int]:
    """A Quest Calendar campaign whose head event is a ``qc.ShopLeft``."""
    cid = qc_campaign(app)
    command(app, cid, SHOP)
    [left] = command(app, cid, {"type": "leave_shop"})
    assert left.TOPIC == "qc.ShopLeft"
    return cid, left.originator_version


def store_as_version_1(app: Questlog, raw: RawStore, cid: UUID, version: int) -> dict[str, Any]:
    """Rewrite the head event as release 2026-12-01 stored a ShopLeft at a page's end: payload
    version 1 (no ``class_version``), no ``shop_id``, and the hash of exactly that."""
    transcoder = app.mapper.transcoder
    stored: dict[str, Any] = transcoder.decode(raw.event_state(cid, version))
    assert stored.pop("class_version") == 2
    stored["details"] = {"reason": "pageEnded"}
    stored["hash"] = chain.event_hash(
        campaign_id=cid,
        version=version,
        event_type="qc.ShopLeft",
        timestamp=stored["timestamp"],
        data=chain.split_event_fields(stored),
        prev_hash=stored["prev_hash"],
        actor=app.side_tables.actors(str(cid)).get(version),
    )
    raw.set_event_state(cid, version, transcoder.encode(stored))
    return stored


def test_shop_left_is_recorded_at_payload_version_2_with_its_shop(app: Questlog) -> None:
    cid, version = left_shop(app)

    assert game_event_class("quest-calendar", "ShopLeft").class_version == 2
    [event] = app.campaign_events(cid, after=version - 1)
    assert event.details == {"shop_id": "dock-market", "reason": "left"}
    assert app.reading.audit(cid).ok


def test_a_shop_left_stored_at_version_1_loads_upcast_and_still_verifies(
    app: Questlog, raw: RawStore, make_app: Callable[[], Questlog]
) -> None:
    cid, version = left_shop(app)
    stored = store_as_version_1(app, raw, cid, version)
    before = raw.event_state(cid, version)
    app = make_app()  # a later release opening the store: nothing cached

    [event] = app.campaign_events(cid, after=version - 1)
    assert event.details == {"reason": "pageEnded", "shop_id": None}
    assert event.hash == stored["hash"]

    report = app.reading.audit(cid)
    assert report.ok and report.chain_ok, report.as_dict()
    assert (report.head_version, report.head_hash) == (version, stored["hash"])
    assert raw.event_state(cid, version) == before

    notifications = app.recorder.select_notifications(start=1, limit=1000)
    [notification] = [
        n for n in notifications if n.originator_id == cid and n.originator_version == version
    ]
    assert decode_notification(app.mapper, notification).data["details"] == event.details

    # The event list shows it as stored, so its hash can be recomputed from what it shows.
    [body] = app.reading.event_records(cid, after=version - 1, limit=1)
    assert body["data"]["details"] == {"reason": "pageEnded"}
    assert "class_version" not in body["data"]
    assert body["hash"] == chain.event_hash(
        campaign_id=cid,
        version=version,
        event_type=body["type"],
        timestamp=datetime.fromisoformat(body["timestamp"]),
        data=body["data"],
        prev_hash=body["prev_hash"],
        actor=app.side_tables.actors(str(cid)).get(version),
    )

    [ended, *_] = command(app, cid, {"type": "end_page"})
    assert app.reading.audit(cid).ok
    assert app.campaign_events(cid, after=version)[0].hash == ended.hash


def test_a_new_event_of_a_changed_payload_hashes_its_version_too(app: Questlog) -> None:
    cid, version = left_shop(app)
    [body] = app.reading.event_records(cid, after=version - 1, limit=1)

    assert body["data"]["class_version"] == 2
    assert body["hash"] == chain.event_hash(
        campaign_id=cid,
        version=version,
        event_type=body["type"],
        timestamp=datetime.fromisoformat(body["timestamp"]),
        data=body["data"],
        prev_hash=body["prev_hash"],
        actor=app.side_tables.actors(str(cid)).get(version),
    )


def test_an_edited_version_1_payload_is_still_caught(app: Questlog, raw: RawStore) -> None:
    cid, version = left_shop(app)
    store_as_version_1(app, raw, cid, version)
    edited = raw.event_state(cid, version).replace(b'"pageEnded"', b'"left"')

    raw.set_event_state(cid, version, edited)

    report = app.reading.audit(cid)
    assert not report.chain_ok
    assert report.first_bad_version == version


# -- cb.FateRerollUsed version 2: the count left (G-CB-01) ----------------------------------------

RELEASE = Path(__file__).resolve().parents[1] / "fixtures" / "release-2026-12-01.sqlite3"
HAIL_MATCH = UUID("3266de82-66e8-4d5e-a185-3a51e40bf46c")
"""The release fixture's Calendar Board match: a hail night whose failed save was fate-rerolled."""


def test_g_cb01_g_cb12_a_release_store_match_loads_uncounted_and_stays_unlimited(
    tmp_path: Path,
) -> None:
    """Release 2026-12-01 stored ``cb.FateRerollUsed`` at version 1 (no ``left``) and parties
    without a count. The match loads and audits unchanged, the old event reads ``left`` null, and
    its players' fate rerolls stay not counted: a new one is taken and records ``left`` null."""
    copy = tmp_path / RELEASE.name
    shutil.copyfile(RELEASE, copy)
    app = Questlog(StoreConfig(sqlite_path=copy))
    try:
        assert game_event_class("calendar-board", "FateRerollUsed").class_version == 2
        [used] = [e for e in app.campaign_events(HAIL_MATCH) if e.TOPIC == "cb.FateRerollUsed"]
        assert used.details["left"] is None
        [body] = app.reading.event_records(HAIL_MATCH, after=used.originator_version - 1, limit=1)
        assert "left" not in body["data"]["details"]  # shown as stored
        campaign = app.campaign(HAIL_MATCH)
        assert all("fate_rerolls" not in party for party in campaign.state["parties"].values())
        assert app.reading.audit(HAIL_MATCH).ok

        # The god piece goes on from the hail space (13) to the next one (27), where A's save
        # of 1 is offered a fate reroll (G-CB-12): taken, it records ``left`` null.
        for faces in ([4], [4], [4], [2, 1]):
            command(app, HAIL_MATCH, {"type": "end_turn", "player": "A"})
            command(app, HAIL_MATCH, {"type": "end_turn", "player": "B", "faces": faces})
        assert app.campaign(HAIL_MATCH).state["pending"]["decision"] == "fate_reroll"
        events = command(
            app, HAIL_MATCH, {"type": "fate_reroll", "player": "A", "roll": "hail", "faces": [15]}
        )

        [used] = [e for e in events if e.TOPIC == "cb.FateRerollUsed"]
        assert used.details["left"] is None
        parties = app.campaign(HAIL_MATCH).state["parties"]
        assert all("fate_rerolls" not in party for party in parties.values())
        assert app.reading.audit(HAIL_MATCH).ok
    finally:
        app.close()
