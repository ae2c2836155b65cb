"""What the template shows: the computed tables cut per variant, with figures and words."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import polars as pl

from safari_sim.stats import caps, drama, words
from safari_sim.stats.sweep import sweep_value_text

from . import figures
from .compute import compute_tables, first_unit, summarise
from .tournament import design_view


@dataclass
class Report:
    """Everything the report prints: ``tables`` are the raw statistics (all variants), ``context``
    what the template renders."""

    experiment: dict[str, Any]
    tables: dict[str, pl.DataFrame]
    context: dict[str, Any] = field(default_factory=dict)


def _rows(df: pl.DataFrame, vid: int) -> list[dict]:
    if not len(df) or "variant_id" not in df.columns:
        return []
    return df.filter(pl.col("variant_id") == vid).to_dicts()


def _cell_colour(rate: float) -> str:
    """Green when the row strategy finishes ahead more often, red when less; stronger further from 50%."""
    a = min(abs(rate - 0.5) * 2.5, 1.0) * 0.55
    rgb = "0,158,115" if rate >= 0.5 else "213,94,0"
    return f"background-color: rgba({rgb},{a:.2f})"


def _value_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v)


def _rules_view(variants: list[dict]) -> dict:
    """Rules of every variant: one column per variant when few, else differences from the first."""
    if not variants:
        return {"fields": [], "columns": [], "diffs": []}
    base = variants[0].get("rules") or {}
    fields = list(base) + [k for v in variants[1:] for k in (v.get("rules") or {}) if k not in base]
    fields = list(dict.fromkeys(fields))
    if len(variants) <= 4:
        return {"fields": fields, "columns": [
            {"label": v["label"], "values": [_value_text((v.get("rules") or {}).get(f, "")) for f in fields]}
            for v in variants], "diffs": []}
    diffs = [{"label": v["label"], "changes": [f"{f} = {_value_text((v.get('rules') or {}).get(f))}"
                                               for f in fields if (v.get("rules") or {}).get(f) != base.get(f)]}
             for v in variants[1:]]
    return {"fields": fields, "columns": [{"label": variants[0]["label"],
                                           "values": [_value_text(base.get(f, "")) for f in fields]}],
            "diffs": diffs}


def score_unit(experiment: dict) -> str:
    """The unit of the game's score in a sentence: "game points" when the game scores points
    (so they are never mistaken for percentage points), else the score's own name."""
    name = experiment.get("score_name") or "score"
    return "game points" if name in ("points", "score") else name


def strategy_order(experiment: dict, t: dict[str, pl.DataFrame]) -> list[str]:
    """The experiment's order of strategies (so each keeps one colour), then any others."""
    named = [s.get("name") for s in experiment.get("strategies") or []]
    seen = sorted(set(t["win_rates"]["strategy"].to_list()))
    return [n for n in named if n in seen] + [n for n in seen if n not in named]


