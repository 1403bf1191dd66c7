"""Server rolls derived again by a verifier that shares no code with the server.

The draw below is written from the issue's text alone (point 4): HMAC-SHA256 blocks keyed by the
seed's bytes over ``f"{client_seed}:{nonce}:{k}"``, each read as eight big-endian 32-bit words,
with rejection above the largest multiple of N. It reads only what the public log holds.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from domain.service.questlog import Questlog

NOTATIONS = ["d20", "2d20kh1+5", "2d6+d4-1", "d100", "3d8", "4d10kl2", "d12", "100d4", "20d100"]


def words(seed: bytes, client_seed: str, nonce: int) -> Iterator[int]:
    k = 0
    while True:
        block = hmac.new(seed, f"{client_seed}:{nonce}:{k}".encode(), hashlib.sha256).digest()
        yield from struct.unpack(">8I", block)
        k += 1


def derive(seed_hex: str, client_seed: str, nonce: int, sides: list[int]) -> list[int]:
    stream = words(bytes.fromhex(seed_hex), client_seed, nonce)
    faces = []
    for n in sides:
        x = next(stream)
        while x >= 2**32 - (2**32 % n):
            x = next(stream)
        faces.append(x % n + 1)
    return faces


def public_log(app: Questlog, campaign_id: UUID) -> list[dict[str, Any]]:
    """The campaign's events as the plain field dicts the public event feed carries."""
    return [dict(event.__dict__) for event in app.campaign_events(campaign_id)]


def test_every_server_roll_rederives_from_its_revealed_seed(
    app: Questlog, new_campaign: Callable[..., UUID]
) -> None:
    campaign_id = new_campaign()
    for notation in NOTATIONS:
        app.dice.roll(campaign_id, notation=notation, purpose=f"roll {notation}")
    app.dice.roll(campaign_id, notation="2d6", purpose="by hand", faces=[1, 6])
    app.dice.set_client_seed(campaign_id, "player chosen ✓ seed")
    for notation in NOTATIONS:
        app.dice.roll(campaign_id, notation=notation, purpose="")
    app.dice.rotate_seed(campaign_id)
    app.dice.roll(campaign_id, notation="d20", purpose="under the new seed, still secret")

    events = public_log(app, campaign_id)
    revealed = {
        e["revealed_commitment"]: e["revealed_seed"] for e in events if "revealed_seed" in e
    }
    server_rolls = [r for e in events for r in e.get("rolls", []) if r["source"] == "server"]

    assert len(revealed) == 1
    [(commitment, seed)] = revealed.items()
    assert commitment == events[0]["commitment"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    checked = 0
    for roll in server_rolls:
        proof = roll["proof"]
        if proof["commitment"] not in revealed:
            continue
        sides = [die["sides"] for die in roll["dice"]]
        faces = [die["face"] for die in roll["dice"]]
        assert derive(seed, proof["client_seed"], proof["nonce"], sides) == faces, roll["roll_id"]
        checked += 1
    assert checked == 2 * len(NOTATIONS)
    assert [r["proof"]["nonce"] for r in server_rolls] == [*range(2 * len(NOTATIONS)), 0]
    assert {r["proof"]["client_seed"] for r in server_rolls[len(NOTATIONS) :]} == {
        "player chosen ✓ seed"
    }


def test_a_changed_face_does_not_rederive(app: Questlog, new_campaign: Callable[..., UUID]) -> None:
    campaign_id = new_campaign()
    app.dice.roll(campaign_id, notation="10d20", purpose="")
    app.dice.rotate_seed(campaign_id)

    events = public_log(app, campaign_id)
    [roll] = events[1]["rolls"]
    seed = events[2]["revealed_seed"]
    faces = [die["face"] for die in roll["dice"]]
    proof = roll["proof"]

    assert derive(seed, proof["client_seed"], proof["nonce"], [20] * 10) == faces
    assert derive(seed, proof["client_seed"], proof["nonce"] + 1, [20] * 10) != faces
    assert derive(seed, proof["client_seed"] + "x", proof["nonce"], [20] * 10) != faces
