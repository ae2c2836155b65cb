"""Safety stops: games (or rounds) that a game's cap ended before its rules did.

A game that could loop has a safety stop (a Rules field) and counts what it cut short in a
statistic column: ``capped`` (1 for a game the cap ended) or ``capped_rounds`` (rounds the cap
ended within a game). A designer must see them: a capped game's result is not the game's.
"""

from __future__ import annotations

import polars as pl

CAP_COLUMNS = ("capped", "capped_rounds")


def safety_stops(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per variant: games, and for each cap column present, its total over the games (a per-game
    statistic is repeated on every seat's row, so it is counted once per game). Empty when the
    game has no safety stop."""
    cols = [c for c in CAP_COLUMNS if c in lf.collect_schema().names()]
    if not cols:
        return pl.DataFrame()
    # the starting seat's row: one per game, so no group-by over every game (flat memory)
    per_game = lf.filter(pl.col("seat") == 0)
    return (per_game.group_by("variant_id", "variant")
            .agg(pl.len().alias("games"), *(pl.col(c).sum() for c in cols),
                 *((pl.col(c) > 0).sum().alias(f"games_{c}") for c in cols if c != "capped"))
            .sort("variant_id").collect())


def sentence(df: pl.DataFrame) -> str | None:
    """One line for a run's summary or a report, or None when nothing was cut short."""
    if df.is_empty():
        return None
    games = int(df["games"].sum())
    parts = []
    if "capped" in df.columns and df["capped"].sum():
        parts.append(f"{int(df['capped'].sum()):,} of {games:,} games were ended by the safety stop")
    if "capped_rounds" in df.columns and df["capped_rounds"].sum():
        parts.append(f"{int(df['capped_rounds'].sum()):,} rounds (in {int(df['games_capped_rounds'].sum()):,} "
                     f"of {games:,} games) were ended by the safety stop")
    if not parts:
        return f"no game or round hit a safety stop ({games:,} games)"
    return "; ".join(parts) + ": their results are the cap's, not the rules'"
