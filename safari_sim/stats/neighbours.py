"""Does who sits next to whom matter? The seat-to-seat effect under ``seating: permute``.

Under permutation every strategy sits in every seat with every other strategy on its right (the
player who plays just before it) equally often, so a neighbour effect can be told from a seat
effect. The model of a row's win share w is

    E[w] = a(table, strategy, seat) + b(table, strategy, right-hand neighbour)

and the test is of b = 0 with the seat terms kept (so an unequal seat is not mistaken for a
neighbour). It is a score test like ``design.seat_test``: residuals e = w - (the mean of the row's
strategy in its seat, at its table), projected off the seat terms: for each (table, strategy,
neighbour) cell U = sum over rows of (1[neighbour] - share of that neighbour in the row's
strategy-and-seat) e. The win shares of a game sum to 1, so one strategy per table (its last) is
left out, as is one neighbour per strategy; the covariance of U is taken from the deals' sums
(cluster-robust) and U' V^-1 U is chi-square on the rank of V.

In a game played in teams the neighbour that matters is the partner: a strategy's team wins or
loses with it. There the test is of a strategy's team's win rate by its partner (the same model,
the partner in place of the right-hand neighbour, a row's win its team's: 1 when its team wins):
does who partners whom matter? Under ``permute`` every strategy partners every other equally
often; under ``rotate`` partners never change and there is nothing to test.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.stats import chi2

from . import teams as team_rows
from .design import LEVEL, _index
from .words import pvalue


def right_neighbours(lf: pl.LazyFrame, lay: pl.DataFrame | None = None) -> pl.LazyFrame:
    """The rows with ``right``: the strategy in the seat just before (seat - 1, wrapping); in a
    variant of ``lay`` (``teams.layout``) the partner instead (the next seat of the same team,
    wrapping), and ``win`` the team's."""
    lay = team_rows.layout(lf) if lay is None else lay
    schema = lf.collect_schema()
    deal = pl.col("deal") if "deal" in schema else pl.col("game")
    d = team_rows.team_wins(lf, lay).select(
        pl.col("variant_id").cast(pl.Int64), pl.col("game").cast(pl.Int64), deal.cast(pl.Int64).alias("_deal"),
        pl.col("seat").cast(pl.Int64), pl.col("strategy"), pl.col("win").cast(pl.Float64))
    d = d.join(lf.select(pl.col("variant_id").cast(pl.Int64), pl.col("players").cast(pl.Int64)).unique().lazy(),
               on="variant_id")
    # whose strategy is a row's "right": the seat before it, or its partner
    pairs = [(vid, s, m[(i + 1) % len(m)]) for vid, members in lay.select("variant_id", "members").iter_rows()
             for m in members for i, s in enumerate(m)]
    teamed = pl.DataFrame(pairs, schema={"variant_id": pl.Int64, "seat": pl.Int64, "_other": pl.Int64}, orient="row")
    d = d.join(teamed.lazy(), on=["variant_id", "seat"], how="left").with_columns(
        pl.col("_other").fill_null((pl.col("seat") - 1) % pl.col("players")))
    other = d.select("variant_id", "game", pl.col("seat").alias("_other"), pl.col("strategy").alias("right"))
    return d.join(other, on=["variant_id", "game", "_other"], how="left").drop("_other")


