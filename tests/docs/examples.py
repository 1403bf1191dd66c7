"""The walkthroughs of the docs as the tests read them (``webapi.walkthrough``)."""

from __future__ import annotations

from pathlib import Path

from webapi.walkthrough import Example, mismatches
from webapi.walkthrough import walkthrough as parse

DOCS = Path(__file__).resolve().parents[2] / "docs"

__all__ = ["DOCS", "Example", "mismatches", "walkthrough"]


def walkthrough(doc: str) -> list[Example]:
    """The examples between the walkthrough markers of ``docs/<doc>``, in page order."""
    examples = parse((DOCS / doc).read_text(encoding="utf-8"))
    assert examples, f"docs/{doc} has no examples between its walkthrough markers"
    return examples
