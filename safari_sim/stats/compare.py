"""What moved between two runs: the designer's "I changed a rule, what happened?".

Variants are paired by label (a run without a sweep has one variant, "base", and two such runs
pair whatever their labels). For each pair: which rules differ, and for each headline number
(each strategy's win rate and mean score, the first seat's win rate, the mean game length) the
value before and after, the change with its 95% interval and the p-value of "no change". A change
is called real when its interval leaves out zero; with many rows, about one in twenty unchanged
numbers will still look real by chance, so the p-values are given too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from scipy.stats import norm, ttest_ind_from_stats

from .dataset import load_experiment, scan
from .intervals import z_value


def pair_variants(exp_a: dict[str, Any], exp_b: dict[str, Any]) -> list[tuple[dict, dict]]:
    va, vb = exp_a["variants"], exp_b["variants"]
    if len(va) == 1 and len(vb) == 1:
        return [(va[0], vb[0])]
    by_label = {v["label"]: v for v in vb}
    return [(v, by_label[v["label"]]) for v in va if v["label"] in by_label]


def rules_diff(exp_a: dict[str, Any], exp_b: dict[str, Any]) -> pl.DataFrame:
    """Every rules field, strategy parameter or setting that differs, per pair of variants."""
    rows = []
    for a, b in pair_variants(exp_a, exp_b):
        label = b["label"]
        for k in sorted(set(a["rules"]) | set(b["rules"])):
            if a["rules"].get(k) != b["rules"].get(k):
                rows.append((label, f"rules.{k}", a["rules"].get(k), b["rules"].get(k)))
        sa = {s["name"]: s for s in a["strategies"]}
        for s in b["strategies"]:
            old = sa.get(s["name"])
            if old is None:
                rows.append((label, f"strategy {s['name']}", None, s["use"]))
            elif old != s:
                rows.append((label, f"strategy {s['name']}", f"{old['use']} {old['params']}",
                             f"{s['use']} {s['params']}"))
    for key in ("players", "seating", "game"):
        if exp_a.get(key) != exp_b.get(key):
            rows.append(("all", key, exp_a.get(key), exp_b.get(key)))
    return pl.DataFrame([(r[0], r[1], str(r[2]), str(r[3])) for r in rows],
                        schema=["variant", "what", "before", "after"], orient="row")


def _summaries(lf: pl.LazyFrame) -> pl.DataFrame:
    """Per variant: rows (measure, n, mean, sd) for each headline number."""
    per_strategy = (lf.group_by("variant", "strategy")
                    .agg(pl.len().alias("n"), pl.col("win").mean().alias("win_mean"),
                         pl.col("win").std().alias("win_sd"),
                         pl.col("score").mean().alias("score_mean"),
                         pl.col("score").std().alias("score_sd"))
                    .collect())
    first = (lf.filter(pl.col("seat") == 0).group_by("variant")
             .agg(pl.len().alias("n"), pl.col("win").mean().alias("mean"),
                  pl.col("win").std().alias("sd"),
                  pl.col("turns").mean().alias("turns_mean"),
                  pl.col("turns").std().alias("turns_sd"))
             .collect())
    rows = []
    for r in per_strategy.iter_rows(named=True):
        rows.append((r["variant"], f"win rate: {r['strategy']}", "share", r["n"], r["win_mean"], r["win_sd"]))
        rows.append((r["variant"], f"mean score: {r['strategy']}", "mean", r["n"], r["score_mean"], r["score_sd"]))
    for r in first.iter_rows(named=True):
        rows.append((r["variant"], "first seat's win rate", "share", r["n"], r["mean"], r["sd"]))
        rows.append((r["variant"], "mean turns per game", "mean", r["n"], r["turns_mean"], r["turns_sd"]))
    return pl.DataFrame(rows, schema=["variant", "measure", "kind", "n", "mean", "sd"], orient="row")


def moved(before: str | Path, after: str | Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rules_diff, changes) between two results directories.

    changes: variant, measure, before, after, change, lo, hi (95% interval of the change),
    p_value (two-sided), real (the interval leaves out zero). Shares (win rates) use the normal
    approximation to the difference of two proportions; means use Welch's t-test.
    """
    exp_a, exp_b = load_experiment(before), load_experiment(after)
    pairs = pair_variants(exp_a, exp_b)
    sa, sb = _summaries(scan(before)), _summaries(scan(after))
    z = z_value()
    rows = []
    for va, vb in pairs:
        a = {r["measure"]: r for r in sa.filter(pl.col("variant") == va["label"]).iter_rows(named=True)}
        b = {r["measure"]: r for r in sb.filter(pl.col("variant") == vb["label"]).iter_rows(named=True)}
        for measure in [m for m in b if m in a]:
            ra, rb = a[measure], b[measure]
            diff = rb["mean"] - ra["mean"]
            if rb["kind"] == "share":
                pa, pb = ra["mean"], rb["mean"]
                se = np.sqrt(pa * (1 - pa) / ra["n"] + pb * (1 - pb) / rb["n"])
                p = float(2 * norm.sf(abs(diff) / se)) if se > 0 else (0.0 if diff else 1.0)
            else:
                se = np.sqrt(ra["sd"] ** 2 / ra["n"] + rb["sd"] ** 2 / rb["n"])
                res = ttest_ind_from_stats(ra["mean"], ra["sd"], ra["n"], rb["mean"], rb["sd"],
                                           rb["n"], equal_var=False)
                p = float(res.pvalue) if np.isfinite(res.pvalue) else (0.0 if diff else 1.0)
            lo, hi = diff - z * se, diff + z * se
            rows.append((vb["label"], measure, rb["kind"], ra["mean"], rb["mean"], diff, lo, hi, p,
                         bool(lo > 0 or hi < 0)))
    changes = pl.DataFrame(rows, schema=["variant", "measure", "kind", "before", "after", "change",
                                         "lo", "hi", "p_value", "real"], orient="row")
    return rules_diff(exp_a, exp_b), changes
