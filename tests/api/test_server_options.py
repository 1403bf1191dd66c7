"""``webapi/cli/server.py``: gunicorn's settings, the metrics directory, and the hook that drops a
dead worker's metrics."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from webapi.cli.server import MULTIPROC_ENV, _child_exit, gunicorn_options, metrics_directory


def test_each_worker_gets_the_request_threads_plus_one_per_stream() -> None:
    options = gunicorn_options("127.0.0.1", 8000, 3, 8, 64)

    assert options["workers"] == 3
    assert options["worker_class"] == "webapi.cli.fair_worker.FairThreadWorker"
    assert options["threads"] == 8 + 64
    assert options["bind"] == "127.0.0.1:8000"
    # Each worker builds its own app after the fork: nothing opened before it is shared.
    assert options["preload_app"] is False


def test_an_ipv6_host_is_bound_in_brackets() -> None:
    assert gunicorn_options("::1", 8000, 2, 1, 1)["bind"] == "[::1]:8000"


def test_a_fresh_metrics_directory_is_made_for_the_workers_and_removed_at_exit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    with metrics_directory() as made:
        assert os.environ[MULTIPROC_ENV] == made
        assert Path(made).is_dir() and not any(Path(made).iterdir())
    assert not Path(made).exists()
    assert MULTIPROC_ENV not in os.environ


def test_the_operators_metrics_directory_is_used_and_kept(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(MULTIPROC_ENV, str(tmp_path))
    (tmp_path / "gauge_livesum_999.db").write_bytes(b"")  # an earlier, killed server's
    (tmp_path / "README").write_text("the operator's", encoding="utf-8")
    with metrics_directory() as used:
        assert used == str(tmp_path)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["README"]
    assert tmp_path.is_dir()
    assert os.environ[MULTIPROC_ENV] == str(tmp_path)


def test_a_forked_worker_leaving_the_with_block_does_not_remove_the_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    with metrics_directory() as made:
        real_pid = os.getpid()
        # As in a worker: the same stack, another pid.
        monkeypatch.setattr(os, "getpid", lambda: real_pid + 1)
    assert Path(made).is_dir()
    monkeypatch.undo()
    Path(made).rmdir()
    # The worker's branch leaves the variable set (the process is about to end); this one goes on.
    os.environ.pop(MULTIPROC_ENV, None)


def test_a_dead_workers_live_gauges_are_dropped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(MULTIPROC_ENV, str(tmp_path))
    (tmp_path / "gauge_livesum_4242.db").write_bytes(b"")
    (tmp_path / "counter_4242.db").write_bytes(b"")

    _child_exit(None, SimpleNamespace(pid=4242))

    # prometheus_client drops only the live gauges; counters of a dead worker still count.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["counter_4242.db"]
