"""Witness cosignatures: the Ed25519 ``cosignature/v1`` of C2SP tlog-cosignature.

A cosignature is a note signature line ``— <cosigner name> base64(key id || timestamp ||
signature)`` added to a checkpoint:

- the key id is SHA-256(name || ``\\n`` || 0x04 || 32-byte Ed25519 public key)[:4];
- the timestamp is a big-endian u64 of POSIX seconds (at most 2^63 - 1, never zero here);
- the Ed25519 signature is over ``cosignature/v1\\n``, ``time <timestamp>\\n`` and the
  checkpoint's whole body (its final newline included, its signature lines not);
- a cosigner's verifier key (vkey) is ``<name>+<key id hex>+base64(0x04 || public key)``.

Standard library and ``cryptography`` only.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from domain.model.signed_note import (
    SIGNATURE_PREFIX,
    BadSignature,
    MalformedNote,
    parse_note,
    valid_name,
)

COSIGNATURE_V1 = 0x04
"""The signature type byte of an Ed25519 cosignature/v1 key (tlog-cosignature, "Format")."""
HEADER = "cosignature/v1"
"""The first line of the signed message: the domain separation of cosignature/v1."""
MAX_TIMESTAMP = 2**63 - 1
"""The largest timestamp a cosignature may carry."""
SIGNATURE_SIZE = 8 + 64
"""A timestamped_signature: the u64 timestamp, then the 64-byte Ed25519 signature."""


def cosigner_key_id(name: str, public_key: bytes) -> bytes:
    """SHA-256(name || ``\\n`` || 0x04 || public key)[:4], the key id of a cosigner."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([COSIGNATURE_V1]) + public_key).digest()[:4]


def signed_message(body: str, timestamp: int) -> bytes:
    """The bytes a cosignature/v1 signs: the header line, the time line, then the body."""
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise ValueError(f"a cosignature's timestamp is between 0 and 2^63 - 1, not {timestamp}")
    return f"{HEADER}\ntime {timestamp}\n{body}".encode()


@dataclass(frozen=True)
class CosignerKey:
    """A witness's public key under its name (a vkey with signature type 0x04)."""

    name: str
    key_id: bytes
    public_key: bytes

    @classmethod
    def of(cls, name: str, public_key: Ed25519PublicKey | bytes) -> CosignerKey:
        """The cosigner key of an Ed25519 public key under a name."""
        if not valid_name(name):
            raise MalformedNote(f"{name!r} is not a valid key name")
        raw = public_key if isinstance(public_key, bytes) else public_key.public_bytes_raw()
        if len(raw) != 32:
            raise MalformedNote("an Ed25519 public key is 32 bytes")
        return cls(name, cosigner_key_id(name, raw), raw)

    @property
    def text(self) -> str:
        """The vkey: ``<name>+<key id hex>+<base64(0x04 || public key)>``."""
        material = base64.b64encode(bytes([COSIGNATURE_V1]) + self.public_key).decode()
        return f"{self.name}+{self.key_id.hex()}+{material}"

    def verifies(self, body: str, timestamp: int, signature: bytes) -> bool:
        """Whether ``signature`` is this key's cosignature of ``body`` at ``timestamp``."""
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(
                signature, signed_message(body, timestamp)
            )
        except (InvalidSignature, ValueError):
            return False
        return True


def parse_cosigner_key(text: str) -> CosignerKey:
    """Parse a cosigner vkey ``<name>+<key id>+<base64(0x04 || key)>``; the id must match."""
    name, plus, rest = text.strip().partition("+")
    key_id, plus2, material = rest.partition("+")
    if not plus or not plus2 or not valid_name(name):
        raise MalformedNote("a cosigner key is <name>+<8 hex digits>+<base64 key>")
    if not re.fullmatch(r"[0-9a-f]{8}", key_id):
        raise MalformedNote("a cosigner key's id is 8 lowercase hex digits")
    raw = _b64decode(material, "the cosigner key")
    if len(raw) != 33 or raw[0] != COSIGNATURE_V1:
        raise MalformedNote("the key is not an Ed25519 cosignature/v1 key (type 0x04 and 32 bytes)")
    key = CosignerKey.of(name, raw[1:])
    if key.key_id.hex() != key_id:
        raise MalformedNote("the cosigner key's id does not match its name and key")
    return key


class Cosigner:
    """A witness's Ed25519 private key that cosigns checkpoints under its name."""

    def __init__(self, name: str, private_key: Ed25519PrivateKey) -> None:
        self.private_key = private_key
        self.key = CosignerKey.of(name, private_key.public_key())

    @property
    def name(self) -> str:
        """The cosigner's name (its key name)."""
        return self.key.name

    def cosign(self, body: str, timestamp: int) -> str:
        """One cosignature line of ``body`` at ``timestamp`` (POSIX seconds), ending in ``\\n``."""
        if timestamp <= 0:
            raise ValueError("a witness's cosignature never omits its timestamp (it is not 0)")
        signature = self.private_key.sign(signed_message(body, timestamp))
        blob = self.key.key_id + struct.pack(">Q", timestamp) + signature
        return f"{SIGNATURE_PREFIX}{self.name} {base64.b64encode(blob).decode()}\n"


def verified_cosignatures(note: str, keys: Iterable[CosignerKey]) -> list[tuple[CosignerKey, int]]:
    """Each known key that validly cosigned the note, with its latest timestamp.

    Lines by unknown keys (the log's own signature among them) are ignored; a line whose name
    and key id are a known key's but whose signature fails raises ``BadSignature``.
    """
    body, signatures = parse_note(note)
    known = {(k.name, k.key_id): k for k in keys}
    found: dict[str, tuple[CosignerKey, int]] = {}
    for line in signatures:
        key = known.get((line.name, line.key_hash))
        if key is None:
            continue
        timestamp = _timestamp(line.signature)
        if timestamp is None or not key.verifies(body, timestamp, line.signature[8:]):
            raise BadSignature(
                f"the cosignature by {key.name}+{key.key_id.hex()} does not verify: "
                "the note was forged or altered"
            )
        previous = found.get(key.text)
        if previous is None or previous[1] < timestamp:
            found[key.text] = (key, timestamp)
    return list(found.values())


def cosignatures(note: str, keys: Iterable[CosignerKey]) -> dict[str, int]:
    """Cosigner name -> timestamp of each valid cosignature of the note by a known key."""
    return {key.name: timestamp for key, timestamp in verified_cosignatures(note, keys)}


def _timestamp(signature: bytes) -> int | None:
    """The timestamp of a timestamped_signature, or None when it is not one."""
    if len(signature) != SIGNATURE_SIZE:
        return None
    (timestamp,) = struct.unpack(">Q", signature[:8])
    return timestamp if timestamp <= MAX_TIMESTAMP else None


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise MalformedNote(f"{what} is not valid base64") from None
