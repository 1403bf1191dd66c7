"""``webapi/cli/fair_worker.py``: the table the workers of ``questlog serve --workers N`` share to
take their fair share of connections (two workers must both be used)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from webapi.cli import fair_worker
from webapi.cli.fair_worker import Shares


def gone_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_worker_counts_only_the_others_and_takes_the_fewest() -> None:
    shares = Shares(4)
    mine = shares.claim(os.getpid())
    assert shares.fewest_elsewhere(mine) is None  # alone: it accepts freely
    other = shares.claim(os.getppid())
    third = shares.claim(os.getppid())
    shares.publish(mine, 5)
    shares.publish(other, 3)
    shares.publish(third, 4)
    assert shares.fewest_elsewhere(mine) == 3
    assert shares.fewest_elsewhere(other) == 4


def test_a_dead_workers_slot_does_not_count_and_is_claimed_again() -> None:
    shares = Shares(2)
    mine = shares.claim(os.getpid())
    dead = shares.claim(gone_pid())
    shares.publish(dead, 0)
    # A dead worker holding nothing must not stop the live one from accepting.
    assert shares.fewest_elsewhere(mine) is None
    assert shares.claim(os.getppid()) == dead  # its replacement takes the slot


def test_a_worker_that_stopped_looking_does_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    shares = Shares(2)
    mine = shares.claim(os.getpid())
    hung = shares.claim(os.getppid())
    shares.publish(hung, 0)
    assert shares.fewest_elsewhere(mine) == 0
    later = fair_worker._now() + int(fair_worker.STALE * 1000) + 1
    monkeypatch.setattr(fair_worker, "_now", lambda: later)
    shares.publish(mine, 7)
    assert shares.fewest_elsewhere(mine) is None  # hung (alive, silent): it no longer counts


def test_more_workers_than_slots_accept_freely() -> None:
    shares = Shares(1)
    assert shares.claim(os.getpid()) == 0
    assert shares.claim(os.getppid()) == -1


class Poller:
    """The worker's selector, recording what is registered."""

    def __init__(self) -> None:
        self.registered: list[object] = []

    def register(self, fileobj: object, *_: object) -> None:
        self.registered.append(fileobj)

    def unregister(self, fileobj: object) -> None:
        self.registered.remove(fileobj)

    def select(self, timeout: float) -> list[object]:
        return []


class Listener:
    def setblocking(self, flag: bool) -> None:
        pass


def worker(shares: Shares, *, connections: int, alive: bool = True) -> fair_worker.FairThreadWorker:
    """A fair worker as its run loop sees itself, without a socket or an app."""
    made: fair_worker.FairThreadWorker = object.__new__(fair_worker.FairThreadWorker)
    made.alive = alive
    made._accepting = False
    made.sockets = [Listener()]
    made.poller = Poller()
    made.nr_conns = connections
    made.worker_connections = 1000
    made.slot = shares.claim(os.getpid())
    return made


def test_a_worker_accepts_only_while_no_other_holds_fewer(monkeypatch: pytest.MonkeyPatch) -> None:
    shares = Shares(2)
    monkeypatch.setattr(fair_worker, "SHARES", shares)
    busy = worker(shares, connections=3)
    other = shares.claim(os.getppid())
    shares.publish(other, 1)
    busy.wait_for_and_dispatch_events(0)
    assert busy._accepting is False and busy.poller.registered == []
    busy.set_accept_enabled(True)  # gunicorn's own switch (below its limit) does not override it
    assert busy._accepting is False
    shares.publish(other, 3)
    busy.wait_for_and_dispatch_events(0)
    assert busy._accepting is True and busy.poller.registered == busy.sockets


def test_a_stopping_worker_never_takes_a_connection_again(monkeypatch: pytest.MonkeyPatch) -> None:
    shares = Shares(2)
    monkeypatch.setattr(fair_worker, "SHARES", shares)
    stopping = worker(shares, connections=0)
    stopping.wait_for_and_dispatch_events(0)
    assert stopping._accepting is True
    # gunicorn's run loop ends: it turns accepting off, then drains its open connections.
    stopping.alive = False
    stopping.set_accept_enabled(False)
    for _ in range(3):
        stopping.wait_for_and_dispatch_events(0)
        stopping.set_accept_enabled(True)
    assert stopping._accepting is False and stopping.poller.registered == []


def test_a_released_slot_no_longer_counts() -> None:
    shares = Shares(2)
    mine = shares.claim(os.getpid())
    shares.claim(os.getppid())
    shares.release(os.getppid())
    assert shares.fewest_elsewhere(mine) is None
