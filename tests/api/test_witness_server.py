"""``questlog witness serve`` over real HTTP on 127.0.0.1, started as a process and stopped by
its pid: every answer of C2SP tlog-witness ``add-checkpoint`` and the monitoring checkpoint,
racing submissions, and a restart. (The witness keeps its own SQLite state, not a Questlog
store, so these tests have no store to run on twice.)"""

from __future__ import annotations

import base64
import hashlib
import http.client
import itertools
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.model.signed_note import NoteSigner, parse_note
from domain.model.tlog.cosignature import Cosigner, cosignatures, parse_cosigner_key
from domain.model.tlog.witness_protocol import AddCheckpoint
from domain.service.questlog import Questlog
from domain.service.witness import Inconsistent, StaleSize, new_witness_key
from domain.service.witness import Witness as WitnessService
from domain.storage import witness_state
from domain.storage.witness_state import WitnessState
from tests.live_server import witness_init, witness_serving
from tests.tlog_fakes import FakeLog, seeded_key

LOGS = 13
"""Logs the shared witness follows: each test takes its own, so none sees another's sizes."""
_taken = itertools.count()


class Witness:
    """A witness process as the tests see it: its port, its vkey and its state file."""

    def __init__(self, port: int, vkey: str, state: Path) -> None:
        self.port, self.vkey, self.state = port, vkey, state
        self.key = parse_cosigner_key(vkey)

    def post(self, body: bytes) -> tuple[int, str, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("POST", "/add-checkpoint", body=body)
            answer = connection.getresponse()
            return answer.status, answer.getheader("Content-Type") or "", answer.read()
        finally:
            connection.close()

    def submit(self, log: FakeLog, old: int, size: int, proof: list[bytes] | None = None):
        """Submit ``log``'s checkpoint of ``size`` from ``old`` with its consistency proof."""
        if proof is None:
            proof = log.consistency(old, size) if old else []
        return self.post(AddCheckpoint(old, tuple(proof), log.checkpoint(size)).body())

    def get(self, path: str) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("GET", path)
            answer = connection.getresponse()
            return answer.status, answer.read()
        finally:
            connection.close()


def all_logs() -> list[FakeLog]:
    return [FakeLog(f"questlog.test/log{n}").append(40) for n in range(LOGS)]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Witness, list[FakeLog]]]:
    state = tmp_path_factory.mktemp("witness") / "witness.db"
    vkey = witness_init(state)
    logs = all_logs()
    with witness_serving(state, [log.signer.verifier.text for log in logs]) as (port, _):
        yield Witness(port, vkey, state), logs


@pytest.fixture
def witness(shared: tuple[Witness, list[FakeLog]]) -> Witness:
    return shared[0]


@pytest.fixture
def log(shared: tuple[Witness, list[FakeLog]]) -> FakeLog:
    """A log of 40 events the witness follows and has cosigned nothing of yet."""
    return shared[1][next(_taken)]


def test_first_checkpoint_is_cosigned_with_a_timestamped_cosignature(
    witness: Witness, log: FakeLog
) -> None:
    """tlog-witness "add-checkpoint": 200 with cosignature lines; tlog-cosignature: v1."""
    status, _, body = witness.submit(log, 0, 10)
    assert status == 200
    text = body.decode()
    assert text.startswith("\u2014 witness.test/w1 ") and text.endswith("\n")
    found = cosignatures(log.checkpoint(10) + text, [witness.key])
    assert found["witness.test/w1"] > 0


def test_a_consistent_extension_is_cosigned_and_served_to_monitors(
    witness: Witness, log: FakeLog
) -> None:
    """tlog-witness: a proof from the cosigned size is checked; "Monitor Retrieval Mechanism"
    serves the checkpoint with the log's signature and the witness's cosignature."""
    assert witness.submit(log, 0, 7)[0] == 200
    status, _, line = witness.submit(log, 7, 30)
    assert status == 200
    hashed = hashlib.sha256(log.origin.encode()).hexdigest()
    status, served = witness.get(f"/{hashed}/checkpoint")
    assert status == 200
    body, signatures = parse_note(served.decode())
    assert body == log.head(30).body()
    assert {s.name for s in signatures} == {log.origin, "witness.test/w1"}
    assert line.decode() in served.decode()


