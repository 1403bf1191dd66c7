"""Proof of a log's misbehaviour from two signed statements that cannot both be true.

``check_pair`` takes two texts, each a signed log checkpoint (tlog-checkpoint), a tlog-proof
carrying its entry, or a campaign's signed checkpoint (``<log>/campaigns/<id>``, version, head
hash), checks every signature (and a proof's inclusion) against the log's keys, and finds a
conflict when:

- two tree heads of one origin and one size have different roots (a log signs one tree per
  size: two roots are two histories, a split view);
- two statements of one log about one campaign at one version name different event hashes (a
  tlog-proof's entry and a campaign checkpoint's head hash are the same chain hash).

Anything that does not parse or verify raises a ``NoteError`` naming the text (A or B) and why.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass

from domain.model.signed_note import (
    MalformedNote,
    NoteError,
    VerifierKey,
    open_checkpoint,
    parse_note,
)
from domain.model.tlog.checkpoint import TreeHead, open_tree_head
from domain.model.tlog.merkle import ProofError, leaf_hash, verify_inclusion
from domain.model.tlog.proof import HEADER, LogEntry, parse_entry, parse_tlog_proof


@dataclass(frozen=True)
class PairVerdict:
    """Whether two texts prove the log misbehaved: ``verdict`` is "proven" or "no conflict"."""

    proven: bool
    verdict: str
    message: str


@dataclass(frozen=True)
class Statement:
    """What one signed text states: a tree head, an entry of a campaign, or both."""

    label: str
    kind: str
    log: str
    key: VerifierKey
    head: TreeHead | None = None
    entry: LogEntry | None = None


def check_pair(a: str, b: str, log_keys: Iterable[VerifierKey]) -> PairVerdict:
    """Whether texts ``a`` and ``b``, each verified against ``log_keys``, conflict."""
    keys = list(log_keys)
    first, second = statement("A", a, keys), statement("B", b, keys)
    heads = _heads_conflict(first, second)
    if heads is not None:
        return PairVerdict(True, "proven", heads)
    entries = _entries_conflict(first, second)
    if entries is not None:
        return PairVerdict(True, "proven", entries)
    return PairVerdict(False, "no conflict", _no_conflict(first, second))


def statement(label: str, text: str, keys: list[VerifierKey]) -> Statement:
    """Verify one text and read what it states; errors are prefixed with its label."""
    try:
        if text.startswith(HEADER + "\n"):
            return _proof(label, text, keys)
        body, _ = parse_note(text)
        if "/campaigns/" in body.split("\n", 1)[0]:
            checkpoint, key = open_checkpoint(text, keys)
            entry = LogEntry(checkpoint.campaign_id, checkpoint.version, checkpoint.head_hash)
            return Statement(label, "campaign checkpoint", checkpoint.log_name, key, entry=entry)
        head, key = open_tree_head(text, keys)
        return Statement(label, "checkpoint", head.origin, key, head=head)
    except NoteError as error:
        raise type(error)(f"{label}: {error}") from None


def _proof(label: str, text: str, keys: list[VerifierKey]) -> Statement:
    proof = parse_tlog_proof(text)
    head, key = open_tree_head(proof.checkpoint, keys)
    if proof.extra is None:
        return Statement(label, "tlog-proof", head.origin, key, head=head)
    entry = parse_entry(proof.extra)
    try:
        verify_inclusion(leaf_hash(proof.extra), proof.index, head.size, proof.hashes, head.root)
    except ProofError as error:
        raise MalformedNote(
            f"the proof's entry is not included in its checkpoint: {error}"
        ) from None
    return Statement(label, "tlog-proof", head.origin, key, head=head, entry=entry)


def _heads_conflict(a: Statement, b: Statement) -> str | None:
    if a.head is None or b.head is None:
        return None
    same = a.head.origin == b.head.origin and a.head.size == b.head.size
    if not same or a.head.root == b.head.root:
        return None
    return (
        f"misbehaviour proven: the log {a.head.origin} signed two different trees of size "
        f"{a.head.size}, with roots {_b64(a.head.root)} ({a.label}) and {_b64(b.head.root)} "
        f"({b.label}). A log signs one tree per size, so it showed two different histories."
    )


def _entries_conflict(a: Statement, b: Statement) -> str | None:
    if a.entry is None or b.entry is None or a.log != b.log:
        return None
    same = (a.entry.campaign_id, a.entry.version) == (b.entry.campaign_id, b.entry.version)
    if not same or a.entry.event_hash == b.entry.event_hash:
        return None
    return (
        f"misbehaviour proven: the log {a.log} signed two different events for campaign "
        f"{a.entry.campaign_id} at version {a.entry.version}: hash {a.entry.event_hash} in "
        f"{a.label} ({a.kind}) and {b.entry.event_hash} in {b.label} ({b.kind}). One campaign "
        "has one event per version, so the log showed two different histories."
    )


def _no_conflict(a: Statement, b: Statement) -> str:
    if a.log != b.log:
        return f"no conflict shown: A is of the log {a.log} and B of {b.log}"
    if a.head is not None and b.head is not None and a.head.size != b.head.size:
        return (
            f"no conflict shown: the trees are of sizes {a.head.size} and {b.head.size}; two "
            "sizes conflict only when no consistency proof joins them, which a witness checks"
        )
    if (
        a.entry is not None
        and b.entry is not None
        and (a.entry.campaign_id, a.entry.version) != (b.entry.campaign_id, b.entry.version)
    ):
        return (
            f"no conflict shown: A names {a.entry.words()} and B {b.entry.words()}, not the "
            "same campaign at the same version"
        )
    return "no conflict shown: both texts verify and agree"


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()
