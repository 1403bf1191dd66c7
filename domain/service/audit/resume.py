"""Re-auditing from a point the verifier has verified (``GET /campaigns/{id}/audit?after=``).

A verifier that audited a campaign up to version N keeps its head hash H (or a signed checkpoint,
which names both). It asks again with ``after=N`` and ``after_hash=H``: the audit then reads the
events after N, and as few before N as it needs, instead of the whole log. The point comes from
the verifier, so the host cannot move it: if the stored chain does not have H at N, the audit
says so and fails.

The window read is chosen so that every check of the full audit still holds for the new events:

- the chain: the events from the window's first version P to the head are re-hashed and linked,
  and the stored hash at N must be H, so the whole window is bound to what the verifier holds;
- the nonces: for each commitment a new server roll uses, the window reaches back to the latest
  earlier roll under it (its nonce is where the new ones must continue) or to the event that
  committed to it (then they start at 0);
- the reveals: a seed revealed after N has its rolls before N re-derived too, so the window
  reaches back to the event that committed to it;
- the commands: the window starts at the first event of a command;
- a rollback, a rollback vote or an import after N makes the audit read the whole log, since
  those findings look back over all of it.

The counts of the report cover the window read (``resumed.read_from``); a full audit, the
default, covers everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from eventsourcing.persistence import Mapper, StoredEvent

from domain.service.audit.read import stored_fields
from domain.service.audit.stored import AuditReport, WindowStart, audit_stream

FULL_LOG_TOPICS = frozenset(
    {
        "questlog.RolledBack",
        "questlog.RollbackProposed",
        "questlog.RollbackApproved",
        "questlog.CampaignImported",
    }
)
"""Events whose findings look back over the whole log: after one, the audit reads everything."""
LOOK_BACK = 100
"""Events read at a time while looking back for the window's start."""

ReadEvents = Callable[[int, int | None], list[StoredEvent]]
"""The campaign's stored events after a version, at most a number of them (None: all)."""


@dataclass(frozen=True)
class ResumePoint:
    """A version the verifier has verified, and the chain's hash there as it holds it."""

    version: int
    head_hash: str


def resumed_audit(
    mapper: Mapper[Any],
    read: ReadEvents,
    point: ResumePoint,
    actors: Callable[[int], Mapping[int, str]],
) -> tuple[AuditReport, int]:
    """Audit from the verifier's point; returns the report and the first version read.
    ``actors(v)``: who caused each event after version v."""
    new = read(point.version, None)
    window = _window(mapper, read, point, new)
    if window is None:
        events = read(0, None)
        report = audit_stream(mapper, events, actors(0))
        first = 1
    else:
        start, events = window
        report = audit_stream(mapper, [*events, *new], actors(start.version - 1), start=start)
        first = start.version
    held = next((e for e in events if e.originator_version == point.version), None)
    held_fields = _fields(mapper, held) if held is not None else None
    stored = held_fields.get("hash") if held_fields is not None else None
    if stored != point.head_hash:
        report.bad(
            point.version,
            f"the chain's hash at version {point.version} is not the one the verifier holds "
            f"({point.head_hash})",
        )
    return report, first


def _window(
    mapper: Mapper[Any], read: ReadEvents, point: ResumePoint, new: Sequence[StoredEvent]
) -> tuple[WindowStart, list[StoredEvent]] | None:
    """The window's start and its events up to the point (None: read the whole log)."""
    continuing: set[str] = set()
    revealed: set[str] = set()
    for item in new:
        fields = _fields(mapper, item)
        if item.topic in FULL_LOG_TOPICS or fields is None:
            return None
        continuing.update(commitment for commitment, _ in _server_rolls(fields))
        if "revealed_commitment" in fields:
            revealed.add(str(fields["revealed_commitment"]))
    first = _first_version(mapper, read, point, continuing, revealed)
    if first is None:
        return None
    # The window starts at the first event of a command (its events are checked together).
    while True:
        events = _versions(read, first - 1, point.version)
        if events is None:
            return None
        opening = _fields(mapper, events[0])
        if opening is None:
            return None
        versions = opening.get("command_versions")
        if not (_is_span(versions) and 1 <= versions[0] < first):
            break
        first = versions[0]
    # The nonces under each commitment continue from the first roll of the window under it: the
    # events up to the point are those the verifier verified (the hash at the point binds them).
    nonces: dict[str, int] = {}
    for item in events:
        fields = _fields(mapper, item)
        if fields is None or item.topic in FULL_LOG_TOPICS:
            return None
        for commitment, nonce in _server_rolls(fields):
            nonces.setdefault(commitment, nonce)
    prev_hash = str(opening.get("prev_hash", ""))
    return WindowStart(version=first, prev_hash=prev_hash, nonces=nonces), events


def _first_version(
    mapper: Mapper[Any],
    read: ReadEvents,
    point: ResumePoint,
    continuing: set[str],
    revealed: set[str],
) -> int | None:
    """How far back from the point the window must reach (None: the whole log): to the latest
    roll under each commitment the new rolls continue, to the event that committed to each one
    revealed after the point (all its rolls are re-derived), and to the point's own command."""
    continuing, revealed = set(continuing), set(revealed)
    first = point.version
    upper = point.version
    while upper > 0 and (continuing or revealed):
        lower = max(0, upper - LOOK_BACK)
        batch = _versions(read, lower, upper)
        if batch is None:
            return None
        for item in reversed(batch):
            fields = _fields(mapper, item)
            if item.topic in FULL_LOG_TOPICS or fields is None:
                return None
            for commitment, _ in _server_rolls(fields):
                if commitment in continuing and commitment not in revealed:
                    continuing.discard(commitment)
                    first = min(first, item.originator_version)
            for commitment in _committed(fields):
                if commitment in continuing or commitment in revealed:
                    continuing.discard(commitment)
                    revealed.discard(commitment)
                    first = min(first, item.originator_version)
            if not (continuing or revealed):
                break
        upper = lower
    if continuing or revealed:
        return None  # a commitment nobody committed to: the full audit says what is wrong
    return first


def _versions(read: ReadEvents, after: int, upto: int) -> list[StoredEvent] | None:
    """Exactly the events after version ``after`` up to ``upto``, or None if any is missing (a
    log with a hole is audited whole, which reports the hole)."""
    events = [e for e in read(after, upto - after) if e.originator_version <= upto]
    if [e.originator_version for e in events] != list(range(after + 1, upto + 1)):
        return None
    return events


def _fields(mapper: Mapper[Any], item: StoredEvent) -> dict[str, Any] | None:
    """An event's stored fields, or None if it does not decode (the full audit reports it)."""
    try:
        return stored_fields(mapper, item)
    except Exception:
        return None


def _is_span(value: Any) -> TypeGuard[list[int]]:
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)


def _server_rolls(fields: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(commitment, nonce) of each server roll of an event, in the event's order."""
    found = []
    for record in fields.get("rolls") or []:
        proof = record.get("proof") if isinstance(record, Mapping) else None
        if record.get("source") == "server" and isinstance(proof, Mapping):
            nonce = proof.get("nonce")
            if type(nonce) is int:
                found.append((str(proof.get("commitment")), nonce))
    return found


def _committed(fields: Mapping[str, Any]) -> list[str]:
    """The commitments an event makes: a campaign's first, or a rotation's new one."""
    commitment = fields.get("commitment")
    return [str(commitment)] if isinstance(commitment, str) else []
