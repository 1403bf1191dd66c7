"""A closed-loop HTTP load generator: N keep-alive ``http.client`` connections, one thread each.

Each client thread sends a request, reads the whole response, records the latency it saw
(``perf_counter_ns`` around the round trip) and the status, and sends the next one, until the
deadline or its request budget. A transport error is counted, and the client reconnects and goes
on. Every request carries the benchmark's bearer token. Load goes only to 127.0.0.1.

A load that is not delivered is a failed measurement: below ``MIN_SUCCESS`` of the requests
answered with the expected status, a part prints FAILED and no verdict.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import statistics
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

HOST = "127.0.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")
MIN_SUCCESS = 0.99
"""The share of requests that must succeed for a load's figures to mean anything."""


def auth_headers(token: str | None) -> dict[str, str]:
    """The ``Authorization`` header for a bearer token (none without one)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def statuses_text(statuses: Counter[int], errors: int) -> str:
    """Every status seen, and the transport errors: ``201: 4,990, 429: 10, errors: 0``."""
    seen = [f"{status}: {count:,}" for status, count in sorted(statuses.items())]
    return ", ".join([*seen, f"transport errors: {errors:,}"])


def success_ratio(statuses: Counter[int], errors: int, expected: int = 201) -> float:
    """The share of requests answered ``expected`` (transport errors count as failures)."""
    total = sum(statuses.values()) + errors
    return statuses[expected] / total if total else 0.0


@dataclass
class LoadResult:
    """What one measured run produced."""

    name: str
    clients: int
    seconds: float
    latencies_ns: list[int]
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    server_cpu: float | None = None
    client_cpu: float | None = None
    machine_cpu: float | None = None

    @property
    def server_cpu_ms(self) -> float | None:
        """Server CPU time per request, in milliseconds (steadier than req/s on a busy machine)."""
        if self.server_cpu is None or not self.requests:
            return None
        return self.server_cpu * self.seconds / self.requests * 1e3

    @property
    def other_cpu(self) -> float | None:
        """Cores used by everything but the server and this process (other work disturbing)."""
        if self.machine_cpu is None or self.server_cpu is None or self.client_cpu is None:
            return None
        return max(0.0, self.machine_cpu - self.server_cpu - self.client_cpu)

    @property
    def requests(self) -> int:
        """Completed round trips (any status)."""
        return len(self.latencies_ns)

    @property
    def throughput(self) -> float:
        """Completed requests per second over the measured window."""
        return self.requests / self.seconds if self.seconds > 0 else 0.0

    def percentile_ms(self, q: float) -> float:
        """Latency percentile in milliseconds (nearest rank)."""
        if not self.latencies_ns:
            return float("nan")
        ordered = sorted(self.latencies_ns)
        rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
        return ordered[rank - 1] / 1e6

    @property
    def mean_ms(self) -> float:
        """Mean latency in milliseconds."""
        return statistics.fmean(self.latencies_ns) / 1e6 if self.latencies_ns else float("nan")

    def failures(self, expected: int) -> int:
        """Responses with another status than ``expected``, plus transport errors."""
        return sum(n for s, n in self.statuses.items() if s != expected) + len(self.errors)

    @property
    def success(self) -> float:
        """The share of requests answered 201."""
        return success_ratio(self.statuses, len(self.errors))

    @property
    def delivered(self) -> bool:
        """Whether enough of the load succeeded for its figures to count."""
        return self.success >= MIN_SUCCESS


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def request_json(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    timeout: float = 30.0,
    token: str | None = None,
) -> tuple[int, Any]:
    """One request on a fresh connection; returns the status and the decoded JSON body."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        return request_on(conn, method, path, body, token)
    finally:
        conn.close()


def request_on(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
) -> tuple[int, Any]:
    """One request on an open connection (kept open); returns the status and the decoded JSON
    body."""
    payload = None if body is None else json.dumps(body).encode()
    headers = auth_headers(token)
    if payload is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=payload, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    return response.status, (json.loads(raw) if raw else None)


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), or None where unavailable."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def machine_busy_seconds() -> float | None:
    """CPU seconds all processes have used since boot, over every core (Linux /proc/stat)."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    # user nice system idle iowait irq softirq steal ...
    busy = sum(int(fields[i]) for i in (1, 2, 3, 6, 7, 8) if i < len(fields))
    return busy / CLK_TCK


@runtime_checkable
class BodySequence(Protocol):
    """Bodies that change from request to request: each path's next one (each path is one
    client's, so a sequence is asked from one thread per path)."""

    def next_body(self, path: str) -> bytes: ...


