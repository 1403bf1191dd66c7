"""The audit's rolls (``domain/service/audit/rolls.py``): whatever a roll record holds, the audit
counts it as ``roll_verdict`` judges the whole record, whether it kept the roll as a ``PlainRoll``
(judged by ``dice.SeedVerifier``) or as a dict."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.model.dice.draw import ServerDice, commitment_of
from domain.service.audit.rolls import Nonces, PlainRoll, ServerRolls, roll_verdict, with_verdict
from domain.service.audit.stored import AuditReport, _collect_reveals

SEED = "3f" * 32
OTHER = "4e" * 32
REVEALED = {
    commitment_of(SEED): SEED,
    commitment_of(OTHER): SEED,  # revealed with a seed that does not hash to it
    "not hex": "not a seed",
}


def true_roll(sides: list[int], nonce: int, entropy: str | None) -> dict[str, Any]:
    """A server roll as the server writes it."""
    draw = ServerDice(SEED, "c", nonce, entropy).draw(sides)
    dice = [
        {"sides": n, "face": face, "kept": True} for n, face in zip(sides, draw.faces, strict=True)
    ]
    return {"roll_id": "2-1", "source": "server", "dice": dice, "proof": draw.proof}


TAMPERINGS: dict[str, Any] = {
    "none": lambda roll: roll,
    "face": lambda roll: {**roll, "dice": [{**d, "face": d["face"] % 4 + 1} for d in roll["dice"]]},
    "face as text": lambda roll: {
        **roll,
        "dice": [{**d, "face": str(d["face"])} for d in roll["dice"]],
    },
    "face as a bool": lambda roll: {**roll, "dice": [{**d, "face": True} for d in roll["dice"]]},
    "sides as a float": lambda roll: {
        **roll,
        "dice": [{**d, "sides": float(d["sides"])} for d in roll["dice"]],
    },
    "no face": lambda roll: {**roll, "dice": [{"sides": d["sides"]} for d in roll["dice"]]},
    "die not an object": lambda roll: {**roll, "dice": [5 for _ in roll["dice"]]},
    "dice not a list": lambda roll: {**roll, "dice": 5},
    "no dice": lambda roll: {k: v for k, v in roll.items() if k != "dice"},
    "sides 0": lambda roll: {**roll, "dice": [{**d, "sides": 0} for d in roll["dice"]]},
    "reported": lambda roll: {**roll, "source": "reported"},
    "no source": lambda roll: {k: v for k, v in roll.items() if k != "source"},
    "other commitment": lambda roll: proof(roll, commitment=commitment_of(OTHER)),
    "secret commitment": lambda roll: proof(roll, commitment="ab" * 32),
    "commitment not hex": lambda roll: proof(roll, commitment="not hex"),
    "commitment a list": lambda roll: proof(roll, commitment=[1]),
    "commitment a number": lambda roll: proof(roll, commitment=5),
    "client seed": lambda roll: proof(roll, client_seed="d"),
    "client seed a number": lambda roll: proof(roll, client_seed=7),
    "client seed not UTF-8": lambda roll: proof(roll, client_seed="\ud800"),
    "no client seed": lambda roll: proof(roll, client_seed=None),
    "nonce": lambda roll: proof(roll, nonce=roll["proof"]["nonce"] + 1),
    "nonce as text": lambda roll: proof(roll, nonce="0"),
    "entropy": lambda roll: proof(roll, entropy="other"),
    "entropy not allowed": lambda roll: proof(roll, entropy="not allowed!"),
    "entropy a number": lambda roll: proof(roll, entropy=5),
    "proof not an object": lambda roll: {**roll, "proof": "p"},
}


def proof(roll: dict[str, Any], **changed: Any) -> dict[str, Any]:
    """The roll with its proof changed (a value of None: the key left out)."""
    changed_proof = {**roll["proof"], **changed}
    return {**roll, "proof": {k: v for k, v in changed_proof.items() if v is not None}}


@given(
    sides=st.lists(st.sampled_from([20, 6, 100, 3, 2**32]), min_size=1, max_size=3),
    nonce=st.integers(0, 3),
    entropy=st.sampled_from([None, "abc_-"]),
    tampering=st.sampled_from(sorted(TAMPERINGS)),
)
@settings(max_examples=400)
def test_the_audit_counts_a_roll_as_roll_verdict_judges_it(
    sides: list[int], nonce: int, entropy: str | None, tampering: str
) -> None:
    record = TAMPERINGS[tampering](true_roll(sides, nonce, entropy))
    report = AuditReport()
    rolls = ServerRolls(report, Nonces(report))
    rolls.add(2, [record])
    rolls.judge(REVEALED)

    given_nonce = record["proof"].get("nonce") if isinstance(record.get("proof"), dict) else None
    if record.get("source") == "reported":
        expected = "reported"
    elif type(given_nonce) is not int:
        expected = "failed"  # no valid nonce (``Nonces``): never judged
    else:
        verdict = roll_verdict(record, REVEALED)
        expected = {None: "awaiting_reveal", True: "verified", False: "failed"}[verdict]
    counted = {name for name, count in report.rolls.items() if count and name != "server"}
    assert counted - {"with_entropy"} == {expected}
    assert report.failed_rolls == (["2-1"] if expected == "failed" else [])


def test_a_roll_as_the_server_writes_it_is_kept_plain_and_verified() -> None:
    report = AuditReport()
    rolls = ServerRolls(report, Nonces(report))
    rolls.add(2, [true_roll([20, 6], 0, None)])
    rolls.add(3, [true_roll([20], 1, "abc")])
    assert all(isinstance(roll, PlainRoll) for _, roll in rolls.pending)
    rolls.judge(REVEALED)
    assert report.rolls["verified"] == 2
    assert report.problems == []


def test_a_roll_shown_with_its_verdict_whatever_its_proof_holds() -> None:
    """``with_verdict`` (the roll list's records) shows a tampered proof as it is, unverified,
    instead of failing: a proof that is not an object, without a commitment, or whose commitment
    is not a text."""
    good = true_roll([20], 0, None)
    shown = with_verdict(good, REVEALED)
    assert shown["verified"] is True and shown["proof"]["server_seed"] == SEED
    for proof in (5, "proof", [], {}, {"commitment": ["x"]}, {"commitment": {"a": 1}}):
        tampered = {**good, "proof": proof}
        shown = with_verdict(tampered, REVEALED)
        assert shown["verified"] is not True
        assert "server_seed" not in (shown["proof"] if isinstance(proof, dict) else {})


def test_a_negative_nonce_is_never_the_next_one() -> None:
    """Found in review: a resumed audit's start (its nonces read from stored events) could name
    -1 as a commitment's next nonce, and a roll with nonce -1 then passed as the usual roll."""
    report = AuditReport()
    nonces = Nonces(report)
    roll = true_roll([20], 0, None)
    commitment = roll["proof"]["commitment"]
    nonces.next[commitment] = -1
    tampered = {**roll, "proof": {**roll["proof"], "nonce": -1}}
    assert nonces.reused(7, tampered)
    assert any("no valid nonce (-1)" in p["problem"] for p in report.problems)


def test_a_revealed_seed_without_a_commitment_is_a_problem_not_a_crash() -> None:
    """Found in review: a re-hashed seed rotation without ``revealed_commitment`` failed the
    audit (KeyError, a 500) instead of being reported at its version."""
    for fields in ({"revealed_seed": SEED}, {"revealed_seed": SEED, "revealed_commitment": [1]}):
        report, revealed = AuditReport(), {}
        _collect_reveals(report, 9, fields, revealed)
        assert report.problems == [
            {"version": 9, "problem": "the revealed seed names no commitment"}
        ]
        assert revealed == {}
    report, revealed = AuditReport(), {}
    _collect_reveals(report, 9, {"revealed_seed": SEED, "revealed_commitment": "c"}, revealed)
    assert report.problems == [] and revealed == {"c": SEED}
