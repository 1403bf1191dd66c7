"""The shell examples of README.md, bench/README.md and docs/*.md as
tests/docs/test_shell_examples.py reads them.

A fenced ``sh``, ``console`` or ``text`` block is preceded by one marker comment (the convention
of tests/docs/test_every_example.py). This module finds the blocks, splits a console block into
its ``$ `` commands and the output each shows, and matches real output against shown output.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_LANGS = ("sh", "console")

FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
MARKER = re.compile(r"^\s*<!-- example: (?P<kind>shell|checked-by|not-run:)(?P<rest>.*?) ?-->\s*$")
ELLIPSIS = "…"


@dataclass
class Block:
    """One fenced block of a doc, with the marker on the line before it (if any)."""

    doc: str
    line: int
    """The line of the opening fence (1-based)."""
    lang: str
    text: str
    """The block's lines, without the fences and the list indentation."""
    kind: str | None = None
    """``shell``, ``checked-by`` or ``not-run:`` (None: no marker)."""
    rest: str = ""
    """What follows the kind in the marker: options, a test's path, a reason."""
    options: dict[str, str] = field(default_factory=dict)

    def where(self) -> str:
        """The block's place, as a failure names it."""
        return f"{self.doc} line {self.line}"


def relative(path: Path) -> str:
    """A doc's name as the tests print it: README.md or docs/NAME.md."""
    return path.relative_to(ROOT).as_posix()


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a doc, in page order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent = len(opening["indent"])
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = "\n".join(line[indent:] for line in lines[index + 1 : end])
        block = Block(relative(path), index + 1, opening["lang"], body)
        marker = MARKER.match(lines[index - 1]) if index else None
        if marker:
            block.kind = marker["kind"]
            block.rest = marker["rest"].strip()
            if block.kind == "shell":
                block.options = dict(item.split("=", 1) for item in shlex.split(block.rest))
        found.append(block)
        index = end + 1
    return found


def doc_blocks(name: str, kind: str | None = None) -> list[Block]:
    """The blocks of ``README.md`` or ``docs/NAME``, those with the marker ``kind`` if given."""
    path = ROOT / name if name == "README.md" else ROOT / "docs" / name
    return [b for b in blocks(path) if kind is None or b.kind == kind]


@dataclass
class Step:
    """One command of a block and the output the block shows for it (None: none shown)."""

    command: str
    output: list[str] | None


def steps(block: Block) -> list[Step]:
    """A console block's ``$ `` commands, each with the lines after it; an sh block is one step."""
    if block.lang != "console":
        # A host's ``sudo`` line is a step of its own (the test plays it).
        parts = re.split(r"^(sudo [^\n]*)\n?", block.text, flags=re.M)
        return [Step(part, None) for part in parts if part.strip()]
    found: list[Step] = []
    lines = block.text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        assert line.startswith("$ "), f"{block.where()}: a console block starts with '$ '"
        command = [line[2:]]
        while command[-1].endswith("\\"):
            index += 1
            command.append(lines[index])
        index += 1
        output: list[str] = []
        while index < len(lines) and not lines[index].startswith("$ "):
            output.append(lines[index])
            index += 1
        found.append(Step("\n".join(command), output))
    return found


def line_pattern(shown: str, *, any_number: bool = False) -> re.Pattern[str]:
    """A shown output line as a pattern: ``…`` stands for any text; a hex digit run written just
    before ``…`` (``b936491b-…``) is an example of it; with ``any_number``, each number stands
    for any number (the figures of a run on random dice)."""
    parts = re.split(r"((?:[0-9a-f][0-9a-f-]*)?…)", shown)
    pattern = ""
    for index, part in enumerate(parts):
        if index % 2:
            pattern += ".*?"
        elif any_number:
            pattern += r"-?\d+".join(re.escape(p) for p in re.split(r"\d+", part))
        else:
            pattern += re.escape(part)
    return re.compile(pattern)


def output_problems(shown: list[str], real: str, *, any_number: bool = False) -> list[str]:
    """How the real output differs from the shown lines (empty: it matches).

    Every shown line must match a real line, in order and with no line between them, except that
    a shown line that is only ``…`` stands for any number of lines, blank lines included.
    Trailing spaces and blank lines at the end do not count."""
    want = [line.rstrip() for line in shown]
    got = [line.rstrip() for line in real.rstrip("\n").splitlines()]
    while want and not want[-1]:
        want.pop()

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i].strip() == ELLIPSIS:
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        return (
            j < len(got)
            and line_pattern(want[i], any_number=any_number).fullmatch(got[j]) is not None
            and match(i + 1, j + 1)
        )

    if match(0, 0):
        return []
    return ["shown:", *("  | " + line for line in want), "printed:", *("  | " + g for g in got)]
