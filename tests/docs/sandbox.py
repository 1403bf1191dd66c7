"""The sandbox the shell examples of the docs run in (``tests/docs/test_shell_examples.py``,
whose docstring says what it provides): a temp dir, an environment, ``questlog serve`` hosts
started and stopped by pid, the setups a marker declares."""

from __future__ import annotations

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
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

from tests.docs.shell import ROOT, Block, doc_blocks, output_problems, steps
from tests.machine import missing

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
SUDO = re.compile(
    r"^sudo (?:systemctl (?:daemon-reload|(?:enable --now|start|stop|restart) (?P<units>.+))"
    r"|-u postgres (?:createuser|createdb) .+)$"
)


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
            missing("pg_dump and pg_restore are not installed (apt-get install postgresql-client)")
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
    from domain.service.questlog import Questlog
    from domain.storage.store import StoreConfig

    app = Questlog(StoreConfig(database_url=url))
    try:
        cid = app.campaigns.create_campaign(game="quest-calendar", name="Year one").campaign_id
        app.dice.roll(cid, notation="d20", purpose="before the backup")
    finally:
        app.close()


def edited_bundle(where: Path) -> dict[str, Any]:
    """The bundle of a campaign of another store with one server roll (2-1), its seed revealed,
    and the first face of that roll edited."""
    from domain.service.questlog import Questlog
    from domain.storage.store import StoreConfig

    app = Questlog(StoreConfig(sqlite_path=where / "questlog.db"))
    try:
        cid = app.campaigns.create_campaign(game="quest-calendar", name="Year one").campaign_id
        app.dice.roll(cid, notation="2d6", purpose="the roll to edit")
        app.dice.rotate_seed(cid)
        data: dict[str, Any] = json.loads(json.dumps(app.bundles.build(cid)))
    finally:
        app.close()
    [roll] = data["events"][1]["data"]["rolls"]
    die = roll["dice"][0]
    die["face"] = die["face"] % 6 + 1
    return data
