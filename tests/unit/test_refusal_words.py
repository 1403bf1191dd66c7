"""Refusals read in plain words after their rule id, never a code word such as
``insufficientCredits:``."""

from __future__ import annotations

import re
from pathlib import Path

import domain

CODE_WORD_REFUSAL = re.compile(r"\"[A-Z]+-\d+\",\s*f?\"[a-z]+[A-Z][A-Za-z]*:")


def test_no_refusal_message_of_the_domain_starts_with_a_camel_case_code_word() -> None:
    root = Path(domain.__file__).parent
    found = [
        f"{path.relative_to(root)}: {match.group(0)}"
        for path in sorted(root.rglob("*.py"))
        for match in CODE_WORD_REFUSAL.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found


def test_the_check_finds_a_code_word() -> None:
    assert CODE_WORD_REFUSAL.search('ctx.refuse("QC-62", f"insufficientCredits: x")')
