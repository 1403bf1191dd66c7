"""How long a witness takes to cosign: ``python -m bench.witness`` (``--requests N``).

A log of made-up entries grows by ``--step`` leaves between checkpoints; each request submits
the next signed checkpoint with its consistency proof from the last cosigned size, as a log
does (tlog-witness ``add-checkpoint``). Timed per request, the bodies made beforehand:

- in-process: ``Witness.add_checkpoint`` over a SQLite state file (parse, the log's signature,
  the proof, the transaction that checks and records the size with its fsync, the cosignature);
- over HTTP: a ``questlog witness serve`` process on 127.0.0.1, one keep-alive connection.

The issue's target: a witness cosigns a checkpoint in at most 10 ms (the median and the p99
are printed beside it). The process exits 1 only when a request was not cosigned.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from bench.common.load import free_port
from domain.facade import Witness, WitnessState, new_witness_key
from domain.model.signed_note import NoteSigner
from domain.model.tlog.checkpoint import TreeHead
from domain.model.tlog.merkle import RightEdge, consistency_proof, leaf_hash, tree_root
from domain.model.tlog.witness_protocol import AddCheckpoint

TARGET_MS = 10.0
ORIGIN = "bench.questlog.example/log"
QUESTLOG = [sys.executable, "-c", "from webapi.cli.main import main; main()"]


def request_bodies(signer: NoteSigner, count: int, step: int) -> list[bytes]:
    """``count`` add-checkpoint bodies, each extending the one before by ``step`` leaves."""
    nodes: dict[tuple[int, int], bytes] = {}
    edge = RightEdge()

    def read(wanted: object) -> list[bytes]:
        return [nodes[node] for node in wanted]  # type: ignore[attr-defined]

    bodies, old = [], 0
    for n in range(count):
        for i in range(step):
            leaf = leaf_hash(hashlib.sha256(f"{n} {i}".encode()).digest())
            for level, index, value in edge.append(leaf):
                nodes[(level, index)] = value
        size = edge.size
        head = TreeHead(ORIGIN, size, tree_root(size, read))
        proof = tuple(consistency_proof(old, size, read)) if old else ()
        bodies.append(AddCheckpoint(old, proof, signer.sign(head.body())).body())
        old = size
    return bodies


def summary(label: str, times_ns: list[int]) -> str:
    """Median and p99 in ms, beside the target."""
    ms = sorted(t / 1e6 for t in times_ns)
    median = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    verdict = "PASS" if p99 <= TARGET_MS else "MISS"
    return (
        f"{label:<12} {len(ms):>5} cosignatures  median {median:6.3f} ms  p99 {p99:6.3f} ms  "
        f"(target <= {TARGET_MS:g} ms: {verdict})"
    )


def in_process(directory: Path, signer: NoteSigner, bodies: list[bytes]) -> list[int]:
    """Each body through ``Witness.add_checkpoint`` in this process."""
    state = WitnessState(directory / "in-process.db", create=True)
    new_witness_key(state, "bench.witness/in-process")
    state.add_logs([(signer.verifier.text, ORIGIN)])
    witness = Witness(state)
    times = []
    for body in bodies:
        start = time.perf_counter_ns()
        witness.add_checkpoint(body)
        times.append(time.perf_counter_ns() - start)
    return times


def over_http(directory: Path, signer: NoteSigner, bodies: list[bytes]) -> list[int]:
    """Each body posted to a ``questlog witness serve`` process over one keep-alive connection."""
    state = directory / "http.db"
    subprocess.run(
        [*QUESTLOG, "witness", "init", "--state", str(state), "--name", "bench.witness/http"],
        check=True,
        capture_output=True,
    )
    port = free_port()
    process = subprocess.Popen(
        [
            *QUESTLOG,
            "witness",
            "serve",
            "--state",
            str(state),
            "--port",
            str(port),
            "--log",
            signer.verifier.text,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        connection = _connect(port, process)
        times = []
        for body in bodies:
            start = time.perf_counter_ns()
            connection.request("POST", "/add-checkpoint", body=body)
            answer = connection.getresponse()
            answer.read()
            times.append(time.perf_counter_ns() - start)
            if answer.status != 200:
                raise SystemExit(f"the witness answered {answer.status}, not 200")
        connection.close()
        return times
    finally:
        process.terminate()
        process.wait(30)


def _connect(port: int, process: subprocess.Popen[bytes]) -> http.client.HTTPConnection:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"questlog witness serve exited with {process.returncode}")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.connect()
            return connection
        except OSError:
            time.sleep(0.1)
    raise SystemExit("questlog witness serve did not start")


def main(argv: list[str] | None = None) -> None:
    """Measure and print the cosigning times."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=1000, help="checkpoints per run")
    parser.add_argument("--step", type=int, default=37, help="leaves between checkpoints")
    args = parser.parse_args(argv)
    signer = NoteSigner(ORIGIN, Ed25519PrivateKey.generate())
    bodies = request_bodies(signer, args.requests, args.step)
    with tempfile.TemporaryDirectory(prefix="questlog-witness-bench-") as name:
        directory = Path(name)
        print(summary("in-process", in_process(directory, signer, bodies)))
        print(summary("HTTP", over_http(directory, signer, bodies)))


if __name__ == "__main__":
    main()
