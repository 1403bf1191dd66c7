"""A real ``questlog serve`` for the tests that talk HTTP over a socket: the command, a free
port, an admin token made through the CLI, and a server started, waited for and stopped by its
pid. One home for what the live schemathesis run, the unparsable-request tests, the client
generators and the CLI tests each started on their own."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, NamedTuple

import pytest

QUESTLOG = [sys.executable, "-c", "from webapi.cli.main import main; main()"]
"""The ``questlog`` command, run by this interpreter."""
START_SECONDS = 60
"""How long a server may take to accept connections on a busy machine."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def made_admin(env: dict[str, str], name: str) -> tuple[str, str]:
    """``questlog token create --name NAME --admin`` over ``env``'s store, as the docs make the
    first token: the token's id and its secret."""
    made = subprocess.run(
        [*QUESTLOG, "token", "create", "--name", name, "--admin"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = re.search(r"\(id (\S+)\)", made.stdout)
    assert found, made.stdout
    return found.group(1), made.stdout.strip().splitlines()[-1]


def admin_token(env: dict[str, str], name: str) -> str:
    """The secret of a new admin token, made with ``questlog token create`` over ``env``'s store."""
    return made_admin(env, name)[1]


def wait_for(port: int, process: subprocess.Popen[Any], seconds: float = START_SECONDS) -> None:
    """Until the server accepts connections (a failure if it exits or takes too long)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"questlog serve exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"questlog serve did not start on port {port}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM by pid, then SIGKILL if it lingers."""
    if process.poll() is None:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait(10)


@contextmanager
def serving(env: dict[str, str], log: IO[bytes] | None = None) -> Iterator[int]:
    """``questlog serve`` on a free port over the store ``env`` names; its port, once it
    accepts connections; stopped by its pid afterwards. Output to ``log`` (else dropped)."""
    port = free_port()
    output = log if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [*QUESTLOG, "serve", "--port", str(port)], env=env, stdout=output, stderr=subprocess.STDOUT
    )
    try:
        wait_for(port, process)
        yield port
    finally:
        stop(process)


def witness_init(state: Path, name: str = "witness.test/w1") -> str:
    """``questlog witness init``: the witness's vkey (type 0x04), as it prints it last."""
    made = subprocess.run(
        [*QUESTLOG, "witness", "init", "--state", str(state), "--name", name],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return made.stdout.strip().splitlines()[-1]


class ServedWitness(NamedTuple):
    """A ``questlog witness serve`` process and its port."""

    port: int
    process: subprocess.Popen[bytes]


@contextmanager
def witness_serving(
    state: Path, log_keys: list[str], port: int | None = None
) -> Iterator[ServedWitness]:
    """``questlog witness serve`` on ``state`` following the logs of ``log_keys`` (on ``port``,
    else a free one); stopped by its pid after."""
    port = free_port() if port is None else port
    args = [*QUESTLOG, "witness", "serve", "--state", str(state), "--port", str(port)]
    for key in log_keys:
        args += ["--log", key]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_for(port, process)
        yield ServedWitness(port, process)
    finally:
        stop(process)
