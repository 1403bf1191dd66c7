"""In-process measurements on one long campaign: load its state (now and at a version) and audit it.

The campaign is built through the domain, exactly as the API would: ``create_campaign`` and then
``roll`` (a server d20) in a loop, so every event is hash-chained, every 100th version is
snapshotted, and every seed is stored as in production.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from domain.model.campaign import Campaign
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig


@dataclass
class Timing:
    """Repeated timings of one operation, in seconds."""

    samples: list[float]

    @property
    def median(self) -> float:
        """The median sample."""
        return statistics.median(self.samples)

    @property
    def spread(self) -> tuple[float, float]:
        """The fastest and the slowest sample."""
        return min(self.samples), max(self.samples)


@dataclass
class DomainResult:
    """Everything part (b) and (c) measured."""

    events: int
    at_version: int
    build_seconds: float
    current_cold: Timing
    current_warm: Timing
    at_version_cold: Timing
    audit: Timing
    audit_report: dict[str, Any]
    worst_case: Timing | None = None
    worst_case_version: int | None = None
    worst_case_replayed: int | None = None
    audit_revealed: Timing | None = None
    audit_revealed_report: dict[str, Any] | None = None
    reaudit: Timing | None = None
    """The audit resumed from the head of the first audit, after ``REAUDIT_EVENTS`` more."""
    reaudit_report: dict[str, Any] | None = None


REAUDIT_EVENTS = 100
"""Events appended after the audit, before the re-audit resumed from its head."""


class AuditRoute:
    """``GET /campaigns/{id}/audit`` on the real app (access control off, in process)."""

    def __init__(self, config: StoreConfig, campaign_id: UUID) -> None:
        from webapi.app import create_app

        self.app = Questlog(config)
        self.client = create_app(self.app, auth=False).test_client()
        self.path = f"/campaigns/{campaign_id}/audit"

    def __call__(self, query: str = "") -> dict[str, Any]:
        answer = self.client.get(self.path + query)
        if answer.status_code != 200:
            raise RuntimeError(f"GET {self.path}{query} answered {answer.status_code}")
        body: dict[str, Any] = answer.get_json()
        return body


def time_calls(
    call: Callable[[], Any], repeat: int, setup: Callable[[], Any] | None = None
) -> Timing:
    """Time ``call`` ``repeat`` times; ``setup`` (untimed) runs before each call."""
    samples = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        began = time.perf_counter()
        call()
        samples.append(time.perf_counter() - began)
    return Timing(samples)


def build_campaign(
    app: Questlog, events: int, progress: Callable[[int], None] | None = None
) -> UUID:
    """A campaign of exactly ``events`` events: its creation, then ``events - 1`` server d20s."""
    created = app.campaigns.create_campaign(
        game="quest-calendar",
        name="bench: a long campaign",
    )
    campaign_id = created.campaign_id
    for n in range(1, events):
        app.dice.roll(campaign_id, notation="d20", purpose="bench")
        if progress is not None and n % 1000 == 0:
            progress(n)
    assert app.campaign(campaign_id).version == events
    return campaign_id


def measure_domain(
    db: Path,
    *,
    events: int,
    at_version: int,
    repeat: int,
    audit_repeat: int,
    extras: bool = True,
    progress: Callable[[str], None] | None = None,
) -> DomainResult:
    """Build the campaign in a fresh store at ``db`` and take every timing of parts (b) and (c)."""
    config = StoreConfig(sqlite_path=db)
    say = progress or (lambda _text: None)
    builder = Questlog(config)
    began = time.perf_counter()
    campaign_id = build_campaign(
        builder, events, lambda n: say(f"built {n + 1:,} of {events:,} events")
    )
    build_seconds = time.perf_counter() - began
    say(f"built {events:,} events in {build_seconds:.1f} s; timing loads")

    # Cold: a new Questlog on the same store for every sample, so its aggregate cache is empty
    # (SQLite's pages are in the OS cache either way). Opening the app is not timed.
    fresh: list[Questlog] = []

    def open_fresh() -> None:
        # The one before is closed here, untimed: a Questlog holds its use cases, which hold it,
        # so only the cyclic collector would free it, perhaps inside a timed call.
        for app in fresh:
            app.close()
        fresh[:] = [Questlog(config)]

    current_cold = time_calls(lambda: fresh[0].campaign(campaign_id), repeat, open_fresh)
    at_version_cold = time_calls(
        lambda: fresh[0].campaign(campaign_id, version=at_version), repeat, open_fresh
    )
    warm_app = Questlog(config)
    warm_app.campaign(campaign_id)  # fills the aggregate cache
    current_warm = time_calls(lambda: warm_app.campaign(campaign_id), repeat)
    assert warm_app.campaign(campaign_id, version=at_version).version == at_version

    say("auditing through GET /campaigns/{id}/audit")
    route = AuditRoute(config, campaign_id)
    auditor = route.app
    audit = time_calls(route, audit_repeat)
    report = route()
    result = DomainResult(
        events=events,
        at_version=at_version,
        build_seconds=build_seconds,
        current_cold=current_cold,
        current_warm=current_warm,
        at_version_cold=at_version_cold,
        audit=audit,
        audit_report=report,
    )
    if extras and events - 1 > at_version:
        # Extra: with a snapshot every 100 versions, the version just before the head (9,999)
        # replays the most events after a snapshot (the head, 10,000, is itself a snapshot).
        worst = events - 1
        result.worst_case_version = worst
        interval = Questlog.snapshotting_intervals.get(Campaign)
        result.worst_case_replayed = worst % interval if interval else worst
        result.worst_case = time_calls(
            lambda: fresh[0].campaign(campaign_id, version=worst), repeat, open_fresh
        )
    # Re-audit: the verifier keeps the head it audited; more events come; it resumes from there.
    held = report["head"]
    for _ in range(REAUDIT_EVENTS):
        builder.dice.roll(campaign_id, notation="d20", purpose="bench: after the audit")
    resume = f"?after={held['version']}&after_hash={held['hash']}"
    result.reaudit = time_calls(lambda: route(resume), repeat)
    result.reaudit_report = route(resume)
    if extras:
        # Extra: rotate the seed so that the audit must also re-derive every one of the rolls.
        auditor.dice.rotate_seed(campaign_id)
        say("auditing again with the seed revealed")
        result.audit_revealed = time_calls(route, audit_repeat)
        result.audit_revealed_report = route()
    for app in (*fresh, warm_app, auditor, builder):
        app.close()
    return result
