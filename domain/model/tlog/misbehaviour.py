"""Proof of a log's misbehaviour from two signed statements that cannot both be true.

``check_pair`` takes two texts, each a signed log checkpoint (tlog-checkpoint), a tlog-proof
carrying its entry, or a campaign's signed checkpoint (``<log>/campaigns/<id>``, version, head
hash), checks every signature (and a proof's inclusion) against the log's keys, and finds a
conflict when:

- two tree heads of one origin and one size have different roots (a log signs one tree per
  size: two roots are two histories, a split view);
- two statements of one log about one campaign at one version name different event hashes (a
  tlog-proof's entry and a campaign checkpoint's head hash are the same chain hash);
- two tree heads of one origin and two sizes m < n, and a consistency proof from m to n (RFC
  9162 section 2.1.4) that reproduces the signed root at n but computes, for the first m
  leaves, another root than the one signed at m: under SHA-256's collision resistance the
  tree of size n has one prefix of size m, so the log signed two trees that cannot both be
  true (``consistency_roots``).

A consistency proof that is not of the larger tree, or given for a pair it cannot join, raises
``BadConsistencyProof`` (a ``NoteError``) saying why.

Anything that does not parse or verify raises a ``NoteError`` naming the text (A or B) and why.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from domain.model.signed_note import (
    MalformedNote,
    NoteError,
    VerifierKey,
    open_checkpoint,
    parse_note,
)
from domain.model.tlog.checkpoint import TreeHead, open_tree_head
from domain.model.tlog.merkle import (
    ProofError,
    consistency_roots,
    leaf_hash,
    verify_inclusion,
)
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


class BadConsistencyProof(NoteError):
    """A consistency proof given with a pair that cannot join its two tree heads, or that is
    not a proof of the larger tree; says why."""


def check_pair(
    a: str,
    b: str,
    log_keys: Iterable[VerifierKey],
    consistency: Sequence[bytes] | None = None,
) -> PairVerdict:
    """Whether texts ``a`` and ``b``, each verified against ``log_keys``, conflict.

    ``consistency``: the hashes of a consistency proof between the two tree heads (plain
    checkpoints or those inside tlog-proofs) of one origin and two sizes, from the smaller to
    the larger (RFC 9162 section 2.1.4.1; when the smaller size is a power of two, with the
    hash of the larger tree's first leaves of that size first, see ``consistency_roots``).
    """
    keys = list(log_keys)
    first, second = statement("A", a, keys), statement("B", b, keys)
    heads = _heads_conflict(first, second)
    if heads is not None:
        return PairVerdict(True, "proven", heads)
    entries = _entries_conflict(first, second)
    if entries is not None:
        return PairVerdict(True, "proven", entries)
    if consistency is not None:
        return _sizes_verdict(first, second, consistency)
    return PairVerdict(False, "no conflict", _no_conflict(first, second))


def pair_heads(a: str, b: str, log_keys: Iterable[VerifierKey]) -> tuple[TreeHead, TreeHead]:
    """The tree heads of ``a`` and ``b`` (verified), smaller size first, which a consistency
    proof can join: of one log and two sizes (else ``BadConsistencyProof``)."""
    keys = list(log_keys)
    small, large = _joinable(statement("A", a, keys), statement("B", b, keys))
    assert small.head is not None and large.head is not None
    return small.head, large.head


def _joinable(a: Statement, b: Statement) -> tuple[Statement, Statement]:
    if a.head is None or b.head is None or a.head.origin != b.head.origin:
        raise BadConsistencyProof(
            "a consistency proof joins two tree heads (checkpoints or tlog-proofs) of one log: "
            f"A is a {a.kind} of {a.log} and B a {b.kind} of {b.log}"
        )
    if a.head.size == b.head.size:
        raise BadConsistencyProof(
            f"a consistency proof joins two tree sizes: A and B are both of size {a.head.size}"
        )
    return (a, b) if a.head.size < b.head.size else (b, a)


def _sizes_verdict(a: Statement, b: Statement, proof: Sequence[bytes]) -> PairVerdict:
    """The verdict of a consistency proof between two tree heads of one log and two sizes."""
    small, large = _joinable(a, b)
    old_head, new_head = small.head, large.head
    assert old_head is not None and new_head is not None
    try:
        old_root, new_root = consistency_roots(
            old_head.size, new_head.size, proof, old_root=old_head.root
        )
    except ProofError as error:
        raise BadConsistencyProof(str(error)) from None
    if new_root != new_head.root:
        raise BadConsistencyProof(_not_of_the_tree(small, large, new_root))
    if old_root == old_head.root:
        return PairVerdict(
            False,
            "no conflict",
            f"no conflict: the consistency proof shows that the tree of size {old_head.size} "
            f"({small.label}) is the first {old_head.size} leaves of the tree of size "
            f"{new_head.size} ({large.label})",
        )
    return PairVerdict(
        True,
        "proven",
        f"misbehaviour proven: the log {new_head.origin} signed a tree of size {new_head.size} "
        f"({large.label}) whose first {old_head.size} leaves have the root {_b64(old_root)} by "
        f"the consistency proof (RFC 9162 section 2.1.4.2), and signed the root "
        f"{_b64(old_head.root)} for size {old_head.size} ({small.label}). A tree has one "
        "prefix of each size, so the log showed two different histories.",
    )


def _not_of_the_tree(small: Statement, large: Statement, computed: bytes) -> str:
    assert small.head is not None and large.head is not None
    words = (
        f"the consistency proof is not of {large.label}'s tree: it computes the root "
        f"{_b64(computed)} for size {large.head.size}, where {large.label} signed "
        f"{_b64(large.head.root)}"
    )
    if small.head.size & (small.head.size - 1) == 0:
        words += (
            f". From size {small.head.size}, a power of two, RFC 9162's proof omits the old "
            f"tree's hash and {small.label}'s root stood in for it, which cannot tell a proof "
            f"of another tree from a forged tree: give the proof with the hash of the first "
            f"{small.head.size} leaves of {large.label}'s tree first"
        )
    return words


def statement(label: str, text: str, keys: list[VerifierKey]) -> Statement:
    """Verify one text and read what it states; errors are prefixed with its label."""
    try:
        if text.startswith(HEADER + "\n"):
            return _proof(label, text, keys)
        body, _ = parse_note(text)
        if "/campaigns/" in body.split("\n", 1)[0]:
            checkpoint, key = open_checkpoint(text, keys)
            _signed_by_its_log(checkpoint.log_name, key)
            entry = LogEntry(checkpoint.campaign_id, checkpoint.version, checkpoint.head_hash)
            return Statement(label, "campaign checkpoint", checkpoint.log_name, key, entry=entry)
        head, key = open_tree_head(text, keys)
        _signed_by_its_log(head.origin, key)
        return Statement(label, "checkpoint", head.origin, key, head=head)
    except NoteError as error:
        raise type(error)(f"{label}: {error}") from None


def _proof(label: str, text: str, keys: list[VerifierKey]) -> Statement:
    proof = parse_tlog_proof(text)
    head, key = open_tree_head(proof.checkpoint, keys)
    _signed_by_its_log(head.origin, key)
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


def _signed_by_its_log(log: str, key: VerifierKey) -> None:
    """A log's key is named as its origin (tlog-policy "Defining a log"): a text naming log X
    but signed by another log's key is that log's forgery, no statement of X."""
    if log != key.name:
        raise MalformedNote(
            f"the text names the log (origin) {log!r} but is signed by the key {key.name!r}"
        )


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
    sizes = _two_sizes(a, b)
    if (
        a.entry is not None
        and b.entry is not None
        and (a.entry.campaign_id, a.entry.version) != (b.entry.campaign_id, b.entry.version)
    ):
        return (
            f"no conflict shown: A names {a.entry.words()} and B {b.entry.words()}, not the "
            "same campaign at the same version" + (f"; {sizes}" if sizes else "")
        )
    if sizes:
        return f"no conflict shown: {sizes}"
    if a.entry is not None and b.entry is not None:
        return f"no conflict shown: both name {a.entry.words()}"
    if a.head is not None and b.head is not None:
        return f"no conflict shown: both are the tree of size {a.head.size} with the same root"
    return (
        f"no conflict shown: A ({a.kind}) and B ({b.kind}) say nothing about the same tree size "
        "or the same campaign version"
    )


def _two_sizes(a: Statement, b: Statement) -> str | None:
    """What two tree heads of two sizes need to show a conflict: a consistency proof."""
    if a.head is None or b.head is None or a.head.size == b.head.size:
        return None
    low, high = sorted([a.head.size, b.head.size])
    return (
        f"the trees are of sizes {a.head.size} and {b.head.size}; two sizes conflict only "
        f"when no consistency proof joins them: add a consistency proof from size {low} to "
        f"size {high} of the larger tree to decide"
    )


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode()