def _variant_view(t: dict[str, pl.DataFrame], vid: int, meta: dict, experiment: dict, order: list[str]) -> dict:
    rates = t["win_rates"].filter(pl.col("variant_id") == vid).sort("rate", descending=True)
    seat_rates = t["seat_rates"].filter(pl.col("variant_id") == vid)
    seat = _rows(t["seat_advantage"], vid)[0]
    fair = seat["fair"]
    # a variant played in teams: its "seats" are the teams in turn order (stats/teams.py)
    lay = _rows(t.get("teams", pl.DataFrame()), vid)
    members = lay[0]["members"] if lay else None
    seat_name = (lambda k: words.team_label(k, members[k], starts=k == 0)) if members else figures.seat_label
    names = rates["strategy"].to_list()
    h2h = {(r["strategy"], r["opponent"]): {**r, "style": _cell_colour(r["rate"])} for r in _rows(t["head_to_head"], vid)}
    score_name = experiment.get("score_name") or "score"
    lower = bool(experiment.get("lower_score_wins"))
    stat_rows = _rows(t["seat_stats"], vid)
    stat_cols = [c for c in t["seat_stats"].columns if c not in ("variant_id", "strategy", "n")] if stat_rows else []
    margin = _rows(t["margin"], vid)
    stops = t.get("safety_stops", pl.DataFrame())
    stop_line = caps.sentence(stops.filter(pl.col("variant_id") == vid)) if len(stops) else None
    if stop_line and stop_line.startswith("no game"):  # said once in the summary; here only where any did
        stop_line = None
    figs = {
        "win_rates": figures.win_rates(rates, fair, order),
        "seats": figures.win_rates(seat_rates, fair, list(range(seat["players"])), label="seat",
                                   seat_name=seat_name),
        "scores": figures.score_histograms(t["hist_strategy"].filter(pl.col("variant_id") == vid),
                                           t["hist_seat"].filter(pl.col("variant_id") == vid), score_name, lower, order,
                                           seat_name=(lambda k: f"{words.seat_label(k)} team"
                                                      + (" (starts)" if k == 0 else "")) if members else None,
                                           teams=bool(members)),
        "games": figures.game_shape(t["hist_margin"].filter(pl.col("variant_id") == vid),
                                    t["hist_length"].filter(pl.col("variant_id") == vid)
                                    if len(t["hist_length"]) else t["hist_length"], score_name,
                                    teams=bool(members)),
    }
    return {
        "id": vid, "label": meta.get("label", str(vid)), "sweep": {k: sweep_value_text(v) for k, v in
                                                                  (meta.get("sweep") or {}).items()},
        "strategies": meta.get("strategies") or experiment.get("strategies") or [],
        "players": lay[0]["players"] if members else seat["players"], "games": seat["games"], "fair": fair,
        "partners": bool(members), "teams": len(members) if members else 0,
        "team_size": max(len(m) for m in members) if members else 1,
        "rates": rates.to_dicts(),
        "seat_rates": [{**r, "name": seat_name(r["seat"])} for r in seat_rates.to_dicts()],
        "seat": {**seat, "verdict": seat["verdict"][0].upper() + seat["verdict"][1:]},
        "names": names, "h2h": h2h, "h2h_halve": max((c["games_to_halve"] for c in h2h.values()), default=0), "ratings": _rows(t["ratings"], vid),
        "scores_strategy": _rows(t["scores_strategy"], vid),
        "scores_seat": [{**r, "name": seat_name(r["seat"])} for r in _rows(t["scores_seat"], vid)],
        "margin": margin[0] if margin else None,
        "safety_stops": stop_line,
        "length": _rows(t["length"], vid),
        "stat_cols": stat_cols, "stat_rows": stat_rows,
        "drama": [{**r, "sentence": drama.sentence(r, score_unit(experiment), teams=len(members) if members else False)}
                  for r in _rows(t.get("drama", pl.DataFrame()), vid)],
        "figures": figs,
    }


def _lineup_text(label: str) -> str:
    """A swept value as the caption names it: a line-up (a JSON list of names) as the variants
    are named, "random + collector + blocker"; anything else as it is."""
    try:
        v = json.loads(label)
    except ValueError:
        return label
    return " + ".join(map(str, v)) if isinstance(v, list) else label


def build_view(lf: pl.LazyFrame, experiment: dict[str, Any]) -> Report:
    """Compute every table and lay them out for the template."""
    t = compute_tables(lf, experiment)
    metas = {int(v["id"]): v for v in experiment.get("variants", [])}
    keys = list(experiment.get("sweep_keys") or [])
    order = strategy_order(experiment, t)
    variants = [_variant_view(t, vid, metas.get(vid, {"label": label}), experiment, order)
                for vid, label in t["variants"].select("variant_id", "variant").iter_rows()]
    sweep_figs = []
    if len(variants) > 1 and keys:
        for k in keys:
            uri, numbered = figures.sweep_figure(k, [o for o in keys if o != k], t["headlines"],
                                                 t["win_rates"], order, first=first_unit(t["seat_advantage"]))
            sweep_figs.append({"key": k, "uri": uri, "numbered": [_lineup_text(n) for n in numbered]})
    context = {
        "experiment": experiment,
        "title": experiment.get("name") or "experiment",
        "game_name": experiment.get("game_name") or experiment.get("game") or "",
        "score_name": experiment.get("score_name") or "score",
        "score_unit": score_unit(experiment),
        "duplicate": experiment.get("seating") == "duplicate",
        "rate_tests": len(t["win_rates"]),
        "lower_score_wins": bool(experiment.get("lower_score_wins")),
        "summary": summarise(t, experiment),
        "any_teams": bool(len(t.get("teams", pl.DataFrame()))),
        "first_unit": first_unit(t["seat_advantage"]),
        "variants": variants,
        "sweep_keys": keys,
        "headlines": t["headlines"].to_dicts(),
        "balance": t["balance"].head(10).to_dicts(),
        "sweep_figures": sweep_figs,
        "rules": _rules_view(experiment.get("variants") or []),
        "experiment_text": experiment.get("experiment_text")
        or json.dumps(experiment.get("experiment", {}), indent=2),
        "versions": experiment.get("versions") or {},
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    design = design_view(lf, experiment)  # tournament, neighbours, until: reports/tournament.py
    context.update(design=design, summary=[*design["bullets"], *context["summary"]])
    return Report(experiment=experiment, tables=t, context=context)
