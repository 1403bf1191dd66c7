"""The figures of "every request costs what it reads" side by side, each beside its target.

``bench.run`` prints this table last, from the figures its parts recorded in the same run: the
reads against the store's size (part (i)), the long page (k), the server's memory after audits
(l), the table page's whole load (m), the roll route and the game commands against the naive
app and PostgreSQL against SQLite (g), the audit of a long campaign (c, at ``--events 100000``,
its target's size) and the views beside another client's open transaction (j). A figure whose
part failed, did not run, or ran at a smaller size than its target's (``--quick``) says so
instead of a verdict.
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
LONG_EVENTS = 30_000
"""The long campaign of the reads, the table page and the audits of the memory figure."""
LONG_PAGE_CHECKS = 3_000
AUDITS = 20


Reading = tuple[str, bool] | str
"""A figure in words and whether it meets its target, or (words alone) why there is no verdict."""


@dataclass(frozen=True)
class Target:
    """One figure: what it is, its target in words, the part that measures it (its key in the
    run's figures and its letter) and how to read it from that part's figures."""

    figure: str
    target: str
    part: str
    letter: str
    read: Callable[[Any], Reading]


def _growth(name: str) -> Callable[[Any], Reading]:
    def read(growth: Any) -> Reading:
        (found,) = (r for r in growth["reads"] if r["read"] == name)
        ratio = found["large_ms"] / found["small_ms"]
        words = f"{ratio:.2f}x"
        if growth["large_events"] < LONG_EVENTS:
            return f"{words} (a long campaign of fewer than {LONG_EVENTS:,} events)"
        return words, ratio <= growth["target_ratio"]

    return read


def _long_page(key: str) -> Callable[[Any], Reading]:
    def read(run: Any) -> Reading:
        words = f"{run[key]:.2f}x ({run['checks']:,} checks)"
        if run["checks"] < LONG_PAGE_CHECKS:
            return words
        return words, run[key] <= run["target_ratio"]

    return read


def _page(run: Any) -> Reading:
    short, long = run["loads"][0], run["loads"][-1]
    words = f"{run['ratio']:.2f}x ({long['events']:,} events vs {short['events']:,})"
    if long["events"] < LONG_EVENTS:
        return words
    return words, run["ratio"] <= run["target_ratio"]


def _memory(run: Any) -> Reading:
    words = f"{run['growth_mb']:+.0f} MB ({run['audits']} audits of {run['events']:,} events)"
    if run["events"] < LONG_EVENTS or run["audits"] < AUDITS:
        return words
    return words, run["growth_mb"] <= run["target_mb"]


def _versus(prefix: str) -> Callable[[Any], Reading]:
    def read(versus: Any) -> Reading:
        found = [c for c in versus["checks"] if c["target"].startswith(prefix)]
        if not found:
            return "not measured in part (g)"
        return found[0]["figure"], bool(found[0]["met"])

    return read


def _audit(domain: Any) -> Reading:
    seconds = domain["audit"]["median_s"]
    if domain["events"] < AUDIT_EVENTS:
        return f"{seconds:.2f} s at {domain['events']:,} events (run with --events {AUDIT_EVENTS})"
    return f"{seconds:.2f} s", seconds <= 2.0


def _horizon(phases: Any) -> Reading:
    stranger = phases[0]
    return f"{stranger['applied_within']} of {stranger['rolls']}", bool(stranger["met"])


TARGETS = (
    Target(
        "GET /campaigns/{id}, large store vs small",
        "<= 1.2x",
        "growth",
        "i",
        _growth(CAMPAIGN_READ),
    ),
    Target(
        "first events page, long campaign vs short", "<= 1.2x", "growth", "i", _growth(EVENTS_READ)
    ),
    Target("table page bytes, long campaign vs short", "<= 1.2x", "page_bytes", "m", _page),
    Target(
        "trait_check on a long page vs a fresh one, CPU",
        "<= 1.3x",
        "long_page",
        "k",
        _long_page("cpu_ratio"),
    ),
    Target(
        "the same, answer bytes (return=minimal)",
        "<= 1.3x",
        "long_page",
        "k",
        _long_page("bytes_ratio"),
    ),
    Target("RSS after 20 audits of 30,000 events", "<= +150 MB", "audit_memory", "l", _memory),
    Target("roll route rate vs the naive app", ">= 1.0x", "versus", "g", _versus("roll route ≥")),
    Target(
        "roll route p99 vs the naive app's", "no worse", "versus", "g", _versus("roll route p99")
    ),
    Target(
        "game commands on ordinary pages vs the naive app",
        ">= 0.4x",
        "versus",
        "g",
        _versus("game command"),
    ),
    Target(
        "PostgreSQL one process vs SQLite (roll)", ">= 0.8x", "versus", "g", _versus("PostgreSQL")
    ),
    Target(f"audit of {AUDIT_EVENTS:,} events through the API", "<= 2 s", "domain", "c", _audit),
    Target(
        "rolls in the views, another client's transaction open",
        "200 of 200 in 1 s",
        "horizon",
        "j",
        _horizon,
    ),
)
"""The figures of the read-cost work, in the order of its table."""


def verdicts(data: dict[str, Any]) -> Iterator[tuple[Target, str, bool | None]]:
    """Each target with its figure in words and its verdict (None: no verdict, and why: its
    part failed, did not run, or measured at a smaller size than the target's)."""
    for target in TARGETS:
        failure = data.get("failed", {}).get(target.part)
        figures = data.get(target.part)
        if failure is not None:
            yield target, f"part ({target.letter}) failed: {failure}", None
        elif not figures:
            yield target, f"part ({target.letter}) did not run", None
        else:
            found = target.read(figures)
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
