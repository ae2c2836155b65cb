"""Statistics on a results dataset: functions that take the lazy scan and return polars tables.

    from safari_sim import stats
    lf = stats.scan("results/quickstart")
    stats.win_rates(lf)            # per variant and strategy, with 95% Wilson intervals
    stats.seat_advantage(lf)       # the test of equal seats and the first seat's edge, in words
    stats.head_to_head(lf)         # A ahead of B, in the games where both play
    stats.ratings(lf)              # Bradley-Terry ratings on the Elo scale
    stats.moved("results/a", "results/b")   # what changed between two runs, and what moved

Every table has a ``variant_id`` column (0 when there is no sweep).
"""

from .dataset import (DatasetError, chunk_files, load_experiment, per_game_columns, scan, stat_columns,
                      variants)
from .compare import moved, rules_diff
from .intervals import games_to_halve, wilson, with_wilson
from .pairs import bradley_terry, head_to_head, ratings, strategies
from .scores import distribution, game_length, histogram, one_row_per_game, seat_statistics, winning_margin
from .sweep import headlines, most_balanced, sweep_table
from .wins import seat_advantage, seat_win_rates, win_rates

__all__ = [
    "DatasetError", "chunk_files", "load_experiment", "per_game_columns", "scan", "stat_columns", "variants",
    "moved", "rules_diff",
    "games_to_halve", "wilson", "with_wilson",
    "bradley_terry", "head_to_head", "ratings", "strategies",
    "distribution", "game_length", "histogram", "one_row_per_game", "seat_statistics", "winning_margin",
    "headlines", "most_balanced", "sweep_table",
    "seat_advantage", "seat_win_rates", "win_rates",
]
