"""Part (a) of the benchmark: the roll route against a bare route, through one server process.

``python -m bench.common.server`` (the production stack plus ``POST /bench/bare``) runs in a
subprocess on a fresh SQLite store, with access control on and this run's own admin token, the one
token the rate limit does not count; keep-alive clients in threads of this process load each route
in turn (``bench/common/load.py``). Every status is counted; a route with fewer than 99 % of its
requests answered 201 fails the part.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.common.load import (
    LoadResult,
    free_port,
    merge,
    request_json,
    run_load,
    statuses_text,
)
from bench.common.server import BARE_PATH, READY_PATH, create_bench_token
from domain.storage.store import StoreConfig

ROLL_BODY = {"dice": "d20", "purpose": "bench"}


class BenchError(RuntimeError):
    """The benchmark could not measure (as opposed to a figure that misses its target)."""


class LoggedServer:
    """A server subprocess of ours, its output in a log file: waiting for it to answer, the end
    of its log, and stopping it by its pid. Subclasses start ``process`` on ``port``."""

    label = "the server"
    stop_timeout = 10.0
    poll_interval = 0.05
    ready_path = READY_PATH
    process: subprocess.Popen[bytes]
    port: int

    def open_log(self, path: Path) -> None:
        """The file the server's output goes to (closed in ``stop``)."""
        self.log_path = path
        self.log = open(path, "wb")  # noqa: SIM115 - closed in stop()

    @property
    def pid(self) -> int:
        """The server's process id."""
        return self.process.pid

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until the server answers, or fail with its log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BenchError(
                    f"{self.label} exited with {self.process.returncode}:\n{self.tail()}"
                )
            try:
                status, _ = request_json(self.port, "GET", self.ready_path, timeout=5)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(self.poll_interval)
        raise BenchError(f"{self.label} did not answer within {timeout:.0f} s:\n{self.tail()}")

    def tail(self, lines: int = 30) -> str:
        """The end of the server's log."""
        self.log.flush()
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Terminate the server (it is ours, and so are its workers) and close its log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class ServerProcess(LoggedServer):
    """``python -m bench.common.server`` in a subprocess, its output in a log file."""

    def __init__(self, workdir: Path, threads: int, exempt: str) -> None:
        self.port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        self.open_log(workdir / "server.log")
        command = [
            sys.executable,
            "-m",
            "bench.common.server",
            "--db",
            str(workdir / "questlog.db"),
            "--bare-db",
            str(workdir / "bare.db"),
            "--port",
            str(self.port),
            "--threads",
            str(threads),
            "--rate-limit-exempt",
            exempt,
        ]
        root = Path(__file__).resolve().parents[2]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])),
        }
        self.process = subprocess.Popen(
            command, cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT
        )


@dataclass
class HttpResult:
    """Part (a): the runs, keyed by name, the warm-ups, and the consistency check of the shared
    campaign."""

    runs: dict[str, LoadResult]
    warmups: dict[str, LoadResult]
    versions_ok: bool
    version_note: str

    def failure(self) -> str | None:
        """Why the part failed (a load not delivered, a wrong version), or None."""
        reasons = [
            f"{run.name}: only {run.success:.1%} of the requests answered 201 "
            f"({statuses_text(run.statuses, len(run.errors))}; first errors: {run.errors[:2]})"
            for run in [*self.warmups.values(), *self.runs.values()]
            if not run.delivered
        ]
        if not self.versions_ok:
            reasons.append(self.version_note)
        return "; ".join(reasons) or None


def create_campaign(port: int, name: str, token: str) -> str:
    """A campaign created through the API; returns its id."""
    status, body = request_json(
        port,
        "POST",
        "/campaigns",
        {"game": "quest-calendar", "name": name, "house_rules": {}},
        token=token,
    )
    if status != 201:
        raise BenchError(f"POST /campaigns answered {status}: {body}")
    return str(body["id"])


def measure_http(
    workdir: Path,
    *,
    threads: int,
    clients: int,
    warmup: float,
    seconds: float,
    rounds: int,
    extras: bool,
    note: Callable[[str], None],
) -> HttpResult:
    """Start the server, load the bare route and the roll route, stop the server."""
    workdir.mkdir(parents=True, exist_ok=True)
    token_id, token = create_bench_token(StoreConfig(sqlite_path=workdir / "questlog.db"))
    note(
        f"access control on, as deployed: every request carries this run's admin token "
        f"{token_id}; the rate limit does not count that token (QUESTLOG_RATE_LIMIT_EXEMPT), "
        "so that the load is delivered"
    )
    server = ServerProcess(workdir, threads, token_id)
    try:
        server.wait_ready()
        shared = create_campaign(server.port, "bench: shared campaign", token)
        plans: list[tuple[str, list[str]]] = [
            ("bare", [BARE_PATH] * clients),
            ("roll", [f"/campaigns/{shared}/rolls"] * clients),
        ]
        if extras:
            own = [
                create_campaign(server.port, f"bench: client {i}", token) for i in range(clients)
            ]
            plans.append(("roll_per_client", [f"/campaigns/{cid}/rolls" for cid in own]))
        parts: dict[str, list[LoadResult]] = {name: [] for name, _ in plans}
        rolled_on_shared = 0

        def load(name: str, paths: list[str], duration: float) -> LoadResult:
            return run_load(
                name=name,
                port=server.port,
                paths=paths,
                body=ROLL_BODY,
                seconds=duration,
                server_pid=server.pid,
                token=token,
            )

        note(
            f"{clients} clients; each route: {warmup:g} s warm-up, then "
            f"{seconds:g} s measured in {rounds} alternating round(s)"
        )
        warmups = {}
        for name, paths in plans:
            warm = warmups[name] = load(f"{name} warm-up", paths, warmup)
            if name == "roll":
                rolled_on_shared += warm.statuses[201]
        for round_number in range(rounds):
            for name, paths in plans:
                note(f"round {round_number + 1}: {name}")
                part = load(name, paths, seconds / rounds)
                parts[name].append(part)
                if name == "roll":
                    rolled_on_shared += part.statuses[201]
        runs = {name: merge(name, results) for name, results in parts.items()}
        status, body = request_json(server.port, "GET", f"/campaigns/{shared}", token=token)
        expected = 1 + rolled_on_shared
        got = body.get("version") if status == 200 and isinstance(body, dict) else None
        checked = f"shared campaign at version {got}, expected {expected} (1 + every 201)"
        result = HttpResult(runs, warmups, got == expected, checked)
        if result.failure() is not None:
            note(f"the server's log ends:\n{server.tail()}")
        return result
    finally:
        server.stop()
