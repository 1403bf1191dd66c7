"""The generated reference tables in the game docs and the rule index match the code (no drift),
and the repository stands alone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from domain.model.house_rules import GAMES, book
from domain.model.rule_index import SETTLED_IN_CODE, STATEMENTS
from tests.api import refusal_causes
from webapi.doctools import reference

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(
    ("game", "doc"),
    [("quest-calendar", "quest-calendar.md"), ("calendar-board", "calendar-board.md")],
)
def test_generated_tables_are_up_to_date(game: str, doc: str) -> None:
    path = DOCS / doc
    if not path.exists():
        pytest.fail(f"docs/{doc} is missing")
    text = path.read_text()
    for begin in (reference.COMMANDS_BEGIN, reference.RULES_BEGIN):
        assert begin in text
    assert text == reference.update(game, text), (
        f"run: questlog reference {game} --write docs/{doc}"
    )


def test_events_doc_lists_every_game_event_type() -> None:
    text = (DOCS / "events.md").read_text()
    expected = reference.splice(
        text, reference.EVENTS_BEGIN, reference.EVENTS_END, reference.game_events_markdown()
    )
    expected = reference.splice(
        expected,
        reference.CAMPAIGN_EVENTS_BEGIN,
        reference.CAMPAIGN_EVENTS_END,
        reference.campaign_events_markdown(),
    )
    assert reference.CAMPAIGN_EVENTS_BEGIN in text
    assert text == expected, "run: questlog reference quest-calendar --write docs/events.md"


# -- the rule index (docs/rules.md) -------------------------------------------------------------

ROOT = DOCS.parent
# Put together so that this file does not contain what it looks for.
OUTSIDE = tuple(
    "/".join(parts)
    for parts in (("..", "shared"), ("shared", "rules.md"), ("shared", "seeds"), ("work", "shared"))
)


def test_rule_index_is_up_to_date() -> None:
    path = DOCS / "rules.md"
    assert path.exists(), "run: questlog reference rules --write docs/rules.md"
    assert path.read_text() == reference.rules_markdown(), (
        "run: questlog reference rules --write docs/rules.md"
    )


def test_every_rule_id_named_in_the_code_and_tests_has_a_statement() -> None:
    unknown = sorted(set(reference.rule_mentions()) - set(STATEMENTS))
    assert not unknown, f"give these a statement in domain/model/rule_index/: {unknown}"


def test_every_rule_is_named_by_a_test_and_every_gap_by_a_test_or_a_house_rule() -> None:
    mentions = reference.rule_mentions()
    unproven = [
        rule
        for rule in STATEMENTS
        if not reference.tested_in(mentions.get(rule, []))
        and not (rule.startswith("G-") and reference.house_rules_for(rule))
    ]
    assert not unproven, f"no test names (and no house rule settles): {unproven}"


def test_every_gap_is_settled_by_house_rules_or_else_in_code() -> None:
    gaps = [rule for rule in STATEMENTS if rule.startswith("G-")]
    both_or_neither = [
        gap for gap in gaps if bool(reference.house_rules_for(gap)) == (gap in SETTLED_IN_CODE)
    ]
    assert not both_or_neither
    assert set(SETTLED_IN_CODE) <= set(gaps)
    for game in GAMES:
        for key, rule in book(game).rules.items():
            assert rule.gap is None or rule.gap in STATEMENTS, key


def test_statements_are_single_lines_under_ids_the_scanner_reads() -> None:
    for rule, statement in STATEMENTS.items():
        assert reference.rule_ids(rule) == {rule}
        assert statement == statement.strip() and "\n" not in statement, rule
        assert statement.endswith((".", "?")), rule
    for rule in STATEMENTS:
        game, number = rule.rsplit("-", 1)
        assert 1 <= int(number) <= len([r for r in STATEMENTS if r.rsplit("-", 1)[0] == game])


def test_rule_ids_reads_ids_ranges_and_test_names() -> None:
    # The samples are spelled with placeholders so that this file names no rule itself.
    def spelled(text: str) -> str:
        return text.format(Q="QC", C="CB", q="qc", c="cb")

    text = spelled(
        "{Q}-69..{Q}-71, G-{C}-16…G-{C}-17, G-{Q}-13 XG-{Q}-11 {Q}-100 {Q}-05..{C}-07\n"
        "def test_{q}60_g_{q}25_aim(): test_{c}08_with_the_g_{c}_09_spaces"
    )
    expected = (
        "{Q}-69 {Q}-70 {Q}-71 G-{C}-16 G-{C}-17 G-{Q}-13 {Q}-05 {C}-07 "
        "{Q}-60 G-{Q}-25 {C}-08 G-{C}-09"
    )
    assert reference.rule_ids(text) == set(spelled(expected).split())


def test_no_file_points_outside_the_repository() -> None:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    offenders = []
    for name in filter(None, listed.decode().split("\0")):
        path = ROOT / name
        if path.is_file():
            content = path.read_bytes()
            offenders += [f"{name}: {bad}" for bad in OUTSIDE if bad.encode() in content]
    assert not offenders, "the repository must stand alone: " + "; ".join(offenders)


def test_the_refusal_causes_table_is_the_list_the_tests_read() -> None:
    """docs/api-clients.md shows what the document says only in words as
    tests/api/refusal_causes.py lists it (``python -m tests.api.refusal_causes`` prints it)."""
    text = (DOCS / "api-clients.md").read_text(encoding="utf-8")
    start = text.index(refusal_causes.TABLE_START)
    end = text.index(refusal_causes.TABLE_END) + len(refusal_causes.TABLE_END)
    assert text[start:end] == refusal_causes.docs_table()
