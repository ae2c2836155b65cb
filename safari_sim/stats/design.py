"""Games that are not independent, seats that are not strategies, and many questions at once.

Three facts about how games are played decide how sure a number can be:

- **Deals.** Under ``seating: duplicate`` the P rotations of one deal share its cards and its
  chance stream, so their results are correlated. Every variance here is clustered by deal (the
  dataset's ``deal`` column; a dataset without it has one deal per game): the sampling variance of
  a mean over rows is ``sum over deals of (sum of the deal's residuals)^2 / n^2`` times
  D / (D - 1), as resampling whole deals would measure it. ``n_eff``, the effective number of
  independent games, is n times the variance the same rows would have as independent games (the
  plain per-game variance over n) divided by the clustered one: what the interval is worth in
  games of plain rotation.
- **Strata.** Under rotation every seat holds every strategy equally often, so a seat's wins vary
  less than a binomial count when the strategies differ. Residuals are taken from the mean of
  their stratum (for a seat: the strategy sitting there, within its line-up), which removes that
  part of the variance instead of counting it as noise.
- **Many comparisons.** ``holm`` adjusts a family of p-values so that the chance of calling any
  true null "real" stays at 5%.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.stats import chi2, norm

from . import slices
from .dataset import GAME_KEY, collect_all

LEVEL = 0.05


def with_design(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Add ``_deal`` (the deal; the game when the dataset has no deal column), ``_lineup`` (an id
    of the set of strategies at the game's table: the same for every rotation; a constant when
    every game seats every strategy of its variant) and ``_one`` (true when every deal is one
    game, so per-deal sums are the rows themselves: the fast path)."""
    schema = lf.collect_schema()
    deal = pl.col("deal") if "deal" in schema else pl.col("game")
    facts = collect_all([
        lf.select((deal != pl.col("game")).any().alias("shared")),
        lf.group_by("variant_id").agg(pl.col("strategy").n_unique().alias("k"),
                                      pl.col("players").max().cast(pl.Int64).alias("p")),
    ])
    one = not bool(facts[0]["shared"][0])
    single = bool((facts[1]["k"] == facts[1]["p"]).all())
    lineup = pl.lit(0, pl.UInt64) if single else (pl.col("strategy").hash(seed=7) // 256).sum().over(GAME_KEY)
    return lf.with_columns(deal.cast(pl.Int64).alias("_deal"), lineup.alias("_lineup"), pl.lit(one).alias("_one"))


def _design(lf: pl.LazyFrame) -> pl.LazyFrame:
    return lf if "_deal" in lf.collect_schema() else with_design(lf)


def one_game_per_deal(lf: pl.LazyFrame) -> bool:
    """Whether every deal of a ``with_design`` frame is a single game."""
    return bool(lf.select(pl.col("_one").first()).collect().item())


def cluster_means(lf: pl.LazyFrame, value: pl.Expr, keys: list[str], strata: list[str] | None = None,
                  where: pl.Expr | None = None) -> pl.DataFrame:
    """Per ``keys``: n (rows), total, mean of ``value`` and its sampling variance clustered by
    deal with residuals from the mean of each stratum (``var``), the variance as independent
    rows (``var_iid``), ``deals``, ``strata`` and ``n_eff`` = n * var_iid / var.

    ``strata`` counts the means the deals' sums are taken from: one per stratum when each deal
    holds one stratum (a seat under rotation: one per strategy), 1 when every deal holds the same
    strata (the rotations of a duplicate deal: every strategy once), in general the number of
    different mixes of strata the deals hold, at most one per stratum. The clustered sum of
    squares is scaled by D / (D - strata) (D / (D - 1) without strata): with D / (D - 1) a seat's
    interval at 30 games of three players covered 93.4%, not 95%.

    When every deal is one game (and a key's rows of one game are one row, as a strategy or a
    seat is), the deals' sums are the rows themselves and the sums of squares come from
    per-stratum totals: sum (x - m)^2 = sum x^2 - (sum x)^2 / n, one small group-by.
    """
    d = _design(lf)
    if where is not None:
        d = d.filter(where)
    strata = [*keys, *(strata or [])]
    x = value.cast(pl.Float64)
    if one_game_per_deal(d):
        per = (d.group_by(strata).agg(pl.len().alias("_n"), x.sum().alias("_s"), (x * x).sum().alias("_q"))
               .with_columns((pl.col("_q") - pl.col("_s") ** 2 / pl.col("_n")).alias("_ss")))
        df = (per.group_by(keys).agg(pl.col("_n").sum().alias("n"), pl.col("_s").sum().alias("total"),
                                     pl.len().alias("strata"),
                                     pl.col("_q").sum().alias("_q"), pl.col("_ss").sum().alias("ss"))
              .with_columns((pl.col("_q") - pl.col("total") ** 2 / pl.col("n")).alias("ss_iid"),
                            pl.col("n").alias("deals"))
              .drop("_q").collect().sort(keys))
    else:
        base = d.select(*dict.fromkeys([*strata, "_deal"]), x.alias("_x")).with_columns(
            (pl.col("_x") - pl.col("_x").mean().over(strata)).alias("_e"),
            (pl.col("_x") - pl.col("_x").mean().over(keys)).alias("_e0"))
        clustered = (base.group_by(*keys, "_deal").agg(pl.col("_e").sum().alias("_r"))
                     .group_by(keys).agg((pl.col("_r") ** 2).sum().alias("ss"), pl.len().alias("deals")))
        totals = base.group_by(keys).agg(pl.len().alias("n"), pl.col("_x").sum().alias("total"),
                                         (pl.col("_e0") ** 2).sum().alias("ss_iid"),
                                         pl.struct(strata).n_unique().alias("_k"))
        mixes = (base.group_by(*keys, "_deal").agg(pl.struct(strata).hash(seed=7).sort().alias("_mix"))
                 .with_columns(pl.col("_mix").hash(seed=7)).group_by(keys).agg(pl.col("_mix").n_unique()))
        totals = totals.join(mixes, on=keys).with_columns(pl.min_horizontal("_k", "_mix").alias("strata")) \
            .drop("_k", "_mix")
        a, b = collect_all([totals, clustered])
        df = a.join(b, on=keys, how="left").sort(keys)
    n = pl.col("n").cast(pl.Float64)
    dd = pl.col("deals").cast(pl.Float64)
    k = pl.col("strata").cast(pl.Float64)
    df = df.with_columns(
        (pl.col("total") / n).alias("mean"),
        pl.when(dd > 1).then(pl.col("ss").clip(0) / (n * n) * dd / (dd - k).clip(1)).otherwise(0.0).alias("var"),
        pl.when(n > 1).then(pl.col("ss_iid").clip(0) / (n * n) * n / (n - 1)).otherwise(0.0).alias("var_iid"))
    return df.with_columns(
        pl.when(pl.col("var") > 0).then(n * pl.col("var_iid") / pl.col("var")).otherwise(n).alias("n_eff")
    ).drop("ss", "ss_iid")


def z_pvalue(diff, se) -> np.ndarray:
    """Two-sided normal p-value of ``diff`` with standard error ``se`` (0 or 1 when se is 0)."""
    diff = np.asarray(diff, dtype=float)
    se = np.asarray(se, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = 2 * norm.sf(np.abs(diff) / se)
    return np.where(se > 0, p, np.where(diff != 0, 0.0, 1.0))


def holm(p) -> np.ndarray:
    """Holm's step-down adjustment: adjusted p-values (reject where below the level); the
    family-wise chance of any false "real" is at most the level, whatever the dependence.

    statsmodels' ``multipletests(p, method="holm")`` gives the same numbers (a test holds them
    equal) but calls ``gc.collect()`` on every call: 0.3 s in a process that holds numba and
    polars, paid by every report, ``until`` check and tuner step. So the step-down is written
    here: the i-th smallest p times (m - i), made monotone, capped at 1."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(np.maximum.accumulate(p[order] * np.arange(m, 0, -1)), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out


def simultaneous_z(k: int, level: float = LEVEL) -> float:
    """The normal quantile that makes k two-sided intervals hold together (Bonferroni)."""
    return float(norm.ppf(1 - level / (2 * max(k, 1))))


def _index(values: np.ndarray) -> tuple[int, np.ndarray]:
    """(number of distinct values, index of each value among them); in linear time when the
    values come sorted, as the runner writes them."""
    if len(values) and (np.diff(values) >= 0).all():
        idx = np.concatenate([[0], np.cumsum(np.diff(values) != 0)])
        return int(idx[-1]) + 1, idx
    uniq, inv = np.unique(values, return_inverse=True)
    return len(uniq), inv


def seat_test(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per variant, the test of equal seats with the strategies accounted for.

    A win share w of row r is modelled as E[w] = q(strategy, line-up) + a(seat). Under "seats do
    not matter" (a = 0) the model is exact whatever the strategies do. The score for a(seat s),
    after projecting out the strategy terms, is U_s = sum over rows of (1[seat = s] - pi(k, s)) e_r,
    with e_r = w - (mean win of the row's strategy in its line-up) and pi(k, s) the share of
    strategy k's rows in seat s. Its covariance is estimated from the deals' sums (cluster-robust,
    so duplicate deals count as dependent), and U' V^-1 U is chi-square on the rank of V
    (P - 1 when seats and strategies can be told apart). Under rotation U_s is exactly seat s's
    wins minus games / P, the chi-square numerator; only the variance differs.

    ``identifiable`` is false when every strategy always sits in one seat (fixed seating): then
    seat and strategy are the same thing and there is no test.
    """
    base = _design(lf)
    fast = one_game_per_deal(base)
    k = ["variant_id", "_lineup", "strategy"]

    def rows_of(frame: pl.LazyFrame) -> pl.LazyFrame:
        return frame.select(*k, "_deal", pl.col("seat").cast(pl.Int64), pl.col("players").cast(pl.Int64),
                            pl.col("win").cast(pl.Float64))

    d = rows_of(base)
    counts, players = collect_all([d.group_by(*k, "seat").agg(pl.len().alias("c"), pl.col("win").sum().alias("w")),
                                      d.group_by("variant_id").agg(pl.col("players").max())])
    # every strategy within its line-up gets a number, so only numbers leave polars
    groups = counts.select(k).unique(maintain_order=True).with_row_index("_k").with_columns(pl.col("_k").cast(pl.Int64))
    counts = counts.join(groups, on=k)
    n_groups = len(groups)
    kc = counts["_k"].to_numpy()
    # each strategy's mean win in its line-up
    q = np.bincount(kc, counts["w"].to_numpy(), minlength=n_groups) / np.maximum(
        np.bincount(kc, counts["c"].to_numpy().astype(float), minlength=n_groups), 1)
    tests = {}
    for vid, p in players.sort("variant_id").iter_rows():
        cs = counts.filter(pl.col("variant_id") == vid)
        # each strategy's (in its line-up) share of rows in each seat
        pi = np.zeros((n_groups, p))
        np.add.at(pi, (cs["_k"].to_numpy(), cs["seat"].to_numpy()), cs["c"].to_numpy().astype(float))
        present = pi.sum(axis=1) > 0
        pi[present] /= pi[present].sum(axis=1, keepdims=True)
        # the sum of the deals' scores, the sum of their outer products, the deals
        tests[vid] = (p, pi, bool(((pi > 0) & (pi < 1)).any()), np.zeros(p - 1), np.zeros((p - 1, p - 1)), [0])
    for part in slices.game_slices(base):  # whole deals in each: their sums are exact
        numbered = (rows_of(part).join(groups.lazy(), on=k, how="left", maintain_order="left")
                    .select("variant_id", "_deal", "seat", "_k", "win"))
        if fast:  # a seat, and a strategy, is one row of its game: each row is its deal's sum
            cells = numbered.with_columns(pl.lit(1.0).alias("n")).collect()
        else:
            cells = (numbered.group_by("variant_id", "_deal", "seat", "_k")
                     .agg(pl.col("win").sum(), pl.len().cast(pl.Float64).alias("n")).collect())
        vids = cells["variant_id"].to_numpy()
        for vid, (p, pi, identifiable, total, outer, n_deals) in tests.items():
            mask = vids == vid
            if not identifiable or not mask.any():
                continue
            win, n = cells["win"].to_numpy()[mask], cells["n"].to_numpy()[mask]
            kk, seats = cells["_k"].to_numpy()[mask], cells["seat"].to_numpy()[mask]
            e = win - n * q[kk]  # the cell's sum of (win - the strategy's mean in its line-up)
            nd, di = _index(cells["_deal"].to_numpy()[mask])
            u = np.empty((nd, p - 1))
            for s in range(p - 1):
                u[:, s] = np.bincount(di, e * ((seats == s) - pi[kk, s]), minlength=nd)
            total += u.sum(axis=0)
            outer += u.T @ u
            n_deals[0] += nd
    rows = []
    for vid, (p, pi, identifiable, total, outer, (n_deals,)) in tests.items():
        row = {"variant_id": vid, "players": p, "identifiable": identifiable, "statistic": float("nan"),
               "df": 0, "p_value": float("nan")}
        if identifiable:
            v = outer * (n_deals / (n_deals - 1) if n_deals > 1 else 1.0)
            w, vec = np.linalg.eigh(v)
            keep = w > max(w.max(), 0.0) * 1e-9
            if keep.any():
                proj = vec[:, keep].T @ total
                stat = float((proj * proj / w[keep]).sum())
                dof = int(keep.sum())
                row.update(statistic=stat, df=dof, p_value=float(chi2.sf(stat, dof)))
            else:
                row.update(statistic=0.0, df=p - 1, p_value=1.0)
        rows.append(row)
    return pl.DataFrame(rows, schema={"variant_id": pl.Int16, "players": pl.Int64, "identifiable": pl.Boolean,
                                      "statistic": pl.Float64, "df": pl.Int64, "p_value": pl.Float64})
