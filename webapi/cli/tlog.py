"""``questlog log ...``: the host's transparency log (its Merkle tree of every event)."""

from __future__ import annotations

import click
from rich.markup import escape

from domain.facade import Transparency
from webapi.cli.common import console, open_store


@click.group("log")
def log_group() -> None:
    """The host's Merkle log of every event: sign a checkpoint, submit it to the witnesses."""


@log_group.command("checkpoint")
def log_checkpoint() -> None:
    """Add the new events to the log, sign its checkpoint and submit it to the policy's
    witnesses now (QUESTLOG_WITNESS_POLICY), each within QUESTLOG_WITNESS_TIMEOUT; print the
    checkpoint with the cosignatures it has, each witness's state and whether the policy's
    quorum is met. Exit 0 when signed and the quorum is met (or no policy is set); 1 when the
    quorum is not met, or naming each event found rewritten under the log."""
    questlog = open_store()
    try:
        transparency = questlog.transparency
        signed = transparency.publish(submit=False)
        assert signed is not None
        states = transparency.witnesses.submit_all(signed)
        note = transparency.latest_checkpoint()
        conflicts = transparency.conflicts()
        quorum = _quorum(transparency, signed.size)
    finally:
        questlog.close()
    click.echo(note, nl=False)
    for name, state in states.items():
        said = f": {state.error}" if state.error else ""
        console.print(f"witness {escape(name)}: {state.state}{escape(said)}", highlight=False)
    for found in conflicts:
        click.echo(
            f"error: campaign {found.campaign_id} version {found.version} is in the log with "
            f"hash {found.tree_hash}, but the store now holds {found.store_hash}: the store was "
            "rewritten under the log (the event is not appended again)",
            err=True,
        )
    if quorum is not None:
        met, words = quorum
        if met:
            console.print(f"quorum met: {escape(words)}", highlight=False)
        else:
            click.echo(
                f"error: the policy's quorum is not met: {words}; the checkpoint is signed "
                "but not witnessed (run again once the witnesses answer)",
                err=True,
            )
    if conflicts or (quorum is not None and not quorum[0]):
        raise SystemExit(1)


def _quorum(transparency: Transparency, size: int) -> tuple[bool, str] | None:
    """Whether the cosignatures kept on the checkpoint of ``size`` meet the host's policy, in
    words (None when no policy is set: nothing to meet)."""
    policy = transparency.witnesses.policy
    if policy is None:
        return None
    report = policy.report({c.witness for c in transparency.tables.cosignatures(size)})
    return report.met, report.words