def test_a_log_never_cosigned_or_unknown_is_404_to_monitors(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: 404 when the witness never cosigned a checkpoint of that log."""
    hashed = hashlib.sha256(log.origin.encode()).hexdigest()
    assert witness.get(f"/{hashed}/checkpoint")[0] == 404
    assert witness.get("/not-a-hash/checkpoint")[0] == 404


def test_unknown_origin_is_404(witness: Witness) -> None:
    """tlog-witness: "If the checkpoint origin is unknown ... 404 Not Found"."""
    stranger = FakeLog("stranger.test/log").append(3)
    assert witness.submit(stranger, 0, 3)[0] == 404


def test_no_signature_by_a_trusted_key_is_403(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: 403 when no signature from a trusted key for the origin is present
    (a key of the same name but another key is unknown, and ignored)."""
    impostor = NoteSigner(log.origin, seeded_key("impostor"))
    note = impostor.sign(log.head(5).body())
    assert witness.post(AddCheckpoint(0, (), note).body())[0] == 403


def test_a_checkpoint_with_no_signature_line_is_403_saying_so(
    witness: Witness, log: FakeLog
) -> None:
    """tlog-witness: 403 when "no signature from a trusted key for the origin is present"; a
    body and its blank line with no signature line at all is that case (Go's note.Open calls
    it an unverified note, not a malformed one), after the unknown origin's 404. The answer
    says what is wrong."""
    unsigned = log.head(5).body() + "\n"
    status, _, said = witness.post(AddCheckpoint(0, (), unsigned).body())
    assert (status, said.decode().strip()) == (403, "the checkpoint carries no signature line")
    stranger = FakeLog("stranger.test/log").append(3).head().body() + "\n"
    assert witness.post(AddCheckpoint(0, (), stranger).body())[0] == 404


def test_a_trusted_keys_failing_signature_is_403(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: 403 when a line's name and key ID match a trusted key but the signature
    fails, even beside a valid one."""
    note = log.checkpoint(5)
    line = note.rsplit("\n", 2)[-2]
    name, blob = line[2:].split(" ")
    raw = bytearray(base64.b64decode(blob))
    raw[-1] ^= 1
    bad = f"\u2014 {name} {base64.b64encode(bytes(raw)).decode()}\n"
    assert witness.post(AddCheckpoint(0, (), note + bad).body())[0] == 403
    assert witness.post(AddCheckpoint(0, (), note[: -len(line) - 1] + bad).body())[0] == 403


@pytest.mark.parametrize(
    "body",
    [b"", b"old 1\n", b"old x\n\nsomething\n", b"old 01\n\n", b"old 0\n\nnot a note"],
)
def test_a_malformed_request_is_400(witness: Witness, body: bytes) -> None:
    """tlog-witness: the request body's syntax; what does not parse is a 400."""
    assert witness.post(body)[0] == 400


def test_old_size_above_the_size_is_400(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: "The old size MUST be equal to or lower than the checkpoint size"."""
    assert witness.submit(log, 9, 5, proof=[])[0] == 400


def test_an_old_size_not_the_cosigned_one_is_409_with_the_size(
    witness: Witness, log: FakeLog
) -> None:
    """tlog-witness: 409 whose body is the cosigned size and a newline, as text/x.tlog.size;
    a client that knows nothing sends old 0 to learn it."""
    assert witness.submit(log, 0, 12)[0] == 200
    status, content_type, body = witness.submit(log, 0, 20)
    assert (status, content_type, body) == (409, "text/x.tlog.size", b"12\n")
    status, content_type, body = witness.submit(log, 5, 20)
    assert (status, body) == (409, b"12\n")


def test_a_bad_consistency_proof_is_422_and_kept(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: 422 when the proof does not verify; the request may be logged, since it
    may be proof of misbehaviour."""
    assert witness.submit(log, 0, 8)[0] == 200
    proof = log.consistency(8, 20)
    proof[0] = bytes(32)
    assert witness.submit(log, 8, 20, proof=proof)[0] == 422
    failures = WitnessState(witness.state).failures()
    assert any(f[0] == log.origin and f[1:3] == (8, 20) for f in failures)


def test_an_empty_tree_with_another_root_is_422(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: a checkpoint of size zero MUST have the empty tree's root."""
    note = log.signer.sign(f"{log.origin}\n0\n{base64.b64encode(bytes(32)).decode()}\n")
    assert witness.post(AddCheckpoint(0, (), note).body())[0] == 422
    assert witness.submit(log, 0, 0)[0] == 200


def test_a_proof_from_old_size_zero_is_422(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: "If the old size is zero, the consistency proof MUST be empty"."""
    assert witness.submit(log, 0, 6, proof=[bytes(32)])[0] == 422


def test_the_cosigned_size_with_another_root_is_422(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: when the old size matches the checkpoint size the roots must match."""
    assert witness.submit(log, 0, 9)[0] == 200
    forked = FakeLog(log.origin, log.signer).append(9, salt="fork")
    assert witness.post(AddCheckpoint(9, (), forked.checkpoint(9)).body())[0] == 422
    assert witness.submit(log, 9, 9)[0] == 200


def race(sends: list[tuple[Witness, bytes]]) -> list[int]:
    """Post each body at the same moment (a barrier releases the threads together)."""
    statuses = [0] * len(sends)
    barrier = threading.Barrier(len(sends))

    def send(n: int) -> None:
        barrier.wait()
        statuses[n] = sends[n][0].post(sends[n][1])[0]

    threads = [threading.Thread(target=send, args=(n,)) for n in range(len(sends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_racing_submissions_never_roll_the_log_back(witness: Witness, log: FakeLog) -> None:
    """tlog-witness: checking the old size and persisting the new checkpoint are atomic, so
    of two submissions from one size exactly one is cosigned, and the size never shrinks."""
    assert witness.submit(log, 0, 4)[0] == 200
    cosigned = 4
    for small, large in [(6, 9), (11, 15), (16, 22), (25, 33)]:
        sizes = (small, large)
        bodies = [
            AddCheckpoint(cosigned, tuple(log.consistency(cosigned, n)), log.checkpoint(n)).body()
            for n in sizes
        ]
        statuses = race([(witness, body) for body in bodies])
        assert sorted(statuses) == [200, 409]
        cosigned = sizes[statuses.index(200)]
        status, _, body = witness.submit(log, 0, 40)
        assert (status, body) == (409, f"{cosigned}\n".encode())


def test_a_restart_keeps_the_state_and_never_forgets_a_log(tmp_path: Path) -> None:
    """tlog-witness: the witness persists the cosigned checkpoint; a log once known stays
    known (a restart without --log still follows it, and the state refuses a delete)."""
    state = tmp_path / "witness.db"
    vkey = witness_init(state, "witness.test/restarted")
    log = FakeLog("questlog.test/restart").append(20)
    with witness_serving(state, [log.signer.verifier.text]) as (port, _):
        assert Witness(port, vkey, state).submit(log, 0, 15)[0] == 200
    with witness_serving(state, []) as (port, _):
        status, _, body = Witness(port, vkey, state).submit(log, 0, 20)
        assert (status, body) == (409, b"15\n")
        assert Witness(port, vkey, state).submit(log, 15, 20)[0] == 200
    with sqlite3.connect(state) as connection, pytest.raises(sqlite3.DatabaseError, match="never"):
        connection.execute("DELETE FROM witness_logs")
    with sqlite3.connect(state) as connection, pytest.raises(sqlite3.DatabaseError, match="never"):
        connection.execute("UPDATE witness_latest SET size = 3")


def test_two_processes_on_one_state_never_roll_back(tmp_path: Path) -> None:
    """tlog-witness's race, across processes: two servers on one state file take its write
    lock in turn, so of two submissions from one size only one is cosigned."""
    state = tmp_path / "witness.db"
    vkey = witness_init(state, "witness.test/twice")
    log = FakeLog("questlog.test/twice").append(30)
    with (
        witness_serving(state, [log.signer.verifier.text]) as (first, _),
        witness_serving(state, []) as (second, _),
    ):
        a, b = Witness(first, vkey, state), Witness(second, vkey, state)
        assert a.submit(log, 0, 5)[0] == 200
        bodies = [
            AddCheckpoint(5, tuple(log.consistency(5, n)), log.checkpoint(n)).body()
            for n in (12, 25)
        ]
        results = race([(a, bodies[0]), (b, bodies[1])])
        assert sorted(results) == [200, 409]


def test_the_check_and_the_record_are_one_transaction(tmp_path: Path) -> None:
    """tlog-witness's race, step by step: request A is checked and holds the state's lock while
    it cosigns (a slow clock); request B, from the same old size, is checked only after A's
    record, so it gets a 409 instead of rolling A's size back."""
    state = WitnessState(tmp_path / "witness.db", create=True)
    new_witness_key(state, "witness.test/slow")
    log = FakeLog("questlog.test/slow").append(20)
    state.add_logs([(log.signer.verifier.text, log.origin)])
    inside = threading.Event()

    def slow_clock() -> float:
        inside.set()
        threading.Event().wait(0.5)
        return 1_700_000_000.0

    slow = WitnessService(state, clock=slow_clock)
    first = threading.Thread(
        target=slow.add_checkpoint, args=(AddCheckpoint(0, (), log.checkpoint(15)).body(),)
    )
    first.start()
    assert inside.wait(10)
    other = WitnessService(WitnessState(tmp_path / "witness.db"))
    with pytest.raises(StaleSize) as stale:
        other.add_checkpoint(AddCheckpoint(0, (), log.checkpoint(10)).body())
    first.join()
    assert stale.value.cosigned_size == 15


def test_failures_kept_are_the_first_and_the_latest_and_all_are_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tlog-witness: a 422's request may be kept as proof of misbehaviour. A log resubmitting
    a refused checkpoint on every tick must not grow the state without limit: per origin the
    first and the latest ``FAILURES_KEPT`` are kept, and every one is counted."""
    assert witness_state.FAILURES_KEPT == 100
    monkeypatch.setattr(witness_state, "FAILURES_KEPT", 3)
    state = WitnessState(tmp_path / "witness.db", create=True)
    new_witness_key(state, "witness.test/bounded")
    logs = [FakeLog(f"questlog.test/b{n}").append(20) for n in range(2)]
    state.add_logs([(log.signer.verifier.text, log.origin) for log in logs])
    service = WitnessService(state)
    for log in logs:
        service.add_checkpoint(AddCheckpoint(0, (), log.checkpoint(8)).body())
    for n in range(10):
        proof = logs[0].consistency(8, 10 + n)
        proof[0] = bytes(32)
        with pytest.raises(Inconsistent):
            service.add_checkpoint(
                AddCheckpoint(8, tuple(proof), logs[0].checkpoint(10 + n)).body()
            )
    proof = logs[1].consistency(8, 12)
    proof[0] = bytes(32)
    with pytest.raises(Inconsistent):
        service.add_checkpoint(AddCheckpoint(8, tuple(proof), logs[1].checkpoint(12)).body())
    kept = [f[2] for f in state.failures() if f[0] == logs[0].origin]
    assert kept == [10, 11, 12, 17, 18, 19]
    assert [f[2] for f in state.failures() if f[0] == logs[1].origin] == [12]
    assert state.failure_counts() == {logs[0].origin: 10, logs[1].origin: 1}


def test_init_with_a_bad_name_changes_nothing(tmp_path: Path) -> None:
    """signed-note "Format": a key name is non-empty, without spaces or "+". Bad input gets a
    clear error naming the field and makes no state file a later ``init`` would stumble on."""
    from click.testing import CliRunner

    from webapi.cli.main import main

    state = tmp_path / "witness.db"
    result = CliRunner().invoke(main, ["witness", "init", "--state", str(state), "--name", "a b"])
    assert result.exit_code != 0 and "--name" in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["init", "serve"])
def test_a_state_file_that_is_not_a_witness_state_is_a_clear_error(
    tmp_path: Path, command: str
) -> None:
    """The witness's state is its SQLite file: any other file is refused in words, unchanged."""
    from click.testing import CliRunner

    from webapi.cli.main import main

    state = tmp_path / "notes.txt"
    state.write_text("not a database\n" * 100)
    args = ["witness", command, "--state", str(state)]
    args += (
        ["--name", "w.test/w"] if command == "init" else ["--log", FakeLog().signer.verifier.text]
    )
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert "is not a witness state" in result.output
    assert not isinstance(result.exception, sqlite3.DatabaseError)
    assert state.read_text() == "not a database\n" * 100


class _FailingCommit:
    """A state connection whose next COMMIT fails (a full disk, an I/O error)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection, self.fail = connection, True

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:
        if sql == "COMMIT" and self.fail:
            self.fail = False
            raise sqlite3.OperationalError("disk I/O error")
        return self.connection.execute(sql, *args)

    @property
    def in_transaction(self) -> bool:
        return self.connection.in_transaction


def test_a_failed_commit_cosigns_nothing_and_the_witness_goes_on(tmp_path: Path) -> None:
    """tlog-witness: the witness MUST persist the new checkpoint before responding. A commit
    that fails answers no cosignature, records nothing, and leaves no transaction open that
    would refuse every later request on that connection."""
    state = WitnessState(tmp_path / "witness.db", create=True)
    new_witness_key(state, "witness.test/disk")
    log = FakeLog("questlog.test/disk").append(10)
    state.add_logs([(log.signer.verifier.text, log.origin)])
    service = WitnessService(state)
    state._local.connection = _FailingCommit(state._connection())  # type: ignore[assignment]
    with pytest.raises(sqlite3.OperationalError):
        service.add_checkpoint(AddCheckpoint(0, (), log.checkpoint(5)).body())
    assert service.latest(hashlib.sha256(log.origin.encode()).hexdigest()) is None
    assert service.add_checkpoint(AddCheckpoint(0, (), log.checkpoint(5)).body())
    with pytest.raises(StaleSize):
        service.add_checkpoint(AddCheckpoint(0, (), log.checkpoint(7)).body())


def test_serve_on_a_port_in_use_says_so_before_listening(tmp_path: Path) -> None:
    """``questlog witness serve`` on a port another process listens on: exit 1 with the port in
    words, before it says it listens (no traceback)."""
    from click.testing import CliRunner

    from tests.live_server import witness_init
    from webapi.cli.main import main

    state = tmp_path / "witness.db"
    witness_init(state)
    log_key = FakeLog("questlog.test/busy").signer.verifier.text
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            main, ["witness", "serve", "--state", str(state), "--port", str(port), "--log", log_key]
        )
    assert result.exit_code == 1, result.output
    assert f"port {port} on 127.0.0.1 is in use" in result.output
    assert "listening" not in result.output and "Traceback" not in result.output


def test_serve_names_the_witnesses_it_submits_to(app: Questlog, tmp_path: Path) -> None:
    """``questlog serve`` at start: the policy's witnesses and how often it signs a checkpoint
    (tlog-policy ``witness <name> <vkey> [<url>]``: one without a URL is not asked)."""
    from webapi.cli.main import witnesses_line

    assert witnesses_line(app) == (
        "Witnesses: none, no witness policy (QUESTLOG_WITNESS_POLICY unset)"
    )
    w1 = Cosigner("witness.test/w1", Ed25519PrivateKey.generate()).key.text
    w2 = Cosigner("witness.test/w2", Ed25519PrivateKey.generate()).key.text
    app.transparency.witnesses.use_policy(
        f"witness w1 {w1} http://127.0.0.1:8101\nwitness w2 {w2}\ngroup g 1 w1 w2\nquorum g\n"
    )
    every = f"{app.transparency.checkpoint_seconds:g}"
    assert witnesses_line(app) == (
        f"Witnesses: w1 http://127.0.0.1:8101, w2 (not asked: no URL); checkpoints every {every} s"
    )
