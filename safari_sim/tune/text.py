"""The tuner's words and numbers: what kind of study it is, the baseline's name, the headline,
and numbers with as many decimals as their interval allows (CLI summary and report page).

A rules field's baseline is the printed rule; a knob's is its default (the value the experiment
file gives, else the strategy's own default). A knob study's headline reads "best value of X: v
(its measure with the interval), against the default d (its measure), by this much".
"""

from __future__ import annotations

import math
from typing import Any

from ..stats import words


# ---- what is tuned ---------------------------------------------------------------------------

def kind(keys: list[str]) -> str:
    """"rules", "knobs" or "rules and knobs"."""
    rules = any(k.startswith("rules.") for k in keys)
    knobs = any(k.startswith("strategies.") for k in keys)
    return "rules and knobs" if rules and knobs else "knobs" if knobs else "rules"


def title(keys: list[str]) -> str:
    """The page's title word: "rules tuning", "knob tuning", "rules and knob tuning"."""
    return {"rules": "rules tuning", "knobs": "knob tuning", "rules and knobs": "rules and knob tuning"}[kind(keys)]


def baseline_label(keys: list[str]) -> str:
    """The name of the run that plays the experiment as it is: "printed" (rules), "default"
    (knobs), "printed rules, default knobs"."""
    return {"rules": "printed", "knobs": "default", "rules and knobs": "printed rules, default knobs"}[kind(keys)]


def short_key(key: str) -> str:
    """rules.target_score -> target_score; strategies.NAME.params.KNOB -> NAME.KNOB."""
    parts = key.split(".")
    return parts[1] if parts[0] == "rules" else f"{parts[1]}.{parts[-1]}"


def value_text(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)


def values_text(values: dict[str, Any], keys: list[str]) -> str:
    """One key: its value alone; several: "risk=0.35, chase=0.36"."""
    if len(keys) == 1:
        return value_text(values.get(keys[0]))
    return ", ".join(f"{short_key(k).split('.')[-1]}={value_text(values.get(k))}" for k in keys)


# ---- numbers as their interval allows ----------------------------------------------------------

def decimals(half: float) -> int:
    """Decimals for a number known to +- ``half``: the half-width to two significant digits when
    its first digit is 1 or 2 (0.018 -> 3 decimals), else to one (0.04 -> 2)."""
    if not half or not math.isfinite(half):
        return 4
    lead = math.floor(math.log10(abs(half)))
    first = abs(half) / 10 ** lead
    return max(0, -lead + (1 if first < 3 else 0))


def in_points(o: dict[str, Any]) -> bool:
    """Whether an objective's values are differences of shares (the size of an edge, a spread),
    said in percentage points; a record written before the key was kept reads it from the kind."""
    return bool(o.get("points", o.get("kind") in ("seat_edge", "spread")))


def number(x: float | None, half: float, share: bool = False, points: bool = False) -> str:
    """``x`` with the decimals its interval (+- ``half``) allows; a share in percent, a difference
    of shares (``points``) as its number of percentage points (write the unit after it)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if points:
        return f"{100 * x:.{words.digits_for(2 * half)}f}"
    if share:
        return words.pct(x, words.digits_for(2 * half))
    return f"{x:.{decimals(half)}f}"


def measure(m: dict[str, Any], share: bool = False, points: bool = False) -> str:
    """'0.197 (0.179 to 0.215)', '21.1% (20.1% to 22.1%)', '1.6 percentage points (0.0 to 3.1)'."""
    half = (m["hi"] - m["lo"]) / 2
    v, lo, hi = (number(m[k], half, share, points) for k in ("value", "lo", "hi"))
    return f"{v} percentage points ({lo} to {hi})" if points else f"{v} ({lo} to {hi})"


def plus_minus(value: float, se: float | None, share: bool = False, points: bool = False) -> str:
    """A value with its 95% half-width: '0.197 (± 0.018)' (a share: '21.1% (± 1.0 percentage
    points)'; a difference of shares: '0.8 percentage points (± 2.6)')."""
    if se is None or not math.isfinite(se):
        return number(value, 0.0, share, points) + (" percentage points" if points else "")
    from ..stats.intervals import z_value

    half = z_value() * se
    if points:
        return f"{number(value, half, points=True)} percentage points (± {number(half, half, points=True)})"
    if share:
        return f"{number(value, half, True)} (± {words.points(half, words.digits_for(2 * half))} percentage points)"
    return f"{number(value, half)} (± {half:.{decimals(half)}f})"


def difference(mb: dict[str, Any], mp: dict[str, Any]) -> dict[str, float]:
    """``mb`` minus ``mp`` with a 95% interval from their standard errors as if independent (the
    two were played on the same deals, which makes the true interval narrower: this one does not
    overclaim)."""
    from ..stats.intervals import z_value

    d = mb["value"] - mp["value"]
    se = math.hypot(mb.get("se") or 0.0, mp.get("se") or 0.0)
    z = z_value()
    return {"value": d, "lo": d - z * se, "hi": d + z * se}


