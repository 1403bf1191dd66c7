"""``questlog verify --tlog-proof FILE --policy FILE`` and ``questlog verify --pair A B``: the
verdict in words and the exit codes (0 verified or proven, 1 not, 2 bad input), offline.
(Neither reads a Questlog store when given its keys, so these run on no store.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from domain.model.tlog.cosignature import Cosigner
from domain.model.tlog.proof import parse_entry
from tests.tlog_fakes import FakeLog, cosigner
from webapi.cli.main import main

W1, W2, W3 = cosigner("w1.test"), cosigner("w2.test"), cosigner("w3.test")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, ["verify", *args])


@pytest.fixture
def log() -> FakeLog:
    return FakeLog("questlog.test/log").append(11)


@pytest.fixture
def policy_file(tmp_path: Path, log: FakeLog) -> Path:
    """tlog-policy: the log, three witnesses and a quorum of two of them."""
    path = tmp_path / "policy.txt"
    path.write_text(
        f"log {log.signer.verifier.text}\n"
        f"witness w1 {W1.key.text}\nwitness w2 {W2.key.text}\nwitness w3 {W3.key.text}\n"
        "group witnesses 2 w1 w2 w3\nquorum witnesses\n"
    )
    return path


def proof_file(
    tmp_path: Path, log: FakeLog, index: int, *witnesses: Cosigner, extra: bool = True
) -> Path:
    """A tlog-proof file of entry ``index`` with the witnesses' cosignatures."""
    body = log.head().body()
    note = log.checkpoint() + "".join(w.cosign(body, 1_700_000_000) for w in witnesses)
    path = tmp_path / f"proof-{index}-{len(witnesses)}.tlog-proof"
    path.write_text(log.proof(index, note, extra=extra), newline="")
    return path


def test_a_proof_witnessed_by_two_of_three_verifies(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-proof "Verifying a tlog proof"; the quorum in words: "witnessed by 2 of 3"."""
    proof = proof_file(tmp_path, log, 5, W1, W2)
    result = run("--tlog-proof", str(proof), "--policy", str(policy_file))
    assert result.exit_code == 0, result.output
    assert "witnessed by 2 of 3: w1, w2" in result.output
    assert "not cosigned by w3" in result.output
    entry = parse_entry(log.entries[5])
    assert str(entry.campaign_id) in result.output


def test_the_entry_given_on_the_command_line_must_be_the_proven_one(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-proof step 1: the verifier computes the leaf from what it knows."""
    entry = parse_entry(log.entries[5])
    proof = proof_file(tmp_path, log, 5, W1, W3, extra=False)
    given = ["--campaign", str(entry.campaign_id), "--version", str(entry.version)]
    ok = run(
        "--tlog-proof", str(proof), "--policy", str(policy_file), *given, "--hash", entry.event_hash
    )
    assert ok.exit_code == 0, ok.output
    wrong = run(
        "--tlog-proof", str(proof), "--policy", str(policy_file), *given, "--hash", "0" * 64
    )
    assert wrong.exit_code == 1
    assert "NOT INCLUDED" in wrong.output


def test_a_quorum_not_met_exits_1_naming_the_missing_witnesses(
    tmp_path: Path, log: FakeLog, policy_file: Path
) -> None:
    """tlog-policy: too few cosignatures; the warning names who did not cosign."""
    proof = proof_file(tmp_path, log, 2, W3)
    result = run("--tlog-proof", str(proof), "--policy", str(policy_file))
    assert result.exit_code == 1
    assert "NOT witnessed: 1 of 3, 2 needed" in result.output
    assert "missing cosignatures from w1, w2" in result.output


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ("no policy", "--tlog-proof needs --policy"),
        ("bad policy", "line 1"),
        ("malformed proof", "tlog-proof"),
        ("half entry", "together"),
        ("no extra", "carries no entry"),
        ("bad key", "--key"),
    ],
)
def test_bad_input_exits_2(
    tmp_path: Path, log: FakeLog, policy_file: Path, change: str, words: str
) -> None:
    proof = proof_file(tmp_path, log, 2, W1, W2)
    args = ["--tlog-proof", str(proof), "--policy", str(policy_file)]
    if change == "no policy":
        args = args[:2]
    elif change == "bad policy":
        policy_file.write_text("quorum nobody\n")
    elif change == "malformed proof":
        proof.write_text("not a proof\n")
    elif change == "half entry":
        args += ["--version", "3"]
    elif change == "no extra":
        proof = proof_file(tmp_path, log, 2, W1, W2, extra=False)
    elif change == "bad key":
        args += ["--key", "not-a-key"]
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert words in result.output


def test_a_pair_with_two_roots_of_one_size_proves_misbehaviour(tmp_path: Path) -> None:
    """tlog-checkpoint "Signatures": two checkpoints of one size with two roots."""
    honest = FakeLog("questlog.test/log").append(8)
    forked = FakeLog(honest.origin, honest.signer).append(8, salt="forked")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(honest.checkpoint(), newline="")
    b.write_text(forked.checkpoint(), newline="")
    key = honest.signer.verifier.text
    result = run("--pair", str(a), str(b), "--key", key)
    assert result.exit_code == 0, result.output
    assert "misbehaviour proven" in result.output
    b.write_text(honest.checkpoint(5), newline="")
    result = run("--pair", str(a), str(b), "--key", key)
    assert result.exit_code == 1
    assert "no conflict shown" in result.output
    b.write_text("garbage\n")
    result = run("--pair", str(a), str(b), "--key", key)
    assert result.exit_code == 2
    assert "B:" in result.output


def test_the_new_options_do_not_mix_with_an_audit(tmp_path: Path, log: FakeLog) -> None:
    a = tmp_path / "a.txt"
    a.write_text(log.checkpoint(), newline="")
    result = run("00000000-0000-0000-0000-000000000001", "--pair", str(a), str(a))
    assert result.exit_code == 2
    assert run("--policy", str(a)).exit_code == 2
