"""Is there a dominant strategy: does the best response found beat the field by more than noise?

A knob search tunes one strategy (the best response) against the others at the table (the
field). At the confirmation run, on deals the search never saw, each confirmed candidate's win
rate is tested against the fair share 1/players, one-sided (does it win more than a strategy no
better than the field would?), with its clustered standard error from ``stats.win_rates``; the
candidates' p-values are Holm-adjusted (the best of several was picked). The verdict is "yes"
when some candidate wins more than its fair share beyond noise: the designer's warning of a
degenerate strategy, given with its knobs and how much the tuning adds over the shipped knobs.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from scipy.stats import norm

from ..stats import words
from ..stats.design import LEVEL, holm
from ..stats.intervals import z_value


def _rate(lf: pl.LazyFrame, strategy: str) -> dict[str, Any]:
    from ..stats.wins import win_rates

    rates = win_rates(lf)
    row = rates.filter(pl.col("strategy") == strategy).row(0, named=True)
    field = rates.filter(pl.col("strategy") != strategy).sort("rate", descending=True)
    return {**row, "field": [{"strategy": r["strategy"], "rate": r["rate"], "lo": r["lo"], "hi": r["hi"]}
                             for r in field.iter_rows(named=True)]}


def knobs_text(values: dict[str, Any]) -> str:
    return ", ".join(f"{k.split('.')[-1]}={v:.3g}" if isinstance(v, float) else f"{k.split('.')[-1]}={v}"
                     for k, v in values.items()) or "its shipped knobs"


def dominant_verdict(strategy: str, tuned: list[tuple[dict[str, Any], pl.LazyFrame]],
                     printed: pl.LazyFrame | None = None, level: float = LEVEL) -> dict[str, Any]:
    """The verdict for ``strategy`` from its confirmed candidates (``tuned``: the knob values and
    the confirmation dataset of each) and the printed experiment's dataset (its shipped knobs).

    The shipped knobs are a candidate too (a tuned setting may do worse than them), in the Holm
    family with the others. Returns {"strategy", "dominant" (bool), "answer" ("yes"/"no"),
    "sentence", "candidates": [{values, shipped, rate, lo, hi, fair, p_one, p_holm, field}],
    "best", "shipped", "gain" (best minus shipped, with its interval; None when the shipped knobs
    are the best)}."""
    entries = [(values, lf, False) for values, lf in tuned]
    if printed is not None:  # the shipped knobs are a candidate best response too
        entries.append(({}, printed, True))
    rows = []
    for values, lf, is_shipped in entries:
        r = _rate(lf, strategy)
        z = (r["rate"] - r["fair"]) / r["se"] if r["se"] > 0 else (math.inf if r["rate"] > r["fair"] else 0.0)
        rows.append({"values": values, "shipped": is_shipped,
                     "knobs": "shipped knobs" if is_shipped else knobs_text(values), "rate": r["rate"], "lo": r["lo"],
                     "hi": r["hi"], "se": r["se"], "fair": r["fair"], "games": r["games"],
                     "p_one": float(norm.sf(z)), "field": r["field"]})
    adj = holm([r["p_one"] for r in rows])
    for r, p in zip(rows, adj):
        r["p_holm"] = float(p)
    sig = [r for r in rows if r["p_holm"] < level]
    best = max(sig or rows, key=lambda r: r["rate"])
    shipped = next((r for r in rows if r["shipped"]), None)
    gain = None
    if shipped is not None and not best["shipped"]:
        d = best["rate"] - shipped["rate"]
        se = math.sqrt(best["se"] ** 2 + shipped["se"] ** 2)
        zq = z_value()
        gain = {"value": d, "lo": d - zq * se, "hi": d + zq * se}
    dominant = bool(sig)
    knobs = knobs_text(best["values"])
    k = len(rows)
    family = f", Holm over {k} candidates" if k > 1 else ""
    how = (f"{strategy} with {knobs} wins {words.pct(best['rate'])} of its games "
           f"({words.pct(best['lo'])} to {words.pct(best['hi'])}) against the field, whose fair "
           f"share is {words.pct(best['fair'])}")
    if dominant:
        sentence = (f"Yes: {how}: more than noise allows ({words.pvalue(best['p_holm'])}{family}). "
                    "A designer's warning: played this way, the strategy beats the others at the table.")
    else:
        sentence = (f"No: the best response found, {how}, is within noise of its fair share "
                    f"({words.pvalue(best['p_holm'])}{family}): no knob setting searched beats the "
                    "field by more than chance.")
    if best["shipped"] and k > 1:
        sentence += " No tuned setting did better than the shipped knobs."
    elif gain is not None:
        change = (f"{words.signed_points(gain['value'])} percentage points "
                  f"({words.signed_points(gain['lo'])} to {words.signed_points(gain['hi'])})")
        shipped_text = (f"With its shipped knobs it wins {words.pct(shipped['rate'])} "
                        f"({words.pct(shipped['lo'])} to {words.pct(shipped['hi'])})")
        if gain["lo"] <= 0 <= gain["hi"]:
            sentence += f" {shipped_text}: the tuning's change, {change}, is within noise."
        else:
            sentence += f" {shipped_text}: the tuning changes that by {change}."
    return {"strategy": strategy, "dominant": dominant, "answer": "yes" if dominant else "no",
            "sentence": sentence, "candidates": rows, "best": best, "shipped": shipped, "gain": gain,
            "knobs": knobs}