def run_load(
    *,
    name: str,
    port: int,
    paths: Sequence[str],
    body: Any,
    seconds: float,
    max_requests: int | None = None,
    server_pid: int | None = None,
    timeout: float = 30.0,
    token: str | None = None,
) -> LoadResult:
    """Drive ``len(paths)`` keep-alive clients (client i posts to ``paths[i]``) for ``seconds``;
    ``body`` is posted as JSON, or a ``BodySequence`` gives each request's bytes.

    The window starts when every client is connected and released together, and ends when the
    last client has finished its last request. ``max_requests`` caps the total across clients.
    """
    sequence = body if isinstance(body, BodySequence) else None
    payload = json.dumps(body).encode() if sequence is None else b""
    headers = {
        "Content-Type": "application/json",
        "Connection": "keep-alive",
        **auth_headers(token),
    }
    clients = len(paths)
    latencies: list[list[int]] = [[] for _ in range(clients)]
    statuses: list[Counter[int]] = [Counter() for _ in range(clients)]
    errors: list[str] = []
    budget = [max_requests if max_requests is not None else -1]
    budget_lock = threading.Lock()
    start_barrier = threading.Barrier(clients + 1)
    deadline = [0.0]

    def take_ticket() -> bool:
        if budget[0] < 0:
            return True
        with budget_lock:
            if budget[0] == 0:
                return False
            budget[0] -= 1
            return True

    def client(index: int) -> None:
        conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        try:
            conn.connect()
        except OSError as exc:  # counted; the first request connects again
            errors.append(f"client {index}: {type(exc).__name__}: {exc}")
        mine = latencies[index]
        seen = statuses[index]
        path = paths[index]
        clock = time.perf_counter_ns
        start_barrier.wait()
        end = deadline[0]
        try:
            while time.perf_counter() < end and take_ticket():
                began = clock()
                sent = payload if sequence is None else sequence.next_body(path)
                try:
                    conn.request("POST", path, body=sent, headers=headers)
                    response = conn.getresponse()
                    response.read()
                except Exception as exc:  # counted; the load goes on on a new connection
                    errors.append(f"client {index}: {type(exc).__name__}: {exc}")
                    conn.close()
                    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
                    time.sleep(0.01)  # a dead server is not hammered in a tight loop
                    continue
                mine.append(clock() - began)
                seen[response.status] += 1
                if response.will_close:
                    conn.close()
                    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for thread in threads:
        thread.start()
    server_cpu_before = process_cpu_seconds(server_pid) if server_pid else None
    client_cpu_before = _own_cpu()
    machine_before = machine_busy_seconds()
    began = time.perf_counter()
    deadline[0] = began + seconds
    start_barrier.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    server_cpu_after = process_cpu_seconds(server_pid) if server_pid else None
    machine_after = machine_busy_seconds()
    result = LoadResult(
        name=name,
        clients=clients,
        seconds=elapsed,
        latencies_ns=[ns for per_client in latencies for ns in per_client],
        errors=errors,
    )
    for counter in statuses:
        result.statuses.update(counter)
    if server_cpu_before is not None and server_cpu_after is not None:
        result.server_cpu = (server_cpu_after - server_cpu_before) / elapsed
    result.client_cpu = (_own_cpu() - client_cpu_before) / elapsed
    if machine_before is not None and machine_after is not None:
        result.machine_cpu = (machine_after - machine_before) / elapsed
    return result


def _own_cpu() -> float:
    times = os.times()
    return times.user + times.system


def merge(name: str, parts: Sequence[LoadResult]) -> LoadResult:
    """Several runs of one route as one: all latencies, total requests over total time."""
    seconds = sum(part.seconds for part in parts)
    merged = LoadResult(
        name=name,
        clients=parts[0].clients,
        seconds=seconds,
        latencies_ns=[ns for part in parts for ns in part.latencies_ns],
        errors=[error for part in parts for error in part.errors],
    )
    for part in parts:
        merged.statuses.update(part.statuses)
    merged.server_cpu = _time_weighted([(p.server_cpu, p.seconds) for p in parts])
    merged.client_cpu = _time_weighted([(p.client_cpu, p.seconds) for p in parts])
    merged.machine_cpu = _time_weighted([(p.machine_cpu, p.seconds) for p in parts])
    return merged


def _time_weighted(values: Sequence[tuple[float | None, float]]) -> float | None:
    """The time-weighted mean of per-run rates, or None if any run lacks one."""
    total = sum(seconds for _, seconds in values)
    known = [(value, seconds) for value, seconds in values if value is not None]
    if total <= 0 or len(known) != len(values):
        return None
    return sum(value * seconds for value, seconds in known) / total
