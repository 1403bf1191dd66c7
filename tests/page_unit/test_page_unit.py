"""The unit tests of the table page's modules without a DOM (``tests/page_unit/*.test.mjs``),
run by node's own test runner (``node --test``): canon.js, picks.js, fieldtext.js, problems.js,
dice.js, facecounts.js, integrity.js, proposals.js, verify.js, timeline.js, headings.js,
commandtitles.js, tlog.js and witnessstate.js, each imported as the browser imports it. They
need node only, no npm package.

Every ``test(`` of the files must run and pass (so the run cannot pass empty, or with a file left
out), and a file with a failing assertion is refused. Without node these tests skip with the
reason, except under ``CI=true``, where that is a failure (``.ci/run`` installs node).
docs/table-page.md gives the command to run them by hand; a test checks that it is this one.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.docs.examples import checked_block
from tests.machine import tool

pytestmark = pytest.mark.page_unit

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
FILES = sorted(HERE.glob("*.test.mjs"))
FLAGS = ["--test", "--test-reporter=tap"]


def run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """A command in ``folder``; its output kept."""
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=300, check=False
    )


def counts(tap: str) -> dict[str, int]:
    """The totals at the end of node's TAP report (``# tests 53``, ``# pass 53``…)."""
    return {name: int(n) for name, n in re.findall(r"^# (\w+) (\d+)$", tap, re.M)}


@pytest.fixture(scope="module")
def node() -> str:
    return tool("node", "apt-get install nodejs: no unit tests of the page's modules")


def test_every_page_unit_test_runs_and_passes(node: str) -> None:
    """Each ``test(`` declared in the files is one test run, and each passes."""
    declared = sum(len(re.findall(r"^test\(", f.read_text("utf-8"), re.M)) for f in FILES)
    assert len(FILES) >= 8 and declared >= 50
    ran = run([node, *FLAGS, *(str(f.relative_to(ROOT)) for f in FILES)], ROOT)
    assert ran.returncode == 0, ran.stdout[-6000:] + ran.stderr
    totals = counts(ran.stdout)
    assert totals["tests"] == totals["pass"] == declared, totals
    assert totals["fail"] == totals["cancelled"] == totals["skipped"] == totals["todo"] == 0


def test_a_failing_test_is_refused(node: str, tmp_path: Path) -> None:
    """The runner can fail: one passing and one failing test give exit 1 and ``# fail 1``."""
    canon = (ROOT / "webapi" / "static" / "canon.js").as_uri()
    (tmp_path / "bad.test.mjs").write_text(
        'import assert from "node:assert/strict";\n'
        'import { test } from "node:test";\n'
        f'import {{ canonical }} from "{canon}";\n'
        'test("sorted", () => assert.equal(canonical({ b: 1, a: 2 }), \'{"a":2,"b":1}\'));\n'
        'test("unsorted", () => assert.equal(canonical({ b: 1, a: 2 }), \'{"b":1,"a":2}\'));\n',
        encoding="utf-8",
    )
    ran = run([node, *FLAGS, "bad.test.mjs"], tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    totals = counts(ran.stdout)
    assert (totals["tests"], totals["pass"], totals["fail"]) == (2, 1, 1), ran.stdout
    assert "not ok 2 - unsorted" in ran.stdout, ran.stdout


def test_the_docs_give_this_command() -> None:
    """docs/table-page.md runs node's test runner from the repository's root on these files."""
    block = checked_block("table-page.md", "tests/page_unit/test_page_unit.py", "node --test")
    assert block.strip() == "node --test tests/page_unit/*.test.mjs"
