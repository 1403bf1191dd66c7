"""Submitting the host's checkpoints to a real witness (``questlog witness serve``, over HTTP on
127.0.0.1, stopped by its pid), on both stores: C2SP tlog-witness ``add-checkpoint`` answered 200
(the cosignature verified against the policy's key and kept), 409 then a retry from the size it
names, 422 (a split view: a second history under the same key), a witness down, and one slower
than the timeout: the submission runs beside the commands, never in their path, and the
witnessing state says what happened.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import UUID

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.tlog.cosignature import Cosigner
from domain.model.tlog.merkle import entry
from domain.model.tlog.policy import parse_policy
from domain.model.tlog.proof import check_tlog_proof
from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from domain.storage.tlog_tables import WitnessState
from tests.conftest import SETUPS, StoreFactory
from tests.live_server import free_port, witness_init, witness_serving

TIMEOUT = 1.0


@contextmanager
def a_witness(tmp_path: Path, log_vkey: str) -> Iterator[tuple[str, int]]:
    """A witness made with ``questlog witness init`` and served following the log's key: its
    vkey and port."""
    state = tmp_path / "witness.db"
    vkey = witness_init(state)
    with witness_serving(state, [log_vkey]) as (port, _):
        yield vkey, port


def policy(app: Questlog, witness_vkey: str, url: str) -> str:
    log_key = app.key_ring.current().signer.verifier.text
    return f"log {log_key}\nwitness w1 {witness_vkey} {url}\nquorum w1\n"


def play(app: Questlog, rolls: int) -> UUID:
    campaign_id = app.campaigns.create_campaign(
        game="quest-calendar",
        name="Witnessed",
        house_rules=None,
        setup=SETUPS["quest-calendar"],
    ).campaign_id
    for n in range(rolls):
        app.dice.roll(campaign_id, notation="d20", purpose=f"roll {n}")
    return campaign_id


@pytest.fixture
def witnessed(app: Questlog, tmp_path: Path) -> Iterator[tuple[str, int]]:
    log_vkey = app.key_ring.current().signer.verifier.text
    with a_witness(tmp_path, log_vkey) as (vkey, port):
        app.transparency.witnesses.use_policy(
            policy(app, vkey, f"http://127.0.0.1:{port}"), TIMEOUT
        )
        yield vkey, port


def test_a_cosignature_is_verified_kept_and_makes_the_proof_witnessed(
    app: Questlog, witnessed: tuple[str, int]
) -> None:
    """tlog-witness: 200 with a cosignature/v1 line, verified against the witness's key before
    it is kept; tlog-proof: the proof carries it and meets the policy's quorum."""
    campaign_id = play(app, 3)
    transparency = app.transparency
    signed = transparency.publish(submit=False)
    assert signed is not None
    states = transparency.witnesses.submit_all(signed)
    assert states["w1"].state == "cosigned" and states["w1"].cosigned_size == signed.size
    assert "\u2014 witness.test/w1 " in transparency.latest_checkpoint()
    head = app.campaign(campaign_id)
    text = transparency.tlog_proof(campaign_id)
    verdict = check_tlog_proof(
        text,
        entry(campaign_id, head.version, head.head_hash),
        [],
        parse_policy(str(transparency.witnesses.policy_text)),
    )
    assert verdict.ok, verdict.message
    shown = transparency.witnessing(campaign_id)
    assert shown["witnessed_version"] == head.version and shown["pending"] is False
    assert shown["witnesses"][0]["state"] == "cosigned"


def test_a_409_is_retried_once_from_the_size_the_witness_names(
    app: Questlog, witnessed: tuple[str, int]
) -> None:
    """tlog-witness: 409 with the cosigned size as ``text/x.tlog.size``; the log proves from
    that size and is cosigned."""
    play(app, 2)
    transparency = app.transparency
    first = transparency.publish(submit=False)
    assert first is not None
    assert transparency.witnesses.submit_all(first)["w1"].state == "cosigned"
    app.side_tables.set_witness_state(WitnessState("w1"))  # the log forgot what w1 cosigned
    play(app, 2)
    second = transparency.publish(submit=False)
    assert second is not None and second.size > first.size
    state = transparency.witnesses.submit_all(second)["w1"]
    assert (state.state, state.cosigned_size) == ("cosigned", second.size)


def test_a_second_history_under_the_same_key_is_refused_with_422(
    app: Questlog,
    witnessed: tuple[str, int],
    store_config: StoreConfig,
    stores: StoreFactory,
    tmp_path: Path,
) -> None:
    """A host that shows a second history (another store signed with the same key and log name)
    cannot have it cosigned: its consistency proof from the size the witness cosigned does not
    verify (tlog-witness: 422), and its witnessing state says "refused"."""
    play(app, 3)
    honest = app.transparency.publish(submit=False)
    assert honest is not None
    assert app.transparency.witnesses.submit_all(honest)["w1"].state == "cosigned"
    other_config = dataclasses.replace(stores.new(), signing_key=key_file(app, tmp_path))
    other = Questlog(other_config)
    try:
        assert other.key_ring.log_name == app.key_ring.log_name
        play(other, 6)
        other.transparency.witnesses.use_policy(app.transparency.witnesses.policy_text, TIMEOUT)
        forged = other.transparency.publish(submit=False)
        assert forged is not None and forged.size > honest.size
        other.side_tables.set_witness_state(WitnessState("w1", honest.size))
        state = other.transparency.witnesses.submit_all(forged)["w1"]
        assert state.state == "refused" and state.error is not None and "422" in state.error
        assert other.side_tables.cosignatures(forged.size) == []
    finally:
        other.close()


