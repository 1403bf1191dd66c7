"""The runnable examples of the documentation: requests and the answers they show.

A doc marks a run of examples with ``<!-- walkthrough:begin -->`` and ``<!-- walkthrough:end -->``.
Inside, every ```` ```http ```` block is either a request (``METHOD /path``, optional headers, a
blank line, a JSON body) or the answer to the request before it (``HTTP/1.1 201 Created``, a
blank line, and a JSON object with the fields the doc names). ``{id}`` in a path stands for the
campaign the walkthrough created last. An answer's JSON is compared field by field: every key it
shows must be in the real answer with that value (objects may leave keys out; lists are shown
whole, each item compared the same way).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs"
BEGIN, END = "<!-- walkthrough:begin -->", "<!-- walkthrough:end -->"
BLOCK = re.compile(r"^```http\n(.*?)^```$", re.S | re.M)
STATUS = re.compile(r"HTTP/1\.1 (\d{3})\b")


@dataclass
class Example:
    """One request of a walkthrough, with the answer the doc shows for it (if any)."""

    line: int
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    status: int | None = None
    shown: Any = None
    text: str = field(default="", repr=False)

    def where(self, doc: str) -> str:
        return f"docs/{doc} line {self.line}: {self.method} {self.path}"


def walkthrough(doc: str) -> list[Example]:
    """The examples between the walkthrough markers of a doc, in page order."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END)
    examples: list[Example] = []
    for match in BLOCK.finditer(text, start, end):
        line = text.count("\n", 0, match.start()) + 1
        head, _, rest = match.group(1).partition("\n\n")
        lines = head.strip().splitlines()
        status = STATUS.match(lines[0])
        if status is not None:
            assert examples, f"docs/{doc} line {line}: an answer with no request before it"
            examples[-1].status = int(status.group(1))
            examples[-1].shown = json.loads(rest) if rest.strip() else None
            continue
        method, path = lines[0].split(" ", 1)
        headers = dict(h.split(": ", 1) for h in lines[1:])
        body = json.loads(rest) if rest.strip() else None
        examples.append(Example(line, method, path.strip(), headers, body, text=match.group(1)))
    assert examples, f"docs/{doc} has no examples between its walkthrough markers"
    return examples


def mismatches(shown: Any, actual: Any, path: str = "") -> list[str]:
    """Where ``actual`` differs from what the doc shows (an empty list: it shows the truth)."""
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return [f"{path or '.'}: the doc shows an object, the answer has {actual!r}"]
        found: list[str] = []
        for key, value in shown.items():
            if key not in actual:
                found.append(f"{path}.{key}: missing from the answer")
            else:
                found += mismatches(value, actual[key], f"{path}.{key}")
        return found
    if isinstance(shown, list):
        if not isinstance(actual, list) or len(actual) != len(shown):
            return [f"{path}: the doc shows {len(shown)} items, the answer {actual!r:.200}"]
        return [
            m
            for n, (s, a) in enumerate(zip(shown, actual, strict=True))
            for m in mismatches(s, a, f"{path}[{n}]")
        ]
    return (
        [] if shown == actual else [f"{path}: the doc shows {shown!r}, the answer has {actual!r}"]
    )
