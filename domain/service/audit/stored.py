"""Re-checking a campaign's log: the hash chain, every stored byte, every revealed server roll.

The audit also reports the time travel in the log: every rollback (who, when, why, which rolls it
undid), the rerolls (an undone roll followed by a later active roll for the same purpose), the
server rolls undone under the ``flag`` policy, and the fate rerolls (a roll recorded as replacing
an earlier one by a game's fate-reroll rule, e.g. G-CB-12), each with the roll it replaced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eventsourcing.persistence import Mapper, StoredEvent
from eventsourcing.utils import get_topic, resolve_topic

from domain.model import chain
from domain.model.dice.draw import commitment_of
from domain.service.audit.history import History
from domain.service.audit.read import (
    collection_paused,
    encoded,
    fast_read,
    read_as,
    read_fields,
    stored_fields,
)
from domain.service.audit.rolls import Nonces, ServerRolls


@dataclass
class AuditReport:
    """What an audit found: chain integrity, the first bad version, the verdict on each roll."""

    chain_ok: bool = True
    first_bad_version: int | None = None
    head_version: int = 0
    head_hash: str = chain.GENESIS_HASH
    problems: list[dict[str, Any]] = field(default_factory=list)
    rolls: dict[str, int] = field(
        default_factory=lambda: {
            "server": 0,
            "verified": 0,
            "awaiting_reveal": 0,
            "failed": 0,
            "reported": 0,
            "with_entropy": 0,
        }
    )
    failed_rolls: list[str] = field(default_factory=list)
    nonce_gaps: list[dict[str, Any]] = field(default_factory=list)
    """Server rolls whose nonce is not the next one under their commitment (``Nonces``)."""
    hashes: set[str] = field(default_factory=set)
    rollbacks: list[dict[str, Any]] = field(default_factory=list)
    rerolls: list[dict[str, Any]] = field(default_factory=list)
    flagged_rolls: list[str] = field(default_factory=list)
    fate_rerolls: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    """Each roll's verdict (``audit_public_events`` only): version, roll id, status."""
    resumed: dict[str, Any] | None = None
    """For an audit resumed from the verifier's point: that point and the first version read."""

    def bad(self, version: int, problem: str) -> None:
        """Record a broken event; the first one is the first bad version."""
        self.chain_ok = False
        if self.first_bad_version is None:
            self.first_bad_version = version
        self.problems.append({"version": version, "problem": problem})

    def link(self, version: int, stored_hash: str, *, hash_ok: bool, prev_ok: bool) -> None:
        """Record one event of the chain: its hash is the new head, and a broken hash or link
        is a problem at its version."""
        if not hash_ok:
            self.bad(version, "the event's hash does not match its contents")
        if not prev_ok:
            self.bad(version, "prev_hash does not match the previous event's hash")
        self.hashes.add(stored_hash)
        self.head_version = version
        self.head_hash = stored_hash

    @property
    def nonces_ok(self) -> bool:
        """Whether the server rolls under each commitment carry nonces 0, 1, 2, ... in order."""
        return not self.nonce_gaps

    @property
    def ok(self) -> bool:
        """Chain intact, no nonce missing or out of order, and no server roll failed."""
        return self.chain_ok and self.nonces_ok and self.rolls["failed"] == 0

    def count_server_roll(self, record: Mapping[str, Any]) -> None:
        """Count a server roll, and whether its player added entropy to it."""
        self.rolls["server"] += 1
        proof = record.get("proof")
        if isinstance(proof, dict) and proof.get("entropy") is not None:
            self.rolls["with_entropy"] += 1

    def as_dict(self, receipt: str | None = None) -> dict[str, Any]:
        """The report as JSON; given a receipt (a kept head hash), whether it is in the chain."""
        result: dict[str, Any] = {
            "ok": self.ok,
            "chain_ok": self.chain_ok,
            "first_bad_version": self.first_bad_version,
            "head": {"version": self.head_version, "hash": self.head_hash},
            "problems": self.problems,
            "rolls": dict(self.rolls),
            "failed_rolls": self.failed_rolls,
            "nonces_ok": self.nonces_ok,
            "nonce_gaps": self.nonce_gaps,
            "rollbacks": self.rollbacks,
            "rerolls": {"count": len(self.rerolls), "items": self.rerolls},
            "flagged_rolls": self.flagged_rolls,
            "fate_rerolls": {"count": len(self.fate_rerolls), "items": self.fate_rerolls},
        }
        if self.resumed is not None:
            result["resumed"] = self.resumed
        if receipt is not None:
            result["receipt"] = {"head": receipt, "in_chain": receipt in self.hashes}
            result["ok"] = result["ok"] and receipt in self.hashes
        return result


