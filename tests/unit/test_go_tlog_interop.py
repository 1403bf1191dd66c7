"""Go's transparency log code, which Questlog did not write, checks the host's tree.

``tests/interop/gotlog`` is a small Go program over ``golang.org/x/mod/sumdb/tlog`` and
``golang.org/x/mod/sumdb/note`` (Debian's golang-golang-x-mod-dev, built offline). It reads our
entries, stored nodes, proofs, tiles and signed checkpoint and says, case by case, whether Go
accepts them; it also makes its own proofs from our stored nodes, which must equal ours.
Honest cases must pass, tampered ones must be refused. Two mappings, made in the Go program:
Go's tile paths carry the height (``tile/8/<L>/...``), C2SP tlog-tiles's do not; and Go's
``tlog.ParseTree`` wants the go.sum database's first line, so the origin line is checked and
then swapped for it. Go's tree of size 0 hashes to 32 zero bytes, not RFC 6962's SHA-256 of
nothing, so size 0 is not asked of Go.
"""

from __future__ import annotations

import base64
import json
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import NoteSigner
from domain.model.tlog.checkpoint import TreeHead
from domain.model.tlog.merkle import (
    RightEdge,
    consistency_proof,
    entry,
    inclusion_proof,
    leaf_hash,
    tree_root,
)
from domain.model.tlog.tiles import TILE_HEIGHT, encode_hash_tile, tiles_for_size
from tests.interop.go_build import build_go_program

SIZE = 300
BIG_SIZE = 70_000
ORIGIN = "questlog.example/log"

Nodes = dict[tuple[int, int], bytes]


def b64(data: bytes) -> str:
    """Base64, as Go's encoding/json reads a []byte."""
    return base64.b64encode(data).decode()


def flip(data: bytes) -> bytes:
    """The same bytes with the last bit of the first one flipped."""
    return bytes([data[0] ^ 1]) + data[1:]


@pytest.fixture(scope="module")
def gotlog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go program, built offline against Debian's x/mod (a skip, under CI a failure, if
    Go or x/mod is missing)."""
    return build_go_program("gotlog", "tlog", tmp_path_factory.mktemp("gotlog"))


def run_go(binary: Path, document: dict[str, Any]) -> dict[str, Any]:
    """Go's verdicts on one input document."""
    done = subprocess.run(
        [str(binary)], input=json.dumps(document).encode(), capture_output=True, timeout=300
    )
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def build(size: int, levels: int = 1) -> tuple[list[bytes], Nodes, bytes]:
    """Entries of ``size`` events, the complete nodes the integrator would store (only those
    at multiples of ``levels``) and the root."""
    rng = random.Random(47)
    entries = [
        entry(UUID(int=rng.getrandbits(128), version=4), 1 + i % 9, rng.randbytes(32).hex())
        for i in range(size)
    ]
    edge = RightEdge()
    nodes: Nodes = {}
    for item in entries:
        for level, index, hash_ in edge.append(leaf_hash(item)):
            if level % levels == 0:
                nodes[(level, index)] = hash_
    return entries, nodes, edge.root()


def reader(nodes: Nodes) -> Any:
    """A NodesReader over a dict."""
    return lambda wanted: [nodes[node] for node in wanted]


def tiles(size: int, nodes: Nodes) -> dict[str, str]:
    """Every tile of the tree of ``size`` leaves, by its C2SP path."""
    return {
        tile.path(): b64(encode_hash_tile([nodes[node] for node in tile.nodes()]))
        for tile in tiles_for_size(size)
    }


@pytest.fixture(scope="module")
def tree() -> tuple[list[bytes], Nodes]:
    """A tree of a few hundred events."""
    entries, nodes, _ = build(SIZE)
    return entries, nodes


def inclusion_cases(nodes: Nodes) -> Iterator[tuple[dict[str, Any], bool]]:
    """Every inclusion proof of a few sizes, each honest, then some tampered."""
    read = reader(nodes)
    for size in (1, 2, 3, 7, 8, 9, 255, 256, 257, SIZE):
        root = tree_root(size, read)
        for index in range(size):
            proof = inclusion_proof(index, size, read)
            case = {"index": index, "size": size, "leaf": nodes[(0, index)], "root": root}
            yield {**case, "proof": proof}, True
            if index % 7 == 0 and proof:
                yield {**case, "proof": [flip(proof[0]), *proof[1:]]}, False
                yield {**case, "proof": proof[:-1]}, False
                yield {**case, "proof": [*proof, proof[0]]}, False
                yield {**case, "proof": proof, "root": flip(root)}, False
                yield {**case, "proof": proof, "leaf": flip(nodes[(0, index)])}, False
                yield {**case, "proof": proof, "index": (index + 1) % size}, False


def consistency_cases(nodes: Nodes) -> Iterator[tuple[dict[str, Any], bool]]:
    """Every pair of sizes up to 40, every old size for the whole tree, random pairs; some
    tampered."""
    read = reader(nodes)
    rng = random.Random(6962)
    pairs = [(old, new) for new in range(1, 41) for old in range(1, new + 1)]
    pairs += [(old, SIZE) for old in range(1, SIZE + 1)]
    for _ in range(500):
        low, high = sorted((rng.randint(1, SIZE), rng.randint(1, SIZE)))
        pairs.append((low, high))
    for n, (old, new) in enumerate(pairs):
        proof = consistency_proof(old, new, read)
        old_root, new_root = tree_root(old, read), tree_root(new, read)
        case: dict[str, Any] = {"old": old, "new": new, "old_root": old_root, "new_root": new_root}
        yield {**case, "proof": proof}, True
        if n % 5 == 0 and proof:
            yield {**case, "proof": [*proof[:-1], flip(proof[-1])]}, False
            yield {**case, "proof": proof[1:]}, False
            yield {**case, "proof": proof, "old_root": flip(old_root)}, False
            yield {**case, "proof": proof, "new_root": flip(new_root)}, False


