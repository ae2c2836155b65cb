"""Stopping a run when the answer is clear: an always-valid comparison of two strategies.

A run that looks at its results after every chunk and stops when "A beats B" looks significant
would, with a fixed-sample test, be wrong far more often than its stated level. A confidence
sequence holds its level at every sample size at once (Robbins' normal mixture; Howard, Ramdas,
McAuliffe and Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence sequences", 2021), so
the run may stop the first time the sequence leaves out zero.

The data: for each deal where both strategies sat, the mean of win(A) - win(B) over its games, a
number in [-1, 1]; deals are independent, and a variable in [-1, 1] is 1-sub-Gaussian.
"""

from __future__ import annotations

import math

import numpy as np


def mixture_radius(n: int, alpha: float, rho: float, sigma: float = 1.0) -> float:
    """Two-sided normal-mixture boundary for the mean of n sigma-sub-Gaussian increments:
    P(some n has |mean - mu| >= radius(n)) <= alpha. ``rho`` tunes where it is tightest
    (about rho / sigma**2 observations)."""
    v = n * sigma * sigma
    return math.sqrt((v + rho) * math.log((v + rho) / (rho * (alpha / 2) ** 2))) / n


def tuned_rho(budget: int) -> float:
    """The mixture's rho for a run of up to ``budget`` deals: tightest around a tenth of it."""
    return max(100.0, budget / 10.0)


def compare(d: np.ndarray, alpha: float, rho: float) -> tuple[str | None, float, float]:
    """Decision on the mean of ``d``: "A" (above zero), "B" (below) or None, with the mean and
    the radius of the sequence at this sample size."""
    n = len(d)
    if n == 0:
        return None, 0.0, math.inf
    mean = float(np.mean(d))
    r = mixture_radius(n, alpha, rho)
    if mean - r > 0:
        return "A", mean, r
    if mean + r < 0:
        return "B", mean, r
    return None, mean, r
