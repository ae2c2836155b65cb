"""`until:`: stop a run before its budget once the answer is clear.

Checked after each round of chunks (chunk c of every variant), in chunk order, on the games of
chunks 0 .. c only, so where a run stops depends on its seed alone, never on how many workers
played it or in what order chunks finished; a resumed run stops at the same chunk.

A game played in teams is read as teams (stats/teams.py): ``interval`` holds every pair of
partners' win rate (against a fair 50% with two teams), and ``compare: [A, B]`` compares the
teams A and B play in, on the games where they are opponents (partners win and lose together:
a game where they partner each other says nothing), each game's difference 1 or -1. A side may
be a pair of partners, "a + b" (``until_sides``): the games where a and b partner each other
and meet the other side as opponents.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..stats import sequential, teams
from . import until_sides
from ..stats.words import points
from ..stats.wins import win_rates


def check(spec, paths: list[Path], budget_deals: int, n_variants: int) -> str | None:
    """Why the run can stop on the games in ``paths`` (None: not yet)."""
    lf = pl.scan_parquet([str(p) for p in paths])
    u = spec.until
    lay = teams.layout(lf)
    in_teams = teams.team_variants(lay)  # a mixed experiment: each variant worded as it is played
    if u.interval is not None:
        rates = win_rates(teams.team_frame(lf, lay))
        w = rates.with_columns(((pl.col("hi") - pl.col("lo")) / 2).alias("_half")).sort("_half")
        widest = w.row(-1, named=True)
        half = widest["_half"]
        if half <= u.interval:
            # shares' differences are percentage points, as everywhere in the project
            what = "every win-rate interval"
            if in_teams:
                what += (" of a pair of partners" if len(in_teams) == n_variants else
                         " (of a pair of partners in the variants played in teams, of a strategy in the others)")
            where = "" if n_variants == 1 else (f" at the table {widest['variant']}"
                                                if getattr(spec, "pool", None) else f" in {widest['variant']}")
            return (f"{what} is within +-{points(u.interval)} percentage points "
                    f"(the widest +-{points(half)} percentage points: {widest['strategy']}{where})")
        return None
    a, b = until_sides.sides(u.compare, lf.select(pl.col("strategy").cast(pl.Utf8).unique())
                             .collect()["strategy"].to_list())
    # each player's win its team's (the partners' shares together) where the variant plays in teams
    rows = teams.team_wins(lf, lay) if len(lay) else lf
    if "team" not in rows.collect_schema():
        rows = rows.with_columns(pl.col("seat").alias("team"))
    rows = rows.with_columns(pl.col("strategy").cast(pl.Utf8))
    key = ["variant_id", "variant", "deal", "game"]
    # the games where the two sides meet as opponents: each side's names all seated, in one team,
    # and the two teams different; each game's difference is the first side's win less the other's
    both = (_side(rows, a, key, "a").join(_side(rows, b, key, "b"), on=key)
            .filter(pl.col("team_a") != pl.col("team_b"))
            .group_by("variant_id", "variant", "deal").agg((pl.col("win_a") - pl.col("win_b")).mean().alias("d"))
            .collect().sort("variant_id", "deal"))
    if both.height == 0:
        return None
    alpha = u.alpha / n_variants  # one decision per variant (Bonferroni)
    rho = sequential.tuned_rho(budget_deals)
    words = []
    for (vid, label), part in both.group_by(["variant_id", "variant"], maintain_order=True):
        side, mean, r = sequential.compare(part["d"].to_numpy(), alpha, rho)
        if side is None:
            return None
        win, lose = (a, b) if side == "A" else (b, a)
        if vid in in_teams:
            words.append(f"{_team(win)} wins more than {_team(lose)}, by {points(mean)} "
                         f"+- {points(r)} percentage points ({part.height:,} deals where they were opponents"
                         f"{'' if n_variants == 1 else ', ' + str(label)})")
            continue
        words.append(f"{win[0]} wins more than {lose[0]} by {points(mean)} +- {points(r)} percentage points "
                     f"({part.height:,} deals{'' if n_variants == 1 else ', ' + str(label)})")
    return "; ".join(words) + f" (always-valid {1 - u.alpha:.0%} confidence sequence)"


def _side(rows: pl.LazyFrame, names: tuple[str, ...], key: list[str], tag: str) -> pl.LazyFrame:
    """Per game where every one of ``names`` sits and all in one team: that team and its win."""
    return (rows.filter(pl.col("strategy").is_in(list(names))).group_by(key)
            .agg(pl.len().alias("_n"), pl.col("team").n_unique().alias("_k"),
                 pl.col("team").first().alias(f"team_{tag}"), pl.col("win").first().alias(f"win_{tag}"))
            .filter((pl.col("_n") == len(names)) & (pl.col("_k") == 1)).drop("_n", "_k"))


def _team(side: tuple[str, ...]) -> str:
    """A side in a team game: "the team a plays in", or "the team of a + b" for a pair."""
    return f"the team {side[0]} plays in" if len(side) == 1 else f"the team of {until_sides.side_text(side)}"


def budget_deals(spec) -> int:
    return spec.games // spec.players if spec.seating == "duplicate" else spec.games

