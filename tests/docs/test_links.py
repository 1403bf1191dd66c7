"""Every relative link of README.md and docs/*.md leads somewhere: the file exists, and an anchor
(``file.md#heading``) names a heading of that file as GitHub makes its id (lower case, spaces to
hyphens, punctuation dropped; a repeated heading gets ``-1``, ``-2``...)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [
    ROOT / "README.md",
    ROOT / "bench" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def slug(heading: str) -> str:
    """GitHub's id for a heading: markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading id of a Markdown file, repeats numbered as GitHub numbers them."""
    seen: Counter[str] = Counter()
    ids = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        ids.add(base if not seen[base] else f"{base}-{seen[base]}")
        seen[base] += 1
    return ids


def links(path: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(document: Path) -> None:
    broken = []
    for target in links(document):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # an absolute URL (https:, mailto:)
        name, _, anchor = target.partition("#")
        linked = (document.parent / name).resolve() if name else document
        if not linked.exists():
            broken.append(f"{target}: no file {name}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    assert not broken, f"{document.name}: " + "; ".join(broken)


def test_the_slug_is_githubs() -> None:
    assert slug("How one command flows") == "how-one-command-flows"
    assert slug("`questlog verify`: a campaign, a bundle") == "questlog-verify-a-campaign-a-bundle"
    assert slug("Exactly once (PostgreSQL)") == "exactly-once-postgresql"


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    text = "# Title\n\n[x](b.md) [y](#title) [z](#nowhere)\n"
    (tmp_path / "a.md").write_text(text, encoding="utf-8")
    assert links(tmp_path / "a.md") == ["b.md", "#title", "#nowhere"]
    assert anchors(tmp_path / "a.md") == {"title"}


def test_the_readme_lists_every_document_under_a_purpose() -> None:
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Documentation", 1)[1]
    listed = set(re.findall(r"^- \[[^\]]*\]\(([^)#]+)\)", section, re.MULTILINE))
    documents = {f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md")}
    assert documents | {"bench/README.md"} == listed
    assert re.findall(r"^\*\*[A-Z][\w ]+\*\* \(", section, re.MULTILINE)
