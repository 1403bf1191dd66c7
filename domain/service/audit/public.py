"""Auditing a campaign from its public events alone, as ``GET /campaigns/{id}/events`` shows
them (a downloaded bundle, a stranger's copy): the hash chain, the seeds its reveals name and every
server roll, each roll with its own verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.model import chain
from domain.service.audit.rolls import Nonces, roll_verdict
from domain.service.audit.stored import AuditReport, commits_to, revealed_seeds


def audit_public_events(
    campaign_id: str, events: Sequence[Mapping[str, Any]]
) -> tuple[AuditReport, dict[str, str]]:
    """Audit a campaign from its public events alone (each as ``GET /campaigns/{id}/events``
    shows it): the hash chain, the seeds its reveals name, every server roll. Returns the report,
    with a verdict on each roll (verified, mismatch, awaiting_reveal, reported), and the seeds
    the log revealed."""
    report = AuditReport()
    revealed: dict[str, str] = {}
    rolls: list[tuple[int, dict[str, Any]]] = []
    nonces = Nonces(report)
    prev_hash = chain.GENESIS_HASH
    expected_version = 1
    for event in events:
        version = event.get("version")
        if isinstance(version, bool) or not isinstance(version, int):
            report.bad(expected_version, f"event number {expected_version} has no version")
            prev_hash = ""
            expected_version += 1
            continue
        if version != expected_version:
            report.bad(expected_version, f"version {expected_version} is missing")
        expected_version = version + 1
        data = event.get("data")
        data = data if isinstance(data, Mapping) else {}
        prev_hash = _check_public_link(report, campaign_id, event, data, prev_hash)
        if "revealed_seed" in data:
            commitment, seed = str(data.get("revealed_commitment")), str(data["revealed_seed"])
            if not commits_to(seed, commitment):
                report.bad(version, f"the revealed seed does not hash to {commitment}")
            revealed[commitment] = seed
        for commitment, seed in revealed_seeds(data).items():
            if not commits_to(seed, commitment):
                report.bad(version, f"the revealed seed does not hash to {commitment}")
            revealed[commitment] = seed
        records = data.get("rolls") or []
        if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
            report.bad(version, "the event's rolls are not a list of roll objects")
            continue
        for record in records:
            rolls.append((version, dict(record)))
    _judge_public_rolls(report, rolls, revealed, nonces)
    return report, revealed


def _check_public_link(
    report: AuditReport,
    campaign_id: str,
    event: Mapping[str, Any],
    data: Mapping[str, Any],
    prev_hash: str,
) -> str:
    """Check a public event's hash and its link to the previous one; answer its hash."""
    version = event["version"]
    body = {
        "campaign_id": campaign_id,
        "version": version,
        "type": event.get("type"),
        "timestamp": event.get("timestamp"),
        "data": dict(data),
        "prev_hash": event.get("prev_hash"),
    }
    if event.get("actor") is not None:
        body["actor"] = event["actor"]
    stored_hash = str(event.get("hash", ""))
    hash_ok = chain.hash_body(body) == stored_hash
    report.link(version, stored_hash, hash_ok=hash_ok, prev_ok=event.get("prev_hash") == prev_hash)
    return stored_hash


def _judge_public_rolls(
    report: AuditReport,
    rolls: list[tuple[int, dict[str, Any]]],
    revealed: Mapping[str, str],
    nonces: Nonces,
) -> None:
    """Give every roll of the public log its verdict, in log order, and count them."""
    for version, record in rolls:
        roll_id = str(record.get("roll_id"))
        status = _public_verdict(version, record, revealed, nonces)
        report.verdicts.append({"version": version, "roll_id": roll_id, "status": status})
        if status == "reported":
            report.rolls["reported"] += 1
        else:
            report.count_server_roll(record)
        if status == "mismatch":
            report.rolls["failed"] += 1
            report.failed_rolls.append(roll_id)
            report.problems.append(
                {"version": version, "problem": f"roll {roll_id} does not verify"}
            )
        elif status in ("verified", "awaiting_reveal"):
            report.rolls[status] += 1


def _public_verdict(
    version: int, record: Mapping[str, Any], revealed: Mapping[str, str], nonces: Nonces
) -> str:
    """One roll's verdict: reported, verified, mismatch or awaiting_reveal (a reused nonce is a
    mismatch)."""
    if record.get("source") == "reported":
        return "reported"
    proof = record.get("proof")
    if record.get("source") != "server" or not isinstance(proof, Mapping):
        return "mismatch"
    if nonces.reused(version, record):
        return "mismatch"
    verdict = roll_verdict(record, revealed)
    return "awaiting_reveal" if verdict is None else "verified" if verdict else "mismatch"
