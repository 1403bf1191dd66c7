"""The host's Merkle log on the stores: ``python -m bench.tlog.log_store``.

On SQLite and on PostgreSQL (``QUESTLOG_BENCH_DATABASE_URL``; ``--no-postgres`` leaves it out),
a store of ``--events`` events (100,000; ``--quick`` 3,000) is built through the domain, then:

- the integrator's rate: events/s appending the whole store to the tree (``app.transparency
  .integrate()``, a batch of 2,000 per transaction), and how many nodes and leaves it stored;
- a tlog-proof for ``--proofs`` random events (500; quick 100): the inclusion proof read from the
  store in one statement (``merkle.inclusion_proof`` over ``tlog_nodes``), and the whole
  ``app.transparency.tlog_proof(campaign)`` of a random campaign (two round trips: the latest
  checkpoint with its cosignatures and the campaign's leaf, then the proof's nodes), each as
  the median and p99 in ms beside the 5 ms target.

Then, on SQLite, the roll route (``POST /campaigns/{id}/rolls``, 8 clients) of two servers in
alternating rounds: one without the publisher, one whose publisher integrates and signs every
``--publish-seconds`` (1 s: five times as often as ``QUESTLOG_CHECKPOINT_SECONDS``' default),
their throughput side by side beside the 5 % target.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from bench.common.load import free_port, merge, run_load
from bench.common.server import create_bench_token
from bench.views.views_bench import build_log, postgres_config
from bench.write.http_bench import ROLL_BODY, LoggedServer, create_campaign
from domain.model.tlog import merkle
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig

PROOF_TARGET_MS = 5.0
ROLL_TARGET = 0.05


@dataclass(frozen=True)
class StoreFigures:
    """One store's figures."""

    store: str
    events: int
    build_seconds: float
    integrate_seconds: float
    integrate_rate: float
    inclusion_median_ms: float
    inclusion_p99_ms: float
    tlog_proof_median_ms: float
    tlog_proof_p99_ms: float
    proofs: int


def timed(calls: Sequence[Callable[[], object]]) -> tuple[float, float]:
    """Median and p99 (nearest rank) in ms of each call."""
    seconds = []
    for call in calls:
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)))]
    return statistics.median(ordered) * 1e3, p99 * 1e3


def measure_store(
    label: str, config: StoreConfig, events: int, proofs: int, seed: int
) -> StoreFigures:
    """Build the store, integrate it, then time the proofs."""
    app = Questlog(config)
    try:
        built = build_log(app, events)
        started = time.perf_counter()
        integrated = app.transparency.integrate()
        integrate_seconds = time.perf_counter() - started
        signed = app.transparency.publish(submit=False)
        assert signed is not None
        tables = app.side_tables
        chosen = random.Random(seed)
        size = signed.size
        indices = [chosen.randrange(size) for _ in range(proofs)]
        inclusion = timed(
            [lambda i=i: merkle.inclusion_proof(i, size, tables.tlog_nodes) for i in indices]
        )
        campaigns = [UUID(tables.tlog_leaves(i, i + 1)[0].campaign_id) for i in indices]
        whole = timed([lambda c=c: app.transparency.tlog_proof(c) for c in campaigns])
    finally:
        app.close()
    return StoreFigures(
        label,
        integrated,
        built,
        integrate_seconds,
        integrated / integrate_seconds,
        *inclusion,
        *whole,
        proofs,
    )


class BenchServer(LoggedServer):
    """``bench.common.server``'s app, with the publisher every ``publish`` seconds (or none)."""

    def __init__(self, workdir: Path, exempt: str, publish: float | None) -> None:
        self.label = f"the server ({'publisher' if publish else 'no publisher'})"
        self.port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        self.open_log(workdir / "server.log")
        code = (
            "import sys; from bench.tlog.log_store import serve; "
            "serve(sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))"
        )
        root = Path(__file__).resolve().parents[2]
        args = [str(workdir / "questlog.db"), str(self.port), exempt, str(publish or 0)]
        env = {**os.environ, "PYTHONPATH": str(root)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            cwd=root,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )


def serve(db: str, port: int, exempt: str, publish: float) -> None:
    """The app served as ``questlog serve`` serves it, its publisher on if ``publish`` > 0."""
    from waitress import serve as waitress_serve

    from domain.facade import Publisher
    from webapi.app import create_app
    from webapi.http.live import waitress_options

    questlog = Questlog(StoreConfig(sqlite_path=Path(db)))
    app = create_app(questlog, auth=True, rate_limit_exempt=[exempt])
    if publish > 0:
        Publisher(questlog.transparency, publish).start()
    waitress_serve(app, host="127.0.0.1", port=port, ident="questlog", **waitress_options(8, 8))


@dataclass(frozen=True)
class RollFigures:
    """The roll route without and with the publisher."""

    without_rps: float
    with_rps: float
    without_p99_ms: float
    with_p99_ms: float
    without_cpu_ms: float | None
    with_cpu_ms: float | None
    difference: float
    checkpoints_signed: int


