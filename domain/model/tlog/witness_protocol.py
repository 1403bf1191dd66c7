"""The bodies of the C2SP tlog-witness protocol's ``add-checkpoint`` call.

The request body is an old size line ``old <N>``, zero to 63 consistency proof lines (one
base64 SHA-256 hash each), an empty line, then the signed checkpoint. A 409 answer's body is the
size the witness last cosigned, in decimal and a newline, as ``text/x.tlog.size``; a 200
answer's body is one or more cosignature lines. Standard library only.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from domain.model.signed_note import SIGNATURE_PREFIX

MAX_PROOF_LINES = 63
"""A client sends at most 63 consistency proof lines (tlog-witness, "add-checkpoint")."""
SIZE_CONTENT_TYPE = "text/x.tlog.size"
"""The content type of a 409 answer: the size the witness last cosigned."""
HASH_SIZE = 32
_OLD = re.compile(r"old (0|[1-9][0-9]{0,19})")
_SIZE = re.compile(rb"(0|[1-9][0-9]{0,19})\n")


class MalformedRequest(ValueError):
    """A request or answer body that is not what the protocol says; the message names why."""


@dataclass(frozen=True)
class AddCheckpoint:
    """An add-checkpoint request: the old size, the consistency proof and the checkpoint."""

    old_size: int
    proof: tuple[bytes, ...]
    checkpoint: str

    def body(self) -> bytes:
        """The request body, as posted to ``<submission prefix>/add-checkpoint``."""
        if len(self.proof) > MAX_PROOF_LINES:
            raise MalformedRequest(f"a consistency proof has at most {MAX_PROOF_LINES} hashes")
        lines = [f"old {self.old_size}\n"]
        lines += [base64.b64encode(h).decode() + "\n" for h in self.proof]
        return ("".join(lines) + "\n" + self.checkpoint).encode()


def parse_add_checkpoint(data: bytes) -> AddCheckpoint:
    """Read an add-checkpoint request body (the checkpoint itself is not checked here)."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise MalformedRequest("the request body is not UTF-8 text") from None
    head, blank, checkpoint = text.partition("\n\n")
    if not blank:
        raise MalformedRequest(
            "the request is an old size line, proof lines, an empty line and the checkpoint"
        )
    first, *proof_lines = head.split("\n")
    match = _OLD.fullmatch(first)
    if match is None:
        raise MalformedRequest("the first line is 'old <size>' (decimal, no leading zeroes)")
    if len(proof_lines) > MAX_PROOF_LINES:
        raise MalformedRequest(
            f"a consistency proof has at most {MAX_PROOF_LINES} lines, not {len(proof_lines)}"
        )
    proof = tuple(_hash(line, n) for n, line in enumerate(proof_lines, start=2))
    return AddCheckpoint(int(match.group(1)), proof, checkpoint)


def size_body(size: int) -> bytes:
    """The body of a 409 answer: the cosigned size in decimal and a newline."""
    return f"{size}\n".encode()


def parse_size_body(data: bytes) -> int:
    """Read a ``text/x.tlog.size`` body."""
    match = _SIZE.fullmatch(data)
    if match is None:
        raise MalformedRequest("a size body is a decimal size and a newline")
    return int(match.group(1))


def parse_cosignature_lines(data: bytes) -> list[str]:
    """The signature lines of a 200 answer (each kept with its final newline)."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise MalformedRequest("the answer is not UTF-8 text") from None
    if not text.endswith("\n"):
        raise MalformedRequest("an answer's signature lines each end in a newline")
    lines = [line + "\n" for line in text[:-1].split("\n")]
    if not all(line.startswith(SIGNATURE_PREFIX) for line in lines):
        raise MalformedRequest("an answer's lines each start with an em dash and a space")
    return lines


def _hash(line: str, number: int) -> bytes:
    try:
        raw = base64.b64decode(line.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise MalformedRequest(f"line {number} is not a base64 hash") from None
    if len(raw) != HASH_SIZE:
        raise MalformedRequest(f"line {number} is not a 32-byte hash")
    return raw
