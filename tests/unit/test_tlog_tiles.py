"""Tiles and entry bundles as C2SP tlog-tiles defines them ("Merkle Tree", "Log entries")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.model.tlog.merkle import RightEdge, leaf_hash
from domain.model.tlog.tiles import (
    TILE_HEIGHT,
    TILE_WIDTH,
    Tile,
    TileError,
    encode_bundle,
    encode_hash_tile,
    encode_index,
    parse_bundle,
    parse_hash_tile,
    parse_tile_path,
    tiles_for_size,
)
from tests.unit.test_tlog_merkle import mth

SIZE = 70_000
ENTRIES = [f"entry {i}\n".encode() for i in range(SIZE)]
LEAVES = [leaf_hash(item) for item in ENTRIES]


def _nodes() -> dict[tuple[int, int], bytes]:
    edge = RightEdge()
    nodes: dict[tuple[int, int], bytes] = {}
    for leaf in LEAVES:
        for level, index, hash_ in edge.append(leaf):
            if level % TILE_HEIGHT == 0:
                nodes[(level, index)] = hash_
    return nodes


NODES = _nodes()


def test_tile_height_is_eight() -> None:
    """tlog-tiles: full tiles are exactly 256 hashes wide."""
    assert TILE_HEIGHT == 8
    assert TILE_WIDTH == 256


@pytest.mark.parametrize(
    ("index", "text"),
    [(0, "000"), (7, "007"), (999, "999"), (1000, "x001/000"), (1234067, "x001/x234/067")],
)
def test_index_groups(index: int, text: str) -> None:
    """tlog-tiles: N in zero-padded 3-digit elements, all but the last beginning with x."""
    assert encode_index(index) == text


@pytest.mark.parametrize(
    ("path", "tile"),
    [
        ("tile/0/000", Tile(0, 0)),
        ("tile/0/x001/x234/067", Tile(0, 1234067)),
        ("tile/1/000.p/17", Tile(1, 0, 17)),
        ("tile/63/x001/000.p/255", Tile(63, 1000, 255)),
        ("tile/entries/x001/234", Tile(0, 1234, entries=True)),
        ("tile/entries/273.p/112", Tile(0, 273, 112, entries=True)),
    ],
)
def test_paths_round_trip(path: str, tile: Tile) -> None:
    """tlog-tiles: tile/<L>/<N>[.p/<W>] and tile/entries/<N>[.p/<W>]."""
    assert parse_tile_path(path) == tile
    assert tile.path() == path


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("tile/00/000", "level"),
        ("tile/64/000", "level"),
        ("tile/-1/000", "level"),
        ("tile/a/000", "level"),
        ("tile/0/000.p/0", "width"),
        ("tile/0/000.p/256", "width"),
        ("tile/0/000.p/017", "width"),
        ("tile/0/000.p/", "width"),
        ("tile/0/000.p/+5", "width"),
        ("tile/0/1", "index"),
        ("tile/0/0000", "index"),
        ("tile/0/x000/001", "index"),
        ("tile/0/001/002", "index"),
        ("tile/0/x001", "index"),
        ("tile/0/x1/002", "index"),
        ("tile/0/001.p", "index"),
        ("tile/0/", "index"),
        ("tile/0", "tile path"),
        ("tiles/0/000", "tile path"),
        ("/tile/0/000", "tile path"),
        ("tile/data/000", "level"),
    ],
)
def test_bad_paths_are_refused_naming_the_part(path: str, field: str) -> None:
    """tlog-tiles: no leading zeros in L or W, L in 0..63, W in 1..255, N as x-groups."""
    with pytest.raises(TileError, match=field):
        parse_tile_path(path)


@given(st.integers(0, 10**12), st.integers(0, 63), st.integers(1, 256), st.booleans())
def test_every_tile_path_round_trips(index: int, level: int, width: int, entries: bool) -> None:
    """Any tile's path parses back to the same tile."""
    tile = Tile(0 if entries else level, index, width, entries)
    assert parse_tile_path(tile.path()) == tile


