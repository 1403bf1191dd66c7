"""The commands written inline in the prose of README.md, bench/README.md and docs/*.md (``questlog
...`` and ``python -m bench.X ...`` in backticks) name real subcommands and real options.

The fenced blocks are run or checked by ``test_shell_examples.py``; these are the commands a
reader copies out of a sentence. Each span's subcommands are resolved through the real click
group, and every ``--option`` it names must be one of that command's options (or, for a bench
module, one its argparse parser defines): a renamed or removed flag fails here. Placeholders
(``ID``, ``FILE``, ``[--key KEY]``, ``A|B``) are the span's arguments and are not checked.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SPAN = re.compile(r"`((?:questlog |python -m bench\.)[^`]*)`")
FENCED = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)


def spans() -> list[tuple[str, str]]:
    """Every inline command span outside fenced blocks: (where, the span)."""
    found = []
    for path in DOCS:
        text = FENCED.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text("utf-8"))
        for match in SPAN.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", match.group(1)))
    return found


def options(span: str) -> list[str]:
    return re.findall(r"(?<![\w-])(--[a-z][\w-]*)", span)


def questlog_command(span: str) -> click.Command:
    """The click command a ``questlog ...`` span names (its subcommands resolved)."""
    return resolved(span)[0]


def depth(span: str) -> int:
    """How many of a span's words name subcommands (``questlog export evening``: 2)."""
    return resolved(span)[1]


def resolved(span: str) -> tuple[click.Command, int]:
    """The click command a span names and how many words named it."""
    from webapi.cli.main import main

    command: click.Command = main
    found = 0
    for word in re.split(r"[\s|\[\]]+", span)[1:]:
        if not isinstance(command, click.Group) or word.startswith("-"):
            break
        sub = command.commands.get(word)
        if sub is None:
            break
        command, found = sub, found + 1
    return command, found


def bench_options(module: str) -> set[str]:
    """The options ``python -m MODULE`` accepts: its argparse parser's, caught as it parses."""
    seen: set[str] = set()

    class Parsed(Exception):
        pass

    def catch(self: argparse.ArgumentParser, *given: Any, **named: Any) -> Any:
        for action in self._actions:
            seen.update(option for option in action.option_strings if option.startswith("--"))
        raise Parsed

    loaded = importlib.import_module(module)
    with (
        mock.patch.object(argparse.ArgumentParser, "parse_args", catch),
        mock.patch.object(sys, "argv", [module]),
    ):
        try:
            takes_argv = bool(inspect.signature(loaded.main).parameters)
            loaded.main([]) if takes_argv else loaded.main()
        except Parsed:
            return seen | {"--help"}
    pytest.fail(f"python -m {module} never built its parser")


SPANS = spans()


def test_the_docs_have_inline_commands_to_check() -> None:
    assert len(SPANS) > 20


@pytest.mark.parametrize(("where", "span"), SPANS, ids=[where for where, _ in SPANS])
def test_an_inline_command_names_real_options(where: str, span: str) -> None:
    if span.startswith("questlog"):
        command = questlog_command(span)
        known = {o for p in command.params for o in [*p.opts, *p.secondary_opts]} | {"--help"}
        if isinstance(command, click.Group):
            words = [w for w in re.split(r"[\s|\[\]]+", span)[1:] if w and not w.isupper()]
            words = words[depth(span) :]  # a nested group's own name comes first
            assert not words or words[0].startswith("-") or words[0] in command.commands, (
                f"{where}: `{span}`: {words[0]!r} is not a command of `{command.name}`"
            )
    else:
        module = span.split()[2]
        known = bench_options(module)
    unknown = [option for option in options(span) if option not in known]
    assert not unknown, f"{where}: `{span}`: no such option {unknown}"


def test_a_renamed_option_is_caught() -> None:
    command = questlog_command("questlog verify ID --checkpoint FILE")
    known = {o for p in command.params for o in p.opts}
    assert "--checkpoint" in known and "--checkpoints" not in known
    assert "--scale-only" in bench_options("bench.run")
