"""How often the log submits again to a witness that refuses, on both stores: C2SP tlog-witness
``add-checkpoint`` gives the same 422 (or 409 the log cannot prove from) to the same tree, so the
log backs off (one tick, two, four, ... up to an hour) instead of filling the witness's record of
failures on every tick; a witness that refused at its own size is tried again as one whose log
grew is. The witness is a fake ``send`` (no network)."""

from __future__ import annotations

import time
from collections.abc import Callable
from uuid import UUID

import pytest

from domain.model.tlog.cosignature import Cosigner
from domain.model.tlog.witness_protocol import size_body
from domain.service.questlog import Questlog
from domain.service.transparency.retry import MAX_DELAY, RetryBackoff
from domain.service.transparency.witnesses import Answer, WitnessSubmitter
from domain.storage.tlog_tables import StoredCheckpoint, WitnessState
from tests.tlog_fakes import cosigner

TICK = 5.0
W1: Cosigner = cosigner("w1.test")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeWitness:
    """Answers every add-checkpoint with the same answer, counting them."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.calls: list[bytes] = []

    def __call__(self, url: str, body: bytes, timeout: float) -> Answer:
        self.calls.append(body)
        return self.answer


def submitter(app: Questlog, witness: FakeWitness, clock: Clock) -> WitnessSubmitter:
    log_key = app.key_ring.current().signer.verifier.text
    made = WitnessSubmitter(
        app.side_tables,
        app.transparency.consistency_proof,
        send=witness,
        retry=RetryBackoff(TICK, clock=clock),
    )
    made.use_policy(f"log {log_key}\nwitness w1 {W1.key.text} http://w1.test\nquorum w1\n")
    return made


def settled(made: WitnessSubmitter) -> None:
    """Wait until the background submissions are over."""
    deadline = time.monotonic() + 10
    while made._running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not made._running


def published(app: Questlog, new_campaign: Callable[..., UUID], rolls: int) -> StoredCheckpoint:
    campaign = new_campaign()
    for n in range(rolls):
        app.dice.roll(campaign, notation="d20", purpose=f"roll {n}")
    signed = app.transparency.publish(submit=False)
    assert signed is not None
    return signed


REFUSED = Answer(422, "text/plain", b"the consistency proof does not verify\n")


def test_a_refusing_witness_is_tried_again_after_a_doubling_delay(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """tlog-witness 422: the same tree gets the same answer. Ticks at 0, 5, 10, 15, ... s
    submit at 0, 5 (one tick), 15 (two), 35 (four): not on every tick."""
    checkpoint = published(app, new_campaign, 2)
    witness, clock = FakeWitness(REFUSED), Clock()
    made = submitter(app, witness, clock)
    try:
        sent_at = []
        for tick in range(12):
            clock.now = 1000.0 + tick * TICK
            before = len(witness.calls)
            made.submit(checkpoint)
            settled(made)
            if len(witness.calls) > before:
                sent_at.append(tick * TICK)
        assert sent_at == [0.0, 5.0, 15.0, 35.0]
        assert app.side_tables.witness_states()["w1"].state == "refused"
    finally:
        made.close()


def test_a_refused_witness_at_its_own_size_is_tried_again_like_one_whose_log_grew(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """A witness whose cosigned size is the checkpoint's but that holds no cosignature of it
    (a 409 named that size, then a 422) is submitted to again after the delay, as a witness
    behind the log is; one past the checkpoint, or that cosigned it, is not."""
    checkpoint = published(app, new_campaign, 2)
    witness, clock = FakeWitness(REFUSED), Clock()
    made = submitter(app, witness, clock)
    try:
        app.side_tables.set_witness_state(WitnessState("w1", checkpoint.size, state="refused"))
        made.submit(checkpoint)
        settled(made)
        assert len(witness.calls) == 1
        assert witness.calls[0].startswith(f"old {checkpoint.size}\n".encode())
        app.side_tables.set_witness_state(WitnessState("w1", checkpoint.size + 1))
        clock.now += MAX_DELAY
        made.submit(checkpoint)
        settled(made)
        assert len(witness.calls) == 1
    finally:
        made.close()


def test_a_409_above_the_tree_says_the_size_in_words_and_backs_off(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """tlog-witness 409 with ``text/x.tlog.size``: a size above the log's tree is a conflict the
    log cannot prove from; its error names the size in words, and it is held back too."""
    checkpoint = published(app, new_campaign, 2)
    ahead = checkpoint.size + 7
    witness = FakeWitness(Answer(409, "text/x.tlog.size", size_body(ahead)))
    clock = Clock()
    made = submitter(app, witness, clock)
    try:
        state = made.submit_one("w1", checkpoint)
        assert (state.state, state.error) == (
            "conflict",
            f"409: the witness has cosigned up to size {ahead}",
        )
        made.submit(checkpoint)
        settled(made)
        assert len(witness.calls) == 1
    finally:
        made.close()


@pytest.mark.parametrize("outcome", ["cosigned", "down", "waiting"])
def test_the_delay_doubles_up_to_an_hour_and_any_other_outcome_clears_it(outcome: str) -> None:
    """One tick, then twice the last, never more than ``MAX_DELAY``; a witness that cosigned,
    or did not answer, is tried on the next tick."""
    clock = Clock()
    retry = RetryBackoff(TICK, clock=clock)
    delays = []
    for _ in range(14):
        retry.record(WitnessState("w1", state="refused"))
        delays.append(retry.delay("w1"))
    assert delays[:4] == [5.0, 10.0, 20.0, 40.0]
    assert delays[-1] == MAX_DELAY == 3600.0
    assert not retry.due("w1")
    clock.now += MAX_DELAY
    assert retry.due("w1")
    retry.record(WitnessState("w1", state="conflict"))
    assert not retry.due("w1")
    retry.record(WitnessState("w1", state=outcome))
    assert retry.due("w1") and retry.delay("w1") == 0.0
