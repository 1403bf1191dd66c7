"""The witness's benchmark stays runnable (a short run; figures not asserted)."""

from __future__ import annotations

import pytest

from bench.witness import main


def test_the_witness_bench_times_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--quick"])
    out = capsys.readouterr().out
    assert "in-process      50 cosignatures" in out
    assert "HTTP            50 cosignatures" in out
