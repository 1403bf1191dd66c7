"""A witness anyone can run: it cosigns a log's checkpoint only if it extends the last one it
cosigned for that log (C2SP tlog-witness ``add-checkpoint``), and never forgets a log.

``Witness.add_checkpoint`` takes a request body and returns the cosignature lines, or raises a
``WitnessRefusal`` whose ``status`` is the spec's: 404 unknown origin, 403 no valid signature by
a trusted key (no signature line at all, or a trusted key's signature failing), 400 malformed or
old size above the size, 409 old size not the one last cosigned (``cosigned_size`` says it),
422 a consistency proof that does not verify, a proof from old size 0, an empty tree with
another root, or one size with another root. The check of the old size and the record of the
new checkpoint are one transaction of the state file.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import (
    SIGNATURE_PREFIX,
    NoteError,
    Signature,
    UnsignedNote,
    VerifierKey,
    parse_note,
    parse_verifier_key,
)
from domain.model.tlog.checkpoint import TreeHead, parse_tree_head
from domain.model.tlog.cosignature import Cosigner, CosignerKey
from domain.model.tlog.merkle import EMPTY_ROOT, ProofError, verify_consistency
from domain.model.tlog.witness_protocol import (
    AddCheckpoint,
    MalformedRequest,
    parse_add_checkpoint,
)
from domain.storage.witness_state import Latest, Locked, WitnessState, origin_hash


class WitnessRefusal(Exception):
    """An add-checkpoint request the witness does not cosign; ``status`` is the HTTP status the
    spec gives it, the message says why."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class MalformedSubmission(WitnessRefusal):
    """The body, or its checkpoint, does not parse, or the old size is above the size."""

    status = 400


class UnknownLog(WitnessRefusal):
    """The checkpoint's origin is no log the witness follows."""

    status = 404


class NotSignedByLog(WitnessRefusal):
    """No valid signature by a trusted key of the origin, or a trusted key's signature fails."""

    status = 403


class StaleSize(WitnessRefusal):
    """The old size is not the size the witness last cosigned (``cosigned_size``)."""

    status = 409

    def __init__(self, message: str, cosigned_size: int) -> None:
        super().__init__(message)
        self.cosigned_size = cosigned_size


class Inconsistent(WitnessRefusal):
    """The checkpoint is not consistent with the last one cosigned (kept as a failure)."""

    status = 422


@dataclass(frozen=True)
class Submission:
    """A request that parsed and whose log signatures verified."""

    request: AddCheckpoint
    head: TreeHead
    body: str
    log_lines: tuple[str, ...]


def new_witness_key(state: WitnessState, name: str) -> CosignerKey:
    """Make the witness's Ed25519 key under ``name`` in a new state; its cosigner key."""
    cosigner = Cosigner(name, Ed25519PrivateKey.generate())
    state.make_key(name, cosigner.private_key.private_bytes_raw())
    return cosigner.key


def parse_log_keys(texts: Iterable[str]) -> list[VerifierKey]:
    """Parse log vkeys (their names are the logs' origins); a bad one raises ``NoteError``."""
    return [parse_verifier_key(text) for text in texts]


