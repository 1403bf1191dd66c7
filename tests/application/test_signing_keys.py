"""The signing key ring: made on first use, kept beside a SQLite store or in a PostgreSQL table
(or in the file QUESTLOG_SIGNING_KEY names), reused, rotated with the old keys still listed."""

from __future__ import annotations

import dataclasses
import json
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from domain.model.signed_note import open_checkpoint, parse_verifier_key
from domain.service.questlog import Questlog
from domain.storage import keys as keys_module
from domain.storage.store import StoreConfig


def new_campaign(app: Questlog) -> tuple[object, object]:
    outcome = app.campaigns.create_campaign(game="quest-calendar", name="Signed")
    roll = app.dice.roll(outcome.campaign_id, notation="d20", purpose="signed")  # type: ignore[union-attr]
    return outcome.campaign_id, roll  # type: ignore[union-attr]


def test_ring_is_made_on_first_use_and_signs_checkpoints(app: Questlog) -> None:
    ring = app.key_ring.current()
    assert ring.log_name.startswith("questlog-")
    assert [listed.retired for listed in ring.keys] == [None]
    campaign = app.campaigns.create_campaign(game="quest-calendar", name="Signed")
    note = app.reading.checkpoint(campaign.campaign_id, campaign.version, campaign.head_hash)  # type: ignore[union-attr]
    found, key = open_checkpoint(note, [parse_verifier_key(ring.keys[0].verifier.text)])
    assert (found.campaign_id, found.version, found.head_hash) == (
        campaign.campaign_id,  # type: ignore[union-attr]
        1,
        campaign.head_hash,  # type: ignore[union-attr]
    )
    assert key == ring.signer.verifier


def test_sqlite_ring_is_a_private_file_beside_the_store(tmp_path: Path) -> None:
    config = StoreConfig(sqlite_path=tmp_path / "store" / "questlog.db")
    app = Questlog(config)
    try:
        key = app.key_ring.current().signer.verifier.text
    finally:
        app.close()
    path = tmp_path / "store" / "questlog.db.keys.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = json.loads(path.read_text())
    assert stored["keys"][0]["verifier"] == key


def test_ring_is_reused_by_every_application_on_the_store(
    make_app: Callable[[], Questlog],
) -> None:
    first, second = make_app(), make_app()
    assert first.key_ring.current().signer.verifier == second.key_ring.current().signer.verifier
    assert first.key_ring.log_name == second.key_ring.log_name


def test_log_name_is_taken_from_the_configuration_when_the_ring_is_made(
    store_config: StoreConfig,
) -> None:
    app = Questlog(dataclasses.replace(store_config, log_name="dice.example.org"))
    try:
        ring = app.key_ring.current()
    finally:
        app.close()
    assert ring.log_name == "dice.example.org"
    assert ring.signer.verifier.text.startswith("dice.example.org+")


def test_signing_key_file_is_used_on_either_store(
    store_config: StoreConfig, tmp_path: Path
) -> None:
    key_file = tmp_path / "keys" / "questlog-signing.json"
    app = Questlog(dataclasses.replace(store_config, signing_key=key_file))
    try:
        key = app.key_ring.current().signer.verifier.text
    finally:
        app.close()
    assert json.loads(key_file.read_text())["keys"][0]["verifier"] == key


