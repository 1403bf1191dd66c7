"""A Calendar Board match brought to a hail night, as several browser tests need it: the god piece
reaches hail (space 13) over four turns and A's save rolls a 1, so seat A has a fate reroll to
decide on (G-CB-12)."""

from __future__ import annotations

from typing import Any

from domain.model import samples
from tests.browser.server import Server
from tests.fixtures.make_release_store import HAIL_SETUP


def hail_night(server: Server, name: str, setup: dict[str, Any] | None = None) -> str:
    """A new match (``HAIL_SETUP`` unless ``setup`` is given) played to its hail night: its id."""
    status, created = server.call(
        "POST",
        "/campaigns",
        {
            "game": "calendar-board",
            "name": name,
            "house_rules": {**samples.ONE_SCREEN, "cb.night.steps": ["calendar"]},
            "setup": HAIL_SETUP if setup is None else setup,
        },
    )
    assert status == 201, created
    cid = str(created["id"])
    for faces in ([4], [4], [4], [1, 1]):  # the god piece reaches hail (13); A's save: 1
        for body in ({"player": "A"}, {"player": "B", "faces": faces}):
            status, answer = server.call(
                "POST", f"/campaigns/{cid}/commands", {"type": "end_turn", **body}
            )
            assert status == 201, answer
    return cid
