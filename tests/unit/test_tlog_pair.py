"""``check_pair``: two signed statements of one log that cannot both be true prove that it
misbehaved (tlog-checkpoint "Signatures": a log MUST NOT sign two inconsistent checkpoints;
tlog-witness: such a pair is "proof of log misbehavior")."""

from __future__ import annotations

import base64
from uuid import UUID

import pytest

from domain.model.signed_note import Checkpoint, MalformedNote, NoteError, UnknownKey
from domain.model.tlog.misbehaviour import check_pair
from domain.model.tlog.proof import parse_entry
from tests.tlog_fakes import FakeLog

ORIGIN = "questlog.test/log"


def honest_and_forked(size: int = 6, forked_size: int | None = None) -> tuple[FakeLog, FakeLog]:
    """One log's key signing two histories that share nothing: the split view."""
    honest = FakeLog(ORIGIN).append(size)
    forked = FakeLog(ORIGIN, honest.signer).append(forked_size or size, salt="forked")
    return honest, forked


def test_two_roots_for_one_size_are_proven() -> None:
    """tlog-checkpoint: a log signs one tree per size; two roots are two histories."""
    honest, forked = honest_and_forked()
    verdict = check_pair(honest.checkpoint(), forked.checkpoint(), [honest.signer.verifier])
    assert verdict.proven and verdict.verdict == "proven"
    assert "signed two different trees of size 6" in verdict.message


def test_two_sizes_of_one_history_show_no_conflict() -> None:
    honest, _ = honest_and_forked()
    verdict = check_pair(honest.checkpoint(3), honest.checkpoint(6), [honest.signer.verifier])
    assert (verdict.proven, verdict.verdict) == (False, "no conflict")
    assert "sizes 3 and 6" in verdict.message


def test_the_same_checkpoint_twice_shows_no_conflict() -> None:
    honest, _ = honest_and_forked()
    note = honest.checkpoint()
    assert not check_pair(note, note, [honest.signer.verifier]).proven


def test_two_proofs_of_one_campaign_version_with_two_hashes_are_proven() -> None:
    """Two tlog-proofs, each included under a signed root, naming one campaign's version with
    two different event hashes: one campaign has one event per version."""
    honest, forked = honest_and_forked(6, 8)
    a = honest.proof(2, honest.checkpoint())
    b = forked.proof(2, forked.checkpoint())
    verdict = check_pair(a, b, [honest.signer.verifier])
    assert verdict.proven
    entry = parse_entry(honest.entries[2])
    assert f"campaign {entry.campaign_id} at version 3" in verdict.message


def test_proofs_of_two_versions_show_no_conflict() -> None:
    honest, forked = honest_and_forked(6, 8)
    a = honest.proof(2, honest.checkpoint())
    b = forked.proof(3, forked.checkpoint())
    verdict = check_pair(a, b, [honest.signer.verifier])
    assert not verdict.proven and "not the same campaign at the same version" in verdict.message


def campaign_checkpoint(log: FakeLog, index: int) -> str:
    """The per-campaign checkpoint (``<log>/campaigns/<id>``) of the event at ``index``."""
    entry = parse_entry(log.entries[index])
    body = Checkpoint(ORIGIN, entry.campaign_id, entry.version, entry.event_hash).body()
    return log.signer.sign(body)


def test_two_campaign_checkpoints_of_one_version_are_proven() -> None:
    """The existing per-campaign checkpoints: one campaign, one version, two head hashes."""
    honest, forked = honest_and_forked()
    verdict = check_pair(
        campaign_checkpoint(honest, 4), campaign_checkpoint(forked, 4), [honest.signer.verifier]
    )
    assert verdict.proven and "campaign checkpoint" in verdict.message


def test_a_campaign_checkpoint_against_a_proof_is_proven() -> None:
    """A campaign checkpoint's head hash and a proof's entry are the same chain hash."""
    honest, forked = honest_and_forked(6, 9)
    verdict = check_pair(
        campaign_checkpoint(honest, 4),
        forked.proof(4, forked.checkpoint()),
        [honest.signer.verifier],
    )
    assert verdict.proven


def test_another_campaign_shows_no_conflict() -> None:
    honest, _ = honest_and_forked()
    other = Checkpoint(ORIGIN, UUID(int=7), 3, "ab" * 32).body()
    verdict = check_pair(
        campaign_checkpoint(honest, 2), honest.signer.sign(other), [honest.signer.verifier]
    )
    assert not verdict.proven


def test_a_text_signed_by_no_given_key_is_an_error_naming_it() -> None:
    honest, _ = honest_and_forked()
    stranger = FakeLog("stranger.test/log").append(6)
    with pytest.raises(UnknownKey, match=r"^B: "):
        check_pair(honest.checkpoint(), stranger.checkpoint(), [honest.signer.verifier])


def test_a_malformed_text_is_an_error_naming_it() -> None:
    honest, _ = honest_and_forked()
    with pytest.raises(MalformedNote, match=r"^A: "):
        check_pair("not a note", honest.checkpoint(), [honest.signer.verifier])


def test_a_proof_whose_entry_is_not_included_is_an_error() -> None:
    """A tlog-proof's extra data is unauthenticated until its inclusion proof verifies."""
    honest, _ = honest_and_forked()
    proof = honest.proof(2, honest.checkpoint())
    extra = "extra " + base64.b64encode(honest.entries[3]).decode()
    lying = proof.replace(proof.split("\n")[1], extra)
    with pytest.raises(NoteError, match=r"^B: the proof's entry is not included"):
        check_pair(honest.checkpoint(), lying, [honest.signer.verifier])


def test_a_tree_head_and_a_campaign_checkpoint_say_nothing_in_common() -> None:
    honest, _ = honest_and_forked()
    verdict = check_pair(
        honest.checkpoint(), campaign_checkpoint(honest, 1), [honest.signer.verifier]
    )
    assert not verdict.proven
    assert "say nothing about the same tree size or the same campaign version" in verdict.message


def test_the_same_event_in_two_proofs_shows_no_conflict() -> None:
    honest, _ = honest_and_forked()
    proof = honest.proof(1, honest.checkpoint())
    verdict = check_pair(proof, proof, [honest.signer.verifier])
    assert not verdict.proven and "both name campaign" in verdict.message
