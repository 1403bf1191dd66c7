"""The messages docs/trust.md quotes are the ones the code prints: the checkpoint verdict of
`questlog verify` after a rewrite, the nonce gap every verifier names, and the output of the
ten-line verifier run on the doc's own checkpoint. Each quoted line is read from the doc (a hash
cut short with ``…`` stands for the whole hash)."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console

from domain.model.signed_note import Checkpoint, NoteSigner
from domain.service.audit.checkpoints import check_checkpoint
from domain.service.audit.rolls import Nonces
from domain.service.audit.stored import AuditReport
from tests.docs.examples import checked_block
from webapi.cli import verify as cli

HERE = Path(__file__).resolve()
TEST = HERE.relative_to(HERE.parents[2]).as_posix()
CAMPAIGN = UUID("266ee3da-6981-479f-a373-20c6e6008438")


def pattern(quoted: str) -> str:
    """The quoted line as a pattern: ``2c1e…`` is a whole hash that starts so."""
    parts = re.split(r"([0-9a-f]+)…", quoted.strip())
    return "".join(
        re.escape(part) if n % 2 == 0 else re.escape(part) + "[0-9a-f]*"
        for n, part in enumerate(parts)
    )


def test_the_rewritten_verdict_is_what_questlog_verify_prints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quoted = checked_block("trust.md", TEST, "REWRITTEN")
    version, signed, now = 5, "2c1e" + "0" * 60, "7f03" + "1" * 60
    signer = NoteSigner("dice.example.org", Ed25519PrivateKey.generate())
    note = signer.sign(Checkpoint("dice.example.org", CAMPAIGN, version, signed).body())
    verdict = check_checkpoint(
        note, [signer.verifier], campaign_id=CAMPAIGN, hash_at=lambda v: now if v == 5 else None
    )
    printed = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=printed, width=400, color_system=None))
    cli.print_checkpoint_verdict(verdict)
    assert re.fullmatch(pattern(quoted), printed.getvalue().strip()), printed.getvalue()


def test_the_nonce_gap_is_named_as_quoted() -> None:
    quoted = checked_block("trust.md", TEST, "missing from the log").strip()
    version, roll_id, nonce, missing = re.findall(
        r"^version (\d+): roll (\S+) carries nonce (\d+), but nonce (\d+) ", quoted
    )[0]
    report = AuditReport()
    nonces = Nonces(report)
    for earlier in range(int(missing)):  # the nonces before the missing one, in order
        nonces.reused(earlier + 1, {"roll_id": f"{earlier + 1}-1", "proof": proof(earlier)})
    nonces.reused(int(version), {"roll_id": roll_id, "proof": proof(int(nonce))})
    (gap,) = report.nonce_gaps
    assert f"version {gap['version']}: {gap['problem']}" == quoted
    assert gap["missing"] == [int(missing), int(nonce) - 1]


def proof(nonce: int) -> dict[str, object]:
    return {"commitment": "c" * 64, "nonce": nonce}


def test_the_ten_line_verifier_prints_what_the_doc_shows(tmp_path: Path) -> None:
    """The example printed version 1 for the doc's checkpoint, signed at version 2. The
    console block runs here as written: the doc's script on the doc's checkpoint and key."""
    console = checked_block("trust.md", TEST, "verify_checkpoint.py")
    command, *shown = console.strip().splitlines()
    script = checked_block("trust.md", "tests/unit/test_trust_doc.py", "Ed25519PublicKey")
    note = checked_block("trust.md", "tests/unit/test_trust_doc.py", "\n\n\u2014 ")
    (tmp_path / "verify_checkpoint.py").write_text(script, encoding="utf-8")
    (tmp_path / "kept.txt").write_text(note, encoding="utf-8", newline="")
    program, *arguments = shlex.split(command.removeprefix("$ "))
    assert program == "python3"
    done = subprocess.run(
        [sys.executable, "-I", *arguments],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == shown
    version = note.splitlines()[1]
    assert shown[0].split() == [note.splitlines()[0], version, note.splitlines()[2]]
    assert version == "2"