def encoded(case: dict[str, Any]) -> dict[str, Any]:
    """A case with its hashes in base64."""
    out: dict[str, Any] = {}
    for key, value in case.items():
        if isinstance(value, bytes):
            out[key] = b64(value)
        elif isinstance(value, list):
            out[key] = [b64(v) for v in value]
        else:
            out[key] = value
    return out


def checkpoints(size: int, root: bytes) -> list[tuple[dict[str, Any], bool]]:
    """Our signed checkpoint, then forged, wrongly keyed and wrongly named ones."""
    signer = NoteSigner(ORIGIN, Ed25519PrivateKey.generate())
    stranger = NoteSigner(ORIGIN, Ed25519PrivateKey.generate())
    note = signer.sign(TreeHead(ORIGIN, size, root).body())
    case = {"note": note, "vkey": signer.verifier.text, "origin": ORIGIN, "size": size}
    case["root"] = b64(root)
    other_size = TreeHead(ORIGIN, size + 1, root).body()
    forged = note.replace(f"\n{size}\n", f"\n{size + 1}\n", 1)
    return [
        (case, True),
        ({**case, "note": forged}, False),
        ({**case, "note": stranger.sign(other_size)}, False),
        ({**case, "vkey": stranger.verifier.text}, False),
        ({**case, "origin": "questlog.example/other"}, False),
        ({**case, "size": size - 1}, False),
    ]


def check(verdicts: list[dict[str, Any]], cases: list[tuple[dict[str, Any], bool]]) -> None:
    """Go accepted exactly the honest cases, and made our proofs itself."""
    assert len(verdicts) == len(cases)
    for verdict, (case, honest) in zip(verdicts, cases, strict=True):
        assert verdict["ok"] is honest, (case, verdict)
        if honest and "proof" in case:
            assert [base64.b64decode(h) for h in verdict.get("go_proof") or []] == case["proof"]


def test_go_checks_entries_roots_proofs_tiles_and_checkpoint(
    gotlog: Path, tree: tuple[list[bytes], Nodes]
) -> None:
    """RFC 9162 2.1 hashes and proofs, tlog-tiles tiles, tlog-checkpoint and signed-note, as
    golang.org/x/mod/sumdb checks them."""
    entries, nodes = tree
    read = reader(nodes)
    inclusion = list(inclusion_cases(nodes))
    consistency = list(consistency_cases(nodes))
    roots = [{"size": n, "root": b64(tree_root(n, read))} for n in range(1, SIZE + 1)]
    wrong_root = [{"size": SIZE, "root": b64(flip(tree_root(SIZE, read)))}]
    tile_sets: list[tuple[dict[str, Any], bool]] = [
        (
            {
                "size": n,
                "root": b64(tree_root(n, read)),
                "tiles": tiles(n, nodes),
                "indexes": list(range(n)),
                "compare": True,
            },
            True,
        )
        for n in (1, 2, 255, 256, 257, SIZE)
    ]
    root = tree_root(SIZE, read)
    document = {
        "entries": [b64(item) for item in entries],
        "nodes": [[level, index, b64(h)] for (level, index), h in nodes.items()],
        "roots": roots + wrong_root,
        "inclusion": [encoded(case) for case, _ in inclusion],
        "consistency": [encoded(case) for case, _ in consistency],
        "tiles": [case for case, _ in tile_sets],
        "checkpoints": [case for case, _ in checkpoints(SIZE, root)],
    }
    result = run_go(gotlog, document)
    assert result["leaf_mismatches"] == []
    assert [v["ok"] for v in result["roots"]] == [True] * SIZE + [False]
    check(result["inclusion"], inclusion)
    check(result["consistency"], consistency)
    check(result["tiles"], tile_sets)
    check(result["checkpoints"], checkpoints(SIZE, root))
    assert sum(not honest for _, honest in inclusion + consistency) > 500


def test_go_reads_a_bigger_tree_through_our_tiles_and_refuses_tampered_ones(gotlog: Path) -> None:
    """tlog-tiles over three tile levels (a tree of 70,000: 273 full level-0 tiles, partial
    ones at each level): Go's TileHashReader authenticates every tile against the root and
    refuses a tile with one bit changed or a tree hash that is not the tree's."""
    _, nodes, root = build(BIG_SIZE, levels=TILE_HEIGHT)
    served = tiles(BIG_SIZE, nodes)
    rng = random.Random(9162)
    indexes = [0, 5 * 256 + 3, 273 * 256 + 5, BIG_SIZE - 1, *rng.sample(range(BIG_SIZE), 200)]
    honest = {"size": BIG_SIZE, "root": b64(root), "tiles": served, "indexes": indexes}
    # Go's own tile authentication must refuse these: no comparison with our nodes first.
    tampered = []
    for path in ("tile/0/005", "tile/0/273.p/112", "tile/1/000"):
        data = bytearray(base64.b64decode(served[path]))
        data[40] ^= 1
        tampered.append({**honest, "tiles": {**served, path: b64(bytes(data))}})
    tampered.append({**honest, "root": b64(flip(root))})
    cases = [({**honest, "compare": True}, True)] + [(case, False) for case in tampered]
    document = {
        "nodes": [[level, index, b64(h)] for (level, index), h in nodes.items()],
        "tiles": [case for case, _ in cases],
    }
    result = run_go(gotlog, document)
    check(result["tiles"], cases)