@dataclass(frozen=True)
class WindowStart:
    """Where an audit of part of a log begins (``resume``): the first version read, the
    ``prev_hash`` that version stores, and the nonce each commitment's first roll in the window
    must carry (a commitment not named starts at 0)."""

    version: int
    prev_hash: str
    nonces: dict[str, int]


def audit_stream(
    mapper: Mapper[Any],
    stored: Iterable[StoredEvent],
    actors: Mapping[int, str] | None = None,
    *,
    start: WindowStart | None = None,
) -> AuditReport:
    """Audit a campaign's stored events in version order (``actors``: who caused each one),
    from its first event or from ``start``."""
    actors = actors or {}
    report = AuditReport()
    revealed: dict[str, str] = {}
    nonces = Nonces(report)
    rolls = ServerRolls(report, nonces)
    history = History()
    commands = Commands()
    reader = Reader(mapper, report)
    prev_hash = chain.GENESIS_HASH if start is None else start.prev_hash
    expected_version = 1 if start is None else start.version
    if start is not None:
        nonces.next.update(start.nonces)
    with collection_paused():  # (every roll stays alive until the end)
        for item in stored:
            version = item.originator_version
            if version != expected_version:
                report.bad(expected_version, f"version {expected_version} is missing")
            expected_version = version + 1
            read = reader.read_and_link(item, prev_hash, actors.get(version))
            if read is None:  # it does not decode: the chain is broken here
                prev_hash = ""
                continue
            fields, prev_hash = read
            if "revealed_seed" in fields or "revealed_seeds" in fields:
                _collect_reveals(report, version, fields, revealed)
            records = roll_records(fields)
            for problem in (
                history.add(item.topic, version, fields, records or ()),
                commands.add(version, fields),
            ):
                if problem:
                    report.bad(version, problem)
            if records is None:
                report.bad(version, "the event's rolls are not a list of roll objects")
            elif records:
                rolls.add(version, records)
        rolls.judge(revealed)
        findings = history.findings()
    if commands.open is not None:
        first, last = commands.open
        report.bad(last, f"the command at versions {first} to {last} is missing events")
    for name, found in findings.items():
        getattr(report, name).extend(found)
    return report


def roll_records(fields: Mapping[str, Any]) -> Sequence[Mapping[str, Any]] | None:
    """An event's rolls (none: an empty list), or None if they are not a list of objects (a
    tampered event: the audit reports it at its version instead of failing)."""
    records = fields.get("rolls") or []
    if not isinstance(records, list | tuple):
        return None
    for record in records:
        if type(record) is not dict and not isinstance(
            record, Mapping
        ):  # (the ABC's check is slow)
            return None
    return records


class Reader:
    """Reads one audit's events: the fast path where it can prove an event (``read``),
    else the exact one; each event's bytes, hash and link are checked into the report."""

    def __init__(self, mapper: Mapper[Any], report: AuditReport) -> None:
        self.mapper = mapper
        self.report = report
        self._class_versions: dict[str, int | None] = {}
        self._campaign: tuple[object, str] | None = None

    def read_and_link(
        self, item: StoredEvent, prev_hash: str, actor: str | None
    ) -> tuple[dict[str, Any], str] | None:
        """Read one event, check its bytes, hash and link; its fields as the code reads them
        and its stored hash, or None if it does not decode."""
        version = item.originator_version
        found = fast_read(item, actor, self._campaign_text(item.originator_id))
        if found is not None and self._fast_readable(item.topic, found.stored_as):
            fields = found.stored_as
            prev_ok = fields.get("prev_hash") == prev_hash
            self.report.link(version, found.stored_hash, hash_ok=True, prev_ok=prev_ok)
            return read_as(fields, item.originator_id, version), found.stored_hash
        try:
            # Loaded as stored, and as the code reads it (upcast to the current version).
            stored_as = stored_fields(self.mapper, item)
            reencoded = encoded(self.mapper, stored_as)
            event_class = resolve_topic(item.topic)
            fields = read_fields(self.mapper, item, stored_as, event_class)
            if reencoded != item.state or get_topic(event_class) != item.topic:
                self.report.bad(
                    version, "the stored bytes are not the canonical encoding of the event"
                )
            return fields, _check_link(self.report, item, stored_as, fields, prev_hash, actor)
        except Exception as exc:  # a tampered row may not even decode, or hash
            self.report.bad(version, f"the stored event does not decode: {type(exc).__name__}")
            return None

    def _campaign_text(self, originator_id: object) -> str:
        """``str(originator_id)``, worked out once for the audit's campaign."""
        if self._campaign is None or (
            self._campaign[0] is not originator_id and self._campaign[0] != originator_id
        ):
            self._campaign = (originator_id, str(originator_id))
        return self._campaign[1]

    def _fast_readable(self, topic: str, stored_as: Mapping[str, Any]) -> bool:
        """Whether an event read on the fast path reads as stored: its topic names its class,
        and it is at the class's payload version (else the mapper upcasts it)."""
        if topic not in self._class_versions:
            try:
                event_class = resolve_topic(topic)
                named = get_topic(event_class) == topic
            except Exception:  # a topic no class answers to: the exact path reports it
                event_class, named = None, False
            self._class_versions[topic] = (
                getattr(event_class, "class_version", 1) if named else None
            )
        current = self._class_versions[topic]
        return current is not None and stored_as.get("class_version", 1) == current


