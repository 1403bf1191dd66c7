"""The simulation's figures: the load steps, real play per table, user terms, and their tables.

``bench/simulation/simulate.py`` gathers them; this module says what each figure means and prints
it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rich.console import Console
from rich.table import Table as RichTable

from bench.simulation.sim_growth import SizePoint
from bench.simulation.sim_load import QC_SHARE
from bench.simulation.sim_play import Tally

SUSTAINED_SHARE = 0.95
"""The share of a step's scheduled commands that must run for the step to be sustained."""
QC_PAGE_SECONDS = 3600.0
"""A Quest Calendar session: one page, played in about an hour."""
CB_SESSION_SECONDS = 7200.0
"""A Calendar Board session: a chapter, played in about two hours."""
CB_SESSIONS_PER_YEAR = 52
"""A Calendar Board table meets once a week."""
QC_PAGES_PER_YEAR = 365
"""A Quest Calendar table plays a page a day."""


@dataclass
class Step:
    """One offered rate, all processes together."""

    offered: float
    seconds: float
    scheduled: int
    commands: int
    events: int
    late: int
    errors: dict[str, int]
    p50_ms: float
    p99_ms: float
    server_cpu: float
    client_cpu: float
    machine_cpu: float
    waits: dict[str, float]
    lock_holder: dict[str, float]

    @property
    def achieved(self) -> float:
        """Commands per second that ran (stored or refused by a rule)."""
        return self.commands / self.seconds

    def sustained(self, p99_bound: float) -> bool:
        """95 % of the scheduled commands ran, nothing failed, and the p99 is under the bound."""
        ran = self.commands / max(self.scheduled, 1)
        return ran >= SUSTAINED_SHARE and not self.errors and self.p99_ms <= p99_bound

    def as_dict(self, p99_bound: float) -> dict[str, Any]:
        """The figures as JSON."""
        return {
            **asdict(self),
            "achieved": round(self.achieved, 1),
            "events_per_s": round(self.events / self.seconds, 1),
            "sustained": self.sustained(p99_bound),
        }


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank), NaN if empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))]


def step_line(step: Step, bound: float) -> str:
    """One line per step while the run goes on."""
    verdict = "sustained" if step.sustained(bound) else "NOT sustained"
    return (
        f"  {step.offered:>6.0f} offered: {step.achieved:6.1f} commands/s, "
        f"{step.events / step.seconds:6.1f} events/s, p99 {step.p99_ms:7.1f} ms, late {step.late}, "
        f"errors {sum(step.errors.values())}, cores: server {step.server_cpu:.2f} "
        f"load {step.client_cpu:.2f}: {verdict}"
    )


# -- the figures in user terms -------------------------------------------------------------------


def play_rates(tally: Tally, cb_nights: int) -> dict[str, float]:
    """Per-table rates of real play, from what the simulated tables did."""
    qc, cb = "quest-calendar", "calendar-board"
    pages = max(tally.of_game(qc, "start_page"), 1)
    nights = max(tally.nights, 1)
    qc_commands = tally.game_commands(qc) + sum(
        n for k, n in tally.refused.items() if k.startswith(qc)
    )
    cb_commands = tally.game_commands(cb) + sum(
        n for k, n in tally.refused.items() if k.startswith(cb)
    )
    rates = {
        "qc_commands_per_page": qc_commands / pages,
        "qc_events_per_command": tally.events[qc] / max(tally.game_commands(qc), 1),
        "qc_events_per_page": tally.events[qc] / pages,
        "cb_commands_per_night": cb_commands / nights,
        "cb_events_per_command": tally.events[cb] / max(tally.game_commands(cb), 1),
        "cb_events_per_night": tally.events[cb] / nights,
    }
    rates["qc_table_commands_per_s"] = rates["qc_commands_per_page"] / QC_PAGE_SECONDS
    rates["cb_table_commands_per_s"] = (
        rates["cb_commands_per_night"] * cb_nights / CB_SESSION_SECONDS
    )
    rates["qc_events_per_year"] = rates["qc_events_per_page"] * QC_PAGES_PER_YEAR
    rates["cb_events_per_year"] = rates["cb_events_per_night"] * cb_nights * CB_SESSIONS_PER_YEAR
    return {k: round(v, 4) for k, v in rates.items()}


