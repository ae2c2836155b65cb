"""Does who sits next to whom matter? The seat-to-seat effect under ``seating: permute``.

Under permutation every strategy sits in every seat with every other strategy on its right (the
player who plays just before it) equally often, so a neighbour effect can be told from a seat
effect. The model of a row's win share w is

    E[w] = a(table, strategy, seat) + b(table, strategy, right-hand neighbour)

and the test is of b = 0 with the seat terms kept (so an unequal seat is not mistaken for a
neighbour). It is a score test like ``design.seat_test``: residuals e = w - (the mean of the row's
strategy in its seat, at its table), projected off the seat terms: for each (table, strategy,
neighbour) cell U = sum over rows of (1[neighbour] - share of that neighbour in the row's
strategy-and-seat) e. The win shares of a game sum to 1, so one strategy per table (its last) is
left out, as is one neighbour per strategy; the covariance of U is taken from the deals' sums
(cluster-robust) and U' V^-1 U is chi-square on the rank of V.

In a game played in teams a strategy's partner decides who its opponents are, so who partners
whom always "matters" as soon as strategies differ (that is the pairs' win rates of the report,
not a seating effect; and with four strategies at a table the pairs' rates are exactly what the
strategies' own strengths give, so no partner synergy can be told from them). The question left
for seating is whether the right-hand neighbour (an opponent, with partners across) matters once
the partners are accounted for: the same test with a row's win its team's (1 when its team
wins) and its stratum (table, strategy, seat, partner) in place of (table, strategy, seat).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.stats import chi2

from . import teams as team_rows
from .design import LEVEL, _index
from .words import pvalue


def right_neighbours(lf: pl.LazyFrame, lay: pl.DataFrame | None = None) -> pl.LazyFrame:
    """The rows with ``right``: the strategy in the seat just before (seat - 1, wrapping); in a
    variant of ``lay`` (``teams.layout``) also ``partner`` (the next seat of the same team,
    wrapping; "" elsewhere), and ``win`` the team's."""
    lay = team_rows.layout(lf) if lay is None else lay
    schema = lf.collect_schema()
    deal = pl.col("deal") if "deal" in schema else pl.col("game")
    d = team_rows.team_wins(lf, lay).select(
        pl.col("variant_id").cast(pl.Int64), pl.col("game").cast(pl.Int64), deal.cast(pl.Int64).alias("_deal"),
        pl.col("seat").cast(pl.Int64), pl.col("strategy"), pl.col("win").cast(pl.Float64))
    d = d.join(lf.select(pl.col("variant_id").cast(pl.Int64), pl.col("players").cast(pl.Int64)).unique(),
               on="variant_id")
    prev = d.select("variant_id", "game", ((pl.col("seat") + 1) % pl.col("players")).alias("seat"),
                    pl.col("strategy").alias("right"))
    d = d.join(prev, on=["variant_id", "game", "seat"], how="left")
    pairs = [(vid, s, m[(i + 1) % len(m)]) for vid, members in lay.select("variant_id", "members").iter_rows()
             for m in members for i, s in enumerate(m)]
    mate = pl.DataFrame(pairs, schema={"variant_id": pl.Int64, "seat": pl.Int64, "_mate": pl.Int64}, orient="row")
    partner = d.select("variant_id", "game", pl.col("seat").alias("_mate"), pl.col("strategy").alias("partner"))
    return (d.join(mate.lazy(), on=["variant_id", "seat"], how="left")
            .join(partner, on=["variant_id", "game", "_mate"], how="left")
            .with_columns(pl.col("partner").cast(pl.String).fill_null("")).drop("_mate"))


