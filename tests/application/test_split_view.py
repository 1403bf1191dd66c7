"""The dishonest host: two players shown two histories of one campaign (a split
view), on both stores, against a real witness (``questlog witness serve``).

Player A is shown the campaign up to version 5 and keeps its tlog-proof, cosigned by the one
honest witness of the table's policy. The host then rewrites the campaign (deletes the roll at
version 3 and re-chains, ``tests/host_rewrite.py``), rebuilds its Merkle log from the rewritten
store, signs it with the same key, and rolls once more so that player B's history also reaches
version 5. The witness never cosigns that history (tlog-witness: 409 then 422, the consistency
proof from what it cosigned does not verify), so player B's proof never meets the quorum and
``questlog verify --tlog-proof`` says so, naming the witness; with both proofs,
``questlog verify --pair`` proves that the log misbehaved (one campaign, one version, two event
hashes, each bound to a checkpoint the log signed).
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import UUID

import pytest

from domain.model.tlog.checkpoint import parse_tree_head
from domain.model.tlog.merkle import tree_root
from domain.model.tlog.proof import parse_tlog_proof
from domain.model.tlog.tiles import tile_nodes_reader
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.application.test_checkpoint_verify import flat, questlog, rolled_campaign
from tests.application.test_tlog_witnessing import TIMEOUT, a_witness, policy
from tests.conftest import RawStore
from tests.host_rewrite import delete_and_rechain

TREE_TABLES = (
    "questlog_tlog_nodes",
    "questlog_tlog_leaves",
    "questlog_tlog_state",
    "questlog_tlog_checkpoints",
    "questlog_tlog_cosignatures",
)
"""What a host who rebuilds its Merkle log wipes (it keeps what each witness cosigned)."""


@pytest.fixture
def witness(app: Questlog, tmp_path: Path) -> Iterator[str]:
    """A real witness following the host's log: the table's policy naming it (1 of 1)."""
    with a_witness(tmp_path, app.key_ring.current().signer.verifier.text) as (vkey, port):
        yield policy(app, vkey, f"http://127.0.0.1:{port}")


def shown(app: Questlog, policy_text: str, campaign_id: UUID) -> str:
    """What a player is shown: the log published and submitted now, and the campaign's proof."""
    app.transparency.witnesses.use_policy(policy_text, TIMEOUT)
    signed = app.transparency.publish(submit=False)
    assert signed is not None
    app.transparency.witnesses.submit_all(signed)
    return app.transparency.tlog_proof(campaign_id)


def rewrite(app: Questlog, make_app: Callable[[], Questlog], campaign_id: UUID) -> Questlog:
    """The host rewrites its store (the campaign without its version 3, then its Merkle log,
    rebuilt from the rewritten events) and opens it again."""
    app.close()
    delete_and_rechain(app, campaign_id, 3)
    raw = RawStore(app)
    for table in TREE_TABLES:
        raw._run(f"DELETE FROM {table}")
    return make_app()


