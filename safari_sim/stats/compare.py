"""What moved between two runs: the designer's "I changed a rule, what happened?".

Variants are paired by label (a run without a sweep has one variant, "base", and two such runs
pair whatever their labels). For each pair: which rules differ, and for each headline number
(each strategy's win rate and mean score, the first seat's win rate, the mean game length) the
value before and after, the change with its 95% interval and the p-value of "no change". With a
dozen numbers compared, one in twenty unchanged numbers would look real by chance if each were
judged alone, so a change is called real only when its Holm-adjusted p-value (over all the
numbers compared) is below 5%.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from .dataset import load_experiment, measure_columns, scan
from .design import LEVEL, cluster_means, holm, z_pvalue
from .intervals import z_value


class IncomparableRuns(ValueError):
    """Two runs that cannot be compared number by number (runs of two different games)."""


def check_comparable(exp_a: dict[str, Any], exp_b: dict[str, Any]) -> None:
    """Refuse two runs of different games: their strategies, scores and turns are not the same
    quantities, so a "change" between them means nothing."""
    ga, gb = exp_a.get("game"), exp_b.get("game")
    if ga != gb:
        name = lambda e: e.get("game_name") or e.get("game")  # noqa: E731
        raise IncomparableRuns(f"cannot compare runs of two different games: the first is "
                               f"{name(exp_a)} ({ga}), the second {name(exp_b)} ({gb}); compare two "
                               f"runs of the same game")


def pair_variants(exp_a: dict[str, Any], exp_b: dict[str, Any]) -> list[tuple[dict, dict]]:
    va, vb = exp_a["variants"], exp_b["variants"]
    if len(va) == 1 and len(vb) == 1:
        return [(va[0], vb[0])]
    by_label = {v["label"]: v for v in vb}
    return [(v, by_label[v["label"]]) for v in va if v["label"] in by_label]


def _strategy_text(s: dict | None) -> str:
    if s is None:
        return "(not in this run)"
    params = s.get("params") or {}
    return f"{s.get('use')} {params}" if params else str(s.get("use"))


def _strategies_diff(label: str, a: list[dict], b: list[dict]) -> list[tuple]:
    """A row for each strategy that differs, including one present in one run only."""
    sa = {s["name"]: s for s in a or []}
    sb = {s["name"]: s for s in b or []}
    rows = []
    for name in list(sa) + [n for n in sb if n not in sa]:
        old, new = sa.get(name), sb.get(name)
        if old != new:
            rows.append((label, f"strategy {name}", _strategy_text(old), _strategy_text(new)))
    return rows


def _sweep_of(exp: dict[str, Any]) -> dict:
    sweep = (exp.get("experiment") or {}).get("sweep")
    if sweep is None:
        keys = exp.get("sweep_keys") or []
        sweep = {k: list(dict.fromkeys(str(v.get("sweep", {}).get(k)) for v in exp["variants"]))
                 for k in keys}
    return dict(sweep or {})


def rules_diff(exp_a: dict[str, Any], exp_b: dict[str, Any]) -> pl.DataFrame:
    """Every rules field, strategy (parameters, or present in one run only), sweep or setting
    that differs, per pair of variants; a variant in one run only is a row of its own."""
    rows = []
    pairs = pair_variants(exp_a, exp_b)
    for a, b in pairs:
        label = b["label"]
        for k in sorted(set(a["rules"]) | set(b["rules"])):
            if a["rules"].get(k) != b["rules"].get(k):
                rows.append((label, f"rules.{k}", a["rules"].get(k), b["rules"].get(k)))
        rows += _strategies_diff(label, a["strategies"], b["strategies"])
    for a, b in pairs:  # partners in one run, players in the other: their win rates are not alike
        if a.get("teams") != b.get("teams"):
            rows.append((b["label"], "teams", teams_text(a.get("teams")), teams_text(b.get("teams"))))
    if not pairs:  # no variant in common: say how the runs' strategies differ, once
        rows += _strategies_diff("all", exp_a.get("strategies"), exp_b.get("strategies"))
    for a, b in pairs:
        pa_, pb_ = points_available(exp_a, a), points_available(exp_b, b)
        if None not in (pa_, pb_) and pa_ != pb_:
            rows.append((b["label"], "points available (the score is rescaled)", f"{pa_:g}",
                         f"{pb_:g}"))
    for key in ("game", "players", "seating"):
        if exp_a.get(key) != exp_b.get(key):
            rows.append(("all", key, exp_a.get(key), exp_b.get(key)))
    sweep_a, sweep_b = _sweep_of(exp_a), _sweep_of(exp_b)
    for k in list(sweep_a) + [k for k in sweep_b if k not in sweep_a]:
        if sweep_a.get(k) != sweep_b.get(k):
            rows.append(("all", f"sweep {k}", sweep_a.get(k, "(not swept)"), sweep_b.get(k, "(not swept)")))
    if len(exp_a["variants"]) > 1 or len(exp_b["variants"]) > 1:
        la = [v["label"] for v in exp_a["variants"]]
        lb = [v["label"] for v in exp_b["variants"]]
        for v in la:
            if v not in lb:
                rows.append((v, "variant", "in this run", "(not in this run)"))
        for v in lb:
            if v not in la:
                rows.append((v, "variant", "(not in this run)", "in this run"))
    return pl.DataFrame([(r[0], r[1], str(r[2]), str(r[3])) for r in rows],
                        schema=["variant", "what", "before", "after"], orient="row")


def teams_text(teams: list[int] | None) -> str:
    """A variant's teams in words: "1st and 3rd seats against 2nd and 4th seats", or "none"."""
    from .words import seats_text

    if not teams:
        return "none (each player for themselves)"
    order = list(dict.fromkeys(teams))
    return " against ".join(seats_text([s for s, t in enumerate(teams) if t == k]) for k in order)


