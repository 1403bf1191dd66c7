"""Dice notation, evaluation, reported faces and the dice sources (domain/model/dice/draw.py)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.model.dice.draw import (
    DiceSource,
    ScriptedDice,
    ServerDice,
    commitment_of,
    derive_faces,
    new_client_seed,
    new_server_seed,
    read_reported_faces,
    verify_faces,
)
from domain.model.dice.notation import (
    ALLOWED_SIDES,
    MAX_DICE,
    MAX_MODIFIER,
    MAX_NOTATION_LENGTH,
    DiceExpression,
    DiceTerm,
    evaluate,
    parse,
)
from domain.model.errors import InvalidInput

SEED = "3f" * 32


def dice_error(notation: object) -> str:
    """Parse notation that must be refused and return its one message on the field "dice"."""
    with pytest.raises(InvalidInput) as caught:
        parse(notation)  # type: ignore[arg-type]
    assert list(caught.value.errors) == ["dice"]
    [message] = caught.value.errors["dice"]
    return message


def faces_errors(sides: list[int], faces: Any) -> list[str]:
    """Read reported faces that must be refused and return the messages on the field "faces"."""
    with pytest.raises(InvalidInput) as caught:
        read_reported_faces(sides, faces)
    assert list(caught.value.errors) == ["faces"]
    return caught.value.errors["faces"]


# --- parsing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("notation", "canonical", "sides", "modifier"),
    [
        ("d20", "1d20", [20], 0),
        ("d20+3", "1d20+3", [20], 3),
        (" D20 + 3 ", "1d20+3", [20], 3),
        ("2d6+d4-1", "2d6+1d4-1", [6, 6, 4], -1),
        ("2d20kh1", "2d20kh1", [20, 20], 0),
        ("2D20KL1", "2d20kl1", [20, 20], 0),
        ("4d6kh3 + 2 - 1", "4d6kh3+1", [6, 6, 6, 6], 1),
        ("-d6+10", "-1d6+10", [6], 10),
        ("+d8", "1d8", [8], 0),
        ("3+d4", "1d4+3", [4], 3),
        ("d20+3-3", "1d20", [20], 0),
        ("d100-d10", "1d100-1d10", [100, 10], 0),
        ("100d4", "100d4", [4] * 100, 0),
        ("d20+1000", "1d20+1000", [20], 1000),
        ("d4-1000", "1d4-1000", [4], -1000),
        ("\td12\n", "1d12", [12], 0),
    ],
)
def test_parse_valid_forms_and_canonical_spelling(
    notation: str, canonical: str, sides: list[int], modifier: int
) -> None:
    expression = parse(notation)
    assert expression.notation == canonical
    assert expression.sides == sides
    assert expression.modifier == modifier
    assert parse(canonical) == expression


@pytest.mark.parametrize("sides", ALLOWED_SIDES)
def test_qc07_every_die_of_the_set_parses(sides: int) -> None:
    assert parse(f"d{sides}").terms == (
        DiceTerm(count=1, sides=sides, sign=1, keep=None, keep_count=None),
    )


def test_parse_keeps_terms_in_written_order_with_signs_and_keeps() -> None:
    expression = parse("2d20kh1-3d6kl2+d4+5")
    assert expression.terms == (
        DiceTerm(count=2, sides=20, sign=1, keep="kh", keep_count=1),
        DiceTerm(count=3, sides=6, sign=-1, keep="kl", keep_count=2),
        DiceTerm(count=1, sides=4, sign=1, keep=None, keep_count=None),
    )
    assert expression.sides == [20, 20, 6, 6, 6, 4]
    assert expression.modifier == 5


@pytest.mark.parametrize(
    ("notation", "expected"),
    [
        ("", "the notation is empty; write dice such as d20+3"),
        ("   ", "the notation is empty; write dice such as d20+3"),
        ("d7", "d7: a die must have 4, 6, 8, 10, 12, 20 or 100 sides"),
        ("3d1000", "3d1000: a die must have 4, 6, 8, 10, 12, 20 or 100 sides"),
        ("0d6", "0d6: roll at least one die"),
        ("1000d20", "1000d20: at most 100 dice in one roll, this term asks for 1000"),
        ("60d6+50d6", "at most 100 dice in one roll, this notation has 110"),
        (
            "d20++3",
            "d20++3: '+' at position 5 comes right after another sign",
        ),
        (
            "d20 - -3",
            "d20 - -3: '-' at position 7 comes right after another sign",
        ),
        ("2d20kh3", "2d20kh3: cannot keep 3 of 2 dice"),
        ("2d20kl0", "2d20kl0: keep at least one die"),
        ("2d20kh", "2d20kh: say how many dice to keep, e.g. 2d20kh1"),
        ("2d", "2d: say how many sides the die has, e.g. 2d6"),
        ("d20+", "d20+: the final '+' has nothing after it"),
        ("-", "-: the final '-' has nothing after it"),
        ("garbage", "garbage: not a die (such as d20, 2d6 or 2d20kh1) or a whole number"),
        ("d20*2", "d20*2: not a die (such as d20, 2d6 or 2d20kh1) or a whole number"),
        ("1.5d6", "1.5d6: not a die (such as d20, 2d6 or 2d20kh1) or a whole number"),
        (
            "d\u0662\u0660",
            "d\u0662\u0660: not a die (such as d20, 2d6 or 2d20kh1) or a whole number",
        ),
        ("d20 20", "d20 20: put + or - between 'd20' and '20'"),
        ("2 d6", "2 d6: put + or - between '2' and 'd6'"),
        ("3+4", "3+4: a roll needs at least one die, such as d20"),
        ("d20+1001", "1001: a modifier can be at most 1000"),
        ("d20+1000+1", "the modifiers add up to 1001; the limit is \u00b11000"),
        ("d20+" + "9" * 150, "9" * 150 + ": a modifier can be at most 1000"),
        ("d20" + " " * 198, "the notation is longer than 200 characters"),
    ],
)
def test_parse_refuses_bad_notation_saying_what_is_wrong(notation: str, expected: str) -> None:
    assert dice_error(notation) == expected


@pytest.mark.parametrize("value", [None, 20, ["d20"], b"d20"])
def test_parse_refuses_what_is_not_a_string(value: object) -> None:
    assert dice_error(value) == "dice notation must be a string such as d20+3"


def test_limits_are_as_documented() -> None:
    assert ALLOWED_SIDES == (4, 6, 8, 10, 12, 20, 100)
    assert (MAX_DICE, MAX_MODIFIER, MAX_NOTATION_LENGTH) == (100, 1000, 200)
    assert parse("d20" + " " * (MAX_NOTATION_LENGTH - 3)).notation == "1d20"


# --- evaluation -----------------------------------------------------------------------------


def test_evaluate_sums_signed_terms_and_modifier_in_draw_order() -> None:
    outcome = evaluate(parse("2d6+d4-1"), [3, 5, 2])
    assert outcome.dice == [
        {"sides": 6, "face": 3, "kept": True},
        {"sides": 6, "face": 5, "kept": True},
        {"sides": 4, "face": 2, "kept": True},
    ]
    assert (outcome.modifier, outcome.total) == (-1, 9)


@pytest.mark.parametrize(
    ("notation", "faces", "total"),
    [
        ("d20+3", [17], 20),
        ("-d6+10", [4], 6),
        ("d20-2d4", [15, 3, 4], 8),
        ("d100", [100], 100),
        ("d4-5", [1], -4),
    ],
)
def test_evaluate_totals(notation: str, faces: list[int], total: int) -> None:
    assert evaluate(parse(notation), faces).total == total


@pytest.mark.parametrize(
    ("notation", "faces", "kept", "total"),
    [
        ("2d20kh1", [5, 17], [False, True], 17),
        ("2d20kl1", [5, 17], [True, False], 5),
        ("4d6kh3", [3, 6, 3, 1], [True, True, True, False], 12),
        ("4d6kl2", [3, 6, 3, 1], [True, False, False, True], 4),
        ("2d20kh1", [9, 9], [True, False], 9),
        ("2d20kl1", [9, 9], [True, False], 9),
        ("3d6kh2", [4, 6, 4], [True, True, False], 10),
        ("3d6kl2", [4, 2, 4], [True, True, False], 6),
        ("2d20kh2", [1, 20], [True, True], 21),
        ("-2d6kh1+10", [2, 5], [False, True], 5),
    ],
)
def test_keep_highest_and_lowest_ties_keep_the_earliest(
    notation: str, faces: list[int], kept: list[bool], total: int
) -> None:
    outcome = evaluate(parse(notation), faces)
    assert [die["kept"] for die in outcome.dice] == kept
    assert [die["face"] for die in outcome.dice] == faces
    assert outcome.total == total


def test_keep_applies_within_each_term() -> None:
    outcome = evaluate(parse("2d20kh1+2d20kl1"), [3, 18, 7, 12])
    assert [die["kept"] for die in outcome.dice] == [False, True, True, False]
    assert outcome.total == 25


@pytest.mark.parametrize(("faces", "message"), [([3], "needs 2 faces"), ([3, 7], "not a face")])
def test_evaluate_refuses_faces_that_do_not_fit(faces: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(parse("2d6"), faces)


# --- faces rolled by hand -------------------------------------------------------------------


def test_reported_faces_are_read_in_draw_order() -> None:
    assert read_reported_faces([20, 20, 4], [17, 1, 4]) == [17, 1, 4]


@pytest.mark.parametrize("face", [0, 21, -1])
def test_reported_d20_face_outside_1_to_20_is_refused(face: int) -> None:
    assert faces_errors([20], [face]) == [f"faces[0]: {face} is not a face of a d20 (1..20)"]


def test_reported_face_error_names_its_position() -> None:
    assert faces_errors([20, 20], [3, 21]) == ["faces[1]: 21 is not a face of a d20 (1..20)"]


def test_reported_faces_collect_every_error() -> None:
    errors = faces_errors([20, 6, 4], [0, 3, 9])
    assert errors == [
        "faces[0]: 0 is not a face of a d20 (1..20)",
        "faces[2]: 9 is not a face of a d4 (1..4)",
    ]


def test_qc08_reported_d10_zero_reads_ten() -> None:
    assert read_reported_faces([10], [0]) == [10]


@pytest.mark.parametrize("face", range(1, 11))
def test_qc08_reported_d10_reads_1_to_10(face: int) -> None:
    assert read_reported_faces([10], [face]) == [face]


@pytest.mark.parametrize("face", [-1, 11])
def test_qc08_reported_d10_outside_faces_is_refused(face: int) -> None:
    assert faces_errors([10], [face]) == [
        f"faces[0]: {face} is not a face of a d10 (0..9, or 1..10; a 0 reads as 10)"
    ]


def test_zero_reads_ten_only_on_a_d10() -> None:
    assert faces_errors([8], [0]) == ["faces[0]: 0 is not a face of a d8 (1..8)"]


@pytest.mark.parametrize("face", [1, 57, 100])
def test_qc09_reported_d100_as_one_number(face: int) -> None:
    assert read_reported_faces([100], [face]) == [face]


@pytest.mark.parametrize("face", [0, 101])
def test_qc09_reported_d100_number_outside_1_to_100_is_refused(face: int) -> None:
    [message] = faces_errors([100], [face])
    assert message.startswith(f"faces[0]: {face} is not a face of a d100 (1..100, or ")


@pytest.mark.parametrize(
    ("tens", "units", "value"), [(60, 5, 65), (70, 0, 70), (0, 4, 4), (0, 0, 100), (90, 9, 99)]
)
def test_qc09_rule_examples(tens: int, units: int, value: int) -> None:
    assert read_reported_faces([100], [{"tens": tens, "units": units}]) == [value]


def test_qc09_every_tens_units_pair_gives_each_value_once() -> None:
    pairs = [{"tens": tens, "units": units} for tens in range(0, 100, 10) for units in range(10)]
    values = read_reported_faces([100] * len(pairs), pairs)
    assert len(pairs) == 100
    assert Counter(values) == Counter(range(1, 101))


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        (
            {"tens": 5, "units": 0},
            "faces[0]: tens 5 is not a face of the tens die (0, 10, 20, ..., 90)",
        ),
        (
            {"tens": 100, "units": 0},
            "faces[0]: tens 100 is not a face of the tens die (0, 10, 20, ..., 90)",
        ),
        (
            {"tens": True, "units": 0},
            "faces[0]: tens True is not a face of the tens die (0, 10, 20, ..., 90)",
        ),
        ({"tens": 10, "units": 10}, "faces[0]: units 10 is not a face of the units die (0..9)"),
        ({"tens": 10, "units": "3"}, "faces[0]: units '3' is not a face of the units die (0..9)"),
        ({"tens": 10}, "faces[0]: a d100 pair has exactly the keys 'tens' and 'units'"),
        (
            {"tens": 10, "units": 1, "x": 0},
            "faces[0]: a d100 pair has exactly the keys 'tens' and 'units'",
        ),
    ],
)
def test_qc09_bad_tens_units_pair_is_refused(pair: dict[str, Any], message: str) -> None:
    assert faces_errors([100], [pair]) == [message]


def test_tens_units_pair_only_for_a_d100() -> None:
    assert faces_errors([20], [{"tens": 10, "units": 1}]) == [
        "faces[0]: {'tens': 10, 'units': 1} is not a whole number"
    ]


@pytest.mark.parametrize(
    ("face", "shown"),
    [(True, "true"), (False, "false"), (3.0, "3.0"), ("5", "'5'"), (None, "None")],
)
def test_reported_face_must_be_a_whole_number_and_not_a_boolean(face: object, shown: str) -> None:
    assert faces_errors([6], [face]) == [f"faces[0]: {shown} is not a whole number"]


@pytest.mark.parametrize(
    ("faces", "message"),
    [
        ([3], "expected 3 faces, one per die in draw order (d20, d20, d4), got 1"),
        ([3, 4, 1, 2], "expected 3 faces, one per die in draw order (d20, d20, d4), got 4"),
        ([], "expected 3 faces, one per die in draw order (d20, d20, d4), got 0"),
    ],
)
def test_reported_faces_wrong_count_names_the_count_expected(
    faces: list[int], message: str
) -> None:
    assert faces_errors([20, 20, 4], faces) == [message]


@pytest.mark.parametrize("faces", ["17", b"\x11", {"0": 17}, 17, None])
def test_reported_faces_must_be_a_list(faces: object) -> None:
    assert faces_errors([20], faces) == ["give a list of faces, one per die in draw order"]


# --- dice sources ---------------------------------------------------------------------------


def roll_with(source: DiceSource, notation: str) -> int:
    """What a caller does: draw through the protocol, then evaluate."""
    expression = parse(notation)
    return evaluate(expression, source.draw(expression.sides).faces).total


def test_scripted_dice_hand_out_faces_in_order_with_a_fake_proof() -> None:
    dice = ScriptedDice([4, 17, 2])
    first = dice.draw([20])
    second = dice.draw([20, 4])
    assert (first.faces, second.faces) == ([4], [17, 2])
    assert first.source == "server"
    assert first.proof == {"commitment": "scripted", "client_seed": "scripted", "nonce": 0}
    assert second.proof == {"commitment": "scripted", "client_seed": "scripted", "nonce": 1}
    assert dice.remaining == 0


def test_scripted_reported_dice_have_no_proof() -> None:
    draw = ScriptedDice([3], source="reported").draw([6])
    assert (draw.faces, draw.source, draw.proof) == ([3], "reported", None)


def test_scripted_dice_refuse_a_face_that_does_not_fit_and_use_nothing() -> None:
    dice = ScriptedDice([5, 7])
    with pytest.raises(ValueError, match=r"scripted face 7 \(die 1 of this roll\) is not 1\.\.6"):
        dice.draw([6, 6])
    assert dice.remaining == 2
    with pytest.raises(ValueError, match=r"is not 1\.\.4"):
        ScriptedDice([0]).draw([4])


def test_scripted_dice_say_when_the_script_runs_out() -> None:
    dice = ScriptedDice([5])
    with pytest.raises(ValueError, match=r"ran out: this roll needs 2 faces \(d20, d4\), 1 left"):
        dice.draw([20, 4])


def test_scripted_dice_source_is_server_or_reported() -> None:
    with pytest.raises(ValueError, match="source"):
        ScriptedDice([1], source="manual")


def test_scripted_and_server_dice_are_dice_sources() -> None:
    assert roll_with(ScriptedDice([4, 6]), "2d6+1") == 11
    server = ServerDice(SEED, "client", 0)
    assert 2 <= roll_with(server, "2d6") <= 12


def test_server_dice_draw_uses_the_nonce_then_moves_it_on() -> None:
    dice = ServerDice(SEED, "table-7", 41)
    assert dice.nonce == 41
    draw = dice.draw([20, 20, 4])
    assert dice.nonce == 42
    assert draw.source == "server"
    assert draw.proof == {"commitment": commitment_of(SEED), "client_seed": "table-7", "nonce": 41}
    assert draw.faces == derive_faces(SEED, "table-7", 41, [20, 20, 4])
    assert dice.draw([20, 20, 4]).faces == derive_faces(SEED, "table-7", 42, [20, 20, 4])


def test_server_dice_refuse_an_empty_roll_without_using_a_nonce() -> None:
    dice = ServerDice(SEED, "c", 3)
    with pytest.raises(ValueError, match="at least one die"):
        dice.draw([])
    assert dice.nonce == 3


def test_server_dice_never_show_the_seed() -> None:
    seed = new_server_seed()
    dice = ServerDice(seed, "client", 0)
    dice.draw([20])
    assert seed not in repr(dice)
    assert seed not in str(dice)
    assert dice.commitment in repr(dice)


def test_seeds_and_commitment_have_their_documented_shape() -> None:
    seed = new_server_seed()
    assert re.fullmatch(r"[0-9a-f]{64}", seed)
    assert re.fullmatch(r"[0-9a-f]{16}", new_client_seed())
    assert new_server_seed() != seed
    assert commitment_of(seed) == hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    assert commitment_of("00" * 32) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


@pytest.mark.parametrize("seed", ["3F" * 32, "3f" * 31, "3f" * 33, "zz" * 32, " 3f" * 32])
def test_a_seed_is_exactly_64_lowercase_hex_digits(seed: str) -> None:
    with pytest.raises(ValueError, match="64 lowercase hex"):
        commitment_of(seed)
    with pytest.raises(ValueError, match="64 lowercase hex"):
        ServerDice(seed, "c", 0)


@pytest.mark.parametrize("nonce", [-1, True, 1.0])
def test_a_nonce_is_a_whole_number_from_zero(nonce: Any) -> None:
    with pytest.raises(ValueError, match="nonce"):
        ServerDice(SEED, "c", nonce)
    with pytest.raises(ValueError, match="nonce"):
        derive_faces(SEED, "c", nonce, [6])


@pytest.mark.parametrize("client_seed", ["\ud800", None])
def test_a_client_seed_is_text_that_utf8_can_encode(client_seed: Any) -> None:
    with pytest.raises(ValueError, match="client seed"):
        ServerDice(SEED, client_seed, 0)


@pytest.mark.parametrize("sides", [[0], [-6], [2**32 + 1], [True], [6.0]])
def test_derive_faces_refuses_impossible_dice(sides: list[Any]) -> None:
    with pytest.raises(ValueError, match="sides"):
        derive_faces(SEED, "c", 0, sides)


def test_verify_faces_accepts_a_true_roll_and_nothing_else() -> None:
    dice = ServerDice(SEED, "c", 9)
    draw = dice.draw([20, 4])
    assert draw.proof is not None
    assert verify_faces(SEED, draw.proof, [20, 4], draw.faces)
    altered = [draw.faces[0] % 20 + 1, draw.faces[1]]
    assert not verify_faces(SEED, draw.proof, [20, 4], altered)
    assert not verify_faces("4e" * 32, draw.proof, [20, 4], draw.faces)
    assert not verify_faces(SEED, {**draw.proof, "nonce": 10}, [20, 4], draw.faces)
    assert not verify_faces(SEED, {"commitment": draw.proof["commitment"]}, [20, 4], draw.faces)


# --- properties -----------------------------------------------------------------------------


@st.composite
def valid_notations(draw: st.DrawFn) -> tuple[str, list[int], int, int]:
    """Valid notation with random spacing and case, its dice sides and its lowest/highest total."""
    sides: list[int] = []
    low = high = 0
    text = ""
    n_terms = draw(st.integers(1, 5))
    dice_at = draw(st.integers(0, n_terms - 1))  # at least one dice term
    for index in range(n_terms):
        negative = draw(st.booleans()) if index else draw(st.sampled_from([False, False, True]))
        if index or negative:
            text += draw(st.sampled_from(["", " ", "  "])) + ("-" if negative else "+")
            text += draw(st.sampled_from(["", " "]))
        sign = -1 if negative else 1
        if index == dice_at or draw(st.booleans()):
            count = draw(st.integers(1, 12))
            n = draw(st.sampled_from(ALLOWED_SIDES))
            kept = count
            text += draw(st.sampled_from(["", str(count)])) if count == 1 else str(count)
            text += draw(st.sampled_from("dD")) + str(n)
            if draw(st.booleans()):
                kept = draw(st.integers(1, count))
                text += draw(st.sampled_from(["kh", "kl", "KH", "Kl"])) + str(kept)
            sides += [n] * count
            term_low, term_high = sign * kept, sign * kept * n
        else:
            number = draw(st.integers(0, 200))
            text += str(number)
            term_low = term_high = sign * number
        low += min(term_low, term_high)
        high += max(term_low, term_high)
    return text, sides, low, high


@settings(max_examples=400)
@given(valid_notations(), st.data())
def test_property_valid_notation_parses_and_totals_stay_in_range(
    case: tuple[str, list[int], int, int], data: st.DataObject
) -> None:
    text, sides, low, high = case
    expression = parse(text)
    assert expression.sides == sides
    assert parse(expression.notation) == expression
    faces = [data.draw(st.integers(1, n)) for n in sides]
    outcome = evaluate(expression, faces)
    assert low <= outcome.total <= high
    assert [die["sides"] for die in outcome.dice] == sides


notation_like = st.text(alphabet="0123456789dDkKhHlL+-  \t%x.", max_size=40)


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=60), notation_like, st.text(min_size=195, max_size=260)))
def test_property_any_text_parses_or_is_refused_cleanly(text: str) -> None:
    try:
        expression = parse(text)
    except InvalidInput as refused:
        assert refused.errors["dice"]
        return
    assert isinstance(expression, DiceExpression)
    assert 1 <= len(expression.sides) <= MAX_DICE
    assert abs(expression.modifier) <= MAX_MODIFIER


@settings(max_examples=400)
@given(
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    client_seed=st.text(max_size=40),
    nonce=st.integers(0, 2**64),
    sides=st.lists(st.sampled_from(ALLOWED_SIDES) | st.integers(1, 2**32), min_size=1, max_size=30),
)
def test_property_every_derived_face_is_in_range(
    seed: str, client_seed: str, nonce: int, sides: list[int]
) -> None:
    faces = derive_faces(seed, client_seed, nonce, sides)
    assert len(faces) == len(sides)
    assert all(1 <= face <= n for face, n in zip(faces, sides, strict=True))


# Critical values of the chi-square distribution at p = 0.001 (upper tail), from standard tables:
# a fair die gives a larger statistic in one run out of a thousand.
CHI2_CRITICAL_P001 = {5: 20.515, 9: 27.877, 19: 43.820, 99: 148.230}


@pytest.mark.parametrize(
    ("sides", "rolls"), [(6, 20_000), (10, 20_000), (20, 20_000), (100, 50_000)]
)
def test_derived_faces_do_not_reject_uniformity(sides: int, rolls: int) -> None:
    per_roll = 100
    seed = hashlib.sha256(b"questlog chi-square").hexdigest()
    counts: Counter[int] = Counter()
    for nonce in range(rolls // per_roll):
        counts.update(derive_faces(seed, "uniformity", nonce, [sides] * per_roll))
    assert set(counts) == set(range(1, sides + 1))
    expected = rolls / sides
    statistic = sum((counts[face] - expected) ** 2 / expected for face in range(1, sides + 1))
    assert statistic < CHI2_CRITICAL_P001[sides - 1]


@pytest.mark.parametrize("notation", ["d%", "1d%", "2d%kh1+3"])
def test_g_qc02_d_percent_is_the_d100(notation: str) -> None:
    expression = parse(notation)
    assert set(expression.sides) == {100}
