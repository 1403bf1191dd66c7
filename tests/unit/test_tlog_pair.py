"""``check_pair``: two signed statements of one log that cannot both be true prove that it
misbehaved (tlog-checkpoint "Signatures": a log MUST NOT sign two inconsistent checkpoints;
tlog-witness: such a pair is "proof of log misbehavior")."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Sequence
from uuid import UUID

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.model.signed_note import Checkpoint, MalformedNote, NoteError, UnknownKey
from domain.model.tlog.merkle import (
    ProofError,
    consistency_evidence,
    consistency_roots,
    leaf_hash,
    tree_root,
)
from domain.model.tlog.misbehaviour import BadConsistencyProof, check_pair
from domain.model.tlog.proof import parse_entry
from domain.model.tlog.tiles import Tile, TileError, tile_nodes_reader
from tests.tlog_fakes import FakeLog
from tests.unit.test_tlog_merkle import LEAVES, mth, subproof

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


def test_a_log_signing_another_logs_origin_does_not_accuse_that_log() -> None:
    """tlog-checkpoint: the origin identifies the log and tlog-policy: a log key's name is its
    origin. A checkpoint for origin X signed by log Y's key is Y's forgery, never X's statement:
    checked against both logs' keys, it must not "prove" that X signed two trees."""
    honest = FakeLog(ORIGIN).append(6)
    other = FakeLog("other.test/log").append(6, salt="forked")
    forged = other.signer.sign(FakeLog(ORIGIN, other.signer).append(6, salt="x").head().body())
    keys = [honest.signer.verifier, other.signer.verifier]
    with pytest.raises(NoteError, match=r"^B: .*origin"):
        check_pair(honest.checkpoint(), forged, keys)


def test_a_campaign_checkpoint_of_another_logs_name_does_not_accuse_that_log() -> None:
    """The per-campaign checkpoint names its log (``<log>/campaigns/<id>``): signed by another
    log's key it is that other log's forgery, not a statement of the named log."""
    honest = FakeLog(ORIGIN).append(6)
    other = FakeLog("other.test/log")
    entry = parse_entry(honest.entries[4])
    body = Checkpoint(ORIGIN, entry.campaign_id, entry.version, "cd" * 32).body()
    keys = [honest.signer.verifier, other.signer.verifier]
    with pytest.raises(NoteError, match=r"^B: .*log"):
        check_pair(campaign_checkpoint(honest, 4), other.signer.sign(body), keys)


# Two tree heads of two sizes: a consistency proof states both roots (RFC 9162 2.1.4.2).


def random_leaves(count: int, seed: int) -> list[bytes]:
    generator = random.Random(seed)
    return [leaf_hash(generator.randbytes(16)) for _ in range(count)]


def nodes_reader(leaves: Sequence[bytes]) -> Callable[[Sequence[tuple[int, int]]], list[bytes]]:
    """A NodesReader over the complete subtrees of ``leaves``, computed naively."""
    return lambda wanted: [mth(leaves[i << lv : (i + 1) << lv]) for lv, i in wanted]


def test_consistency_roots_match_the_naive_roots_for_every_pair_of_sizes_up_to_64() -> None:
    """RFC 9162 2.1.4.2 computes the old and the new root from PROOF(m, D[n]) (2.1.4.1, the
    naive SUBPROOF); when m is a power of two the proof omits the old tree's hash (SUBPROOF's
    b = true) and the verifier's old root stands in: it comes back unchanged, or the proof
    carries MTH(D[0:m]) first (``consistency_evidence``) and that is the old root."""
    for seed in range(3):
        leaves = random_leaves(64, seed)
        read = nodes_reader(leaves)
        for new in range(2, 65):
            for old in range(1, new):
                proof = subproof(old, leaves[:new], True)
                roots = (mth(leaves[:old]), mth(leaves[:new]))
                assert consistency_roots(old, new, proof, roots[0]) == roots
                evidence = consistency_evidence(old, new, read)
                assert consistency_roots(old, new, evidence) == roots
                if old & (old - 1):
                    assert evidence == proof
                    assert consistency_roots(old, new, proof) == roots
                    assert consistency_roots(old, new, proof, b"\x07" * 32) == roots
                else:
                    assert evidence == [roots[0], *proof]
                    with pytest.raises(ProofError, match="power of two"):
                        consistency_roots(old, new, proof)
                    other = b"\x07" * 32
                    assert consistency_roots(old, new, proof, other)[0] == other


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 299), st.integers(1, 300), st.integers(0, 298), st.integers(0, 2**32 - 1))
def test_a_proof_of_a_forged_tree_states_the_forged_prefix(
    old: int, extra: int, changed: int, seed: int
) -> None:
    """Two histories that differ in a leaf below m: the forged tree's proof from m to n (with
    MTH(D[0:m]) first when m is a power of two) reproduces the forged root at n and states the
    forged root at m, never the honest one (SHA-256 collision resistance)."""
    new = old + extra
    honest = random_leaves(new, seed)
    forged = list(honest)
    forged[changed % old] = leaf_hash(b"forged")
    evidence = consistency_evidence(old, new, nodes_reader(forged))
    computed_old, computed_new = consistency_roots(old, new, evidence)
    assert computed_new == mth(forged)
    assert computed_old == mth(forged[:old]) != mth(honest[:old])


def test_consistency_roots_refuse_what_states_no_two_roots() -> None:
    proof = subproof(3, LEAVES[:7], True)
    for old, new in [(0, 5), (5, 5), (6, 5)]:
        with pytest.raises(ProofError, match="old_size"):
            consistency_roots(old, new, proof)
    with pytest.raises(ProofError, match="too many"):
        consistency_roots(3, 7, [*proof, proof[0]])
    with pytest.raises(ProofError, match="too few"):
        consistency_roots(3, 7, proof[:-1])
    with pytest.raises(ProofError, match="empty"):
        consistency_roots(3, 7, [])
    with pytest.raises(ProofError, match="proof hash 1"):
        consistency_roots(3, 7, [proof[0], b"short"])


