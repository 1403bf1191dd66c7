"""``questlog verify --tlog-proof FILE --policy FILE`` and ``questlog verify --pair A B``: the
checks of the host's Merkle log that need no store.

``--tlog-proof`` checks a C2SP tlog-proof of a campaign's event against a tlog-policy: the log's
signature (by a ``--key`` when given, which wins over the policy's ``log`` lines), the
inclusion of the entry, and the witnesses' cosignatures against the quorum. The entry is the
one the proof carries as its extra data (which the inclusion proof then authenticates), or
``--campaign``, ``--version`` and ``--hash`` for a proof that carries none; named beside a proof
that carries another, they make it "ANOTHER EVENT". Exit 0 when the proof verifies and the
quorum is met, 1 when not (or another event), 2 on bad input.

``--pair`` checks two signed texts (log checkpoints, tlog-proofs or campaign checkpoints) for a
conflict that proves the log misbehaved. Two tree heads of two sizes need a consistency proof
between them (RFC 9162 section 2.1.4): ``--consistency FILE`` or ``--tiles URL`` (see
``webapi/cli/tlog_pair.py``). Exit 0 when proven, 1 when no conflict is shown, 2 on bad input
or a text that does not verify.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, NoReturn
from uuid import UUID

import click
from rich.markup import escape

from domain.facade import (
    LogEntry,
    NoteError,
    PolicyError,
    VerifierKey,
    check_pair,
    check_tlog_proof,
    log_entry,
    parse_entry,
    parse_policy,
    parse_tlog_proof,
)
from webapi.cli.common import console, open_existing_store, parse_keys
from webapi.cli.tlog_pair import PairInputError, read_consistency, tiles_consistency

TLOG_OPTIONS = (
    "tlog_proof",
    "policy_file",
    "pair",
    "campaign",
    "entry_version",
    "event_hash",
    "tiles",
    "consistency_file",
)
_OTHERS = ("campaign_id", "head", "checkpoint_file", "bundle_file", "after_version", "after_hash")


def options(command: Callable[..., None]) -> Callable[..., None]:
    """Add the Merkle log's options to ``questlog verify``; with --tlog-proof or --pair the
    command runs them instead of a campaign's audit."""

    @functools.wraps(command)
    def run(**given: Any) -> None:
        tlog = {name: given.pop(name) for name in TLOG_OPTIONS}
        if tlog["tlog_proof"] is None and tlog["pair"] is None:
            if any(tlog[name] is not None for name in TLOG_OPTIONS):
                raise click.UsageError(
                    "--policy, --campaign, --version and --hash go with --tlog-proof FILE; "
                    "--tiles and --consistency with --pair A B."
                )
            command(**given)
            return
        if given.get("every") or any(given.get(name) is not None for name in _OTHERS):
            raise click.UsageError("--tlog-proof and --pair check files alone: give no campaign.")
        keys = parse_keys(given["verifier_keys"])
        if tlog["pair"] is not None:
            if tlog["tlog_proof"] is not None:
                raise click.UsageError("Give --tlog-proof or --pair, not both.")
            verify_pair(tlog, keys)
        else:
            if tlog["tiles"] is not None or tlog["consistency_file"] is not None:
                raise click.UsageError("--tiles and --consistency go with --pair A B.")
            verify_tlog_proof(tlog, keys)

    for option in reversed(_OPTIONS):
        run = option(run)
    return run


_OPTIONS = [
    click.option(
        "--tlog-proof",
        type=click.Path(exists=True, dir_okay=False),
        help="A tlog-proof (GET /campaigns/{id}/tlog-proof) to check against --policy, offline.",
    ),
    click.option(
        "--policy",
        "policy_file",
        type=click.Path(exists=True, dir_okay=False),
        help="The tlog-policy (logs, witnesses, quorum) the --tlog-proof must meet.",
    ),
    click.option(
        "--campaign",
        help="With --tlog-proof: the campaign id the proven entry must name (with --version and "
        "--hash; a proof of another event is ANOTHER EVENT, exit 1); default: the entry the "
        "proof carries.",
    ),
    click.option(
        "--version",
        "entry_version",
        type=click.IntRange(min=1),
        help="With --tlog-proof and --campaign: the version the entry must name.",
    ),
    click.option(
        "--hash",
        "event_hash",
        help="With --tlog-proof and --campaign: the event's chain hash (64 hex, either case) it "
        "must name.",
    ),
    click.option(
        "--pair",
        nargs=2,
        type=click.Path(exists=True, dir_okay=False),
        help="Two signed checkpoints or tlog-proofs that conflict: prove the log misbehaved "
        "(checked with --key, default the store's keys).",
    ),
    click.option(
        "--tiles",
        metavar="URL",
        help="With --pair of two tree sizes: the log's tile prefix (e.g. http://host:8000/log) "
        "to build the consistency proof from its hash tiles.",
    ),
    click.option(
        "--consistency",
        "consistency_file",
        type=click.Path(exists=True, dir_okay=False),
        help="With --pair of two tree sizes: a consistency proof from the smaller to the "
        "larger, base64 hashes one per line.",
    ),
]


