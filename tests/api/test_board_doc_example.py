"""docs/calendar-board.md shows the /modifiers answer as it really is (issue 11, point 3): the
requests of its example are replayed and the answer must equal the documented JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

from flask.testing import FlaskClient

DOC = Path(__file__).resolve().parents[2] / "docs" / "calendar-board.md"
BEGIN, END = "<!-- modifiers-example:begin -->", "<!-- modifiers-example:end -->"
BLOCK = re.compile(r"```(http|json)\n(.*?)\n```", re.S)


def test_the_documented_modifiers_answer_is_the_real_one(client: FlaskClient) -> None:
    text = DOC.read_text()
    section = text[text.index(BEGIN) : text.index(END)]
    blocks = BLOCK.findall(section)
    *requests, (kind, documented) = blocks
    assert kind == "json"
    campaign = ""
    answer = None
    for kind, block in requests:
        assert kind == "http"
        line, _, body = block.partition("\n")
        method, path = line.split(" ", 1)
        path = path.replace("{id}", campaign)
        sent = {"json": json.loads(body)} if body else {}
        response = client.open(path, method=method, **sent)
        assert response.status_code in (200, 201), (block, response.json)
        if path == "/campaigns":
            campaign = response.json["id"]
        answer = response.json
    assert answer == json.loads(documented)
