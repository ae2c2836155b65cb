"""Who wins: win rates per strategy and per seat, and the test of seat advantage.

A win is the winner's share of the game: 1, or 1/k for each of k players tied for first, so the
shares of a game sum to 1 and a strategy's win rate is its shares over the games it played.
"""

from __future__ import annotations

import polars as pl
from scipy.stats import binomtest, chisquare

from .intervals import with_wilson
from .words import first_seat_verdict, seat_test_sentence


def win_rates(lf: pl.LazyFrame, by: str = "strategy") -> pl.DataFrame:
    """Per variant and ``by`` (strategy or seat): games, wins (shares), rate with its 95% Wilson
    interval (lo, hi), the fair share 1/players, and the games that would halve the interval."""
    df = (lf.group_by("variant_id", by)
          .agg(pl.col("variant").first(), pl.len().alias("games"), pl.col("win").sum().alias("wins"),
               (pl.col("win") == 1).sum().alias("outright"),
               (1 / pl.col("players").first().cast(pl.Float64)).alias("fair"))
          .sort("variant_id", by).collect())
    df = with_wilson(df, "wins", "games")
    return df.select("variant_id", "variant", by, "games", "wins", "outright", "rate", "lo", "hi",
                     "fair", "games_to_halve")


def seat_win_rates(lf: pl.LazyFrame) -> pl.DataFrame:
    """Win rate per seat (seat 0 starts), with intervals."""
    return win_rates(lf, by="seat")


def seat_advantage(lf: pl.LazyFrame, seats: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per variant: the test of equal seats and the first seat's edge with its interval.

    Two players: two-sided binomial test of the first seat's outright wins among the decisive
    games (a tie for first is neither seat's win). More players: chi-square goodness of fit of
    the win shares per seat against games / players each. ``verdict`` says it in words.
    """
    seats = seat_win_rates(lf) if seats is None else seats
    rows = []
    for (vid,), g in seats.group_by(["variant_id"], maintain_order=True):
        g = g.sort("seat")
        players = len(g)
        games = int(g["games"][0])
        first = g.row(0, named=True)
        if players == 2:
            k = int(g["outright"][0])
            n = int(g["outright"].sum())
            res = binomtest(k, n, 0.5) if n else None
            test, stat, df, p = "binomial", float(k), 1, (res.pvalue if res else float("nan"))
        else:
            res = chisquare(g["wins"].to_numpy(), [games / players] * players)
            test, stat, df, p = "chi-square", float(res.statistic), players - 1, float(res.pvalue)
        fair = first["fair"]
        rows.append({
            "variant_id": vid, "variant": first["variant"], "players": players, "games": games,
            "test": test, "statistic": stat, "df": df, "p_value": p,
            "first_rate": first["rate"], "first_lo": first["lo"], "first_hi": first["hi"], "fair": fair,
            "edge": first["rate"] - fair, "edge_lo": first["lo"] - fair, "edge_hi": first["hi"] - fair,
            "max_seat_gap": float((g["rate"] - fair).abs().max()),
            "games_to_halve": int(first["games_to_halve"]),
            "verdict": first_seat_verdict(first["rate"], first["lo"], first["hi"], fair),
            "test_sentence": seat_test_sentence(test, stat, df, p),
        })
    return pl.DataFrame(rows, schema_overrides={"variant_id": pl.Int16})
