"""Who wins: win rates per strategy and per seat, and the test of seat advantage.

A win is the winner's share of the game: 1, or 1/k for each of k players tied for first, so the
shares of a game sum to 1 and a strategy's win rate is its shares over the games it played.

Intervals are Wilson score intervals at the effective number of games (``design.cluster_means``):
games of one duplicate deal count as dependent, and a seat's wins are compared within the
strategy that sat there. Under plain rotation a strategy's interval is the ordinary Wilson one.
A seat's variance is estimated from D deals less one mean per stratum, so its interval takes
Student's t on D - strata degrees of freedom instead of the normal quantile (Wilson's interval
at quantile t on n games is the one at z on n (z / t)^2 games).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.stats import t as student_t

from .design import LEVEL, cluster_means, holm, seat_test, z_pvalue
from .intervals import CONFIDENCE, games_to_halve, wilson, z_value
from .words import seat_test_sentence, seat_verdict, team_verdict


def win_rates(lf: pl.LazyFrame, by: str = "strategy") -> pl.DataFrame:
    """Per variant and ``by`` (strategy or seat): games, wins (shares), outright wins, rate with
    its 95% interval (lo, hi), the fair share 1/players, ``n_eff`` (the effective number of
    independent games behind the interval), ``se``, the games that would halve the interval,
    and ``p_fair`` (two-sided, rate against the fair share).

    A seat's rate is stratified by the strategy in it (within its line-up); a strategy's is not
    stratified by seat. Both are clustered by deal.
    """
    keys = ["variant_id", by]
    strata = ["_lineup", "strategy"] if by == "seat" else None
    m = cluster_means(lf, pl.col("win"), keys, strata)
    extra = (lf.group_by(keys).agg(pl.col("variant").first(), (pl.col("win") == 1).sum().alias("outright"),
                                   (1 / pl.col("players").first().cast(pl.Float64)).alias("fair"))
             .collect())
    df = m.join(extra, on=keys).sort(keys)
    rate = df["mean"].to_numpy()
    n = df["n"].to_numpy().astype(float)
    n_eff = df["n_eff"].to_numpy()
    n_ci = n_eff
    if strata:  # the seat's variance is estimated, not p (1 - p): t on D - strata df
        df_t = np.maximum(df["deals"].to_numpy() - df["strata"].to_numpy(), 1)
        n_ci = n_eff * (z_value() / student_t.ppf(0.5 + CONFIDENCE / 2, df_t)) ** 2
    lo, hi = wilson(rate * n_ci, n_ci)
    se = np.sqrt(df["var"].to_numpy())
    fair = df["fair"].to_numpy()
    halve = np.ceil(games_to_halve(rate, n_eff) * n / n_eff).astype(np.int64)
    return df.with_columns(
        pl.col("n").alias("games"), pl.col("total").alias("wins"), pl.Series("rate", rate),
        pl.Series("lo", lo), pl.Series("hi", hi), pl.Series("se", se),
        pl.Series("games_to_halve", halve), pl.Series("p_fair", z_pvalue(rate - fair, se)),
    ).select("variant_id", "variant", by, "games", "wins", "outright", "rate", "lo", "hi", "fair",
             "n_eff", "se", "games_to_halve", "p_fair")


def versus_fair(rates: pl.DataFrame, level: float = LEVEL) -> pl.DataFrame:
    """Add ``p_fair_holm`` (Holm over every rate in the table) and ``versus``: "above fair",
    "below fair" or "fair within reach", decided by the adjusted p-value."""
    adj = holm(rates["p_fair"].to_numpy())
    above = rates["rate"].to_numpy() > rates["fair"].to_numpy()
    versus = np.where(adj >= level, "fair within reach", np.where(above, "above fair", "below fair"))
    return rates.with_columns(pl.Series("p_fair_holm", adj), pl.Series("versus", versus))


def seat_win_rates(lf: pl.LazyFrame) -> pl.DataFrame:
    """Win rate per seat (seat 0 starts), with intervals."""
    return win_rates(lf, by="seat")


def seat_advantage(lf: pl.LazyFrame, seats: pl.DataFrame | None = None, seating: str | None = None,
                   level: float = LEVEL, teams: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per variant: the test of equal seats (strategies accounted for, see ``design.seat_test``),
    the first seat's edge with its interval and one ``outcome`` that every sentence follows:
    "differ", "no evidence" or "no verdict" (seat and strategy cannot be told apart, as under
    fixed seating). With several variants the p-values are Holm-adjusted over them
    (``p_adjusted``) before the outcome is read. ``verdict`` and ``test_sentence`` say it.

    On a ``teams.team_frame`` a team variant's "seats" are its teams in turn order: pass its
    ``teams.layout`` as ``teams`` and the test is the first team's (``unit`` "team"), said as
    the answer to "does the team that plays first have an edge?".
    """
    members = {} if teams is None else dict(teams.select("variant_id", "members").iter_rows())
    seats = seat_win_rates(lf) if seats is None else seats
    tests = seat_test(lf)
    n_var = len(tests)
    testable = tests["identifiable"].to_numpy()
    adj = np.full(n_var, np.nan)
    if testable.any():
        adj[testable] = holm(tests["p_value"].to_numpy()[testable])
    tests = tests.with_columns(pl.Series("p_adjusted", adj))
    family = int(testable.sum())
    rows = []
    for (vid,), g in seats.group_by(["variant_id"], maintain_order=True):
        g = g.sort("seat")
        t = tests.filter(pl.col("variant_id") == vid).row(0, named=True)
        players = len(g)
        first = g.row(0, named=True)
        fair = first["fair"]
        if not t["identifiable"]:
            outcome = "no verdict"
        else:
            outcome = "differ" if t["p_adjusted"] < level else "no evidence"
        gap = (g["rate"] - fair).abs()
        far = g.row(int(gap.arg_max()), named=True)
        rows.append({
            "variant_id": vid, "variant": first["variant"], "players": players, "games": int(first["games"]),
            "test": "seat score test" if t["identifiable"] else "none", "statistic": t["statistic"],
            "df": t["df"], "p_value": t["p_value"], "p_adjusted": t["p_adjusted"], "outcome": outcome,
            "first_rate": first["rate"], "first_lo": first["lo"], "first_hi": first["hi"], "fair": fair,
            "edge": first["rate"] - fair, "edge_lo": first["lo"] - fair, "edge_hi": first["hi"] - fair,
            "max_seat_gap": float(gap.max()), "games_to_halve": int(first["games_to_halve"]),
            "unit": "team" if vid in members else "seat",
            "verdict": (team_verdict(outcome, first, far, fair, members[vid], seating) if vid in members
                        else seat_verdict(outcome, first, far, fair, seating)),
            "test_sentence": seat_test_sentence(outcome, t["statistic"], t["df"], t["p_value"], t["p_adjusted"],
                                                family, teams=vid in members),
        })
    return pl.DataFrame(rows, schema_overrides={"variant_id": pl.Int16})
