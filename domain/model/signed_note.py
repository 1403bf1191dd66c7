"""Signed notes (the C2SP signed-note format, https://c2sp.org/signed-note) and checkpoints.

This is the format of Go's checksum database and of transparency logs
(``golang.org/x/mod/sumdb/note``), so any of their verifiers can check a Questlog checkpoint:

- a **note** is a body of UTF-8 lines, each ending in ``\\n``, a blank line, then signature
  lines ``— <key name> <base64(4-byte key hash || 64-byte Ed25519 signature)>``, the signature
  being over the body's bytes;
- a **verifier key** is ``<key name>+<8 hex digits of key hash>+<base64(0x01 || public key)>``,
  the key hash being the first 4 bytes of SHA-256(key name || ``\\n`` || 0x01 || public key);
- a **checkpoint** is a note whose body starts with ``<log name>/campaigns/<campaign id>``,
  the campaign's version (decimal) and its head hash (64 lowercase hex digits). Later lines
  are allowed and ignored. Questlog writes no more, so a checkpoint of one head is always the
  same bytes under one key (Ed25519 signatures are deterministic).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from uuid import UUID

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 0x01
"""The signature algorithm byte of an Ed25519 key."""
SIGNATURE_PREFIX = "\u2014 "
"""What starts a signature line: an em dash and a space."""
MAX_SIGNATURES = 100
MAX_NAME_LENGTH = 200
HEAD_HASH = re.compile(r"[0-9a-f]{64}")
VERSION = re.compile(r"[1-9][0-9]{0,18}")


class NoteError(ValueError):
    """A note (or a verifier key) that does not verify; ``verdict`` names the reason."""

    verdict = "invalid"


class MalformedNote(NoteError):
    """The text is not a signed note, a checkpoint or a verifier key."""

    verdict = "malformed"


class UnsignedNote(MalformedNote):
    """A body and its blank line with no signature line after it (signed-note "Format": one
    or more signature lines). ``body`` is the note's text, for a caller whose rules say how
    to answer a note no key signed (tlog-witness: 403)."""

    def __init__(self, body: str) -> None:
        super().__init__("the note carries no signature line after its blank line")
        self.body = body


class UnknownKey(NoteError):
    """No signature of the note is by one of the keys it was checked against."""

    verdict = "unknown key"


class BadSignature(NoteError):
    """A signature names a known key but does not verify: the note was forged or altered."""

    verdict = "bad signature"


def valid_name(name: str) -> bool:
    """Whether a key name is valid: non-empty, no whitespace, no ``+``."""
    return (
        0 < len(name) <= MAX_NAME_LENGTH
        and "+" not in name
        and not any(c.isspace() or not c.isprintable() for c in name)
    )


def key_hash(name: str, public_key: bytes) -> bytes:
    """The 4-byte key hash of an Ed25519 key under a name."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([ED25519]) + public_key).digest()[:4]


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    """The 32 bytes of an Ed25519 public key."""
    return key.public_bytes_raw()


