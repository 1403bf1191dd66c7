"""``python -m bench.page.page_load --quick`` stays runnable and writes its figures (not
asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]


def test_the_page_benchmark_quick_run_writes_its_figures(
    chromium_path: str, tmp_path: Path
) -> None:
    out = tmp_path / "page.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.page.page_load", "--quick", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "QUESTLOG_CHROMIUM": chromium_path},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert figures["events"] == 1000
    caches = [n["cache"] for n in figures["navigations"]]
    assert caches == ["cold", "warm", "warm"]
    for navigation in figures["navigations"]:
        assert navigation["usable_ms"] > 0
        assert navigation["requests"] > 0 and navigation["bytes"] > 0
        assert navigation["events_shown"] == 50  # the newest page of the timeline, not the log
    for summary in ("summary", "cold", "warm"):
        assert set(figures[summary]) == {"median_ms", "min_ms", "max_ms", "p90_ms"}
    assert figures["verdict"] in ("PASS", "MISS")
    assert "target: usable within 1.5 s" in done.stdout
