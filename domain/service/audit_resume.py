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

from domain.service.audit import AuditReport, WindowStart, audit_stream, stored_fields

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
    start = _window_start(mapper, read, point, new)
    if start is None:
        events = read(0, None)
        report = audit_stream(mapper, events, actors(0))
        first = 1
    else:
        before = read(start.version - 1, point.version - start.version + 1)
        report = audit_stream(mapper, [*before, *new], actors(start.version - 1), start=start)
        events = before
        first = start.version
    held = next((e for e in events if e.originator_version == point.version), None)
    stored = stored_fields(mapper, held).get("hash") if held is not None else None
    if stored != point.head_hash:
        report.bad(
            point.version,
            f"the chain's hash at version {point.version} is not the one the verifier holds "
            f"({point.head_hash})",
        )
    return report, first


def _window_start(
    mapper: Mapper[Any], read: ReadEvents, point: ResumePoint, new: Sequence[StoredEvent]
) -> WindowStart | None:
    """Where the window must begin (None: the whole log)."""
    continuing: set[str] = set()
    revealed: set[str] = set()
    for item in new:
        if item.topic in FULL_LOG_TOPICS:
            return None
        fields = stored_fields(mapper, item)
        continuing.update(_server_commitments(fields))
        if "revealed_commitment" in fields:
            revealed.add(str(fields["revealed_commitment"]))
    # Back from N: for each commitment still to place, its latest roll (the nonce to continue
    # from) or the event that committed to it; a revealed one always back to its commitment.
    nonces: dict[str, int] = {}
    first = point.version
    command_start: int | None = None
    upper = point.version
    while upper > 0 and (continuing or revealed or command_start is None):
        lower = max(0, upper - LOOK_BACK)
        for item in reversed(read(lower, upper - lower)):
            version = item.originator_version
            if item.topic in FULL_LOG_TOPICS:
                return None
            fields = stored_fields(mapper, item)
            if command_start is None:
                versions = fields.get("command_versions")
                command_start = int(versions[0]) if _is_span(versions) else version
                first = min(first, command_start)
            for commitment, nonce in reversed(_server_rolls(fields)):
                if commitment in continuing and commitment not in revealed:
                    continuing.discard(commitment)
                    nonces[commitment] = nonce
                    first = min(first, version)
            for commitment in _committed(fields):
                if commitment in continuing or commitment in revealed:
                    continuing.discard(commitment)
                    revealed.discard(commitment)
                    nonces.pop(commitment, None)
                    first = min(first, version)
            if not (continuing or revealed) and command_start is not None and version <= first:
                break
        upper = lower
    if continuing or revealed:
        return None  # a commitment nobody committed to: the full audit says what is wrong
    prior = read(first - 1, 1)
    if not prior or prior[0].originator_version != first:
        return None
    prev_hash = str(stored_fields(mapper, prior[0]).get("prev_hash", ""))
    return WindowStart(version=first, prev_hash=prev_hash, nonces=nonces)


def _is_span(value: Any) -> TypeGuard[list[int]]:
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)


def _server_rolls(fields: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(commitment, nonce) of each server roll of an event, latest last."""
    found = []
    for record in fields.get("rolls") or []:
        proof = record.get("proof") if isinstance(record, Mapping) else None
        if record.get("source") == "server" and isinstance(proof, Mapping):
            nonce = proof.get("nonce")
            if type(nonce) is int:
                found.append((str(proof.get("commitment")), nonce))
    return found


def _server_commitments(fields: Mapping[str, Any]) -> set[str]:
    return {commitment for commitment, _ in _server_rolls(fields)}


def _committed(fields: Mapping[str, Any]) -> list[str]:
    """The commitments an event makes: a campaign's first, or a rotation's new one."""
    commitment = fields.get("commitment")
    return [str(commitment)] if isinstance(commitment, str) else []
