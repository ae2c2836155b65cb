"""What a tune optimises: numbers measured on a dataset, each with its 95% interval.

Every interval comes from the project's statistics (``safari_sim.stats``): win rates and the first
seat's edge are Wilson intervals at the effective number of games, the strategies' spread the
simultaneous (Bonferroni) interval of ``stats.spread_intervals``, and a column's mean the normal
interval from ``stats.cluster_means``; all of them clustered by deal, so duplicate seating counts
the rotations of a deal as one.

Kinds:

- ``seat_edge``: the size of the first seat's edge, |win rate of seat 0 - 1/players|; minimised.
- ``length``: with ``band: [lo, hi]``, how far the mean game length (``column``, default turns)
  lies outside the band (0 inside it), minimised; without a band, the mean length itself in the
  given ``direction``.
- ``spread``: the best strategy's win rate minus the worst's; ``direction`` (default minimise).
- ``column``: the mean of any dataset column (a drama column such as lead_changes, a game
  statistic or measure, score, ...); ``direction`` required. A per-game column (one number a
  game) is read once a game; a per-seat one (one number per player, ``per_seat``: the game's
  ``seat_measures``, a designer's measure that returns a list) as ``strategy``'s players' own, or
  without ``strategy`` every player's, averaged over the game's seats; the words say which. A
  per-game column with a ``strategy`` is refused (tune/config.py). NaN rows (a drama number of a
  tied game) are left out.
- ``win_rate``: ``strategy``'s win rate; ``direction`` (default maximise): the best response.
- ``weighted``: minimise the sum of weight x term over ``terms`` (objectives of the kinds above),
  each term counted so that lower is better (a maximised term enters with a minus sign); its
  interval treats the terms as independent.

A game played in teams (``teams``: the experiment's game plays in teams at its player count) is
read as teams (stats/teams.py), as the report reads it: ``seat_edge`` is the first team's edge
(its win rate against a fair 50% with two teams), ``spread`` the best pair of partners' win rate
minus the worst's, and ``win_rate`` how often the team ``strategy`` plays in wins (against the
same fair share). A column's mean is read from the player rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ..stats.dataset import GAME_KEY
from ..stats.design import cluster_means
from ..stats.intervals import z_value

KINDS = ("seat_edge", "length", "spread", "column", "win_rate", "weighted")


@dataclass(frozen=True)
class Objective:
    name: str
    kind: str
    direction: str                      # "minimize" or "maximize"
    band: tuple[float, float] | None = None
    column: str | None = None
    strategy: str | None = None
    weight: float = 1.0
    terms: tuple["Objective", ...] = ()
    teams: bool = False                 # the game plays in teams: read as teams (module doc)
    per_seat: bool | None = None        # a column of one number per player (None: not known)

    def text(self) -> str:
        """What it asks, in words."""
        way = "up" if self.direction == "maximize" else "down"
        if self.kind == "seat_edge":
            return "the first team's edge towards 0" if self.teams else "the first seat's edge towards 0"
        if self.kind == "length":
            col = self.column or "turns"
            if self.band:
                return f"mean {col} inside {self.band[0]:g} to {self.band[1]:g}"
            return f"mean {col} {way}"
        if self.kind == "spread":
            return f"the spread between pairs of partners {way}" if self.teams else f"the spread between strategies {way}"
        if self.kind == "column":
            return f"{self._column_words()} {way}"
        if self.kind == "win_rate":
            return f"the win rate of {self.strategy}'s team {way}" if self.teams else f"{self.strategy}'s win rate {way}"
        return "weighted: " + " + ".join(f"{t.weight:g} x ({t.text()})" for t in self.terms)

    def noun(self) -> str:
        """What it measures, as the subject of a sentence."""
        if self.kind == "seat_edge":
            return "the size of the first team's edge" if self.teams else "the size of the first seat's edge"
        if self.kind == "length":
            col = self.column or "turns"
            return f"the distance of mean {col} from {self.band[0]:g}-{self.band[1]:g}" if self.band else f"mean {col}"
        if self.kind == "spread":
            return "the spread between pairs of partners" if self.teams else "the spread between strategies"
        if self.kind == "column":
            return self._column_words()
        if self.kind == "win_rate":
            return f"the win rate of {self.strategy}'s team" if self.teams else f"{self.strategy}'s win rate"
        return "the weighted sum"

    def _column_words(self) -> str:
        """"mean pairs_stranded per game", "mean rounds_closed_won per player of closer" (its
        players' own), "mean rounds_closed_won per player (every player)"; "mean X" when it is
        not known whether the column is per game or per seat."""
        from ..stats.dataset import measure_words

        if self.per_seat is None:
            return f"mean {self.column}" + (f" of {self.strategy}" if self.strategy else "")
        text = f"mean {measure_words(self.column, self.per_seat, self.strategy)}"
        return text + (" (every player)" if self.per_seat and not self.strategy else "")

    @property
    def share(self) -> bool:
        """Whether its values are shares or differences of shares (shown in percent)."""
        return self.kind in ("seat_edge", "spread", "win_rate")

    @property
    def points(self) -> bool:
        """Whether its values are differences of shares (an edge's size, a spread): said in
        percentage points, not as a percentage."""
        return self.kind in ("seat_edge", "spread")

    def columns(self) -> list[str]:
        """Dataset columns it needs (beyond the core ones)."""
        if self.kind in ("length", "column"):
            return [self.column or "turns"]
        return [c for t in self.terms for c in t.columns()]


@dataclass(frozen=True)
class Measure:
    """A number with its 95% interval (lo, hi) and standard error, at ``games`` games."""

    value: float
    lo: float
    hi: float
    se: float
    games: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "lo": self.lo, "hi": self.hi, "se": self.se,
                "games": self.games, **self.extra}


def _normal(mean: float, se: float, games: int) -> Measure:
    z = z_value()
    return Measure(mean, mean - z * se, mean + z * se, se, games)


def _from_interval(value: float, lo: float, hi: float, games: int) -> Measure:
    return Measure(value, lo, hi, (hi - lo) / (2 * z_value()), games)


def _abs(m: Measure) -> Measure:
    """|x| with the interval that holds |x| whenever (lo, hi) holds x."""
    lo = 0.0 if m.lo <= 0 <= m.hi else min(abs(m.lo), abs(m.hi))
    return Measure(abs(m.value), lo, max(abs(m.lo), abs(m.hi)), m.se, m.games)


def _outside(m: Measure, band: tuple[float, float]) -> Measure:
    """How far x lies outside ``band`` (0 inside), with the interval mapped through."""
    def d(x):
        return max(band[0] - x, 0.0, x - band[1])

    lo = 0.0 if m.lo <= band[1] and m.hi >= band[0] else min(d(m.lo), d(m.hi))
    return Measure(d(m.value), lo, max(d(m.lo), d(m.hi)), m.se, m.games)


def games_in(lf: pl.LazyFrame) -> int:
    return int(lf.select(pl.struct(GAME_KEY).n_unique()).collect().item())


class Measurer:
    """Measures objectives on one dataset, computing the shared tables once."""

    def __init__(self, lf: pl.LazyFrame):
        from ..stats import teams

        self.lf = lf
        self._rates = self._seats = self._team_rates = None
        self.games = games_in(lf)
        # a team game: seats and spread on the teams' rows, a strategy's win its team's
        lay = teams.layout(lf)
        self.teams = bool(len(lay))
        self.team_lf = teams.team_frame(lf, lay) if self.teams else lf
        self.win_lf = teams.team_wins(lf, lay) if self.teams else lf

    def rates(self) -> pl.DataFrame:
        """Win rates of the table's units: strategies, or in a team game pairs of partners."""
        from ..stats.wins import win_rates

        if self._rates is None:
            self._rates = win_rates(self.team_lf)
        return self._rates

    def strategy_rates(self) -> pl.DataFrame:
        """Each strategy's win rate; in a team game how often the team it plays in wins."""
        from ..stats.wins import win_rates

        if self._team_rates is None:
            self._team_rates = self.rates() if not self.teams else win_rates(self.win_lf)
        return self._team_rates

    def seats(self) -> dict[str, Any]:
        """The first seat's edge with its interval (``stats.seat_win_rates``) and the p-value of
        the test of equal seats (``stats.seat_test``): seat_advantage's numbers for one variant,
        without its correction over variants (there is one)."""
        from ..stats.design import seat_test
        from ..stats.wins import seat_win_rates

        if self._seats is None:
            first = seat_win_rates(self.team_lf).sort("seat").row(0, named=True)
            test = seat_test(self.team_lf).row(0, named=True)
            fair = first["fair"]
            self._seats = {"edge": first["rate"] - fair, "edge_lo": first["lo"] - fair,
                           "edge_hi": first["hi"] - fair, "p_value": test["p_value"], "fair": fair}
        return self._seats

    def mean(self, column: str, strategy: str | None = None) -> Measure:
        c = pl.col(column).cast(pl.Float64)
        ok = c.is_not_null() & c.is_not_nan()
        if strategy is not None:  # one row per game: that strategy's seat
            lf = self.lf.filter(pl.col("strategy") == strategy)
            keys = ["variant_id", "strategy"]
            where = ok
        else:  # a per-seat column averaged over the game's seats; a per-game one unchanged
            lf = self.lf.with_columns(pl.when(ok).then(c).mean().over(GAME_KEY).alias("_tune_x"))
            c = pl.col("_tune_x")
            keys = ["variant_id"]
            where = (pl.col("seat") == 0) & c.is_not_null() & c.is_not_nan()
        m = cluster_means(lf, c, keys, where=where)
        if m.height == 0:
            return Measure(math.nan, math.nan, math.nan, math.nan, self.games)
        r = m.row(0, named=True)
        return _normal(r["mean"], math.sqrt(r["var"]), self.games)

    def measure(self, o: Objective) -> Measure:
        if o.kind == "seat_edge":
            s = self.seats()
            m = _abs(_from_interval(s["edge"], s["edge_lo"], s["edge_hi"], self.games))
            return Measure(m.value, m.lo, m.hi, m.se, m.games,
                           {"edge": s["edge"], "edge_lo": s["edge_lo"], "edge_hi": s["edge_hi"],
                            "seat_p": s["p_value"], "fair": s["fair"], "unit": "team" if self.teams else "seat"})
        if o.kind == "length":
            m = self.mean(o.column or "turns")
            return _outside(m, o.band) if o.band else m
        if o.kind == "spread":
            from ..stats.sweep import spread_intervals

            s = spread_intervals(self.rates()).row(0, named=True)
            return _from_interval(s["spread"], s["spread_lo"], s["spread_hi"], self.games)
        if o.kind == "column":
            return self.mean(o.column, o.strategy)
        if o.kind == "win_rate":
            r = self.strategy_rates().filter(pl.col("strategy") == o.strategy).row(0, named=True)
            return Measure(r["rate"], r["lo"], r["hi"], r["se"], self.games,
                           {"fair": r["fair"], "p_fair": r["p_fair"], **({"unit": "team"} if self.teams else {})})
        if o.kind == "weighted":
            parts = [(t, self.measure(t)) for t in o.terms]
            return combine(parts, self.games)
        raise ValueError(f"unknown objective kind {o.kind!r}")


def combine(parts: list[tuple[Objective, Measure]], games: int) -> Measure:
    """The weighted sum (lower is better) of measured terms, its terms taken as independent."""
    total = sum(t.weight * (1 if t.direction == "minimize" else -1) * m.value for t, m in parts)
    se = math.sqrt(sum((t.weight * m.se) ** 2 for t, m in parts))
    out = _normal(total, se, games)
    return Measure(out.value, out.lo, out.hi, out.se, games,
                   {"terms": {t.name: m.value for t, m in parts}})


def measure_all(lf: pl.LazyFrame, objectives: list[Objective]) -> dict[str, Measure]:
    m = Measurer(lf)
    return {o.name: m.measure(o) for o in objectives}
