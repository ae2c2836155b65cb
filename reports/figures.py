"""The report's figures: matplotlib (Agg), returned as inline SVG data URIs (no files, no network)."""

from __future__ import annotations

import base64
import io
import itertools
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from safari_sim.stats import words  # noqa: E402

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]
FAIR = "#555555"
STYLE = {
    "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "legend.fontsize": 8,
    "axes.spines.top": False, "axes.spines.right": False, "svg.hashsalt": "safari-sim",
    "axes.grid": True, "grid.color": "#e4e4e4", "grid.linewidth": 0.6, "axes.axisbelow": True,
}


def seat_label(seat: int) -> str:
    """Seat 0 is the player who starts: '1st (starts)', '2nd', ..."""
    return words.seat_label(seat) + (" (starts)" if seat == 0 else "")


def plain(text) -> str:
    """Text for matplotlib as written: a '$' in a name must not start mathtext."""
    return str(text).replace("$", r"\$")


def colour(i: int) -> str:
    return COLOURS[i % len(COLOURS)]


def colour_of(name, order: list) -> str:
    """A strategy keeps its colour in every figure: its place in the experiment's list."""
    return colour(order.index(name) if name in order else len(order))


def to_data_uri(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _pct_tick(x, _pos=None) -> str:
    """0.225 -> '22.5%', 0.25 -> '25%': a decimal only where the tick needs one."""
    return f"{100 * x:.1f}".rstrip("0").rstrip(".") + "%"


def panel_title(ax, text: str) -> None:
    """A left-aligned title wrapped to its panel's width, so long names (a score called "victory
    cards") never run into the next panel's title."""
    fig = ax.get_figure()
    width_in = ax.get_position().width * fig.get_figwidth()
    size = float(STYLE["axes.titlesize"])
    chars = max(int(width_in * 72 / (0.6 * size)), 8)  # a DejaVu Sans character is about 0.6 em
    ax.set_title(textwrap.fill(text, chars), loc="left")


def _pct_axis(ax, axis: str = "x") -> None:
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(matplotlib.ticker.FuncFormatter(_pct_tick))


def win_rates(rates: pl.DataFrame, fair: float, order: list, label: str = "strategy", title: str = "",
              seat_name=None) -> str:
    """Horizontal bars with 95% intervals and the fair share; ``label`` names the rows
    (``seat_name(seat)`` the seats' labels: a team variant's teams)."""
    seat_name = seat_name or seat_label
    with plt.rc_context(STYLE):
        n = len(rates)
        fig, ax = plt.subplots(figsize=(5.6, 0.34 * n + 0.9))
        y = np.arange(n)[::-1]
        r = rates["rate"].to_numpy()
        err = np.vstack([r - rates["lo"].to_numpy(), rates["hi"].to_numpy() - r])
        names = [plain(seat_name(s)) for s in rates["seat"]] if label == "seat" else [plain(x) for x in rates[label]]
        ax.barh(y, r, color=[colour_of(k, order) for k in rates[label]], height=0.6, alpha=0.85)
        ax.errorbar(r, y, xerr=err, fmt="none", ecolor="black", capsize=3, lw=1)
        ax.axvline(fair, color=FAIR, ls="--", lw=1)
        ax.text(fair, n - 0.45, f" fair {100 * fair:.1f}%", color=FAIR, va="bottom", fontsize=8)
        ax.set_yticks(y, names)
        ax.set_xlim(0, max(float(rates["hi"].max()) * 1.15, fair * 1.3))
        ax.set_ylim(-0.6, n - 0.1)
        ax.grid(axis="y", visible=False)
        _pct_axis(ax)
        ax.set_xlabel("share of games won (ties shared), with 95% interval")
        if title:
            ax.set_title(title, loc="left")
        return to_data_uri(fig)


def _step(ax, hist: pl.DataFrame, col: str, name: str) -> None:
    total = hist["count"].sum()
    x = hist["bin_lo"].to_numpy()
    w = float(hist["width"][0])
    y = hist["count"].to_numpy() / total
    edges = np.append(x, x[-1] + w)
    ax.stairs(y, edges, color=col, lw=1.4, label=name)


def score_histograms(by_strategy: pl.DataFrame, by_seat: pl.DataFrame, score_name: str,
                     lower_score_wins: bool, order: list, seat_name=None, teams: bool = False) -> str:
    """Score distribution per strategy (left) and per seat (right), as shares of games; with
    ``teams`` per pair of partners and per team (``seat_name`` labels the teams)."""
    seat_name = seat_name or seat_label
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, 2, figsize=(7.6, 2.9), sharey=True)
        for ax, hist, key, title in ((axes[0], by_strategy, "strategy", "by partners" if teams else "by strategy"),
                                     (axes[1], by_seat, "seat", "by team" if teams else "by seat")):
            for (val,), h in hist.sort(key, "bin").group_by(key, maintain_order=True):
                if key == "seat":
                    _step(ax, h, colour(val), plain(seat_name(val)))
                else:
                    _step(ax, h, colour_of(val, order), plain(val))
            panel_title(ax, plain(f"{score_name} {title}"))
            ax.set_xlabel(plain(score_name + (" (lower wins)" if lower_score_wins else "")))
            ax.legend(frameon=False)
        axes[0].set_ylabel("share of games")
        _pct_axis(axes[0], "y")
        return to_data_uri(fig)


