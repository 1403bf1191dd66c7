"""The script of docs/dice-verification.md: short, standard library only, and it works."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from domain.model.dice.draw import ServerDice, commitment_of
from domain.model.dice.notation import evaluate, parse

DOC = Path(__file__).resolve().parents[2] / "docs" / "dice-verification.md"
SEED = "5da6c32850a48d22c78554ebecd7a1eeadbfc77d9c0226fcc78cc0b1f83b20d2"
WORKED_WITH_ENTROPY = [2, 14, 3]  # docs/dice-verification.md, "Worked example"


def doc_script() -> str:
    """The one ```python block of the document."""
    blocks = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert len(blocks) == 1, "the document holds exactly one python block: the script"
    return str(blocks[0])


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The script, saved as a file."""
    path = tmp_path_factory.mktemp("doc") / "verify_roll.py"
    path.write_text(doc_script(), encoding="utf-8")
    return path


def run(script: Path, *args: str, stdin: str | None = None) -> int:
    """Run the script in an isolated interpreter and return its exit status."""
    done = subprocess.run(
        [sys.executable, "-I", str(script), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return done.returncode


def roll_json(notation: str, nonce: int = 3, reveal: bool = True) -> dict[str, object]:
    """A roll as GET /campaigns/{id}/rolls/{roll_id} shows it, from a real ServerDice draw."""
    expression = parse(notation)
    dice = ServerDice(SEED, "table:7", nonce)
    draw = dice.draw(expression.sides)
    outcome = evaluate(expression, draw.faces)
    assert draw.proof is not None
    proof = {**draw.proof, "server_seed": SEED} if reveal else dict(draw.proof)
    return {"roll_id": "r1", "dice": outcome.dice, "total": outcome.total, "proof": proof}


def test_script_is_at_most_40_lines() -> None:
    assert len(doc_script().splitlines()) <= 40


def test_script_uses_the_standard_library_only() -> None:
    tree = ast.parse(doc_script())
    imported = {
        alias.name.split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import)
        for alias in n.names
    }
    imported |= {
        n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
    }
    assert imported
    assert imported <= sys.stdlib_module_names


def test_doc_names_the_reveal_event_and_the_proof_route() -> None:
    text = DOC.read_text(encoding="utf-8")
    for needle in (
        "SeedRotated",
        "revealed_seed",
        "GET /campaigns/{id}/rolls/{roll_id}",
        "proof.server_seed",
        '"commitment"',
        '"client_seed"',
        '"nonce"',
    ):
        assert needle in text


@pytest.mark.parametrize("notation", ["2d20+d4", "d100+5", "10d100", "4d6kh3", "d10-d12"])
def test_script_accepts_a_real_server_roll_given_on_the_command_line(
    script: Path, notation: str
) -> None:
    dice = ServerDice(SEED, "table:7", 12)
    sides = parse(notation).sides
    draw = dice.draw(sides)
    assert draw.proof is not None
    args = [SEED, draw.proof["commitment"], "table:7", "12", ",".join(map(str, sides))]
    assert run(script, *args, ",".join(map(str, draw.faces))) == 0
    altered = [draw.faces[0] % sides[0] + 1, *draw.faces[1:]]
    assert run(script, *args, ",".join(map(str, altered))) == 1


def test_script_refuses_a_seed_that_does_not_match_the_commitment(script: Path) -> None:
    other = "ab" * 32
    faces = ServerDice(other, "c", 0).draw([20]).faces
    assert run(script, other, commitment_of(SEED), "c", "0", "20", str(faces[0])) == 1
    assert run(script, other, commitment_of(other), "c", "0", "20", str(faces[0])) == 0


def test_script_refuses_another_nonce_or_client_seed(script: Path) -> None:
    draw = ServerDice(SEED, "c", 5).draw([20, 20, 20, 20])
    faces = ",".join(map(str, draw.faces))
    commitment = commitment_of(SEED)
    assert run(script, SEED, commitment, "c", "5", "20,20,20,20", faces) == 0
    assert run(script, SEED, commitment, "c", "6", "20,20,20,20", faces) == 1
    assert run(script, SEED, commitment, "d", "5", "20,20,20,20", faces) == 1


def test_script_checks_the_roll_json_of_the_api(script: Path, tmp_path: Path) -> None:
    roll = roll_json("2d20kh1+d4+3")
    path = tmp_path / "roll.json"
    path.write_text(json.dumps(roll), encoding="utf-8")
    assert run(script, str(path)) == 0
    assert run(script, "-", stdin=json.dumps(roll)) == 0
    dice = roll["dice"]
    assert isinstance(dice, list)
    dice[1] = {**dice[1], "face": dice[1]["face"] % 20 + 1}
    path.write_text(json.dumps(roll), encoding="utf-8")
    assert run(script, str(path)) == 1


def test_script_takes_the_seed_as_an_argument_before_the_api_shows_it(
    script: Path, tmp_path: Path
) -> None:
    path = tmp_path / "roll.json"
    path.write_text(json.dumps(roll_json("3d6", reveal=False)), encoding="utf-8")
    assert run(script, str(path), SEED) == 0
    assert run(script, str(path)) == 1  # no seed at all: nothing can be checked
    assert run(script, str(path), "cd" * 32) == 1


def test_worked_example_of_the_doc(script: Path) -> None:
    commitment = "46698f6f4e0767b718db49f3f32658a1c1760a3569136bae3d61410b689f5493"
    assert run(script, SEED, commitment, "table-7", "0", "20,20,4", "2,6,3") == 0
    assert run(script, SEED, commitment, "table-7", "0", "20,20,4", "2,6,4") == 1


def test_script_checks_a_roll_that_carried_the_players_entropy(
    script: Path, tmp_path: Path
) -> None:
    draw = ServerDice(SEED, "table:7", 4, entropy="From-the-player_1").draw([20, 20, 20, 20])
    assert draw.proof is not None and draw.proof["entropy"] == "From-the-player_1"
    faces = ",".join(map(str, draw.faces))
    args = [SEED, commitment_of(SEED), "table:7", "4", "20,20,20,20", faces]
    assert run(script, *args, "From-the-player_1") == 0
    assert run(script, *args, "From-the-player_2") == 1
    assert run(script, *args) == 1  # without the entropy the faces are others
    expression = parse("4d20")
    outcome = evaluate(expression, draw.faces)
    roll = {"dice": outcome.dice, "proof": {**draw.proof, "server_seed": SEED}}
    path = tmp_path / "entropy.json"
    path.write_text(json.dumps(roll), encoding="utf-8")
    assert run(script, str(path)) == 0
    roll["proof"]["entropy"] = "another"
    path.write_text(json.dumps(roll), encoding="utf-8")
    assert run(script, str(path)) == 1


def test_worked_example_with_entropy(script: Path) -> None:
    commitment = "46698f6f4e0767b718db49f3f32658a1c1760a3569136bae3d61410b689f5493"
    faces = ServerDice(SEED, "table-7", 0, entropy="k3V9-qT2x_8bLw0Z").draw([20, 20, 4]).faces
    assert faces == WORKED_WITH_ENTROPY
    worked = ",".join(map(str, faces))
    assert run(script, SEED, commitment, "table-7", "0", "20,20,4", worked, "k3V9-qT2x_8bLw0Z") == 0
    assert f"2d20+d4 gives the faces {', '.join(map(str, faces))}" in DOC.read_text("utf-8")
