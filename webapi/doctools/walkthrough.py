"""The walkthroughs of the game docs: requests and the answers they show, played for real.

A doc marks a walkthrough with ``<!-- walkthrough:begin -->`` and ``<!-- walkthrough:end -->``;
a doc may have several, each played on its own from a fresh app. Inside, every
```` ```http ```` block is a request (``METHOD /path``, optional headers, a blank line, a JSON
body) or the answer to the request before it (``HTTP/1.1 201 Created``, a blank line, and a JSON
object with the fields the doc names). ``{id}`` in a path stands for the campaign the walkthrough
created last. An answer's JSON is compared field by field: every key it shows must be in the real
answer with that value (objects may leave keys out; lists are shown whole, each item compared the
same way). ``tests/docs/test_walkthroughs.py`` plays each one.

``accepted_after`` plays a game's first walkthrough once and finds, for each command of the game,
the first step after which its reference example is accepted (a fork of the campaign at that
point takes it): what ``questlog reference`` writes beside each command.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BEGIN, END = "<!-- walkthrough:begin -->", "<!-- walkthrough:end -->"
BLOCK = re.compile(r"^```http\n(.*?)^```$", re.S | re.M)
STATUS = re.compile(r"HTTP/1\.1 (\d{3})\b")
STEP = re.compile(r"^\*\*(\d+)\.", re.M)


@dataclass
class Example:
    """One request of a walkthrough, with the answer the doc shows for it (if any)."""

    line: int
    step: int
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    status: int | None = None
    shown: Any = None
    text: str = field(default="", repr=False)

    def where(self, doc: str) -> str:
        """Where the request is written, for a failure message."""
        return f"docs/{doc} line {self.line}: {self.method} {self.path}"


def regions(text: str) -> list[tuple[int, int]]:
    """The spans of text between each pair of walkthrough markers, in page order."""
    spans: list[tuple[int, int]] = []
    position = 0
    while (start := text.find(BEGIN, position)) != -1:
        end = text.find(END, start)
        if end == -1 or BEGIN in text[start + len(BEGIN) : end]:
            line = text.count("\n", 0, start) + 1
            raise ValueError(f"line {line}: a walkthrough that is not closed before the next")
        spans.append((start, end))
        position = end + len(END)
    if END in text[position:]:
        line = text.count("\n", 0, text.index(END, position)) + 1
        raise ValueError(f"line {line}: a walkthrough end with no begin")
    return spans


def walkthroughs(text: str) -> list[list[Example]]:
    """The examples of each walkthrough of a doc, in page order (none without markers)."""
    return [_examples(text, start, end) for start, end in regions(text)]


def walkthrough(text: str) -> list[Example]:
    """The examples of a doc's first walkthrough, in page order (none without markers)."""
    found = walkthroughs(text)
    return found[0] if found else []


def _examples(text: str, start: int, end: int) -> list[Example]:
    examples: list[Example] = []
    for match in BLOCK.finditer(text, start, end):
        line = text.count("\n", 0, match.start()) + 1
        steps = STEP.findall(text, start, match.start())
        head, _, rest = match.group(1).partition("\n\n")
        lines = head.strip().splitlines()
        status = STATUS.match(lines[0])
        if status is not None:
            if not examples:
                raise ValueError(f"line {line}: an answer with no request before it")
            examples[-1].status = int(status.group(1))
            examples[-1].shown = json.loads(rest) if rest.strip() else None
            continue
        method, path = lines[0].split(" ", 1)
        headers = dict(h.split(": ", 1) for h in lines[1:])
        body = json.loads(rest) if rest.strip() else None
        step = int(steps[-1]) if steps else 1
        examples.append(
            Example(line, step, method, path.strip(), headers, body, text=match.group(1))
        )
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
    same = shown == actual and isinstance(shown, bool) == isinstance(actual, bool)
    same = same and isinstance(shown, float) == isinstance(actual, float)
    return [] if same else [f"{path}: the doc shows {shown!r}, the answer has {actual!r}"]


@dataclass(frozen=True)
class Acceptance:
    """Where a command's reference example is first accepted in its game's walkthrough."""

    step: int | None
    """The walkthrough step after which it is accepted, or None if it never is."""
    refusal: str | None = None
    """Why the walkthrough's last state refuses it, when no step accepts it."""


def accepted_after(text: str, examples: dict[str, dict[str, Any]]) -> dict[str, Acceptance]:
    """For each command's example, the first step of the doc's walkthrough after which it is
    accepted, found by forking the walkthrough's campaign there and sending the example."""
    from domain.facade import Questlog, StoreConfig
    from webapi.app import create_app

    requests = walkthrough(text)
    if not requests:
        return {}
    with tempfile.TemporaryDirectory() as directory:
        app = Questlog(StoreConfig(sqlite_path=Path(directory) / "walkthrough.db"))
        try:
            client = create_app(app, auth=False, rate_limit=0, TESTING=True).test_client()
            campaign, points = _play(client, requests)
            return {name: _probe(client, campaign, points, body) for name, body in examples.items()}
        finally:
            app.close()


def _play(client: Any, requests: list[Example]) -> tuple[str, list[tuple[int, int]]]:
    """Play the walkthrough: its campaign and, after each request that appended to it, the step
    and the campaign's version."""
    campaign: str | None = None
    points: list[tuple[int, int]] = []
    for example in requests:
        path = example.path.replace("{id}", campaign or "")
        answer = client.open(path, method=example.method, json=example.body)
        body = answer.get_json(silent=True) or {}
        if example.method == "POST" and example.path == "/campaigns":
            campaign = body["id"]
            points.append((example.step, 1))
        elif (
            example.method == "POST"
            and answer.status_code in (200, 201)
            and example.path.startswith("/campaigns/{id}")
            and isinstance(body.get("version"), int)
        ):
            points.append((example.step, body["version"]))
    if campaign is None:
        raise ValueError("the walkthrough creates no campaign")
    return campaign, points


def _probe(
    client: Any, campaign: str, points: list[tuple[int, int]], body: dict[str, Any]
) -> Acceptance:
    refusal = closest = None
    for step, version in points:
        fork = client.post(
            f"/campaigns/{campaign}/fork", json={"at_version": version, "name": "probe"}
        ).get_json()
        answer = client.post(f"/campaigns/{fork['id']}/commands", json=body)
        if answer.status_code == 201:
            return Acceptance(step)
        problem = answer.get_json(silent=True) or {}
        refusal = str(problem.get("detail") or problem.get("title") or answer.status_code)
        if answer.status_code == 422 and closest is None:
            closest = refusal  # the state let it through to its own fields: the nearest miss
    return Acceptance(None, closest or refusal)


def anchor(text: str) -> str | None:
    """The link anchor of the heading the first walkthrough sits under (GitHub's slug)."""
    if BEGIN not in text:
        return None
    headings = re.findall(r"^## (.+)$", text[: text.index(BEGIN)], re.M)
    if not headings:
        return None
    slug = re.sub(r"[^\w\- ]", "", headings[-1].strip().lower())
    return slug.replace(" ", "-")