def measure_rolls(workdir: Path, seconds: float, rounds: int, publish: float) -> RollFigures:
    """Alternate rounds of 8 rolling clients on the two servers."""
    servers: dict[str, BenchServer] = {}
    tokens: dict[str, str] = {}
    try:
        for name, every in (("without", None), ("with", publish)):
            folder = workdir / name
            folder.mkdir(parents=True, exist_ok=True)
            token_id, tokens[name] = create_bench_token(
                StoreConfig(sqlite_path=folder / "questlog.db")
            )
            servers[name] = BenchServer(folder, token_id, every)
        for server in servers.values():
            server.wait_ready()
        paths = {
            name: [
                f"/campaigns/{create_campaign(server.port, f'bench {i}', tokens[name])}/rolls"
                for i in range(8)
            ]
            for name, server in servers.items()
        }
        parts: dict[str, list[Any]] = {name: [] for name in servers}
        for _ in range(rounds):
            for name, server in servers.items():
                parts[name].append(
                    run_load(
                        name=name,
                        port=server.port,
                        paths=paths[name],
                        body=ROLL_BODY,
                        seconds=seconds / rounds,
                        server_pid=server.pid,
                        token=tokens[name],
                    )
                )
        runs = {name: merge(name, results) for name, results in parts.items()}
    finally:
        for server in servers.values():
            server.stop()
    with sqlite3.connect(workdir / "with" / "questlog.db") as connection:
        (count,) = connection.execute("SELECT count(*) FROM questlog_tlog_checkpoints").fetchone()
    without, with_ = runs["without"], runs["with"]
    return RollFigures(
        without.throughput,
        with_.throughput,
        without.percentile_ms(99),
        with_.percentile_ms(99),
        without.server_cpu_ms,
        with_.server_cpu_ms,
        with_.throughput / without.throughput - 1,
        count,
    )


def main(argv: list[str] | None = None) -> None:
    """Run the measurements and print them (``--json FILE`` too)."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a smoke run, not for the figures")
    parser.add_argument("--events", type=int, default=None)
    parser.add_argument("--proofs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=47)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-rolls", action="store_true", help="leave out the roll route")
    parser.add_argument("--seconds", type=float, default=None, help="roll load per server")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--publish-seconds", type=float, default=1.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    events = args.events or (3_000 if args.quick else 100_000)
    proofs = args.proofs or (100 if args.quick else 500)
    seconds = args.seconds or (2.0 if args.quick else 30.0)
    rounds = args.rounds or (1 if args.quick else 6)
    figures: dict[str, Any] = {"stores": []}
    with tempfile.TemporaryDirectory(prefix="bench-tlog-") as folder:
        work = Path(folder)
        configs: list[tuple[str, StoreConfig, Callable[[], None] | None]] = [
            ("sqlite", StoreConfig(sqlite_path=work / "store" / "questlog.db"), None)
        ]
        if not args.no_postgres:
            found = postgres_config(print)
            if found is None:
                sys.exit(1)
            configs.append(("postgres", found[0], found[1]))
        for label, config, drop in configs:
            print(f"{label}: building {events:,} events ...", flush=True)
            try:
                store = measure_store(label, config, events, proofs, args.seed)
            finally:
                if drop is not None:
                    drop()
            figures["stores"].append(asdict(store))
            print_store(store)
        if not args.no_rolls:
            print(
                f"roll route: {seconds:g} s per server in {rounds} alternating round(s) ...",
                flush=True,
            )
            rolls = measure_rolls(work / "rolls", seconds, rounds, args.publish_seconds)
            figures["rolls"] = asdict(rolls)
            print_rolls(rolls, args.publish_seconds)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def print_store(found: StoreFigures) -> None:
    """One store's lines."""
    print(
        f"  {found.store}: {found.events:,} events built in {found.build_seconds:.1f} s; "
        f"integrated in {found.integrate_seconds:.2f} s = {found.integrate_rate:,.0f} events/s"
    )
    print(
        f"  inclusion proof read from the store: median {found.inclusion_median_ms:.2f} ms, "
        f"p99 {found.inclusion_p99_ms:.2f} ms ({found.proofs} random events; target ≤ "
        f"{PROOF_TARGET_MS:g} ms: {verdict(found.inclusion_p99_ms <= PROOF_TARGET_MS)})"
    )
    print(
        f"  whole tlog-proof of a campaign's head: median {found.tlog_proof_median_ms:.2f} ms, "
        f"p99 {found.tlog_proof_p99_ms:.2f} ms "
        f"({verdict(found.tlog_proof_p99_ms <= PROOF_TARGET_MS)})",
        flush=True,
    )


def print_rolls(found: RollFigures, publish: float) -> None:
    """The roll route's lines."""
    cpu = ""
    if found.without_cpu_ms is not None and found.with_cpu_ms is not None:
        cpu = f"; server CPU {found.without_cpu_ms:.2f} vs {found.with_cpu_ms:.2f} ms/request"
    print(
        f"  without the publisher: {found.without_rps:,.0f} rolls/s (p99 "
        f"{found.without_p99_ms:.1f} ms); with it (every {publish:g} s, "
        f"{found.checkpoints_signed} checkpoints signed): {found.with_rps:,.0f} rolls/s (p99 "
        f"{found.with_p99_ms:.1f} ms){cpu}"
    )
    ok = found.difference >= -ROLL_TARGET
    print(f"  difference {found.difference:+.1%} (target within 5 %: {verdict(ok)})", flush=True)


if __name__ == "__main__":
    main()
