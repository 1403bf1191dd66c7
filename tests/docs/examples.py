"""The walkthroughs of the docs as the tests read them (``webapi.doctools.walkthrough``)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

from webapi.doctools.walkthrough import Example, mismatches, walkthroughs

DOCS = Path(__file__).resolve().parents[2] / "docs"

__all__ = [
    "DOCS",
    "Example",
    "checked_block",
    "checked_blocks",
    "mismatches",
    "played",
    "request_of",
    "schematic_json",
    "walkthrough",
]


def played() -> list[tuple[str, int]]:
    """Every walkthrough of docs/*.md: the doc's file name and the walkthrough's number (from 1)."""
    return [
        (path.name, number)
        for path in sorted(DOCS.glob("*.md"))
        for number in range(1, len(walkthroughs(path.read_text(encoding="utf-8"))) + 1)
    ]


def walkthrough(doc: str, number: int = 1) -> list[Example]:
    """The examples of walkthrough ``number`` (from 1) of ``docs/<doc>``, in page order."""
    found = walkthroughs((DOCS / doc).read_text(encoding="utf-8"))
    assert len(found) >= number, f"docs/{doc} has no walkthrough number {number}"
    examples = found[number - 1]
    assert examples, f"docs/{doc} has no examples in its walkthrough number {number}"
    return examples


MARKED = re.compile(
    r"^([ \t]*)<!-- example: checked-by (\S+) -->\n\1(`{3,})[\w+-]*\n(.*?)^\1\3$", re.M | re.S
)


def checked_blocks(doc: str, test: str) -> list[str]:
    """The blocks of ``docs/<doc>`` marked ``<!-- example: checked-by <test> -->``, in page
    order (each without its fences and the indentation of a list item)."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    return [
        textwrap.dedent(match.group(4)) if match.group(1) else match.group(4)
        for match in MARKED.finditer(text)
        if match.group(2) == test
    ]


def checked_block(doc: str, test: str, contains: str) -> str:
    """The one block of ``docs/<doc>`` marked as checked by ``test`` that contains ``contains``."""
    found = [block for block in checked_blocks(doc, test) if contains in block]
    assert len(found) == 1, f"docs/{doc}: {len(found)} blocks checked by {test} hold {contains!r}"
    return found[0]


def schematic_json(text: str) -> Any:
    """A JSON block that leaves things out with ``…``: ``{…}`` is an object whose fields are not
    shown, ``, …`` after the last item shown is dropped, and ``"…"`` stays a string."""
    text = re.sub(r"\{\s*…\s*\}", "{}", text)
    text = re.sub(r",\s*…\s*(?=[}\]])", "", text)
    return json.loads(text)


def request_of(block: str) -> tuple[str, str, Any]:
    """The method, path and JSON body (or None) of a request block written without headers."""
    line, _, body = block.strip().partition("\n")
    method, path = line.split(" ", 1)
    return method, path.strip(), json.loads(body) if body.strip() else None
