"""Writes ``tests/page_unit/tlog_vectors.json``, the vectors ``tlog.test.mjs`` checks the page's
tlog.js against, made with the server's own modules (``domain/model/tlog``: the Merkle tree, the
checkpoint's ``NoteSigner``, ``Cosigner``, ``TlogProof``, ``parse_policy`` and its ``describe``
words): a log of seven events of two campaigns, a tlog-proof (c2sp.org/tlog-proof@v1) of every
leaf with the checkpoint cosigned by two of three witnesses (cosignature/v1), the keys, policies
(tlog-policy), and the quorum's words for sets of cosigners, which the page must say alike. The
tree is also built by RFC 6962 section 2.1's recursive definition here, and both must agree.
Keys come from fixed seeds, so the file is the same on every run (Ed25519 is deterministic).

Run from the repository's root: ``python -m tests.page_unit.tlog_vectors``.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import NoteSigner
from domain.model.tlog.checkpoint import TreeHead
from domain.model.tlog.cosignature import Cosigner
from domain.model.tlog.merkle import RightEdge, entry, inclusion_proof, leaf_hash, node_hash
from domain.model.tlog.policy import parse_policy
from domain.model.tlog.proof import TlogProof, check_tlog_proof

OUT = Path(__file__).with_name("tlog_vectors.json")
LOG = "questlog.test/log"
CAMPAIGNS = (
    UUID("5f0c6a3e-7d1b-4c2a-9e8f-0a1b2c3d4e5f"),
    UUID("0b9f8e7d-6c5b-4a39-8271-605f4e3d2c1b"),
)
TIME = 1_700_000_000
WORDS = {
    "two_of_three": [[], ["w1"], ["w2"], ["w1", "w2"], ["w1", "w2", "w3"]],
    "all_three": [["w1", "w2"], ["w1", "w2", "w3"]],
    "w3_only": [[], ["w1", "w2"], ["w3"]],
    "nested": [["w1", "w3"], ["w1", "w2"], ["w1", "w2", "w3"]],
    "none": [[], ["w1"]],
}
"""The cosigners whose quorum words (``Policy.describe``) the page must say alike."""


def private(seed: str) -> Ed25519PrivateKey:
    """A key from a fixed seed."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed.encode()).digest())


def mth(leaves: Sequence[bytes]) -> bytes:
    """RFC 6962 section 2.1's MTH, by its recursive definition (a cross-check of RightEdge)."""
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def policies(log: str, witnesses: dict[str, str]) -> dict[str, str]:
    """The policies the tests use, by name."""
    lines = "".join(f"witness {n} {k} http://127.0.0.1:1/{n}\n" for n, k in witnesses.items())
    return {
        "two_of_three": f"# two of three\nlog {log}\n{lines}group table 2 w1 w2 w3\nquorum table\n",
        "all_three": f"{lines}group table all w1 w2 w3\nquorum table\n",
        "w3_only": f"witness w3 {witnesses['w3']}\nquorum w3\n",
        "nested": f"{lines}group a any w1 w2\ngroup both all a w3\nquorum both\n",
        "none": "quorum none\n",
    }


def vectors() -> dict[str, object]:
    """The whole file."""
    log = NoteSigner(LOG, private("tlog.js test log"))
    cosigners = {
        n: Cosigner(f"witness.test/{n}", private(f"tlog.js test witness {n}"))
        for n in ("w1", "w2", "w3")
    }
    logged = [
        (CAMPAIGNS[i % 2], i // 2 + 1, hashlib.sha256(f"event {i}".encode()).hexdigest())
        for i in range(7)
    ]
    leaves = [leaf_hash(entry(*e)) for e in logged]
    edge, nodes = RightEdge(), {}
    for leaf in leaves:
        nodes.update({(level, index): h for level, index, h in edge.append(leaf)})
    assert edge.root() == mth(leaves)
    body = TreeHead(LOG, len(leaves), edge.root()).body()
    note = log.sign(body)
    note += cosigners["w1"].cosign(body, TIME) + cosigners["w2"].cosign(body, TIME + 1)
    proofs = [
        TlogProof(
            i, tuple(inclusion_proof(i, len(leaves), lambda ask: [nodes[n] for n in ask])), note
        ).text()
        for i in range(len(leaves))
    ]
    keys = {n: c.key.text for n, c in cosigners.items()}
    texts = policies(log.verifier.text, keys)
    for i, e in enumerate(logged):
        assert check_tlog_proof(
            proofs[i], entry(*e), [log.verifier], parse_policy(texts["two_of_three"])
        ).ok
    return {
        "log_key": log.verifier.text,
        "witness_keys": keys,
        "events": [{"campaign_id": str(c), "version": v, "hash": h} for c, v, h in logged],
        "leaf_hashes": [h.hex() for h in leaves],
        "root": base64.b64encode(edge.root()).decode(),
        "body": body,
        "note": note,
        "proofs": proofs,
        "policies": texts,
        "words": [
            {"policy": name, "cosigned": names, "words": parse_policy(texts[name]).describe(names)}
            for name, cases in WORDS.items()
            for names in cases
        ],
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(vectors(), indent=1) + "\n", encoding="utf-8")