def key_file(app: Questlog, tmp_path: Path) -> Path:
    """The host's key ring copied to a file another store can be opened with."""
    path = tmp_path / "same-keys.json"
    data = app.key_ring.store.read()
    assert data is not None
    path.write_text(json.dumps(data))
    path.chmod(0o600)
    return path


def test_a_witness_down_never_holds_a_roll_and_says_so(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """Nothing listens at the witness's URL: the submission fails beside the commands; the state
    is "down" with the reason."""
    app.transparency.witnesses.use_policy(
        policy(app, real_vkey(), f"http://127.0.0.1:{free_port()}"), TIMEOUT
    )
    campaign_id = new_campaign()
    first = app.transparency.publish()
    state = wait_for_state(app, "down")
    # in words, no errno: refused at once is not "no answer within 1 s" (a timeout)
    assert state["error"] == "refused the connection (nothing listens at its address)", state
    # since the first checkpoint it has not cosigned (for the page's "for 12 minutes")
    assert first is not None and state["waiting_since"] == first.created
    app.dice.roll(campaign_id, notation="d6", purpose="after")
    assert app.transparency.witnessing(campaign_id)["pending"] is True


def real_vkey() -> str:
    """A cosigner key no witness here holds (its name matches the policy's)."""
    return Cosigner("witness.test/w1", Ed25519PrivateKey.generate()).key.text


@contextmanager
def silent_witness() -> Iterator[int]:
    """A witness that takes the connection and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stop_accepting = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop_accepting.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop_accepting.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()


def test_a_slow_witness_is_cut_off_at_the_timeout_while_rolls_answer_at_once(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    """A witness slower than ``QUESTLOG_WITNESS_TIMEOUT`` is "down" once it runs out; meanwhile
    publishing and rolling answer without waiting for it."""
    campaign_id = new_campaign()
    with silent_witness() as port:
        app.transparency.witnesses.use_policy(
            policy(app, real_vkey(), f"http://127.0.0.1:{port}"), TIMEOUT
        )
        started = time.monotonic()
        app.transparency.publish()
        app.dice.roll(campaign_id, notation="d6", purpose="while the witness thinks")
        assert time.monotonic() - started < TIMEOUT / 2
        state = wait_for_state(app, "down")
        assert state["error"] == f"no answer within {TIMEOUT:g} s", state


def test_a_change_to_down_is_logged_once_and_the_return_once(
    app: Questlog, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The host's log says when a witness becomes down, refused or conflict, once per change,
    not at each checkpoint it stays so; and when it cosigns again. A witness that cosigned the
    latest checkpoint has no ``waiting_since``."""
    log_vkey = app.key_ring.current().signer.verifier.text
    state = tmp_path / "witness.db"
    vkey = witness_init(state)
    port = free_port()
    witnesses = app.transparency.witnesses
    witnesses.use_policy(policy(app, vkey, f"http://127.0.0.1:{port}"), TIMEOUT)
    campaign_id = play(app, 1)
    caplog.set_level("INFO", logger="questlog.tlog")
    for n in range(3):  # three checkpoints while nothing listens
        app.dice.roll(campaign_id, notation="d6", purpose=f"down {n}")
        checkpoint = app.transparency.publish(submit=False)
        assert checkpoint is not None
        witnesses.submit_one("w1", checkpoint)
    downs = [r.getMessage() for r in caplog.records if "is down" in r.getMessage()]
    assert downs == ["witness w1 is down: refused the connection (nothing listens at its address)"]
    with witness_serving(state, [log_vkey], port):
        assert witnesses.submit_one("w1", checkpoint).state == "cosigned"
    assert [r.getMessage() for r in caplog.records][-1].startswith("witness w1 cosigns again")
    (shown,) = witnesses.report(checkpoint.size)
    assert shown["state"] == "cosigned" and shown["waiting_since"] is None


def wait_for_state(app: Questlog, word: str, seconds: float = 10.0) -> dict[str, object]:
    """The witness's state once it is ``word`` (the submission runs in the background)."""
    deadline = time.monotonic() + seconds
    while True:
        latest = app.side_tables.tlog_checkpoint()
        size = None if latest is None else latest.size
        (shown,) = app.transparency.witnesses.report(size)
        if shown["state"] == word or time.monotonic() > deadline:
            assert shown["state"] == word, shown
            return shown
        time.sleep(0.05)
