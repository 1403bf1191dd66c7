"""Checking a signed checkpoint against a campaign's log: the signature, then the chain.

The verdicts, in the order they are decided:

- ``malformed``: not a signed note, or its body is not a checkpoint;
- ``unknown key``: no signature by any of the keys it was checked against;
- ``bad signature``: signed under a known key's name and hash, but the signature does not
  verify (forged, or altered after signing);
- ``another campaign`` / ``another log``: validly signed, but of another campaign, or by
  another log (its first line names another log name);
- ``rewritten``: validly signed, but the log no longer has that hash at that version (or no
  longer reaches that version): the log was rewritten after the checkpoint was signed;
- ``ok``: the log has the checkpoint's hash at its version (and so extends it, as far as the
  hash chain goes: the audit checks the chain itself).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from domain.model.signed_note import Checkpoint, NoteError, VerifierKey, open_checkpoint

REWRITTEN = "the log was rewritten after this checkpoint was signed"


@dataclass(frozen=True)
class CheckpointVerdict:
    """What checking a checkpoint found."""

    verdict: str
    message: str
    checkpoint: Checkpoint | None = None
    key: str | None = None
    """The verifier key that signed it (once the signature verified)."""
    log_hash: str | None = None
    """The log's hash at the checkpoint's version (None if the log ends before it)."""

    @property
    def ok(self) -> bool:
        """The signature verified and the log has the checkpoint's hash at its version."""
        return self.verdict == "ok"

    def as_dict(self) -> dict[str, Any]:
        """The verdict as JSON."""
        found = self.checkpoint
        return {
            "ok": self.ok,
            "verdict": self.verdict,
            "message": self.message,
            "key": self.key,
            "version": found.version if found else None,
            "checkpoint_hash": found.head_hash if found else None,
            "log_hash": self.log_hash,
        }


def check_checkpoint(
    note: str,
    keys: Iterable[VerifierKey],
    *,
    campaign_id: UUID,
    hash_at: Callable[[int], str | None],
    log_name: str | None = None,
) -> CheckpointVerdict:
    """Check a signed checkpoint of ``campaign_id`` against ``keys`` and the log.

    ``hash_at(version)`` is the log's stored hash at a version, or None past its head;
    ``log_name`` (if known) is the name the checkpoint's first line must carry.
    """
    try:
        found, key = open_checkpoint(note, keys)
    except NoteError as error:
        return CheckpointVerdict(error.verdict, str(error))
    signed = f"signed by {key.text}"
    if found.campaign_id != campaign_id:
        return CheckpointVerdict(
            "another campaign",
            f"the checkpoint ({signed}) is of campaign {found.campaign_id}, not {campaign_id}",
            found,
            key.text,
        )
    if log_name is not None and found.log_name != log_name:
        return CheckpointVerdict(
            "another log",
            f"the checkpoint ({signed}) is of the log {found.log_name!r}, not {log_name!r}",
            found,
            key.text,
        )
    log_hash = hash_at(found.version)
    if log_hash is None:
        return CheckpointVerdict(
            "rewritten",
            f"{REWRITTEN}: it names version {found.version} with hash {found.head_hash}, "
            f"but the log now ends before version {found.version}",
            found,
            key.text,
        )
    if log_hash != found.head_hash:
        return CheckpointVerdict(
            "rewritten",
            f"{REWRITTEN}: at version {found.version} the checkpoint has hash "
            f"{found.head_hash}, the log has hash {log_hash}",
            found,
            key.text,
            log_hash,
        )
    return CheckpointVerdict(
        "ok",
        f"the log has hash {log_hash} at version {found.version}, as the checkpoint ({signed}) "
        "says",
        found,
        key.text,
        log_hash,
    )


def hashes_by_version(events: Iterable[Any]) -> Callable[[int], str | None]:
    """``hash_at`` over a list of events as the API shows them (``version`` and ``hash``)."""
    hashes = {e.get("version"): e.get("hash") for e in events if isinstance(e.get("version"), int)}

    def hash_at(version: int) -> str | None:
        found = hashes.get(version)
        return found if isinstance(found, str) else None

    return hash_at
