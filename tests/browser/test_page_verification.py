"""The page's own verification code (canon.js, verify.js) against Python's: the same canonical
JSON text for awkward values, and the documented dice vector."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from domain.service.questlog import Questlog
from domain.storage.store import StoreConfig
from tests.application.moving import exported
from tests.browser.server import Server

pytestmark = pytest.mark.browser

AWKWARD: list[Any] = [
    {"b": 1, "a": 2, "é": 3, "Z": 4, "\U0001f600": 5, "\uffff": 6, "": 7},
    [1.0, 0.1, -0.0, 1e-07, 1e16, 1.5e300, 123.456, 2.5e-05, 1e22, 3.0e15],
    [0, -1, 2**53 + 1, 123456789012345678901234567890, -(2**63)],
    ["\x00\x1f\x7f", 'quote " and \\ backslash', "\n\r\t\b\f", "\u2028\u2029", "é😀", "</script>"],
    {"nested": {"z": [True, False, None], "a": {"y": 1.25, "x": "ü"}}},
]


def python_canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("ensure_ascii", [True, False], ids=["ascii-escaped", "utf-8"])
def test_canonical_json_is_pythons(open_page: Any, server: Server, ensure_ascii: bool) -> None:
    page, _ = open_page()
    page.goto(server.url("/app/verify"))
    texts = [json.dumps(value, ensure_ascii=ensure_ascii) for value in AWKWARD]
    written = page.evaluate(
        """async (texts) => {
            const { canonical, parse } = await import("/app/static/canon.js");
            return texts.map((text) => canonical(parse(text)));
        }""",
        texts,
    )
    assert written == [python_canonical(value) for value in AWKWARD]


def test_the_documented_dice_vector(open_page: Any, server: Server) -> None:
    page, _ = open_page()
    page.goto(server.url("/app/verify"))
    seed = "5da6c32850a48d22c78554ebecd7a1eeadbfc77d9c0226fcc78cc0b1f83b20d2"
    result = page.evaluate(
        """async (seed) => {
            const v = await import("/app/static/verify.js");
            return [await v.deriveFaces(seed, "table-7", 0, [20, 20, 4]),
                    await v.sha256Hex(v.hexToBytes(seed))];
        }""",
        seed,
    )
    assert result == [[2, 6, 3], "46698f6f4e0767b718db49f3f32658a1c1760a3569136bae3d61410b689f5493"]


def test_the_page_verifies_the_rolls_of_an_imported_campaign(
    open_page: Any, server: Server, tmp_path: Path
) -> None:
    """After an import, the page takes the import event's commitment as the one in force: a roll
    on the new host verifies once its seed is revealed, like the rolls before the move."""
    source = Questlog(StoreConfig(sqlite_path=tmp_path / "source.db"))
    target = Questlog(StoreConfig(sqlite_path=tmp_path / "target.db"))
    try:
        cid = source.campaigns.create_campaign(game="quest-calendar", name="Moved").campaign_id
        source.dice.roll(cid, notation="d20", purpose="before the move")
        source.dice.rotate_seed(cid)
        target.bundles.load(exported(source, cid))
        target.dice.roll(cid, notation="2d6", purpose="after the move")
        target.dice.rotate_seed(cid)
        moved = exported(target, cid)
    finally:
        source.close()
        target.close()
    page, _ = open_page()
    page.goto(server.url("/app/verify"))

    verdicts = page.evaluate(
        """async (bundle) => {
            const v = await import("/app/static/verify.js");
            const inForce = v.diceInForce(bundle.events);
            const found = [];
            for (const event of bundle.events) {
                for (const roll of v.rollsOf(event)) {
                    const seeds = bundle.revealed_seeds, held = inForce.get(roll.roll_id);
                    found.push((await v.rollVerdict(roll, seeds, held)).verdict);
                }
            }
            return found;
        }""",
        moved,
    )

    assert verdicts == ["verified", "verified"]