def unlike_teams(diff: pl.DataFrame) -> list[str]:
    """The variants played in teams in one run and without in the other (``rules_diff``'s
    "teams" rows where one side is none): their win rates and scores are of pairs of partners in
    one run and of players in the other, so ``moved`` pairs none of them."""
    none = teams_text(None)
    return [r["variant"] for r in diff.iter_rows(named=True)
            if r["what"] == "teams" and none in (r["before"], r["after"])]


def points_available(exp: dict[str, Any], variant: dict[str, Any]) -> float | None:
    """The points a game of this variant shares out (``Game.points_available``), or None."""
    from safari_sim.games import get_game

    try:
        game = get_game(exp["game"])
        return game.points_available(game.make_rules(variant["rules"]), exp["players"])
    except Exception:  # a run of an older version whose rules no longer load: no rescaling
        return None


def _summaries(lf: pl.LazyFrame, experiment: dict[str, Any] | None = None,
               measures: list[str] = ()) -> pl.DataFrame:
    """Per variant: rows (measure, kind, n, mean, var) for each headline number and each of
    ``measures`` (dataset columns: the game's own and the designer's, ``measure_columns``); ``var`` is the sampling variance of the mean
    clustered by deal (design.cluster_means). A variant played in teams is read as teams
    (``teams.team_frame``): its partners' win rates and the first team's."""
    from . import teams

    players_lf = lf
    lf = teams.with_teams(lf, experiment)
    lay = teams.layout(lf)
    team_labels = set(lf.filter(pl.col("variant_id").is_in(lay["variant_id"].to_list()))
                      .select(pl.col("variant").unique()).collect()["variant"].to_list()) if len(lay) else set()
    lf = teams.team_frame(lf, lay)
    win = cluster_means(lf, pl.col("win"), ["variant", "strategy"])
    score = cluster_means(lf, pl.col("score"), ["variant", "strategy"])
    first = cluster_means(lf, pl.col("win"), ["variant"], ["_lineup", "strategy"], where=pl.col("seat") == 0)
    turns = cluster_means(lf, pl.col("turns"), ["variant"], where=pl.col("seat") == 0)
    rows = []
    for r in win.iter_rows(named=True):
        rows.append((r["variant"], f"win rate: {r['strategy']}", "share", r["n"], r["mean"], r["var"]))
    for r in score.iter_rows(named=True):
        rows.append((r["variant"], f"mean score: {r['strategy']}", "mean", r["n"], r["mean"], r["var"]))
    for r in first.iter_rows(named=True):
        what = "first team's win rate" if r["variant"] in team_labels else "first seat's win rate"
        rows.append((r["variant"], what, "share", r["n"], r["mean"], r["var"]))
    for r in turns.iter_rows(named=True):
        rows.append((r["variant"], "mean turns per game", "mean", r["n"], r["mean"], r["var"]))
    for m in measures:  # a per-game column repeats on each seat's row: the mean is the same
        for r in cluster_means(players_lf, pl.col(m), ["variant"]).iter_rows(named=True):
            rows.append((r["variant"], f"mean {m}", "mean", r["n"], r["mean"], r["var"]))
    return pl.DataFrame(rows, schema=["variant", "measure", "kind", "n", "mean", "var"], orient="row")


