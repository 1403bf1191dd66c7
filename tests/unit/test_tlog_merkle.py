"""The host's Merkle tree against RFC 9162 section 2.1's reference definitions.

The oracle below is the RFC's recursion written out naively (MTH, PATH, SUBPROOF); the code
under test builds the same hashes from stored complete subtrees, reading them in one call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.model.tlog.merkle import (
    EMPTY_ROOT,
    HASH_SIZE,
    ProofError,
    RightEdge,
    complete_subtrees,
    consistency_proof,
    entry,
    inclusion_proof,
    leaf_hash,
    node_hash,
    tree_root,
    verify_consistency,
    verify_inclusion,
)

MAX = 300


def _k(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves: Sequence[bytes]) -> bytes:
    """RFC 9162 2.1.1 MTH over leaf hashes."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = _k(len(leaves))
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def path(m: int, leaves: Sequence[bytes]) -> list[bytes]:
    """RFC 9162 2.1.3.1 PATH(m, D[n])."""
    if len(leaves) == 1:
        return []
    k = _k(len(leaves))
    if m < k:
        return [*path(m, leaves[:k]), mth(leaves[k:])]
    return [*path(m - k, leaves[k:]), mth(leaves[:k])]


def subproof(m: int, leaves: Sequence[bytes], whole: bool) -> list[bytes]:
    """RFC 9162 2.1.4.1 SUBPROOF(m, D[n], b)."""
    n = len(leaves)
    if m == n:
        return [] if whole else [mth(leaves)]
    k = _k(n)
    if m <= k:
        return [*subproof(m, leaves[:k], whole), mth(leaves[k:])]
    return [*subproof(m - k, leaves[k:], False), mth(leaves[:k])]


LEAVES = [leaf_hash(f"entry {i}\n".encode()) for i in range(MAX)]


def _store() -> dict[tuple[int, int], bytes]:
    edge = RightEdge()
    nodes: dict[tuple[int, int], bytes] = {}
    for leaf in LEAVES:
        for level, index, hash_ in edge.append(leaf):
            nodes[(level, index)] = hash_
    return nodes


NODES = _store()
ROOTS = [mth(LEAVES[:n]) for n in range(MAX + 1)]


class CountingReader:
    """A NodesReader over the stored nodes that counts its calls."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.calls = 0

    def __call__(self, wanted: Sequence[tuple[int, int]]) -> list[bytes]:
        self.calls += 1
        for level, index in wanted:
            assert (index + 1) << level <= self.size, "asked for a node outside the tree"
        return [NODES[node] for node in wanted]


def test_hashes_are_rfc9162_2_1_1s() -> None:
    """RFC 9162 2.1.1: leaf 0x00 prefix, node 0x01 prefix, empty tree SHA-256("")."""
    assert hashlib.sha256(b"").digest() == EMPTY_ROOT
    assert leaf_hash(b"a") == hashlib.sha256(b"\x00a").digest()
    assert (
        node_hash(b"l" * 32, b"r" * 32) == hashlib.sha256(b"\x01" + b"l" * 32 + b"r" * 32).digest()
    )
    assert HASH_SIZE == 32


def test_entry_is_three_lines() -> None:
    """The leaf entry: campaign id, version, chain hash, each ending in a newline."""
    cid = UUID("12345678-1234-5678-1234-567812345678")
    assert entry(cid, 7, "ab" * 32) == f"{cid}\n7\n{'ab' * 32}\n".encode()


@pytest.mark.parametrize(
    ("version", "event_hash", "field"),
    [(0, "ab" * 32, "version"), (1, "AB" * 32, "event_hash"), (1, "ab", "event_hash")],
)
def test_entry_refuses_bad_fields(version: int, event_hash: str, field: str) -> None:
    """Bad input names its field."""
    with pytest.raises(ValueError, match=field):
        entry(UUID(int=1), version, event_hash)


def test_right_edge_roots_match_mth_for_every_size() -> None:
    """RightEdge's root after n appends is MTH(D[n]); each append stores O(log n) nodes."""
    edge = RightEdge()
    assert edge.root() == EMPTY_ROOT
    for n, leaf in enumerate(LEAVES, start=1):
        completed = edge.append(leaf)
        assert len(completed) == 1 + ((n & -n).bit_length() - 1)
        assert edge.size == n
        assert edge.root() == ROOTS[n]


