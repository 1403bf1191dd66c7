"""Every shell example of README.md and docs/ marked ``<!-- example: shell -->`` runs for real.

Each doc's marked blocks run in page order in a sandbox of their own:

- the cwd is an empty temp dir; ``PATH`` has this virtualenv's ``bin`` first (``questlog``,
  ``python`` and ``python3`` are the project's) and, before it, a ``curl`` that adds
  ``--fail-with-body`` unless the block gives ``-f`` (either way an answer of 400 or more fails
  the block); no ``QUESTLOG_*`` variable
  comes from outside, so the store is ``./questlog.db`` in the temp dir (``questlog demo``:
  ``./questlog-demo.db``), or, on PostgreSQL, ``QUESTLOG_DATABASE_URL`` with a fresh
  ``QUESTLOG_PG_SCHEMA`` dropped afterwards; the log's name is ``dice.example.org``
  (``QUESTLOG_LOG_NAME``), the example host the docs use;
- ``python3 -m venv .venv && .venv/bin/pip install -e SPEC && `` in front of a command is not run
  (SPEC must be ``.`` or ``.[EXTRA]`` with EXTRA an extra of pyproject.toml), and ``.venv/bin/``
  is this virtualenv's ``bin``;
- ``localhost:8000`` and ``127.0.0.1:8000`` are rewritten to a free port, where the doc's server
  runs: a block that is one ``questlog serve`` is started in the background with ``--port PORT``
  added; a doc that sends requests without starting one gets ``questlog serve`` started by the
  test before its first block that needs it. Another port of the doc (8611, 8612: two hosts) is
  a ``questlog serve`` of its own, on its own free port and SQLite store. Each is stopped by its
  pid after the doc;
- a block runs under ``bash -e -o pipefail``; it must exit 0, or with ``exit=N`` on its marker N;
  ``date +%F`` prints 2026-12-01, the date of the docs' example backups; a ``sudo systemctl``
  line is played by the test: its units must be ones whose unit file the doc shows, ``stop``
  stops the doc's server and ``start`` (or ``enable --now``) starts it again on its store; so is
  ``sudo -u postgres createdb``, which makes the database its name stands for;
- a console block (``$ `` commands, each followed by its output) must print the output shown:
  ``…`` stands for any text, a line that is only ``…`` for any lines, and hex digits just before
  ``…`` (``266ee3da-…``) are an example of any. A block that is one ``questlog serve`` shows the
  server's first lines;
- the marker may declare a setup, ``<!-- example: shell NAME=SETUP ... -->``, done once before
  the block: an UPPERCASE name is a shell variable for this and every later block of the doc
  (declared again with another setup, it is made again),
  ``admin`` (the admin token the server printed on its first start), ``new-campaign`` or
  ``new-match`` (the id of a new Quest Calendar campaign, or Calendar Board match with seats A
  and B, made by that admin over HTTP), ``played-campaign`` (a new campaign with a server roll,
  2-1, and a reported one, 3-1) or ``key`` (the server's verifier key from
  ``/.well-known/questlog-key``), each on the doc's server, or with ``@PORT`` on that doc port's
  server; a host path stands, in this and every later block, for the directory of the doc's
  (or with ``@PORT`` that port's) server's store (``/var/lib/questlog=store@8612``) or for an
  empty directory (``/var/backups/questlog=dir``); a PostgreSQL URL of the doc stands for a fresh
  database on the test's PostgreSQL, dropped after the doc: ``database`` (made, with a campaign
  and a server roll in its ``public`` schema) or ``new-database`` (made when the doc runs
  ``sudo -u postgres createdb ... NAME`` with its name); a file name is a file made in the cwd,
  ``python-block`` (the doc's one ``python`` block), ``edited-bundle`` (the bundle of a
  campaign from another store with one server roll, 2-1, one face of it edited) or ``this-doc``
  (a copy of the doc itself, which the block must leave as it is: the doc is what the block's
  command writes); ``exit=N`` is the exit status the block shows.

Blocks marked ``<!-- example: checked-by tests/docs/test_shell_examples.py -->`` are too long or
too host-bound to run here (benchmarks, systemd, another host's paths): each of their lines is
checked instead (``test_every_checked_line_parses``): ``questlog ...`` parses with the real click
command, ``python -m MODULE ...`` with the real argparse parser of that module, every
``QUESTLOG_*`` variable is one the code reads, a ``curl`` URL is a route of the app, the flags of
``pg_dump``, ``pg_restore`` and ``createdb`` are in their ``--help``, and ``sudo systemctl`` names
a unit whose file the doc shows. README's test command must be the one .ci/run runs, and
README's demo output must be what ``questlog demo`` prints (its figures may differ: each run
rolls new dice).
"""