def _check_link(
    report: AuditReport,
    item: StoredEvent,
    stored_as: Mapping[str, Any],
    fields: Mapping[str, Any],
    prev_hash: str,
    actor: str | None,
) -> str:
    """Check one event's hash and its link to the previous one; answer its stored hash."""
    version = item.originator_version
    # The hash covers the payload as it was stored, at its own payload version: an event of
    # an older version verifies although the code reads it upcast.
    stored_hash: str = stored_as.get("hash", "")
    computed = chain.event_hash(
        campaign_id=fields["originator_id"],
        version=version,
        event_type=item.topic,
        timestamp=stored_as["timestamp"],
        data=chain.split_event_fields(stored_as),
        prev_hash=stored_as.get("prev_hash", ""),
        actor=actor,
    )
    prev_ok = stored_as.get("prev_hash") == prev_hash
    report.link(version, stored_hash, hash_ok=computed == stored_hash, prev_ok=prev_ok)
    return stored_hash


def _collect_reveals(
    report: AuditReport, version: int, fields: Mapping[str, Any], revealed: dict[str, str]
) -> None:
    """Add the seeds an event reveals to ``revealed``, checking each against its commitment."""
    if "revealed_seed" in fields:
        commitment = fields.get("revealed_commitment")
        if type(commitment) is str:
            revealed[commitment] = str(fields["revealed_seed"])
        else:
            report.bad(version, "the revealed seed names no commitment")
    if "revealed_seeds" not in fields:
        return
    for commitment, seed in revealed_seeds(fields).items():
        if not commits_to(seed, commitment):
            report.bad(version, f"the revealed seed does not hash to {commitment}")
        revealed[commitment] = seed


class Commands:
    """Checks that the events of each command are stored together and complete.

    Every event names its command (``command_id``, its first version, and ``command_versions``,
    its first and last); events stored before they did name none and are not checked.
    """

    def __init__(self) -> None:
        self.open: tuple[int, int] | None = None
        """The command whose events are still expected."""

    def add(self, version: int, fields: Mapping[str, Any]) -> str | None:
        """Take note of one decoded event; a problem with its command, if any."""
        expected, self.open = self.open, None
        versions = fields.get("command_versions")
        if versions is None and "command_id" not in fields:
            return None if expected is None else "an event of an unfinished command is missing"
        if not (
            isinstance(versions, list)
            and len(versions) == 2
            and type(versions[0]) is int
            and type(versions[1]) is int
            and fields.get("command_id") == versions[0]
            and versions[0] <= version <= versions[1]
        ):
            return "the event's command_id and command_versions do not name its version"
        span = (versions[0], versions[1])
        if expected is not None and span != expected:
            return f"an event of the command at versions {expected[0]} to {expected[1]} is missing"
        if expected is None and version != span[0]:
            return f"the first events of the command at versions {span[0]} to {span[1]} are missing"
        if version < span[1]:
            self.open = span
        return None


def revealed_seeds(fields: Mapping[str, Any]) -> dict[str, str]:
    """The seeds an import event revealed (``revealed_seeds``), by commitment."""
    seeds = fields.get("revealed_seeds")
    if not isinstance(seeds, dict):
        return {}
    return {str(commitment): str(seed) for commitment, seed in seeds.items()}


def commits_to(seed: str, commitment: str) -> bool:
    """Whether a revealed seed's SHA-256 is the commitment."""
    try:
        return commitment_of(seed) == commitment
    except ValueError:
        return False
