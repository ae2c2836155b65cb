"""Across variants: the headline numbers of each variant and which one is most balanced."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import polars as pl

from .design import LEVEL, simultaneous_z
from .intervals import z_value


def sweep_value_text(v: Any) -> str:
    """A swept value as a label: numbers as they are, lists and the rest as compact JSON."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return json.dumps(v)
    return f"{v:g}" if isinstance(v, float) else str(v)


def sweep_table(experiment: dict) -> pl.DataFrame:
    """variant_id plus one column per sweep key: its value as text (``<key>``) and, when every
    value of the key is a number, as a number (``<key>#``) for plotting."""
    keys = experiment.get("sweep_keys") or []
    rows = []
    for v in experiment.get("variants", []):
        row = {"variant_id": int(v["id"])}
        for k in keys:
            val = (v.get("sweep") or {}).get(k)
            row[k] = sweep_value_text(val)
            row[k + "#"] = val if isinstance(val, (int, float)) and not isinstance(val, bool) else None
        rows.append(row)
    schema = {"variant_id": pl.Int16, **{c: (pl.String if not c.endswith("#") else pl.Float64)
                                          for k in keys for c in (k, k + "#")}}
    return pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)


def _abs_interval(lo: pl.Expr, hi: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The interval of |x| implied by an interval (lo, hi) of x: it holds |x| whenever (lo, hi)
    holds x."""
    low = pl.when((lo <= 0) & (hi >= 0)).then(0.0).otherwise(pl.min_horizontal(lo.abs(), hi.abs()))
    return low, pl.max_horizontal(lo.abs(), hi.abs())


def spread_intervals(rates: pl.DataFrame, level: float = LEVEL) -> pl.DataFrame:
    """Per variant: the spread (best minus worst win rate) with an interval at least 95%.

    The strategies' rates get simultaneous intervals (Bonferroni over the k strategies, each
    rate's own clustered standard error); wherever all of them hold, the true best rate is
    between the largest lower and the largest upper bound, and the worst between the smallest
    ones, so the spread is between max(0, max lo - min hi) and max hi - min lo. Conservative,
    and valid even when strategies are tied (where a bootstrap of max - min is not).
    """
    k = rates.group_by("variant_id").agg(pl.len().alias("_k"))
    r = rates.join(k, on="variant_id")
    zk = pl.col("_k").map_elements(lambda m: simultaneous_z(m, level), return_dtype=pl.Float64)
    r = r.with_columns((pl.col("rate") - zk * pl.col("se")).alias("_lo"), (pl.col("rate") + zk * pl.col("se")).alias("_hi"))
    return (r.group_by("variant_id")
            .agg((pl.col("rate").max() - pl.col("rate").min()).alias("spread"),
                 pl.max_horizontal(pl.lit(0.0), pl.col("_lo").max() - pl.col("_hi").min()).alias("spread_lo"),
                 # a rate lies in [0, 1]: a spread is never above 100 points
                 (pl.min_horizontal(pl.lit(1.0), pl.col("_hi").max())
                  - pl.max_horizontal(pl.lit(0.0), pl.col("_lo").min())).alias("spread_hi"))
            .sort("variant_id"))


def headlines(rates: pl.DataFrame, seats: pl.DataFrame, length: pl.DataFrame | None = None,
              margin: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per variant: the seat outcome and test, the first seat's edge (and its size
    |edge| with an interval), the best and worst strategies (``best_group``, ``worst_group``: with
    every strategy whose interval overlaps theirs, best first, worst first), the spread between
    them with its interval, mean turns and mean winning margin; ``unit`` ("seat", or "team" for a
    variant played in teams) as ``seats`` gives it.

    ``rates`` from win_rates, ``seats`` from seat_advantage, ``length`` from game_length,
    ``margin`` from distribution(winning_margin(...), "margin", by=None).
    """
    ranked = rates.sort("rate", descending=True).group_by("variant_id", maintain_order=True)
    # the strategies not shown to win less than the best (their interval reaches the best's) and
    # not shown to win more than the worst: a table names them together, as the summary does
    best = ranked.agg(pl.col("strategy").first().alias("best"), pl.col("rate").first().alias("best_rate"),
                      pl.col("strategy").last().alias("worst"), pl.col("rate").last().alias("worst_rate"),
                      pl.col("strategy").filter(pl.col("hi") >= pl.col("lo").first()).alias("best_group"),
                      pl.col("strategy").filter(pl.col("lo") <= pl.col("hi").last()).reverse()
                      .alias("worst_group"))
    out = seats.select("variant_id", "variant", "players", "games", "first_rate", "first_lo", "first_hi",
                       "fair", "edge", "edge_lo", "edge_hi", "p_value", "p_adjusted", "outcome",
                       "max_seat_gap", *(["unit"] if "unit" in seats.columns else [])).join(best, on="variant_id")
    out = out.join(spread_intervals(rates), on="variant_id")
    lo, hi = _abs_interval(pl.col("edge_lo"), pl.col("edge_hi"))
    out = out.with_columns(pl.col("edge").abs().alias("abs_edge"), lo.alias("abs_edge_lo"), hi.alias("abs_edge_hi"))
    z = z_value()
    if length is not None and len(length):
        t = length.filter(pl.col("statistic") == "turns").select(
            "variant_id", pl.col("mean").alias("turns_mean"), (z * pl.col("sd") / pl.col("n").sqrt()).alias("turns_pm"))
        out = out.join(t, on="variant_id", how="left")
    if margin is not None and len(margin):
        m = margin.select("variant_id", pl.col("mean").alias("margin_mean"),
                          (z * pl.col("sd") / pl.col("n").sqrt()).alias("margin_pm"))
        out = out.join(m, on="variant_id", how="left")
    return out.sort("variant_id")


def _tied_rank(df: pl.DataFrame, value: str, lo: str, hi: str) -> pl.Series:
    """Rank (1 = smallest ``value``) where a variant whose interval overlaps the interval of the
    variant ranked above it shares that variant's rank: overlapping intervals are not ordered."""
    order = np.argsort(df[value].to_numpy(), kind="stable")
    los, his = df[lo].to_numpy(), df[hi].to_numpy()
    rank = np.zeros(len(df), dtype=np.int32)
    current, lead = 0, None
    for pos, i in enumerate(order):
        if lead is None or los[i] > his[lead]:
            current, lead = pos + 1, i  # clearly larger than the group's leader: a new rank
        rank[i] = current
    return pl.Series(rank)


def most_balanced(head: pl.DataFrame) -> pl.DataFrame:
    """Variants ordered from most to least balanced seats (the size of the first seat's edge,
    |edge|, closest to zero), with ``seat_rank`` (variants whose |edge| intervals overlap the
    interval of the leader of their group share its rank: tied, not ranked) and the same for
    the strategy spread (``spread_rank``, 1 = strategies closest together)."""
    if "abs_edge" not in head.columns:
        lo, hi = _abs_interval(pl.col("edge_lo"), pl.col("edge_hi"))
        head = head.with_columns(pl.col("edge").abs().alias("abs_edge"), lo.alias("abs_edge_lo"),
                                 hi.alias("abs_edge_hi"))
    head = head.with_columns(_tied_rank(head, "abs_edge", "abs_edge_lo", "abs_edge_hi").alias("seat_rank"))
    if "spread_lo" in head.columns:
        head = head.with_columns(_tied_rank(head, "spread", "spread_lo", "spread_hi").alias("spread_rank"))
    else:
        head = head.with_columns(pl.col("spread").rank("min").cast(pl.Int32).alias("spread_rank"))
    return head.sort("seat_rank", "abs_edge", "spread")


def tied_with_best(df: pl.DataFrame, value: str, lo: str, hi: str) -> pl.DataFrame:
    """The rows whose interval overlaps the interval of the row with the smallest ``value``
    (itself first): the variants that cannot be told apart from the best."""
    best = df.sort(value).row(0, named=True)
    return df.filter((pl.col(lo) <= best[hi]) & (pl.col(hi) >= best[lo])).sort(value)