def neighbour_test(lf: pl.LazyFrame, experiment: dict | None = None) -> dict:
    """The test over all variants together: statistic, df, p_value, games, the largest cell
    (strategy, right, rate with that neighbour, rate otherwise) and ``testable`` (false when
    fewer than three players or no strategy ever changes its neighbour). ``partners``: the
    dataset plays in teams, and the test is of the right-hand neighbour with the partner
    accounted for, the largest cell its team's win rate beyond what seat and partner give
    (``excess``; the module's doc)."""
    lf = team_rows.with_teams(lf, experiment)
    lay = team_rows.layout(lf)
    d = right_neighbours(lf, lay).collect()
    out = {"testable": False, "statistic": float("nan"), "df": 0, "p_value": float("nan"), "partners": bool(len(lay)),
           "games": int(d.select(pl.struct("variant_id", "game").n_unique()).item()) if len(d) else 0}
    if not len(d) or int(d["players"].max()) < 3:
        return out
    # every (table, strategy) and its (seat) and (neighbour) numbered
    keys = d.select("variant_id", "strategy").unique().sort("variant_id", "strategy").with_row_index("_k")
    d = d.join(keys.with_columns(pl.col("_k").cast(pl.Int64)), on=["variant_id", "strategy"]).with_columns(
        (pl.col("right").rank("dense").cast(pl.Int64) - 1).alias("_j"))
    last = d.group_by("variant_id").agg(pl.col("strategy").max().alias("_last"))
    d = d.join(last, on="variant_id").filter(pl.col("strategy") != pl.col("_last"))
    k, j, seat = d["_k"].to_numpy(), d["_j"].to_numpy(), d["seat"].to_numpy()
    w = d["win"].to_numpy()
    nk, nj, ns = int(k.max()) + 1, int(j.max()) + 1, int(seat.max()) + 1
    # a row's stratum: its strategy and seat at its table (and in a team game its partner)
    _, mate = np.unique(d["partner"].to_numpy(), return_inverse=True)
    _, ks = np.unique((k * ns + seat) * (int(mate.max()) + 1) + mate, return_inverse=True)
    n_strata = int(ks.max()) + 1
    count_ks = np.bincount(ks, minlength=n_strata).astype(float)
    mean_ks = np.bincount(ks, w, minlength=n_strata) / np.maximum(count_ks, 1)
    e = w - mean_ks[ks]
    cell = k * nj + j
    share = np.bincount(ks * nj + j, minlength=n_strata * nj).reshape(n_strata, nj) / np.maximum(count_ks, 1)[:, None]
    # the cells that vary: each strategy's neighbours, one left out (the last it has)
    seen = np.bincount(cell, minlength=nk * nj).reshape(nk, nj) > 0
    cols = []
    for kk in range(nk):
        js = np.flatnonzero(seen[kk])
        cols += [(kk, jj) for jj in js[:-1]]
    if not cols:
        return out
    n_deals, di = _index(d["_deal"].to_numpy() + (d["variant_id"].to_numpy() << 40))
    u = np.empty((n_deals, len(cols)))
    for c, (kk, jj) in enumerate(cols):
        x = ((k == kk) & (j == jj)).astype(float) - np.where(k == kk, share[ks, jj], 0.0)
        u[:, c] = np.bincount(di, x * e, minlength=n_deals)
    total = u.sum(axis=0)
    v = u.T @ u * (n_deals / (n_deals - 1) if n_deals > 1 else 1.0)
    ev, vec = np.linalg.eigh(v)
    keep = ev > max(ev.max(), 0.0) * 1e-9
    if not keep.any():
        return out
    proj = vec[:, keep].T @ total
    stat = float((proj * proj / ev[keep]).sum())
    dof = int(keep.sum())
    # the largest single effect: a strategy winning more with one right-hand neighbour than with its others
    cells = (d.group_by("variant_id", "strategy", "right").agg(pl.col("win").mean().alias("rate"), pl.len().alias("n"))
             .with_columns(((pl.col("rate") * pl.col("n")).sum().over("variant_id", "strategy") - pl.col("rate") * pl.col("n"))
                           .truediv(pl.col("n").sum().over("variant_id", "strategy") - pl.col("n")).alias("rate_other"))
             .with_columns((pl.col("rate") - pl.col("rate_other")).alias("gap")).sort("gap", descending=True))
    top = cells.row(0, named=True)
    if out["partners"]:  # the cell whose team wins most beyond what its seat and partner give
        by = (d.with_columns(pl.Series("_e", e)).group_by("variant_id", "strategy", "right")
              .agg(pl.col("_e").mean().alias("excess"), pl.len().alias("n"))
              .filter(pl.col("n") > 0).sort("excess", descending=True))
        ex = by.row(0, named=True)
        top = cells.filter((pl.col("variant_id") == ex["variant_id"]) & (pl.col("strategy") == ex["strategy"])
                           & (pl.col("right") == ex["right"])).row(0, named=True)
        out["excess"] = ex["excess"]
    out.update(testable=True, statistic=stat, df=dof, p_value=float(chi2.sf(stat, dof)),
               strategy=top["strategy"], right=top["right"], rate=top["rate"], rate_other=top["rate_other"])
    return out