@dataclass(frozen=True)
class VerifierKey:
    """A public key that checks notes, with its name and key hash."""

    name: str
    key_hash: bytes
    public_key: Ed25519PublicKey

    @classmethod
    def of(cls, name: str, public_key: Ed25519PublicKey) -> VerifierKey:
        """The verifier key of an Ed25519 public key under a name."""
        if not valid_name(name):
            raise MalformedNote(f"{name!r} is not a valid key name")
        return cls(name, key_hash(name, raw_public_key(public_key)), public_key)

    @property
    def text(self) -> str:
        """``<name>+<key hash hex>+<base64(0x01 || public key)>``."""
        material = base64.b64encode(bytes([ED25519]) + raw_public_key(self.public_key))
        return f"{self.name}+{self.key_hash.hex()}+{material.decode()}"

    def verifies(self, body: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is this key's over ``body``."""
        try:
            self.public_key.verify(signature, body)
        except InvalidSignature:
            return False
        return True


def parse_verifier_key(text: str) -> VerifierKey:
    """Parse ``<name>+<hash>+<key>``; the hash must be the key's."""
    name, plus, rest = text.strip().partition("+")
    hash_hex, plus2, material = rest.partition("+")
    if not plus or not plus2 or not valid_name(name):
        raise MalformedNote("a verifier key is <name>+<8 hex digits>+<base64 key>")
    if not re.fullmatch(r"[0-9a-f]{8}", hash_hex):
        raise MalformedNote("a verifier key's hash is 8 lowercase hex digits")
    raw = _b64decode(material, "the verifier key")
    if len(raw) != 33 or raw[0] != ED25519:
        raise MalformedNote("the verifier key is not an Ed25519 key (0x01 and 32 bytes)")
    key = VerifierKey.of(name, Ed25519PublicKey.from_public_bytes(raw[1:]))
    if key.key_hash.hex() != hash_hex:
        raise MalformedNote("the verifier key's hash does not match its name and key")
    return key


class NoteSigner:
    """An Ed25519 private key that signs notes under a name (kept, so signing costs only the
    signature itself)."""

    def __init__(self, name: str, private_key: Ed25519PrivateKey) -> None:
        self.private_key = private_key
        self.verifier = VerifierKey.of(name, private_key.public_key())

    @property
    def name(self) -> str:
        """The key name."""
        return self.verifier.name

    def sign(self, body: str) -> str:
        """The signed note of ``body`` (lines each ending in ``\\n``)."""
        data = _check_body(body)
        signature = self.private_key.sign(data)
        blob = base64.b64encode(self.verifier.key_hash + signature).decode()
        return f"{body}\n{SIGNATURE_PREFIX}{self.name} {blob}\n"


@dataclass(frozen=True)
class Signature:
    """One signature line of a note."""

    name: str
    key_hash: bytes
    signature: bytes


@dataclass(frozen=True)
class OpenedNote:
    """A note whose signature verified: its body and the key that signed it."""

    body: str
    key: VerifierKey


def parse_note(note: str) -> tuple[str, list[Signature]]:
    """Split a note into its body and signatures, without checking them."""
    if not isinstance(note, str):
        raise MalformedNote("a note is text")
    split = note.rfind("\n\n")
    if split < 0:
        raise MalformedNote("a note is its body, a blank line, then signature lines")
    body, lines = note[: split + 1], note[split + 2 :]
    _check_body(body)
    if not lines:
        raise UnsignedNote(body)
    if not lines.endswith("\n"):
        raise MalformedNote("a note's last signature line must end in a newline")
    signatures = [_signature(line) for line in lines[:-1].split("\n")]
    if len(signatures) > MAX_SIGNATURES:
        raise MalformedNote(f"a note has at most {MAX_SIGNATURES} signatures")
    return body, signatures


def open_note(note: str, keys: Iterable[VerifierKey]) -> OpenedNote:
    """Verify a note against known keys: its body and the key that signed it.

    Raises ``MalformedNote``, ``UnknownKey`` (no signature by any of ``keys``) or
    ``BadSignature`` (a signature by a known key that does not verify).
    """
    body, signatures = parse_note(note)
    known = {(k.name, k.key_hash): k for k in keys}
    data = body.encode()
    signed_by: VerifierKey | None = None
    for signature in signatures:
        key = known.get((signature.name, signature.key_hash))
        if key is None:
            continue
        if not key.verifies(data, signature.signature):
            raise BadSignature(
                f"the signature by {key.name}+{key.key_hash.hex()} does not verify: "
                "the note was forged or altered"
            )
        signed_by = signed_by or key
    if signed_by is not None:
        return OpenedNote(body, signed_by)
    signers = ", ".join(f"{s.name}+{s.key_hash.hex()}" for s in signatures)
    raise UnknownKey(f"the note is signed by {signers}, none of them a key it was checked against")


@dataclass(frozen=True)
class Checkpoint:
    """A campaign's head as a checkpoint body names it."""

    log_name: str
    campaign_id: UUID
    version: int
    head_hash: str

    @property
    def origin(self) -> str:
        """The first line: ``<log name>/campaigns/<campaign id>``."""
        return f"{self.log_name}/campaigns/{self.campaign_id}"

    def body(self) -> str:
        """The note body: the origin, the version and the head hash, one line each."""
        return f"{self.origin}\n{self.version}\n{self.head_hash}\n"


def parse_checkpoint(body: str) -> Checkpoint:
    """Read a checkpoint body (its lines after the third are ignored)."""
    lines = body.split("\n")
    if len(lines) < 4:
        raise MalformedNote("a checkpoint body has three lines: origin, version and head hash")
    origin, version, head_hash = lines[:3]
    log_name, sep, cid = origin.rpartition("/campaigns/")
    if not sep or not log_name:
        raise MalformedNote("a checkpoint's first line is <log name>/campaigns/<campaign id>")
    try:
        campaign_id = UUID(cid)
    except ValueError:
        raise MalformedNote(
            f"{cid!r} in the checkpoint's first line is not a campaign id"
        ) from None
    if str(campaign_id) != cid:
        raise MalformedNote("a checkpoint's campaign id is a lowercase hyphenated UUID")
    if not VERSION.fullmatch(version):
        raise MalformedNote("a checkpoint's second line is the version (decimal, from 1)")
    if not HEAD_HASH.fullmatch(head_hash):
        raise MalformedNote("a checkpoint's third line is the head hash (64 lowercase hex)")
    return Checkpoint(log_name, campaign_id, int(version), head_hash)


def open_checkpoint(note: str, keys: Iterable[VerifierKey]) -> tuple[Checkpoint, VerifierKey]:
    """Verify a signed checkpoint against known keys; its content and the key that signed it."""
    opened = open_note(note, keys)
    return parse_checkpoint(opened.body), opened.key


_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f]")
"""A control character other than the newline."""


def _check_body(body: str) -> bytes:
    """The body's bytes, once it is known to be lines of text each ending in a newline."""
    if not body.endswith("\n"):
        raise MalformedNote("a note's body must end in a newline")
    if _CONTROL.search(body):
        raise MalformedNote("a note's body must hold no control characters but newlines")
    try:
        return body.encode()
    except UnicodeEncodeError:
        raise MalformedNote("a note's body must be UTF-8 text") from None


def _signature(line: str) -> Signature:
    if not line.startswith(SIGNATURE_PREFIX):
        raise MalformedNote("a signature line starts with an em dash and a space")
    name, space, blob = line[len(SIGNATURE_PREFIX) :].partition(" ")
    if not space or not valid_name(name) or " " in blob:
        raise MalformedNote("a signature line is '— <key name> <base64 signature>'")
    raw = _b64decode(blob, "a signature")
    if len(raw) < 5:
        raise MalformedNote("a signature is a 4-byte key hash and the signature's bytes")
    return Signature(name, raw[:4], raw[4:])


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise MalformedNote(f"{what} is not valid base64") from None
