"""Server rolls derived again by a separate, minimal implementation of the published algorithm.

``independent_faces`` is written from the issue's text (point 4) and shares no code with
domain/model/dice/draw.py: if the production draw ever drifts from what the documentation
promises, old rolls stop verifying, and these tests fail first.
"""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.model.dice.draw import ServerDice
from domain.model.dice.notation import ALLOWED_SIDES

# Sides for which many words are discarded (2**31 + 1 throws away almost half of them), so the
# rejection step and the move to the next HMAC block are exercised, not only the d4..d100 path.
REJECTION_HEAVY = (2**31 + 1, 3 * 2**30, 2**32 - 1, 2**32, 1, 3)


def independent_faces(
    seed_hex: str, client_seed: str, nonce: int, sides: list[int]
) -> tuple[list[int], int]:
    """The faces of one roll and how many words were discarded, straight from the issue's text."""
    key = bytes.fromhex(seed_hex)
    words: list[int] = []
    block = 0
    faces = []
    rejected = 0
    for n in sides:
        while True:
            if not words:
                message = f"{client_seed}:{nonce}:{block}".encode()
                digest = hmac.new(key, message, hashlib.sha256).digest()
                words = [int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4)]
                block += 1
            x = words.pop(0)
            if x >= 2**32 - (2**32 % n):
                rejected += 1
                continue
            faces.append(x % n + 1)
            break
    return faces, rejected


KNOWN_ANSWERS = [
    # (server seed, its commitment, client seed, nonce, sides, faces), computed once with
    # independent_faces above; the third roll discards 5 words and runs into block 1.
    (
        "5da6c32850a48d22c78554ebecd7a1eeadbfc77d9c0226fcc78cc0b1f83b20d2",
        "46698f6f4e0767b718db49f3f32658a1c1760a3569136bae3d61410b689f5493",
        "table-7",
        0,
        [20, 20, 4],
        [2, 6, 3],
    ),
    (
        "7ea7d8930f930eb58e767260c9950601586a7b03b94e0e0b11cf3027cce308ca",
        "30369e7da5bd7e9446a621b3fa793ece5469417e46d11a059f34daf5ae2deacd",
        "\u00dcn\u00efcode:seed",
        41,
        [100, 10, 100, 6, 6, 6, 6, 8, 12, 20],
        [80, 7, 74, 6, 2, 4, 2, 4, 10, 19],
    ),
    (
        "d2b1418f7418c38d58aa0407aa6f7dc5b4765497d8e6b6fc63c637ccfc76b57b",
        "5f148bfa79742e8c30316be0670dae427d5b5ce15cd606ac7740d0ca009daba2",
        "rejection",
        7,
        [2**31 + 1] * 3 + [3 * 2**30] * 3,
        [118690320, 806215337, 379312832, 74498692, 2187495929, 2903791799],
    ),
]


@pytest.mark.parametrize(
    ("seed", "commitment", "client_seed", "nonce", "sides", "faces"), KNOWN_ANSWERS
)
def test_known_answer_vectors(
    seed: str, commitment: str, client_seed: str, nonce: int, sides: list[int], faces: list[int]
) -> None:
    assert independent_faces(seed, client_seed, nonce, sides)[0] == faces
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    dice = ServerDice(seed, client_seed, nonce)
    draw = dice.draw(sides)
    assert draw.faces == faces
    assert draw.proof == {"commitment": commitment, "client_seed": client_seed, "nonce": nonce}


def test_server_dice_match_the_independent_draw_over_many_seeds_and_nonces() -> None:
    dice_lists = [
        [20],
        [20, 20, 4],
        [100],
        [100] * 9,
        list(ALLOWED_SIDES) * 3,
        list(REJECTION_HEAVY) * 4,
        [6] * 40,
    ]
    rejected = 0
    for index in range(60):
        seed = hashlib.sha256(f"independent {index}".encode()).hexdigest()
        client_seed = f"client:{index}" if index % 2 else "\u263a"
        dice = ServerDice(seed, client_seed, index * 1000)
        for sides in dice_lists:
            nonce = dice.nonce
            draw = dice.draw(sides)
            faces, discarded = independent_faces(seed, client_seed, nonce, sides)
            assert draw.faces == faces
            assert draw.proof is not None
            assert draw.proof["nonce"] == nonce
            assert draw.proof["commitment"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
            rejected += discarded
    assert rejected > 100  # the rejection step really ran


@settings(max_examples=200)
@given(
    seed=st.binary(min_size=32, max_size=32),
    client_seed=st.text(max_size=30),
    nonce=st.integers(0, 2**63),
    rolls=st.lists(
        st.lists(st.sampled_from(ALLOWED_SIDES + REJECTION_HEAVY), min_size=1, max_size=20),
        min_size=1,
        max_size=4,
    ),
)
def test_property_server_dice_match_the_independent_draw(
    seed: bytes, client_seed: str, nonce: int, rolls: list[list[int]]
) -> None:
    dice = ServerDice(seed.hex(), client_seed, nonce)
    for offset, sides in enumerate(rolls):
        assert (
            dice.draw(sides).faces
            == independent_faces(seed.hex(), client_seed, nonce + offset, sides)[0]
        )
    assert dice.nonce == nonce + len(rolls)
