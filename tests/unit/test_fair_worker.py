"""``webapi/fair_worker.py``: the table the workers of ``questlog serve --workers N`` share to
take their fair share of connections (issue 14: two workers must both be used)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from webapi import fair_worker
from webapi.fair_worker import Shares


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
