"""Offline proofs in the C2SP tlog-proof format: the text, and its check against a
tlog-policy (tlog-proof "Verifying a tlog proof": the leaf, the log's signature, the witnesses'
cosignatures, the inclusion proof)."""

from __future__ import annotations

import base64

import pytest

from domain.model.signed_note import MalformedNote, NoteSigner
from domain.model.tlog.cosignature import Cosigner
from domain.model.tlog.merkle import leaf_hash
from domain.model.tlog.policy import Policy, parse_policy
from domain.model.tlog.proof import (
    HEADER,
    MalformedProof,
    TlogProof,
    check_tlog_proof,
    parse_entry,
    parse_tlog_proof,
)
from tests.tlog_fakes import FakeLog, cosigner, seeded_key

W1, W2, W3 = cosigner("w1.test"), cosigner("w2.test"), cosigner("w3.test")


def policy(log: FakeLog, quorum: str = "2") -> Policy:
    return parse_policy(
        f"log {log.signer.verifier.text}\n"
        f"witness w1 {W1.key.text}\nwitness w2 {W2.key.text}\nwitness w3 {W3.key.text}\n"
        f"group all-three {quorum} w1 w2 w3\nquorum all-three\n"
    )


def cosigned(log: FakeLog, *witnesses: Cosigner) -> str:
    """The log's checkpoint now, with the witnesses' cosignatures."""
    body = log.head().body()
    return log.checkpoint() + "".join(w.cosign(body, 1_700_000_000) for w in witnesses)


def test_the_text_is_header_extra_index_hashes_blank_checkpoint() -> None:
    """tlog-proof "Format": the lines in their order, the extra and hashes in base64."""
    log = FakeLog().append(5)
    note = log.checkpoint()
    proof = TlogProof(3, (b"\x01" * 32, b"\x02" * 32), note, b"extra data")
    lines = proof.text().split("\n")
    assert lines[:5] == [
        HEADER,
        "extra " + base64.b64encode(b"extra data").decode(),
        "index 3",
        base64.b64encode(b"\x01" * 32).decode(),
        base64.b64encode(b"\x02" * 32).decode(),
    ]
    assert lines[5] == ""
    assert proof.text().endswith("\n\n" + note)
    assert parse_tlog_proof(proof.text()) == proof
    bare = TlogProof(0, (), note)
    assert bare.text() == f"{HEADER}\nindex 0\n\n{note}"
    assert parse_tlog_proof(bare.text()) == bare


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("c2sp.org/tlog-proof@v2\nindex 0\n\nx\n\n— a AAAAAAA=\n", "line 1"),
        (f"{HEADER}\nindex 01\n\nx\n\n— a AAAAAAA=\n", "line 2: 'index <N>'"),
        (f"{HEADER}\nextra !!\nindex 0\n\nx\n\n— a AAAAAAA=\n", "line 2: the extra"),
        (f"{HEADER}\nindex 0\nAAAA\n\nx\n\n— a AAAAAAA=\n", "line 3: an inclusion proof hash is"),
        (f"{HEADER}\nindex 0\n", "empty line"),
    ],
)
def test_a_malformed_proof_names_the_line(text: str, words: str) -> None:
    with pytest.raises(MalformedProof, match=words):
        parse_tlog_proof(text)


def test_the_checkpoint_must_be_a_signed_note() -> None:
    with pytest.raises(MalformedNote):
        parse_tlog_proof(f"{HEADER}\nindex 0\n\nnot a note\n")


def test_a_witnessed_proof_verifies_with_the_quorum_words() -> None:
    """tlog-proof "Verifying a tlog proof", steps 1 to 4, with 2 of 3 cosignatures."""
    log = FakeLog().append(13)
    text = log.proof(6, cosigned(log, W1, W3))
    verdict = check_tlog_proof(text, log.entries[6], [], policy(log))
    assert verdict.ok and verdict.verdict == "verified"
    assert verdict.cosigners is not None and set(verdict.cosigners) == {"w1", "w3"}
    assert verdict.quorum is not None
    assert verdict.quorum.words == "witnessed by 2 of 3: w1, w3 (not cosigned by w2)"
    assert verdict.tree_head is not None and verdict.tree_head.size == 13


def test_too_few_cosignatures_is_not_witnessed_naming_the_missing() -> None:
    """tlog-proof step 3: the policy decides which subsets of witnesses are enough."""
    log = FakeLog().append(9)
    verdict = check_tlog_proof(log.proof(2, cosigned(log, W2)), log.entries[2], [], policy(log))
    assert not verdict.ok and verdict.verdict == "not witnessed"
    assert "missing cosignatures from w1, w3" in verdict.message


def test_another_entry_is_not_included() -> None:
    """tlog-proof step 4: the inclusion proof binds the leaf to the signed root."""
    log = FakeLog().append(9)
    verdict = check_tlog_proof(log.proof(2, cosigned(log, W1, W2)), log.entries[3], [], policy(log))
    assert (verdict.ok, verdict.verdict) == (False, "not included")


def test_a_log_not_in_the_policy_is_an_unknown_key() -> None:
    """tlog-proof step 2: the checkpoint is signed by a log key configured for its origin."""
    log = FakeLog().append(4)
    impostor = FakeLog(log.origin, NoteSigner(log.origin, seeded_key("impostor"))).append(4)
    text = impostor.proof(1, cosigned(impostor, W1, W2))
    verdict = check_tlog_proof(text, impostor.entries[1], [], policy(log))
    assert (verdict.ok, verdict.verdict) == (False, "unknown key")


def test_a_forged_cosignature_is_a_bad_signature() -> None:
    """tlog-cosignature and signed-note: a known key's cosignature that fails is refused."""
    log = FakeLog().append(4)
    note = cosigned(log, W1, W2)
    other = FakeLog().append(5)
    forged = log.checkpoint() + W1.cosign(other.head().body(), 5)
    verdict = check_tlog_proof(log.proof(0, forged), log.entries[0], [], policy(log))
    assert (verdict.ok, verdict.verdict) == (False, "bad signature")
    assert check_tlog_proof(log.proof(0, note), log.entries[0], [], policy(log)).ok


def test_quorum_none_needs_only_the_log() -> None:
    """tlog-policy "quorum none": a proof without cosignatures verifies."""
    log = FakeLog().append(3)
    none = parse_policy(f"log {log.signer.verifier.text}\nquorum none\n")
    verdict = check_tlog_proof(log.proof(2, log.checkpoint()), log.entries[2], [], none)
    assert verdict.ok


def test_the_extra_data_is_the_entry_and_parses() -> None:
    """Questlog carries the entry (campaign, version, event hash) as the proof's extra data."""
    log = FakeLog().append(3)
    proof = parse_tlog_proof(log.proof(1, log.checkpoint()))
    assert proof.extra == log.entries[1]
    entry = parse_entry(log.entries[1])
    assert entry.version == 2 and len(entry.event_hash) == 64
    assert leaf_hash(proof.extra) == leaf_hash(log.entries[1])
    with pytest.raises(MalformedProof):
        parse_entry(b"not an entry")
