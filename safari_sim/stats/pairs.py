"""Strategy against strategy: the head-to-head matrix and a Bradley-Terry rating.

Head to head: for each ordered pair (A, B), among the games where both play, the share in which
A finishes ahead of B (a tie between them counts half). The rating fits a Bradley-Terry model to
the same pairwise finishing orders (every game gives one comparison per pair of its players):
P(A ahead of B) = 1 / (1 + exp(theta_B - theta_A)). Ratings are shown on the Elo scale
(400 / ln 10 per unit of theta), centred on 0 = the average strategy at the table.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy.optimize import minimize
from scipy.special import expit

from .dataset import GAME_KEY
from .intervals import with_wilson, z_value

ELO = 400 / math.log(10)


def strategies(lf: pl.LazyFrame) -> list[str]:
    """Strategy names in order of first appearance (variant, then seat)."""
    df = (lf.group_by("strategy").agg(pl.col("variant_id").min(), pl.col("seat").min())
          .sort("variant_id", "seat", "strategy").collect())
    return df["strategy"].to_list()


def rank_table(lf: pl.LazyFrame, names: list[str]) -> pl.LazyFrame:
    """One row per game: the rank of each strategy (column r<i>, null if it did not play)."""
    cols = [pl.when(pl.col("strategy") == s).then(pl.col("rank")).alias(f"r{i}") for i, s in enumerate(names)]
    return lf.select(*GAME_KEY, *cols).group_by(GAME_KEY).agg(pl.all().max())


def head_to_head(lf: pl.LazyFrame, names: list[str] | None = None) -> pl.DataFrame:
    """Per variant and ordered pair: games both played, A's share ahead of B, interval."""
    names = strategies(lf) if names is None else names
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    if not pairs:
        return pl.DataFrame(schema={"variant_id": pl.Int16, "strategy": pl.String, "opponent": pl.String,
                                    "games": pl.Int64, "ahead": pl.Float64})
    aggs = []
    for i, j in pairs:
        a, b = pl.col(f"r{i}"), pl.col(f"r{j}")
        both = a.is_not_null() & b.is_not_null()
        aggs.append(both.sum().alias(f"n{i}_{j}"))
        aggs.append(((a < b).cast(pl.Float64) + 0.5 * (a == b).cast(pl.Float64)).sum().alias(f"a{i}_{j}"))
    wide = rank_table(lf, names).group_by("variant_id").agg(aggs).sort("variant_id").collect()
    rows = []
    for r in wide.iter_rows(named=True):
        for i, j in pairs:
            n, a = r[f"n{i}_{j}"], r[f"a{i}_{j}"] or 0.0
            if not n:
                continue
            rows.append((r["variant_id"], names[i], names[j], n, a))
            rows.append((r["variant_id"], names[j], names[i], n, n - a))
    df = pl.DataFrame(rows, schema={"variant_id": pl.Int16, "strategy": pl.String, "opponent": pl.String,
                                    "games": pl.Int64, "ahead": pl.Float64}, orient="row")
    order = {s: k for k, s in enumerate(names)}
    df = df.sort(["variant_id", pl.col("strategy").replace_strict(order), pl.col("opponent").replace_strict(order)])
    return with_wilson(df, "ahead", "games")


def bradley_terry(names: list[str], ahead: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fit theta (mean 0) and its standard errors from ahead[i, j] = times i finished ahead of j.

    The standard errors treat every comparison as independent; comparisons from the same game
    are not, so they are somewhat optimistic with more than two players.
    """
    s = len(names)
    n = ahead + ahead.T
    ridge = 1e-6 * max(float(n.sum()), 1.0)  # keeps a strategy that never loses finite

    def nll(theta):
        d = theta[:, None] - theta[None, :]
        # log sigmoid(d) = -logaddexp(0, -d)
        f = float((ahead * np.logaddexp(0, -d)).sum()) + ridge * float(theta @ theta)
        g = ahead * expit(-d)
        grad = -(g.sum(axis=1) - g.sum(axis=0)) + 2 * ridge * theta
        return f, grad

    res = minimize(nll, np.zeros(s), jac=True, method="L-BFGS-B", options={"maxiter": 1000, "gtol": 1e-10})
    theta = res.x - res.x.mean()
    p = expit(theta[:, None] - theta[None, :])
    w = n * p * (1 - p)
    info = np.diag(w.sum(axis=1)) - w  # Fisher information; its null space is the common shift
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    return theta, se


def ratings(lf: pl.LazyFrame | None = None, h2h: pl.DataFrame | None = None) -> pl.DataFrame:
    """Bradley-Terry rating per variant and strategy: ``rating`` in Elo points (mean 0) with a
    95% interval, and ``vs_average``: the chance to finish ahead of an average strategy."""
    h2h = head_to_head(lf) if h2h is None else h2h
    z = z_value()
    rows = []
    for (vid,), g in h2h.group_by(["variant_id"], maintain_order=True):
        names = list(dict.fromkeys(g["strategy"].to_list() + g["opponent"].to_list()))
        idx = {s: k for k, s in enumerate(names)}
        ahead = np.zeros((len(names), len(names)))
        for a, b, x in g.select("strategy", "opponent", "ahead").iter_rows():
            ahead[idx[a], idx[b]] = x
        theta, se = bradley_terry(names, ahead)
        for k, s in enumerate(names):
            rows.append({"variant_id": vid, "strategy": s, "theta": theta[k], "se": se[k],
                         "rating": ELO * theta[k], "rating_lo": ELO * (theta[k] - z * se[k]),
                         "rating_hi": ELO * (theta[k] + z * se[k]), "vs_average": float(expit(theta[k]))})
    if not rows:
        return pl.DataFrame(schema={"variant_id": pl.Int16, "strategy": pl.String, "rating": pl.Float64})
    return pl.DataFrame(rows, schema_overrides={"variant_id": pl.Int16}).sort("variant_id", "rating", descending=[False, True])
