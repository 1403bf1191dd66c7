"""The RFC 6962 / RFC 9162 Merkle tree of a host's log, built from stored complete subtrees.

A **node** ``(level, index)`` is the hash of the complete subtree over leaves
``[index * 2**level, (index + 1) * 2**level)``; level 0 nodes are the leaf hashes. A store keeps
every complete node once it exists (``RightEdge.append`` says which ones an append completes),
so the hash of any tree size, and any inclusion or consistency proof, is a fold of a few stored
nodes: at most two per level. Each of ``tree_root``, ``inclusion_proof``, ``consistency_proof``
and ``RightEdge.load`` asks its ``NodesReader`` for all the nodes it needs in ONE call (none
when it needs none), so a store answers with one query.

The hashes are RFC 9162 section 2.1.1's: a leaf is SHA-256(0x00 || entry), an interior node
SHA-256(0x01 || left || right), the empty tree SHA-256 of nothing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from uuid import UUID

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
"""The root of the empty tree (RFC 9162 section 2.1.1)."""

Node = tuple[int, int]
"""A complete subtree: (level, index)."""
NodesReader = Callable[[Sequence[Node]], list[bytes]]
"""Reads the hashes of complete subtrees, in the order asked, in one call."""

_EVENT_HASH = re.compile(r"[0-9a-f]{64}")


class ProofError(ValueError):
    """A proof, or a size or index asked of the tree, that does not hold; says what failed."""


def entry(campaign_id: UUID, version: int, event_hash: str) -> bytes:
    """The log entry of one event: campaign id, version and chain hash, one line each."""
    if not isinstance(version, int) or version < 1:
        raise ValueError(f"version: must be a positive integer, not {version!r}")
    if not _EVENT_HASH.fullmatch(event_hash):
        raise ValueError("event_hash: must be 64 lowercase hex digits")
    return f"{campaign_id}\n{version}\n{event_hash}\n".encode()


def leaf_hash(entry: bytes) -> bytes:
    """The hash of a leaf: SHA-256(0x00 || entry)."""
    return hashlib.sha256(b"\x00" + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an interior node: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def complete_subtrees(begin: int, end: int) -> list[Node]:
    """The largest complete subtrees covering leaves [begin, end), left to right.

    For a range of the RFC 6962 recursion (a whole tree or a subtree of one) they come largest
    first, and the range's hash is their fold from the right (``_fold``).
    """
    nodes: list[Node] = []
    while begin < end:
        level = (end - begin).bit_length() - 1
        if begin:
            level = min(level, (begin & -begin).bit_length() - 1)
        nodes.append((level, begin >> level))
        begin += 1 << level
    return nodes


def _fold(hashes: Sequence[bytes]) -> bytes:
    """The hash of a subtree made of complete subtrees, largest first."""
    if not hashes:
        return EMPTY_ROOT
    result = hashes[-1]
    for left in reversed(hashes[:-1]):
        result = node_hash(left, result)
    return result


def _split(size: int) -> int:
    """The largest power of two below ``size`` (size > 1): where RFC 6962 splits a tree."""
    return 1 << ((size - 1).bit_length() - 1)


def _read_ranges(ranges: Sequence[tuple[int, int]], read: NodesReader) -> list[bytes]:
    """The hashes of subtrees [begin, end), read from their complete nodes in one call."""
    covers = [complete_subtrees(begin, end) for begin, end in ranges]
    wanted = list(dict.fromkeys(node for cover in covers for node in cover))
    if not wanted:
        return [EMPTY_ROOT for _ in ranges]
    hashes = read(wanted)
    if len(hashes) != len(wanted):
        raise LookupError(f"asked for {len(wanted)} tree nodes, the store gave {len(hashes)}")
    found = dict(zip(wanted, hashes, strict=True))
    return [_fold([found[node] for node in cover]) for cover in covers]


def _check_size(name: str, size: int) -> None:
    if not isinstance(size, int) or size < 0:
        raise ProofError(f"{name}: must be a non-negative integer, not {size!r}")


def tree_root(size: int, read: NodesReader) -> bytes:
    """The root hash of the tree of the first ``size`` leaves (MTH, RFC 9162 section 2.1.1)."""
    _check_size("size", size)
    return _read_ranges([(0, size)], read)[0]


def _inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """The subtrees whose hashes make PATH(index, D[0:size]), leaf side first (2.1.3.1)."""
    ranges = []
    begin, end = 0, size
    while end - begin > 1:
        middle = begin + _split(end - begin)
        if index < middle:
            ranges.append((middle, end))
            end = middle
        else:
            ranges.append((begin, middle))
            begin = middle
    return ranges[::-1]


def inclusion_proof(index: int, size: int, read: NodesReader) -> list[bytes]:
    """The audit path of leaf ``index`` in the tree of ``size`` leaves (RFC 9162 2.1.3.1)."""
    _check_size("size", size)
    if not isinstance(index, int) or not 0 <= index < size:
        raise ProofError(f"index: {index!r} is not a leaf of a tree of size {size}")
    return _read_ranges(_inclusion_ranges(index, size), read)


def _consistency_ranges(old_size: int, new_size: int) -> list[tuple[int, int]]:
    """The subtrees whose hashes make PROOF(old_size, D[0:new_size]) (RFC 9162 2.1.4.1)."""
    ranges = []
    begin, end, whole = 0, new_size, True
    while old_size - begin != end - begin:
        middle = begin + _split(end - begin)
        if old_size <= middle:
            ranges.append((middle, end))
            end = middle
        else:
            ranges.append((begin, middle))
            begin, whole = middle, False
    if not whole:
        ranges.append((begin, end))
    return ranges[::-1]


def consistency_proof(old_size: int, new_size: int, read: NodesReader) -> list[bytes]:
    """The proof that the tree of ``old_size`` leaves is a prefix of the tree of ``new_size``.

    Empty when ``old_size`` is 0 or equal to ``new_size`` (RFC 9162 section 2.1.4.1).
    """
    _check_size("old_size", old_size)
    _check_size("new_size", new_size)
    if old_size > new_size:
        raise ProofError(f"old_size: {old_size} is larger than new_size {new_size}")
    if old_size == 0:
        return []
    return _read_ranges(_consistency_ranges(old_size, new_size), read)


def consistency_evidence(old_size: int, new_size: int, read: NodesReader) -> list[bytes]:
    """A consistency proof that states both roots (``consistency_roots``): RFC 9162's proof,
    with the hash of the first ``old_size`` leaves first when ``old_size`` is a power of two
    (which RFC 9162 leaves out). Needs 0 < old_size < new_size."""
    _check_size("old_size", old_size)
    _check_size("new_size", new_size)
    if not 0 < old_size < new_size:
        raise ProofError(f"old_size: must be 0 < old_size < new_size, not {old_size}, {new_size}")
    ranges = _consistency_ranges(old_size, new_size)
    if _power_of_two(old_size):
        ranges.insert(0, (0, old_size))
    return _read_ranges(ranges, read)


def _check_hash(name: str, value: bytes) -> None:
    if not isinstance(value, bytes) or len(value) != HASH_SIZE:
        raise ProofError(f"{name}: must be {HASH_SIZE} bytes")


def verify_inclusion(
    leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes
) -> None:
    """Check that ``leaf_hash`` is leaf ``index`` of the tree ``root`` (RFC 9162 2.1.3.2)."""
    _check_size("size", size)
    if not isinstance(index, int) or not 0 <= index < size:
        raise ProofError(f"index: {index!r} is not a leaf of a tree of size {size}")
    for name, value in [("leaf hash", leaf_hash), ("root", root), *_named("proof", proof)]:
        _check_hash(name, value)
    fn, sn, result = index, size - 1, leaf_hash
    for sibling in proof:
        if sn == 0:
            raise ProofError(f"inclusion proof: {len(proof)} hashes is too many")
        if fn & 1 or fn == sn:
            result = node_hash(sibling, result)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            result = node_hash(result, sibling)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"inclusion proof: {len(proof)} hashes is too few")
    if result != root:
        raise ProofError("inclusion proof: the computed root does not match the tree's root")


def verify_consistency(
    old_size: int, new_size: int, proof: Sequence[bytes], old_root: bytes, new_root: bytes
) -> None:
    """Check that tree ``old_root`` is a prefix of tree ``new_root`` (RFC 9162 2.1.4.2)."""
    _check_size("old_size", old_size)
    _check_size("new_size", new_size)
    for name, value in [("old root", old_root), ("new root", new_root), *_named("proof", proof)]:
        _check_hash(name, value)
    if old_size > new_size:
        raise ProofError(f"old_size: {old_size} is larger than new_size {new_size}")
    if old_size == 0 or old_size == new_size:
        if proof:
            raise ProofError(f"consistency proof: must be empty from size {old_size}")
        if old_size and old_root != new_root:
            raise ProofError("consistency proof: the old and new roots of one size differ")
        return
    if not proof:
        raise ProofError("consistency proof: empty between two different sizes")
    path = [old_root, *proof] if _power_of_two(old_size) else list(proof)
    old, new = _fold_consistency(old_size, new_size, path, len(proof))
    if old != old_root:
        raise ProofError("consistency proof: the computed old root does not match")
    if new != new_root:
        raise ProofError("consistency proof: the computed new root does not match")


def consistency_roots(
    old_size: int, new_size: int, proof: Sequence[bytes], old_root: bytes | None = None
) -> tuple[bytes, bytes]:
    """The roots (old, new) a consistency proof from ``old_size`` to ``new_size`` computes.

    RFC 9162 section 2.1.4.2 folds the proof into BOTH the root of the old tree and the root of
    the new one: a proof that gives a log's signed root at ``new_size`` states, under
    SHA-256's collision resistance, the only root the log's tree can have at ``old_size``.

    When ``old_size`` is a power of two the old tree is the complete subtree [0, old_size) of
    the new one, and RFC 9162 (``SUBPROOF(m, D[m], true)``, section 2.1.4.1) omits its hash:
    the verifier uses the old root it holds, so such a proof says nothing of the old root.
    Either give that root as ``old_root`` (it comes back as the old root unchanged, and the
    new root is the fold of it with the proof), or give the proof with the hash of the first
    ``old_size`` leaves of the new tree prepended (one hash more than RFC 9162's proof): that
    hash is then the old root the proof states. For other old sizes ``old_root`` is ignored.
    Needs 0 < old_size < new_size; raises ``ProofError`` naming what does not hold.
    """
    _check_size("old_size", old_size)
    _check_size("new_size", new_size)
    if not 0 < old_size < new_size:
        raise ProofError(
            f"old_size: a consistency proof states two roots only from 0 < old_size < new_size, "
            f"not from {old_size} to {new_size}"
        )
    for name, value in _named("proof", proof):
        _check_hash(name, value)
    if not proof:
        raise ProofError("consistency proof: empty between two different sizes")
    path = list(proof)
    if _power_of_two(old_size) and len(proof) != len(_consistency_ranges(old_size, new_size)) + 1:
        if old_root is None:
            raise ProofError(
                f"consistency proof: from size {old_size}, a power of two, RFC 9162 omits the "
                "old tree's hash; give the old root, or the proof with the hash of the first "
                f"{old_size} leaves first"
            )
        _check_hash("old root", old_root)
        path.insert(0, old_root)
    return _fold_consistency(old_size, new_size, path, len(proof))


def _power_of_two(size: int) -> bool:
    return size & (size - 1) == 0


def _fold_consistency(
    old_size: int, new_size: int, path: Sequence[bytes], given: int
) -> tuple[bytes, bytes]:
    """The old and new roots of RFC 9162 2.1.4.2's loop over ``path`` (the proof, with the old
    root first when the old size is a power of two); ``given`` is the proof's length, for the
    words."""
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    old, new = path[0], path[0]
    for hash_ in path[1:]:
        if sn == 0:
            raise ProofError(f"consistency proof: {given} hashes is too many")
        if fn & 1 or fn == sn:
            old, new = node_hash(hash_, old), node_hash(hash_, new)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            new = node_hash(new, hash_)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"consistency proof: {given} hashes is too few")
    return old, new


def _named(name: str, hashes: Sequence[bytes]) -> list[tuple[str, bytes]]:
    return [(f"{name} hash {i}", value) for i, value in enumerate(hashes)]


class RightEdge:
    """The compact range of a tree: the complete subtrees its size decomposes into.

    Appending a leaf costs O(log n) hashes and returns the complete nodes it finished, which
    a store keeps so that roots and proofs can later be read from them.
    """

    def __init__(self) -> None:
        self._nodes: list[tuple[int, int, bytes]] = []
        self._size = 0

    @property
    def size(self) -> int:
        """How many leaves the tree holds."""
        return self._size

    @classmethod
    def load(cls, size: int, read: NodesReader) -> RightEdge:
        """The right edge of the stored tree of ``size`` leaves (one read)."""
        _check_size("size", size)
        edge = cls()
        nodes = complete_subtrees(0, size)
        hashes = read(nodes) if nodes else []
        if len(hashes) != len(nodes):
            raise LookupError(f"asked for {len(nodes)} tree nodes, the store gave {len(hashes)}")
        edge._nodes = [(level, index, h) for (level, index), h in zip(nodes, hashes, strict=True)]
        edge._size = size
        return edge

    def append(self, leaf_hash: bytes) -> list[tuple[int, int, bytes]]:
        """Add a leaf; the (level, index, hash) of every complete node this completes."""
        _check_hash("leaf hash", leaf_hash)
        completed = [(0, self._size, leaf_hash)]
        self._nodes.append(completed[0])
        while len(self._nodes) > 1 and self._nodes[-2][0] == self._nodes[-1][0]:
            right = self._nodes.pop()
            left = self._nodes.pop()
            merged = (left[0] + 1, left[1] >> 1, node_hash(left[2], right[2]))
            self._nodes.append(merged)
            completed.append(merged)
        self._size += 1
        return completed

    def root(self) -> bytes:
        """The root hash of the tree so far."""
        return _fold([h for _, _, h in self._nodes])
