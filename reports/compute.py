"""Every number the report shows, computed from the dataset and experiment.json only.

``compute_tables`` returns the statistics as polars tables (all variants together), so tests and
notebooks see exactly what the report prints. ``summarise`` turns them into the sentences at the
top of the report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from safari_sim import stats
from safari_sim.stats.words import first_seat_verdict, pct, pm, points, signed_points


class ReportError(Exception):
    """The report cannot be made (no dataset, no experiment.json); the message is one line."""


def open_results(results_dir: str | Path) -> tuple[pl.LazyFrame, dict[str, Any]]:
    """The lazy dataset and the experiment of a results directory, or a ReportError."""
    results_dir = Path(results_dir)
    if not results_dir.is_dir():
        raise ReportError(f"{results_dir}: no such results directory")
    try:
        experiment = stats.load_experiment(results_dir)
        lf = stats.scan(results_dir)
    except stats.DatasetError as e:
        raise ReportError(str(e)) from None
    return lf, experiment


def compute_tables(lf: pl.LazyFrame, experiment: dict[str, Any]) -> dict[str, pl.DataFrame]:
    """All the report's statistics, each a polars table with a variant_id column."""
    lower = bool(experiment.get("lower_score_wins", False))
    t: dict[str, pl.DataFrame] = {}
    t["variants"] = stats.variants(lf)
    names = stats.strategies(lf)
    t["win_rates"] = stats.win_rates(lf, "strategy")
    t["seat_rates"] = stats.seat_win_rates(lf)
    t["seat_advantage"] = stats.seat_advantage(lf, t["seat_rates"])
    t["head_to_head"] = stats.head_to_head(lf, names)
    t["ratings"] = stats.ratings(h2h=t["head_to_head"])
    t["scores_strategy"] = stats.distribution(lf, "score", "strategy")
    t["scores_seat"] = stats.distribution(lf, "score", "seat")
    bins = stats.scores.bins_for(lf, "score")
    t["hist_strategy"] = stats.histogram(lf, "score", "strategy", bins)
    t["hist_seat"] = stats.histogram(lf, "score", "seat", bins)
    # The margin needs one group-by over all games: do it once, then summarise the small result.
    margin = stats.winning_margin(lf, lower).collect().lazy()
    t["margin"] = (stats.distribution(margin, "margin", by=None)
                   .join(margin.group_by("variant_id").agg(pl.col("tied").mean().alias("tied_share")).collect(),
                         on="variant_id"))
    t["hist_margin"] = stats.histogram(margin, "margin", by=None)
    per_game = stats.per_game_columns(lf)
    t["length"] = stats.game_length(lf, per_game)
    games = stats.one_row_per_game(lf)
    t["hist_length"] = pl.concat(
        [stats.histogram(games, c, by=None).with_columns(pl.lit(c).alias("statistic"))
         for c in per_game if c in ("turns", "rounds")] or [pl.DataFrame()], how="diagonal")
    t["seat_stats"] = stats.seat_statistics(lf, "strategy")
    t["sweep"] = stats.sweep_table(experiment)
    t["headlines"] = stats.headlines(t["win_rates"], t["seat_advantage"], t["length"], t["margin"])
    if len(t["sweep"].columns) > 1:
        t["headlines"] = t["headlines"].join(t["sweep"], on="variant_id", how="left")
    t["balance"] = stats.most_balanced(t["headlines"])
    return t


def about(n: int) -> int:
    """A sample size to two significant digits: 120,012 -> 120,000."""
    step = 10 ** max(len(str(n)) - 2, 0)
    return int(round(n / step)) * step


def _strong(name: str) -> dict:
    return {"strong": name}


