"""Drama: how the lead moved in each game (the kernels' lead_changes, lead_from, comeback and
margin; safari_sim/engine/drama.py says how each is counted), per variant and in words.

    from safari_sim.stats import drama
    d = drama.table(lf)          # per variant and column: n, mean, sd, quantiles, and shares
    drama.sentences(d, "points") # one plain sentence per column (of one variant's rows)

A tie for the win has no winner: its ``lead_from``, ``comeback`` and ``margin`` are NaN and are
left out of those columns' distributions (``n`` counts the games that had one).
"""

from __future__ import annotations

import polars as pl

from .scores import distribution, one_row_per_game
from .words import number, pct

COLUMNS = ("lead_changes", "lead_from", "comeback", "margin")


def columns(lf: pl.LazyFrame) -> list[str]:
    """The drama columns the dataset has (none for a game whose kernels do not keep them)."""
    schema = lf.collect_schema()
    return [c for c in COLUMNS if c in schema]


def table(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per variant and drama column (long form, ``statistic``): n (games with a value), mean, sd,
    min, q10 ... q90, max, ``zero`` (share of those games where it is 0: no lead change, led from
    the first update, never behind, ...) and ``all_games`` (games in the variant). Empty when the
    dataset has no drama columns."""
    cols = columns(lf)
    if not cols:
        return pl.DataFrame()
    games = one_row_per_game(lf)
    every = games.group_by("variant_id").agg(pl.len().alias("all_games")).collect()
    parts = []
    for c in cols:
        x = pl.col(c).cast(pl.Float64)
        valid = games.filter(x.is_not_nan() & x.is_not_null())
        # the summaries from how many games hold each value (scores.distribution): quantiles of
        # every game's value held at once would not fit for 100 M games
        zero = valid.group_by("variant_id").agg((x == 0).mean().alias("zero")).collect()
        agg = distribution(valid, c, by=None).join(zero, on="variant_id")
        parts.append(every.join(agg, on="variant_id", how="left").with_columns(pl.lit(c).alias("statistic")))
    order = {c: k for k, c in enumerate(cols)}
    return (pl.concat(parts, how="diagonal_relaxed")
            .sort("variant_id", pl.col("statistic").replace_strict(order))
            .select("variant_id", "statistic", pl.exclude("variant_id", "statistic")))


def sentence(row: dict, unit: str = "points", teams: bool | int = False) -> str:
    """One plain sentence for one variant's row of ``table``; with ``teams`` (True, or the number
    of teams) the sides are teams (the kernels keep a team's one score: partners do not lead
    against each other). The margin says over which games it is taken (those with a sole
    winner), so it is not read against "How games go"'s margin, where a tie counts 0."""
    c, n, mean = row["statistic"], row["n"] or 0, row["mean"]
    winner, winners = ("winning team", "winning teams") if teams else ("winner", "winners")
    if not n:
        return f"{c}: no game with a sole {winner} to measure."
    median = row["q50"]
    if c == "lead_changes":
        return (f"The lead changes hands {number(mean, 2)} times a game on average (median "
                f"{number(median, 1)}, 90% of games at most {number(row['q90'], 1)}); in "
                f"{pct(row['zero'])} of games it never changes.")
    if c == "lead_from":
        first = (f"no {winner} leads from the first score on" if row["zero"] == 0 else
                 f"{pct(row['zero'])} of {winners} lead from the first score on")
        return (f"The {winner} takes the lead for good {pct(mean)} of the way through the game on "
                f"average (median {pct(median)}); {first}, and in a quarter of games the {winner} "
                f"only goes ahead for good after {pct(row['q75'])} of the game.")
    if c == "comeback":
        behind = 1 - row["zero"]
        return (f"{pct(behind)} of {winners} were behind at some point; the largest deficit a {winner} "
                f"overcame averages {number(mean, 2)} {unit} (median {number(median, 1)}; in a tenth of "
                f"games {number(row['q90'], 1)} or more).")
    if c == "margin":
        other = ("the other team" if teams == 2 and teams is not True else
                 "the best other team" if teams else "the best other player")
        games = row.get("all_games")
        if games and n < games:  # the games tied for first have no winner's lead: not 0 here
            return (f"In the {n:,} of {games:,} games with a sole {winner}, it finishes "
                    f"{number(mean, 2)} {unit} ahead of {other} on average (median "
                    f"{number(median, 1)}; a quarter of them are won by {number(row['q25'], 1)} or "
                    f"less); the games tied for first are left out, not counted as 0.")
        return (f"The {winner} finishes {number(mean, 2)} {unit} ahead of {other} on average "
                f"(median {number(median, 1)}; a quarter of games are won by "
                f"{number(row['q25'], 1)} or less).")
    return f"{c}: mean {number(mean, 2)}."


def sentences(rows: list[dict], unit: str = "points", teams: bool = False) -> list[str]:
    return [sentence(r, unit, teams) for r in rows]