def test_stored_nodes_are_the_complete_subtrees() -> None:
    """Every stored (level, index) is the MTH of its leaves, and every complete one is stored."""
    for (level, index), hash_ in NODES.items():
        assert hash_ == mth(LEAVES[index << level : (index + 1) << level])
    expected = sum(MAX >> level for level in range(MAX.bit_length()))
    assert len(NODES) == expected


@given(st.integers(0, MAX))
def test_tree_root_and_load_read_once(size: int) -> None:
    """MTH from stored nodes, one read; RightEdge.load continues the same tree."""
    reader = CountingReader(size)
    assert tree_root(size, reader) == ROOTS[size]
    assert reader.calls == (1 if size else 0)
    edge = RightEdge.load(size, CountingReader(size))
    assert edge.root() == ROOTS[size]
    if size < MAX:
        edge.append(LEAVES[size])
        assert edge.root() == ROOTS[size + 1]


@given(st.data())
def test_inclusion_proofs_match_rfc_path_and_verify(data: st.DataObject) -> None:
    """RFC 9162 2.1.3: the proof is PATH(m, D[n]) and verifies against MTH(D[n])."""
    size = data.draw(st.integers(1, MAX))
    index = data.draw(st.integers(0, size - 1))
    reader = CountingReader(size)
    proof = inclusion_proof(index, size, reader)
    assert reader.calls == (1 if proof else 0)
    assert proof == path(index, LEAVES[:size])
    verify_inclusion(LEAVES[index], index, size, proof, ROOTS[size])


@pytest.mark.parametrize("size", [1, 2, 3, 7, 8, 9, 127, 255, 256, 257, MAX])
def test_every_inclusion_proof_of_a_size(size: int) -> None:
    """Every index of these sizes: the RFC path, verified."""
    for index in range(size):
        proof = inclusion_proof(index, size, CountingReader(size))
        assert proof == path(index, LEAVES[:size])
        verify_inclusion(LEAVES[index], index, size, proof, ROOTS[size])


@given(st.data())
def test_consistency_proofs_match_rfc_proof_and_verify(data: st.DataObject) -> None:
    """RFC 9162 2.1.4: the proof is PROOF(m, D[n]) and verifies between the two MTHs."""
    new = data.draw(st.integers(0, MAX))
    old = data.draw(st.integers(0, new))
    reader = CountingReader(new)
    proof = consistency_proof(old, new, reader)
    assert reader.calls <= 1
    assert proof == ([] if old == 0 else subproof(old, LEAVES[:new], True))
    verify_consistency(old, new, proof, ROOTS[old], ROOTS[new])


def test_every_pair_of_small_sizes() -> None:
    """Every pair of sizes up to 64: proof as in the RFC, verified."""
    for new in range(65):
        for old in range(new + 1):
            proof = consistency_proof(old, new, CountingReader(new))
            assert proof == ([] if old == 0 else subproof(old, LEAVES[:new], True))
            verify_consistency(old, new, proof, ROOTS[old], ROOTS[new])


def _tampered(proof: list[bytes]) -> list[list[bytes]]:
    """Each hash flipped, one dropped, one added, two swapped."""
    out = []
    for i in range(len(proof)):
        flipped = bytes([proof[i][0] ^ 1]) + proof[i][1:]
        out.append([*proof[:i], flipped, *proof[i + 1 :]])
    if proof:
        out.append(proof[:-1])
        if len(proof) > 1 and proof[0] != proof[1]:
            out.append([proof[1], proof[0], *proof[2:]])
    out.append([*proof, b"\x00" * 32])
    return out


