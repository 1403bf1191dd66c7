"""The benchmark command stays runnable (a short smoke run; the figures are not asserted)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bench_quick_run_completes() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench.run", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "roll / bare throughput" in result.stdout
    assert "audit of" in result.stdout


@pytest.mark.postgres
def test_two_process_contention_bench_completes_with_every_roll_stored_once(
    postgres_url: str,
) -> None:
    # Issue 10, point 2: two real `questlog serve` processes on one schema. The bench exits
    # non-zero if an acknowledged roll is not stored exactly once or the chain does not verify.
    result = subprocess.run(
        [sys.executable, "-m", "bench.contention", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "QUESTLOG_BENCH_DATABASE_URL": postgres_url},
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "PASS  no 5xx" in result.stdout
    assert "stored exactly once: True" in result.stdout
