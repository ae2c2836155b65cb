"""Statistics on a results dataset: functions that take the lazy scan and return polars tables.

    from safari_sim import stats
    lf = stats.scan("results/quickstart")
    stats.win_rates(lf)            # per variant and strategy, 95% intervals clustered by deal
    stats.seat_advantage(lf)       # the test of equal seats (strategies accounted for), in words
    stats.head_to_head(lf)         # A ahead of B, in the games where both play
    stats.ratings(lf)              # Bradley-Terry ratings on the Elo scale
    stats.moved("results/a", "results/b")   # what changed between two runs, and what moved
    stats.tournament(lf)           # a pool's strategies rated across all tables, the best and how sure
    stats.neighbour_test(lf)       # under permute: does who sits on a strategy's right matter
    stats.teams.team_frame(lf)     # a game played in teams as one row per team per game

Every table has a ``variant_id`` column (0 when there is no sweep).
"""

import importlib

# the submodule of each name: imported on first use (PEP 562), so that a command that needs one
# table (``run`` reads the safety stops) does not import scipy.stats and every other on start-up
_WHERE = {
    "dataset": ["DatasetError", "chunk_files", "load_experiment", "per_game_columns", "scan", "stat_columns",
                "variants"],
    "compare": ["moved", "rules_diff"],
    "design": ["cluster_means", "holm", "seat_test", "with_design"],
    "intervals": ["games_to_halve", "wilson", "with_wilson"],
    "pairs": ["bradley_terry", "head_to_head", "pair_tests", "ratings", "strategies"],
    "scores": ["distribution", "game_length", "histogram", "one_row_per_game", "seat_statistics",
               "winning_margin"],
    "sweep": ["headlines", "most_balanced", "spread_intervals", "sweep_table", "tied_with_best"],
    "wins": ["seat_advantage", "seat_win_rates", "versus_fair", "win_rates"],
    "neighbours": ["neighbour_test"],
    "tournament": ["tournament"],
}
_MODULE = {name: mod for mod, names in _WHERE.items() for name in names}
_SUBMODULES = {"caps", "compare", "dataset", "design", "drama", "intervals", "neighbours", "pairs",
               "scores", "sensitivity", "sequential", "skill", "slices", "sweep", "teams",
               "tournament", "wins", "words"}


def __getattr__(name: str):
    if name in _MODULE:
        value = getattr(importlib.import_module(f".{_MODULE[name]}", __name__), name)
    elif name in _SUBMODULES:  # ``stats.scores.bins_for``: the submodule, imported now
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "DatasetError", "chunk_files", "load_experiment", "per_game_columns", "scan", "stat_columns", "variants",
    "moved", "rules_diff",
    "cluster_means", "holm", "seat_test", "with_design",
    "games_to_halve", "wilson", "with_wilson",
    "bradley_terry", "head_to_head", "pair_tests", "ratings", "strategies",
    "distribution", "game_length", "histogram", "one_row_per_game", "seat_statistics", "winning_margin",
    "headlines", "most_balanced", "spread_intervals", "sweep_table", "tied_with_best",
    "seat_advantage", "seat_win_rates", "versus_fair", "win_rates",
    "neighbour_test", "tournament", "teams",
]
