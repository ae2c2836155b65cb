"""Reading a big dataset a slice of games at a time, so a report's memory stays flat.

Statistics that need a value per game or per deal (the seat test's per-deal scores, head to head,
the winning margin) would otherwise hold one row per game of the whole dataset at once: 100 M
games do not fit in a few GB. ``game_slices`` cuts the dataset into ranges of game numbers; each
is a lazy filter on ``game``, which polars pushes down to the Parquet row groups, so a slice
reads only its own chunks. A range always holds whole deals: under ``duplicate`` the P rotations
of deal d are games P*d .. P*d + P - 1, and a range's ends are multiples of 60 (every player count
from 2 to 5 divides it). The callers sum per-slice sufficient statistics; on a dataset of one
slice (every test's) the arithmetic is the same as on the whole table.
"""

from __future__ import annotations

import polars as pl

ROWS_PER_SLICE = 3_000_000  # rows read at once: about 0.4 GB in polars and numpy (the seat test)
WHOLE_DEALS = 60            # divisible by every player count


def game_slices(lf: pl.LazyFrame, rows: int | None = None) -> list[pl.LazyFrame]:
    """``lf`` as lazy slices of whole games (and whole deals), about ``rows`` rows each (default
    ``ROWS_PER_SLICE``); the frame itself when it is no bigger."""
    rows = ROWS_PER_SLICE if rows is None else rows
    n, top = lf.select(pl.len(), pl.col("game").max()).collect().row(0)
    if not n or n <= rows:
        return [lf]
    per_game = n / (top + 1)  # rows per game number, over every variant
    step = max(WHOLE_DEALS, int(rows / per_game) // WHOLE_DEALS * WHOLE_DEALS)
    return [lf.filter(pl.col("game").is_between(lo, lo + step - 1)) for lo in range(0, top + 1, step)]
