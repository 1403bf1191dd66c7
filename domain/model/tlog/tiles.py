"""Tiles of the host's Merkle tree and bundles of its entries (C2SP tlog-tiles).

A hash tile at tile level ``L``, index ``N`` and width ``W`` (1..256) holds the hashes of the
tree nodes ``(8 * L, N * 256 + i)`` for ``i`` in ``0..W-1``: the Merkle Tree Hashes of
``D[(N * 256 + i) * 256**L : (N * 256 + i + 1) * 256**L]``, concatenated. An entry bundle
``N`` holds the entries ``N * 256 .. N * 256 + W - 1``, each behind a big-endian uint16
length. A tile narrower than 256 is *partial*; its path ends in ``.p/<W>``.

Paths are ``tile/<L>/<N>[.p/<W>]`` and ``tile/entries/<N>[.p/<W>]``, ``N`` written as
zero-padded groups of three digits, all but the last behind an ``x`` (1234067 is
``x001/x234/067``). Only the one canonical spelling of a tile parses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.model.tlog.merkle import HASH_SIZE, Node, NodesReader, node_hash

TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
MAX_LEVEL = 63
MAX_ENTRY_SIZE = 0xFFFF
ENTRIES = "entries"

_DECIMAL = re.compile(r"0|[1-9][0-9]*")
_GROUP = re.compile(r"x[0-9]{3}")
_LAST_GROUP = re.compile(r"[0-9]{3}")


class TileError(ValueError):
    """A tile path, hash tile or entry bundle that is not well formed; says what is wrong."""


@dataclass(frozen=True)
class Tile:
    """A hash tile (``entries`` False) or an entry bundle (``entries`` True, level 0)."""

    level: int
    index: int
    width: int = TILE_WIDTH
    entries: bool = False

    def __post_init__(self) -> None:
        if not 0 <= self.level <= MAX_LEVEL or (self.entries and self.level):
            raise TileError(f"level: must be 0..{MAX_LEVEL} (0 for entries), not {self.level}")
        if self.index < 0:
            raise TileError(f"index: must not be negative, not {self.index}")
        if not 1 <= self.width <= TILE_WIDTH:
            raise TileError(f"width: must be 1..{TILE_WIDTH}, not {self.width}")

    @property
    def partial(self) -> bool:
        """Whether the tile holds fewer than 256 hashes or entries."""
        return self.width < TILE_WIDTH

    def path(self) -> str:
        """The tile's path under the log's prefix, e.g. ``tile/0/x001/234.p/17``."""
        level = ENTRIES if self.entries else str(self.level)
        suffix = f".p/{self.width}" if self.partial else ""
        return f"tile/{level}/{encode_index(self.index)}{suffix}"

    def nodes(self) -> list[Node]:
        """The tree nodes (level, index) whose hashes the tile holds, left to right."""
        first = self.index * TILE_WIDTH
        return [(self.level * TILE_HEIGHT, first + i) for i in range(self.width)]

    def leaves(self) -> range:
        """The leaves the tile's hashes (or entries) span."""
        shift = self.level * TILE_HEIGHT
        first = self.index * TILE_WIDTH
        return range(first << shift, (first + self.width) << shift)

    def in_tree(self, size: int) -> bool:
        """Whether a tree of ``size`` leaves holds every hash (or entry) of the tile."""
        return self.leaves().stop <= size


def encode_index(index: int) -> str:
    """A tile index as path groups: 1234067 -> ``x001/x234/067``."""
    if index < 0:
        raise TileError(f"index: must not be negative, not {index}")
    groups = [f"{index % 1000:03d}"]
    index //= 1000
    while index:
        groups.append(f"x{index % 1000:03d}")
        index //= 1000
    return "/".join(reversed(groups))