def game_shape(margin: pl.DataFrame, length: pl.DataFrame, score_name: str, teams: bool = False) -> str:
    """Winning margin (with ``teams``: between the winning team and the next) and the length of
    games (turns, and rounds when the game has them)."""
    what = "margin between teams" if teams else "winning margin"
    panels = [("margin", margin, plain(f"{what} ({score_name})"))]
    if len(length):
        for stat in ("turns", "rounds"):
            h = length.filter(pl.col("statistic") == stat)
            if len(h):
                panels.append((stat, h, f"{stat} per game"))
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(panels), figsize=(2.6 * len(panels) + 0.4, 2.5), squeeze=False)
        for ax, (_, h, title) in zip(axes[0], panels):
            h = h.sort("bin")
            total = h["count"].sum()
            ax.bar(h["bin_lo"].to_numpy() + float(h["width"][0]) / 2, h["count"].to_numpy() / total,
                   width=float(h["width"][0]) * 0.9, color=colour(0), alpha=0.8)
            panel_title(ax, title)
            _pct_axis(ax, "y")
        axes[0][0].set_ylabel("share of games")
        return to_data_uri(fig)


def _x_positions(values: list, numeric: list) -> tuple[np.ndarray, list[str] | None]:
    if all(v is not None for v in numeric):
        return np.asarray(numeric, dtype=float), None
    labels = list(dict.fromkeys(values))
    return np.asarray([labels.index(v) for v in values], dtype=float), labels


def _fair_line(ax, x: np.ndarray, fair: np.ndarray) -> None:
    """The fair share, dashed: one level, or where it moves with the variant (teams in some
    variants, one over the teams; players in others) a line through each variant's own."""
    if np.allclose(fair, fair[0]):
        ax.axhline(float(fair[0]), color=FAIR, ls="--", lw=1)
    else:
        ax.plot(x, fair, color=FAIR, ls="--", lw=1)


LONG_TICK = 14  # a swept value's label longer than this (a pool's line-up) is numbered on the axis


