"""Go's signed-note code, which Questlog did not write, opens a checkpoint carrying our log's
signature and our witnesses' cosignatures.

``tests/interop/gonote`` is a small Go program over ``golang.org/x/mod/sumdb/note`` (Debian's
golang-golang-x-mod-dev, built offline): the log's key goes through ``note.NewVerifier``, the
witnesses' through a ``note.Verifier`` for Ed25519 cosignature/v1 written in Go from the C2SP
tlog-cosignature spec with crypto/ed25519 (the only code of ours on the Go side). The witnesses'
cosignatures are made the way ``questlog witness serve`` makes them: by the witness service over
its state file, answering add-checkpoint. Honest notes must open with every signature verified;
tampered ones must be refused.
"""

from __future__ import annotations

import base64
import json
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from domain.model.tlog.witness_protocol import AddCheckpoint
from domain.service.witness import Witness, new_witness_key
from domain.storage.witness_state import WitnessState
from tests.interop.go_build import build_go_program
from tests.tlog_fakes import FakeLog, cosigner

NAMES = ("witness.test/w1", "witness.test/w2", "witness.test/w3")


@pytest.fixture(scope="module")
def gonote(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go program, built offline against Debian's x/mod (a skip, under CI a failure, if Go
    or x/mod is missing)."""
    return build_go_program("gonote", "note", tmp_path_factory.mktemp("gonote"))


def run_go(binary: Path, cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Go's verdict on each case, by the case's name."""
    done = subprocess.run(
        [str(binary)], input=json.dumps(cases).encode(), capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    return {verdict["name"]: verdict for verdict in json.loads(done.stdout)}


def witnessed(tmp_path: Path, log: FakeLog) -> tuple[str, list[str], list[int]]:
    """The log's checkpoint cosigned by three witnesses, each a witness service over its own
    state answering add-checkpoint: the note, the witnesses' vkeys and their timestamps."""
    note, vkeys, times = log.checkpoint(), [], []
    for n, name in enumerate(NAMES):
        state = WitnessState(tmp_path / f"w{n}.db", create=True)
        vkeys.append(new_witness_key(state, name).text)
        state.add_logs([(log.signer.verifier.text, log.origin)])
        times.append(1_700_000_000 + n)
        witness = Witness(state, clock=lambda t=times[-1]: float(t))
        note += witness.add_checkpoint(AddCheckpoint(0, (), log.checkpoint()).body())
    return note, vkeys, times


def case(name: str, note: str, log: FakeLog, witnesses: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "note": note,
        "log_keys": [log.signer.verifier.text],
        "witnesses": witnesses,
    }


def tampered_line(note: str, line_number: int, change: Any) -> str:
    """The note with the signature bytes of one signature line changed by ``change``."""
    lines = note.split("\n")
    prefix, _, blob = lines[line_number].rpartition(" ")
    lines[line_number] = f"{prefix} {base64.b64encode(change(base64.b64decode(blob))).decode()}"
    return "\n".join(lines)


def test_go_opens_our_cosigned_checkpoint(gonote: Path, tmp_path: Path) -> None:
    """signed-note and tlog-cosignature: Go verifies the log's Ed25519 signature with
    note.NewVerifier and each cosignature/v1 with a verifier written from the spec."""
    log = FakeLog("questlog.test/log").append(25)
    note, vkeys, times = witnessed(tmp_path, log)
    verdicts = run_go(
        gonote,
        [
            case("all", note, log, vkeys),
            case("log only", note, log, []),
            case("two witnesses known", note, log, vkeys[:2]),
        ],
    )
    assert verdicts["all"]["ok"], verdicts["all"]["error"]
    assert verdicts["all"]["verified"] == [log.origin, *NAMES]
    assert verdicts["all"]["timestamps"] == times
    assert verdicts["log only"]["ok"] and verdicts["log only"]["unverified"] == list(NAMES)
    assert verdicts["two witnesses known"]["verified"] == [log.origin, *NAMES[:2]]


def test_go_opens_a_cosignature_made_by_the_cosigner_directly(gonote: Path) -> None:
    """tlog-cosignature "Format": a Cosigner's line, with a timestamp above 2^32."""
    log = FakeLog("questlog.test/log").append(3)
    witness = cosigner("witness.test/direct")
    note = log.checkpoint() + witness.cosign(log.head().body(), 2**40 + 7)
    verdict = run_go(gonote, [case("direct", note, log, [witness.key.text])])["direct"]
    assert verdict["ok"], verdict["error"]
    assert verdict["timestamps"] == [2**40 + 7]


def test_go_refuses_tampered_cosignatures(gonote: Path, tmp_path: Path) -> None:
    """signed-note: a known key's signature that fails makes note.Open fail; the timestamp is
    signed too (tlog-cosignature "Ed25519 signed message")."""
    log = FakeLog("questlog.test/log").append(25)
    note, vkeys, _ = witnessed(tmp_path, log)
    first_cosignature = note.split("\n").index("") + 2
    flipped = tampered_line(note, first_cosignature, lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]))
    later = tampered_line(
        note,
        first_cosignature,
        lambda raw: raw[:4] + struct.pack(">Q", struct.unpack(">Q", raw[4:12])[0] + 1) + raw[12:],
    )
    other = FakeLog("questlog.test/log").append(26)
    moved = other.checkpoint() + note.split("\n\n", 1)[1].split("\n", 1)[1]
    verdicts = run_go(
        gonote,
        [
            case("flipped", flipped, log, vkeys),
            case("timestamp", later, log, vkeys),
            case("other body", moved, other, vkeys),
        ],
    )
    for name in ("flipped", "timestamp", "other body"):
        assert not verdicts[name]["ok"], name
        assert "invalid signature for key witness.test/w1" in verdicts[name]["error"], name
