"""``questlog verify``: audit a campaign, a bundle or a signed checkpoint, as a stranger would."""

from __future__ import annotations

import json
import re
import sys
from uuid import UUID

import click
from rich.markup import escape
from rich.table import Table

from domain.facade import (
    CheckpointVerdict,
    InvalidInput,
    NotFound,
    ResumePoint,
    VerifierKey,
)
from webapi.cli import tlog_verify
from webapi.cli.common import console, open_store, parse_keys

HASH = re.compile(r"[0-9a-f]{64}")
"""A head hash, as the API takes it (``after_hash``)."""


@click.command()
@click.argument("campaign_id", required=False)
@click.option("--head", help="A head_hash receipt that must still be in the chain.")
@click.option(
    "--checkpoint",
    "checkpoint_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A signed checkpoint (an answer's `checkpoint`, as text or the answer's JSON): its "
    "signature must verify and the chain must have its hash at its version.",
)
@click.option(
    "--key",
    "verifier_keys",
    multiple=True,
    help="A verifier key to check checkpoints with (repeatable); default: the keys the store "
    "lists, or for --bundle the bundle's own keys. With --tlog-proof the log's signature must "
    "be by one of these keys (they win over the policy's log lines; without --key, the "
    "policy's); with --pair, the log's key (required without a store).",
)
@click.option(
    "--bundle",
    "bundle_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Verify this bundle (GET /campaigns/{id}/bundle) offline, without any store.",
)
@click.option(
    "--after",
    "after_version",
    type=click.IntRange(min=1),
    help="Resume from a version you verified before (with --after-hash): only what the events "
    "after it need is read.",
)
@click.option(
    "--after-hash",
    help="The head hash you hold for version --after: your last audit's head, or a signed "
    "checkpoint's. The chain must still have it there.",
)
@click.option(
    "--all",
    "every",
    is_flag=True,
    help="Audit every campaign of the store (after a restore, say); one line each.",
)
@tlog_verify.options
def verify(
    campaign_id: str | None,
    head: str | None,
    checkpoint_file: str | None,
    verifier_keys: tuple[str, ...],
    bundle_file: str | None,
    after_version: int | None,
    after_hash: str | None,
    every: bool,
) -> None:
    """Audit a campaign: the hash chain, every stored byte, every revealed roll, and with
    --checkpoint a signed checkpoint; with --all, every campaign; or, with --bundle, a
    downloaded bundle offline; with --tlog-proof and --policy, a campaign's proof in the
    host's Merkle log and its witnesses' quorum; with --pair, two conflicting checkpoints."""
    if sum((campaign_id is not None, bundle_file is not None, every)) > 1:
        raise click.UsageError("Give one of CAMPAIGN_ID, --all or --bundle FILE.")
    keys = parse_keys(verifier_keys)
    after = resume_point(after_version, after_hash)
    if after is not None and (campaign_id is None or bundle_file is not None or every):
        raise click.UsageError(
            "--after resumes one campaign's audit in the store: give its CAMPAIGN_ID alone, "
            "without --all or --bundle."
        )
    if after is not None and head is not None:
        raise click.UsageError(
            "--head looks for a receipt in the whole chain, and --after reads only from its "
            "window: check the receipt without --after."
        )
    if bundle_file is not None:
        if checkpoint_file is not None:
            raise click.UsageError(
                "--checkpoint checks a store's campaign; a bundle's are its own."
            )
        verify_bundle(bundle_file, head, keys)
        return
    if every:
        if head is not None or checkpoint_file is not None:
            raise click.UsageError(
                "--head and --checkpoint name one campaign's receipt; they cannot go with --all."
            )
        verify_all()
        return
    if campaign_id is None:
        raise click.UsageError("Give a CAMPAIGN_ID, --all, or --bundle FILE.")
    try:
        cid = UUID(campaign_id)
    except ValueError:
        raise click.BadParameter("not a campaign id (a UUID)", param_hint="CAMPAIGN_ID") from None
    note = None if checkpoint_file is None else read_checkpoint(checkpoint_file)
    verify_campaign(cid, head, note, keys, after)


def resume_point(version: int | None, head_hash: str | None) -> ResumePoint | None:
    """The point --after and --after-hash name (None without them), checked as the API does."""
    if version is None and head_hash is None:
        return None
    if version is None or head_hash is None:
        missing = "--after-hash" if head_hash is None else "--after"
        raise click.UsageError(f"Give --after and --after-hash together ({missing} is missing).")
    if not HASH.fullmatch(head_hash):
        raise click.BadParameter("must be a 64-character hex hash", param_hint="--after-hash")
    return ResumePoint(version, head_hash)


def verify_campaign(
    cid: UUID,
    head: str | None,
    note: str | None,
    keys: list[VerifierKey] | None,
    after: ResumePoint | None,
) -> None:
    """Audit one campaign of the store (from ``after`` if given), print it, exit with its
    verdict."""
    questlog = open_store()
    try:
        try:
            audited = questlog.reading.audit(cid, after=after)
        except InvalidInput as error:  # (the point is past the head)
            raise click.BadParameter(error.message, param_hint="--after") from None
        report = audited.as_dict(receipt=head)
        verdict = None if note is None else questlog.reading.check_checkpoint(cid, note, keys)
    except NotFound as error:
        console.print(f"[red]{error.message}[/red]")
        sys.exit(2)
    finally:
        questlog.close()
    if verdict is not None:
        print_checkpoint_verdict(verdict)
        report = {**report, "ok": report["ok"] and verdict.ok}
    print_audit(cid, report)
    sys.exit(0 if report["ok"] else 1)


