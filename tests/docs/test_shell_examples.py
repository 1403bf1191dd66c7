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
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlsplit, urlunsplit

import click
import psycopg
import pytest
from psycopg import sql

from tests.docs.shell import (
    DOCS,
    ROOT,
    SHELL_LANGS,
    Block,
    blocks,
    doc_blocks,
    output_problems,
    relative,
    steps,
)

SELF = "tests/docs/test_shell_examples.py"
BIN = Path(sys.executable).parent
LOG_NAME = "dice.example.org"
DOC_PORT = re.compile(r"(?<!@)(?:localhost|127\.0\.0\.1):(\d{4})\b")
"""A server address in a doc: each port is a host of its own (8000: the doc's server)."""
INSTALL = re.compile(
    r"^python3 -m venv \.venv && \.venv/bin/pip install -e (?P<spec>\S+) && (?P<rest>.*)$", re.S
)
SYSTEMCTL = re.compile(r"^sudo systemctl ")
CREATEDB = re.compile(r"^sudo -u postgres createdb (?:--owner=\w+ )?\w+\s*$")
DOC_DATE = "2026-12-01"
"""What ``date +%F`` prints in the sandbox: the date of the docs' example backups."""
SERVE = re.compile(r"^(?:\S+/)?questlog serve\b(?P<args>[^\n]*)$")
TIMEOUT = 60

SHELL_DOCS = sorted(
    {relative(path) for path in DOCS for block in blocks(path) if block.kind == "shell"}
)
POSTGRES_TOO = {"docs/access.md", "docs/moving-campaigns.md", "docs/table-page.md", "docs/trust.md"}
"""The docs whose commands touch the store beyond a new campaign: run on PostgreSQL as well."""


def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def install_spec_ok(spec: str) -> bool:
    """``.`` or ``.[EXTRA]`` (quoted or not) with EXTRA an extra of pyproject.toml."""
    spec = spec.strip("'\"")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"].get(
        "optional-dependencies", {}
    )
    found = re.fullmatch(r"\.(?:\[(?P<extra>[\w-]+)\])?", spec)
    return found is not None and (found["extra"] is None or found["extra"] in extras)


