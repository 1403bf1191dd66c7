"""Checking a signed checkpoint against a log: each verdict, decided signature first."""

from __future__ import annotations

from uuid import UUID, uuid4

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import Checkpoint, NoteSigner
from domain.service.audit.checkpoints import REWRITTEN, check_checkpoint, hashes_by_version

CAMPAIGN = UUID("0b6e1a52-3f0e-4a4e-9a55-5b1f8e0c2d11")
LOG = [{"version": v, "hash": f"{v:064x}"} for v in range(1, 6)]
SIGNER = NoteSigner("questlog-test", Ed25519PrivateKey.generate())


def note(version: int, head_hash: str, *, log: str = "questlog-test", cid: UUID = CAMPAIGN) -> str:
    return SIGNER.sign(Checkpoint(log, cid, version, head_hash).body())


def verdict(text: str, log_name: str | None = "questlog-test") -> tuple[str, str]:
    found = check_checkpoint(
        text,
        [SIGNER.verifier],
        campaign_id=CAMPAIGN,
        hash_at=hashes_by_version(LOG),
        log_name=log_name,
    )
    return found.verdict, found.message


def test_a_checkpoint_the_log_still_has_is_ok() -> None:
    assert verdict(note(3, f"{3:064x}"))[0] == "ok"


def test_a_checkpoint_whose_hash_the_log_no_longer_has_was_rewritten() -> None:
    kind, message = verdict(note(3, "ab" * 32))
    assert kind == "rewritten"
    assert message == (
        f"{REWRITTEN}: at version 3 the checkpoint has hash {'ab' * 32}, the log has hash {3:064x}"
    )


def test_a_checkpoint_past_the_logs_end_was_rewritten() -> None:
    kind, message = verdict(note(9, "ab" * 32))
    assert kind == "rewritten"
    assert message.startswith(REWRITTEN) and "ends before version 9" in message


def test_a_checkpoint_of_another_campaign() -> None:
    assert verdict(note(3, f"{3:064x}", cid=uuid4()))[0] == "another campaign"


def test_a_checkpoint_of_another_log() -> None:
    assert verdict(note(3, f"{3:064x}", log="elsewhere"))[0] == "another log"
    assert verdict(note(3, f"{3:064x}", log="elsewhere"), log_name=None)[0] == "ok"


def test_signature_verdicts_come_before_the_log() -> None:
    good = note(3, "ab" * 32)
    assert verdict(good.replace("\n3\n", "\n4\n"))[0] == "bad signature"
    other = NoteSigner("questlog-test", Ed25519PrivateKey.generate())
    assert verdict(other.sign(Checkpoint("questlog-test", CAMPAIGN, 3, "ab" * 32).body()))[0] == (
        "unknown key"
    )
    assert verdict("not a note")[0] == "malformed"
    assert verdict(SIGNER.sign("not a checkpoint\n"))[0] == "malformed"