def neighbour_test(lf: pl.LazyFrame, experiment: dict | None = None) -> dict:
    """The test over all variants together: statistic, df, p_value, games, the largest cell
    (strategy, right, rate with that neighbour, rate otherwise) and ``testable`` (false when
    fewer than three players or no strategy ever changes its neighbour). ``partners``: the
    dataset plays in teams and ``right`` is the partner (the module's doc)."""
    lf = team_rows.with_teams(lf, experiment)
    lay = team_rows.layout(lf)
    d = right_neighbours(lf, lay).collect()
    out = {"testable": False, "statistic": float("nan"), "df": 0, "p_value": float("nan"), "partners": bool(len(lay)),
           "games": int(d.select(pl.struct("variant_id", "game").n_unique()).item()) if len(d) else 0}
    if not len(d) or int(d["players"].max()) < 3:
        return out
    # every (table, strategy) and its (seat) and (neighbour) numbered
    keys = d.select("variant_id", "strategy").unique().sort("variant_id", "strategy").with_row_index("_k")
    d = d.join(keys.with_columns(pl.col("_k").cast(pl.Int64)), on=["variant_id", "strategy"]).with_columns(
        (pl.col("right").rank("dense").cast(pl.Int64) - 1).alias("_j"))
    last = d.group_by("variant_id").agg(pl.col("strategy").max().alias("_last"))
    d = d.join(last, on="variant_id").filter(pl.col("strategy") != pl.col("_last"))
    k, j, seat = d["_k"].to_numpy(), d["_j"].to_numpy(), d["seat"].to_numpy()
    w = d["win"].to_numpy()
    nk, nj, ns = int(k.max()) + 1, int(j.max()) + 1, int(seat.max()) + 1
    ks = k * ns + seat
    count_ks = np.bincount(ks, minlength=nk * ns).astype(float)
    mean_ks = np.bincount(ks, w, minlength=nk * ns) / np.maximum(count_ks, 1)
    e = w - mean_ks[ks]
    cell = k * nj + j
    share = np.bincount(ks * nj + j, minlength=nk * ns * nj).reshape(nk * ns, nj) / np.maximum(count_ks, 1)[:, None]
    # the cells that vary: each strategy's neighbours, one left out (the last it has)
    seen = np.bincount(cell, minlength=nk * nj).reshape(nk, nj) > 0
    cols = []
    for kk in range(nk):
        js = np.flatnonzero(seen[kk])
        cols += [(kk, jj) for jj in js[:-1]]
    if not cols:
        return out
    n_deals, di = _index(d["_deal"].to_numpy() + (d["variant_id"].to_numpy() << 40))
    u = np.empty((n_deals, len(cols)))
    for c, (kk, jj) in enumerate(cols):
        x = ((k == kk) & (j == jj)).astype(float) - np.where(k == kk, share[ks, jj], 0.0)
        u[:, c] = np.bincount(di, x * e, minlength=n_deals)
    total = u.sum(axis=0)
    v = u.T @ u * (n_deals / (n_deals - 1) if n_deals > 1 else 1.0)
    ev, vec = np.linalg.eigh(v)
    keep = ev > max(ev.max(), 0.0) * 1e-9
    if not keep.any():
        return out
    proj = vec[:, keep].T @ total
    stat = float((proj * proj / ev[keep]).sum())
    dof = int(keep.sum())
    # the largest single effect: a strategy winning more with one right-hand neighbour than with its others
    cells = (d.group_by("variant_id", "strategy", "right").agg(pl.col("win").mean().alias("rate"), pl.len().alias("n"))
             .with_columns(((pl.col("rate") * pl.col("n")).sum().over("variant_id", "strategy") - pl.col("rate") * pl.col("n"))
                           .truediv(pl.col("n").sum().over("variant_id", "strategy") - pl.col("n")).alias("rate_other"))
             .with_columns((pl.col("rate") - pl.col("rate_other")).alias("gap")).sort("gap", descending=True))
    top = cells.row(0, named=True)
    out.update(testable=True, statistic=stat, df=dof, p_value=float(chi2.sf(stat, dof)),
               strategy=top["strategy"], right=top["right"], rate=top["rate"], rate_other=top["rate_other"])
    return out


def neighbour_sentence(t: dict, level: float = LEVEL) -> str:
    """One sentence: whether who sits on a strategy's right (in a team game: who partners it)
    changes how often it wins."""
    if t.get("partners"):
        return _partner_sentence(t, level)
    if not t["testable"]:
        return "Who sits next to whom cannot be tested here (fewer than three players, or neighbours never change)."
    test = f"a test of each strategy's win rate by its right-hand neighbour, seats and tables accounted for: " \
           f"chi-square {t['statistic']:.1f} on {t['df']} df, {pvalue(t['p_value'])}"
    if t["p_value"] < level:
        return (f"Neighbours matter: a strategy's win rate depends on who sits on its right (plays just before it) "
                f"({test}); the largest effect: {t['strategy']} wins {t['rate']:.1%} with {t['right']} on its right "
                f"against {t['rate_other']:.1%} with the others.")
    return f"There is no evidence that who sits next to whom matters ({test})."


def _partner_sentence(t: dict, level: float) -> str:
    if not t["testable"]:
        return ("Who partners whom cannot be tested here: partners never change (under seating: rotate a "
                "table's partners stay together; seating: permute pairs every strategy with every other).")
    test = (f"a test of each strategy's team win rate by its partner, seats and tables accounted for: "
            f"chi-square {t['statistic']:.1f} on {t['df']} df, {pvalue(t['p_value'])}")
    if t["p_value"] < level:
        return (f"Partners matter: how often a strategy's team wins depends on who partners it ({test}); the "
                f"largest effect: {t['strategy']}'s team wins {t['rate']:.1%} with {t['right']} as partner "
                f"against {t['rate_other']:.1%} with its other partners.")
    return f"There is no evidence that who partners whom matters ({test})."
