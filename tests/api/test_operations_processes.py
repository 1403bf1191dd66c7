"""Operations across processes: a scrape sums every worker's metrics
(PROMETHEUS_MULTIPROC_DIR), and `questlog serve --log-format json` (one process or several) and
`questlog projections run --log-format json` write nothing but JSON lines on stderr."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import StoreFactory
from tests.live_server import QUESTLOG, free_port, wait_for

WORKER = """
import sys
from pathlib import Path
from domain.service.questlog import Questlog
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
    # Each worker primed its zeros at start; summed, they are still one series at 0.
    rolls_503 = {"method": "POST", "route": "/campaigns/<campaign>/rolls", "status": "503"}
    assert found[("questlog_http_requests_total", json.dumps(rolls_503, sort_keys=True))] == 0
    board = json.dumps({"game": "calendar-board"}, sort_keys=True)
    assert found[("questlog_command_conflicts_retried_total", board)] == 0
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
        wait_for(port, process)
        assert healthz(port, "probe-42", timeout=30) == (200, "probe-42")
    finally:
        _, stderr = stop(process)
    records = json_records(stderr)
    access = [r for r in records if r.get("request_id") == "probe-42"]
    assert len(access) == 1
    assert access[0]["logger"] == "questlog.access"
    assert access[0]["route"] == "/healthz" and access[0]["status"] == 200


def json_records(stderr: str) -> list[dict[str, Any]]:
    """Every line of ``stderr`` as a JSON object: fails naming the first line that is not one."""
    records = []
    for line in stderr.splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            pytest.fail(f"not a JSON line on stderr: {line!r}")
    return records


@pytest.mark.postgres
def test_serve_with_two_workers_and_log_format_json_writes_only_json_lines(
    tmp_path: Path, postgres_url: str
) -> None:
    """gunicorn's own records (a worker booted, the arbiter stopping) and the banner are JSON
    records too; the first-start admin secret goes to stdout only, never into a log record."""
    factory = StoreFactory("postgres", tmp_path, postgres_url)
    config = factory.new()
    port = free_port()
    env = {
        **os.environ,
        "QUESTLOG_DATABASE_URL": postgres_url,
        "QUESTLOG_PG_SCHEMA": str(config.postgres_schema),
        "QUESTLOG_LOG_FORMAT": "json",
    }
    env.pop("QUESTLOG_AUTH", None)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    process = subprocess.Popen(
        [*QUESTLOG, "serve", "--workers", "2", "--port", str(port), "--threads", "2"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(port, process)
        # Generous: two workers boot, each opening its store and views, on a shared machine.
        assert healthz(port, "two-workers-1", timeout=90)[0] == 200
    finally:
        stdout, stderr = stop(process)
        factory.remove_all()
    records = json_records(stderr)
    by_logger: dict[str, list[str]] = {}
    for record in records:
        by_logger.setdefault(record["logger"], []).append(record["message"])
    assert sum("Booting worker" in m for m in by_logger["gunicorn.error"]) == 2
    assert "Shutting down: Master" in by_logger["gunicorn.error"]
    assert "Workers: 2 (gunicorn, gthread)" in by_logger["questlog.serve"]
    access = [r for r in records if r.get("request_id") == "two-workers-1"]
    assert [r["logger"] for r in access] == ["questlog.access"]
    secret = next(w for w in stdout.split() if w.startswith("ql_"))
    assert "shown this once" in stdout
    assert secret not in stderr


def test_projections_run_with_log_format_json_writes_only_json_lines(tmp_path: Path) -> None:
    """The views process logs as the API does: its status lines become records of the
    ``questlog.views`` logger, nothing is printed on stdout, and it stops cleanly on SIGTERM."""
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path / "views.db")}
    env.pop("QUESTLOG_DATABASE_URL", None)
    env.pop("QUESTLOG_LOG_FORMAT", None)
    process = subprocess.Popen(
        [*QUESTLOG, "projections", "run", "--log-format", "json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None and process.stdout is not None
    seen = []
    watchdog = threading.Timer(90, process.kill)  # never hang the suite
    watchdog.start()
    try:
        for line in process.stderr:  # until it runs the views (or exits)
            seen.append(line)
            if '"running: ' in line:
                break
        process.terminate()
        # Read the rest through the same file objects: what they already read ahead counts.
        rest = process.stderr.read()
        stdout = process.stdout.read()
        process.wait(timeout=60)
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    stderr = "".join(seen) + rest
    assert process.returncode == 0, stderr
    assert stdout == ""
    messages = [r["message"] for r in json_records(stderr) if r["logger"] == "questlog.views"]
    assert messages[0].startswith("Views board_nights, campaigns, combats, debt_ledger,")
    assert any(m.startswith("running: board_nights, campaigns,") for m in messages), messages
    assert messages[-1] == "stopped"


@pytest.mark.parametrize("command", [["serve"], ["projections", "run"]])
def test_an_unknown_log_format_is_refused_by_name_and_nothing_is_created(
    command: list[str], tmp_path: Path
) -> None:
    env = {**os.environ, "QUESTLOG_DB": str(tmp_path / "x.db"), "QUESTLOG_LOG_FORMAT": "xml"}
    env.pop("QUESTLOG_DATABASE_URL", None)
    port = ["--port", str(free_port())] if command == ["serve"] else []
    done = subprocess.run(
        [*QUESTLOG, *command, *port],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "QUESTLOG_LOG_FORMAT must be 'text' or 'json', not 'xml'" in done.stderr
    assert "--log-format" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_projections_run_with_json_logs_ends_on_an_error_with_a_json_record(
    tmp_path: Path,
) -> None:
    """An error nothing caught (here: no PostgreSQL at the URL) is the process's last record,
    with its traceback, not a bare traceback on stderr."""
    env = {**os.environ, "QUESTLOG_DATABASE_URL": f"postgresql://127.0.0.1:{free_port()}/none"}
    env.pop("QUESTLOG_DB", None)
    env["QUESTLOG_LOG_FORMAT"] = "json"
    done = subprocess.run(
        [*QUESTLOG, "projections", "run"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    last = json_records(done.stderr)[-1]
    assert last["level"] == "CRITICAL" and last["message"].startswith("stopped by an error: ")
    assert "Traceback (most recent call last)" in last["traceback"]


def healthz(port: int, request_id: str, timeout: float) -> tuple[int, str | None]:
    """``GET /healthz`` with an ``X-Request-Id``: the status and the id the answer carries."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/healthz", headers={"X-Request-Id": request_id})
        answer = connection.getresponse()
        answer.read()
        return answer.status, answer.getheader("X-Request-Id")
    finally:
        connection.close()


def stop(process: subprocess.Popen[str]) -> tuple[str, str]:
    """SIGTERM, then SIGKILL if it has not ended in 60 s; its stdout and stderr."""
    process.terminate()
    try:
        return process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate(timeout=30)


def test_the_overhead_benchmark_runs_and_prints_every_set_up() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.serving.observability", "--requests", "50", "--rounds", "1"],
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
