"""The tune report: the best rules (or knob values) with their confirmed intervals, the search's
landscape, and the dominant-strategy verdict; HTML (and PDF) from a tune's results folder.

    from reports.tune import build_tune_report
    build_tune_report("results/duck_duck_bruce-tune", ["html"])

Reads tune.json (written by ``safari_sim.tune.runner``), history.parquet and the Optuna study.
The landscape figures: each searched value against each objective (every trial with its 95%
interval at the games it played, pruned ones lighter, the confirmed candidates in red), the
optimisation history and the parameters' importances (optuna.visualization.matplotlib), and the
Pareto front when there are several objectives.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from safari_sim.files import atomic_write_bytes  # noqa: E402
from safari_sim.stats import words  # noqa: E402
from safari_sim.stats.intervals import z_value  # noqa: E402
from safari_sim.tune import text  # noqa: E402

from .compute import ReportError  # noqa: E402
from .figures import COLOURS, STYLE, panel_title, plain, to_data_uri  # noqa: E402

CONFIRMED = "#D55E00"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"  # as the headline and the verdict write a knob's value
    if isinstance(v, (list, tuple)):
        return json.dumps(list(v))
    return "null" if v is None else str(v)


def _num(x: float | None, half: float, share: bool = False, points: bool = False) -> str:
    """A measure as text, with the decimals its interval (+- ``half``) allows; shares in percent,
    differences of shares in percentage points (the column's heading says so)."""
    return text.number(x, half, share, points)


short_key = text.short_key


def _history(out: Path) -> pl.DataFrame:
    path = out / "history.parquet"
    return pl.read_parquet(path) if path.exists() else pl.DataFrame()


def landscape(history: pl.DataFrame, record: dict[str, Any]) -> list[str]:
    """Per searched key: each objective against the key's value, with intervals."""
    figs = []
    objectives = record["objectives"]
    runs = record["results"]["runs"]
    confirmed = [r for r in runs if r["trial"] is not None]
    for p in record["params"]:
        key = p["key"]
        if key not in history.columns:
            continue
        with plt.rc_context(STYLE):
            fig, axes = plt.subplots(1, len(objectives), figsize=(3.3 * len(objectives) + 0.6, 2.8),
                                     squeeze=False)
            for ax, o in zip(axes[0], objectives):
                name = o["name"]
                if name not in history.columns:
                    continue
                # the seat edge is drawn signed (its size is what is searched): where it
                # crosses 0 is the fair value
                signed = o["kind"] == "seat_edge" and f"{name}.edge" in history.columns
                value_col = f"{name}.edge" if signed else name
                k = 100.0 if o.get("share", False) else 1.0  # shares in percent, their differences in points
                h = history.filter(pl.col(value_col).is_not_null())
                xs_raw = h[key].to_list()
                cats = p["kind"] == "choice"
                order = sorted({str(x) for x in xs_raw}) if cats else None

                def xpos(vals):
                    if cats:
                        return np.array([order.index(str(v)) for v in vals], float)
                    return np.array(vals, float)

                for state, colour, alpha, label in (("COMPLETE", COLOURS[0], 0.9, "trials"),
                                                    ("PRUNED", "#999999", 0.6, "pruned")):
                    g = h.filter(pl.col("state") == state)
                    if g.height == 0:
                        continue
                    x = xpos(g[key].to_list())
                    if cats:
                        x = x + np.random.default_rng(0).uniform(-0.15, 0.15, len(x))
                    y = k * g[value_col].to_numpy().astype(float)
                    se = k * g[f"{name}.se"].to_numpy().astype(float) if f"{name}.se" in g.columns else 0 * y
                    ax.errorbar(x, y, yerr=1.96 * se, fmt="o", ms=3, lw=0.7, color=colour, alpha=alpha,
                                label=label)
                if confirmed:
                    cx = [r["values"].get(key) for r in confirmed]
                    if cats:  # as the history stores them (a list as its JSON text)
                        cx = [json.dumps(list(v)) if isinstance(v, (list, tuple)) else v for v in cx]
                    keep = [i for i, v in enumerate(cx) if v is not None and (not cats or str(v) in order)]
                    if keep:
                        x = xpos([cx[i] for i in keep])
                        m = [confirmed[i]["measures"][name] for i in keep]
                        if signed:
                            m = [{"value": v["edge"], "lo": v["edge_lo"], "hi": v["edge_hi"]} for v in m]
                        y = k * np.array([v["value"] for v in m])
                        err = k * np.array([[v["value"] - v["lo"] for v in m], [v["hi"] - v["value"] for v in m]])
                        ax.errorbar(x, y, yerr=err, fmt="D", ms=5, lw=1.2, color=CONFIRMED,
                                    label="confirmed")
                if signed:
                    ax.axhline(0, color="#555555", lw=0.8, ls="--")
                    ax.set_ylabel("edge (signed, percentage points)")
                elif text.in_points(o):
                    ax.set_ylabel("percentage points")
                elif k != 1:
                    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _p: f"{v:g}%"))
                if cats:
                    long = max(len(c) for c in order) > 8
                    ax.set_xticks(range(len(order)), [plain(c) for c in order],
                                  rotation=30 if long else 0, ha="right" if long else "center",
                                  fontsize=7 if long else None)
                ax.set_xlabel(plain(key))
                panel_title(ax, plain(f"the first {'team' if 'team' in o['text'] else 'seat'}'s edge "
                                      "(its size is searched)" if signed
                                      else o.get("noun", o["text"])))
            axes[0][0].legend(loc="best", frameon=False)
            fig.tight_layout()
            figs.append(to_data_uri(fig))
    return figs


