"""One configuration: every environment variable is read and checked in
``domain/settings.py``, all at once; a bad value is refused with the variable's name, what it
accepts and the value given; nothing else reads the environment; README's table comes from it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

from domain import settings
from webapi.cli.main import main
from webapi.doctools import reference

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("domain", "webapi", "projections")

GOOD = {
    "QUESTLOG_DB": ("x/store.db", "db", Path("x/store.db")),
    "QUESTLOG_DATABASE_URL": ("postgresql://u@h/db", "database_url", "postgresql://u@h/db"),
    "QUESTLOG_PG_SCHEMA": ("games", "pg_schema", "games"),
    "QUESTLOG_VIEWS_DB": ("v.db", "views_db", Path("v.db")),
    "QUESTLOG_VIEWS_LEASE_RETRY": ("0.25", "views_lease_retry", 0.25),
    "QUESTLOG_AUTH": ("OFF", "auth", False),
    "QUESTLOG_RATE_LIMIT": ("0", "rate_limit", 0.0),
    "QUESTLOG_RATE_LIMIT_EXEMPT": (" a1, ,b2 ", "rate_limit_exempt", frozenset({"a1", "b2"})),
    "QUESTLOG_MAX_STREAMS": ("3", "max_streams", 3),
    "PROMETHEUS_MULTIPROC_DIR": ("/tmp/m", "prometheus_multiproc_dir", Path("/tmp/m")),
    "QUESTLOG_READY_MAX_LAG": ("0", "ready_max_lag", 0),
    "QUESTLOG_LOG_FORMAT": ("JSON", "log_format", "json"),
    "QUESTLOG_SIGNING_KEY": ("keys.json", "signing_key", Path("keys.json")),
    "QUESTLOG_LOG_NAME": ("games.example", "log_name", "games.example"),
    "QUESTLOG_WITNESS_POLICY": ("policy.txt", "witness_policy", Path("policy.txt")),
    "QUESTLOG_CHECKPOINT_SECONDS": ("0.5", "checkpoint_seconds", 0.5),
    "QUESTLOG_WITNESS_TIMEOUT": ("2", "witness_timeout", 2.0),
}
"""Each variable: a value it accepts, its settings field, and what that value reads as."""

BAD = [
    ("QUESTLOG_DATABASE_URL", "mysql://h/db", "a URL that starts with postgresql://"),
    ("QUESTLOG_VIEWS_LEASE_RETRY", "0", "a number of seconds in (0, 3600]"),
    ("QUESTLOG_VIEWS_LEASE_RETRY", "soon", "a number of seconds in (0, 3600]"),
    ("QUESTLOG_AUTH", "yes", "'on' or 'off'"),
    ("QUESTLOG_RATE_LIMIT", "fast", "a number of appends per second, 0 or more"),
    ("QUESTLOG_RATE_LIMIT", "-1", "a number of appends per second, 0 or more"),
    ("QUESTLOG_RATE_LIMIT", "inf", "a number of appends per second, 0 or more"),
    ("QUESTLOG_MAX_STREAMS", "0", "a whole number of 1 or more"),
    ("QUESTLOG_MAX_STREAMS", "none", "a whole number of 1 or more"),
    ("QUESTLOG_READY_MAX_LAG", "-5", "a whole number of 0 or more"),
    ("QUESTLOG_READY_MAX_LAG", "1e3", "a whole number of 0 or more"),
    ("QUESTLOG_LOG_FORMAT", "xml", "'text' or 'json'"),
    ("QUESTLOG_LOG_NAME", "my log", "a key name: printable, no spaces, no '+'"),
    ("QUESTLOG_CHECKPOINT_SECONDS", "0", "a number of seconds in (0, 3600]"),
    ("QUESTLOG_WITNESS_TIMEOUT", "never", "a number of seconds in (0, 3600]"),
]
"""Values refused: the variable, the value and what the error says it accepts."""


def test_every_variable_is_documented_and_read_into_its_field() -> None:
    assert sorted(GOOD) == sorted(v.name for v in settings.VARIABLES.values())
    for name, (raw, field_name, value) in GOOD.items():
        assert getattr(settings.read({name: raw}), field_name) == value, name


def test_unset_or_blank_variables_take_their_defaults() -> None:
    for chosen in (settings.read({}), settings.read({v: "  " for v in GOOD})):
        assert chosen.sqlite_file == Path("questlog.db")
        assert chosen.db is chosen.database_url is chosen.views_db is None
        assert chosen.auth is True
        assert chosen.rate_limit == 50.0
        assert chosen.rate_limit_exempt == frozenset()
        assert chosen.max_streams == 64
        assert chosen.ready_max_lag == 1000
        assert chosen.log_format == "text"
        assert chosen.views_lease_retry == 1.0
        assert chosen.witness_policy is None
        assert chosen.checkpoint_seconds == chosen.witness_timeout == 5.0


@pytest.mark.parametrize(("name", "raw", "accepts"), BAD)
def test_a_bad_value_is_refused_naming_the_variable_what_it_accepts_and_the_value(
    name: str, raw: str, accepts: str
) -> None:
    with pytest.raises(settings.SettingError) as refused:
        settings.read({name: raw})
    assert str(refused.value).startswith(f"{name} must be {accepts}")
    assert repr(raw) in str(refused.value)


def test_every_bad_variable_is_named_at_once_not_only_the_first() -> None:
    with pytest.raises(settings.SettingError) as refused:
        settings.read({"QUESTLOG_AUTH": "yes", "QUESTLOG_MAX_STREAMS": "0"})
    assert "QUESTLOG_AUTH must be" in str(refused.value)
    assert "QUESTLOG_MAX_STREAMS must be" in str(refused.value)


def test_a_flag_is_checked_as_its_variable_is_and_the_error_names_both() -> None:
    assert settings.parse("log_format", "json") == "json"
    with pytest.raises(settings.SettingError, match=r"QUESTLOG_LOG_FORMAT .* --log-format"):
        settings.parse("log_format", "xml")


@pytest.mark.parametrize(
    ("command", "name", "raw"),
    [
        (["serve"], "QUESTLOG_RATE_LIMIT", "fast"),
        (["serve"], "QUESTLOG_AUTH", "maybe"),
        (["verify", "--all"], "QUESTLOG_READY_MAX_LAG", "-1"),
        (["projections", "status"], "QUESTLOG_VIEWS_LEASE_RETRY", "0"),
        (["token", "list"], "QUESTLOG_MAX_STREAMS", "lots"),
    ],
)
def test_every_command_refuses_a_bad_variable_at_start_and_creates_nothing(
    tmp_path: Path, command: list[str], name: str, raw: str
) -> None:
    """Even a variable the command itself never uses: the configuration is checked whole."""
    env = {"QUESTLOG_DB": str(tmp_path / "x.db"), "QUESTLOG_DATABASE_URL": "", name: raw}
    done = CliRunner().invoke(main, command, env=env)
    assert done.exit_code == 2, done.output
    assert f"{name} must be" in done.output
    assert list(tmp_path.iterdir()) == []


def test_readme_configuration_table_is_generated_from_the_settings() -> None:
    readme = (ROOT / "README.md").read_text()
    assert reference.settings_markdown() in readme, (
        "run: questlog reference settings --write README.md"
    )


def environment_reads(tree: ast.AST) -> list[int]:
    """Lines that read the environment: ``os.environ`` (but for setting or popping a key, as
    ``questlog serve`` does for the workers it starts), ``os.getenv``, or click's ``envvar=``."""
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("envvar", "auto_envvar_prefix"):
            lines.append(node.value.lineno)
        if not isinstance(node, ast.Attribute) or node.attr not in ("environ", "getenv"):
            continue
        parent = parents.get(node)
        writes = (isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Store)) or (
            isinstance(parent, ast.Attribute) and parent.attr == "pop"
        )
        if not writes:
            lines.append(node.lineno)
    return lines


def test_nothing_but_the_settings_module_reads_the_environment() -> None:
    reads = {
        str(path.relative_to(ROOT)): found
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path != ROOT / "domain" / "settings.py"
        and (found := environment_reads(ast.parse(path.read_text())))
    }
    assert reads == {}, "read the environment through domain/settings.py"
