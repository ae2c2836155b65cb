"""The sensitivity page: which rules matter, as a tornado chart (largest effects first) and a table
per measure, and the skill page: one line per game and the plot across games."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

import numpy as np
import polars as pl

from safari_sim.files import atomic_write_bytes
from safari_sim.stats import sensitivity as sens

from . import figures
from .render import environment, html_to_pdf


def _measure_order(effects: pl.DataFrame) -> list[str]:
    present = list(dict.fromkeys(effects["measure"].to_list())) if len(effects) else []
    # the shipped measures in their order, then the designer's own (measures: in the file)
    return [m for m in sens.MEASURES if m in present] + [m for m in present
                                                          if m not in sens.MEASURES]


def _scale(m: str) -> float:
    return 100.0 if sens.MEASURES.get(m, (m, 'count'))[1] == "share" else 1.0


def tornado(effects: pl.DataFrame, m: str, unit: str, teams=False) -> str:
    """One-at-a-time: per field a bar to the effect of one step down and one of one step up, with
    95% whiskers; the largest effect on top; effects that are not detectable are pale."""
    with figures.plt.rc_context(figures.STYLE):
        return figures.to_data_uri(tornado_figure(effects, m, unit, teams))


def tornado_figure(effects: pl.DataFrame, m: str, unit: str, teams=False):
    """The tornado as a matplotlib figure (``tornado`` writes it). Its legend sits above the axes,
    outside them: a whisker can reach any corner of the plot, so no place inside is free."""
    e = effects.filter(pl.col("measure") == m)
    order = (e.with_columns(pl.col("effect").abs().alias("_a")).group_by("field")
             .agg(pl.col("_a").max()).sort("_a", descending=False)["field"].to_list())
    k = _scale(m)
    with figures.plt.rc_context(figures.STYLE):
        fig, ax = figures.plt.subplots(figsize=(6.4, 0.42 * len(order) + 1.3))
        for y, name in enumerate(order):
            for r in e.filter(pl.col("field") == name).iter_rows(named=True):
                c = figures.colour(0 if r["direction"] == "down" else 1)
                alpha = 0.9 if r["detectable"] else 0.25
                ax.barh(y, k * r["effect"], height=0.6, color=c, alpha=alpha)
                ax.errorbar(k * r["effect"], y, xerr=[[k * (r["effect"] - r["lo"])], [k * (r["hi"] - r["effect"])]],
                            fmt="none", ecolor="black", capsize=2, lw=0.8)
                ax.annotate(figures.plain(r["value"]), (k * r["effect"], y), xytext=(3 if r["effect"] >= 0 else -3, 6),
                            textcoords="offset points", fontsize=7, ha="left" if r["effect"] >= 0 else "right")
        ax.axvline(0, color="#333333", lw=0.8)
        ax.set_yticks(range(len(order)), [figures.plain(n) for n in order])
        ax.grid(axis="y", visible=False)
        u = sens.unit_of(m, unit)
        ax.set_xlabel(figures.plain(f"change of {sens.the(sens.words_of(m, teams))}" + (f" ({u})" if u else "")))
        from matplotlib.patches import Patch

        ax.legend(handles=[Patch(color=figures.colour(0), label="one step down"),
                           Patch(color=figures.colour(1), label="one step up"),
                           Patch(color="#999999", alpha=0.3, label="pale: no detectable effect")],
                  frameon=False, fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=3,
                  borderaxespad=0.3)
        fig.tight_layout()
        return fig


def morris_bars(effects: pl.DataFrame, m: str, unit: str, teams=False) -> str:
    """Morris: mu_star (mean absolute elementary effect over the field's range) with its interval."""
    e = effects.filter(pl.col("measure") == m).sort("mu_star")
    k = _scale(m)
    with figures.plt.rc_context(figures.STYLE):
        fig, ax = figures.plt.subplots(figsize=(6.4, 0.36 * len(e) + 1.1))
        y = np.arange(len(e))
        mu = k * e["mu_star"].to_numpy()
        ax.barh(y, mu, height=0.6, color=[figures.colour(0) if d else "#bbbbbb" for d in e["detectable"]])
        ax.errorbar(mu, y, xerr=[mu - k * e["lo"].to_numpy(), k * e["hi"].to_numpy() - mu], fmt="none",
                    ecolor="black", capsize=2, lw=0.8)
        ax.set_yticks(y, [figures.plain(n) for n in e["field"]])
        ax.grid(axis="y", visible=False)
        u = sens.unit_of(m, unit)
        ax.set_xlabel(figures.plain(f"mu*: mean |change| of {sens.the(sens.words_of(m, teams))} over the field's range"
                                    + (f" ({u})" if u else "")))
        fig.tight_layout()
        return figures.to_data_uri(fig)


def column_decimals(rows: pl.DataFrame, scale: float) -> int:
    """The decimals of a measure's table: one number for every row, the most any row's interval
    needs (``words.decimals`` of its width), so a column never mixes 0.453 and 0.45."""
    from safari_sim.stats.words import decimals

    widths = (scale * (rows["hi"] - rows["lo"])).to_list() if len(rows) else []
    return max((decimals(w, 2, 4) for w in widths if w is not None), default=2)


def build_sensitivity_report(res: sens.Screening, formats: Sequence[str] = ("html",)) -> list[Path]:
    effects = res.effects
    measures = []
    for m in _measure_order(effects):
        rows = effects.filter(pl.col("measure") == m)
        teams = getattr(res, "teams", False)
        fig = (tornado(effects, m, res.score_unit, teams=teams) if res.method == "oat"
               else morris_bars(effects, m, res.score_unit, teams=teams))
        order = sens.ranked_fields(rows)
        rows = rows.with_columns(pl.col("field").replace_strict({f: i for i, f in enumerate(order)}).alias("_o"))
        measures.append({"key": m, "words": sens.words_of(m, teams), "decimals": column_decimals(rows, _scale(m)),
                         "the_words": sens.the(sens.words_of(m, teams)), "unit": sens.unit_of(m, res.score_unit),
                         "scale": _scale(m), "figure": fig, "rows": rows.sort("_o").to_dicts(),
                         "any": bool(rows["detectable"].any())})
    context = {
        "res": res, "measures": measures, "sentences": res.sentences,
        "tests": len(effects), "method": res.method,
        "fields": [{"name": f.name, "base": f.base, "levels": f.levels if f.kind == "levels" else
                    f"{f.lo:g} to {f.hi:g} (continuous)", "declared": f.declared} for f in res.fields],
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    html = environment().get_template("sensitivity.html.j2").render(**context)
    written = []
    for fmt in formats:
        path = res.output / f"sensitivity.{fmt}"
        atomic_write_bytes(path, html.encode() if fmt == "html" else html_to_pdf(html))
        written.append(path)
    return written


def build_skill_report(results: list, out: Path, plot_paths: list[Path], formats: Sequence[str] = ("html",),
                       name: str = "skill") -> list[Path]:
    from safari_sim.stats import skill

    import base64

    png = next((p for p in plot_paths if p.suffix == ".svg"), None)
    uri = ("data:image/svg+xml;base64," + base64.b64encode(png.read_bytes()).decode()) if png else ""
    context = {"results": results, "table": skill.table(results).to_dicts(), "plot": uri,
               "plot_paths": [str(p) for p in plot_paths],
               "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    html = environment().get_template("skill.html.j2").render(**context)
    written = []
    for fmt in formats:
        path = out / f"{name}.{fmt}"
        atomic_write_bytes(path, html.encode() if fmt == "html" else html_to_pdf(html))
        written.append(path)
    return written
