"""The benchmark's tables (figures beside their targets, PASS/MISS) and its figures as JSON."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from bench.common.load import statuses_text
from bench.common.server import BARE_PATH
from bench.reads.domain_bench import REAUDIT_EVENTS, DomainResult, Timing
from bench.write.http_bench import HttpResult

# Targets of the roll route (part (a)) and of a campaign's load and audit (parts (b), (c)).
RATIO_TARGET = 0.6
ROLL_P99_MS = 20.0
CURRENT_MS = 5.0
AT_VERSION_MS = 50.0
AUDIT_S = 1.0
# Targets of the audit: per 100,000 events (scaled to the campaign's length), and the re-audit.
AUDIT_100K_S = 2.0
AUDIT_REVEALED_100K_S = 2.5
REAUDIT_MS = 50.0

FAILED = "[bold red]FAILED[/bold red]"
"""In place of a verdict: the load was not delivered, so the figure means nothing."""


def verdict(ok: bool) -> str:
    """PASS or MISS, coloured."""
    return "[bold green]PASS[/bold green]" if ok else "[bold red]MISS[/bold red]"


def ms(seconds: float) -> str:
    """Seconds as milliseconds text."""
    return f"{seconds * 1e3:,.2f} ms"


def timing_text(timing: Timing) -> str:
    """Median, with the range of samples."""
    low, high = timing.spread
    return f"{ms(timing.median)}  [dim]({ms(low)} … {ms(high)}, n={len(timing.samples)})[/dim]"


def http_table(result: HttpResult) -> Table:
    """The routes side by side."""
    titles = {
        "bare": f"bare POST {BARE_PATH}",
        "roll": "POST /campaigns/{id}/rolls",
        "roll_per_client": "rolls, one campaign per client",
    }
    table = Table(title="(a) HTTP: waitress, 8 threads, SQLite (WAL)", title_justify="left")
    table.add_column("")
    for name in result.runs:
        table.add_column(titles.get(name, name), justify="right")
    rows: list[tuple[str, Any]] = [
        ("requests/s", lambda r: f"{r.throughput:,.0f}"),
        ("p50 latency", lambda r: f"{r.percentile_ms(50):.2f} ms"),
        ("p99 latency", lambda r: f"{r.percentile_ms(99):.2f} ms"),
        ("mean latency", lambda r: f"{r.mean_ms:.2f} ms"),
        ("max latency", lambda r: f"{r.percentile_ms(100):.2f} ms"),
        ("requests", lambda r: f"{r.requests + len(r.errors):,} in {r.seconds:.1f} s"),
        ("every status", lambda r: statuses_text(r.statuses, len(r.errors))),
        ("answered 201", lambda r: f"{r.success:.1%}" + ("" if r.delivered else " FAILED")),
        ("clients", lambda r: str(r.clients)),
        ("server CPU (cores)", lambda r: "?" if r.server_cpu is None else f"{r.server_cpu:.2f}"),
        (
            "server CPU per request",
            lambda r: "?" if r.server_cpu_ms is None else f"{r.server_cpu_ms:.2f} ms",
        ),
        ("client CPU (cores)", lambda r: "?" if r.client_cpu is None else f"{r.client_cpu:.2f}"),
        ("other processes' CPU", lambda r: "?" if r.other_cpu is None else f"{r.other_cpu:.2f}"),
    ]
    for label, cell in rows:
        table.add_row(label, *(cell(run) for run in result.runs.values()))
    return table


def targets_table(http: HttpResult | None, domain: DomainResult | None, quick: bool) -> Table:
    """Every figure with its target and PASS/MISS."""
    title = "Targets"
    if quick:
        title += " - QUICK RUN: short and small, not comparable with the targets"
    table = Table(title=title, title_justify="left")
    for column, justify in [("measure", "left"), ("figure", "right"), ("target", "right")]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    table.add_column("", justify="center")
    if http is not None:
        bare, roll = http.runs["bare"], http.runs["roll"]
        delivered = bare.delivered and roll.delivered
        ratio = roll.throughput / bare.throughput if bare.throughput else 0.0
        table.add_row(
            "(a) roll / bare throughput",
            f"{ratio:.2f}  [dim]({roll.throughput:,.0f} / {bare.throughput:,.0f} req/s)[/dim]",
            f"≥ {RATIO_TARGET:.2f}",
            verdict(ratio >= RATIO_TARGET) if delivered else FAILED,
        )
        p99 = roll.percentile_ms(99)
        table.add_row(
            f"(a) roll p99 latency, {roll.clients} clients",
            f"{p99:.2f} ms",
            f"≤ {ROLL_P99_MS:g} ms",
            verdict(p99 <= ROLL_P99_MS) if roll.delivered else FAILED,
        )
    if domain is not None:
        n, v = domain.events, domain.at_version
        rows = [
            (f"(b) current state of {n:,} events, cold", domain.current_cold, CURRENT_MS / 1e3),
            (f"(b) current state of {n:,} events, warm", domain.current_warm, CURRENT_MS / 1e3),
            (f"(b) state at version {v:,}, cold", domain.at_version_cold, AT_VERSION_MS / 1e3),
            (
                f"(c) audit of {n:,} events, GET /campaigns/{{id}}/audit",
                domain.audit,
                AUDIT_100K_S * n / 100_000,
            ),
        ]
        if domain.worst_case is not None:
            rows.insert(
                3,
                (
                    f"    extra: state at version {domain.worst_case_version:,}, cold "
                    f"({domain.worst_case_replayed} events after its snapshot)",
                    domain.worst_case,
                    CURRENT_MS / 1e3,
                ),
            )
        for label, timing, target in rows:
            table.add_row(
                label, timing_text(timing), f"≤ {ms(target)}", verdict(timing.median <= target)
            )
        if domain.reaudit is not None:
            table.add_row(
                f"(c) re-audit after {REAUDIT_EVENTS} more events, resumed from the head audited",
                timing_text(domain.reaudit),
                f"≤ {REAUDIT_MS:g} ms",
                verdict(domain.reaudit.median <= REAUDIT_MS / 1e3),
            )
        if domain.audit_revealed is not None:
            revealed_target = AUDIT_REVEALED_100K_S * n / 100_000
            table.add_row(
                f"(c) audit of {n + REAUDIT_EVENTS + 1:,} events, seed revealed (every roll "
                "re-derived)",
                timing_text(domain.audit_revealed),
                f"≤ {ms(revealed_target)}",
                verdict(domain.audit_revealed.median <= revealed_target),
            )
    return table


def http_json(http: HttpResult) -> dict[str, Any]:
    """Part (a) as plain data."""
    data: dict[str, Any] = {
        name: {
            "requests_per_s": run.throughput,
            "p50_ms": run.percentile_ms(50),
            "p99_ms": run.percentile_ms(99),
            "mean_ms": run.mean_ms,
            "max_ms": run.percentile_ms(100),
            "requests": run.requests,
            "statuses": {str(status): n for status, n in sorted(run.statuses.items())},
            "transport_errors": len(run.errors),
            "success": run.success,
            "delivered": run.delivered,
            "seconds": run.seconds,
            "clients": run.clients,
            "server_cpu": run.server_cpu,
            "server_cpu_ms_per_request": run.server_cpu_ms,
            "client_cpu": run.client_cpu,
            "other_cpu": run.other_cpu,
        }
        for name, run in http.runs.items()
    }
    data["versions_ok"] = http.versions_ok
    data["auth"] = "on; the run's own admin token exempt from the rate limit"
    return data


def domain_json(domain: DomainResult) -> dict[str, Any]:
    """Parts (b) and (c) as plain data."""
    timings = {
        "current_cold": domain.current_cold,
        "current_warm": domain.current_warm,
        "at_version_cold": domain.at_version_cold,
        "audit": domain.audit,
    }
    if domain.worst_case is not None:
        timings["worst_case"] = domain.worst_case
    if domain.audit_revealed is not None:
        timings["audit_revealed"] = domain.audit_revealed
    if domain.reaudit is not None:
        timings["reaudit"] = domain.reaudit
    return {
        "events": domain.events,
        "at_version": domain.at_version,
        "build_seconds": domain.build_seconds,
        **{name: {"median_s": t.median, "samples_s": t.samples} for name, t in timings.items()},
        "audit_report": domain.audit_report,
    }
