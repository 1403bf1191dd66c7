"""The figures of "every request costs what it reads" side by side, each beside its target.

``bench.run`` prints this table last, from the figures its parts recorded in the same run: the
reads against the store's size (part (i)), the long page (k), the server's memory after audits
(l), the table page's whole load (m), the roll route and the game commands against the naive
app and PostgreSQL against SQLite (g), the audit of a long campaign (c, at ``--events 100000``,
its target's size) and the views beside another client's open transaction (j). A figure whose
part did not run, or ran at another size than its target's, says so instead of a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from rich.table import Table

CAMPAIGN_READ = "campaign (13 events, 1 fork)"
EVENTS_READ = "first events page (50)"
"""The reads of part (i), by the names it records them under."""
AUDIT_EVENTS = 100_000
"""The campaign length of the audit's target (2 s)."""


@dataclass(frozen=True)
class Target:
    """One figure: what it is, its target in words, and how to read it from a run's data."""

    figure: str
    target: str
    read: Callable[[dict[str, Any]], tuple[str, bool] | str]
    """The figure in words and whether it meets the target, or why it is not measured."""


def _growth(name: str) -> Callable[[dict[str, Any]], tuple[str, bool] | str]:
    def read(data: dict[str, Any]) -> tuple[str, bool] | str:
        growth = data.get("growth")
        if growth is None:
            return "part (i) did not run"
        (found,) = (r for r in growth["reads"] if r["read"] == name)
        ratio = found["large_ms"] / found["small_ms"]
        return f"{ratio:.2f}x", ratio <= growth["target_ratio"]

    return read


def _long_page(key: str) -> Callable[[dict[str, Any]], tuple[str, bool] | str]:
    def read(data: dict[str, Any]) -> tuple[str, bool] | str:
        run = data.get("long_page")
        if run is None:
            return "part (k) did not run"
        return f"{run[key]:.2f}x ({run['checks']:,} checks)", run[key] <= run["target_ratio"]

    return read


def _page(data: dict[str, Any]) -> tuple[str, bool] | str:
    run = data.get("page_bytes")
    if run is None:
        return "part (m) did not run"
    short, long = run["loads"][0], run["loads"][-1]
    words = f"{run['ratio']:.2f}x ({long['events']:,} events vs {short['events']:,})"
    return words, run["ratio"] <= run["target_ratio"]


def _memory(data: dict[str, Any]) -> tuple[str, bool] | str:
    run = data.get("audit_memory")
    if run is None:
        return "part (l) did not run"
    words = f"+{run['growth_mb']:.0f} MB ({run['audits']} audits of {run['events']:,} events)"
    return words, run["growth_mb"] <= run["target_mb"]


def _versus(prefix: str) -> Callable[[dict[str, Any]], tuple[str, bool] | str]:
    def read(data: dict[str, Any]) -> tuple[str, bool] | str:
        versus = data.get("versus")
        if versus is None:
            return "part (g) did not run"
        found = [c for c in versus["checks"] if c["target"].startswith(prefix)]
        if not found:
            return "not measured in part (g)"
        return found[0]["figure"], bool(found[0]["met"])

    return read


def _audit(data: dict[str, Any]) -> tuple[str, bool] | str:
    domain = data.get("domain")
    if domain is None:
        return "part (c) did not run"
    seconds = domain["audit"]["median_s"]
    if domain["events"] < AUDIT_EVENTS:
        return f"{seconds:.2f} s at {domain['events']:,} events (run with --events {AUDIT_EVENTS})"
    return f"{seconds:.2f} s", seconds <= 2.0


def _horizon(data: dict[str, Any]) -> tuple[str, bool] | str:
    phases = data.get("horizon")
    if not phases:
        return "part (j) did not run"
    stranger = phases[0]
    return f"{stranger['applied_within']} of {stranger['rolls']}", bool(stranger["met"])


TARGETS = (
    Target(
        "GET /campaigns/{id}, large store vs small",
        "<= 1.2x",
        _growth("campaign (13 events, 1 fork)"),
    ),
    Target(
        "first events page, long campaign vs short", "<= 1.2x", _growth("first events page (50)")
    ),
    Target("table page bytes, long campaign vs short", "<= 1.2x", _page),
    Target("trait_check on a long page vs a fresh one, CPU", "<= 1.3x", _long_page("cpu_ratio")),
    Target("the same, answer bytes (return=minimal)", "<= 1.3x", _long_page("bytes_ratio")),
    Target("RSS after 20 audits of 30,000 events", "<= +150 MB", _memory),
    Target("roll route rate vs the naive app", ">= 1.0x", _versus("roll route ≥")),
    Target("roll route p99 vs the naive app's", "no worse", _versus("roll route p99")),
    Target("game commands on ordinary pages vs the naive app", ">= 0.4x", _versus("game command")),
    Target("PostgreSQL one process vs SQLite (roll)", ">= 0.8x", _versus("PostgreSQL")),
    Target(f"audit of {AUDIT_EVENTS:,} events through the API", "<= 2 s", _audit),
    Target("rolls in the views, another client's transaction open", "200 of 200 in 1 s", _horizon),
)
"""The figures of the read-cost work, in the order of its table."""


def verdicts(data: dict[str, Any]) -> Iterator[tuple[Target, str, bool | None]]:
    """Each target with its figure in words and its verdict (None: not measured)."""
    for target in TARGETS:
        found = target.read(data)
        if isinstance(found, str):
            yield target, found, None
        else:
            yield target, found[0], found[1]


def targets_json(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The verdicts for ``--json``."""
    return [
        {"figure": t.figure, "target": t.target, "measured": words, "met": met}
        for t, words, met in verdicts(data)
    ]


def targets_summary(data: dict[str, Any]) -> Table:
    """The verdicts as a table."""
    out = Table(title="every request costs what it reads: the figures of one run")
    for column in ("figure", "measured", "target", ""):
        out.add_column(column)
    for target, words, met in verdicts(data):
        verdict = "" if met is None else ("PASS" if met else "MISS")
        out.add_row(target.figure, words, target.target, verdict)
    return out
