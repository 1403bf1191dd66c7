"""A small Merkle log for the tests of witnesses, proofs and verifiers: entries of made-up
campaign events, signed checkpoints of any size it has reached, and its proofs."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from uuid import UUID, uuid5

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import NoteSigner
from domain.model.tlog.checkpoint import TreeHead
from domain.model.tlog.cosignature import Cosigner
from domain.model.tlog.merkle import (
    RightEdge,
    consistency_proof,
    entry,
    inclusion_proof,
    leaf_hash,
    tree_root,
)
from domain.model.tlog.proof import TlogProof

NAMESPACE = UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")


def seeded_key(seed: str) -> Ed25519PrivateKey:
    """An Ed25519 key made from a word, the same on every run."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed.encode()).digest())


def cosigner(name: str) -> Cosigner:
    """A witness's cosigner whose key is made from its name."""
    return Cosigner(name, seeded_key("witness " + name))


class FakeLog:
    """A log of made-up events: ``append`` grows it, the rest reads any size it reached."""

    def __init__(self, origin: str = "questlog.example/log", signer: NoteSigner | None = None):
        self.origin = origin
        self.signer = signer or NoteSigner(origin, seeded_key("log " + origin))
        self.entries: list[bytes] = []
        self.nodes: dict[tuple[int, int], bytes] = {}
        self.edge = RightEdge()

    def read(self, wanted: Sequence[tuple[int, int]]) -> list[bytes]:
        return [self.nodes[node] for node in wanted]

    def append_entry(self, data: bytes) -> int:
        """Add one entry; its index."""
        self.entries.append(data)
        for level, index, value in self.edge.append(leaf_hash(data)):
            self.nodes[(level, index)] = value
        return len(self.entries) - 1

    def append(self, count: int, campaign: UUID | None = None, salt: str = "") -> FakeLog:
        """Add ``count`` events (of a campaign made from the index unless given)."""
        for _ in range(count):
            n = len(self.entries)
            cid = campaign or uuid5(NAMESPACE, f"campaign {n % 7}")
            event_hash = hashlib.sha256(f"{salt}event {n}".encode()).hexdigest()
            self.append_entry(entry(cid, n + 1, event_hash))
        return self

    def root(self, size: int | None = None) -> bytes:
        return tree_root(len(self.entries) if size is None else size, self.read)

    def head(self, size: int | None = None) -> TreeHead:
        size = len(self.entries) if size is None else size
        return TreeHead(self.origin, size, self.root(size))

    def checkpoint(self, size: int | None = None) -> str:
        """The signed checkpoint of the tree at ``size`` (default: now)."""
        return self.signer.sign(self.head(size).body())

    def consistency(self, old: int, new: int | None = None) -> list[bytes]:
        return consistency_proof(old, len(self.entries) if new is None else new, self.read)

    def proof(self, index: int, note: str, *, extra: bool = True) -> str:
        """A tlog-proof of entry ``index`` in the checkpoint ``note`` (of its size)."""
        size = int(note.split("\n")[1])
        hashes = tuple(inclusion_proof(index, size, self.read))
        data = self.entries[index] if extra else None
        return TlogProof(index, hashes, note, data).text()