def difference_text(d: dict[str, float], share: bool) -> str:
    """'+1.4 percentage points (+0.1 to +2.8)', '−0.021 (−0.034 to −0.008)'."""
    half = (d["hi"] - d["lo"]) / 2
    if share:
        n = words.digits_for(2 * half)
        f = lambda x: words.signed(100 * x, n)  # noqa: E731
        return f"{f(d['value'])} percentage points ({f(d['lo'])} to {f(d['hi'])})"
    n = decimals(half)
    f = lambda x: words.signed(x, n)  # noqa: E731
    return f"{f(d['value'])} ({f(d['lo'])} to {f(d['hi'])})"


def verdict_of(d: dict[str, float], direction: str, base: str) -> str:
    """Which way the difference goes, beyond noise or not, against ``base`` ("the default")."""
    sign = -1 if direction == "minimize" else 1
    if d["lo"] > 0 or d["hi"] < 0:
        return (f"better than {base} beyond noise" if sign * d["value"] > 0
                else f"worse than {base} beyond noise")
    return f"within noise of {base}"


# ---- the summary -------------------------------------------------------------------------------

def _measure_text(m: dict[str, Any], o: dict[str, Any]) -> str:
    text = measure(m, o.get("share", False), in_points(o))
    if o["kind"] == "seat_edge" and "edge" in m:  # which way: for or against the starter
        edge = {"value": m["edge"], "lo": m["edge_lo"], "hi": m["edge_hi"]}
        who = "the first team's" if m.get("unit") == "team" else "the starter's"
        # a fair 50% with two teams, 33.3% with three players (a record before it: "the fair share")
        fair = f"a fair {words.pct(m['fair'])}" if m.get("fair") else "the fair share"
        text += f" [{who} win rate minus {fair}: {difference_text(edge, True)}]"
    return text


def headline(record: dict[str, Any]) -> list[str]:
    """The plain-words answer: for one objective, "Best value of X: v, where the objective is m
    (interval), against the default d, where it is m': by this much (interval), better than the
    default beyond noise"; for several, each confirmed candidate of the front against the
    baseline."""
    res = record["results"]
    runs = res["runs"]
    objectives = record["objectives"]
    keys = [p["key"] for p in record["params"]]
    base_run = runs[0]
    tuned = [r for r in runs if r["trial"] is not None]
    if not tuned:
        return ["No trial finished its last rung, so nothing was confirmed: raise the budget."]
    base = {"rules": "the printed rules", "knobs": "the default" + ("s" if len(keys) > 1 else ""),
            "rules and knobs": "the printed rules and default knobs"}[kind(keys)]
    lines = []
    names = ", ".join(short_key(k) for k in keys)
    if len(objectives) == 1:
        o = objectives[0]
        b = res["best"]
        mb, mp = b["measures"][o["name"]], base_run["measures"][o["name"]]
        share = o.get("share", False)
        d = difference(mb, mp)
        which = f"Best value of {names}" if len(keys) == 1 else f"Best values of {names}"
        against = {"rules": "the printed", "knobs": "the default",
                   "rules and knobs": "the printed rules and default knobs"}[kind(keys)]
        if len(keys) > 1 and kind(keys) != "rules and knobs":
            against += "s"
        lines.append(f"{which}: {values_text(b['values'], keys)}, where {o.get('noun', o['text'])} is "
                     f"{_measure_text(mb, o)}, against {against} {values_text(base_run['values'], keys)}, "
                     f"where it is {_measure_text(mp, o)}: by {difference_text(d, share)}, "
                     f"{verdict_of(d, o['direction'], base)}. Confirmed on {b['games']:,} fresh games each "
                     f"(the difference's interval treats the two runs as independent, which they are not "
                     f"quite: it is, if anything, too wide).")
    else:
        lines.append(f"{len(tuned)} candidate{'s' if len(tuned) > 1 else ''} from the Pareto front of "
                     f"{', '.join(o['text'] for o in objectives)} {'were' if len(tuned) > 1 else 'was'} "
                     f"confirmed on {tuned[0]['games']:,} "
                     f"fresh games each, and {base} ({values_text(base_run['values'], keys)}) too:")
        for r in tuned:
            parts = []
            for o in objectives:
                m, mp = r["measures"][o["name"]], base_run["measures"][o["name"]]
                d = difference(m, mp)
                parts.append(f"{o['name']} {_measure_text(m, o)}, {verdict_of(d, o['direction'], base)}: "
                             f"{difference_text(d, o.get('share', False))}")
            lines.append(f"{values_text(r['values'], keys)}: " + "; ".join(parts) + ".")
    for v in res["verdicts"]:
        lines.append(f"Is there a dominant strategy? {v['sentence']}")
    return lines


def run_line(r: dict[str, Any], record: dict[str, Any]) -> str:
    """One confirmation run for the CLI: 'default: risk=0.5: win_rate 49.2% (48.6% to 49.8%) at 30,000 games'."""
    keys = [p["key"] for p in record["params"]]
    units = {o["name"]: (o.get("share", False), in_points(o)) for o in record["objectives"]}
    ms = ", ".join(f"{k} {measure(m, *units.get(k, (False, False)))}" for k, m in r["measures"].items())
    what = baseline_label(keys) if r["trial"] is None else f"trial {r['trial']}"
    return f"{what}: {values_text(r['values'], keys)}: {ms} at {r['games']:,} games"


def cli_summary(record: dict[str, Any]) -> list[str]:
    """What `safari-sim tune` prints at the end: each confirmed run, then the headline (and the
    dominant-strategy verdicts)."""
    return [run_line(r, record) for r in record["results"]["runs"]] + headline(record)
