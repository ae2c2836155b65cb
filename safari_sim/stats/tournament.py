"""A tournament over a pool: every strategy rated across all the tables it sat at.

An experiment with ``pool:`` plays each table (a line-up of N strategies from the pool) as one
variant. Here the tables are pooled: every game, at every table, gives one finishing order, and
from it one comparison per pair of its players (a tie between two counts half).

- **Ratings**: a Bradley-Terry fit to all those comparisons (``pairs.bradley_terry``), on the
  Elo scale, centred on 0 = the average strategy of the pool. Intervals are percentile intervals
  from resampling whole deals (a game, or the rotations of one duplicate deal) within each table,
  so the pairs of one game, and the games of one deal, count as dependent and every table keeps
  its number of games.
- **Win-rate matrix**: for each ordered pair, the share of the games where both sat in which the
  row strategy finished ahead, over all tables (``pairs.head_to_head`` on the pooled games:
  Wilson intervals clustered by deal).
- **The best**: the strategy with the highest rating, the share of resamples in which it rates
  highest, and the interval of its lead over each other strategy. Strategies whose lead interval
  reaches 0 are tied with it.

A game played in teams is rated on its ``teams.team_frame``: the unit is a pair of partners
("blocker + collector"), one finishing order of teams per game. A pair meets only the pairs its
tables seat against it: under ``rotate`` a table's partners never change (one pairing a table),
so the pairs may fall into groups that never met (``best["groups"]``), whose ratings cannot be
compared; ``permute`` plays every pairing at every table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from scipy.sparse.csgraph import connected_components

from .words import decimals, pct, signed
from .pairs import ELO, bradley_terry, head_to_head, rank_table, strategies

RESAMPLES = 400
BASE = ("variant_id", "game", "seat", "strategy", "rank", "win", "players")


def is_tournament(experiment: dict[str, Any]) -> bool:
    """Whether the experiment is a tournament: it has a pool, or its variants are line-ups."""
    return bool(experiment.get("pool")) or any("lineup" in (v.get("sweep") or {})
                                               for v in experiment.get("variants") or [])


def pooled(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Every table's games as the games of one variant (0): games and deals renumbered so that
    no two tables share one, the table kept in ``table``."""
    schema = lf.collect_schema()
    deal = pl.col("deal") if "deal" in schema else pl.col("game")
    shift = pl.col("variant_id").cast(pl.Int64) * (1 << 40)
    return lf.select(pl.col("variant_id").cast(pl.Int64).alias("table"),
                     (shift + pl.col("game").cast(pl.Int64)).alias("game"),
                     (shift + deal.cast(pl.Int64)).alias("deal"),
                     *[pl.col(c) for c in BASE if c not in ("variant_id", "game")]
                     ).with_columns(pl.lit(0, pl.Int16).alias("variant_id"), pl.lit("all tables").alias("variant"))


