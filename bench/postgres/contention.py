"""Two ``questlog serve`` processes on one PostgreSQL schema, clients rolling on one campaign.

``python -m bench.postgres.contention`` (``--quick`` for a short run). Starts two real server
processes (``questlog serve --no-views``, loopback only) on a fresh schema of the PostgreSQL at
``QUESTLOG_BENCH_DATABASE_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``), creates
one campaign, and runs ``--clients`` keep-alive HTTP clients, half on each process, each posting
server d20 rolls with a purpose of its own for ``--seconds``. Access control is on, as deployed:
the run creates its own admin token in the schema and exempts exactly that token from the
per-token rate limit (``QUESTLOG_RATE_LIMIT_EXEMPT``), so that the load is delivered.

Prints, per process, the acknowledged rolls, every status seen, the p50/p99 and slowest request;
checks its targets (each process at least a quarter of the acknowledged rolls,
no 5xx, slowest request under 3 s); then reads the log back and checks that every acknowledged
roll is stored exactly once and the hash chain verifies. Exits non-zero when the benchmark itself
could not run, the load was not delivered (fewer than 99 % of the requests answered 201) or the
log is wrong; a missed target is printed as MISS.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import psycopg
from psycopg import sql
from rich.console import Console
from rich.table import Table

from bench.common.load import (
    HOST,
    MIN_SUCCESS,
    auth_headers,
    free_port,
    request_json,
    success_ratio,
)
from bench.common.server import create_bench_token
from domain.storage.store import StoreConfig

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"
SHARE_TARGET = 0.25
SLOWEST_TARGET_S = 3.0

console = Console(highlight=False, width=None if sys.stdout.isatty() else 132)


@dataclass
class ClientLog:
    """What one client saw: purpose -> status, and every latency."""

    process: int
    answers: dict[str, int] = field(default_factory=dict)
    latencies_ns: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Server:
    """``questlog serve`` in a subprocess on the shared schema."""

    def __init__(self, index: int, url: str, schema: str, workdir: Path, token_id: str) -> None:
        self.index = index
        self.port = free_port()
        self.log_path = workdir / f"server-{index}.log"
        self.log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        env = {
            **os.environ,
            "QUESTLOG_DATABASE_URL": url,
            "QUESTLOG_PG_SCHEMA": schema,
            "QUESTLOG_AUTH": "on",
            "QUESTLOG_RATE_LIMIT_EXEMPT": token_id,
        }
        command = [sys.executable, "-c", "from webapi.cli.main import main; main()"]
        command += ["serve", "--no-views"]
        command += ["--port", str(self.port)]
        root = Path(__file__).resolve().parents[2]
        self.process = subprocess.Popen(
            command, env=env, cwd=root, stdout=self.log, stderr=subprocess.STDOUT
        )

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server {self.index} exited; see {self.log_path}")
            try:
                status, _ = request_json(self.port, "GET", "/openapi.json", timeout=2)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"server {self.index} did not start in {timeout:.0f} s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def client(
    log: ClientLog,
    port: int,
    path: str,
    name: str,
    start: threading.Barrier,
    end: list[float],
    token: str,
) -> None:
    """Post rolls until the deadline, each with a purpose no other request has."""
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    headers = {"Content-Type": "application/json", **auth_headers(token)}
    start.wait()
    n = 0
    try:
        while time.perf_counter() < end[0]:
            purpose = f"{name}-{n}"
            n += 1
            body = json.dumps({"dice": "d20", "purpose": purpose}).encode()
            began = time.perf_counter_ns()
            conn.request("POST", path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            log.latencies_ns.append(time.perf_counter_ns() - began)
            log.answers[purpose] = response.status
            if response.will_close:
                conn.close()
                conn = http.client.HTTPConnection(HOST, port, timeout=60)
    except Exception as exc:  # reported; the run is then a failure
        log.errors.append(f"{name}: {type(exc).__name__}: {exc}")
    finally:
        conn.close()


def percentile_ms(latencies: list[int], q: float) -> float:
    if not latencies:
        return float("nan")
    ordered = sorted(latencies)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1] / 1e6


def stored_purposes(url: str, schema: str, campaign_id: str) -> tuple[Counter[str], bool]:
    """Every stored roll's purpose, counted, and whether the chain verifies (read directly)."""
    from domain.service.questlog import Questlog

    app = Questlog(StoreConfig(database_url=url, postgres_schema=schema))
    try:
        cid = UUID(campaign_id)
        counts: Counter[str] = Counter(
            record["purpose"]
            for event in app.campaign_events(cid)
            for record in getattr(event, "rolls", None) or []
        )
        return counts, app.reading.audit(cid).chain_ok
    finally:
        app.close()