class Host:
    """A ``questlog serve`` of one doc port, on a free port and a store of its own."""

    def __init__(self, doc: str, doc_port: int, env: dict[str, str], cwd: Path, log: Path) -> None:
        self.doc = doc
        self.doc_port = doc_port
        self.env = env
        self.cwd = cwd
        self.log = log
        self.port = free_port()
        self.server: subprocess.Popen[bytes] | None = None

    def url(self, path: str) -> str:
        """A URL of this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self, command: str = "questlog serve") -> str:
        """Start ``command`` (a ``questlog serve``) on this host's port; its first output."""
        assert self.server is None, f"{self.doc}: a second server for port {self.doc_port}"
        with self.log.open("ab") as out:
            self.server = subprocess.Popen(
                ["bash", "-c", f"exec {command} --port {self.port}"],
                cwd=self.cwd,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.server.poll() is not None:
                pytest.fail(f"{self.doc}: the server exited:\n{self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.url("/healthz"), timeout=2):
                    return self.log.read_text()
            except OSError:
                time.sleep(0.1)
        pytest.fail(f"{self.doc}: the server did not answer:\n{self.log.read_text()}")

    def ensure(self) -> Host:
        """This host, its server started if the doc has not started it."""
        if self.server is None:
            self.start()
        return self

    def stop(self) -> None:
        """Stop the server by its pid (SIGTERM, then SIGKILL after 10 s)."""
        if self.server is None or self.server.poll() is not None:
            return
        os.killpg(self.server.pid, signal.SIGTERM)
        try:
            self.server.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.server.pid, signal.SIGKILL)
            self.server.wait(10)
        self.server = None

    def admin(self) -> str:
        """The admin token the server printed on its first start."""
        self.ensure()
        printed = self.log.read_text()
        found = re.search(r"admin token admin\b.*?\n\s*(ql_[\w-]+)", printed)
        assert found, f"{self.doc}: the server printed no admin token:\n{printed}"
        return found[1]

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """A request to this server as its admin; the JSON answer."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.admin()}", "Content-Type": "application/json"}
        request = urllib.request.Request(self.url(path), data, headers, method=method)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def new_campaign(self, game: str = "quest-calendar") -> str:
        """A new campaign (a match with seats A and B) made by the admin; its id."""
        body: dict[str, Any] = {"game": game, "name": "Year one"}
        if game == "calendar-board":
            body["setup"] = {"players": [{"id": "A"}, {"id": "B"}]}
        return str(self.request("POST", "/campaigns", body)["id"])


class Sandbox:
    """The temp dir, environment, servers and variables one doc's blocks run with."""

    def __init__(
        self,
        doc: str,
        tmp: Path,
        postgres: tuple[str, str] | None,
        postgres_url: Callable[[], str] | None = None,
    ) -> None:
        self.doc = doc
        self.tmp = tmp
        self.postgres_url = postgres_url
        self.databases: dict[str, str] = {}
        """Each database URL of the doc declared ``new-database`` and the fresh name it stands for
        (made when the doc creates it); every one is dropped after the doc."""
        self.cwd = tmp / "cwd"
        self.cwd.mkdir()
        self.logs = tmp / "logs"
        self.logs.mkdir()
        tools = tmp / "tools"
        tools.mkdir()
        curl = shutil.which("curl")
        assert curl, "the shell examples need curl"
        wrapper = tools / "curl"
        wrapper.write_text(
            "#!/bin/sh\n"  # a block's own -f (--fail) stays; else --fail-with-body is added
            f'for a; do case "$a" in --fail|-[!-]*f*|-f*) exec {curl} "$@";; esac; done\n'
            f'exec {curl} --fail-with-body "$@"\n'
        )
        wrapper.chmod(0o755)
        date = tools / "date"
        real_date = shutil.which("date")
        date.write_text(
            f'#!/bin/sh\n[ "$*" = "+%F" ] && echo {DOC_DATE} && exit\nexec {real_date} "$@"\n'
        )
        date.chmod(0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith("QUESTLOG_")}
        env["PATH"] = os.pathsep.join([str(tools), str(BIN), env.get("PATH", "")])
        env["PYTHONUNBUFFERED"] = "1"
        env["QUESTLOG_LOG_NAME"] = LOG_NAME
        self.postgres = postgres
        if postgres:
            env["QUESTLOG_DATABASE_URL"], env["QUESTLOG_PG_SCHEMA"] = postgres
        self.env = env
        self.hosts: dict[int, Host] = {}
        self.paths: dict[str, str] = {}
        """Host paths and database URLs of the doc and what each stands for here."""
        self.variables: dict[str, str] = {}
        self.declared: dict[str, tuple[str, int]] = {}
        """The setup each variable was made by: declared again alike, it keeps its value."""
        self.unchanged: dict[Path, str] = {}
        """Files set up as ``this-doc``: the doc's blocks must leave them as the doc is."""

    def host(self, doc_port: int = 8000) -> Host:
        """The server of a doc port: 8000 serves the cwd's store, any other a store of its own
        in ``hosts/PORT/`` (SQLite only)."""
        if doc_port not in self.hosts:
            log = self.logs / f"server-{doc_port}.out"
            if doc_port == 8000:
                self.hosts[doc_port] = Host(self.doc, doc_port, self.env, self.cwd, log)
            else:
                assert not self.postgres, f"{self.doc}: a second host runs on SQLite only"
                where = self.tmp / "hosts" / str(doc_port)
                where.mkdir(parents=True)
                env = {**self.env, "QUESTLOG_DB": str(where / "questlog.db")}
                self.hosts[doc_port] = Host(self.doc, doc_port, env, where, log)
        return self.hosts[doc_port]

    def stop(self) -> None:
        """Stop every server the doc started, then drop the databases it made."""
        for host in self.hosts.values():
            host.stop()
        self.drop_databases()

    # -- setups ------------------------------------------------------------------------------

    def setup(self, block: Block, name: str, what: str) -> None:
        """Make the variable or file a marker declares (see the module's docstring)."""
        what, _, port = what.partition("@")
        host = self.host(int(port or 8000))
        if name == "exit":
            return
        if name.startswith("/"):
            if what == "dir":
                there = self.tmp / "host" / name.lstrip("/")
                there.mkdir(parents=True, exist_ok=True)
                self.paths[name] = str(there)
                return
            assert what == "store", f"{block.where()}: a host path is a dir or a store@PORT"
            self.paths[name] = str(host.cwd)
            return
        if name.startswith("postgresql://"):
            self.paths[name] = self.database(block, name, what)
            return
        if name.isupper():
            if self.declared.get(name) != (what, host.doc_port):
                self.variables[name] = self.value(block, what, host)
                self.declared[name] = (what, host.doc_port)
            return
        path = self.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if what == "this-doc":
            path.write_text((ROOT / self.doc).read_text(encoding="utf-8"), encoding="utf-8")
            self.unchanged[path] = path.read_text(encoding="utf-8")
        elif what == "python-block":
            [python] = [b for b in doc_blocks(self.doc.removeprefix("docs/")) if b.lang == "python"]
            path.write_text(python.text + "\n", encoding="utf-8")
        elif what == "edited-bundle":
            path.write_text(json.dumps(edited_bundle(self.logs / "other")), encoding="utf-8")
        else:
            pytest.fail(f"{block.where()}: no file setup {what!r}")

    def value(self, block: Block, what: str, host: Host) -> str:
        """The value of a variable setup, on the given host."""
        if what == "admin":
            return host.admin()
        if what == "new-campaign":
            return host.ensure().new_campaign()
        if what == "new-match":
            return host.ensure().new_campaign("calendar-board")
        if what == "played-campaign":
            cid = host.ensure().new_campaign()
            host.request("POST", f"/campaigns/{cid}/rolls", {"dice": "d20", "purpose": "server"})
            reported = {"dice": "d20", "purpose": "by hand", "faces": [17]}
            host.request("POST", f"/campaigns/{cid}/rolls", reported)
            return cid
        if what == "key":
            with urllib.request.urlopen(
                host.ensure().url("/.well-known/questlog-key"), timeout=30
            ) as a:
                return str(json.load(a)["key"])
        pytest.fail(f"{block.where()}: no variable setup {what!r}")

    # -- running a block ---------------------------------------------------------------------

    def rewrite(self, command: str) -> str:
        """The command as the sandbox runs it (see the module's docstring)."""
        installed = INSTALL.match(command)
        if installed:
            assert install_spec_ok(installed["spec"]), f"no such install: {installed['spec']}"
            command = installed["rest"]
        command = self.mapped(command.replace(".venv/bin/", f"{BIN}/"))
        return DOC_PORT.sub(lambda m: f"127.0.0.1:{self.host(int(m[1])).port}", command)

    def mapped(self, text: str) -> str:
        """The text with each declared host path and database URL replaced (longest first)."""
        for doc_path in sorted(self.paths, key=len, reverse=True):
            text = text.replace(doc_path, self.paths[doc_path])
        return text

    def database(self, block: Block, url: str, what: str) -> str:
        """A fresh database on the test's PostgreSQL for a database URL of the doc: ``database``
        (made, with a played campaign in its ``public`` schema) or ``new-database`` (made when
        the doc runs ``sudo -u postgres createdb ... NAME``); its URL."""
        assert self.postgres_url is not None, f"{block.where()}: no PostgreSQL here"
        if shutil.which("pg_dump") is None or shutil.which("pg_restore") is None:
            pytest.skip(
                "pg_dump and pg_restore are not installed (apt-get install postgresql-client)"
            )
        base = self.postgres_url()
        fresh = f"ql_docs_{secrets.token_hex(4)}"
        self.databases[url] = fresh
        fresh_url = urlunsplit(urlsplit(base)._replace(path=f"/{fresh}"))
        if what == "database":
            self.create_database(fresh)
            played_store(fresh_url)
        else:
            assert what == "new-database", f"{block.where()}: no database setup {what!r}"
        return fresh_url

    def create_database(self, name: str) -> None:
        """CREATE DATABASE on the test's PostgreSQL."""
        assert self.postgres_url is not None
        with psycopg.connect(self.postgres_url(), autocommit=True) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def drop_databases(self) -> None:
        """Drop every database the doc's setups made."""
        if not self.databases:
            return
        assert self.postgres_url is not None
        with psycopg.connect(self.postgres_url(), autocommit=True) as connection:
            for name in self.databases.values():
                connection.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )

    def createdb(self, block: Block, command: str) -> str:
        """``sudo -u postgres createdb [--owner=ROLE] NAME`` as the host's superuser would: the
        fresh database a ``new-database`` URL of the doc with that name stands for (the owner
        role is the host's; here the test's user owns it)."""
        name = shlex.split(command)[-1]
        [url] = [u for u in self.databases if urlsplit(u).path == f"/{name}"]
        self.create_database(self.databases[url])
        return ""

    def systemctl(self, block: Block, command: str) -> str:
        """``sudo systemctl`` as the doc's host would: ``stop`` stops the doc's server, ``start``
        starts it again on the same store; a unit must be one whose file the doc shows."""
        found = SUDO.match(command.strip())
        assert found, f"{block.where()}: a host command this test does not know: {command}"
        doc = (ROOT / self.doc).read_text(encoding="utf-8")
        for unit in (found["units"] or "").split():
            assert f"/etc/systemd/system/{unit}.service" in doc, f"{block.where()}: no {unit}"
        host = self.host()
        if " stop " in command:
            host.stop()
        elif " start " in command or " --now " in command:
            host.ensure()
        return ""

    def run(self, block: Block) -> None:
        """Run one block as the module's docstring says, failing the test on any difference."""
        for name, what in block.options.items():
            self.setup(block, name, what)
        for port in {int(m[1]) for m in DOC_PORT.finditer(self.mapped(block.text))}:
            self.host(port).ensure()
        expected = int(block.options.get("exit", "0"))
        for step in steps(block):
            command = self.rewrite(step.command)
            serve = SERVE.match(command.strip())
            if SYSTEMCTL.match(command):
                output, status = self.systemctl(block, command), 0
            elif CREATEDB.match(command):
                output, status = self.createdb(block, command), 0
            elif serve:
                output = self.host().start(command.strip())
                status = 0
            else:
                done = subprocess.run(
                    ["bash", "-e", "-o", "pipefail", "-c", command],
                    cwd=self.cwd,
                    env={**self.env, **self.variables},
                    capture_output=True,
                    text=True,
                    timeout=TIMEOUT,
                    check=False,
                )
                output, status = done.stdout + done.stderr, done.returncode
            assert status == expected, (
                f"{block.where()}: exit {status}, not {expected}\n$ {command}\n{output}"
            )
            if step.output is not None:
                problems = output_problems(step.output, output)
                assert not problems, f"{block.where()}: $ {command}\n" + "\n".join(problems)
        for path, text in self.unchanged.items():
            assert path.read_text(encoding="utf-8") == text, (
                f"{block.where()}: the block rewrote {path.name}: the doc is not what it writes"
            )


