"""The host log's benchmark on the stores stays runnable (a short run; figures not asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.tlog.log_store import main


@pytest.mark.postgres
def test_the_log_store_bench_measures_both_stores_and_the_roll_route(
    tmp_path: Path, postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = tmp_path / "figures.json"
    main(["--quick", "--events", "600", "--proofs", "20", "--seconds", "1", "--json", str(figures)])
    out = capsys.readouterr().out
    assert "inclusion proof read from the store" in out
    assert "without the publisher" in out
    found = json.loads(figures.read_text())
    assert [store["store"] for store in found["stores"]] == ["sqlite", "postgres"]
    assert found["stores"][0]["events"] == 600