def test_tiles_of_a_tree_of_70000() -> None:
    """tlog-tiles's example: 273 full level-0 tiles, one of width 112, one full level-1 tile,
    one level-1 tile of width 17 and one level-2 tile of width 1."""
    tiles = tiles_for_size(70_000)
    assert [t for t in tiles if t.level == 0 and not t.partial] == [Tile(0, n) for n in range(273)]
    assert [t for t in tiles if t.partial or t.level] == [
        Tile(0, 273, 112),
        Tile(1, 0),
        Tile(1, 1, 17),
        Tile(2, 0, 1),
    ]
    assert tiles_for_size(256) == [Tile(0, 0), Tile(1, 0, 1)]
    assert tiles_for_size(0) == []


@given(st.integers(1, SIZE))
def test_tile_hashes_are_the_spec_mths(size: int) -> None:
    """tlog-tiles: the i-th hash of tile n at level l is MTH(D[(n*256+i)*256**l : ...+1)*256**l]);
    every tile of the tree is made of stored complete nodes at tree level 8*l."""
    for tile in tiles_for_size(size):
        assert tile.in_tree(size)
        hashes = [NODES[node] for node in tile.nodes()]
        assert len(encode_hash_tile(hashes)) == tile.width * 32
        span = 256**tile.level
        for i in (0, tile.width - 1):
            start = (tile.index * 256 + i) * span
            if span <= 256:
                assert hashes[i] == mth(LEAVES[start : start + span])


def test_a_level_one_hash_is_the_hash_of_a_full_level_zero_tile() -> None:
    """tlog-tiles: each hash in a level-1 tile is the MTH of a full tile at the level below."""
    level1 = [NODES[node] for node in Tile(1, 0, 17).nodes()]
    assert level1[5] == mth(LEAVES[5 * 256 : 6 * 256])
    assert Tile(1, 0, 17).leaves() == range(0, 17 * 256)
    assert not Tile(1, 1).in_tree(SIZE)
    assert Tile(1, 1, 17).in_tree(SIZE)
    assert not Tile(1, 1, 18).in_tree(SIZE)


def test_hash_tile_bytes_must_be_width_hashes() -> None:
    """A hash tile is exactly width * 32 bytes."""
    tile = Tile(0, 0, 3)
    data = encode_hash_tile(LEAVES[:3])
    assert parse_hash_tile(tile, data) == LEAVES[:3]
    with pytest.raises(TileError, match="96 bytes"):
        parse_hash_tile(tile, data[:-1])
    with pytest.raises(TileError, match="32 bytes"):
        encode_hash_tile([b"short"])


def test_entry_bundles_are_uint16_length_prefixed() -> None:
    """tlog-tiles "Log entries": big-endian uint16 length-prefixed entries; each hashes to
    the matching hash of the level-0 tile."""
    tile = Tile(0, 273, 112, entries=True)
    items = [ENTRIES[i] for i in tile.leaves()]
    data = encode_bundle(items)
    assert data[:2] == len(items[0]).to_bytes(2, "big")
    parsed = parse_bundle(data)
    assert parsed == items
    assert [leaf_hash(e) for e in parsed] == [NODES[n] for n in Tile(0, 273, 112).nodes()]
    assert parse_bundle(encode_bundle([b""])) == [b""]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "1..256 entries"),
        (b"\x00", "cut short"),
        (b"\x00\x05abc", "5 bytes announced"),
        (b"\x00\x00" * 257, "1..256 entries"),
    ],
)
def test_bad_bundles_are_refused(data: bytes, message: str) -> None:
    """A truncated, empty or overfull bundle is refused, saying why."""
    with pytest.raises(TileError, match=message):
        parse_bundle(data)


def test_an_entry_too_long_for_uint16_is_refused() -> None:
    """Entries longer than 65535 bytes cannot be length-prefixed."""
    with pytest.raises(TileError, match="entry 1"):
        encode_bundle([b"a", b"a" * 65536])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"level": 64, "index": 0}, "level"),
        ({"level": 1, "index": 0, "entries": True}, "level"),
        ({"level": 0, "index": -1}, "index"),
        ({"level": 0, "index": 0, "width": 0}, "width"),
        ({"level": 0, "index": 0, "width": 257}, "width"),
    ],
)
def test_bad_tiles_are_refused(kwargs: dict[str, int], field: str) -> None:
    """A tile outside tlog-tiles's ranges is refused, naming the field."""
    with pytest.raises(TileError, match=field):
        Tile(**kwargs)  # type: ignore[arg-type]
