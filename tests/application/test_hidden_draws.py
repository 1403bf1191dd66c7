"""A host who deletes a roll and re-chains the log passes the chain check, not the nonce check.

Server rolls under one commitment carry nonces 0, 1, 2, ... in log order (docs/dice-verification.md,
"What the nonce check proves"). The host's rewrite is played by ``tests.host_rewrite``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

from click.testing import CliRunner

from domain.facade import bundles
from domain.service.audit.public import audit_public_events
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.host_rewrite import delete_and_rechain
from webapi.cli.main import main

NewCampaign = Callable[..., UUID]


def test_a_deleted_and_rechained_roll_passes_the_chain_but_not_the_nonce_check(
    make_app: Callable[[], Questlog], app: Questlog, new_campaign: NewCampaign
) -> None:
    campaign_id = new_campaign()
    for n in range(5):  # versions 2..6, nonces 0..4
        app.dice.roll(campaign_id, notation="d20", purpose=f"attack {n}")
    assert app.reading.audit(campaign_id).ok
    app.close()

    delete_and_rechain(app, campaign_id, 4)  # the roll with nonce 2

    report = make_app().reading.audit(campaign_id)
    assert report.chain_ok, report.problems
    assert report.head_version == 5
    assert not report.nonces_ok
    assert not report.ok
    [gap] = report.nonce_gaps
    assert gap["version"] == 4
    assert gap["nonce"] == 3
    assert gap["missing"] == [2, 2]
    assert "nonce 2 under this commitment is missing" in gap["problem"]
    assert report.as_dict()["nonces_ok"] is False


def test_a_rollback_keeps_the_nonces_in_sequence(app: Questlog, new_campaign: NewCampaign) -> None:
    """A rolled-back roll stays in the log, so the next roll takes the next nonce."""
    campaign_id = new_campaign()
    app.dice.roll(campaign_id, notation="d20", purpose="first")
    app.dice.roll(campaign_id, notation="d20", purpose="undone")
    app.time_travel.rollback(campaign_id, to_version=2, reason="misclick")
    app.dice.roll(campaign_id, notation="d20", purpose="again")
    app.dice.rotate_seed(campaign_id)
    app.dice.roll(campaign_id, notation="2d6", purpose="after the rotation")
    report = app.reading.audit(campaign_id)
    assert report.ok, report.problems
    assert report.nonce_gaps == []


def test_questlog_verify_and_the_bundle_verifier_name_the_version_and_the_missing_nonce(
    tmp_path: Path,
) -> None:
    db = tmp_path / "hosted.db"
    host = Questlog(StoreConfig(sqlite_path=db))
    campaign_id = host.campaigns.create_campaign(game="quest-calendar", name="hosted").campaign_id
    for n in range(4):  # versions 2..5, nonces 0..3
        host.dice.roll(campaign_id, notation="d20", purpose=f"attack {n}")
    host.close()
    delete_and_rechain(host, campaign_id, 3)  # nonce 1

    verified = CliRunner().invoke(main, ["verify", str(campaign_id)], env={"QUESTLOG_DB": str(db)})
    assert verified.exit_code == 1, verified.output
    assert "intact" in verified.output  # the chain check passes
    assert "MISSING OR OUT OF ORDER" in verified.output
    assert "version 3: roll 3-1 carries nonce 2, but nonce 1 under this commitment is missing" in (
        " ".join(verified.output.split())
    )

    reopened = Questlog(StoreConfig(sqlite_path=db))
    try:
        found = bundles.check(reopened.bundles.build(campaign_id))
    finally:
        reopened.close()
    assert found.report.chain_ok
    assert not found.ok
    assert [p["version"] for p in found.all_problems()] == [3]
    path = tmp_path / "bundle.json"
    reopened = Questlog(StoreConfig(sqlite_path=db))
    try:
        path.write_text(json.dumps(reopened.bundles.build(campaign_id)), "utf-8")
    finally:
        reopened.close()
    offline = CliRunner().invoke(main, ["verify", "--bundle", str(path)])
    assert offline.exit_code == 1
    assert "nonce 1 under this commitment is missing" in " ".join(offline.output.split())


def test_a_bundle_whose_rolls_are_not_roll_objects_is_a_problem_not_a_crash() -> None:
    events = [
        {"version": 1, "type": "questlog.CampaignCreated", "data": {"rolls": "not a list"}},
        {"version": 2, "type": "questlog.DiceRolled", "data": {"rolls": [7]}},
    ]
    report, _ = audit_public_events("c", events)
    assert not report.ok
    problems = [p for p in report.problems if "roll objects" in p["problem"]]
    assert [p["version"] for p in problems] == [1, 2]