def read_checkpoint(path: str) -> str:
    """A checkpoint file's note: the file's text, or the ``checkpoint`` of a saved JSON answer."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        console.print(f"[red]{escape(path)}: {escape(str(error))}[/red]")
        sys.exit(2)
    if text.lstrip().startswith("{"):
        try:
            saved = json.loads(text)
        except ValueError:
            return text
        if isinstance(saved, dict) and isinstance(saved.get("checkpoint"), str):
            return str(saved["checkpoint"])
    return text


CHECKPOINT_LABELS = {
    "ok": "[green]OK[/green]",
    "malformed": "[red]MALFORMED[/red]",
    "unknown key": "[red]UNKNOWN KEY[/red]",
    "bad signature": "[red]FORGED (bad signature)[/red]",
    "another campaign": "[red]ANOTHER CAMPAIGN[/red]",
    "another log": "[red]ANOTHER LOG[/red]",
    "rewritten": "[red]REWRITTEN[/red]",
}


def print_checkpoint_verdict(verdict: CheckpointVerdict) -> None:
    """One line: the checkpoint's verdict and what it means."""
    label = CHECKPOINT_LABELS.get(verdict.verdict, verdict.verdict)
    console.print(f"checkpoint: {label}: {escape(verdict.message)}")


def verify_all() -> None:
    """Audit every campaign of the store, one line each; exit 1 if any fails."""
    questlog = open_store()
    failed = checked = 0
    try:
        after = 0
        while True:
            page, cursor = questlog.reading.list_campaigns(after=after, limit=500)
            for _, created in page:
                report = questlog.reading.audit(created.originator_id)
                checked += 1
                failed += not report.ok
                verdict = "[green]OK[/green]" if report.ok else "[red]FAILED[/red]"
                console.print(f"{created.originator_id}  version {report.head_version}  {verdict}")
            if cursor is None:
                break
            after = cursor
    finally:
        questlog.close()
    console.print(f"{checked} campaigns audited, {failed} failed.")
    sys.exit(1 if failed else 0)


def verify_bundle(path: str, head: str | None, keys: list[VerifierKey] | None = None) -> None:
    """Check a bundle file and print each roll's verdict and every problem; exit 1 on any."""
    from domain.facade import bundles

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        found = bundles.check(data, keys)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        console.print(f"[red]{escape(path)}: {escape(str(error))}[/red]")
        sys.exit(2)
    report = found.report
    console.print(f"Bundle of campaign {escape(str(data.get('campaign_id')))}")
    console.print(f"head: version {report.head_version}, hash {report.head_hash}")
    for verdict in report.verdicts:
        colour = {"verified": "green", "mismatch": "red"}.get(verdict["status"], "yellow")
        console.print(
            f"  version {verdict['version']:>5}  roll {escape(verdict['roll_id']):<10} "
            f"[{colour}]{verdict['status']}[/{colour}]"
        )
    counts = ", ".join(f"{n} {name}" for name, n in report.rolls.items())
    console.print(f"rolls: {counts}")
    receipt_ok = head is None or head in report.hashes
    if not receipt_ok:
        console.print(f"[red]receipt {escape(head or '')} is not in the chain[/red]")
    for problem in [*report.problems, *found.problems]:  # the checkpoints' verdicts follow
        where = "bundle" if problem["version"] is None else f"version {problem['version']}"
        console.print(f"[red]{where}: {escape(problem['problem'])}[/red]")
    for checked in found.checkpoints:
        print_checkpoint_verdict(checked)
    if found.keys_source == "bundle":
        console.print(
            "[yellow]checkpoints checked with the bundle's own keys: this shows the bundle is "
            "consistent with itself; give --key (the host's published key) to tie it to the "
            "host[/yellow]"
        )
    ok = found.ok and receipt_ok
    console.print("[green]OK[/green]" if ok else "[red]FAILED[/red]")
    sys.exit(0 if ok else 1)


def print_audit(campaign_id: UUID, report: dict[str, object]) -> None:
    """Print an audit report as a short table."""
    table = Table(title=f"Audit of campaign {campaign_id}", show_header=False)
    table.add_row("chain", "[green]intact[/green]" if report["chain_ok"] else "[red]BROKEN[/red]")
    table.add_row("first bad version", str(report["first_bad_version"]))
    nonces_ok = report.get("nonces_ok", True)
    table.add_row(
        "nonces",
        "[green]in sequence[/green]" if nonces_ok else "[red]MISSING OR OUT OF ORDER[/red]",
    )
    head = dict(report["head"])  # type: ignore[call-overload]
    table.add_row("head", f"version {head['version']}, hash {head['hash']}")
    for name, count in dict(report["rolls"]).items():  # type: ignore[call-overload]
        table.add_row(f"rolls {name}", str(count))
    if "receipt" in report:
        table.add_row("receipt", str(report["receipt"]))
    if report.get("resumed") is not None:
        resumed = dict(report["resumed"])  # type: ignore[call-overload]
        table.add_row(
            "resumed",
            f"from your point at version {resumed['after']}; read from version "
            f"{resumed['read_from']} (the versions before it were not re-read)",
        )
    console.print(table)
    for problem in report["problems"]:  # type: ignore[attr-defined]
        console.print(f"[red]version {problem['version']}: {problem['problem']}[/red]")
    console.print("[green]OK[/green]" if report["ok"] else "[red]FAILED[/red]")
