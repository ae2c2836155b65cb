"""How the games go: score distributions, winning margins, game length and the game's statistics."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from . import slices
from .dataset import GAME_KEY, per_game_columns, stat_columns

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def _summary_aggs(col: str) -> list[pl.Expr]:
    c = pl.col(col).cast(pl.Float64)
    return [pl.len().alias("n"), c.mean().alias("mean"), c.std().alias("sd"), c.min().alias("min"),
            *[c.quantile(q, "linear").alias(f"q{round(q * 100):02d}") for q in QUANTILES],
            c.max().alias("max")]


def distribution(lf: pl.LazyFrame, column: str = "score", by: str | None = "strategy",
                 weight: str | None = None) -> pl.DataFrame:
    """Per variant (and ``by``): n, mean, sd, min, q10, q25, q50 (median), q75, q90, max.

    Worked out from how many rows hold each value (scores take few values), so the memory is the
    number of distinct values, not of rows: the exact quantiles of 300 M rows would otherwise
    need them all in memory at once. The same numbers as polars' linear quantiles. ``weight``:
    a column saying how many times each row counts (a table of counts, like ``margin_counts``)."""
    keys = ["variant_id"] + ([by] if by else [])
    n = pl.col(weight).sum() if weight else pl.len()
    counts = (lf.group_by(*keys, pl.col(column).cast(pl.Float64).alias("_v"))
              .agg(n.alias("_c")).drop_nulls("_v").collect())
    if weight:
        return _from_counts(counts, keys)
    if counts.height > 1_000_000:  # a column of nearly all distinct values: counting saves nothing
        return lf.group_by(keys).agg(_summary_aggs(column)).sort(keys).collect()
    return _from_counts(counts, keys)


def _from_counts(counts: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    rows = []
    for key, g in counts.sort(*keys, "_v").group_by(keys, maintain_order=True):
        v = g["_v"].to_numpy()
        c = g["_c"].to_numpy().astype(np.int64)
        n = int(c.sum())
        mean = float((v * c).sum() / n)
        sd = float(np.sqrt(((v - mean) ** 2 * c).sum() / (n - 1))) if n > 1 else None
        ends = np.cumsum(c)  # rows 0 .. ends[i] - 1 hold values up to v[i]

        def at(i: int) -> float:
            return float(v[np.searchsorted(ends, i, side="right")])

        row = dict(zip(keys, key))
        row.update(n=n, mean=mean, sd=sd, min=float(v[0]))
        for q in QUANTILES:
            h = q * (n - 1)
            lo = math.floor(h)
            a, b = at(lo), at(min(lo + 1, n - 1))
            row[f"q{round(q * 100):02d}"] = a + (h - lo) * (b - a)
        row["max"] = float(v[-1])
        rows.append(row)
    schema = {k: counts.schema[k] for k in keys} | {"n": pl.UInt32, "mean": pl.Float64, "sd": pl.Float64,
                                                    "min": pl.Float64,
                                                    **{f"q{round(q * 100):02d}": pl.Float64 for q in QUANTILES},
                                                    "max": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def one_row_per_game(lf: pl.LazyFrame) -> pl.LazyFrame:
    """The rows of the starting seat: every game has exactly one, so per-game columns count once."""
    return lf.filter(pl.col("seat") == 0)


def winning_margin(lf: pl.LazyFrame, lower_score_wins: bool = False) -> pl.LazyFrame:
    """Per game: the winner's score minus the runner-up's (for a lowest-score-wins game, the
    runner-up's minus the winner's), so a bigger margin is always a clearer win. A tie for first
    has margin 0 (and ``tied`` true). Lazy: one row per game: variant_id, game, margin, tied."""
    # Ranks are 1 + the number of players strictly better, so with a single winner the
    # runner-up has rank 2. Plain max aggregations over masked columns are fast.
    s = -pl.col("score") if lower_score_wins else pl.col("score")
    r = pl.col("rank")
    return (lf.select(*GAME_KEY, pl.when(r == 1).then(s).alias("_w"), pl.when(r == 2).then(s).alias("_u"),
                      (r == 1).alias("_t"))
            .group_by(GAME_KEY).agg(pl.col("_w").max(), pl.col("_u").max(), pl.col("_t").sum())
            .select(*GAME_KEY,
                    pl.when(pl.col("_t") > 1).then(0.0).otherwise(pl.col("_w") - pl.col("_u")).alias("margin"),
                    (pl.col("_t") > 1).alias("tied")))


def margin_counts(lf: pl.LazyFrame, lower_score_wins: bool = False) -> pl.DataFrame:
    """How many games of each variant had each winning margin (``margin``, ``tied``, ``count``),
    a slice of games at a time (``slices.game_slices``): the memory of one slice's games, not
    of every game. ``distribution(..., weight="count")`` and ``histogram`` take it."""
    parts = [winning_margin(part, lower_score_wins).group_by("variant_id", "margin", "tied")
             .agg(pl.len().alias("count")).collect() for part in slices.game_slices(lf)]
    return (pl.concat(parts).group_by("variant_id", "margin", "tied").agg(pl.col("count").sum())
            .sort("variant_id", "margin", "tied"))


def game_length(lf: pl.LazyFrame, columns: list[str] | None = None) -> pl.DataFrame:
    """Distribution of each per-game column (turns, rounds, ...) per variant, in long form."""
    columns = per_game_columns(lf) if columns is None else columns
    if not columns:
        return pl.DataFrame()
    games = one_row_per_game(lf)
    parts = [distribution(games, c, by=None).with_columns(pl.lit(c).alias("statistic"))
             for c in columns]
    return (pl.concat(parts).sort("variant_id", pl.col("statistic").replace_strict(
        {c: k for k, c in enumerate(columns)}))
        .select("variant_id", "statistic", pl.exclude("variant_id", "statistic")))


def seat_statistics(lf: pl.LazyFrame, by: str = "strategy", columns: list[str] | None = None) -> pl.DataFrame:
    """Mean of each per-seat statistic (like bruce_tried) per variant and strategy (or seat);
    ``columns``: which they are (``dataset.seat_columns``; default: the ones that differ between
    the seats of a game in the first games)."""
    if columns is None:
        per_game = set(per_game_columns(lf))
        columns = [c for c in stat_columns(lf) if c not in per_game]
    cols = list(columns)
    if not cols:
        return pl.DataFrame()
    return (lf.group_by("variant_id", by).agg(pl.len().alias("n"), *[pl.col(c).cast(pl.Float64).mean() for c in cols])
            .sort("variant_id", by).collect())


def _nice_step(span: float, target: int) -> float:
    raw = span / target
    mag = 10 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)


def bins_for(lf: pl.LazyFrame, column: str, target: int = 40) -> tuple[float, float, int]:
    """(start, width, count) of histogram bins over the whole dataset: one bin per value for a
    whole-number column with a small range, else about ``target`` bins of a round width."""
    c = pl.col(column).cast(pl.Float64)
    st = lf.select(c.min().alias("lo"), c.max().alias("hi"), (c == c.round()).all().alias("whole")).collect().row(0)
    lo, hi, whole = st
    if lo is None:
        return 0.0, 1.0, 1
    if whole and hi - lo <= 2 * target:
        return lo - 0.5, 1.0, int(hi - lo) + 1
    if hi == lo:
        return lo - 0.5, 1.0, 1
    width = _nice_step(hi - lo, target)
    if whole:
        width = max(1.0, round(width))
    start = math.floor(lo / width) * width
    return float(start), float(width), int(math.floor((hi - start) / width)) + 1


def histogram(lf: pl.LazyFrame, column: str = "score", by: str | None = "strategy",
              bins: tuple[float, float, int] | None = None, weight: str | None = None) -> pl.DataFrame:
    """Counts per bin (left edge ``bin_lo``, width ``width``) per variant and ``by``; ``weight``
    as in ``distribution``."""
    start, width, count = bins_for(lf, column) if bins is None else bins
    keys = ["variant_id"] + ([by] if by else [])
    b = ((pl.col(column).cast(pl.Float64) - start) / width).floor().clip(0, count - 1).cast(pl.Int32)
    n = pl.col(weight).sum().cast(pl.UInt32) if weight else pl.len()
    df = lf.group_by(*keys, b.alias("bin")).agg(n.alias("count")).sort(*keys, "bin").collect()
    return df.with_columns((start + pl.col("bin") * width).alias("bin_lo"), pl.lit(width).alias("width"))

