"""Numbers as a designer reads them: percentages, points, p-values, and the seat verdict."""

from __future__ import annotations

import math


def pct(x: float, digits: int = 1) -> str:
    """0.3691 -> '36.9%'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.{digits}f}%"


def pm(lo: float, hi: float) -> str:
    """Half the width of an interval in percentage points: '± 0.7%'."""
    half = 100 * (hi - lo) / 2
    return f"± {half:.{2 if half < 0.1 else 1}f}%"


def points(x: float, digits: int = 1) -> str:
    """A difference of two shares in percentage points: 0.036 -> '3.6'."""
    return f"{abs(100 * x):.{digits}f}"


def signed(x: float, digits: int = 0) -> str:
    """With its sign and a real minus: -40.2 -> '−40'."""
    return f"{x:+,.{digits}f}".replace("-", "\u2212")


def signed_points(x: float) -> str:
    """A share difference in percentage points with its sign: 0.036 -> '+3.6'."""
    return signed(100 * x, 1)


def pvalue(p: float) -> str:
    """'p = 0.042', 'p = 3.1e-07', 'p < 1e-300'."""
    if p is None or math.isnan(p):
        return "p = –"
    if p == 0:
        return "p < 1e-300"
    if p >= 0.001:
        return f"p = {p:.3f}"
    return f"p = {p:.1e}"


def number(x: float, digits: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


def first_seat_verdict(rate: float, lo: float, hi: float, fair: float) -> str:
    """The first seat's edge in words, judged by whether its 95% interval contains the fair share."""
    head = f"the first seat wins {pct(rate)} {pm(lo, hi)} against a fair {pct(fair)}"
    if lo > fair:
        return f"{head}: a real edge of {points(rate - fair)} points"
    if hi < fair:
        return f"{head}: a real disadvantage of {points(rate - fair)} points"
    return (f"{head}: no detectable edge at this sample size; the interval is "
            f"{pct(lo)} to {pct(hi)}, which contains the fair share")


def seat_test_sentence(test: str, statistic: float, df: int, p: float) -> str:
    """The test of all seats together, in words."""
    if test == "binomial":
        what = "a two-sided binomial test of the decisive games (ties for first left out)"
    else:
        what = f"a chi-square test of the win shares per seat (χ² = {statistic:.1f} on {df} df)"
    verdict = ("the seats are not equally placed to win" if p < 0.05
               else "no evidence that the seats differ")
    return f"Against equal seats, {what}: {pvalue(p)}, {verdict}."