def run(seconds: float, clients: int, url: str) -> int:
    schema = f"bench_{secrets.token_hex(5)}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    workdir = Path(tempfile.mkdtemp(prefix="questlog-contention-"))
    servers: list[Server] = []
    try:
        token_id, token = create_bench_token(StoreConfig(database_url=url, postgres_schema=schema))
        console.print(
            f"access control on; the rate limit does not count this run's admin token {token_id} "
            "(QUESTLOG_RATE_LIMIT_EXEMPT), so that the load is delivered"
        )
        servers = [Server(i, url, schema, workdir, token_id) for i in range(2)]
        for server in servers:
            server.wait_ready()
        status, created = request_json(
            servers[0].port,
            "POST",
            "/campaigns",
            {"game": "quest-calendar", "name": "contention"},
            token=token,
        )
        if status != 201:
            raise RuntimeError(f"creating the campaign answered {status}: {created}")
        path = f"/campaigns/{created['id']}/rolls"
        logs = [ClientLog(process=i % 2) for i in range(clients)]
        start = threading.Barrier(clients + 1)
        end = [0.0]
        threads = [
            threading.Thread(
                target=client,
                args=(log, servers[log.process].port, path, f"c{i}", start, end, token),
                daemon=True,
            )
            for i, log in enumerate(logs)
        ]
        for thread in threads:
            thread.start()
        end[0] = time.perf_counter() + seconds
        start.wait()
        for thread in threads:
            thread.join()
        stored, chain_ok = stored_purposes(url, schema, created["id"])
        return report(logs, stored, chain_ok, seconds)
    finally:
        for server in servers:
            server.stop()
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
        console.print(f"server logs: {workdir}")


def report(logs: list[ClientLog], stored: Counter[str], chain_ok: bool, seconds: float) -> int:
    """Print the figures and the checks; non-zero if the log is wrong or a client failed."""
    table = Table(title=f"Two processes, {len(logs)} clients, one campaign, {seconds:.0f} s")
    for column in (
        "process",
        "acknowledged",
        "share",
        "statuses",
        "p50 ms",
        "p99 ms",
        "slowest ms",
    ):
        table.add_column(column, justify="right")
    acked = {
        p: sum(1 for log in logs if log.process == p for s in log.answers.values() if s == 201)
        for p in (0, 1)
    }
    total = sum(acked.values()) or 1
    for process in (0, 1):
        mine = [log for log in logs if log.process == process]
        statuses = Counter(s for log in mine for s in log.answers.values())
        latencies = [ns for log in mine for ns in log.latencies_ns]
        table.add_row(
            str(process),
            str(acked[process]),
            f"{acked[process] / total:.0%}",
            ", ".join(f"{s}: {n}" for s, n in sorted(statuses.items())),
            f"{percentile_ms(latencies, 50):.1f}",
            f"{percentile_ms(latencies, 99):.1f}",
            f"{max(latencies, default=0) / 1e6:.0f}",
        )
    console.print(table)
    every = [ns for log in logs for ns in log.latencies_ns]
    fivexx = sum(1 for log in logs for s in log.answers.values() if s >= 500)
    slowest_s = max(every, default=0) / 1e9
    share = min(acked.values()) / total
    checks = [
        (
            f"each process >= {SHARE_TARGET:.0%} of the acknowledged rolls",
            share >= SHARE_TARGET,
            f"{share:.0%}",
        ),
        ("no 5xx", fivexx == 0, str(fivexx)),
        (
            f"slowest request < {SLOWEST_TARGET_S:.0f} s",
            slowest_s < SLOWEST_TARGET_S,
            f"{slowest_s:.2f} s",
        ),
    ]
    for text, ok, figure in checks:
        console.print(f"{'PASS' if ok else 'MISS'}  {text}: {figure}")
    answered = {purpose: status for log in logs for purpose, status in log.answers.items()}
    wrong = [
        p
        for p, s in answered.items()
        if (s == 201 and stored[p] != 1) or (s != 201 and stored[p] > 1)
    ]
    errors = [e for log in logs for e in log.errors]
    console.print(
        f"acknowledged rolls stored exactly once: {not wrong} ({len(wrong)} wrong); "
        f"chain verifies: {chain_ok}"
    )
    other = {k: v for k, v in Counter(answered.values()).items() if k != 201}
    if other:
        console.print(f"answers other than 201: {dict(other)}")
    for error in errors:
        console.print(f"client error: {error}")
    success = success_ratio(Counter(answered.values()), len(errors))
    delivered = success >= MIN_SUCCESS
    console.print(
        f"{'delivered' if delivered else 'FAILED: not delivered'}: {success:.1%} of the requests "
        f"answered 201 (at least {MIN_SUCCESS:.0%} needed for the figures to count)"
    )
    return 1 if wrong or not chain_ok or errors or not delivered else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.postgres.contention", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=15.0, help="measured seconds (default 15)")
    parser.add_argument("--clients", type=int, default=8, help="HTTP clients, half per process")
    parser.add_argument("--quick", action="store_true", help="a 3-second smoke run")
    args = parser.parse_args(argv)
    url = os.environ.get("QUESTLOG_BENCH_DATABASE_URL", DEFAULT_URL)
    seconds = 3.0 if args.quick else args.seconds
    if args.clients < 2:
        parser.error("need --clients >= 2 (half on each process)")
    return run(seconds, args.clients, url)


if __name__ == "__main__":
    sys.exit(main())