def test_tiles_give_the_same_roots_and_evidence_as_the_stored_nodes() -> None:
    """tlog-tiles "Merkle Tree": a hash tile of level L holds the nodes of level 8 L; the
    nodes between are computed; the right edge is read from partial tiles (``.p/W``)."""
    log = FakeLog(ORIGIN).append(700)
    asked: list[str] = []

    def fetch(tile: Tile) -> bytes:
        asked.append(tile.path())
        return b"".join(log.nodes[node] for node in tile.nodes())

    for old, new in [(1, 2), (5, 7), (256, 300), (100, 513), (512, 700), (255, 256)]:
        read = tile_nodes_reader(new, fetch)
        assert tree_root(new, read) == log.root(new)
        assert consistency_evidence(old, new, read) == consistency_evidence(old, new, log.read)
    assert "tile/0/001.p/44" in asked and "tile/1/000.p/2" in asked
    with pytest.raises(TileError, match="must be"):
        tree_root(7, tile_nodes_reader(7, lambda tile: b"\x00" * 31))


def forged_pair(old: int, new: int) -> tuple[FakeLog, FakeLog]:
    """Player A's tree of size ``old`` and player B's, of size ``new``, of another history,
    both signed by one key."""
    honest = FakeLog(ORIGIN).append(max(old, new))
    forged = FakeLog(ORIGIN, honest.signer).append(new, salt="forked")
    return honest, forged


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40))
def test_two_sizes_with_a_consistency_proof_of_the_larger_tree_are_proven(
    old: int, extra: int
) -> None:
    """RFC 9162 2.1.4.2: the proof reproduces B's signed root at n and states another root at
    m than A's: the log signed two trees that cannot both be true. Either order of A and B."""
    new = old + extra
    honest, forged = forged_pair(old, new)
    a, b = honest.checkpoint(old), forged.checkpoint(new)
    evidence = consistency_evidence(old, new, forged.read)
    keys = [honest.signer.verifier]
    for first, second in [(a, b), (b, a)]:
        verdict = check_pair(first, second, keys, evidence)
        assert verdict.proven and verdict.verdict == "proven", verdict.message
        assert f"signed a tree of size {new}" in verdict.message
        assert f"first {old} leaves have the root" in verdict.message
    honest_evidence = consistency_evidence(old, new, honest.read)
    verdict = check_pair(a, honest.checkpoint(new), keys, honest_evidence)
    assert (verdict.proven, verdict.verdict) == (False, "no conflict")
    assert f"is the first {old} leaves of the tree of size {new}" in verdict.message
    with pytest.raises(BadConsistencyProof, match=f"not of B's tree.*size {new}"):
        check_pair(a, b, keys, honest_evidence)


def test_rfc_9162s_own_proof_from_a_power_of_two_proves_nothing_against_a_forged_tree() -> None:
    """From a power of two, RFC 9162's proof omits the old tree's hash: with A's root standing
    in it cannot reproduce B's forged root, which is bad input saying what to give, while the
    proof with MTH(D[0:m]) first proves it."""
    honest, forged = forged_pair(4, 7)
    keys = [honest.signer.verifier]
    a, b = honest.checkpoint(4), forged.checkpoint(7)
    with pytest.raises(BadConsistencyProof, match=r"power of two.*first 4 leaves of B's tree"):
        check_pair(a, b, keys, forged.consistency(4, 7))
    assert check_pair(a, b, keys, consistency_evidence(4, 7, forged.read)).proven
    verdict = check_pair(a, honest.checkpoint(7), keys, honest.consistency(4, 7))
    assert verdict.verdict == "no conflict"


def test_two_sizes_without_a_proof_say_what_to_add() -> None:
    honest, forged = forged_pair(5, 7)
    verdict = check_pair(honest.checkpoint(5), forged.checkpoint(7), [honest.signer.verifier])
    assert verdict.verdict == "no conflict"
    assert "add a consistency proof from size 5 to size 7" in verdict.message


def test_a_consistency_proof_that_joins_no_two_sizes_is_bad_input() -> None:
    honest, forged = forged_pair(5, 7)
    keys = [honest.signer.verifier]
    proof = consistency_evidence(5, 7, forged.read)
    with pytest.raises(BadConsistencyProof, match="both of size 5"):
        check_pair(honest.checkpoint(5), honest.checkpoint(5), keys, proof)
    with pytest.raises(BadConsistencyProof, match="two tree heads"):
        check_pair(campaign_checkpoint(honest, 2), forged.checkpoint(7), keys, proof)
    with pytest.raises(BadConsistencyProof, match="too few"):
        check_pair(honest.checkpoint(5), forged.checkpoint(7), keys, proof[:-1])
    assert isinstance(BadConsistencyProof("x"), NoteError)
    # a pair already proven by one size needs no proof, whatever is given
    assert check_pair(honest.checkpoint(7), forged.checkpoint(7), keys, proof).proven


def test_the_checkpoint_inside_a_tlog_proof_is_a_tree_head_too() -> None:
    honest, forged = forged_pair(5, 9)
    keys = [honest.signer.verifier]
    a = honest.proof(1, honest.checkpoint(5))
    b = forged.proof(6, forged.checkpoint(9))
    assert not check_pair(a, b, keys).proven
    assert check_pair(a, b, keys, consistency_evidence(5, 9, forged.read)).proven