def optuna_figures(out: Path, record: dict[str, Any]) -> list[dict[str, str]]:
    """optuna.visualization.matplotlib's history, importances and (several objectives) Pareto
    front of the stored study; a figure Optuna cannot draw (too few trials) is left out."""
    import optuna
    from optuna.visualization import matplotlib as ovm

    from safari_sim.tune.runner import storage_url

    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.load_study(study_name=record["name"], storage=storage_url(out))
    objectives = record["objectives"]
    multi = len(objectives) > 1
    figs = []

    def grab(title: str, draw, o: dict[str, Any] | None = None) -> None:
        try:
            with warnings.catch_warnings(), plt.rc_context(STYLE):
                warnings.simplefilter("ignore")
                ax = draw()
                a = np.ravel(ax)[0] if isinstance(ax, np.ndarray) else ax
                if o is not None and o.get("share", False):  # the value axis in the headline's units
                    a.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _p: f"{100 * v:.4g}"))
                    a.set_ylabel(f"{o['name']} ({'percentage points' if text.in_points(o) else '%'})")
                fig = a.get_figure()
                fig.set_size_inches(max(fig.get_figwidth(), 5.5), 3.4)
                figs.append({"title": title, "src": to_data_uri(fig)})
        except Exception:  # noqa: BLE001 - a figure Optuna cannot draw is left out, not fatal
            plt.close("all")

    for i, o in enumerate(objectives):
        target = (lambda t, i=i: t.values[i]) if multi else None
        grab(f"Optimisation history: {o['text']}",
             lambda: ovm.plot_optimization_history(study, target=target, target_name=o["name"]), o)
        if len(record["params"]) > 1:
            grab(f"Which searched values matter for {o['text']} (fANOVA importances)",
                 lambda: ovm.plot_param_importances(study, target=target, target_name=o["name"]))
    if multi:
        grab("Pareto front (the first two objectives)",
             lambda: ovm.plot_pareto_front(study, target_names=[o["name"] for o in objectives[:2]],
                                           targets=lambda t: tuple(t.values[:2])))
    return figs


def summary(record: dict[str, Any]) -> list[str]:
    """The plain-words answer (``safari_sim.tune.text.headline``): the best value against the
    printed rule or the knob's default, by how much, and the dominant-strategy verdicts."""
    return text.headline(record)


def tune_view(out: str | Path) -> dict[str, Any]:
    out = Path(out)
    path = out / "tune.json"
    if not path.is_file():
        raise ReportError(f"{out}: no tune.json; is this a tune's results folder?")
    record = json.loads(path.read_text())
    if not record.get("results"):
        raise ReportError(f"{out}: the tune has not finished its confirmation yet; run it again")
    history = _history(out)
    states = history["state"].value_counts().to_dicts() if history.height else []
    keys = [p["key"] for p in record["params"]]
    rows = []
    for r in record["results"]["runs"]:
        cells = []
        for o in record["objectives"]:
            m = r["measures"][o["name"]]
            s = r["search"].get(o["name"]) if r["search"] else None
            sh, pp = o.get("share", False), text.in_points(o)
            half = (m["hi"] - m["lo"]) / 2
            search_half = z_value() * s["se"] if s and s.get("se") is not None else 0.0
            cells.append({"value": _num(m["value"], half, sh, pp), "lo": _num(m["lo"], half, sh, pp),
                          "hi": _num(m["hi"], half, sh, pp),
                          "search": _num(s["value"], search_half, sh, pp) if s else "–"})
        rows.append({"label": r["label"], "vals": [_fmt(r["values"].get(k)) for k in keys],
                     "cells": cells, "folder": r["folder"]})
    return {
        "record": record, "keys": keys,
        "labels": [short_key(k) for k in keys], "rows": rows,
        "units": [", percentage points" if text.in_points(o) else "" for o in record["objectives"]],
        "states": {d["state"]: d["count"] for d in states},
        "summary": summary(record),
        "landscape": landscape(history, record) if history.height else [],
        "optuna": optuna_figures(out, record),
        "verdicts": record["results"]["verdicts"],
        "title": text.title(keys), "digits_for": words.digits_for,
    }


def build_tune_report(out: str | Path, formats: Sequence[str] = ("html",)) -> list[Path]:
    """Write report.html (and report.pdf) into the tune's folder; the paths written."""
    from .render import environment, html_to_pdf

    out = Path(out)
    view = tune_view(out)
    html = environment().get_template("tune.html.j2").render(**view)
    written = []
    for fmt in formats:
        p = out / f"report.{fmt}"
        atomic_write_bytes(p, html.encode("utf-8") if fmt == "html" else html_to_pdf(html))
        written.append(p)
    return written
