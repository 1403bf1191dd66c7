"""docs/operations.md: the systemd units, the Prometheus job and the JSON log line, read from the
doc and checked against the code (the units parse, their commands parse with the real CLI and
every QUESTLOG_* variable they are given is one the code reads; the job scrapes the real metrics
route with a bearer token; the log line has the real JSON formatter's keys)."""

from __future__ import annotations

import configparser
import io
import json
import logging
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import yaml

from domain.service.questlog import Questlog
from tests.docs.examples import DOCS, checked_block, checked_blocks
from webapi.app import create_app
from webapi.cli import main as cli
from webapi.http.observability import configure_logging

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
TEST = HERE.relative_to(ROOT).as_posix()
DOC = "operations.md"


def unit(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=True, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser


def resolve(argv: list[str]) -> list[str]:
    """Parse a command line with the real `questlog` CLI, running nothing: the command path.
    A subcommand or option the CLI does not have is a click.UsageError."""
    command: click.Command = cli.main
    ctx = click.Context(command, info_name="questlog")
    path, args = ["questlog"], list(argv)
    while isinstance(command, click.Group):
        name, found, args = command.resolve_command(ctx, args)
        assert name is not None and found is not None
        path.append(name)
        command = found
        if isinstance(command, click.Group):
            ctx = click.Context(command, info_name=name, parent=ctx)
    with command.make_context(path[-1], args, parent=ctx) as parsed:
        assert not parsed.args, f"left over: {parsed.args}"
    return path


def read_by_the_code() -> set[str]:
    """Every QUESTLOG_* name the code of the three packages spells."""
    names: set[str] = set()
    for package in ("domain", "webapi", "projections"):
        for source in (ROOT / package).rglob("*.py"):
            names |= set(re.findall(r"\bQUESTLOG_[A-Z_]+\b", source.read_text(encoding="utf-8")))
    return names


def env_file() -> str:
    """The environment file the units name, as the doc gives it (the block after its path)."""
    text = (DOCS / DOC).read_text(encoding="utf-8")
    after = text[text.index("`/etc/questlog/questlog.env`") :]
    return after[after.index("```") :].split("\n", 1)[1].split("```", 1)[0]


def test_there_are_two_units() -> None:
    assert len([b for b in checked_blocks(DOC, TEST) if "[Service]" in b]) == 2


@pytest.mark.parametrize("description", ["Questlog API", "Questlog views"])
def test_a_systemd_unit_parses_and_runs_a_real_command(description: str) -> None:
    parsed = unit(checked_block(DOC, TEST, f"Description={description}"))
    assert {"Unit", "Service", "Install"} == set(parsed.sections())
    argv = shlex.split(parsed["Service"]["ExecStart"])
    assert Path(argv[0]).name == "questlog"
    expected = {
        "Questlog API": ["questlog", "serve"],
        "Questlog views": ["questlog", "projections", "run"],
    }[description]
    assert resolve(argv[1:])[: len(expected)] == expected
    if description == "Questlog API":
        assert "--no-views" in argv and "--workers" in argv  # the views run in their own unit
    assert parsed["Service"]["EnvironmentFile"] == "/etc/questlog/questlog.env"
    given = set(re.findall(r"^(QUESTLOG_[A-Z_]+)=", env_file(), re.M))
    given |= set(re.findall(r"\b(QUESTLOG_[A-Z_]+)=", parsed["Service"].get("Environment", "")))
    assert given, "the units are given no QUESTLOG_* variable"
    assert given <= read_by_the_code(), given - read_by_the_code()


def test_a_wrong_option_would_be_caught() -> None:
    with pytest.raises(click.UsageError):
        resolve(["serve", "--workerz", "2"])
    assert resolve(["projections", "run"]) == ["questlog", "projections", "run"]


def test_the_prometheus_job_scrapes_the_metrics_route_with_a_token(app: Questlog) -> None:
    job = yaml.safe_load(checked_block(DOC, TEST, "scrape_configs"))["scrape_configs"][0]
    flask_app = create_app(app, auth=True, rate_limit=0, TESTING=True)
    assert job["metrics_path"] in {rule.rule for rule in flask_app.url_map.iter_rules()}
    assert job["authorization"]["type"] == "Bearer"
    anonymous = flask_app.test_client().get(job["metrics_path"])
    assert anonymous.status_code == 401
    api = unit(checked_block(DOC, TEST, "Description=Questlog API"))
    argv = shlex.split(api["Service"]["ExecStart"])
    port = argv[argv.index("--port") + 1]
    (target,) = job["static_configs"][0]["targets"]
    assert target.rsplit(":", 1)[1] == port


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = configure_logging("json", stream)
    yield stream
    logging.getLogger().removeHandler(handler)


def test_the_json_access_line_has_the_real_keys(app: Questlog, log_lines: io.StringIO) -> None:
    shown = json.loads(checked_block(DOC, TEST, '"questlog.access"'))
    _, secret = app.access.create_token(shown["token"], admin=True)
    client = create_app(app, auth=True, rate_limit=0, TESTING=True).test_client()
    headers = {"Authorization": f"Bearer {secret}"}
    cid = client.post("/campaigns", json={"game": "quest-calendar", "name": "l"}, headers=headers)
    log_lines.seek(0)
    log_lines.truncate()
    answer = client.post(
        f"/campaigns/{cid.json['id']}/rolls", json={"dice": "d20"}, headers=headers
    )
    assert answer.status_code == shown["status"]
    (line,) = [json.loads(x) for x in log_lines.getvalue().splitlines() if "questlog.access" in x]
    assert set(line) == set(shown)
    for key in ("level", "logger", "method", "route", "status", "token"):
        assert line[key] == shown[key], key
    for key in ("time", "request_id", "path", "message", "duration_ms", "remote_addr"):
        assert type(line[key]) is type(shown[key]), key
