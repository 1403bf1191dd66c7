"""Writes ``tests/page_unit/tlog_vectors.json``, the vectors ``tlog.test.mjs`` checks the page's
tlog.js against: a log of seven events of two campaigns, a tlog-proof (c2sp.org/tlog-proof@v1)
of every leaf with the checkpoint cosigned by two of three witnesses (cosignature/v1), the keys,
and three policies (tlog-policy). Keys come from fixed seeds, so the file is the same on every run
(Ed25519 signatures are deterministic).

Run from the repository's root: ``python -m tests.page_unit.tlog_vectors``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from pathlib import Path
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

OUT = Path(__file__).with_name("tlog_vectors.json")
LOG = "questlog.test/log"
CAMPAIGNS = (
    UUID("5f0c6a3e-7d1b-4c2a-9e8f-0a1b2c3d4e5f"),
    UUID("0b9f8e7d-6c5b-4a39-8271-605f4e3d2c1b"),
)
TIME = 1_700_000_000


def private(seed: str) -> Ed25519PrivateKey:
    """A key from a fixed seed."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed.encode()).digest())


def raw(key: Ed25519PrivateKey) -> bytes:
    """The 32-byte public key."""
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_id(name: str, kind: int, key: Ed25519PrivateKey) -> bytes:
    """signed-note's key ID: SHA-256(name || "\\n" || type || public key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([kind]) + raw(key)).digest()[:4]


def vkey(name: str, kind: int, key: Ed25519PrivateKey) -> str:
    """signed-note's verifier key text."""
    material = base64.b64encode(bytes([kind]) + raw(key)).decode()
    return f"{name}+{key_id(name, kind, key).hex()}+{material}"


def entry(campaign: UUID, version: int, event_hash: str) -> bytes:
    """The leaf's entry: campaign id, version, event hash, each on its line."""
    return f"{campaign}\n{version}\n{event_hash}\n".encode()


def leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """RFC 6962 section 2.1: the largest power of two smaller than n."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def root(leaves: list[bytes]) -> bytes:
    """RFC 6962 section 2.1's MTH, by its recursive definition."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    k = split(len(leaves))
    return node(root(leaves[:k]), root(leaves[k:]))


def path(m: int, leaves: list[bytes]) -> list[bytes]:
    """RFC 6962 section 2.1.1's PATH(m, D[n]), the leaf's sibling first."""
    if len(leaves) == 1:
        return []
    k = split(len(leaves))
    if m < k:
        return [*path(m, leaves[:k]), root(leaves[k:])]
    return [*path(m - k, leaves[k:]), root(leaves[:k])]


def signature_line(name: str, blob: bytes) -> str:
    return f"\u2014 {name} {base64.b64encode(blob).decode()}\n"


def cosign(name: str, key: Ed25519PrivateKey, body: str, timestamp: int) -> str:
    """tlog-cosignature: key ID (type 0x04) || 8-byte big-endian time || Ed25519 signature over
    "cosignature/v1\\ntime <t>\\n" || body."""
    message = f"cosignature/v1\ntime {timestamp}\n{body}".encode()
    blob = key_id(name, 4, key) + struct.pack(">Q", timestamp) + key.sign(message)
    return signature_line(name, blob)


def proof_text(index: int, hashes: list[bytes], note: str) -> str:
    lines = [f"index {index}", *(base64.b64encode(h).decode() for h in hashes)]
    return "c2sp.org/tlog-proof@v1\n" + "\n".join(lines) + "\n\n" + note


def vectors() -> dict[str, object]:
    """The whole file."""
    log_key = private("tlog.js test log")
    witnesses = {n: private(f"tlog.js test witness {n}") for n in ("w1", "w2", "w3")}
    names = {n: f"witness.test/{n}" for n in witnesses}
    logged = [
        (CAMPAIGNS[i % 2], i // 2 + 1, hashlib.sha256(f"event {i}".encode()).hexdigest())
        for i in range(7)
    ]
    events = [{"campaign_id": str(c), "version": v, "hash": h} for c, v, h in logged]
    leaves = [leaf(entry(*e)) for e in logged]
    body = f"{LOG}\n{len(leaves)}\n{base64.b64encode(root(leaves)).decode()}\n"
    signature = key_id(LOG, 1, log_key) + log_key.sign(body.encode())
    note = body + "\n" + signature_line(LOG, signature)
    note += cosign(names["w1"], witnesses["w1"], body, TIME)
    note += cosign(names["w2"], witnesses["w2"], body, TIME + 1)
    wkeys = {n: vkey(names[n], 4, k) for n, k in witnesses.items()}
    witness_lines = "".join(f"witness {n} {k} http://127.0.0.1:1/{n}\n" for n, k in wkeys.items())
    return {
        "log_key": vkey(LOG, 1, log_key),
        "witness_keys": wkeys,
        "events": events,
        "leaf_hashes": [h.hex() for h in leaves],
        "root": base64.b64encode(root(leaves)).decode(),
        "body": body,
        "note": note,
        "proofs": [proof_text(i, path(i, leaves), note) for i in range(len(leaves))],
        "policies": {
            "two_of_three": (
                f"# two of three\nlog {vkey(LOG, 1, log_key)}\n{witness_lines}"
                "group table 2 w1 w2 w3\nquorum table\n"
            ),
            "all_three": f"{witness_lines}group table all w1 w2 w3\nquorum table\n",
            "w3_only": f"witness w3 {wkeys['w3']}\nquorum w3\n",
        },
    }


if __name__ == "__main__":
    OUT.write_text(json.dumps(vectors(), indent=1) + "\n", encoding="utf-8")
