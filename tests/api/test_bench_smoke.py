"""The benchmark command stays runnable (a short smoke run; the figures are not asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
