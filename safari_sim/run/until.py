"""`until:`: stop a run before its budget once the answer is clear.

Checked after each round of chunks (chunk c of every variant), in chunk order, on the games of
chunks 0 .. c only, so where a run stops depends on its seed alone, never on how many workers
played it or in what order chunks finished; a resumed run stops at the same chunk.

A game played in teams is read as teams (stats/teams.py): ``interval`` holds every pair of
partners' win rate (against a fair 50% with two teams), and ``compare: [A, B]`` compares the
teams A and B play in, on the games where they are opponents (partners win and lose together:
a game where they partner each other says nothing), each game's difference 1 or -1.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from ..stats import sequential, teams
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
    a, b = u.compare
    rows = lf.filter(pl.col("strategy").cast(pl.Utf8).is_in([a, b]))
    if len(lay):  # each one's win its team's; the games where they partner each other left out
        rows = (teams.team_wins(lf, lay).filter(pl.col("strategy").cast(pl.Utf8).is_in([a, b]))
                .filter(pl.col("team").n_unique().over("variant_id", "game") == 2))
    both = (rows
            .group_by("variant_id", "variant", "deal", "game")
            .agg((pl.col("win") * (pl.col("strategy").cast(pl.Utf8) == a)).sum().alias("wa"),
                 (pl.col("win") * (pl.col("strategy").cast(pl.Utf8) == b)).sum().alias("wb"),
                 pl.col("strategy").n_unique().alias("k"))
            .filter(pl.col("k") == 2)
            .group_by("variant_id", "variant", "deal").agg((pl.col("wa") - pl.col("wb")).mean().alias("d"))
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
            words.append(f"the team {win} plays in wins more than the team {lose} plays in, by {points(mean)} "
                         f"+- {points(r)} percentage points ({part.height:,} deals where they were opponents"
                         f"{'' if n_variants == 1 else ', ' + str(label)})")
            continue
        words.append(f"{win} wins more than {lose} by {points(mean)} +- {points(r)} percentage points "
                     f"({part.height:,} deals{'' if n_variants == 1 else ', ' + str(label)})")
    return "; ".join(words) + f" (always-valid {1 - u.alpha:.0%} confidence sequence)"


def budget_deals(spec) -> int:
    return spec.games // spec.players if spec.seating == "duplicate" else spec.games

