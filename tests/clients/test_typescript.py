"""openapi-typescript builds types from the OpenAPI document a running server publishes; a small
client (``typescript/questlog.ts``) compiles against them under ``tsc --strict``, and bodies the
document forbids (``typescript/wrong.ts``) do not.

The tools come from npm at the versions ``typescript/package-lock.json`` pins (``npm ci``, in a
temporary folder). Without npm these tests skip with the reason, except under ``CI=true``,
where that is a failure (``.ci/run`` installs node and npm).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clients.conftest import Served, checked_blocks, documented_operations
from tests.machine import tool

pytestmark = pytest.mark.clients

HERE = Path(__file__).parent / "typescript"
FLAGS = ["--default-non-nullable", "false"]
"""openapi-typescript's flags for Questlog (docs/api-clients.md says why)."""
TSC = ["--strict", "--noEmit", "--target", "es2022", "--module", "esnext"]
TSC += ["--moduleResolution", "bundler"]
ERROR = re.compile(r"^(?P<file>[\w.-]+\.ts)\((?P<line>\d+),\d+\): error (?P<code>TS\d+): ", re.M)


def run(command: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    """A command in ``folder``; its output kept."""
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the pinned openapi-typescript and typescript installed (``npm ci``) and
    the two .ts files."""
    npm = tool("npm", "apt-get install nodejs npm: no TypeScript check")
    folder = tmp_path_factory.mktemp("typescript")
    for name in ("package.json", "package-lock.json", "questlog.ts", "wrong.ts"):
        shutil.copy(HERE / name, folder / name)
    installed = run([npm, "ci", "--no-audit", "--no-fund"], folder)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return folder


def generate(tools: Path, served: Served, into: Path, flags: list[str]) -> str:
    """Write the served document's types to ``into/questlog-api.d.ts``; what the tool said."""
    (into / "openapi.json").write_text(json.dumps(served.document()), encoding="utf-8")
    tool = str(tools / "node_modules" / ".bin" / "openapi-typescript")
    made = run([tool, "openapi.json", "-o", "questlog-api.d.ts", *flags], into)
    assert made.returncode == 0, made.stdout + made.stderr
    return made.stdout + made.stderr


def compile_ts(tools: Path, folder: Path, source: str) -> subprocess.CompletedProcess[str]:
    """``tsc --strict`` (no output files) on one source in ``folder``."""
    return run([str(tools / "node_modules" / ".bin" / "tsc"), *TSC, source], folder)


def errors(output: str) -> dict[int, str]:
    """tsc's errors, by line: the code of each."""
    return {int(m["line"]): m["code"] for m in ERROR.finditer(output)}


@pytest.fixture(scope="module")
def typed(tools: Path, served: Served) -> Path:
    """The folder with the types generated with Questlog's flags."""
    said = generate(tools, served, tools, FLAGS)
    assert "error" not in said.lower() and "warn" not in said.lower(), said
    return tools


def test_the_client_compiles_under_strict(typed: Path) -> None:
    """Every command of a page, a match's setup and each night decision's reply type-check."""
    compiled = compile_ts(typed, typed, "questlog.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    types = (typed / "questlog-api.d.ts").read_text(encoding="utf-8")
    assert "TraitCheckCommand: {" in types and "CalendarBoardSetup: {" in types


def test_each_operation_is_the_type_the_docs_name(typed: Path) -> None:
    """docs/api-clients.md's table names, for each operationId, the type openapi-typescript
    exports (``operations["sendCommand"]``): a file naming every one compiles, and one naming
    an operation that does not exist does not."""
    rows = documented_operations()
    named = [f"  {row['typescript']}," for row in rows]
    source = ['import type { operations } from "./questlog-api";', "export type Every = ["]
    (typed / "every_operation.ts").write_text("\n".join([*source, *named, "];", ""]))
    compiled = compile_ts(typed, typed, "every_operation.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    wrong = [*source, '  operations["postCampaignsCampaignCommands"],', "];", ""]
    (typed / "no_such_operation.ts").write_text("\n".join(wrong))
    compiled = compile_ts(typed, typed, "no_such_operation.ts")
    assert compiled.returncode != 0 and "postCampaignsCampaignCommands" in compiled.stdout


def test_a_wrong_field_type_is_rejected(typed: Path) -> None:
    """A string for an integer, an unknown trait, an unknown field and a missing required field
    each fail to compile, on their own lines and nowhere else."""
    compiled = compile_ts(typed, typed, "wrong.ts")
    assert compiled.returncode != 0
    lines = (typed / "wrong.ts").read_text(encoding="utf-8").splitlines()
    marked = {n for n, line in enumerate(lines, 1) if "// rejected:" in line}
    found = errors(compiled.stdout)
    assert set(found) == marked, compiled.stdout
    target = next(n for n, line in enumerate(lines, 1) if line.strip().startswith("target:"))
    assert found[target] == "TS2322"  # Type 'string' is not assignable to type 'number'
    assert "'string' is not assignable to type 'number'" in compiled.stdout


def test_without_the_flag_every_default_is_required(
    tools: Path, served: Served, tmp_path: Path
) -> None:
    """Why the docs give --default-non-nullable false: openapi-typescript's default makes a
    field with a default required, and the client's bodies that leave one out do not compile."""
    shutil.copy(tools / "questlog.ts", tmp_path / "questlog.ts")
    generate(tools, served, tmp_path, [])
    compiled = compile_ts(tools, tmp_path, "questlog.ts")
    assert compiled.returncode != 0
    assert "Property 'bonus' is missing" in compiled.stdout


def test_the_docs_give_these_flags_and_their_example_compiles(typed: Path) -> None:
    """docs/api-clients.md generates the types and compiles with the flags tested here, and its
    TypeScript example compiles under them."""
    (_, commands), (language, example) = checked_blocks("test_typescript.py")
    assert f"npx openapi-typescript openapi.json -o questlog-api.d.ts {' '.join(FLAGS)}" in (
        commands
    )
    assert "npx tsc --strict --noEmit" in commands
    assert language == "ts"
    (typed / "docs_example.ts").write_text(example, encoding="utf-8")
    compiled = compile_ts(typed, typed, "docs_example.ts")
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
