"""After an audit the server gives the decoded log's memory back to the system (glibc's
``malloc_trim``), so each request thread does not keep its own high-water mark; the figure is
``python -m bench.reads.audit_memory`` (docs/performance-results.md, "The server's memory after
audits")."""

from __future__ import annotations

import platform
import sys
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.api.test_bench_smoke import run_module
from webapi.http import memory
from webapi.routes import campaigns


def test_an_audit_gives_its_memory_back(
    client: FlaskClient, campaign: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(campaigns, "give_back", lambda: calls.append(True) or True)
    answer = client.get(f"/campaigns/{campaign['id']}/audit")
    assert answer.status_code == 200 and answer.json["ok"] is True
    assert calls == [True]
    first = client.get(f"/campaigns/{campaign['id']}/events?limit=1").json["items"][0]["hash"]
    resumed = client.get(f"/campaigns/{campaign['id']}/audit?after=1&after_hash={first}")
    assert resumed.status_code == 200, resumed.json  # a resumed audit reads little: no give-back
    assert calls == [True]


def test_the_c_library_s_trim_is_found_on_glibc() -> None:
    glibc = sys.platform == "linux" and platform.libc_ver()[0] == "glibc"
    assert (memory.TRIM is not None) is glibc
    assert memory.give_back() is glibc


@pytest.mark.slow
def test_the_memory_benchmark_runs() -> None:
    done = run_module("bench.reads.audit_memory", "--quick")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "RSS after 4 audits of 2,000 events" in done.stdout