def summarise(t: dict[str, pl.DataFrame], experiment: dict[str, Any]) -> list[list]:
    """The "what this says" bullets. Each bullet is a list of parts: plain strings, or
    {"strong": text} for names, so the template can escape everything and still emphasise."""
    out: list[list] = []
    head = t["headlines"]
    n_var = len(head)
    players = int(head["players"][0])
    fair = 1 / players
    games = int(head["games"].max())
    if n_var == 1:
        rates = t["win_rates"].sort("rate", descending=True)
        best, worst = rates.row(0, named=True), rates.row(-1, named=True)
        if best["lo"] > fair:
            out.append([_strong(best["strategy"]), f" wins most often: {pct(best['rate'])} {pm(best['lo'], best['hi'])} "
                        f"of its games, against a fair share of {pct(fair)} with {players} players."])
        else:
            out.append(["No strategy wins detectably more than its fair share of "
                        f"{pct(fair)}; the best, ", _strong(best["strategy"]),
                        f", wins {pct(best['rate'])} {pm(best['lo'], best['hi'])}."])
        if worst["strategy"] != best["strategy"]:
            out.append([_strong(worst["strategy"]), f" wins least: {pct(worst['rate'])} "
                        f"{pm(worst['lo'], worst['hi'])}; the spread between best and worst is "
                        f"{points(best['rate'] - worst['rate'])} points."])
        seat = t["seat_advantage"].row(0, named=True)
        v = seat["verdict"]
        out.append([v[0].upper() + v[1:] + "."])
        h2h = t["head_to_head"]
        if len(h2h) and players > 2:  # with two players head to head is the win rate again
            top = h2h.sort("rate", descending=True).row(0, named=True)
            out.append(["Head to head, ", _strong(top["strategy"]), " finishes ahead of ", _strong(top["opponent"]),
                        f" in {pct(top['rate'])} {pm(top['lo'], top['hi'])} of their games together."])
    else:
        seats = t["balance"]
        lo_row, hi_row = head.sort("edge").row(0, named=True), head.sort("edge").row(-1, named=True)
        out.append(["Across the ", f"{n_var} variants the first seat's edge goes from "
                    f"{signed_points(lo_row['edge'])} points (", _strong(lo_row["variant"]), f") to "
                    f"{signed_points(hi_row['edge'])} points (", _strong(hi_row["variant"]), ")."])
        bal = seats.row(0, named=True)
        verdict = first_seat_verdict(bal["first_rate"], bal["first_lo"], bal["first_hi"], bal["fair"])
        out.append(["Most balanced seats: ", _strong(bal["variant"]), f", where {verdict}."])
        sp = head.sort("spread")
        a, b = sp.row(0, named=True), sp.row(-1, named=True)
        out.append(["Strategies are closest together in ", _strong(a["variant"]),
                    f" (best minus worst: {points(a['spread'])} points) and furthest apart in ",
                    _strong(b["variant"]), f" ({points(b['spread'])} points)."])
        bests = head["best"].unique(maintain_order=True).to_list()
        if len(bests) == 1:
            out.append([_strong(bests[0]), " wins most often in every variant."])
        else:
            out.append(["The strategy that wins most often changes with the variant: ",
                        *[p for k, s in enumerate(bests) for p in ([", "] if k else []) + [_strong(s)]], "."])
    if "turns_mean" in head.columns and head["turns_mean"].is_not_null().all():
        length = t["length"].filter(pl.col("statistic") == "turns")
        if n_var == 1:
            r = length.row(0, named=True)
            out.append([f"A game lasts {r['mean']:.1f} turns on average (the middle half of games "
                        f"{r['q25']:g} to {r['q75']:g} turns)."])
        else:
            out.append([f"Games last {head['turns_mean'].min():.1f} to {head['turns_mean'].max():.1f} "
                        "turns on average across variants."])
    widest = t["win_rates"].with_columns((pl.col("hi") - pl.col("lo")).alias("w")).sort("w").row(-1, named=True)
    need = about(int(t["win_rates"]["games_to_halve"].max()))
    per = "per variant " if n_var > 1 else ""
    out.append([f"Sample size: the widest win-rate interval is {pm(widest['lo'], widest['hi'])}; about "
                f"{need:,} games {per}(now {games:,}) would halve it; running the experiment "
                f"again with --games {need} into the same output plays only the new games."])
    if experiment.get("seating") == "fixed":
        out.append(["Seating is fixed: each strategy always sits in the same seat, so seat differences "
                    "and strategy differences are mixed up."])
    return out