def verify_tlog_proof(tlog: dict[str, Any], keys: list[VerifierKey] | None) -> None:
    """Check a tlog-proof against a policy; print the verdict in words; exit with it."""
    if tlog["policy_file"] is None:
        raise click.UsageError("--tlog-proof needs --policy FILE (the witnesses and the quorum).")
    text = _read(tlog["tlog_proof"], "--tlog-proof")
    try:
        policy = parse_policy(_read(tlog["policy_file"], "--policy"))
    except PolicyError as error:
        raise click.BadParameter(str(error), param_hint="--policy") from None
    try:
        carried = parse_tlog_proof(text).extra
        named = _named(tlog)
        entry = carried if carried is not None else named
        if entry is None:
            raise click.UsageError(
                "the proof carries no entry: give --campaign, --version and --hash."
            )
        shown = parse_entry(entry)
        console.print(
            f"entry: campaign {shown.campaign_id}, version {shown.version}, "
            f"event hash {shown.event_hash}"
        )
        if named is not None and named != entry:
            _another_event(shown, parse_entry(named))
        verdict = check_tlog_proof(text, entry, keys or [], policy)
    except NoteError as error:
        _bad_input(f"{tlog['tlog_proof']}: {error}")
    head = verdict.tree_head
    if head is not None:
        console.print(f"log: {escape(head.origin)}, tree size {head.size}")
    colour = "green" if verdict.ok else "red"
    console.print(f"[{colour}]{verdict.verdict.upper()}[/{colour}]: {escape(verdict.message)}")
    sys.exit(0 if verdict.ok else 1)


def _named(tlog: dict[str, Any]) -> bytes | None:
    """The entry --campaign, --version and --hash name (None when none is given)."""
    given = {
        "--campaign": tlog["campaign"],
        "--version": tlog["entry_version"],
        "--hash": tlog["event_hash"],
    }
    if all(value is None for value in given.values()):
        return None
    missing = [option for option, value in given.items() if value is None]
    if missing:
        raise click.UsageError(
            f"Give --campaign, --version and --hash together: missing {', '.join(missing)}."
        )
    try:
        campaign = UUID(tlog["campaign"])
    except ValueError:
        raise click.BadParameter("not a campaign id (a UUID)", param_hint="--campaign") from None
    try:
        return log_entry(campaign, tlog["entry_version"], tlog["event_hash"].lower())
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--hash") from None


def _another_event(proven: LogEntry, named: LogEntry) -> NoReturn:
    """The proof is of another event than the one named on the command line: say which, exit 1
    (the event named may well be in the log: this proof does not say)."""
    campaign = "" if named.campaign_id == proven.campaign_id else f"campaign {named.campaign_id} "
    console.print(
        f"[red]ANOTHER EVENT[/red]: the proof is of {proven.words()}, not of the event you "
        f"named ({campaign}version {named.version}, hash {named.event_hash[:8]})",
        highlight=False,
    )
    sys.exit(1)


def verify_pair(tlog: dict[str, Any], keys: list[VerifierKey] | None) -> None:
    """Check two signed texts for a conflict (with a consistency proof from --consistency or
    --tiles when they are two sizes); print it in words; exit 0 proven, 1 not, 2 bad input."""
    if tlog["tiles"] is not None and tlog["consistency_file"] is not None:
        raise click.UsageError("Give --tiles or --consistency, not both.")
    first, second = tlog["pair"]
    texts = _read(first, "--pair"), _read(second, "--pair")
    keys = keys if keys is not None else _store_keys()
    try:
        verdict = check_pair(*texts, keys)
    except NoteError as error:
        _bad_input(str(error))
    option = "--tiles" if tlog["tiles"] is not None else "--consistency"
    if not verdict.proven and (tlog["tiles"] or tlog["consistency_file"]):
        try:
            if tlog["tiles"] is not None:
                proof = tiles_consistency(tlog["tiles"], texts, keys)
            else:
                proof = read_consistency(_read(tlog["consistency_file"], option))
            verdict = check_pair(*texts, keys, proof)
        except (PairInputError, NoteError) as error:
            _bad_input(f"{option}: {error}")
    colour = "red" if verdict.proven else "yellow"
    console.print(f"[{colour}]{escape(verdict.message)}[/{colour}]")
    if "add a consistency proof" in verdict.message:
        console.print("(--tiles URL builds it from the log's tiles; --consistency FILE reads it)")
    sys.exit(0 if verdict.proven else 1)


def _store_keys() -> list[VerifierKey]:
    """The verifier keys of the store the environment names (without --key); no store is bad
    input (exit 2), not "no conflict" (exit 1)."""
    try:
        questlog = open_existing_store()
    except click.ClickException as error:
        _bad_input(f"give the log's key with --key (or QUESTLOG_DB for a store): {error.message}")
    try:
        return [listed.verifier for listed in questlog.key_ring.current().keys]
    finally:
        questlog.close()


def _read(path: str, option: str) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise click.BadParameter(f"{path}: {error}", param_hint=option) from None


def _bad_input(message: str) -> NoReturn:
    console.print(f"[red]{escape(message)}[/red]")
    sys.exit(2)
