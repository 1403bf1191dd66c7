"""docs/trust.md: its example checkpoint verifies with its example key, and its ten-line verifier
(Python and `cryptography` only) accepts a real checkpoint and refuses a forged one or the wrong
key."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import Checkpoint, NoteSigner, open_checkpoint, parse_verifier_key

DOC = Path(__file__).resolve().parents[2] / "docs" / "trust.md"
CAMPAIGN = UUID("266ee3da-6981-479f-a373-20c6e6008438")


def section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def fenced(text: str, language: str) -> list[str]:
    return [str(b) for b in re.findall(rf"^```{language}\n(.*?)^```$", text, re.S | re.M)]


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    [code] = fenced(section("A ten-line verifier"), "python")
    path = tmp_path_factory.mktemp("trust") / "verify_checkpoint.py"
    path.write_text(code, encoding="utf-8")
    return path


def run(script: Path, note: str, key: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    kept = tmp_path / "kept.txt"
    kept.write_text(note, encoding="utf-8", newline="")
    return subprocess.run(
        [sys.executable, "-I", str(script), str(kept), key],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_the_documented_checkpoint_verifies_with_the_documented_key() -> None:
    notes = fenced(section("Signed checkpoints"), "text")
    note, key = notes[0], notes[1].strip()
    found, by = open_checkpoint(note, [parse_verifier_key(key)])
    assert found.log_name == "dice.example.org" and found.campaign_id == CAMPAIGN
    assert by.text == key


def test_the_verifier_is_about_ten_lines(script: Path) -> None:
    code = [line for line in script.read_text().splitlines() if line.strip()]
    assert len(code) <= 16


def test_the_verifier_prints_what_a_real_checkpoint_signs(script: Path, tmp_path: Path) -> None:
    signer = NoteSigner("dice.example.org", Ed25519PrivateKey.generate())
    note = signer.sign(Checkpoint("dice.example.org", CAMPAIGN, 7, "ab" * 32).body())
    done = run(script, note, signer.verifier.text, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [f"dice.example.org/campaigns/{CAMPAIGN}", "7", "ab" * 32]


def test_the_verifier_refuses_a_forged_checkpoint(script: Path, tmp_path: Path) -> None:
    signer = NoteSigner("dice.example.org", Ed25519PrivateKey.generate())
    note = signer.sign(Checkpoint("dice.example.org", CAMPAIGN, 7, "ab" * 32).body())
    done = run(script, note.replace("\n7\n", "\n6\n"), signer.verifier.text, tmp_path)
    assert done.returncode != 0
    assert "InvalidSignature" in done.stderr


def test_the_verifier_refuses_another_key(script: Path, tmp_path: Path) -> None:
    signer = NoteSigner("dice.example.org", Ed25519PrivateKey.generate())
    other = NoteSigner("dice.example.org", Ed25519PrivateKey.generate())
    note = signer.sign(Checkpoint("dice.example.org", CAMPAIGN, 7, "ab" * 32).body())
    done = run(script, note, other.verifier.text, tmp_path)
    assert done.returncode != 0
    assert "no signature by this key" in done.stderr


def test_the_verifier_is_ten_lines_of_code() -> None:
    [code] = fenced(section("A ten-line verifier"), "python")
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
