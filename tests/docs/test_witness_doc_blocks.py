"""The witness part of docs/trust.md shows real texts: its policy parses (2 of 3 witnesses), its
log checkpoint opens with the policy's log key and carries a valid cosignature by the policy's
witness ``alice``, and its tlog-proof verifies from its own entry to that checkpoint (C2SP
tlog-policy, tlog-checkpoint, tlog-cosignature, tlog-proof)."""

from __future__ import annotations

from pathlib import Path

from domain.model.tlog.checkpoint import open_tree_head
from domain.model.tlog.cosignature import cosignatures
from domain.model.tlog.policy import parse_policy
from domain.model.tlog.proof import check_tlog_proof, parse_tlog_proof
from tests.docs.examples import checked_block, checked_blocks

HERE = Path(__file__).resolve()
TEST = HERE.relative_to(HERE.parents[2]).as_posix()


def doc_policy() -> str:
    return checked_block("trust.md", TEST, "quorum table")


def test_the_policy_is_two_of_three_witnesses() -> None:
    policy = parse_policy(doc_policy())
    assert sorted(policy.witnesses) == ["alice", "bob", "carol"]
    assert [key.name for key in policy.log_keys] == ["dice.example.org"]
    assert policy.quorum_met({"alice", "carol"}) and not policy.quorum_met({"bob"})


def test_the_checkpoint_is_signed_by_the_log_and_cosigned_by_alice() -> None:
    policy = parse_policy(doc_policy())
    [note] = [
        block
        for block in checked_blocks("trust.md", TEST)
        if block.startswith("dice.example.org\n") and "\u2014 witness.example.org/w1 " in block
    ]
    head, key = open_tree_head(note, policy.log_keys)
    assert (head.origin, head.size, key.name) == ("dice.example.org", 2, "dice.example.org")
    alice = policy.witnesses["alice"].key
    assert set(cosignatures(note, [alice])) == {alice.name}


def test_the_tlog_proof_verifies_and_says_what_the_quorum_lacks() -> None:
    policy = parse_policy(doc_policy())
    text = checked_block("trust.md", TEST, "c2sp.org/tlog-proof@v1")
    entry = parse_tlog_proof(text).extra
    assert entry is not None and entry.startswith(b"acb8492e-")
    verdict = check_tlog_proof(text, entry, [], policy)
    assert verdict.verdict == "not witnessed", verdict.message  # alice alone: 1 of 2 needed
    assert verdict.quorum is not None and verdict.quorum.missing == ("bob", "carol")
    alone = parse_policy(doc_policy().replace("group table 2", "group table 1"))
    assert check_tlog_proof(text, entry, [], alone).ok
