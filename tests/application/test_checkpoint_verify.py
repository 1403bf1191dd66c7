"""``questlog verify CAMPAIGN --checkpoint FILE``, ``questlog key`` and the bundle's checkpoints:
a kept checkpoint settles a dispute. Each verdict is distinct and every failure exits non-zero;
after the host's rewrite the verdict names the version and both hashes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner, Result

from domain.facade import bundles
from domain.model.errors import InvalidInput
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.conftest import StoreFactory
from tests.host_rewrite import delete_and_rechain
from webapi.cli.main import main

REWRITTEN = "the log was rewritten after this checkpoint was signed"


def store_env(config: StoreConfig) -> dict[str, str]:
    """The environment that names this test's store to the questlog command."""
    if config.kind == "sqlite":
        return {"QUESTLOG_DB": str(config.sqlite_path), "QUESTLOG_DATABASE_URL": ""}
    return {
        "QUESTLOG_DATABASE_URL": str(config.database_url),
        "QUESTLOG_PG_SCHEMA": str(config.postgres_schema),
    }


def questlog(config: StoreConfig, *args: str) -> Result:
    return CliRunner().invoke(main, list(args), env=store_env(config))


def verify_checkpoint(
    config: StoreConfig, campaign_id: UUID, checkpoint: str, *extra: str
) -> Result:
    """``questlog verify CAMPAIGN --checkpoint FILE [EXTRA...]`` on the store."""
    return questlog(config, "verify", str(campaign_id), "--checkpoint", checkpoint, *extra)


def flat(result: Result) -> str:
    """The command's output on one line (the console may wrap a long verdict)."""
    return " ".join(result.output.split())


def rolled_campaign(app: Questlog, new_campaign: Callable[..., UUID], rolls: int) -> UUID:
    campaign_id = new_campaign()
    for n in range(rolls):
        app.dice.roll(campaign_id, notation="d20", purpose=f"attack {n}")
    return campaign_id


def kept(tmp_path: Path, note: str, name: str = "checkpoint.txt") -> str:
    path = tmp_path / name
    path.write_text(note, "utf-8", newline="")
    return str(path)


