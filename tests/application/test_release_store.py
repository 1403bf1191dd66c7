"""Stores written by earlier releases load, audit and verify unchanged with the current code.

Each ``tests/fixtures/release-*.sqlite3`` was written by the release its name dates, with the
manifest beside it (``tests/fixtures/make_release_store.py`` made both). Every test works on a
copy in ``tmp_path``: the committed file is never opened for writing. The checks read the stored
rows with plain ``sqlite3`` here, not through the generator, so that no later change to the
generator can hide a change to what is stored. See docs/events.md, "Stores written by earlier
releases". These tests must keep passing in every later release; a failure means the new code
reads old facts differently, and the fix is in the code (an upcaster), never in the fixture.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.model.dice.draw import commitment_of
from domain.service.questlog import Questlog
from domain.storage.side_tables import ACTORS_TABLE, SEEDS_TABLE
from domain.storage.store import StoreConfig
from tests.application.summarised import check_summaries
from webapi.app import create_app

Json = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
RELEASES = sorted(FIXTURES.glob("release-*.sqlite3"))
MAX_FIXTURE_BYTES = 1_000_000
APPENDED = 2
"""Events a later release appends to each campaign: a roll and a seed rotation."""


def manifest_of(store: Path) -> Json:
    """The manifest committed beside a fixture store."""
    manifest: Json = json.loads(store.with_suffix(".json").read_text())
    return manifest


def sha256(data: bytes) -> str:
    """SHA-256 in hex."""
    return hashlib.sha256(data).hexdigest()


def canonical(value: Any) -> bytes:
    """Sorted keys, compact separators, UTF-8 (the form the manifest's view digests are of)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def stored_rows(path: Path, events_table: str) -> list[Json]:
    """Every stored event row, in notification order, as the manifest lists it (less the hash)."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        actors = {
            (UUID(campaign_id).hex, version): actor
            for campaign_id, version, actor in connection.execute(
                f"SELECT campaign_id, version, actor FROM {ACTORS_TABLE}"
            )
        }
        rows = connection.execute(
            "SELECT originator_id, originator_version, topic, state "
            f"FROM {events_table} ORDER BY rowid"
        ).fetchall()
    finally:
        connection.close()
    return [
        {
            "originator_id": originator_id,
            "originator_version": version,
            "topic": topic,
            "state_sha256": sha256(bytes(state)),
            "actor": actors.get((originator_id, version)),
        }
        for originator_id, version, topic, state in rows
    ]


def stored_seeds(path: Path) -> list[tuple[str, str, str]]:
    """The seeds table: (campaign id, commitment, seed), sorted."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = connection.execute(f"SELECT campaign_id, commitment, seed FROM {SEEDS_TABLE}")
        return sorted((str(c), str(m), str(s)) for c, m, s in rows)
    finally:
        connection.close()


def without_hashes(events: list[Json]) -> list[Json]:
    """The manifest's event rows without the chain hash (which is inside the stored state)."""
    return [{k: v for k, v in event.items() if k != "hash"} for event in events]


def check_store(path: Path, manifest: Json) -> None:
    """The store at ``path`` holds exactly the manifest's facts, and the current code reads them
    the same way: rows, chain, heads, audits, roll verdicts, seeds and views."""
    app = Questlog(StoreConfig(sqlite_path=path))
    try:
        events_table = str(app.recorder.events_table_name)
        assert stored_rows(path, events_table) == without_hashes(manifest["events"])

        seeds = stored_seeds(path)
        assert [{"campaign_id": c, "commitment": m} for c, m, _ in seeds] == manifest["seeds"]
        assert all(commitment_of(seed) == commitment for _, commitment, seed in seeds)

        listed, _ = app.reading.list_campaigns(limit=100)
        assert [str(event.originator_id) for _, event in listed] == [
            c["id"] for c in manifest["campaigns"]
        ]
        for expected in manifest["campaigns"]:
            check_campaign(app, expected, manifest["events"])
    finally:
        app.close()


def check_campaign(app: Questlog, expected: Json, events: list[Json]) -> None:
    """One campaign: its chain hash for hash, its audit, its server rolls and its view."""
    cid = UUID(expected["id"])
    campaign = app.campaign(cid)
    assert (campaign.game, campaign.name) == (expected["game"], expected["name"])
    assert (campaign.version, campaign.head_hash) == (
        expected["head_version"],
        expected["head_hash"],
    )
    chain = [(e.originator_version, e.hash) for e in app.campaign_events(cid)]
    assert chain == [
        (e["originator_version"], e["hash"]) for e in events if e["originator_id"] == cid.hex
    ]

    report = app.reading.audit(cid)
    assert report.ok and report.chain_ok, report.as_dict()
    assert (report.head_version, report.head_hash) == (
        expected["head_version"],
        expected["head_hash"],
    )
    assert {key: report.rolls[key] for key in expected["rolls"]} == expected["rolls"]

    rolls, more = app.reading.rolls(cid, limit=1000)
    assert more is None
    revealed = campaign.dice["revealed"]
    server = [r for r in rolls if r["source"] == "server"]
    opened = [r for r in server if r["proof"]["commitment"] in revealed]
    assert all(r["verified"] is True for r in opened), opened
    assert len(opened) == expected["rolls"]["verified"]

    view = canonical(campaign.view())
    assert sha256(view) == expected["view_sha256"], view.decode()


def append_a_roll_to_each(path: Path, manifest: Json) -> None:
    """A new server roll on every campaign, then a seed rotation (which needs the stored seed):
    each new event follows the old head, and every server roll, old and new, verifies."""
    app = Questlog(StoreConfig(sqlite_path=path))
    try:
        for expected in manifest["campaigns"]:
            cid = UUID(expected["id"])
            app.dice.roll(cid, notation="d20", purpose="a roll by a later release")
            app.dice.rotate_seed(cid)
            [rolled, rotated] = app.campaign_events(cid, after=expected["head_version"])
            assert rolled.prev_hash == expected["head_hash"]
            assert rotated.prev_hash == rolled.hash
            report = app.reading.audit(cid)
            assert report.ok and report.chain_ok, report.as_dict()
            assert report.head_version == expected["head_version"] + APPENDED
            assert report.rolls["server"] == expected["rolls"]["server"] + 1
            assert report.rolls["awaiting_reveal"] == 0
            assert report.rolls["verified"] == report.rolls["server"]
    finally:
        app.close()


def check_original_rows_kept(path: Path, manifest: Json) -> None:
    """After appending, the manifest's rows are still there, byte for byte, and come first."""
    app = Questlog(StoreConfig(sqlite_path=path))
    try:
        events_table = str(app.recorder.events_table_name)
    finally:
        app.close()
    original = without_hashes(manifest["events"])
    rows = stored_rows(path, events_table)
    assert rows[: len(original)] == original
    assert len(rows) == len(original) + APPENDED * len(manifest["campaigns"])


# -- the committed fixtures ---------------------------------------------------------------------


@pytest.fixture(params=RELEASES, ids=[store.stem for store in RELEASES])
def release(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, Json]]:
    """A copy of one committed fixture store, and its manifest; the original is left untouched."""
    committed: Path = request.param
    manifest = manifest_of(committed)
    before = sha256(committed.read_bytes())
    copy = tmp_path / committed.name
    shutil.copyfile(committed, copy)
    yield copy, manifest
    assert sha256(committed.read_bytes()) == before, f"{committed.name} was written to"


