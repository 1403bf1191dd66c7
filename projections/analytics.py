"""The statistics of dice fairness, with the standard library only.

- The chi-square distribution: its survival function (the p-value of a statistic) through the
  regularized upper incomplete gamma function, by its series or its continued fraction.
- Pearson's goodness-of-fit test, with neighbouring cells pooled until each expects at least 5,
  and independent tests combined (their statistics and degrees of freedom add up).
- The exact distribution of a kept die: for ``NdSkhK`` the mean distribution of the K highest
  order statistics of N fair dice (``kl``: lowest), in fractions, not a uniform one.

``projections.fairness`` applies them to the roll log.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

MIN_EXPECTED = 5.0
"""The smallest expected count of a chi-square cell; smaller cells are pooled."""
_EPSILON = 1e-300
_TOLERANCE = 1e-15
_MAX_ITERATIONS = 10_000

# -- the chi-square distribution ------------------------------------------------------------------


def regularized_gamma_p(a: float, x: float) -> float:
    """P(a, x), the regularized lower incomplete gamma function."""
    return 1.0 - regularized_gamma_q(a, x)


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the regularized upper incomplete gamma function.

    The series of P for ``x < a + 1`` and Lentz's continued fraction of Q otherwise, each where
    it converges fast (Numerical Recipes, 6.2).
    """
    if a <= 0:
        raise ValueError("a must be positive")
    if x < 0:
        raise ValueError("x must not be negative")
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        return 1.0 - _lower_series(a, x, log_prefix)
    return _upper_fraction(a, x, log_prefix)


def _lower_series(a: float, x: float, log_prefix: float) -> float:
    term = total = 1.0 / a
    denominator = a
    for _ in range(_MAX_ITERATIONS):
        denominator += 1
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _TOLERANCE:
            break
    return min(1.0, total * math.exp(log_prefix))


def _upper_fraction(a: float, x: float, log_prefix: float) -> float:
    b = x + 1 - a
    c = 1 / _EPSILON
    d = 1 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _EPSILON if abs(d) < _EPSILON else d
        c = b + an / c
        c = _EPSILON if abs(c) < _EPSILON else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _TOLERANCE:
            break
    return max(0.0, min(1.0, math.exp(log_prefix) * h))


def chi_square_sf(statistic: float, df: int) -> float:
    """The chi-square survival function: P(X >= statistic) for ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("a chi-square needs at least one degree of freedom")
    if statistic <= 0:
        return 1.0
    return regularized_gamma_q(df / 2, statistic / 2)


@dataclass(frozen=True)
class ChiSquare:
    """A goodness-of-fit test: the statistic, its degrees of freedom, p-value and cells used."""

    statistic: float
    df: int
    p_value: float
    cells: int

    def as_dict(self) -> dict[str, Any]:
        """The test as plain data."""
        return {
            "chi_square": round(self.statistic, 6),
            "df": self.df,
            "p_value": self.p_value,
            "cells": self.cells,
        }


def pool(
    observed: Sequence[float], expected: Sequence[float], minimum: float = MIN_EXPECTED
) -> tuple[list[float], list[float]]:
    """Merge neighbouring cells (in face order) until each expects at least ``minimum``."""
    pooled_o: list[float] = []
    pooled_e: list[float] = []
    o_sum = e_sum = 0.0
    for o, e in zip(observed, expected, strict=True):
        o_sum += o
        e_sum += e
        if e_sum >= minimum:
            pooled_o.append(o_sum)
            pooled_e.append(e_sum)
            o_sum = e_sum = 0.0
    if e_sum > 0 or o_sum > 0:
        if pooled_e:
            pooled_o[-1] += o_sum
            pooled_e[-1] += e_sum
        else:
            pooled_o.append(o_sum)
            pooled_e.append(e_sum)
    return pooled_o, pooled_e


def chi_square_test(
    observed: Sequence[float], expected: Sequence[float], minimum: float = MIN_EXPECTED
) -> ChiSquare | None:
    """Pearson's test of counts against expected counts (pooled); None with under two cells."""
    cells_o, cells_e = pool(observed, expected, minimum)
    if len(cells_o) < 2:
        return None
    statistic = sum((o - e) ** 2 / e for o, e in zip(cells_o, cells_e, strict=True) if e > 0)
    df = len(cells_o) - 1
    return ChiSquare(statistic, df, chi_square_sf(statistic, df), len(cells_o))


def combine(tests: Iterable[ChiSquare | None]) -> ChiSquare | None:
    """Independent tests as one: the statistics and the degrees of freedom add up."""
    found = [t for t in tests if t is not None]
    if not found:
        return None
    statistic = sum(t.statistic for t in found)
    df = sum(t.df for t in found)
    return ChiSquare(statistic, df, chi_square_sf(statistic, df), sum(t.cells for t in found))


# -- exact distributions of dice ------------------------------------------------------------------


def _rank_at_most(count: int, sides: int, rank: int, face: int) -> Fraction:
    """P(the ``rank``-th highest of ``count`` fair dice shows at most ``face``)."""
    below = Fraction(face, sides)
    above = 1 - below
    # At most rank - 1 dice show more than ``face``.
    return sum(
        (math.comb(count, i) * above**i * below ** (count - i) for i in range(rank)),
        Fraction(0),
    )


@lru_cache(maxsize=256)
def kept_distribution(
    count: int, sides: int, keep: str | None = None, keep_count: int | None = None
) -> tuple[Fraction, ...]:
    """The exact distribution of one kept die of ``count``d``sides`` (index 0 is face 1).

    A term without keep gives the uniform distribution. With ``kh``/``kl`` and ``k`` kept dice, it
    is the mean of the distributions of the ``k`` highest (lowest) order statistics: the face of a
    kept die picked at random. For ``2d20kh1`` that is ``P(m) = (2m - 1) / 400``.
    """
    if keep is None or keep_count is None or keep_count >= count:
        return tuple(Fraction(1, sides) for _ in range(sides))
    if keep not in ("kh", "kl"):
        raise ValueError(f"keep is 'kh' or 'kl', not {keep!r}")
    totals = [Fraction(0)] * sides
    for rank in range(1, keep_count + 1):
        previous = Fraction(0)
        for face in range(1, sides + 1):
            at_most = _rank_at_most(count, sides, rank, face)
            totals[face - 1] += at_most - previous
            previous = at_most
    distribution = [p / keep_count for p in totals]
    if keep == "kl":
        distribution.reverse()
    return tuple(distribution)