def test_rotation_signs_with_a_new_key_and_keeps_the_old_ones_listed(
    make_app: Callable[[], Questlog], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that is running sees the rotation without a restart; a checkpoint signed before
    the rotation still verifies against the store's keys."""
    monkeypatch.setattr(keys_module, "TABLE_RECHECK_SECONDS", 0.0)
    monkeypatch.setattr(keys_module, "FILE_RECHECK_SECONDS", 0.0)
    worker, operator = make_app(), make_app()
    campaign_id, _ = new_campaign(worker)
    before = worker.reading.head_checkpoint(campaign_id)[1]  # type: ignore[arg-type]
    old_key = worker.key_ring.current().signer.verifier

    rotated = operator.key_ring.rotate()
    assert len(rotated.keys) == 2
    assert rotated.keys[0].verifier == old_key and rotated.keys[0].retired is not None
    assert rotated.keys[1].retired is None and rotated.signer.verifier != old_key

    after = worker.reading.head_checkpoint(campaign_id)[1]  # type: ignore[arg-type]
    assert open_checkpoint(after, [rotated.signer.verifier])[1] == rotated.signer.verifier
    assert worker.reading.check_checkpoint(campaign_id, before).verdict == "ok"  # type: ignore[arg-type]
    assert worker.reading.check_checkpoint(campaign_id, after).verdict == "ok"  # type: ignore[arg-type]
    assert [k.text for k in worker.key_ring.verifier_keys()] == [
        old_key.text,
        rotated.signer.verifier.text,
    ]


def test_checkpoint_of_another_campaign_is_named_so(app: Questlog) -> None:
    first, _ = new_campaign(app)
    second, _ = new_campaign(app)
    note = app.reading.head_checkpoint(first)[1]  # type: ignore[arg-type]
    verdict = app.reading.check_checkpoint(second, note)  # type: ignore[arg-type]
    assert verdict.verdict == "another campaign"
    assert not verdict.ok


def test_another_logs_checkpoint_needs_that_logs_key(
    store_config: StoreConfig, tmp_path: Path
) -> None:
    """Another instance's checkpoint of the same campaign and head: unknown to this store's
    keys; with that instance's key given, it verifies against this log's hashes."""
    here = Questlog(store_config)
    try:
        campaign_id, _ = new_campaign(here)
        other = keys_module.KeyRing(keys_module.RingFile(tmp_path / "other.json"), "elsewhere")
        found = here.campaign(campaign_id)  # type: ignore[arg-type]
        note = other.sign_checkpoint(found.id, found.version, found.head_hash)
        assert here.reading.check_checkpoint(found.id, note).verdict == "unknown key"
        assert here.reading.check_checkpoint(found.id, note, other.verifier_keys()).verdict == "ok"
    finally:
        here.close()


def test_an_unreadable_key_file_is_refused_naming_it(tmp_path: Path) -> None:
    key_file = tmp_path / "keys.json"
    key_file.write_text("{not json", "utf-8")
    ring = keys_module.KeyRing(keys_module.RingFile(key_file))
    with pytest.raises(keys_module.KeyRingError, match=r"keys\.json"):
        ring.current()


def test_a_log_name_with_a_space_is_refused_when_the_ring_is_made(tmp_path: Path) -> None:
    ring = keys_module.KeyRing(keys_module.RingFile(tmp_path / "keys.json"), "my log")
    with pytest.raises(keys_module.KeyRingError, match="QUESTLOG_LOG_NAME"):
        ring.current()
    assert not (tmp_path / "keys.json").exists()


def test_a_worker_signs_with_the_new_key_once_the_recheck_interval_has_passed(
    make_app: Callable[[], Questlog], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the key file looked at once per interval, a rotation by another process is signed
    with as soon as the interval has passed (the check is asked once, not again under the lock,
    which answered "unchanged" and kept the retired key)."""
    monkeypatch.setattr(keys_module, "TABLE_RECHECK_SECONDS", 0.05)
    monkeypatch.setattr(keys_module, "FILE_RECHECK_SECONDS", 0.05)
    worker, operator = make_app(), make_app()
    campaign_id, _ = new_campaign(worker)
    worker.reading.head_checkpoint(campaign_id)
    rotated = operator.key_ring.rotate()
    time.sleep(0.1)
    after = worker.reading.head_checkpoint(campaign_id)[1]  # type: ignore[arg-type]
    assert open_checkpoint(after, [rotated.signer.verifier])[1] == rotated.signer.verifier
    assert [k.text for k in worker.key_ring.verifier_keys()][-1] == rotated.signer.verifier.text
