"""Across variants: the headline numbers of each variant and which one is most balanced."""

from __future__ import annotations

import json
from typing import Any

import polars as pl

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


def headlines(rates: pl.DataFrame, seats: pl.DataFrame, length: pl.DataFrame | None = None,
              margin: pl.DataFrame | None = None) -> pl.DataFrame:
    """One row per variant: the first seat's edge and test, the best and worst strategies, the
    spread between them (max minus min win rate), mean turns and mean winning margin.

    ``rates`` from win_rates, ``seats`` from seat_advantage, ``length`` from game_length,
    ``margin`` from distribution(winning_margin(...), "margin", by=None).
    """
    best = (rates.sort("rate", descending=True).group_by("variant_id", maintain_order=True)
            .agg(pl.col("strategy").first().alias("best"), pl.col("rate").first().alias("best_rate"),
                 pl.col("strategy").last().alias("worst"), pl.col("rate").last().alias("worst_rate")))
    out = seats.select("variant_id", "variant", "players", "games", "first_rate", "first_lo", "first_hi",
                       "fair", "edge", "edge_lo", "edge_hi", "p_value", "max_seat_gap").join(best, on="variant_id")
    out = out.with_columns((pl.col("best_rate") - pl.col("worst_rate")).alias("spread"))
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


def most_balanced(head: pl.DataFrame) -> pl.DataFrame:
    """Variants ordered from most to least balanced seats (first seat's edge closest to zero),
    with their strategy spread and the rank of that spread (1 = strategies closest together)."""
    return (head.with_columns(pl.col("edge").abs().alias("abs_edge"),
                              pl.col("spread").rank("min").cast(pl.Int32).alias("spread_rank"))
            .sort("abs_edge", "spread")
            .with_columns(pl.int_range(1, pl.len() + 1).alias("seat_rank")))
