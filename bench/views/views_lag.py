"""Part (d), the lag: the embedded views under a steady command rate through the API.

``questlog serve`` (waitress, 8 threads, the views embedded, as deployed) runs on a fresh SQLite
store, and this process sends an open-loop load of ``POST /campaigns/{id}/rolls``: request ``k``
is sent at ``start + k / rate`` whatever the earlier ones did, one campaign and one keep-alive
connection per client thread. A poller reads the views' positions and the log's head every
10 ms; the lag of a command is the time from its 201 to the first poll that saw every view at or
past its event (looked up by campaign and version), measured on every fifth command.

Access control is on, as deployed: the benchmark creates an admin token on the store before the
server starts and sends it with every request, and sets ``QUESTLOG_RATE_LIMIT_EXEMPT`` to that
token's id, because the per-token rate limit (50 appends/s by default) would refuse most of a
500/s load with 429. Every status is counted; below ``MIN_SUCCESS`` of the scheduled commands
answered 201 the load was not delivered, and the lag gets no verdict; nor does it when the
commands went out at under ``MIN_RATE_SHARE`` of the target rate (slow answers hold the clients).
"""

from __future__ import annotations

import http.client
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from bench.common.load import (
    MIN_SUCCESS,
    request_on,
    statuses_text,
    success_ratio,
)
from bench.common.server import create_bench_token
from domain.facade import LogPosition
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from projections.reads import position_of
from projections.store import open_view_store, position_in
from projections.views import ALL_VIEWS

Progress = Callable[[str], None]
MIN_RATE_SHARE = 0.9
"""The share of the target rate the commands must go out at for the lag to get a verdict."""


@dataclass
class Lag:
    """The lag of the embedded views under a steady command rate."""

    target_rate: float
    seconds: float
    sent: int
    ok: int
    achieved_rate: float
    latency_p50_ms: float
    latency_p99_ms: float
    lags_s: list[float] = field(default_factory=list)
    max_events_behind: int = 0
    unmeasured: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    rate_limit_exempt: bool = True

    @property
    def success(self) -> float:
        """The share of the scheduled commands answered 201."""
        return success_ratio(self.statuses, len(self.errors))

    @property
    def delivered(self) -> bool:
        """Whether enough of the commands were answered 201 for the lag to mean anything."""
        return self.sent > 0 and self.success >= MIN_SUCCESS

    @property
    def on_schedule(self) -> bool:
        """Whether the commands went out at (nearly) the target rate: a client that waits for slow
        answers sends late, and the lag is then measured under a lighter load."""
        return self.achieved_rate >= MIN_RATE_SHARE * self.target_rate

    def shortfall(self) -> str | None:
        """Why this load was not the one asked for (no verdict then), or None."""
        reasons = []
        if not self.delivered:
            reasons.append(
                f"only {self.success:.1%} of the {self.sent:,} commands answered 201 "
                f"({self.statuses_text()})"
            )
        if not self.on_schedule:
            reasons.append(
                f"the commands went out at {self.achieved_rate:,.0f}/s, under "
                f"{MIN_RATE_SHARE:.0%} of the target {self.target_rate:g}/s"
            )
        return "; ".join(reasons) or None

    def statuses_text(self) -> str:
        """Every status seen, with the transport errors."""
        return statuses_text(self.statuses, len(self.errors))

    def lag(self, q: float) -> float:
        """A percentile of the lag, in seconds (nearest rank)."""
        if not self.lags_s:
            return float("nan")
        ordered = sorted(self.lags_s)
        return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))]


# -- driving the server ---------------------------------------------------------------------------


def lag_verdict(lag: Lag, target_s: float) -> bool | None:
    """PASS (True) or MISS (False) for the p99 lag; None, no verdict, when the load was not the
    one asked for (fewer than ``MIN_SUCCESS`` of the commands answered 201, or sent too slowly)."""
    if lag.shortfall() is not None:
        return None
    return lag.lag(99) < target_s and not lag.unmeasured


def _request(
    conn: http.client.HTTPConnection, method: str, path: str, token: str, body: Any = None
) -> tuple[int, Any]:
    return request_on(conn, method, path, body, token)


def _serve(workdir: Path, port: int, exempt: str | None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "QUESTLOG_DB": str(workdir / "served.db"), "QUESTLOG_AUTH": "on"}
    for name in ("QUESTLOG_DATABASE_URL", "QUESTLOG_VIEWS_DB", "QUESTLOG_RATE_LIMIT_EXEMPT"):
        env.pop(name, None)
    if exempt is not None:
        env["QUESTLOG_RATE_LIMIT_EXEMPT"] = exempt
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    command = [sys.executable, "-c", "from webapi.cli.main import main; main()", "serve"]
    log = open(workdir / "serve.log", "wb")  # noqa: SIM115 - the child keeps it
    return subprocess.Popen(
        [*command, "--port", str(port)], cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT
    )


