"""The script behind the docs' small figures stays runnable and names what each figure backs
(tiny sizes; no speed is asserted)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.small.figures import parse_args

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--quick", "--events", "200", "--campaign-events", "40", "--requests", "5", "--rolls", "5"]

FIGURES = {
    "docs/performance-results.md, Catching up (History, Reading them)": [
        "SQLite: SELECT of 200 notifications alone: ",
        "SQLite: SELECT and decoding each event's JSON and id: ",
    ],
    "docs/projections.md, Speed": [
        "SQLite: the debt ledger alone catching up, batches of 2,000: ",
        "PostgreSQL: every view, batch code, batches of 2,000: ",
        "PostgreSQL: every view through PostgresRunner: ",
    ],
    "docs/projections.md, Leases: one process per view": [
        "PostgreSQL: the fence of a batch, one query (mean of 2,000 calls): ",
    ],
    "docs/performance-results.md, Why a roll costs what it does": [
        "in-process, access control off: roll, CPU per request: ",
        "in-process, access control on: bare, CPU per request: ",
        "through waitress, one client: roll, server CPU per request: ",
        "waitress adds to a bare request (CPU): ",
        "isinstance(event, CanMutateProtocol) on a roll event, Python 3.",
    ],
    "docs/performance.md, The machine": ["fsync of a 4 KiB write in "],
    "docs/performance-results.md, What a roll costs on PostgreSQL (The lazy campaign lock)": [
        "SQLite: Questlog.roll, 5 in one process, CPU: ",
        "PostgreSQL: Questlog.roll, 5 in one process, CPU: ",
    ],
    "docs/time-travel.md, The state at a point": [
        "?at=: finding the version on a campaign of 40 events (SQLite): ",
    ],
}


def figures(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m bench.small.figures ARGS`` from the repository root, as a reader runs it."""
    return subprocess.run(
        [sys.executable, "-m", "bench.small.figures", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.mark.postgres
def test_every_figure_is_printed_with_its_doc_the_commit_and_the_machine(
    postgres_url: str,
) -> None:
    result = figures(*TINY, env={"QUESTLOG_BENCH_DATABASE_URL": postgres_url})

    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    first = result.stdout.splitlines()[0]
    assert first.startswith("python -m bench.small.figures --quick: commit ")
    assert " cores, " in first and "; Python 3." in first and "load average" in first
    for doc, lines in FIGURES.items():
        assert doc in result.stdout
        for line in lines:
            assert line in result.stdout, line


def test_without_postgres_the_sqlite_figures_are_still_measured() -> None:
    result = figures(*TINY, "--no-postgres")

    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "debt ledger alone catching up" in result.stdout
    assert "PostgreSQL: " not in result.stdout


def test_a_size_below_one_is_refused_naming_the_option() -> None:
    with pytest.raises(SystemExit):
        parse_args(["--requests", "0"])
    result = figures("--campaign-events", "-1")
    assert result.returncode == 2 and "--campaign-events" in result.stderr
