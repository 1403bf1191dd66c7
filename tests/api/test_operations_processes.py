"""Issue 14, point 2, across processes: a scrape sums every worker's metrics
(PROMETHEUS_MULTIPROC_DIR), and `questlog serve --log-format json` logs JSON lines on stderr."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.api.test_cli_and_server import QUESTLOG, free_port

WORKER = """
import sys
from pathlib import Path
from domain.service.application import Questlog
from domain.storage.store import StoreConfig
from webapi.app import create_app
questlog = Questlog(StoreConfig(sqlite_path=Path(sys.argv[1])))
client = create_app(questlog, auth=False, rate_limit=0, TESTING=True).test_client()
assert client.post("/campaigns", json={"game": "quest-calendar", "name": "w"}).status_code == 201
for _ in range(int(sys.argv[2])):
    assert client.get("/healthz").status_code == 200
if sys.argv[3] == "scrape":
    sys.stdout.write(client.get("/metrics").get_data(as_text=True))
questlog.close()
"""
"""One API worker: creates a campaign, asks /healthz N times, and maybe answers a scrape."""


def run_worker(db: Path, directory: Path, healthz: int, scrape: bool) -> str:
    """Run one worker process with the shared metrics directory; its stdout."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    done = subprocess.run(
        [sys.executable, "-c", WORKER, str(db), str(healthz), "scrape" if scrape else "-"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_scrape_sums_the_metrics_of_every_worker_process(tmp_path: Path) -> None:
    directory = tmp_path / "metrics"
    directory.mkdir()
    db = tmp_path / "shared.db"
    run_worker(db, directory, 3, scrape=False)
    text = run_worker(db, directory, 5, scrape=True)
    found: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            key = (sample.name, json.dumps(sample.labels, sort_keys=True))
            assert key not in found, f"{key} appears twice: the processes were not summed"
            found[key] = sample.value
    healthz = json.dumps({"method": "GET", "route": "/healthz", "status": "200"}, sort_keys=True)
    assert found[("questlog_http_requests_total", healthz)] == 8
    game = json.dumps({"game": "quest-calendar"}, sort_keys=True)
    assert found[("questlog_commands_total", game)] == 2
    # The lag is read from the store by the process that answers: once, not once per worker.
    assert found[("questlog_log_head", "{}")] == 2
    assert found[("questlog_view_lag_events", json.dumps({"view": "roll_log"}))] == 2
    assert {path.suffix for path in directory.iterdir()} == {".db"}


def test_serve_with_log_format_json_writes_one_json_object_per_line(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path / "served.db"), "QUESTLOG_AUTH": "off"}
    env.pop("QUESTLOG_DATABASE_URL", None)
    env.pop("QUESTLOG_LOG_FORMAT", None)
    process = subprocess.Popen(
        [*QUESTLOG, "serve", "--port", str(port), "--log-format", "json"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(port, process)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/healthz", headers={"X-Request-Id": "probe-42"})
        answer = connection.getresponse()
        answer.read()
        connection.close()
        assert answer.status == 200
        assert answer.getheader("X-Request-Id") == "probe-42"
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    records = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    access = [r for r in records if r.get("request_id") == "probe-42"]
    assert len(access) == 1
    assert access[0]["logger"] == "questlog.access"
    assert access[0]["route"] == "/healthz" and access[0]["status"] == 200


def test_serve_refuses_an_unknown_log_format_by_name(tmp_path: Path) -> None:
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path / "x.db"), "QUESTLOG_LOG_FORMAT": "xml"}
    env.pop("QUESTLOG_DATABASE_URL", None)
    done = subprocess.run(
        [*QUESTLOG, "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "QUESTLOG_LOG_FORMAT" in done.stderr
    assert not (tmp_path / "x.db").exists()


def wait_for_port(port: int, process: subprocess.Popen[str]) -> None:
    """Wait (generously: the machine is shared) until the server accepts connections."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"questlog serve exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("questlog serve did not start")


def test_the_overhead_benchmark_runs_and_prints_every_set_up() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.observability", "--requests", "50", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for name in (
        "no hooks",
        "request id + metrics",
        "+ access log as JSON",
        "+ access log as text",
    ):
        assert name in done.stdout
