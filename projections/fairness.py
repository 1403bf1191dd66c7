"""Dice fairness: face counts per die type and source, tested against their exact distributions.

Every kept die of the roll log is counted, by die type (sides) and source (and campaign, if
asked), and compared with what fair dice give: a die of a term without keep (``d20``, ``3d6``) is
uniform; the kept die of a term such as ``2d20kh1`` follows the distribution of the highest (or
lowest) of its dice, worked out exactly (``projections.analytics.kept_distribution``). Each kind
of term is one group with its own chi-square; the groups are independent, so their statistics and
degrees of freedom add up to the test of the die type, and the die types add up to the test of a
source. With ``k > 1`` kept dice per roll (``4d6kh3``) the kept dice of one roll are not
independent, so that group's test is approximate; single kept dice and plain dice are exact.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from domain.facade import DiceExpression, InvalidInput
from domain.facade import parse_dice as parse
from projections.analytics import ChiSquare, chi_square_test, combine, kept_distribution
from projections.filters import Filter
from projections.store import ViewStore
from projections.views.roll_log import RollLog

ALPHA = 0.001
"""Below this p-value, dice are flagged as unlikely to be fair."""
SAMPLES_PER_FACE = 5
"""A die type is only flagged with at least this many kept dice per face."""


@dataclass(frozen=True)
class Term:
    """One dice term of a notation as the statistics group it: its slice of the dice, its rule."""

    start: int
    count: int
    sides: int
    keep: str | None
    keep_count: int | None

    @property
    def rule(self) -> str:
        """The group: ``d20`` for plain dice (every one uniform), else ``2d20kh1``."""
        if self.keep is None or self.keep_count is None or self.keep_count >= self.count:
            return f"d{self.sides}"
        return f"{self.count}d{self.sides}{self.keep}{self.keep_count}"

    @property
    def kept(self) -> int:
        """How many of the term's dice are kept."""
        return self.count if self.keep_count is None else min(self.keep_count, self.count)

    @property
    def distribution(self) -> tuple[Fraction, ...]:
        """The exact distribution of one kept die of this term."""
        return kept_distribution(self.count, self.sides, self.keep, self.keep_count)


@lru_cache(maxsize=4096)
def terms_of(notation: str) -> tuple[Term, ...] | None:
    """The terms of a recorded notation, or None if it does not parse."""
    try:
        expression: DiceExpression = parse(notation)
    except InvalidInput:
        return None
    found, start = [], 0
    for term in expression.terms:
        found.append(Term(start, term.count, term.sides, term.keep, term.keep_count))
        start += term.count
    return tuple(found)


# -- counting the roll log ------------------------------------------------------------------------


@dataclass
class Group:
    """The kept dice of one rule (``d20``, ``2d20kh1``) of one die type and source.

    ``kept`` counts the kept dice the group's rolls held, whatever notation rolled them: 90
    rolls of ``1d6`` and 45 of ``2d6`` are 180 kept dice of the rule ``d6``. The expected counts
    follow from the dice, never from the rolls.
    """

    rule: str
    sides: int
    distribution: tuple[Fraction, ...]
    rolls: int = 0
    kept: int = 0
    counts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.counts = [0] * self.sides

    @property
    def expected(self) -> list[float]:
        """Expected counts of each face for this many kept dice of fair dice."""
        return [float(p * self.kept) for p in self.distribution]

    def test(self) -> ChiSquare | None:
        """This group's chi-square against its exact distribution."""
        return chi_square_test(self.counts, self.expected)


def dice_fairness(
    store: ViewStore,
    rows: Filter | None = None,
    *,
    source: str | None = None,
    purpose: str | None = None,
    by_campaign: bool = False,
    alpha: float = ALPHA,
) -> dict[str, Any]:
    """Face counts and chi-square tests per die type and source (and campaign, if asked).

    ``rows`` picks the rolls (``projections.filters``: campaign, game, house rule, the game's
    dates, recording time; undone rolls are left out unless it includes them), ``source`` and
    ``purpose`` narrow further. Reads the roll log grouped by identical rolls, so the work grows
    with the kinds of rolls, not their number.
    """
    where, params = (rows or Filter()).where(
        game_column="game", date_column="page_date", night_column="night"
    )
    for column, value in (("source", source), ("purpose", purpose)):
        if value is not None:
            where += f" AND {column} = ?"
            params.append(value)
    keys = "campaign_id, source" if by_campaign else "source"
    statement = (
        f"SELECT {keys}, notation, dice, COUNT(*) AS rolls FROM {{rolls}} WHERE {where} "
        f"GROUP BY {keys}, notation, dice"
    )
    with store.read() as cursor:
        found_rows = store.rows(cursor, statement, params)
        found = store.rows(
            cursor, "SELECT position FROM {positions} WHERE view = ?", [RollLog.name]
        )
    groups: dict[tuple[str | None, str, int], dict[str, Group]] = {}
    skipped = 0
    for row in found_rows:
        owner = str(row["campaign_id"]) if by_campaign else None
        if not _count(groups, owner, str(row["source"]), row, int(row["rolls"])):
            skipped += int(row["rolls"])
    entries = [
        _entry(owner, source_name, sides, rules, alpha)
        for (owner, source_name, sides), rules in sorted(
            groups.items(), key=lambda item: (item[0][0] or "", item[0][1], item[0][2])
        )
    ]
    return {
        "dice": [entry for entry, _ in entries],
        "sources": _summaries(entries, alpha),
        "alpha": alpha,
        "skipped_rolls": skipped,
        "position": int(found[0]["position"]) if found else 0,
    }


