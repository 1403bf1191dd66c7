"""What the host's Merkle tree costs in pure compute: ``python -m bench.tlog.proofs``.

A tree of ``--leaves`` events (100,000; ``--quick`` 2,000) is built with ``RightEdge`` as the
integrator builds it, every complete node kept in a dict; then, for ``--proofs`` random leaves
(2,000; quick 200), each figure is timed call by call and printed as the median and the p99 in
ms:

- an inclusion proof of the leaf in the whole tree, read from the dict in one call
  (``inclusion_proof``): the pure compute, no store (the store-backed figure is measured
  with the store);
- its verification (``verify_inclusion``);
- a consistency proof from the leaf's tree size to the whole tree (``consistency_proof``);
- the root of the whole tree (``tree_root``).

Before them, the appends: leaves/s through ``RightEdge.append`` (the entry's hash included),
and the nodes stored per leaf. The leaves are picked by ``random.Random(--seed)``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from uuid import UUID

from domain.model.tlog.merkle import (
    RightEdge,
    consistency_proof,
    entry,
    inclusion_proof,
    leaf_hash,
    tree_root,
    verify_inclusion,
)

Nodes = dict[tuple[int, int], bytes]


@dataclass(frozen=True)
class Timing:
    """One operation's time per call."""

    median_ms: float
    p99_ms: float
    calls: int

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Timing:
        """Median and p99 (nearest rank) of per-call times in seconds."""
        ordered = sorted(seconds)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)))]
        return cls(statistics.median(ordered) * 1e3, p99 * 1e3, len(ordered))

    def text(self) -> str:
        """``median … ms, p99 … ms``."""
        return f"median {self.median_ms:.3f} ms, p99 {self.p99_ms:.3f} ms ({self.calls:,} calls)"


@dataclass(frozen=True)
class ProofFigures:
    """The tree's build rate and each proof's time per call."""

    leaves: int
    append_per_s: float
    nodes_per_leaf: float
    inclusion: Timing
    verify: Timing
    consistency: Timing
    root: Timing


def build_tree(leaves: int) -> tuple[Nodes, float, bytes]:
    """Every complete node of a tree of ``leaves`` events, the appends/s and the root."""
    campaign = UUID(int=47)
    started = time.perf_counter()
    edge = RightEdge()
    nodes: Nodes = {}
    for i in range(leaves):
        item = entry(campaign, i + 1, f"{i:064x}")
        for level, index, hash_ in edge.append(leaf_hash(item)):
            nodes[(level, index)] = hash_
    return nodes, leaves / (time.perf_counter() - started), edge.root()


def timed(calls: Sequence[Callable[[], object]]) -> Timing:
    """Each call's time, after one untimed warm-up call."""
    calls[0]()
    seconds = []
    for call in calls:
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return Timing.of(seconds)


def measure(leaves: int, proofs: int, seed: int) -> ProofFigures:
    """Build the tree, then time each operation for ``proofs`` random leaves."""
    nodes, rate, root = build_tree(leaves)

    def read(wanted: Sequence[tuple[int, int]]) -> list[bytes]:
        return [nodes[node] for node in wanted]

    rng = random.Random(seed)
    picks = [rng.randrange(leaves) for _ in range(proofs)]
    paths = {i: inclusion_proof(i, leaves, read) for i in picks}
    return ProofFigures(
        leaves=leaves,
        append_per_s=rate,
        nodes_per_leaf=len(nodes) / leaves,
        inclusion=timed([partial(inclusion_proof, i, leaves, read) for i in picks]),
        verify=timed(
            [partial(verify_inclusion, nodes[(0, i)], i, leaves, paths[i], root) for i in picks]
        ),
        consistency=timed([partial(consistency_proof, i + 1, leaves, read) for i in picks]),
        root=timed([partial(tree_root, leaves, read) for _ in picks]),
    )


def report(figures: ProofFigures) -> str:
    """The figures as lines of text."""
    return "\n".join(
        [
            f"a tree of {figures.leaves:,} leaves, every complete node in a dict (pure compute)",
            f"  appends (RightEdge.append, entry hashed): {figures.append_per_s:,.0f} leaves/s, "
            f"{figures.nodes_per_leaf:.2f} nodes stored per leaf",
            f"  inclusion proof of a random leaf: {figures.inclusion.text()}",
            f"  its verification:                 {figures.verify.text()}",
            f"  consistency proof to the tree:    {figures.consistency.text()}",
            f"  the tree's root:                  {figures.root.text()}",
        ]
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options; ``--quick`` makes the tree and the sample small."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.tlog.proofs", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="a small tree: a smoke run")
    parser.add_argument("--leaves", type=int, help="leaves of the tree (100,000; quick 2,000)")
    parser.add_argument("--proofs", type=int, help="random leaves timed (2,000; quick 200)")
    parser.add_argument("--seed", type=int, default=47, help="seed of the leaves picked")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    if args.leaves is None:
        args.leaves = 2_000 if args.quick else 100_000
    if args.proofs is None:
        args.proofs = 200 if args.quick else 2_000
    if args.leaves < 1 or args.proofs < 1:
        parser.error("--leaves and --proofs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the figures."""
    args = parse_args(argv)
    figures = measure(args.leaves, args.proofs, args.seed)
    print(report(figures))
    if args.json is not None:
        args.json.write_text(json.dumps(asdict(figures), indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