def test_a_fixture_of_this_release_is_committed() -> None:
    assert any(store.name == "release-2026-12-01.sqlite3" for store in RELEASES)


@pytest.mark.parametrize("committed", RELEASES, ids=[store.stem for store in RELEASES])
def test_a_committed_fixture_is_one_small_file_as_its_manifest_describes(committed: Path) -> None:
    manifest = manifest_of(committed)
    assert manifest["store"] == committed.name
    assert sha256(committed.read_bytes()) == manifest["store_sha256"]
    assert committed.stat().st_size < MAX_FIXTURE_BYTES
    for leftover in ("-wal", "-shm", "-journal"):
        assert not committed.with_name(committed.name + leftover).exists()
    connection = sqlite3.connect(f"{committed.as_uri()}?mode=ro", uri=True)
    try:
        [(mode,)] = connection.execute("PRAGMA journal_mode")
    finally:
        connection.close()
    assert mode == "delete"


def test_an_earlier_release_store_loads_audits_and_verifies_unchanged(
    release: tuple[Path, Json],
) -> None:
    store, manifest = release

    check_store(store, manifest)


def test_an_earlier_release_store_takes_new_commands_and_keeps_its_rows(
    release: tuple[Path, Json],
) -> None:
    store, manifest = release

    append_a_roll_to_each(store, manifest)

    check_original_rows_kept(store, manifest)


def test_every_event_and_roll_of_an_earlier_release_store_reads_in_words_and_nothing_changes(
    release: tuple[Path, Json],
) -> None:
    """Summaries are computed when events are read, so events written before they
    existed get them too; reading them stores nothing, so the rows, chains and audits stay the
    manifest's byte for byte."""
    store, manifest = release
    app = Questlog(StoreConfig(sqlite_path=store))
    try:
        client = create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
        counted = [check_summaries(client, c["id"]) for c in manifest["campaigns"]]
        replayed = client.get(f"/campaigns/{manifest['campaigns'][0]['id']}/replay").get_json()
        assert all(step["event"]["summary"] for step in replayed["items"])
    finally:
        app.close()

    assert sum(counted) == len(manifest["events"])
    check_store(store, manifest)


# -- the generator -------------------------------------------------------------------------------


def test_the_generator_writes_a_store_that_passes_the_same_checks(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tests.fixtures.make_release_store", str(tmp_path)]
    made = subprocess.run(
        [*command, "--name", "release-test"], cwd=ROOT, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    store = tmp_path / "release-test.sqlite3"
    manifest = manifest_of(store)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release-test.json", store.name]
    assert sha256(store.read_bytes()) == manifest["store_sha256"]
    copy = tmp_path / "copy" / store.name
    copy.parent.mkdir()
    shutil.copyfile(store, copy)

    check_store(copy, manifest)
    append_a_roll_to_each(copy, manifest)
    check_original_rows_kept(copy, manifest)

    again = subprocess.run(
        [*command, "--name", "release-test"], cwd=ROOT, capture_output=True, text=True
    )
    assert again.returncode != 0
    assert "never rewritten" in again.stderr
    assert sha256(store.read_bytes()) == manifest["store_sha256"]