def played_store(url: str) -> None:
    """A store at a PostgreSQL URL (schema ``public``) with a campaign and a server roll."""
    from domain.service.application import Questlog
    from domain.storage.store import StoreConfig

    app = Questlog(StoreConfig(database_url=url))
    try:
        cid = app.create_campaign(game="quest-calendar", name="Year one").campaign_id
        app.roll(cid, notation="d20", purpose="before the backup")
    finally:
        app.close()


def edited_bundle(where: Path) -> dict[str, Any]:
    """The bundle of a campaign of another store with one server roll (2-1), its seed revealed,
    and the first face of that roll edited."""
    from domain.service.application import Questlog
    from domain.storage.store import StoreConfig
    from webapi import bundle

    app = Questlog(StoreConfig(sqlite_path=where / "questlog.db"))
    try:
        cid = app.create_campaign(game="quest-calendar", name="Year one").campaign_id
        app.roll(cid, notation="2d6", purpose="the roll to edit")
        app.rotate_seed(cid)
        data: dict[str, Any] = json.loads(json.dumps(bundle.build(app, cid)))
    finally:
        app.close()
    [roll] = data["events"][1]["data"]["rolls"]
    die = roll["dice"][0]
    die["face"] = die["face"] % 6 + 1
    return data


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
SUDO = re.compile(
    r"^sudo (?:systemctl (?:daemon-reload|(?:enable --now|start|stop|restart) (?P<units>.+))"
    r"|-u postgres (?:createuser|createdb) .+)$"
)
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
    from webapi.cli import main

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
            pytest.skip(f"{first} is not installed (apt-get install postgresql-client)")
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
