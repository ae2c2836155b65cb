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

from .dataset import load_experiment, scan
from .design import LEVEL, cluster_means, holm, z_pvalue
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
    """Per variant: rows (measure, kind, n, mean, var) for each headline number; ``var`` is the
    sampling variance of the mean clustered by deal (design.cluster_means)."""
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
        rows.append((r["variant"], "first seat's win rate", "share", r["n"], r["mean"], r["var"]))
    for r in turns.iter_rows(named=True):
        rows.append((r["variant"], "mean turns per game", "mean", r["n"], r["mean"], r["var"]))
    return pl.DataFrame(rows, schema=["variant", "measure", "kind", "n", "mean", "var"], orient="row")


def moved(before: str | Path, after: str | Path, level: float = LEVEL) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rules_diff, changes) between two results directories.

    changes: variant, measure, kind, before, after, change, lo, hi (95% interval of the change),
    p_value (two-sided, of "no change"), p_holm (Holm-adjusted over every row of the table) and
    real (p_holm below 5%: the chance that any unchanged number is called real stays at 5%).
    Each mean's variance is clustered by deal; the change's is the sum of the two, and the test
    is the normal one (the samples are thousands of games).
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
