"""Is there a dominant strategy: does the best response found beat the field by more than noise?

A knob search tunes one strategy (the best response) against the others at the table (the
field). Where the game's ``SEARCH_AHEAD`` (strategies/<game>.py) says the search player with the
game's measured defaults is ahead of every shipped heuristic at the tune's player count, that
seat played by the search is one more candidate best response (``search``: its confirmation
run, the experiment as it is with that seat's ``use: search``), named so in the sentence. At the confirmation run, on deals the search never saw, each confirmed candidate's win
rate is tested against the fair share 1/players, one-sided (does it win more than a strategy no
better than the field would?), with its clustered standard error from ``stats.win_rates``; the
candidates' p-values are Holm-adjusted (the best of several was picked). The verdict is "yes"
when some candidate wins more than its fair share beyond noise: the designer's warning of a
degenerate strategy, given with its knobs and how much the tuning adds over the default knobs.

A "no" says where the best response stands, by the test that fits what its numbers show: below
its fair share beyond noise (two-sided test against the fair share, clustered by deal: even the
best setting found loses more than its share), above it but not beyond noise (the one-sided,
Holm-adjusted test of dominance), or within noise of it (two-sided). A one-sided p of 1.000 is
never offered as "within noise" for a rate far below fair.

In a game played in teams a strategy wins or loses with its partners: its win rate is how often
the team it plays in wins (``teams.team_wins``), against a fair share of one over the teams (50%
with two), and the sentence says so.
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
    from ..stats import teams
    from ..stats.wins import win_rates

    lay = teams.layout(lf)
    rates = win_rates(teams.team_wins(lf, lay))
    row = rates.filter(pl.col("strategy") == strategy).row(0, named=True)
    field = rates.filter(pl.col("strategy") != strategy).sort("rate", descending=True)
    return {**row, "field": [{"strategy": r["strategy"], "rate": r["rate"], "lo": r["lo"], "hi": r["hi"]}
                             for r in field.iter_rows(named=True)],
            "teams": int(lay["teams"].max()) if len(lay) else 0}


def knobs_text(values: dict[str, Any]) -> str:
    return ", ".join(f"{k.split('.')[-1]}={v:.3g}" if isinstance(v, float) else f"{k.split('.')[-1]}={v}"
                     for k, v in values.items()) or "its default knobs"


SEARCHED = "played by the search (the game's measured defaults, docs/search.md)"


def dominant_verdict(strategy: str, tuned: list[tuple[dict[str, Any], pl.LazyFrame]],
                     printed: pl.LazyFrame | None = None, level: float = LEVEL,
                     search: pl.LazyFrame | None = None) -> dict[str, Any]:
    """The verdict for ``strategy`` from its confirmed candidates (``tuned``: the knob values and
    the confirmation dataset of each) and the dataset of the experiment as it is (its default knobs).

    The default knobs (the experiment's, ``shipped``) are a candidate too (a tuned setting may do
    worse than them), in the Holm family with the others. Returns {"strategy", "dominant" (bool),
    "answer" ("yes"/"no"), "sentence", "candidates": [{values, shipped, rate, lo, hi, fair, p_one,
    p_holm, p_fair (two-sided, against the fair share), field}], "best", "shipped", "gain" (best
    minus default, with its interval; None when the default knobs are the best)}."""
    entries = [(values, lf, False) for values, lf in tuned]
    if printed is not None:  # the shipped knobs are a candidate best response too
        entries.append(({}, printed, True))
    if search is not None:  # and, where it is the stronger player, the search in that seat
        entries.append(({"use": "search"}, search, False))
    rows = []
    for values, lf, is_shipped in entries:
        r = _rate(lf, strategy)
        z = (r["rate"] - r["fair"]) / r["se"] if r["se"] > 0 else (math.inf if r["rate"] > r["fair"] else 0.0)
        is_search = values == {"use": "search"}
        rows.append({"values": values, "shipped": is_shipped, "search": is_search,
                     "knobs": ("default knobs" if is_shipped else SEARCHED if is_search else
                               knobs_text(values)), "rate": r["rate"], "lo": r["lo"],
                     "hi": r["hi"], "se": r["se"], "fair": r["fair"], "games": r["games"],
                     "p_one": float(norm.sf(z)), "p_fair": float(r["p_fair"]), "field": r["field"],
                     "teams": r["teams"]})
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
    edge = best["rate"] - best["fair"]
    subject = f"{strategy}'s seat {SEARCHED}" if best["search"] else f"{strategy} with {knobs}"
    stat = (f"wins {words.pct(best['rate'], words.digits_for(best['hi'] - best['lo']))} of its games "
            f"({words.interval(best['lo'], best['hi'])}) against the field, whose fair share is "
            f"{words.pct(best['fair'])}")
    if best["teams"]:  # partners win together: the strategy's team's win rate
        stat = (f"is in the winning team in {words.pct(best['rate'], words.digits_for(best['hi'] - best['lo']))} "
                f"of its games ({words.interval(best['lo'], best['hi'])}), against a fair "
                f"{words.pct(best['fair'])} for one of {best['teams']} teams")
    apart = (f"{words.points(edge)} percentage points ({words.signed_points(best['lo'] - best['fair'])} "
             f"to {words.signed_points(best['hi'] - best['fair'])}")
    if dominant:
        sentence = (f"Yes: {subject} {stat}: more than noise allows ({words.pvalue(best['p_holm'])}{family}). "
                    "A designer's warning: played this way, the strategy beats the others at the table.")
    elif edge < 0 and best["p_fair"] < level:
        # far below fair: the one-sided test of dominance says nothing here (its p is near 1);
        # the two-sided test against the fair share says what the numbers show
        sentence = (f"No: even the best response found, {subject}, {stat}: below its fair share beyond "
                    f"noise, by {apart}; two-sided {words.pvalue(best['p_fair'])}, clustered by deal). "
                    "No knob setting searched beats the field; played so, the strategy loses more "
                    "than its share.")
    elif edge > 0:
        sentence = (f"No: the best response found, {subject}, {stat}: above its fair share by {apart}), "
                    f"but not beyond noise (one-sided {words.pvalue(best['p_holm'])}{family}): no knob "
                    "setting searched is shown to beat the field.")
    else:
        sentence = (f"No: the best response found, {subject}, {stat}: within noise of its fair share "
                    f"(two-sided {words.pvalue(best['p_fair'])}): no knob setting searched beats the "
                    "field by more than chance.")
    if best["shipped"] and k > 1:
        sentence += " No tuned setting did better than the default knobs."
    elif gain is not None:
        change = (f"{words.signed_points(gain['value'])} percentage points "
                  f"({words.signed_points(gain['lo'])} to {words.signed_points(gain['hi'])})")
        shipped_text = (f"With its default knobs {'its team' if shipped['teams'] else 'it'} wins "
                        f"{words.pct(shipped['rate'], words.digits_for(shipped['hi'] - shipped['lo']))} "
                        f"({words.interval(shipped['lo'], shipped['hi'])})")
        if gain["lo"] <= 0 <= gain["hi"]:
            sentence += f" {shipped_text}: the tuning's change, {change}, is within noise."
        else:
            sentence += f" {shipped_text}: the tuning changes that by {change}."
    if best["search"]:
        sentence = sentence.replace("the tuning's change", "the search's change").replace(
            "the tuning changes", "the search changes").replace(
            "played this way, the strategy beats the others at the table",
            "played by the search, that seat beats the others at the table (their heuristics are "
            "not the best play)")
    by_search = next((r for r in rows if r["search"]), None)
    if by_search is not None and not best["search"]:
        sentence += (f" The same seat {SEARCHED} wins "
                     f"{words.pct(by_search['rate'], words.digits_for(by_search['hi'] - by_search['lo']))} "
                     f"({words.interval(by_search['lo'], by_search['hi'])}).")
    return {"strategy": strategy, "dominant": dominant, "answer": "yes" if dominant else "no",
            "sentence": sentence, "candidates": rows, "best": best, "shipped": shipped, "gain": gain,
            "knobs": knobs}