def sweep_figure(key: str, other_keys: list[str], head: pl.DataFrame, rates: pl.DataFrame, order: list,
                 first: str = "first seat") -> tuple[str, list[str]]:
    """Headline numbers against one swept value, with 95% bands; one line per value of the other
    swept keys (line style), strategies by colour; ``first``: "first seat", or where variants
    play in teams "first team" ("first seat or team" when some do). Returns the figure and, when
    the values' labels are too long for an axis (a pool's line-ups: rotated, they squeezed the
    panels to nothing), the labels the axis numbers 1, 2, ... (the caption lists them)."""
    panels = ["seat", "strategies"] + (["turns"] if "turns_mean" in head.columns else []) \
        + (["margin"] if "margin_mean" in head.columns else [])
    groups = head.group_by(other_keys, maintain_order=True) if other_keys else [((), head)]
    styles = itertools.cycle(["-", "--", ":", "-."])
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(panels), figsize=(2.55 * len(panels) + 0.6, 2.9))
        axes = np.atleast_1d(axes)
        ticklabels = None
        legend_styles: list = []
        for (gkey, g), ls in zip(groups, styles):
            g = g.sort(key + "#", key, nulls_last=True)
            x, labels = _x_positions(g[key].to_list(), g[key + "#"].to_list())
            ticklabels = labels or ticklabels
            tag = plain(", ".join(f"{k}={v}" for k, v in zip(other_keys, gkey)))
            sort = np.argsort(x, kind="stable")
            x = x[sort]
            for ax, panel in zip(axes, panels):
                if panel == "seat":
                    y, lo, hi = (g[c].to_numpy()[sort] for c in ("first_rate", "first_lo", "first_hi"))
                    ax.plot(x, y, ls=ls, marker="o", ms=3, color=colour(0))
                    ax.fill_between(x, lo, hi, color=colour(0), alpha=0.2, lw=0)
                    _fair_line(ax, x, g["fair"].to_numpy()[sort])
                elif panel == "strategies":
                    r = rates.join(g.select("variant_id"), on="variant_id")
                    for (name,), s in r.group_by("strategy", maintain_order=True):
                        s = g.select("variant_id").join(s, on="variant_id", how="left")
                        y, lo, hi = (s[c].to_numpy()[sort] for c in ("rate", "lo", "hi"))
                        c = colour_of(name, order)
                        ax.plot(x, y, ls=ls, marker="o", ms=3, color=c, label=plain(name) if ls == "-" else None)
                        ax.fill_between(x, lo, hi, color=c, alpha=0.18, lw=0)
                    _fair_line(ax, x, g["fair"].to_numpy()[sort])
                else:
                    col = "turns" if panel == "turns" else "margin"
                    y = g[f"{col}_mean"].to_numpy()[sort]
                    e = g[f"{col}_pm"].to_numpy()[sort]
                    ax.plot(x, y, ls=ls, marker="o", ms=3, color=colour(2 if panel == "turns" else 3))
                    ax.fill_between(x, y - e, y + e, color=colour(2 if panel == "turns" else 3), alpha=0.2, lw=0)
            if tag:  # the line style stands for the other swept values: a neutral legend entry
                legend_styles.append(Line2D([], [], color="#444444", ls=ls, label=tag))
        titles = {"seat": f"{first}'s win rate" if first != "first seat or team" else "first seat's (team's) win rate",
                  "strategies": {"first team": "win rate per pair of partners",
                                 "first seat or team": "win rate per strategy (or pair)"}.get(first, "win rate per strategy"),
                  "turns": "mean turns per game", "margin": "mean winning margin"}
        numbered = ticklabels if ticklabels and max(len(str(t)) for t in ticklabels) > LONG_TICK else []
        for ax, panel in zip(axes, panels):
            panel_title(ax, titles[panel])
            ax.set_xlabel(plain(key) + (" (numbered below)" if numbered else ""))
            if panel in ("seat", "strategies"):
                _pct_axis(ax, "y")
            if numbered:
                ax.set_xticks(range(len(numbered)), [str(i + 1) for i in range(len(numbered))])
            elif ticklabels is not None:
                ax.set_xticks(range(len(ticklabels)), [plain(t) for t in ticklabels], rotation=30, ha="right")
        fig.tight_layout()
        # Legends above the panels, where they cannot hide a line.
        handles, labels = axes[1].get_legend_handles_labels()
        handles += legend_styles
        labels += [h.get_label() for h in legend_styles]
        fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(len(labels), 6),
                   frameon=False)
        return to_data_uri(fig), [str(t) for t in numbered]