def moved(before: str | Path, after: str | Path, level: float = LEVEL) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rules_diff, changes) between two results directories.

    changes: variant, measure, kind, before, after, change, lo, hi (95% interval of the change),
    p_value (two-sided, of "no change"), p_holm (Holm-adjusted over every row of the table) and
    real (p_holm below 5%: the chance that any unchanged number is called real stays at 5%).
    Each mean's variance is clustered by deal; the change's is the sum of the two, and the test
    is the normal one (the samples are thousands of games). Runs of two different games raise
    IncomparableRuns.
    """
    exp_a, exp_b = load_experiment(before), load_experiment(after)
    check_comparable(exp_a, exp_b)
    pairs = pair_variants(exp_a, exp_b)
    lf_a, lf_b = scan(before), scan(after)
    in_b = measure_columns(exp_b, lf_b)
    measures = [m for m in measure_columns(exp_a, lf_a) if m in in_b]
    sa, sb = _summaries(lf_a, exp_a, measures), _summaries(lf_b, exp_b, measures)
    z = z_value()
    rows = []
    for va, vb in pairs:
        a = {r["measure"]: r for r in sa.filter(pl.col("variant") == va["label"]).iter_rows(named=True)}
        b = {r["measure"]: r for r in sb.filter(pl.col("variant") == vb["label"]).iter_rows(named=True)}
        avail = (points_available(exp_a, va), points_available(exp_b, vb))
        if None not in avail and avail[0] != avail[1] and avail[0] > 0 and avail[1] > 0:
            # the rules rescale the score: each strategy's score also as a share of the points
            for m in [m for m in b if m.startswith("mean score: ") and m in a]:
                share = m.replace("mean score: ", "score as a share of the points available: ")
                a[share] = dict(a[m], kind="share", mean=a[m]["mean"] / avail[0],
                                var=a[m]["var"] / avail[0] ** 2)
                b[share] = dict(b[m], kind="share", mean=b[m]["mean"] / avail[1],
                                var=b[m]["var"] / avail[1] ** 2)
        for measure in [m for m in b if m in a]:
            ra, rb = a[measure], b[measure]
            diff = rb["mean"] - ra["mean"]
            # the streaming engine adds partial sums in whatever order its threads finish: the
            # same rows can give means a few ulps apart, which is no change
            if abs(diff) <= 1e-12 * max(1.0, abs(ra["mean"])):
                diff = 0.0
            se = float(np.sqrt(ra["var"] + rb["var"]))
            p = float(z_pvalue(diff, se))
            rows.append((vb["label"], measure, rb["kind"], ra["mean"], rb["mean"], diff, diff - z * se,
                         diff + z * se, p))
    changes = pl.DataFrame(rows, schema=["variant", "measure", "kind", "before", "after", "change",
                                         "lo", "hi", "p_value"], orient="row")
    adj = holm(changes["p_value"].to_numpy()) if changes.height else np.zeros(0)
    changes = changes.with_columns(pl.Series("p_holm", adj, dtype=pl.Float64),
                                   pl.Series("real", adj < level, dtype=pl.Boolean))
    return rules_diff(exp_a, exp_b), changes