def parse_tile_path(path: str) -> Tile:
    """The tile a path names; a path not spelt exactly as ``Tile.path`` writes it is refused."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != "tile":
        raise TileError(f"tile path: must be tile/<L>/<N>[.p/<W>], not {path!r}")
    level_text, groups = parts[1], parts[2:]
    width = TILE_WIDTH
    if len(groups) >= 2 and groups[-2].endswith(".p"):
        width = _decimal("width", groups[-1], 1, TILE_WIDTH - 1)
        groups = [*groups[:-2], groups[-2][: -len(".p")]]
    entries = level_text == ENTRIES
    level = 0 if entries else _decimal("level", level_text, 0, MAX_LEVEL)
    return Tile(level, _parse_index(groups), width, entries)


def _decimal(name: str, text: str, low: int, high: int) -> int:
    if not _DECIMAL.fullmatch(text) or not low <= int(text) <= high:
        raise TileError(
            f"{name}: must be a decimal {low}..{high} without leading zeros, not {text!r}"
        )
    return int(text)


def _parse_index(groups: Sequence[str]) -> int:
    if not groups or not _LAST_GROUP.fullmatch(groups[-1]):
        raise TileError("index: the last group must be exactly three digits")
    if any(not _GROUP.fullmatch(group) for group in groups[:-1]):
        raise TileError("index: every group but the last must be x and three digits")
    if len(groups) > 1 and groups[0] == "x000":
        raise TileError("index: must not start with a group of zeros (x000)")
    index = 0
    for group in groups:
        index = index * 1000 + int(group.lstrip("x"))
    return index


def tiles_for_size(size: int) -> list[Tile]:
    """Every hash tile of a tree of ``size`` leaves: the full ones and the partial right edge."""
    if size < 0:
        raise TileError(f"size: must not be negative, not {size}")
    tiles = []
    for level in range(MAX_LEVEL + 1):
        hashes = size >> (level * TILE_HEIGHT)
        if not hashes:
            break
        tiles += [Tile(level, index) for index in range(hashes // TILE_WIDTH)]
        if hashes % TILE_WIDTH:
            tiles.append(Tile(level, hashes // TILE_WIDTH, hashes % TILE_WIDTH))
    return tiles


def tile_nodes_reader(size: int, fetch: Callable[[Tile], bytes]) -> NodesReader:
    """A ``NodesReader`` over the hash tiles of the tree of ``size`` leaves, as a monitor
    reads them (tlog-tiles "Merkle Tree"): ``fetch`` gets a tile's bytes (each tile once; the
    right edge's partial tiles at the width ``size`` gives them). A node of a level that is not
    a multiple of 8 is the hash of 2**h adjacent nodes of one tile's level, computed here. A
    tile of the wrong length raises ``TileError``."""
    if size < 0:
        raise TileError(f"size: must not be negative, not {size}")
    fetched: dict[Tile, list[bytes]] = {}

    def hashes(tile: Tile) -> list[bytes]:
        if tile not in fetched:
            fetched[tile] = parse_hash_tile(tile, fetch(tile))
        return fetched[tile]

    def node(level: int, index: int) -> bytes:
        tile_level, height = divmod(level, TILE_HEIGHT)
        first, count = index << height, 1 << height
        available = size >> (tile_level * TILE_HEIGHT)
        if first + count > available:
            raise LookupError(f"node ({level}, {index}) is not complete in a tree of size {size}")
        number = first // TILE_WIDTH
        width = min(TILE_WIDTH, available - number * TILE_WIDTH)
        start = first - number * TILE_WIDTH
        row = hashes(Tile(tile_level, number, width))[start : start + count]
        while len(row) > 1:
            row = [node_hash(row[i], row[i + 1]) for i in range(0, len(row), 2)]
        return row[0]

    return lambda nodes: [node(level, index) for level, index in nodes]


def encode_hash_tile(hashes: Sequence[bytes]) -> bytes:
    """A hash tile's bytes: its hashes, concatenated."""
    if any(len(h) != HASH_SIZE for h in hashes):
        raise TileError(f"hash tile: every hash must be {HASH_SIZE} bytes")
    return b"".join(hashes)


def parse_hash_tile(tile: Tile, data: bytes) -> list[bytes]:
    """The hashes of a hash tile's bytes, which must be exactly ``tile.width`` hashes."""
    if tile.entries or len(data) != tile.width * HASH_SIZE:
        raise TileError(f"hash tile: {tile.path()} must be {tile.width * HASH_SIZE} bytes")
    return [data[i : i + HASH_SIZE] for i in range(0, len(data), HASH_SIZE)]


def encode_bundle(entries: Sequence[bytes]) -> bytes:
    """An entry bundle: each entry behind its length as a big-endian uint16."""
    if not 1 <= len(entries) <= TILE_WIDTH:
        raise TileError(f"entry bundle: must hold 1..{TILE_WIDTH} entries, not {len(entries)}")
    for i, item in enumerate(entries):
        if len(item) > MAX_ENTRY_SIZE:
            raise TileError(f"entry {i}: {len(item)} bytes is more than {MAX_ENTRY_SIZE}")
    return b"".join(len(item).to_bytes(2, "big") + item for item in entries)


def parse_bundle(data: bytes) -> list[bytes]:
    """The entries of an entry bundle; a truncated or overlong bundle is refused."""
    entries: list[bytes] = []
    offset = 0
    while offset < len(data):
        if offset + 2 > len(data):
            raise TileError(f"entry bundle: a length is cut short at byte {offset}")
        length = int.from_bytes(data[offset : offset + 2], "big")
        offset += 2
        if offset + length > len(data):
            raise TileError(f"entry {len(entries)}: {length} bytes announced, fewer follow")
        entries.append(data[offset : offset + length])
        offset += length
    if not 1 <= len(entries) <= TILE_WIDTH:
        raise TileError(f"entry bundle: must hold 1..{TILE_WIDTH} entries, not {len(entries)}")
    return entries
