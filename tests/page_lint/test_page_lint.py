"""ESLint and TypeScript's checker on the table page's JavaScript: every module of
``webapi/static/`` passes the rules of ``eslint.config.js`` (the recommended ones, browser
globals, ``max-len`` 120, ``eqeqeq``, ``no-var``, ``prefer-const``) and ``tsc -p tsconfig.json``
(``checkJs``: each module's ``// @ts-check`` and JSDoc types) with no finding; a snippet that
breaks two lint rules, one with two type errors, and one calling a method the campaign page
does not have, are refused.

The tools come from npm at the versions ``page_lint/package-lock.json`` pins (``npm ci``, in a
temporary folder). Without npm these tests skip with the reason, except under ``CI=true``,
where that is a failure (``.ci/run`` installs node and npm). docs/table-page.md gives the commands
to run them by hand; the tests check that the commands there are the ones run here.
"""

from __future__ import annotations

import json
import re
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
DOC = ROOT / "docs" / "table-page.md"
SHELL = ROOT / "webapi" / "templates" / "app.html"
TSCONFIG = HERE / "tsconfig.json"
FLAGS = ["--max-warnings", "0"]
"""A warning fails too: "File ignored because outside of base path" is one."""


def run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """A command in ``folder``; its output kept."""
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pinned tools installed (``npm ci``) in a temporary folder beside a copy of the
    ESLint config: the folder."""
    npm = tool("npm", "apt-get install nodejs npm: no lint of the page's JavaScript")
    folder = tmp_path_factory.mktemp("page_lint")
    for name in FILES:
        shutil.copy(HERE / name, folder / name)
    done = run([npm, "ci", "--no-audit", "--no-fund"], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


@pytest.fixture(scope="module")
def eslint(installed: Path) -> list[str]:
    """The command that lints with the pinned eslint. The files linted must be under the folder
    it runs in (eslint's base path when ``--config`` is given), so each run sets its own."""
    binary = installed / "node_modules" / ".bin" / "eslint"
    return [str(binary), "--config", str(installed / "eslint.config.js"), *FLAGS]


@pytest.fixture(scope="module")
def tsc(installed: Path) -> str:
    """The pinned TypeScript's checker (its lib files come from its own install)."""
    return str(installed / "node_modules" / ".bin" / "tsc")


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


def test_every_module_asks_for_the_type_check() -> None:
    """``// @ts-check`` is each module's first line (the editor checks it too, without the
    config), and the config's ``include`` is every module of the folder."""
    unchecked = [m.name for m in MODULES if not m.read_text("utf-8").startswith("// @ts-check\n")]
    assert unchecked == []
    config = json.loads(TSCONFIG.read_text("utf-8"))
    assert config["include"] == ["../../webapi/static/*.js"]
    options = config["compilerOptions"]
    assert options["checkJs"] is options["allowJs"] is options["noEmit"] is True


def test_the_page_modules_type_check(tsc: str) -> None:
    """``tsc -p`` on the config finds no error; ``--listFilesOnly`` shows every module is
    checked (none left out of ``include``)."""
    checked = run([tsc, "-p", str(TSCONFIG)], ROOT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "error" not in checked.stdout, checked.stdout
    listed = run([tsc, "-p", str(TSCONFIG), "--listFilesOnly"], ROOT)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    files = {Path(line).resolve() for line in listed.stdout.splitlines() if line.endswith(".js")}
    assert files == set(MODULES)


def type_check(tsc: str, folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    """tsc, with the page's settings, on one module ``bad.js`` of ``source`` in ``folder``."""
    (folder / "bad.js").write_text(source, encoding="utf-8")
    config = {"extends": str(TSCONFIG), "include": ["bad.js"]}
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return run([tsc, "-p", str(folder / "tsconfig.json")], folder)


def test_a_type_error_is_refused(tsc: str, tmp_path: Path) -> None:
    """The checker can fail, with the page's settings: a text passed for a ``@param {number}``,
    and ``.value`` on what querySelector answers (an Element, not an input) without a cast."""
    checked = type_check(
        tsc,
        tmp_path,
        "// @ts-check\n"
        "/** @param {number} n */\n"
        "export const twice = (n) => n * 2;\n"
        'twice("two");\n'
        'document.querySelector("input.amount").value = "1";\n',
    )
    assert checked.returncode == 2, checked.stdout + checked.stderr
    assert "bad.js(4,7): error TS2345" in checked.stdout, checked.stdout
    element = "bad.js(5,40): error TS2339: Property 'value' does not exist on type 'Element'"
    assert element in checked.stdout, checked.stdout
    assert checked.stdout.count(": error TS") == 2, checked.stdout


def test_this_outside_a_method_is_refused(tsc: str, tmp_path: Path) -> None:
    """A function moved out of a class that still passes ``this`` on is an error
    (``noImplicitThis``), not an undefined page at run time."""
    checked = type_check(
        tsc,
        tmp_path,
        "// @ts-check\n"
        "/** @param {object} page */\n"
        "const ownerCard = (page) => page;\n"
        "export function buildHead() {\n"
        "  return ownerCard(this);\n"
        "}\n",
    )
    assert checked.returncode == 2, checked.stdout + checked.stderr
    assert "bad.js(5,20): error TS2683" in checked.stdout, checked.stdout
    assert checked.stdout.count(": error TS") == 1, checked.stdout


def test_a_call_the_campaign_page_does_not_have_is_refused(tsc: str, tmp_path: Path) -> None:
    """The campaign page the modules pass around (``campaign.js``'s ``CampaignPage``, the
    ``@param`` of actions.js, decisions.js, owner.js…) declares its fields and methods: a method
    it has is called without a finding, one it lacks is refused, and so is a field misspelt."""
    page = (ROOT / "webapi" / "static" / "campaign.js").as_posix()
    checked = type_check(
        tsc,
        tmp_path,
        "// @ts-check\n"
        f'/** @param {{import("{page}").CampaignPage}} page */\n'
        "export function tapped(page) {\n"
        '  page.goToPlay("decision");\n'
        "  page.redraw();\n"
        "  page.formSlott = null;\n"
        "}\n",
    )
    assert checked.returncode == 2, checked.stdout + checked.stderr
    absent = "does not exist on type 'CampaignPage'"
    missing = f"bad.js(5,8): error TS2339: Property 'redraw' {absent}"
    assert missing in checked.stdout, checked.stdout
    misspelt = f"bad.js(6,8): error TS2551: Property 'formSlott' {absent}. Did you mean 'formSlot'?"
    assert misspelt in checked.stdout, checked.stdout
    assert checked.stdout.count(": error TS") == 2, checked.stdout


def test_the_docs_give_the_type_check_command() -> None:
    """docs/table-page.md runs the pinned tsc from the repository's root on this config."""
    block = checked_block("table-page.md", "tests/page_lint/test_page_lint.py", "tsc")
    assert "npm ci --no-audit --no-fund" in block
    command = "tests/page_lint/node_modules/.bin/tsc -p tests/page_lint/tsconfig.json"
    assert block.rstrip().endswith(command)


def test_the_docs_list_every_module_and_the_shell_preloads_it() -> None:
    """docs/table-page.md's table of modules names each ``webapi/static/*.js`` once, and
    app.html loads app.js and preloads every other module (a module split off or added is
    listed and preloaded, a module removed is neither)."""
    section = DOC.read_text("utf-8").partition("### The modules")[2].partition("\n## ")[0]
    listed = re.findall(r"^\| `(\w+\.js)` \|", section, re.M)
    assert sorted(listed) == [m.name for m in MODULES]
    shell = SHELL.read_text("utf-8")
    preloaded = re.findall(r'<link rel="modulepreload" href="/app/static/(\w+\.js)">', shell)
    assert '<script type="module" src="/app/static/app.js"></script>' in shell
    assert sorted([*preloaded, "app.js"]) == [m.name for m in MODULES]
