"""Offline proofs that an entry is in the log, in the C2SP tlog-proof format, and their check.

::

    c2sp.org/tlog-proof@v1
    extra <base64 of the entry>        (optional)
    index <N>
    <base64 inclusion proof hash>...
    <empty line>
    <the checkpoint, with its signatures and cosignatures>

Questlog's proofs carry the entry itself (``<campaign id>\\n<version>\\n<event hash>\\n``) as
their extra data: it is unauthenticated until the inclusion proof binds its leaf hash to the
signed root, after which it says what the proof proves. Standard library only.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass
from uuid import UUID

from domain.model.signed_note import (
    NoteError,
    VerifierKey,
    parse_note,
)
from domain.model.tlog.checkpoint import TreeHead, open_tree_head
from domain.model.tlog.merkle import HASH_SIZE, ProofError, leaf_hash, verify_inclusion
from domain.model.tlog.policy import Policy, QuorumReport

HEADER = "c2sp.org/tlog-proof@v1"
"""The first line of a tlog-proof."""
_INDEX = re.compile(r"index (0|[1-9][0-9]{0,19})")
_ENTRY = re.compile(r"([0-9a-f-]{36})\n([1-9][0-9]{0,18})\n([0-9a-f]{64})\n")
MAX_PROOF_HASHES = 64


class MalformedProof(NoteError):
    """The text is not a tlog-proof; the message names the line and what is wrong."""

    verdict = "malformed"


@dataclass(frozen=True)
class TlogProof:
    """A tlog-proof: the entry's index, its inclusion proof, the checkpoint and the extra data."""

    index: int
    hashes: tuple[bytes, ...]
    checkpoint: str
    extra: bytes | None = None

    def text(self) -> str:
        """The proof as a ``.tlog-proof`` file holds it."""
        lines = [HEADER]
        if self.extra is not None:
            lines.append(f"extra {base64.b64encode(self.extra).decode()}")
        lines.append(f"index {self.index}")
        lines += [base64.b64encode(h).decode() for h in self.hashes]
        return "\n".join(lines) + "\n\n" + self.checkpoint


@dataclass(frozen=True)
class LogEntry:
    """What a Questlog log entry names: a campaign's event at a version, by its chain hash."""

    campaign_id: UUID
    version: int
    event_hash: str

    def words(self) -> str:
        """ "campaign <id> version <v> (hash <first 8 hex>)"."""
        return f"campaign {self.campaign_id} version {self.version} (hash {self.event_hash[:8]})"


def parse_entry(data: bytes) -> LogEntry:
    """Read a log entry's bytes: campaign id, version and event hash, one line each."""
    try:
        match = _ENTRY.fullmatch(data.decode("ascii"))
    except UnicodeDecodeError:
        match = None
    if match is None:
        raise MalformedProof("the entry is not '<campaign id>\\n<version>\\n<event hash>\\n'")
    campaign, version, event_hash = match.groups()
    try:
        campaign_id = UUID(campaign)
    except ValueError:
        raise MalformedProof(f"the entry's campaign id {campaign!r} is not a UUID") from None
    if str(campaign_id) != campaign:
        raise MalformedProof("the entry's campaign id is not a lowercase hyphenated UUID")
    return LogEntry(campaign_id, int(version), event_hash)


def parse_tlog_proof(text: str) -> TlogProof:
    """Read a tlog-proof (the checkpoint's signatures are not checked here)."""
    head, blank, checkpoint = text.partition("\n\n")
    if not blank:
        raise MalformedProof(
            "a tlog-proof's proof lines end with an empty line, then the checkpoint"
        )
    lines = head.split("\n")
    if lines[0] != HEADER:
        raise MalformedProof(f"line 1: a tlog-proof starts with {HEADER!r}")
    extra = None
    number = 2
    if len(lines) > 1 and lines[1].startswith("extra "):
        extra = _b64(lines[1][len("extra ") :], 2, "the extra data")
        number = 3
    match = _INDEX.fullmatch(lines[number - 1]) if len(lines) >= number else None
    if match is None:
        raise MalformedProof(f"line {number}: 'index <N>' (decimal, no leading zeroes)")
    proof_lines = lines[number:]
    if len(proof_lines) > MAX_PROOF_HASHES:
        raise MalformedProof(f"an inclusion proof has at most {MAX_PROOF_HASHES} hashes")
    hashes = []
    for n, line in enumerate(proof_lines, start=number + 1):
        value = _b64(line, n, "an inclusion proof hash")
        if len(value) != HASH_SIZE:
            raise MalformedProof(f"line {n}: an inclusion proof hash is {HASH_SIZE} bytes")
        hashes.append(value)
    parse_note(checkpoint)
    return TlogProof(int(match.group(1)), tuple(hashes), checkpoint, extra)


@dataclass(frozen=True)
class ProofVerdict:
    """What checking a tlog-proof found; ``ok`` when every check passed and the quorum is met.

    ``verdict`` is "verified", "not witnessed" (all verifies but the quorum is not met),
    "unknown key", "bad signature", "another log" or "not included"; ``message`` says it in
    words."""

    ok: bool
    verdict: str
    message: str
    tree_head: TreeHead | None = None
    log_key: VerifierKey | None = None
    cosigners: dict[str, int] | None = None
    quorum: QuorumReport | None = None


def check_tlog_proof(
    text: str, entry: bytes, log_keys: Iterable[VerifierKey], policy: Policy
) -> ProofVerdict:
    """Check a tlog-proof of ``entry``: the log's signature (a key of ``log_keys`` when any is
    given, which then win over the policy's ``log`` lines; else a key of the policy's logs;
    named as the origin), the witnesses' cosignatures against the policy's
    quorum, and the inclusion of the entry's leaf under the signed root (tlog-proof,
    "Verifying a tlog proof"). Raises ``MalformedProof`` (or ``MalformedNote``) when the text
    is not a tlog-proof."""
    proof = parse_tlog_proof(text)
    keys = list(log_keys) or list(policy.log_keys)
    try:
        head, key = open_tree_head(proof.checkpoint, keys)
    except NoteError as error:
        return ProofVerdict(False, error.verdict, f"the log's signature: {error}")
    if head.origin != key.name:
        return ProofVerdict(
            False,
            "another log",
            f"the checkpoint's origin {head.origin!r} is not its key's name {key.name!r}",
            head,
            key,
        )
    try:
        verify_inclusion(leaf_hash(entry), proof.index, head.size, proof.hashes, head.root)
    except ProofError as error:
        message = f"the entry is not at index {proof.index} of the checkpoint: {error}"
        return ProofVerdict(False, "not included", message, head, key)
    try:
        cosigners = policy.cosigners(proof.checkpoint)
    except NoteError as error:
        return ProofVerdict(False, error.verdict, f"a witness's cosignature: {error}", head, key)
    report = policy.report(cosigners)
    where = f"at index {proof.index} of {head.origin} size {head.size}"
    if not report.met:
        message = f"included {where}, but {report.words}"
        return ProofVerdict(False, "not witnessed", message, head, key, cosigners, report)
    message = f"included {where}; {report.words}"
    return ProofVerdict(True, "verified", message, head, key, cosigners, report)


def _b64(text: str, number: int, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise MalformedProof(f"line {number}: {what} is not valid base64") from None
