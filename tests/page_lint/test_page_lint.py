"""ESLint on the table page's JavaScript: every module of ``webapi/static/`` passes the rules of
``eslint.config.js`` (the recommended ones, browser globals, ``max-len`` 120, ``eqeqeq``,
``no-var``, ``prefer-const``), and a snippet that breaks two of them is refused.

The tools come from npm at the versions ``page_lint/package-lock.json`` pins (``npm ci``, in a
temporary folder). Without npm these tests skip with the reason, except under ``CI=true``,
where that is a failure (``.ci/run`` installs node and npm). docs/table-page.md gives the command
to run it by hand; the test checks that the command there is the one run here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.docs.examples import checked_block
from tests.machine import tool

pytestmark = pytest.mark.lint

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
MODULES = sorted((ROOT / "webapi" / "static").glob("*.js"))
FILES = ("package.json", "package-lock.json", "eslint.config.js")
FLAGS = ["--max-warnings", "0"]
"""A warning fails too: "File ignored because outside of base path" is one."""


def run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """A command in ``folder``; its output kept."""
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def eslint(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The pinned eslint installed (``npm ci``) in a temporary folder beside a copy of the
    config: the command that lints with it. The files linted must be under the folder it runs
    in (eslint's base path when ``--config`` is given), so each run sets its own."""
    npm = tool("npm", "apt-get install nodejs npm: no lint of the page's JavaScript")
    folder = tmp_path_factory.mktemp("page_lint")
    for name in FILES:
        shutil.copy(HERE / name, folder / name)
    installed = run([npm, "ci", "--no-audit", "--no-fund"], folder)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    binary = folder / "node_modules" / ".bin" / "eslint"
    return [str(binary), "--config", str(folder / "eslint.config.js"), *FLAGS]


def test_the_page_modules_pass(eslint: list[str]) -> None:
    """Every ``webapi/static/*.js`` is linted (none ignored as outside the base path) and has
    no finding; eslint's report is the failure message."""
    assert len(MODULES) > 20
    linted = run([*eslint, *map(str, MODULES)], ROOT)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    report = run([*eslint, "--format", "json", *map(str, MODULES)], ROOT)
    results = json.loads(report.stdout)
    assert sorted(Path(r["filePath"]) for r in results) == MODULES
    assert [m for r in results for m in r["messages"]] == []


def test_a_long_line_and_an_unused_variable_are_refused(eslint: list[str], tmp_path: Path) -> None:
    """The linter can fail: a line of 130 characters and a variable never read."""
    long_line = 'export const said = "' + "x" * 107 + '";'
    assert len(long_line) == 130
    (tmp_path / "bad.js").write_text(f"{long_line}\nconst unused = 1;\n", encoding="utf-8")
    linted = run([*eslint, str(tmp_path / "bad.js")], tmp_path)
    assert linted.returncode == 1, linted.stdout + linted.stderr
    assert "max-len" in linted.stdout and "no-unused-vars" in linted.stdout, linted.stdout
    assert "'unused' is assigned a value but never used" in linted.stdout


def test_the_docs_give_this_command() -> None:
    """docs/table-page.md installs the pinned tools with ``npm ci`` in tests/page_lint and runs
    eslint from the repository's root with this config and these flags on the page's modules."""
    block = checked_block("table-page.md", "tests/page_lint/test_page_lint.py", "eslint")
    assert "npm ci --no-audit --no-fund" in block
    config = "--config tests/page_lint/eslint.config.js"
    assert f"tests/page_lint/node_modules/.bin/eslint {config} {' '.join(FLAGS)}" in block
    assert block.rstrip().endswith("webapi/static/*.js")
