"""The host's log published as deployed: ``questlog serve`` signs a checkpoint every
``QUESTLOG_CHECKPOINT_SECONDS`` once the tree grew, and ``questlog log checkpoint`` signs and
submits one now, printing each witness's state (C2SP tlog-checkpoint, tlog-witness). Both on a
SQLite store: the publisher's logic is the service's, tested on both stores beside it."""

from __future__ import annotations

import http.client
import json
import os
import time
from pathlib import Path

from click.testing import CliRunner
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.tlog.checkpoint import parse_tree_head
from domain.model.tlog.cosignature import Cosigner
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.live_server import admin_token, free_port, serving, witness_init, witness_serving
from webapi.cli.main import main


def request(
    port: int, method: str, path: str, token: str, body: object = None
) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        data = None if body is None else json.dumps(body)
        connection.request(method, path, body=data, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def test_serve_publishes_a_checkpoint_once_the_tree_grew(tmp_path: Path) -> None:
    """The publisher signs within a few ticks of a roll, without any request asking it to."""
    env = {
        **os.environ,
        "QUESTLOG_DB": str(tmp_path / "served.db"),
        "QUESTLOG_CHECKPOINT_SECONDS": "0.2",
    }
    token = admin_token(env, "publisher-test")
    with serving(env) as port:
        status, body = request(
            port, "POST", "/campaigns", token, {"game": "quest-calendar", "name": "Published"}
        )
        assert status == 201, body
        deadline = time.monotonic() + 20
        status, note = request(port, "GET", "/log/checkpoint", token)
        while status != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
            status, note = request(port, "GET", "/log/checkpoint", token)
    assert status == 200
    body_text = note.decode().split("\n\n")[0] + "\n"
    assert parse_tree_head(body_text).size == 1


def test_log_checkpoint_signs_now_and_says_where_each_witness_stands(tmp_path: Path) -> None:
    """``questlog log checkpoint``: the checkpoint of the tree now, then the state of each
    witness of the policy (here one that nothing answers for: down). Signed but not cosigned
    by the quorum (tlog-policy): exit 1, saying so in words."""
    store = tmp_path / "cli.db"
    app = Questlog(StoreConfig(sqlite_path=store))
    try:
        app.campaigns.create_campaign(game="quest-calendar", name="Now")
        log_key = app.key_ring.current().signer.verifier.text
    finally:
        app.close()
    witness_key = Cosigner("w.test", Ed25519PrivateKey.generate()).key.text
    policy = tmp_path / "policy.txt"
    policy.write_text(
        f"log {log_key}\nwitness w1 {witness_key} http://127.0.0.1:{free_port()}\nquorum w1\n"
    )
    env = {
        "QUESTLOG_DB": str(store),
        "QUESTLOG_WITNESS_POLICY": str(policy),
        "QUESTLOG_WITNESS_TIMEOUT": "1",
    }
    result = CliRunner().invoke(main, ["log", "checkpoint"], env=env)
    assert result.exit_code == 1, result.output
    assert "\n1\n" in result.output
    assert "witness w1: down" in result.output
    assert "error: the policy's quorum is not met: NOT witnessed: 0 of 1" in result.output
    assert "the checkpoint is signed but not witnessed" in result.output


def test_log_checkpoint_exits_0_when_the_quorum_is_met_or_there_is_no_policy(
    tmp_path: Path,
) -> None:
    """tlog-policy: the quorum met by the cosignature a real witness answered (tlog-witness
    200): exit 0, saying "quorum met" in words; with no policy nothing is to be met: exit 0."""
    store = tmp_path / "cli.db"
    app = Questlog(StoreConfig(sqlite_path=store))
    try:
        app.campaigns.create_campaign(game="quest-calendar", name="Now")
        log_key = app.key_ring.current().signer.verifier.text
    finally:
        app.close()
    alone = CliRunner().invoke(main, ["log", "checkpoint"], env={"QUESTLOG_DB": str(store)})
    assert alone.exit_code == 0, alone.output
    assert "quorum" not in alone.output
    state = tmp_path / "witness.db"
    witness_key = witness_init(state)
    with witness_serving(state, [log_key]) as (port, _):
        policy = tmp_path / "policy.txt"
        policy.write_text(
            f"log {log_key}\nwitness w1 {witness_key} http://127.0.0.1:{port}\nquorum w1\n"
        )
        env = {"QUESTLOG_DB": str(store), "QUESTLOG_WITNESS_POLICY": str(policy)}
        result = CliRunner().invoke(main, ["log", "checkpoint"], env=env)
    assert result.exit_code == 0, result.output
    assert "witness w1: cosigned" in result.output
    assert "quorum met: witnessed by 1 of 1: w1" in result.output
