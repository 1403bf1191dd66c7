"""The log's checkpoint in the C2SP tlog-checkpoint format: origin, tree size, base64 root.

(A stand-in with the agreed names until the checkpoint module of the Merkle log's branch is
merged; that branch's module replaces this one.)
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass

from domain.model.signed_note import MalformedNote, VerifierKey, open_note

_SIZE = re.compile(r"0|[1-9][0-9]{0,19}")


@dataclass(frozen=True)
class TreeHead:
    """A tree head: the log's origin, its size and its root hash."""

    origin: str
    size: int
    root: bytes

    def body(self) -> str:
        """The checkpoint's note body: origin, size and base64 root, one line each."""
        return f"{self.origin}\n{self.size}\n{base64.b64encode(self.root).decode()}\n"


def parse_tree_head(body: str) -> TreeHead:
    """Read a checkpoint body (extension lines are allowed and ignored)."""
    lines = body.split("\n")
    if len(lines) < 4 or not lines[0]:
        raise MalformedNote("a checkpoint body has three lines: origin, size and root hash")
    if not _SIZE.fullmatch(lines[1]):
        raise MalformedNote("a checkpoint's second line is the tree size (decimal)")
    try:
        root = base64.b64decode(lines[2].encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise MalformedNote("a checkpoint's third line is the base64 root hash") from None
    if len(root) != 32:
        raise MalformedNote("a checkpoint's root hash is 32 bytes")
    return TreeHead(lines[0], int(lines[1]), root)


def open_tree_head(note: str, keys: Iterable[VerifierKey]) -> tuple[TreeHead, VerifierKey]:
    """Verify a signed checkpoint against known keys; its tree head and the key that signed."""
    opened = open_note(note, keys)
    return parse_tree_head(opened.body), opened.key
