"""The consistency proof ``questlog verify --pair A B`` needs when A and B are tree heads of
two sizes: read from a file (``--consistency FILE``) or built from the log's hash tiles
(``--tiles URL``, C2SP tlog-tiles).

``--consistency FILE``: the proof's hashes in base64, one per line, as a tlog-witness
add-checkpoint body carries them (RFC 9162 section 2.1.4.1, from the smaller size to the
larger; from a size that is a power of two, with the hash of the larger tree's first leaves of
that size first, since RFC 9162 leaves it out).

``--tiles URL``: the log's tile prefix (``http://host:8000/log``): the hash tiles the larger
tree needs are fetched (``URL/tile/<L>/<N>[.p/<W>]``), must reproduce the larger checkpoint's
signed root (else they are not of that tree), and give the proof.
"""

from __future__ import annotations

import base64
import binascii
import urllib.error
import urllib.parse
import urllib.request

from domain.facade import (
    BadConsistencyProof,
    ProofError,
    Tile,
    TileError,
    VerifierKey,
    consistency_evidence,
    pair_heads,
    tile_nodes_reader,
    tree_root,
)

TIMEOUT_SECONDS = 10
"""How long one tile may take to arrive."""
_MAX_TILE_BYTES = 256 * 32


class PairInputError(ValueError):
    """An option of ``--pair`` whose value cannot be used; says why (the caller names it)."""


def read_consistency(text: str) -> list[bytes]:
    """The hashes of a ``--consistency`` file: base64 of 32 bytes, one per line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    hashes = []
    for number, line in enumerate(lines, 1):
        try:
            value = base64.b64decode(line.strip(), validate=True)
        except (binascii.Error, ValueError):
            value = b""
        if len(value) != 32:
            raise PairInputError(f"line {number}: not the base64 of a 32-byte hash: {line!r}")
        hashes.append(value)
    return hashes


def tiles_consistency(url: str, texts: tuple[str, str], keys: list[VerifierKey]) -> list[bytes]:
    """The consistency proof between the pair's two tree heads, from the log's tiles at
    ``url``; raises ``PairInputError`` when they cannot be read or are not of the larger tree,
    ``NoteError`` (``BadConsistencyProof``) when the pair is no two sizes of one log."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise PairInputError(f"not an http(s) URL: {url!r}")
    old, new = pair_heads(*texts, keys)
    read = tile_nodes_reader(new.size, lambda tile: _fetch(url, tile))
    try:
        root = tree_root(new.size, read)
        if root != new.root:
            raise PairInputError(
                f"the tiles at {url} are not of the tree of size {new.size} the log signed: "
                f"they give the root {_b64(root)}, the checkpoint says {_b64(new.root)}"
            )
        return consistency_evidence(old.size, new.size, read)
    except (TileError, ProofError, LookupError) as error:
        raise PairInputError(f"the tiles at {url}: {error}") from None


def _fetch(prefix: str, tile: Tile) -> bytes:
    url = f"{prefix.rstrip('/')}/{tile.path()}"
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as answer:
            return bytes(answer.read(_MAX_TILE_BYTES + 1))
    except urllib.error.HTTPError as error:
        raise PairInputError(f"GET {url} answered {error.code} {error.reason}") from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise PairInputError(f"cannot read {url}: {reason}") from None


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()


__all__ = ["BadConsistencyProof", "PairInputError", "read_consistency", "tiles_consistency"]
