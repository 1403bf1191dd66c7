"""The Merkle log's benchmark stays runnable (a short run; figures not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.tlog.proofs import main


def test_the_tlog_proofs_bench_writes_every_figure(tmp_path: Path) -> None:
    figures = tmp_path / "tlog.json"
    assert main(["--leaves", "300", "--proofs", "20", "--json", str(figures)]) == 0
    data = json.loads(figures.read_text())
    assert data["leaves"] == 300
    for name in ("inclusion", "verify", "consistency", "root"):
        assert data[name]["calls"] == 20
        assert 0 < data[name]["median_ms"] <= data[name]["p99_ms"]