def _per_deal(games: pl.DataFrame, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(table of each deal, ahead[deal, i, j]: times i finished ahead of j in the deal's games)."""
    exprs = []
    for i in range(n):
        for j in range(n):
            a, b = pl.col(f"r{i}"), pl.col(f"r{j}")
            both = a.is_not_null() & b.is_not_null() & pl.lit(i != j)
            exprs.append(pl.when(both).then((a < b).cast(pl.Float64) + 0.5 * (a == b).cast(pl.Float64))
                         .otherwise(0.0).alias(f"a{i}_{j}"))
    per = (games.lazy().with_columns(*exprs).group_by("_deal")
           .agg(pl.col("table").first(), *[pl.col(f"a{i}_{j}").sum() for i in range(n) for j in range(n)])
           .sort("_deal").collect())
    ahead = per.select([f"a{i}_{j}" for i in range(n) for j in range(n)]).to_numpy().reshape(-1, n, n)
    return per["table"].to_numpy(), ahead


def _resampled(per: np.ndarray, table: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """ahead[b, i, j] of each resample: the deals of every table drawn again with replacement
    (every table keeps its number of deals)."""
    rng = np.random.default_rng(seed)
    d = len(per)
    weights = np.zeros((resamples, d))
    rows = np.arange(resamples)[:, None]
    for t in np.unique(table):
        idx = np.flatnonzero(table == t)
        pick = idx[rng.integers(0, len(idx), (resamples, len(idx)))]
        np.add.at(weights, (np.broadcast_to(rows, pick.shape), pick), 1.0)
    n = per.shape[1]
    return (weights @ per.reshape(d, n * n)).reshape(resamples, n, n)


def _fit_many(ahead: np.ndarray, iterations: int = 2000, tol: float = 1e-10) -> np.ndarray:
    """Bradley-Terry theta (mean 0) of every resample at once: the MM iteration of Zermelo and
    Hunter (2004), p_i = wins_i / sum_j n_ij / (p_i + p_j), which converges to the maximum
    likelihood that ``pairs.bradley_terry`` finds, for many small problems together."""
    n = ahead + np.swapaxes(ahead, 1, 2)
    ahead = ahead + 1e-6 * n  # keeps a strategy that never wins in a resample finite
    n = ahead + np.swapaxes(ahead, 1, 2)
    wins = ahead.sum(axis=2)
    p = np.ones(wins.shape)
    for _ in range(iterations):
        new = wins / (n / (p[:, :, None] + p[:, None, :])).sum(axis=2)
        new /= np.exp(np.log(new).mean(axis=1, keepdims=True))
        done = np.abs(np.log(new) - np.log(p)).max() < tol
        p = new
        if done:
            break
    theta = np.log(p)
    return theta - theta.mean(axis=1, keepdims=True)


def tournament(lf: pl.LazyFrame, resamples: int = RESAMPLES, seed: int = 0) -> dict[str, Any]:
    """The tournament's tables: ``ratings`` (strategy, rating, rating_lo, rating_hi, best_share,
    lead, lead_lo, lead_hi, tied), ``matrix`` (the pooled head to head), and ``best``: a dict
    with the best strategy, the share of resamples where it rates best, the strategies tied
    with it and the table count."""
    p = pooled(lf)
    names = strategies(p)
    n = len(names)
    games = rank_table(p, names).join(p.group_by("game").agg(pl.col("table").first()), on="game").collect()
    matrix = head_to_head(p, names, games.lazy())
    table, per = _per_deal(games, n)
    theta, _, _ = bradley_terry(names, per.sum(axis=0))
    boot = _fit_many(_resampled(per, table, resamples, seed))
    q = (1 - 0.95) / 2
    lo, hi = np.quantile(boot, [q, 1 - q], axis=0)
    top = boot.argmax(axis=1)
    share = np.bincount(top, minlength=n) / resamples
    best = int(np.argmax(theta))
    lead = boot[:, best:best + 1] - boot
    lead_lo, lead_hi = np.quantile(lead, [q, 1 - q], axis=0)
    tied = (lead_lo <= 0) & (np.arange(n) != best)
    # who met whom: pairs of partners in a team game may fall into groups that never met
    groups, label = connected_components(per.sum(axis=0) + per.sum(axis=0).T > 0, directed=False)
    ratings = pl.DataFrame({
        "strategy": names, "rating": ELO * theta, "rating_lo": ELO * lo, "rating_hi": ELO * hi,
        "se": ELO * boot.std(axis=0, ddof=1), "best_share": share,
        "lead": ELO * (theta[best] - theta), "lead_lo": ELO * lead_lo, "lead_hi": ELO * lead_hi, "tied": tied,
        "tables": [int(games.filter(pl.col(f"r{k}").is_not_null())["table"].n_unique()) for k in range(n)],
        "games": [int(games[f"r{k}"].is_not_null().sum()) for k in range(n)],
    }).sort("rating", descending=True)
    order = ratings["strategy"].to_list()
    return {"ratings": ratings, "matrix": matrix, "names": order,
            "best": {"strategy": names[best], "share": float(share[best]),
                     "tied": [names[k] for k in np.flatnonzero(tied)],
                     "tables": int(np.unique(table).size), "resamples": resamples,
                     "groups": int(groups), "met": [names[k] for k in np.flatnonzero(label == label[best])]}}


def _tables(n: int) -> str:
    return "1 table" if n == 1 else f"{n} tables"


def best_sentence(t: dict[str, Any], teams: bool = False) -> list:
    """The verdict on the best strategy, in parts (plain strings and {"strong": name}); with
    ``teams`` on the pairs of partners of a team game."""
    b = t["best"]
    r = t["ratings"]
    first = r.row(0, named=True)
    share = f"it rates best in {pct(b['share'])} of {b['resamples']} resamples of the games"
    if teams:
        return _best_pair_sentence(t, first, share)
    if b["tied"]:
        second = r.filter(pl.col("strategy").is_in(b["tied"])).row(0, named=True)
        parts = [{"strong": b["strategy"]}, f" rates highest across the {_tables(b['tables'])} "
                 f"({first['rating']:+.0f} Elo), but it is tied with "]
        for k, s in enumerate(b["tied"]):
            if k:
                parts.append(" and " if k == len(b["tied"]) - 1 else ", ")
            parts.append({"strong": s})
        d = decimals(second["lead_hi"] - second["lead_lo"])
        parts.append(f": its lead over {second['strategy']} is {second['lead']:.{d}f} Elo points "
                     f"(interval {signed(second['lead_lo'], d)} to {signed(second['lead_hi'], d)}, which reaches 0), "
                     f"and {share}.")
        return parts
    second = r.row(1, named=True) if len(r) > 1 else None
    parts = [{"strong": b["strategy"]}, f" is the best strategy across the {_tables(b['tables'])} "
             f"({first['rating']:+.0f} Elo)"]
    if second:
        d = decimals(second["lead_hi"] - second["lead_lo"])
        parts.append(f", ahead of the next, {second['strategy']}, by {second['lead']:.{d}f} Elo points "
                     f"(interval {second['lead_lo']:.{d}f} to {second['lead_hi']:.{d}f})")
    parts.append(f"; {share}.")
    return parts


def _best_pair_sentence(t: dict[str, Any], first: dict, share: str) -> list:
    """The verdict of a team tournament: the best pair of partners, and which pairs it is rated
    against (only those in its group when the pairs never all met)."""
    b = t["best"]
    r = t["ratings"]
    head = [{"strong": b["strategy"]}, f" are the best partners across the {_tables(b['tables'])} "
            f"({first['rating']:+.0f} Elo, rated as pairs of partners: one finishing order of teams a game)"]
    if b.get("groups", 1) > 1:
        others = [s for s in b["met"] if s != b["strategy"]]
        return [*head, f"; but the {len(r)} pairs fall into {b['groups']} groups that never played each other "
                f"(partners never change at a table under rotate seating; seating: permute plays every pairing), "
                f"so they are rated against {', '.join(others) or 'no other pair'} only, and "
                f"{share.replace('it rates', 'they rate')}."]
    if b["tied"]:
        tied = ", ".join(b["tied"])
        second = r.filter(pl.col("strategy").is_in(b["tied"])).row(0, named=True)
        d = decimals(second["lead_hi"] - second["lead_lo"])
        return [*head, f", but tied with {tied}: their lead over {second['strategy']} is {second['lead']:.{d}f} Elo "
                f"points (interval {signed(second['lead_lo'], d)} to {signed(second['lead_hi'], d)}, which reaches 0), "
                f"and {share.replace('it rates', 'they rate')}."]
    second = r.row(1, named=True) if len(r) > 1 else None
    d = decimals(second["lead_hi"] - second["lead_lo"]) if second else 0
    lead = (f", ahead of the next pair, {second['strategy']}, by {second['lead']:.{d}f} Elo points "
            f"(interval {second['lead_lo']:.{d}f} to {second['lead_hi']:.{d}f})") if second else ""
    return [*head, lead, f"; {share.replace('it rates', 'they rate')}."]