class Witness:
    """The witness over its state: its key and the logs it trusts, loaded once."""

    def __init__(self, state: WitnessState, clock: Callable[[], float] = time.time) -> None:
        self.state = state
        name, private = state.key()
        self.cosigner = Cosigner(name, Ed25519PrivateKey.from_private_bytes(private))
        self.clock = clock
        self.logs: dict[str, list[VerifierKey]] = {}
        for key in parse_log_keys(state.logs()):
            self.logs.setdefault(key.name, []).append(key)

    @property
    def key(self) -> CosignerKey:
        """The witness's cosigner key (its vkey is ``key.text``)."""
        return self.cosigner.key

    def add_checkpoint(self, data: bytes) -> str:
        """Check a request and cosign its checkpoint: the cosignature line(s) to answer."""
        submission = self.check_signed(data)
        head = submission.head
        with self.state.transaction() as locked:
            refusal = self._check_consistent(locked, submission, data)
            if refusal is None:
                line = self.cosigner.cosign(submission.body, max(1, int(self.clock())))
                note = submission.body + "\n" + "".join(submission.log_lines) + line
                locked.record(Latest(head.origin, head.size, head.root, note))
        if refusal is not None:
            raise refusal
        return line

    def latest(self, hashed_origin: str) -> str | None:
        """The latest checkpoint cosigned for the log whose origin hashes to ``hashed_origin``,
        with the log's signatures and the witness's cosignature (None if none)."""
        latest = self.state.latest_by_hash(hashed_origin)
        return None if latest is None else latest.checkpoint

    def check_signed(self, data: bytes) -> Submission:
        """Parse a request and verify its checkpoint's log signatures (no state read)."""
        try:
            request = parse_add_checkpoint(data)
            body, signatures = _split_checkpoint(request.checkpoint)
            head = parse_tree_head(body)
        except (MalformedRequest, NoteError) as error:
            raise MalformedSubmission(str(error)) from None
        keys = self.logs.get(head.origin)
        if not keys:
            raise UnknownLog(f"the witness follows no log with origin {head.origin!r}")
        log_lines = self._log_signatures(body, signatures, keys)
        if request.old_size > head.size:
            raise MalformedSubmission(
                f"the old size {request.old_size} is above the checkpoint's size {head.size}"
            )
        return Submission(request, head, body, log_lines)

    @staticmethod
    def _log_signatures(
        body: str, signatures: list[Signature], keys: list[VerifierKey]
    ) -> tuple[str, ...]:
        if not signatures:
            raise NotSignedByLog("the checkpoint carries no signature line")
        known = {(key.name, key.key_hash): key for key in keys}
        data = body.encode()
        lines = []
        for signature in signatures:
            key = known.get((signature.name, signature.key_hash))
            if key is None:
                continue
            if not key.verifies(data, signature.signature):
                raise NotSignedByLog(
                    f"the signature by {key.name}+{key.key_hash.hex()} does not verify"
                )
            blob = base64.b64encode(signature.key_hash + signature.signature).decode()
            lines.append(f"{SIGNATURE_PREFIX}{signature.name} {blob}\n")
        if not lines:
            raise NotSignedByLog(f"the checkpoint has no signature by a key of {keys[0].name}")
        return tuple(lines)

    @staticmethod
    def _check_consistent(
        locked: Locked, submission: Submission, data: bytes
    ) -> WitnessRefusal | None:
        """Under the state's lock: None when the checkpoint extends the last one cosigned."""
        request, head = submission.request, submission.head
        latest = locked.latest(head.origin)
        cosigned = 0 if latest is None else latest.size
        if request.old_size != cosigned:
            return StaleSize(
                f"the old size is {request.old_size}, but the witness last cosigned size "
                f"{cosigned} of {head.origin}",
                cosigned,
            )
        reason = _inconsistency(request, head, latest)
        if reason is None:
            return None
        locked.failure(head.origin, request.old_size, head.size, reason, data)
        return Inconsistent(reason)


def _split_checkpoint(checkpoint: str) -> tuple[str, list[Signature]]:
    """The checkpoint's body and signatures; a body and blank line with no signature line is
    no signature at all, which tlog-witness answers with 403 after the origin's 404 (as Go's
    note.Open returns an unverified note, not a malformed one, for it)."""
    try:
        return parse_note(checkpoint)
    except UnsignedNote as unsigned:
        return unsigned.body, []


def _inconsistency(request: AddCheckpoint, head: TreeHead, latest: Latest | None) -> str | None:
    """Why the checkpoint is not consistent with the latest cosigned one (None if it is)."""
    if head.size == 0 and head.root != EMPTY_ROOT:
        return "a checkpoint of size 0 must have the empty tree's root, SHA-256 of nothing"
    if request.old_size == 0:
        if request.proof:
            return "from old size 0 the consistency proof must be empty"
        return None
    assert latest is not None  # the old size is the cosigned size, above 0
    if request.old_size == head.size and latest.root != head.root:
        return f"size {head.size} was cosigned with another root: a log signs one tree per size"
    try:
        verify_consistency(request.old_size, head.size, request.proof, latest.root, head.root)
    except ProofError as error:
        return f"the consistency proof from size {request.old_size} does not verify: {error}"
    return None


__all__ = [
    "Inconsistent",
    "MalformedSubmission",
    "NotSignedByLog",
    "StaleSize",
    "UnknownLog",
    "Witness",
    "WitnessRefusal",
    "new_witness_key",
    "origin_hash",
    "parse_log_keys",
]
