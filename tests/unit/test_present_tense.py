"""Code and docs in present tense: no module, test, script or document names the tracker's issue
it came from ("issue 30", "issues 12-14", "#45"). What a thing is and does is said where it is;
where it came from is told in docs/changelog.md, by date."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("domain", "webapi", "projections", "bench", "tests", "docs", ".ci")
SUFFIXES = {".py", ".js", ".mjs", ".ts", ".html", ".css", ".md", ".toml", ".json", ".sql", ""}
ISSUE = re.compile(r"\bissues? #?\d+|\bissue #\d+|\(#\d+\)", re.IGNORECASE)


def files() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*"):
            skipped = {"node_modules", "__pycache__"} & set(path.parts)
            if path.is_file() and path.suffix in SUFFIXES and not skipped:
                found.append(path)
    return found


def mentions(text: str) -> list[str]:
    return [match.group(0) for match in ISSUE.finditer(text)]


def test_no_file_names_an_issue() -> None:
    named = {}
    for path in files():
        if path.name.endswith("-lock.json") or path == Path(__file__).resolve():
            continue  # npm's own lock files; this file's examples
        found = mentions(path.read_text(encoding="utf-8", errors="replace"))
        if found:
            named[str(path.relative_to(ROOT))] = found
    assert not named, named


def test_the_pattern_finds_each_form() -> None:
    text = "issue 30, Issues 12 and 13, issue #45, fixed (#7), a tissue 4"
    assert mentions(text) == ["issue 30", "Issues 12", "issue #45", "(#7)"]