def _count(
    groups: dict[tuple[str | None, str, int], dict[str, Group]],
    owner: str | None,
    source: str,
    row: dict[str, Any],
    rolls: int,
) -> bool:
    """Add identical rolls to their groups; False if the record cannot be read."""
    terms = terms_of(str(row["notation"])) if row["notation"] else None
    dice = json.loads(row["dice"])
    if terms is None or sum(t.count for t in terms) != len(dice):
        return False
    for term in terms:
        rules = groups.setdefault((owner, source, term.sides), {})
        group = rules.get(term.rule)
        if group is None:
            group = rules[term.rule] = Group(term.rule, term.sides, term.distribution)
        group.rolls += rolls
        group.kept += rolls * term.kept
        for die in dice[term.start : term.start + term.count]:
            face = die.get("face")
            if die.get("kept", True) and isinstance(face, int) and 1 <= face <= term.sides:
                group.counts[face - 1] += rolls
    return True


def _faces(values: Sequence[float], digits: int | None = None) -> dict[str, Any]:
    return {
        str(face): (value if digits is None else round(value, digits))
        for face, value in enumerate(values, start=1)
    }


def _test_dict(test: ChiSquare | None) -> dict[str, Any] | None:
    return None if test is None else test.as_dict()


def _entry(
    owner: str | None, source: str, sides: int, rules: dict[str, Group], alpha: float
) -> tuple[dict[str, Any], ChiSquare | None]:
    """One die type of one source: counts, expected counts, the groups and the combined test.

    Returns the entry and its test, or None for the test when there are too few dice to flag.
    """
    ordered = sorted(rules.values(), key=lambda g: (g.rule != f"d{sides}", g.rule))
    counts = [sum(g.counts[i] for g in ordered) for i in range(sides)]
    expected = [sum(g.expected[i] for g in ordered) for i in range(sides)]
    tests = [g.test() for g in ordered]
    test = combine(tests)
    kept = sum(counts)
    enough = kept >= SAMPLES_PER_FACE * sides
    entry: dict[str, Any] = {"sides": sides, "source": source}
    if owner is not None:
        entry["campaign_id"] = owner
    entry.update(
        dice=kept,
        rolls=sum(g.rolls for g in ordered),
        faces=_faces(counts),
        expected=_faces(expected, 3),
        test=_test_dict(test),
        enough_samples=enough,
        unlikely_fair=bool(test is not None and enough and test.p_value < alpha),
        groups=[
            {
                "rule": g.rule,
                "rolls": g.rolls,
                "dice": sum(g.counts),
                "faces": _faces(g.counts),
                "expected": _faces(g.expected, 3),
                "distribution": [str(p) for p in g.distribution],
                "test": _test_dict(t),
            }
            for g, t in zip(ordered, tests, strict=True)
        ],
    )
    return entry, (test if enough else None)


def _summaries(
    entries: list[tuple[dict[str, Any], ChiSquare | None]], alpha: float
) -> list[dict[str, Any]]:
    """Each source (of each campaign, if grouped so): its die types' tests combined.

    A source is flagged when its die types together, or any one of them, are unlikely fair.
    """
    by_key: dict[tuple[str | None, str], list[tuple[dict[str, Any], ChiSquare | None]]] = {}
    for entry, test in entries:
        by_key.setdefault((entry.get("campaign_id"), entry["source"]), []).append((entry, test))
    summaries = []
    for (owner, source), found in by_key.items():
        test = combine(t for _, t in found)
        flagged = [e["sides"] for e, _ in found if e["unlikely_fair"]]
        summary: dict[str, Any] = {"source": source}
        if owner is not None:
            summary["campaign_id"] = owner
        summary.update(
            dice=sum(e["dice"] for e, _ in found),
            die_types=[e["sides"] for e, _ in found],
            test=_test_dict(test),
            unlikely_fair=bool(flagged) or bool(test is not None and test.p_value < alpha),
            flagged_die_types=flagged,
        )
        summaries.append(summary)
    return summaries
