"""The server's memory after audits: ``python -m bench.reads.audit_memory``.

A SQLite store with one campaign of ``--events`` rolls (30,000 by default) is built in-process; a
real ``questlog serve`` (waitress, 8 request threads, access control on) is started on it. Its
resident set (``VmRSS`` of ``/proc/PID/status``) is read after a first warm-up read, then after
``--audits`` audits of the campaign (20 by default), sent by ``--clients`` clients at once (4) so
that they land on different request threads, as a table's audits would. The growth is printed
beside its target: at most 150 MB above the start.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.common.load import free_port
from bench.common.server import create_bench_token
from bench.write.http_bench import LoggedServer
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig

QUESTLOG = [sys.executable, "-c", "from webapi.cli.main import main; main()"]
"""The ``questlog`` command, run by this interpreter."""
TARGET_MB = 150
"""The largest growth of the server's resident set after the audits."""


def rss_mb(pid: int) -> float:
    """The process's resident set, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def build(db: Path, events: int) -> str:
    """A store with one campaign of ``events`` events; its id."""
    app = Questlog(StoreConfig(sqlite_path=db))
    try:
        result: Any = app.campaigns.create_campaign(game="quest-calendar", name="long")
        cid = str(result.campaign_id)
        for _ in range(events - 1):
            app.dice.roll(result.campaign_id, notation="d20", purpose="length")
        return cid
    finally:
        app.close()


def get(port: int, path: str, token: str, timeout: float = 120) -> int:
    """A GET's status (the body is read and dropped)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        answer.read()
        return int(answer.status)


@dataclass
class Run:
    """The figures of one run."""

    events: int
    audits: int
    start_mb: float
    end_mb: float
    peak_mb: float
    seconds_per_audit: float

    @property
    def growth_mb(self) -> float:
        return self.end_mb - self.start_mb


class QuestlogServe(LoggedServer):
    """``questlog serve`` on a store, its output in a log file (``bench.write.http_bench``)."""

    label = "questlog serve"

    def __init__(self, db: Path, log: Path) -> None:
        self.port = free_port()
        self.open_log(log)
        self.process = subprocess.Popen(
            [*QUESTLOG, "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env={**os.environ, "QUESTLOG_DB": str(db)},
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )


def measure(folder: Path, *, events: int, audits: int, clients: int) -> Run:
    """Build the store, serve it, audit it; the server's RSS before and after."""
    db = folder / "questlog.db"
    cid = build(db, events)
    _, token = create_bench_token(StoreConfig(sqlite_path=db))
    server = QuestlogServe(db, folder / "serve.log")
    try:
        server.wait_ready()
        port = server.port
        get(port, f"/campaigns/{cid}", token)  # the first read: what every table does
        start = rss_mb(server.pid)
        peak = start
        left = list(range(audits))
        lock = threading.Lock()
        failures: list[str] = []

        def client() -> None:
            nonlocal peak
            while True:
                with lock:
                    if not left:
                        return
                    left.pop()
                try:
                    status = get(port, f"/campaigns/{cid}/audit", token)
                    if status != 200:
                        failures.append(f"audit answered {status}")
                except OSError as error:
                    failures.append(str(error))
                with lock:
                    peak = max(peak, rss_mb(server.pid))

        began = time.monotonic()
        threads = [threading.Thread(target=client) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.monotonic() - began
        if failures:
            raise RuntimeError(f"{len(failures)} audits failed: {failures[0]}")
        time.sleep(0.5)
        end = rss_mb(server.pid)
        return Run(events, audits, start, end, peak, took * clients / audits)
    finally:
        server.stop()


def audit_memory_json(run: Run) -> dict[str, Any]:
    """The figures for ``bench.run --json``."""
    return {**asdict(run), "growth_mb": run.growth_mb, "target_mb": TARGET_MB}


def audit_memory_line(run: Run, clients: int) -> str:
    """The figures in one line, beside the target."""
    verdict = "PASS" if run.growth_mb <= TARGET_MB else "MISS"
    return (
        f"RSS after {run.audits} audits of {run.events:,} events ({clients} at once): "
        f"{run.start_mb:.0f} MB at the start, {run.end_mb:.0f} MB after (peak {run.peak_mb:.0f}): "
        f"+{run.growth_mb:.0f} MB, target <= +{TARGET_MB} MB {verdict}; "
        f"{run.seconds_per_audit:.2f} s per audit"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reads.audit_memory", description=__doc__)
    parser.add_argument("--events", type=int, default=30_000, help="events of the campaign")
    parser.add_argument("--audits", type=int, default=20)
    parser.add_argument("--clients", type=int, default=4, help="audits sent at once")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 2,000 events, 4 audits")
    args = parser.parse_args(argv)
    if args.quick:
        args.events, args.audits = 2_000, 4
    console = Console(width=120)
    console.print(f"building a campaign of {args.events:,} events…")
    with tempfile.TemporaryDirectory(prefix="questlog-audit-memory-") as folder:
        run = measure(Path(folder), events=args.events, audits=args.audits, clients=args.clients)
    console.print(audit_memory_line(run, args.clients))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
