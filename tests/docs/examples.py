"""The walkthroughs of the docs as the tests read them (``webapi.walkthrough``)."""

from __future__ import annotations

from pathlib import Path

from webapi.walkthrough import Example, mismatches, walkthroughs

DOCS = Path(__file__).resolve().parents[2] / "docs"

__all__ = ["DOCS", "Example", "mismatches", "played", "walkthrough"]


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