@given(st.data())
def test_tampered_inclusion_proofs_are_refused(data: st.DataObject) -> None:
    """RFC 9162 2.1.3.2: any changed hash, length, index, leaf or root fails verification."""
    size = data.draw(st.integers(1, MAX))
    index = data.draw(st.integers(0, size - 1))
    proof = inclusion_proof(index, size, CountingReader(size))
    for bad in _tampered(proof):
        with pytest.raises(ProofError):
            verify_inclusion(LEAVES[index], index, size, bad, ROOTS[size])
    other = data.draw(st.integers(0, size - 1).filter(lambda i: i != index))
    with pytest.raises(ProofError):
        verify_inclusion(LEAVES[index], other, size, proof, ROOTS[size])
    with pytest.raises(ProofError, match="root"):
        verify_inclusion(LEAVES[(index + 1) % MAX], index, size, proof, ROOTS[size])
    with pytest.raises(ProofError, match="root"):
        verify_inclusion(LEAVES[index], index, size, proof, ROOTS[size - 1])


@given(st.data())
def test_tampered_consistency_proofs_are_refused(data: st.DataObject) -> None:
    """RFC 9162 2.1.4.2: any changed hash, length or root fails verification."""
    new = data.draw(st.integers(2, MAX))
    old = data.draw(st.integers(1, new - 1))
    proof = consistency_proof(old, new, CountingReader(new))
    for bad in _tampered(proof):
        with pytest.raises(ProofError):
            verify_consistency(old, new, bad, ROOTS[old], ROOTS[new])
    # When old is a power of two its root is the proof's first node, so a wrong one shows at
    # the new root.
    with pytest.raises(ProofError, match="root does not match"):
        verify_consistency(old, new, proof, ROOTS[old - 1], ROOTS[new])
    with pytest.raises(ProofError, match="new root"):
        verify_consistency(old, new, proof, ROOTS[old], ROOTS[new - 1])


def test_bad_sizes_and_hashes_name_what_failed() -> None:
    """Out-of-range indexes and sizes and wrong-length hashes are refused by name."""
    read = CountingReader(5)
    with pytest.raises(ProofError, match="index"):
        inclusion_proof(5, 5, read)
    with pytest.raises(ProofError, match="old_size"):
        consistency_proof(6, 5, read)
    with pytest.raises(ProofError, match="size"):
        tree_root(-1, read)
    with pytest.raises(ProofError, match="proof hash 0"):
        verify_inclusion(LEAVES[0], 0, 2, [b"short"], ROOTS[2])
    with pytest.raises(ProofError, match="must be empty"):
        verify_consistency(3, 3, [LEAVES[0]], ROOTS[3], ROOTS[3])
    with pytest.raises(ProofError, match="differ"):
        verify_consistency(3, 3, [], ROOTS[3], ROOTS[4])
    with pytest.raises(ProofError, match="leaf hash"):
        RightEdge().append(b"x")


def test_complete_subtrees_cover_a_range_aligned() -> None:
    """The cover of [0, n) follows n's bits, largest first; of any range, aligned nodes."""
    assert complete_subtrees(0, 13) == [(3, 0), (2, 2), (0, 12)]
    assert complete_subtrees(0, 0) == []
    for begin in range(40):
        for end in range(begin, 40):
            leaves = [
                i
                for level, index in complete_subtrees(begin, end)
                for i in range(index << level, (index + 1) << level)
            ]
            assert leaves == list(range(begin, end))


def test_every_index_and_every_pair_of_sizes_up_to_300_verify() -> None:
    """RFC 9162 2.1.3.2 and 2.1.4.2 accept the proof of every index of every size 1..300 and
    of every pair of sizes 0..300 (the RFC oracle is compared above, on samples)."""
    for size in range(1, MAX + 1):
        read = CountingReader(size)
        for index in range(size):
            proof = inclusion_proof(index, size, read)
            verify_inclusion(LEAVES[index], index, size, proof, ROOTS[size])
        for old in range(size + 1):
            proof = consistency_proof(old, size, read)
            verify_consistency(old, size, proof, ROOTS[old], ROOTS[size])