def measure_lag(
    workdir: Path,
    port: int,
    *,
    rate: float,
    seconds: float,
    clients: int,
    note: Progress,
    exempt: bool = True,
) -> Lag:
    """Steady ``rate`` rolls/s through ``questlog serve``; the lag of the embedded views.

    ``exempt=False`` leaves the benchmark's token under the rate limit (to test that a load the
    server refuses gets no verdict).
    """
    workdir.mkdir(parents=True, exist_ok=True)
    token_id, token = create_bench_token(StoreConfig(sqlite_path=workdir / "served.db"))
    if exempt:
        note(
            f"access control on, as deployed; the rate limit does not count this run's token "
            f"{token_id} (QUESTLOG_RATE_LIMIT_EXEMPT), so that the load is delivered"
        )
    else:
        note(f"access control on; this run's token {token_id} is under the rate limit")
    server = _serve(workdir, port, token_id if exempt else None)
    try:
        deadline = time.monotonic() + 30
        last = "no answer"
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                status, _ = _request(conn, "GET", "/projections", token)
                conn.close()
                if status == 200:
                    break
                last = f"GET /projections answered {status}"
            except OSError as error:
                last = f"{type(error).__name__}: {error}"
            if time.monotonic() > deadline or server.poll() is not None:
                log = (workdir / "serve.log").read_text(encoding="utf-8", errors="replace")
                tail = "\n".join(log.splitlines()[-15:])
                raise RuntimeError(f"questlog serve did not start ({last}); serve.log:\n{tail}")
            time.sleep(0.1)
        lag = _drive(workdir, port, token, rate=rate, seconds=seconds, clients=clients, note=note)
        lag.rate_limit_exempt = exempt
        return lag
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def _drive(
    workdir: Path,
    port: int,
    token: str,
    *,
    rate: float,
    seconds: float,
    clients: int,
    note: Progress,
) -> Lag:
    config = StoreConfig(sqlite_path=workdir / "served.db")
    app = Questlog(config)
    store = open_view_store(config)
    names = [view.name for view in ALL_VIEWS]
    try:
        conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=30) for _ in range(clients)]
        cids = []
        for i, conn in enumerate(conns):
            status, body = _request(
                conn, "POST", "/campaigns", token, {"game": "quest-calendar", "name": f"{i}"}
            )
            if status != 201:
                raise RuntimeError(f"POST /campaigns answered {status}: {body}")
            cids.append(body["id"])
        samples: list[tuple[float, LogPosition, int]] = []
        stop = threading.Event()

        def poll() -> None:
            while not stop.is_set():
                positions = store.positions()
                lowest = min(position_in(positions.get(n)) for n in names)
                head = int(app.recorder.max_notification_id() or 0)
                samples.append((time.perf_counter(), lowest, head))
                stop.wait(0.01)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        total = int(rate * seconds)
        sent: list[list[tuple[float, int, str, int]]] = [[] for _ in range(clients)]
        errors: list[str] = []
        latencies: list[float] = []
        start = time.perf_counter() + 0.2
        note(f"lag: {rate:g} rolls/s for {seconds:g} s, {clients} clients, views embedded")

        def client(index: int) -> None:
            conn, cid, mine = conns[index], cids[index], sent[index]
            for k in range(index, total, clients):
                due = start + k / rate
                pause = due - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
                began = time.perf_counter()
                try:
                    status, body = _request(
                        conn, "POST", f"/campaigns/{cid}/rolls", token, {"dice": "d20"}
                    )
                except (OSError, http.client.HTTPException, ValueError) as error:
                    errors.append(f"client {index}: {type(error).__name__}: {error}")
                    conn.close()  # http.client connects again on the next request
                    continue
                done = time.perf_counter()
                latencies.append(done - began)
                version = body.get("version", 0) if status == 201 and body else 0
                mine.append((done, status, cid, int(version)))

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        time.sleep(1.5)
        stop.set()
        poller.join()
        for conn in conns:
            conn.close()
        replies = [reply for per_client in sent for reply in per_client]
        ok = [r for r in replies if r[1] == 201]
        lags, unmeasured = [], 0
        for done, _status, cid, version in ok[::5]:
            position = position_of(app, UUID(cid), version)
            reached = next((t for t, low, _ in samples if position and low >= position), None)
            if reached is None:
                unmeasured += 1
            else:
                lags.append(max(0.0, reached - done))
        latencies.sort()
        return Lag(
            target_rate=rate,
            seconds=elapsed,
            sent=len(replies) + len(errors),
            ok=len(ok),
            achieved_rate=len(replies) / elapsed,
            latency_p50_ms=statistics.median(latencies) * 1e3 if latencies else float("nan"),
            latency_p99_ms=latencies[int(0.99 * (len(latencies) - 1))] * 1e3
            if latencies
            else float("nan"),
            lags_s=lags,
            max_events_behind=max((head - low.notification for _, low, head in samples), default=0),
            unmeasured=unmeasured,
            statuses=Counter(reply[1] for reply in replies),
            errors=errors,
        )
    finally:
        store.close()
        app.close()
