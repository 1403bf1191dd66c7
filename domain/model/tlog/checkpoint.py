"""The host log's tree head as a C2SP checkpoint (https://c2sp.org/tlog-checkpoint).

The body is the origin (the log's name), the tree size in decimal (no leading zeros) and the
base64 root hash, one line each; any later lines are extension lines, which Questlog never
writes but reads and keeps, so a witness can cosign another log's checkpoint byte for byte.
The signed note around it is ``domain.model.signed_note``'s.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass

from domain.model.signed_note import MalformedNote, VerifierKey, open_note
from domain.model.tlog.merkle import HASH_SIZE

MAX_SIZE = (1 << 63) - 1
"""The largest tree size read (Go's checkpoints hold an int64)."""
_SIZE = re.compile(r"0|[1-9][0-9]{0,18}")


@dataclass(frozen=True)
class TreeHead:
    """A log's tree at one size: its origin, its size and its RFC 6962 root hash."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.origin or "\n" in self.origin:
            raise MalformedNote("a checkpoint's origin is one non-empty line")
        if not isinstance(self.size, int) or not 0 <= self.size <= MAX_SIZE:
            raise MalformedNote(f"a checkpoint's tree size is 0..{MAX_SIZE}, not {self.size!r}")
        if not isinstance(self.root, bytes) or len(self.root) != HASH_SIZE:
            raise MalformedNote(f"a checkpoint's root hash is {HASH_SIZE} bytes")
        if any(not line or "\n" in line for line in self.extensions):
            raise MalformedNote("a checkpoint's extension lines are non-empty single lines")

    def body(self) -> str:
        """The note body: origin, size, base64 root hash and extension lines, each with ``\\n``."""
        lines = [self.origin, str(self.size), base64.b64encode(self.root).decode()]
        return "".join(f"{line}\n" for line in [*lines, *self.extensions])


def parse_tree_head(body: str) -> TreeHead:
    """Read a checkpoint body; raise ``MalformedNote`` saying which line is wrong."""
    if not isinstance(body, str) or not body.endswith("\n"):
        raise MalformedNote("a checkpoint body is lines each ending in a newline")
    lines = body[:-1].split("\n")
    if len(lines) < 3:
        raise MalformedNote("a checkpoint body has at least three lines: origin, size, root hash")
    origin, size, root, *extensions = lines
    if not origin:
        raise MalformedNote("a checkpoint's first line, the origin, must not be empty")
    if not _SIZE.fullmatch(size) or int(size) > MAX_SIZE:
        raise MalformedNote(
            "a checkpoint's second line is the tree size in decimal without leading zeros"
        )
    try:
        raw = base64.b64decode(root.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise MalformedNote("a checkpoint's third line, the root hash, is not base64") from None
    if len(raw) != HASH_SIZE or base64.b64encode(raw).decode() != root:
        raise MalformedNote(f"a checkpoint's root hash is the base64 of {HASH_SIZE} bytes")
    if any(not line for line in extensions):
        raise MalformedNote("a checkpoint's extension lines must not be empty")
    return TreeHead(origin, int(size), raw, tuple(extensions))


def open_tree_head(note: str, keys: Iterable[VerifierKey]) -> tuple[TreeHead, VerifierKey]:
    """Verify a signed checkpoint against known keys: its tree head and the key that signed it.

    Raises ``MalformedNote``, ``UnknownKey`` or ``BadSignature`` as ``open_note`` does.
    """
    opened = open_note(note, keys)
    return parse_tree_head(opened.body), opened.key