def test_a_split_view_never_reaches_the_quorum_and_the_pair_proves_it(
    app: Questlog,
    make_app: Callable[[], Questlog],
    new_campaign: Callable[..., UUID],
    store_config: StoreConfig,
    witness: str,
    tmp_path: Path,
) -> None:
    """C2SP tlog-witness (a witness cosigns only what extends what it cosigned), tlog-proof and
    tlog-policy (the quorum), and the pair check of ``questlog verify --pair``."""
    policy_file = tmp_path / "policy.txt"
    policy_file.write_text(witness, "utf-8")
    log_key = app.key_ring.current().signer.verifier.text
    campaign_id = rolled_campaign(app, new_campaign, 4)  # versions 2..5
    first = tmp_path / "player-a.txt"
    first.write_text(shown(app, witness, campaign_id), "utf-8")
    seen_by_a = app.campaign(campaign_id).head_hash
    result = questlog(
        store_config, "verify", "--tlog-proof", str(first), "--policy", str(policy_file)
    )
    assert result.exit_code == 0, result.output
    assert "witnessed by 1 of 1" in flat(result)

    rewritten = rewrite(app, make_app, campaign_id)
    rewritten.dice.roll(campaign_id, notation="d20", purpose="the host's version 5")
    assert rewritten.campaign(campaign_id).version == 5
    assert rewritten.campaign(campaign_id).head_hash != seen_by_a
    second = tmp_path / "player-b.txt"
    second.write_text(shown(rewritten, witness, campaign_id), "utf-8")

    state = rewritten.transparency.witnessing(campaign_id)
    assert state["witnessed_version"] is None
    assert [(w["name"], w["state"]) for w in state["witnesses"]] == [("w1", "refused")]
    result = questlog(
        store_config, "verify", "--tlog-proof", str(second), "--policy", str(policy_file)
    )
    assert result.exit_code == 1, result.output
    assert "NOT WITNESSED" in flat(result) and "w1" in flat(result).split("missing")[-1]

    result = questlog(store_config, "verify", "--pair", str(first), str(second), "--key", log_key)
    assert result.exit_code == 0, result.output
    assert "misbehaviour proven" in flat(result) and "two different" in flat(result)


def tree_size(tlog_proof: str) -> int:
    note = parse_tlog_proof(tlog_proof).checkpoint
    return parse_tree_head(note.split("\n\n")[0] + "\n").size


def test_a_split_view_one_roll_longer_is_proven_with_a_consistency_proof(
    app: Questlog,
    make_app: Callable[[], Questlog],
    new_campaign: Callable[..., UUID],
    store_config: StoreConfig,
    witness: str,
    tmp_path: Path,
) -> None:
    """Player B's history is one roll longer than player A's: the two tree heads have two
    sizes and name two versions, so alone they show no conflict. A consistency proof from A's
    size to B's, read from the host's own (rewritten) tree, reproduces B's signed root and
    computes another root for A's size than the one A holds (RFC 9162 section 2.1.4.2): the
    log signed two trees that cannot both be true, and ``verify --pair --consistency`` says
    so (exit 0)."""
    log_key = app.key_ring.current().signer.verifier.text
    campaign_id = rolled_campaign(app, new_campaign, 4)  # versions 2..5
    first, second = tmp_path / "player-a.txt", tmp_path / "player-b.txt"
    first.write_text(shown(app, witness, campaign_id), "utf-8")
    rewritten = rewrite(app, make_app, campaign_id)
    for n in range(2):
        rewritten.dice.roll(campaign_id, notation="d20", purpose=f"the host's roll {n}")
    assert rewritten.campaign(campaign_id).version == 6
    second.write_text(shown(rewritten, witness, campaign_id), "utf-8")
    old, new = tree_size(first.read_text("utf-8")), tree_size(second.read_text("utf-8"))
    assert new == old + 1

    pair = ["verify", "--pair", str(first), str(second), "--key", log_key]
    result = questlog(store_config, *pair)
    assert result.exit_code == 1, result.output
    assert f"add a consistency proof from size {old} to size {new}" in flat(result)

    proof = rewritten.transparency.consistency_proof(old, new)
    if old & (old - 1) == 0:  # RFC 9162 leaves the old tree's hash out; the evidence needs it
        tiles = tile_nodes_reader(new, lambda tile: rewritten.transparency.tile(tile.path()))
        proof.insert(0, tree_root(old, tiles))
    consistency = tmp_path / "consistency.txt"
    consistency.write_text("".join(base64.b64encode(h).decode() + "\n" for h in proof))
    result = questlog(store_config, *pair, "--consistency", str(consistency))
    assert result.exit_code == 0, result.output
    assert "misbehaviour proven" in flat(result)
    assert f"signed a tree of size {new}" in flat(result)
    consistency.write_text("not base64\n")
    result = questlog(store_config, *pair, "--consistency", str(consistency))
    assert result.exit_code == 2 and "--consistency: line 1" in flat(result)