def user_terms(
    rates: dict[str, float], sustained: Step | None, size: SizePoint | None
) -> dict[str, Any]:
    """Concurrent tables one server carries, and the storage of a year of play."""
    mix = QC_SHARE
    per_table = (
        mix * rates["qc_table_commands_per_s"] + (1 - mix) * rates["cb_table_commands_per_s"]
    )
    terms: dict[str, Any] = {"commands_per_s_per_table_in_session": round(per_table, 5)}
    if sustained is not None:
        terms["sustained_commands_per_s"] = round(sustained.achieved, 1)
        terms["sustained_events_per_s"] = round(sustained.events / sustained.seconds, 1)
        terms["concurrent_tables"] = int(sustained.achieved / per_table)
    if size is not None:
        per_event = size.schema_bytes / max(size.rows, 1)
        terms["bytes_per_event_all_tables"] = round(per_event, 1)
        for game, key in (
            ("quest_calendar", "qc_events_per_year"),
            ("calendar_board", "cb_events_per_year"),
        ):
            terms[f"{game}_year_mb"] = round(rates[key] * per_event / 1e6, 2)
        year = mix * rates["qc_events_per_year"] + (1 - mix) * rates["cb_events_per_year"]
        terms["gb_per_1000_campaign_years"] = round(1000 * year * per_event / 1e9, 2)
    return terms


def steps_table(steps: list[Step], bound: float) -> RichTable:
    """The load steps, one row each."""
    table = RichTable(
        title=f"Open-loop load (sustained: >= 95 % ran, no error, p99 <= {bound:.0f} ms)"
    )
    for column in ("offered/s", "commands/s", "events/s", "p50 ms", "p99 ms", "late", "errors",
                   "server cores", "load cores", "machine cores", ""):  # fmt: skip
        table.add_column(column, justify="right")
    for step in steps:
        table.add_row(
            f"{step.offered:.0f}",
            f"{step.achieved:.1f}",
            f"{step.events / step.seconds:.1f}",
            f"{step.p50_ms:.1f}",
            f"{step.p99_ms:.1f}",
            str(step.late),
            str(sum(step.errors.values())),
            f"{step.server_cpu:.2f}",
            f"{step.client_cpu:.2f}",
            f"{step.machine_cpu:.2f}",
            "sustained" if step.sustained(bound) else "[bold red]not sustained[/bold red]",
        )
    return table


def waits_lines(steps: list[Step]) -> list[str]:
    """What the server's backends waited on at each step (average backends, top five), and what
    the holder of the events table's lock was doing (share of samples), where one was seen: an
    append takes no such lock, so there is none to report."""
    lines = []
    for step in steps:
        waits = ", ".join(f"{k} {v}" for k, v in list(step.waits.items())[:5]) or "-"
        lines.append(f"  {step.offered:>5.0f}/s: {waits}")
        if set(step.lock_holder) - {"free"}:
            holder = ", ".join(f"{k} {v:.0%}" for k, v in step.lock_holder.items())
            lines.append(f"         events lock holder: {holder}")
    return lines


def sizes_table(points: list[SizePoint]) -> RichTable:
    """The growth figures, one row per size."""
    table = RichTable(title="The events table as it grows (medians)")
    for column in ("rows", "events table MB", "of which indexes MB", "bytes/event", "schema MB",
                   "campaign load ms", "page (start) ms", "page (tail) ms", "index lookup ms",
                   "append ms (p99)"):  # fmt: skip
        table.add_column(column, justify="right")
    for p in points:
        table.add_row(
            f"{p.rows:,}",
            f"{p.table_bytes / 1e6:,.1f}",
            f"{p.index_bytes / 1e6:,.1f}",
            f"{p.bytes_per_event:.0f}",
            f"{p.schema_bytes / 1e6:,.1f}",
            f"{p.load_ms:.2f}",
            f"{p.page_start_ms:.2f}",
            f"{p.page_tail_ms:.2f}",
            f"{p.lookup_ms:.2f}",
            f"{p.append_ms:.1f} ({p.append_p99_ms:.1f})",
        )
    return table


def print_summary(
    console: Console, rates: dict[str, float], terms: dict[str, Any], info: dict[str, Any]
) -> None:
    """The per-table rates and the figures in user terms."""
    table = RichTable(title="Real play, measured, and what one server carries")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, value in [*rates.items(), *terms.items()]:
        table.add_row(key.replace("_", " "), f"{value:,}" if isinstance(value, int) else str(value))
    table.add_row(
        "load average at start / end",
        f"{info['loadavg_at_start'][0]} / {info['loadavg_at_end'][0]}",
    )
    console.print(table)
    if "concurrent_tables" in terms:
        console.print(
            f"one server carries about {terms['concurrent_tables']:,} tables in session at once "
            f"({terms['sustained_commands_per_s']} commands/s, {terms['sustained_events_per_s']} "
            "events/s, sustained)"
        )
    else:
        console.print("no offered rate was sustained: no concurrent-table figure")
    if "gb_per_1000_campaign_years" in terms:
        console.print(
            f"1,000 campaigns of a year's play take about {terms['gb_per_1000_campaign_years']} GB"
        )
