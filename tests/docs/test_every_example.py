"""Every fenced block of README.md and docs/*.md is run, checked or honestly excused.

A block belongs to exactly one class:

1. an ```` ```http ```` block inside a walkthrough region, played by
   ``tests/docs/test_walkthroughs.py``;
2. a block inside a generated region (``questlog reference`` writes it; the drift tests of
   ``tests/api/test_docs.py`` compare it with the code);
3. a block whose opening fence follows, on the line right before, one marker comment:
   ``<!-- example: shell -->`` (an sh/console block run by ``tests/docs/test_shell_examples.py``,
   which reads the setups that may follow ``shell``),
   ``<!-- example: checked-by tests/PATH.py -->`` (that test reads this block out of the doc and
   checks it against the code; it must exist and name the doc) or
   ``<!-- example: not-run: REASON -->`` (the reason is required).

A block in none of them fails here, named ``docs/FILE line N``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from webapi.doctools import reference

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["README.md", *(f"docs/{path.name}" for path in sorted((ROOT / "docs").glob("*.md")))]
WALKTHROUGH = ("<!-- walkthrough:begin -->", "<!-- walkthrough:end -->")
GENERATED = [
    (reference.COMMANDS_BEGIN, reference.COMMANDS_END),
    (reference.RULES_BEGIN, reference.RULES_END),
    (reference.EVENTS_BEGIN, reference.EVENTS_END),
    (reference.CAMPAIGN_EVENTS_BEGIN, reference.CAMPAIGN_EVENTS_END),
    (reference.LAYOUT_BEGIN, reference.LAYOUT_END),
]
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
MARKER = re.compile(r"^<!-- example: (.*?) -->$")
SHELL_LANGUAGES = {"sh", "console", "bash", "shell"}


@dataclass(frozen=True)
class Block:
    """One fenced block of a doc: where it opens, its language, the line before the fence, and
    the regions it sits in."""

    line: int
    language: str
    before: str
    regions: frozenset[str]


def blocks(text: str) -> list[Block]:
    """The fenced blocks of a markdown text, in page order."""
    found: list[Block] = []
    regions: set[str] = set()
    lines = text.splitlines()
    fence: str | None = None
    for number, line in enumerate(lines, 1):
        if fence is not None:
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
            continue
        for begin, end in [WALKTHROUGH, *GENERATED]:
            if line.strip() == begin:
                regions.add(begin)
            elif line.strip() == end:
                regions.discard(begin)
        opening = FENCE.match(line.strip())
        if opening is not None:
            # The runners read only ``` and a bare language (an http request at the line's
            # start): any other fence would pass here and never run.
            assert re.fullmatch(r"\s*```[\w+-]*\s*", line), (
                f"line {number}: write a fence as ``` and a bare language"
            )
            assert not (opening.group(2) == "http" and line.startswith((" ", "\t"))), (
                f"line {number}: an http block starts at the line's start"
            )
            fence = opening.group(1)
            before = lines[number - 2].strip() if number > 1 else ""
            found.append(Block(number, opening.group(2), before, frozenset(regions)))
    assert fence is None, "a fenced block is never closed"
    return found


def unclassified(name: str, text: str, root: Path = ROOT) -> list[str]:
    """What is wrong with the blocks (and markers) of one doc: an empty list when every block
    has exactly one class."""
    problems: list[str] = []
    doc = Path(name).name
    opened = {block.line for block in blocks(text)}
    for number, line in enumerate(text.splitlines(), 1):
        if MARKER.match(line.strip()) and number + 1 not in opened:
            problems.append(f"{name} line {number}: a marker with no fenced block right after it")
    for block in blocks(text):
        where = f"{name} line {block.line} (```{block.language})"
        marker = MARKER.match(block.before)
        generated = block.regions - {WALKTHROUGH[0]}
        played = WALKTHROUGH[0] in block.regions and block.language == "http"
        if generated or played:
            if marker is not None:
                problems.append(f"{where}: a marker inside a generated or walkthrough region")
            continue
        if marker is None:
            problems.append(f"{where}: no class (put it in a walkthrough or mark it)")
            continue
        kind = marker.group(1)
        if kind.partition(" ")[0] == "shell":  # setups may follow: test_shell_examples.py
            if block.language not in SHELL_LANGUAGES:
                problems.append(f"{where}: `example: shell` on a block that is not sh/console")
        elif kind.startswith("checked-by "):
            test = kind.removeprefix("checked-by ").strip()
            path = root / test
            if not re.fullmatch(r"tests/[\w/]+\.py", test) or not path.is_file():
                problems.append(f"{where}: checked-by {test}, which is not a test file")
            elif doc not in path.read_text(encoding="utf-8"):
                problems.append(f"{where}: {test} never names {doc}, so it cannot read the block")
        elif kind.startswith("not-run:"):
            if not kind.removeprefix("not-run:").strip():
                problems.append(f"{where}: not-run with no reason")
        else:
            problems.append(f"{where}: unknown marker `example: {kind}`")
    return problems


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_block_is_played_checked_or_excused(name: str) -> None:
    problems = unclassified(name, (ROOT / name).read_text(encoding="utf-8"))
    for problem in problems:
        print(problem)
    assert not problems, "\n".join(problems)


def test_the_inventory_finds_what_it_must() -> None:
    fence = "```"
    here = Path(__file__).relative_to(ROOT).as_posix()
    text = "\n".join(
        [
            f"{fence}json",  # 1: no class
            "{}",
            fence,
            "<!-- example: not-run: a diagram -->",
            f"{fence}mermaid",  # 5: excused
            fence,
            "<!-- example: not-run: -->",
            f"{fence}text",  # 8: no reason
            fence,
            "<!-- example: checked-by tests/docs/nowhere.py -->",
            f"{fence}json",  # 11: no such test
            fence,
            f"<!-- example: checked-by {here} -->",
            f"{fence}json",  # 14: this file names sample.md
            fence,
            WALKTHROUGH[0],
            f"{fence}http",  # 17: played
            "GET /",
            fence,
            f"{fence}json",  # 20: in a walkthrough, but not played
            fence,
            WALKTHROUGH[1],
            "<!-- example: shell TOKEN=admin -->",
            f"{fence}json",  # 24: not a shell block
            fence,
            "<!-- example: shell -->",
            "",
            GENERATED[0][0],
            f"{fence}http",  # 29: generated
            fence,
            GENERATED[0][1],
        ]
    )
    problems = unclassified("sample.md", text)
    lines = sorted(int(re.findall(r"^sample\.md line (\d+)", p)[0]) for p in problems)
    assert lines == [1, 8, 11, 20, 24, 26], problems


@pytest.mark.parametrize("fence", ["~~~sh", "````sh", "```sh title", "   ```http"])
def test_a_fence_no_runner_reads_is_refused(fence: str) -> None:
    with pytest.raises(AssertionError, match="line 1"):
        blocks(f"{fence}\nls\n{fence.strip().split()[0][:3]}\n")


def test_the_walkthrough_comparison_tells_a_bool_and_a_float_from_a_number() -> None:
    from webapi.doctools.walkthrough import mismatches

    assert mismatches({"undone": False}, {"undone": False}) == []
    assert mismatches({"undone": False}, {"undone": 0})
    assert mismatches({"version": 2}, {"version": 2.0})
    assert mismatches({"version": 1}, {"version": True})
