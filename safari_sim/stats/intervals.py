"""Confidence intervals for shares, and how many games would make them half as wide.

Shares here are win shares (a tie for first gives each of k winners 1/k), so the number of
"successes" can be fractional. The Wilson score interval is computed from its formula with the
normal quantile from scipy, which accepts fractional counts (scipy's binomtest does not).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.stats import norm

CONFIDENCE = 0.95


def z_value(confidence: float = CONFIDENCE) -> float:
    return float(norm.ppf(0.5 + confidence / 2))


def wilson(successes, n, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (lo, hi) for ``successes`` out of ``n`` (arrays or numbers)."""
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = z_value(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = s / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # at p = 0 or 1 rounding leaves the bound a hair past p (1e-17): the interval must hold p
    return np.minimum(centre - half, p), np.maximum(centre + half, p)


def games_to_halve(rate, n, confidence: float = CONFIDENCE) -> np.ndarray:
    """Sample size at which the Wilson interval at the same observed ``rate`` is half as wide.

    About 4 n: the width falls as one over the square root of the sample. Solved exactly from
    the Wilson half-width h(m) = z / (m + z^2) * sqrt(m p q + z^2 / 4) = H, a quadratic in m.
    """
    p = np.asarray(rate, dtype=float)
    n = np.asarray(n, dtype=float)
    z = z_value(confidence)
    lo, hi = wilson(p * n, n, confidence)
    h = (hi - lo) / 4  # half of the current half-width
    z2 = z * z
    pq = p * (1 - p)
    a = h * h
    b = 2 * a * z2 - z2 * pq
    c = a * z2 * z2 - z2 * z2 / 4
    m = (-b + np.sqrt(b * b - 4 * a * c)) / (2 * a)
    return np.ceil(m).astype(np.int64)


def with_wilson(df: pl.DataFrame, wins: str, n: str, prefix: str = "",
                confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Add ``<prefix>rate``, ``<prefix>lo``, ``<prefix>hi`` and ``<prefix>games_to_halve``."""
    s = df[wins].to_numpy().astype(float)
    m = df[n].to_numpy().astype(float)
    lo, hi = wilson(s, m, confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = s / m
    return df.with_columns(
        pl.Series(f"{prefix}rate", rate),
        pl.Series(f"{prefix}lo", lo),
        pl.Series(f"{prefix}hi", hi),
        pl.Series(f"{prefix}games_to_halve", games_to_halve(rate, m, confidence)),
    )