def neighbour_tests(lf: pl.LazyFrame, experiment: dict | None = None) -> list[dict]:
    """``neighbour_test`` for each way the experiment's variants are played: one test where
    every variant plays alike; in a mixed experiment (some variants in teams, some not, e.g. a
    sweep over Herds' ``teams_at_four``) one over the team variants, partners accounted for, and
    one over the others, players alone, each with ``variants`` (the labels it covers), so each
    variant is tested and worded as it was played."""
    lf = team_rows.with_teams(lf, experiment)
    in_teams = team_rows.team_variants(team_rows.layout(lf))
    ids = sorted(lf.select(pl.col("variant_id").unique()).collect()["variant_id"].to_list())
    groups = [g for g in ([v for v in ids if v in in_teams], [v for v in ids if v not in in_teams]) if g]
    if len(groups) < 2:
        return [neighbour_test(lf)]
    out = []
    for g in groups:
        part = lf.filter(pl.col("variant_id").is_in(g))
        labels = (part.group_by("variant_id").agg(pl.col("variant").first()).sort("variant_id")
                  .collect()["variant"].to_list())
        out.append({**neighbour_test(part), "variants": [str(x) for x in labels]})
    return out


def neighbour_sentence(t: dict, level: float = LEVEL) -> str:
    """One sentence: whether who sits on a strategy's right (in a team game: once its partner is
    accounted for) changes how often it wins; with ``variants`` (``neighbour_tests`` of a mixed
    experiment) it says which variants, and how they were played, the test covers."""
    text = _partner_sentence(t, level) if t.get("partners") else _player_sentence(t, level)
    if not t.get("variants"):
        return text
    names = t["variants"]
    which = f"variant {names[0]}" if len(names) == 1 else "variants " + ", ".join(names)
    how = "played in teams" if t.get("partners") else "played without teams, each player for themselves"
    return f"In the {which} ({how}): {text[0].lower()}{text[1:]}"


def _player_sentence(t: dict, level: float) -> str:
    if not t["testable"]:
        return "Who sits next to whom cannot be tested here (fewer than three players, or neighbours never change)."
    test = f"a test of each strategy's win rate by its right-hand neighbour, seats and tables accounted for: " \
           f"chi-square {t['statistic']:.1f} on {t['df']} df, {pvalue(t['p_value'])}"
    if t["p_value"] < level:
        return (f"Neighbours matter: a strategy's win rate depends on who sits on its right (plays just before it) "
                f"({test}); the largest effect: {t['strategy']} wins {t['rate']:.1%} with {t['right']} on its right "
                f"against {t['rate_other']:.1%} with the others.")
    return f"There is no evidence that who sits next to whom matters ({test})."


def _partner_sentence(t: dict, level: float) -> str:
    if not t["testable"]:
        return ("Who sits next to whom cannot be tested here: neighbours never change once partners are "
                "accounted for (seating: permute changes both).")
    test = (f"a test of each strategy's team win rate by its right-hand neighbour, with its partner, seat and "
            f"table accounted for: chi-square {t['statistic']:.1f} on {t['df']} df, {pvalue(t['p_value'])}")
    if t["p_value"] < level:
        return (f"Neighbours matter beyond partners: how often a strategy's team wins depends on who sits on its "
                f"right (plays just before it), partners accounted for ({test}); the largest effect: "
                f"{t['strategy']}'s team wins {100 * t['excess']:+.1f} percentage points more than its seat and "
                f"partner give with {t['right']} on its right.")
    return (f"There is no evidence that who sits next to whom matters once partners are accounted for ({test}); "
            f"which partners win is the pairs' win rates.")