from __future__ import annotations

import argparse
import importlib
import re
import secrets
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import click
import psycopg
import pytest
from psycopg import sql

from tests.docs.sandbox import SUDO, TIMEOUT, Sandbox, install_spec_ok
from tests.docs.shell import (
    DOCS,
    ROOT,
    SHELL_LANGS,
    Block,
    blocks,
    doc_blocks,
    output_problems,
    relative,
)
from tests.machine import missing

SELF = "tests/docs/test_shell_examples.py"
SHELL_DOCS = sorted(
    {relative(path) for path in DOCS for block in blocks(path) if block.kind == "shell"}
)
POSTGRES_TOO = {"docs/access.md", "docs/moving-campaigns.md", "docs/table-page.md", "docs/trust.md"}
"""The docs whose commands touch the store beyond a new campaign: run on PostgreSQL as well."""


@pytest.fixture
def pg_schema(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """A fresh PostgreSQL schema (URL and name), dropped afterwards."""
    url = request.getfixturevalue("postgres_url")
    schema = f"ql_docs_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    yield url, schema
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("SET lock_timeout = '10s'")
        connection.execute(
            sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema))
        )


DOC_STORES = [pytest.param(doc, "sqlite", id=f"{doc}-sqlite") for doc in SHELL_DOCS] + [
    pytest.param(doc, "postgres", id=f"{doc}-postgres", marks=pytest.mark.postgres)
    for doc in SHELL_DOCS
    if doc in POSTGRES_TOO
]