def test_a_kept_checkpoint_verifies(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    campaign_id = rolled_campaign(app, new_campaign, 2)
    note = app.reading.head_checkpoint(campaign_id)[1]
    app.dice.roll(campaign_id, notation="d20", purpose="later")  # the log extends the checkpoint
    result = verify_checkpoint(store_config, campaign_id, kept(tmp_path, note))
    assert result.exit_code == 0, result.output
    assert "checkpoint: OK: the log has hash" in flat(result)


def test_a_saved_answer_is_a_checkpoint_file_too(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    campaign_id = new_campaign()
    found, note = app.reading.head_checkpoint(campaign_id)
    answer = json.dumps({"version": found.version, "checkpoint": note})
    result = verify_checkpoint(store_config, campaign_id, kept(tmp_path, answer))
    assert result.exit_code == 0, result.output


def test_a_forged_checkpoint_is_refused_as_forged(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    """A player who edits a checkpoint (here: its head hash) cannot keep the host's signature."""
    campaign_id = rolled_campaign(app, new_campaign, 1)
    found, note = app.reading.head_checkpoint(campaign_id)
    forged = note.replace(found.head_hash, "0" * 64)
    result = verify_checkpoint(store_config, campaign_id, kept(tmp_path, forged))
    assert result.exit_code == 1
    assert "checkpoint: FORGED (bad signature)" in flat(result)


def test_a_checkpoint_checked_with_the_wrong_key_is_refused(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    campaign_id = new_campaign()
    note = app.reading.head_checkpoint(campaign_id)[1]
    wrong = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    result = verify_checkpoint(store_config, campaign_id, kept(tmp_path, note), "--key", wrong)
    assert result.exit_code == 1
    assert "checkpoint: UNKNOWN KEY" in flat(result)
    right = app.key_ring.current().signer.verifier.text
    result = verify_checkpoint(store_config, campaign_id, kept(tmp_path, note), "--key", right)
    assert result.exit_code == 0, result.output


def test_a_malformed_checkpoint_and_a_malformed_key_are_refused(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    campaign_id = new_campaign()
    path = kept(tmp_path, "version 1, trust me\n")
    result = verify_checkpoint(store_config, campaign_id, path)
    assert result.exit_code == 1
    assert "checkpoint: MALFORMED" in flat(result)
    result = verify_checkpoint(store_config, campaign_id, path, "--key", "not-a-key")
    assert result.exit_code == 2
    assert "--key" in result.output


def test_a_checkpoint_of_another_campaign_is_refused(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    first, second = new_campaign(), new_campaign()
    note = app.reading.head_checkpoint(first)[1]
    result = verify_checkpoint(store_config, second, kept(tmp_path, note))
    assert result.exit_code == 1
    assert "checkpoint: ANOTHER CAMPAIGN: the checkpoint" in flat(result)
    assert f"is of campaign {first}, not {second}" in flat(result)


def test_the_hosts_rewrite_is_caught_by_a_kept_checkpoint(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    """A player keeps the checkpoint of version 5; the host later deletes the roll at version 3
    and re-chains the log. Version 5 still exists, with another hash."""
    campaign_id = rolled_campaign(app, new_campaign, 4)  # versions 2..5
    found, note = app.reading.head_checkpoint(campaign_id)
    assert found.version == 5
    app.dice.roll(campaign_id, notation="d20", purpose="after the checkpoint")  # version 6
    app.close()
    delete_and_rechain(app, campaign_id, 3)

    reopened = Questlog(store_config)
    try:
        log_hash = reopened.reading.hash_at(campaign_id, 5)
    finally:
        reopened.close()
    assert log_hash is not None and log_hash != found.head_hash
    result = verify_checkpoint(store_config, campaign_id, kept(tmp_path, note))
    assert result.exit_code == 1
    assert (
        f"checkpoint: REWRITTEN: {REWRITTEN}: at version 5 the checkpoint has hash "
        f"{found.head_hash}, the log has hash {log_hash}"
    ) in flat(result)


def test_key_show_and_rotate(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig, tmp_path: Path
) -> None:
    """After a rotation the new key is current, the old one is listed as retired, and a
    checkpoint signed before it still verifies; ``key show --vkey`` prints the current verifier
    key alone (signed-note verifier key text), one line."""
    campaign_id = new_campaign()
    note = app.reading.head_checkpoint(campaign_id)[1]
    old = app.key_ring.current().signer.verifier.text
    shown = questlog(store_config, "key", "show")
    assert shown.exit_code == 0, shown.output
    assert f"{old} created" in flat(shown) and "current" in flat(shown)

    rotated = questlog(store_config, "key", "rotate")
    assert rotated.exit_code == 0, rotated.output
    new = flat(rotated).split("New signing key: ")[1].split()[0]
    assert new != old

    shown = flat(questlog(store_config, "key", "show"))
    assert shown.index(old) < shown.index(new)
    assert "retired" in shown.split(old)[1].split(new)[0]
    vkey = questlog(store_config, "key", "show", "--vkey")
    assert vkey.exit_code == 0, vkey.output
    assert vkey.output == new + "\n"  # one line, the current key alone, for scripts
    result = verify_checkpoint(store_config, campaign_id, kept(tmp_path, note))
    assert result.exit_code == 0, result.output


def test_key_show_vkey_of_no_store_is_an_error_not_a_new_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script's ``--log "$(questlog key show --vkey)"`` must not get the key of a store made
    by the mistake: a SQLite store that does not exist is an error naming it, and none is made."""
    missing = tmp_path / "none.db"
    monkeypatch.delenv("QUESTLOG_DATABASE_URL", raising=False)
    result = CliRunner().invoke(main, ["key", "show", "--vkey"], env={"QUESTLOG_DB": str(missing)})
    assert result.exit_code == 1
    assert f"no store at {missing}" in flat(result)
    assert not missing.exists()


def test_a_new_bundle_carries_its_head_checkpoint_and_keys(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = rolled_campaign(app, new_campaign, 2)
    data = app.bundles.build(campaign_id)
    note = app.reading.head_checkpoint(campaign_id)[1]
    assert data["checkpoints"] == [note]
    assert data["log_name"] == app.key_ring.log_name
    assert [k["key"] for k in data["keys"]] == [k.text for k in app.key_ring.verifier_keys()]

    own = bundles.check(data)
    assert own.ok and own.keys_source == "bundle"
    assert [v.verdict for v in own.checkpoints] == ["ok"]
    given = bundles.check(data, app.key_ring.verifier_keys())
    assert given.ok and given.keys_source == "given"


def test_bundle_checkpoints_are_checked_against_the_callers_key(
    app: Questlog, new_campaign: Callable[..., UUID], tmp_path: Path
) -> None:
    campaign_id = rolled_campaign(app, new_campaign, 1)
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(app.bundles.build(campaign_id)), "utf-8")
    wrong = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    offline = CliRunner().invoke(main, ["verify", "--bundle", str(path), "--key", wrong])
    assert offline.exit_code == 1
    assert "checkpoint: UNKNOWN KEY" in flat(offline)
    right = app.key_ring.current().signer.verifier.text
    offline = CliRunner().invoke(main, ["verify", "--bundle", str(path), "--key", right])
    assert offline.exit_code == 0, offline.output
    own = CliRunner().invoke(main, ["verify", "--bundle", str(path)])
    assert own.exit_code == 0, own.output
    assert "the bundle's own keys" in flat(own)


def test_a_bundle_with_a_kept_checkpoint_shows_the_rewrite(
    app: Questlog, new_campaign: Callable[..., UUID], store_config: StoreConfig
) -> None:
    """A player adds the checkpoint they kept to the host's new bundle: the bundle verifier
    names the rewrite, with the version and both hashes."""
    campaign_id = rolled_campaign(app, new_campaign, 4)
    note = app.reading.head_checkpoint(campaign_id)[1]
    app.dice.roll(campaign_id, notation="d20", purpose="after the checkpoint")
    app.close()
    delete_and_rechain(app, campaign_id, 3)
    reopened = Questlog(store_config)
    try:
        data = reopened.bundles.build(campaign_id)
        keys = reopened.key_ring.verifier_keys()
    finally:
        reopened.close()
    data["checkpoints"].append(note)
    checked = bundles.check(data, keys)
    assert [v.verdict for v in checked.checkpoints] == ["ok", "rewritten"]
    assert checked.checkpoints[1].message.startswith(f"{REWRITTEN}: at version 5")
    assert not checked.ok


def test_an_old_bundle_without_checkpoints_still_verifies(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = rolled_campaign(app, new_campaign, 2)
    data = app.bundles.build(campaign_id)
    for field in ("checkpoints", "log_name", "keys"):
        del data[field]
    checked = bundles.check(data)
    assert checked.ok and checked.checkpoints == [] and checked.keys_source is None


def test_a_tampered_bundle_checkpoint_fails(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = rolled_campaign(app, new_campaign, 1)
    data = app.bundles.build(campaign_id)
    data["checkpoints"][0] = data["checkpoints"][0].replace("\n2\n", "\n1\n")
    checked = bundles.check(data)
    assert [v.verdict for v in checked.checkpoints] == ["bad signature"]
    assert not checked.ok


def test_an_import_refuses_a_bundle_whose_checkpoint_does_not_verify(
    app: Questlog, new_campaign: Callable[..., UUID], stores: StoreFactory
) -> None:
    """The bundle is verified whole before anything is stored, its checkpoints included."""
    campaign_id = rolled_campaign(app, new_campaign, 1)
    data = app.bundles.build(campaign_id)
    data["checkpoints"][0] = data["checkpoints"][0].replace("\n2\n", "\n1\n")
    elsewhere = Questlog(stores.new())
    try:
        with pytest.raises(InvalidInput) as refused:
            elsewhere.bundles.load(data)
        [message] = refused.value.errors["bundle"]
        assert message.startswith("bundle: checkpoint (bad signature):")
        assert elsewhere.reading.list_campaigns()[0] == []
    finally:
        elsewhere.close()