@pytest.mark.parametrize(("doc", "store"), DOC_STORES)
def test_the_shell_examples_run_as_written(
    doc: str, store: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    postgres = request.getfixturevalue("pg_schema") if store == "postgres" else None
    sandbox = Sandbox(doc, tmp_path, postgres, lambda: str(request.getfixturevalue("postgres_url")))
    try:
        for block in blocks(ROOT / doc):
            if block.kind == "shell":
                sandbox.run(block)
    finally:
        sandbox.stop()


def test_every_shell_block_has_a_marker() -> None:
    """An sh or console block with no marker would be run by nothing (the inventory test says
    the same for every block; this names the shell ones early)."""
    unmarked = [
        b.where() for path in DOCS for b in blocks(path) if b.lang in SHELL_LANGS and not b.kind
    ]
    assert not unmarked, unmarked


# -- the blocks checked line by line ----------------------------------------------------------

CHECKED_DOCS = {
    "README.md",
    "bench/README.md",
    "docs/events.md",
    "docs/operations.md",
    "docs/performance.md",
    "docs/scaling.md",
}
"""The docs with blocks marked ``checked-by tests/docs/test_shell_examples.py``."""
CHECKED = [
    pytest.param(block, id=f"{block.doc}:{block.line}")
    for path in DOCS
    for block in blocks(path)
    if block.kind == "checked-by" and block.rest == SELF and block.lang == "sh"
]
SEPARATORS = {";", "&&", "||", "|", "&"}
CODE_DIRS = ("domain", "webapi", "projections", "bench")
PLAIN = {"cd", "mv", "rm", "cp"}
"""File commands whose arguments are the host's paths: nothing to check."""
PG_TOOLS = {"pg_dump", "pg_restore", "createdb"}


class Parsed(Exception):
    """Raised by the patched ``parse_args`` once the real parser has accepted the arguments."""


def commands(text: str) -> list[list[str]]:
    """The commands of an sh block, each as its words (comments dropped, ``$(...)`` as X)."""
    text = re.sub(r"\$\([^)]*\)", "X", text.replace("\\\n", " "))
    found: list[list[str]] = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        words: list[str] = []
        for token in lexer:
            if token in SEPARATORS:
                found.append(words)
                words = []
            else:
                words.append(token)
        found.append(words)
    return [words for words in found if words]


def code_reads(name: str) -> bool:
    """Whether the code names this environment variable."""
    return any(
        f'"{name}"' in path.read_text(encoding="utf-8")
        for directory in CODE_DIRS
        for path in (ROOT / directory).rglob("*.py")
    )


def ci_pytest_arguments() -> list[str]:
    """The arguments .ci/run gives ``python -m pytest``."""
    lines = (ROOT / ".ci/run").read_text().splitlines()
    [line] = [line for line in lines if line.startswith('"$VENV/bin/python" -m pytest')]
    return shlex.split(line)[3:]


def parse_questlog(args: list[str]) -> None:
    """Parse ``questlog ARGS`` with the real click command, down to the subcommand."""
    from webapi.cli.main import main

    command: click.Command = main
    context = command.make_context("questlog", list(args))
    while isinstance(command, click.Group):
        rest = [*context._protected_args, *context.args]
        name, found, rest = command.resolve_command(context, rest)
        assert found is not None and name is not None
        command = found
        context = command.make_context(name, rest, parent=context)


def parse_module(module: str, args: list[str]) -> None:
    """Parse ``python -m MODULE ARGS`` with that module's real argparse parser: its ``main``
    runs until it parses, and stops there."""
    real = argparse.ArgumentParser.parse_args

    def parse_only(self: argparse.ArgumentParser, *given: Any, **named: Any) -> Any:
        real(self, *given, **named)
        raise Parsed

    loaded = importlib.import_module(module)
    with mock.patch.object(argparse.ArgumentParser, "parse_args", parse_only):
        try:
            loaded.main(args)
        except Parsed:
            return
        except SystemExit as error:
            pytest.fail(f"python -m {module} {shlex.join(args)}: refused (exit {error.code})")
    pytest.fail(f"python -m {module} never parsed its arguments")


def check_curl(words: list[str]) -> None:
    """A curl line's URL is a route of the app."""
    from webapi.app import create_app

    [url] = [w for w in words if re.match(r"^(?:https?://)?(?:localhost|127\.0\.0\.1):\d+", w)]
    path = "/" + url.split("/", 3)[-1] if "://" in url else "/" + url.split("/", 1)[1]
    path = re.sub(r"\$\w+", "00000000-0000-0000-0000-000000000000", path)
    app = create_app(mock.MagicMock(), auth=False, rate_limit=0)
    method = "POST" if "-X" in words and words[words.index("-X") + 1] == "POST" else "GET"
    app.url_map.bind("localhost").match(path.split("?")[0], method=method)


def check_command(block: Block, words: list[str], tmp: Path) -> None:
    """One command of a checked block, as the module's docstring says."""
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name = words.pop(0).split("=", 1)[0]
        assert code_reads(name), f"{block.where()}: the code reads no {name}"
    if not words:
        return
    first, args = words[0].removeprefix(".venv/bin/"), words[1:]
    line = shlex.join(words)
    if first == "sudo":
        found = SUDO.match(line)
        assert found, f"{block.where()}: a host command this test does not know: {line}"
        text = (ROOT / block.doc).read_text(encoding="utf-8")
        for unit in (found["units"] or "").split():
            assert f"/etc/systemd/system/{unit}.service" in text, f"{block.where()}: no {unit}"
    elif first == "questlog":
        for word in args:
            if re.fullmatch(r"[\w$.-]+\.(?:json|txt)", word):
                (tmp / word).touch()
        parse_questlog(args)
    elif first in ("python", "python3") and args[:2] == ["-m", "venv"]:
        assert args[2:] == [".venv"], f"{block.where()}: {line}"
    elif first in ("python", "python3") and args[:2] == ["-m", "pytest"]:
        assert args[2:] == ci_pytest_arguments(), f"{block.where()}: not what .ci/run runs"
    elif first in ("python", "python3") and args[:1] == ["-m"]:
        parse_module(args[1], args[2:])
    elif first == "pip":
        assert args[:2] == ["install", "-e"] and install_spec_ok(args[2]), line
    elif first == "curl":
        check_curl(words)
    elif first in PG_TOOLS:
        if shutil.which(first) is None:
            missing(f"{first} is not installed (apt-get install postgresql-client)")
        manual = subprocess.run([first, "--help"], capture_output=True, text=True, check=True)
        for flag in (w.split("=")[0] for w in args if w.startswith("--")):
            assert flag in manual.stdout, f"{block.where()}: {first} has no {flag}"
    else:
        assert first in PLAIN, f"{block.where()}: a command this test does not check: {line}"


@pytest.mark.parametrize("block", CHECKED)
def test_every_checked_line_parses(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for words in commands(block.text):
        check_command(block, words, tmp_path)


def test_the_checked_docs_are_these() -> None:
    """The docs this file checks blocks of, named (the inventory test looks for the names)."""
    docs = {b.doc for p in DOCS for b in blocks(p) if b.kind == "checked-by" and b.rest == SELF}
    assert docs == CHECKED_DOCS


def test_the_readme_shows_what_the_demo_prints(tmp_path: Path) -> None:
    """README's demo output (its ``text`` block, checked by this file) is what the command of the
    shell block before it prints in an empty directory; the numbers stand for any number, since
    every run rolls new dice."""
    readme = doc_blocks("README.md")
    [shown] = [b for b in readme if b.lang == "text"]
    assert shown.kind == "checked-by" and shown.rest == SELF
    [command] = [b for b in readme if b.kind == "shell" and b.line < shown.line][-1:]
    sandbox = Sandbox("README.md", tmp_path, None)
    done = subprocess.run(
        ["bash", "-e", "-c", sandbox.rewrite(command.text)],
        cwd=sandbox.cwd,
        env=sandbox.env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    problems = output_problems(shown.text.splitlines(), done.stdout, any_number=True)
    assert not problems, f"{shown.where()}:\n" + "\n".join(problems)
    # The dice vary from run to run; what the demo plays does not: its pages and dates as shown.
    plays = re.compile(r"plays \d+ pages \(\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\)")
    [written] = plays.findall(shown.text)
    assert written in plays.findall(done.stdout), f"{shown.where()}: {written!r} is not printed"


def test_the_output_matcher_fails_on_a_difference() -> None:
    """The matcher the console blocks rely on: ``…`` and hex examples stand for text, nothing
    else does."""
    real = "Bundle of campaign 3d5e39cb-8d05-41c1\nhead: version 4\n  a\n  b\nOK\n"
    assert not output_problems(
        ["Bundle of campaign ee75a586-…", "head: version 4", "…", "OK"], real
    )
    assert output_problems(["Bundle of campaign ee75a586-…", "head: version 5", "…", "OK"], real)
    assert output_problems(["Bundle of campaign …", "head: version 4", "OK"], real)
    assert output_problems(["Bundle of campaign …", "head: version 4", "…", "FAILED"], real)
    assert not output_problems(["x 3 of 7 (0.3 s)"], "x 12 of 7 (1.25 s)", any_number=True)
    assert output_problems(["x 3 of 7 (0.3 s)"], "x 12 of 7 (1.25 s)")
    assert output_problems(["x 3 of 7"], "y 3 of 7", any_number=True)
