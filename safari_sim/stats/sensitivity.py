"""Which rules matter: each rules field moved from the experiment's value, and what it does to the
first seat's edge, the game's length, the strategies' spread and the drama columns.

Two designs, both run as normal datasets (one results folder per rules point, under the
sensitivity folder; a finished point is never played again, and a stopped screening resumes):

- **one at a time** (``oat``): every screened field moved one step down and one step up from the
  experiment's value (the printed one unless the file overrides it), every other field kept. A
  step is the next value of the field's declared ``search`` (a ``range`` or a list of choices;
  a boolean's other value), or a tenth of a continuous field's ``(lo, hi)`` range; a field with
  no ``search`` that is named in ``--fields`` moves by 1 (whole numbers), 10% (other numbers) or
  flips (booleans). A value the game rejects (RulesError) is left out and said.
- **Morris screening** (``morris``, the default beyond ``OAT_LIMIT`` fields): SALib's
  trajectories over every field's levels (each field's search scaled to [0, 1]); each step of a
  trajectory moves one field, and its change of a measure, over the size of the step, is one
  elementary effect. ``mu_star`` is the mean absolute elementary effect (the field's importance:
  the change of the measure over the field's whole declared range), with an interval from
  resampling the trajectories.

Every rules point plays the same games (same seed, same game numbers, so the same deals: chance
is keyed by the game, not the rules), so effects are **paired**: one bootstrap that resamples
whole deals, the same deals for every point (Poisson weights), gives each difference its
standard error, the games' own dependence included. The interval is the difference plus or minus
1.96 standard errors; the p-value two-sided normal; and an effect is called detectable only when
its p-value stays below 0.05 after Holm's correction over every effect of the screening (all
fields, both directions, all measures), so that the chance of calling any absent effect real is
at most 1 in 20. A Morris field's test: under no effect each elementary effect's change is noise
of the bootstrap's variance, so the sum of squared standardised changes is chi-squared with one
degree of freedom per elementary effect.

The spread is the best strategy's win rate minus the worst's (max minus min over the table's
strategies), resampled the same way; with strategies tied in truth it is biased upwards, but by
the same amount at both points of a difference.

A game played in teams is read as teams (``teams.team_frame``), as the report reads it: the edge
is the first team's (its win rate against a fair 50% with two teams), the spread the best pair of
partners' win rate minus the worst's, and the sentences say so. A screened field that turns the
teams off (Herds' ``teams_at_four``) compares the first team's edge with the first seat's: the
words say "first seat's (or team's) edge".
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import polars as pl
from scipy.stats import chi2

from ..engine.protocol import RulesError, search_space
from .dataset import collect_all
from .design import LEVEL, holm, z_pvalue
from .intervals import z_value

OAT_LIMIT = 8          # more fields than this: Morris screening unless asked otherwise
CONTINUOUS_STEP = 0.1  # a continuous field's step, as a share of its declared range
REPS = 400             # bootstrap replicates (Poisson weights over deals)
MORRIS_LEVELS = 4

MEASURES = {  # name: (words, unit kind)
    "edge": ("first seat's edge", "share"),
    "turns": ("game length", "turns"),
    "spread": ("strategies' spread (best minus worst win rate)", "share"),
    "lead_changes": ("lead changes per game", "count"),
    "lead_from": ("when the winner takes the lead for good (share of the game)", "share"),
    "comeback": ("largest deficit a winner overcame", "score"),
    "margin": ("winner's final lead", "score"),
}
DRAMA = ("lead_changes", "lead_from", "comeback", "margin")


class SensitivityError(ValueError):
    """One clear message naming what is wrong (a field, an experiment key)."""


@dataclass
class Screened:
    """A rules field under screening: its levels in order and the experiment's value."""

    name: str
    kind: str              # "levels" (whole numbers, choices, booleans) or "continuous"
    base: Any
    levels: list = field(default_factory=list)  # kind levels: every value, in order
    lo: float = 0.0        # kind continuous: the range
    hi: float = 0.0
    declared: bool = True  # False: no search declared, the step was made up here

    def neighbours(self) -> list[tuple[str, Any]]:
        """("down", value), ("up", value): one step either way, where there is one."""
        if self.kind == "continuous":
            step = CONTINUOUS_STEP * (self.hi - self.lo)
            out = []
            if self.base - step >= self.lo - 1e-12:
                out.append(("down", float(self.base - step)))
            if self.base + step <= self.hi + 1e-12:
                out.append(("up", float(self.base + step)))
            return out
        i = self.levels.index(self.base)
        out = []
        if i > 0:
            out.append(("down", self.levels[i - 1]))
        if i + 1 < len(self.levels):
            out.append(("up", self.levels[i + 1]))
        return out

    def at(self, u: float) -> Any:
        """The value at position u in [0, 1] of the field's range (Morris levels)."""
        if self.kind == "continuous":
            return float(self.lo + u * (self.hi - self.lo))
        return self.levels[int(round(u * (len(self.levels) - 1)))]

    def position(self, value: Any) -> float:
        if self.kind == "continuous":
            return (value - self.lo) / (self.hi - self.lo)
        return self.levels.index(value) / max(len(self.levels) - 1, 1)


def _is_continuous(search: Any, tp: Any) -> bool:
    return (isinstance(search, tuple) and len(search) == 2 and tp is float
            and all(isinstance(x, float) for x in search))


def screened_fields(rules_cls: type, rules: Any, names: list[str] | None = None) -> list[Screened]:
    """The fields to screen: ``names``, or every field with a declared ``search``."""
    space = search_space(rules_cls)
    hints = typing.get_type_hints(rules_cls)
    known = [f.name for f in dataclasses.fields(rules_cls)]
    if names is None:
        names = list(space)
        if not names:
            raise SensitivityError("no rules field of this game declares search values yet; name "
                                   "the fields to screen with --fields a,b")
    out = []
    for name in names:
        if name not in known:
            import difflib

            near = difflib.get_close_matches(name, known, n=1)
            raise SensitivityError(f"--fields: no rules field '{name}'" + (
                f"; did you mean '{near[0]}'?" if near else f" (known: {', '.join(known)})"))
        base = getattr(rules, name)
        tp = hints[name]
        search = space.get(name)
        if search is None:
            out.append(_made_up(name, base, tp))
            continue
        if _is_continuous(search, tp):
            lo, hi = search
            out.append(Screened(name, "continuous", float(base), lo=lo, hi=hi))
            continue
        levels = list(search)
        if base not in levels:  # the experiment's value between or beside the declared ones
            try:
                levels = sorted({*levels, base})
            except TypeError:
                levels = [base, *levels]
        out.append(Screened(name, "levels", base, levels=levels))
    return out


def _made_up(name: str, base: Any, tp: Any) -> Screened:
    """A field named on the command line without a declared search: one step either way."""
    if isinstance(base, bool):
        return Screened(name, "levels", base, levels=[False, True], declared=False)
    if isinstance(base, int):
        return Screened(name, "levels", base, levels=[base - 1, base, base + 1], declared=False)
    if isinstance(base, float):
        d = abs(base) * 0.1 or 0.1
        return Screened(name, "levels", base, levels=[base - d, base, base + d], declared=False)
    raise SensitivityError(f"--fields: {name} is not a number or a boolean and declares no search "
                           f"choices (its value: {base!r}), so it has no step to move by")


# ---- the points to play -----------------------------------------------------------------------

@dataclass
class Point:
    overrides: dict[str, Any]      # rules fields moved from the experiment's values
    folder: str                    # its results folder's name

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={_text(v)}" for k, v in self.overrides.items()) or "base"


def _text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def point(overrides: dict[str, Any]) -> Point:
    if not overrides:
        return Point({}, "base")
    label = ",".join(f"{k}={_text(v)}" for k, v in sorted(overrides.items()))
    slug = re.sub(r"[^A-Za-z0-9_.=,+-]", "_", label)
    if len(slug) > 80:
        slug = slug[:60] + "-" + hashlib.sha256(label.encode()).hexdigest()[:12]
    return Point(dict(overrides), slug)


def oat_design(fields: list[Screened]) -> list[dict]:
    """One row per moved value: field, direction, value, the point."""
    rows = []
    for f in fields:
        for direction, value in f.neighbours():
            rows.append({"field": f.name, "direction": direction, "base": f.base, "value": value,
                         "point": point({f.name: value})})
    return rows


def morris_design(fields: list[Screened], trajectories: int, seed: int) -> list[list[Point]]:
    """SALib's Morris trajectories (k + 1 points each) over the fields' levels."""
    from SALib.sample import morris as morris_sample

    problem = {"num_vars": len(fields), "names": [f.name for f in fields],
               "bounds": [[0.0, 1.0]] * len(fields)}
    x = morris_sample.sample(problem, trajectories, num_levels=MORRIS_LEVELS, seed=seed)
    k = len(fields)
    out = []
    for t in range(trajectories):
        traj = []
        for row in x[t * (k + 1):(t + 1) * (k + 1)]:
            over = {f.name: f.at(float(u)) for f, u in zip(fields, row)}
            traj.append(point({n: v for n, v in over.items()
                               if v != next(f.base for f in fields if f.name == n)}))
        out.append(traj)
    return out


TEAM_WORDS = {"edge": "first team's edge",
              "spread": "spread between pairs of partners (best minus worst win rate)",
              "lead_from": "when the winning team takes the lead for good (share of the game)",
              "comeback": "largest deficit a winning team overcame",
              "margin": "winning team's final lead"}
MIXED_WORDS = {"edge": "first seat's (or team's) edge",
               "spread": "spread between strategies (or pairs of partners; best minus worst win rate)",
               "lead_from": "when the winner (or winning team) takes the lead for good (share of the game)",
               "comeback": "largest deficit a winner (or winning team) overcame",
               "margin": "winner's (or winning team's) final lead"}


def the(words: str) -> str:
    """A measure's words as the object of "change of", "effect on": "the game length", but
    "when the winner takes the lead for good" (no article before a clause)."""
    return words if words.startswith("when ") else f"the {words}"


SEAT_KEY = " of "  # a per-seat measure's key: "COLUMN of STRATEGY" (that strategy's players' own)


def words_of(m: str, teams: bool | str = False) -> str:
    """A measure in words; ``teams``: True when every point plays in teams, "mixed" when some do.
    The game's own and the designer's measures say whether they are one number a game or each
    player's own, read per strategy ("rounds_closed_won (per player): closer")."""
    from .dataset import measure_words

    table = TEAM_WORDS if teams is True else MIXED_WORDS if teams == "mixed" else {}
    if m in table or m in MEASURES:
        return table.get(m, MEASURES[m][0])
    if SEAT_KEY in m:
        column, strategy = m.split(SEAT_KEY, 1)
        return measure_words(column, True, strategy)
    return measure_words(m, False)


# ---- playing the points: normal datasets ----------------------------------------------------

def base_experiment(path: str | Path, games: int | None = None) -> tuple[Any, dict]:
    """The experiment file, resolved, and its raw mapping. A screening plays one table: a sweep
    or a pool is refused; ``until:`` is dropped (every point plays the same games)."""
    import yaml

    from ..run.config import ExperimentError, load_experiment

    try:
        exp = load_experiment(path, games=games)
    except ExperimentError as e:
        raise SensitivityError(str(e)) from None
    if exp.spec.sweep:
        raise SensitivityError(f"{path}: sweep: a screening moves the rules itself; drop the sweep")
    if exp.spec.pool:
        raise SensitivityError(f"{path}: pool: a screening plays one table; list strategies: instead")
    raw = yaml.safe_load(exp.source_text) or {}
    raw.pop("until", None)
    raw.pop("report", None)
    if games is not None:
        raw["games"] = games
    return exp, raw


def run_point(raw: dict, base_dir: Path, output: Path, jobs: int | None = None,
              on_games: Callable[[int], None] | None = None, replace: bool = False) -> Path:
    """Play (or resume) one experiment given as a mapping into ``output``: a normal dataset.
    ``replace``: results of another experiment there (the game's rules changed since) are moved
    aside, as `safari-sim run --replace` does."""
    import yaml
    from pydantic import ValidationError

    from ..run import store
    from ..run.config import ExperimentError, ExperimentFile, _pydantic_message, resolve
    from ..run.runner import RunError, plan, prepare_output, run_tasks

    raw = {**raw, "output": str(Path(output).absolute())}  # from here, not from the file's folder
    if jobs is not None:
        raw["parallel"] = {**(raw.get("parallel") or {}), "jobs": jobs}
    text = yaml.safe_dump(raw, sort_keys=False)
    try:
        spec = ExperimentFile.model_validate(raw)
        exp = resolve(spec, base_dir / "experiment.yaml", text)
        record = prepare_output(exp, raw, replace=replace)
        record.pop("replaced", None)
    except ValidationError as e:
        raise SensitivityError(_pydantic_message(e)) from None
    except (ExperimentError, RulesError) as e:
        raise SensitivityError(str(e)) from None
    meta = exp.output / "experiment.json"
    tasks = plan(exp)
    try:
        run_tasks(tasks, exp.spec.parallel.jobs,
                  (lambda t, r: on_games(r[0])) if on_games else None,
                  exp.spec.parallel.backend, exp.spec.parallel.address)
    except RunError as e:
        raise SensitivityError(str(e)) from None
    record["finished"] = True
    store.write_json(meta, record)
    return exp.output


# ---- paired estimates ---------------------------------------------------------------------------

@dataclass
class Estimates:
    """Every measure at every point: ``value[m]`` float[V], ``reps[m]`` float[V, R] (the same
    resampled deals at every point)."""

    measures: list[str]
    value: dict[str, np.ndarray]
    reps: dict[str, np.ndarray]
    games: int
    teams: bool | str = False  # every point plays in teams (True), some ("mixed"), none
    point_teams: list[bool] = field(default_factory=list)  # each point plays in teams
    units: list[list[str]] = field(default_factory=list)   # each point's strategies (or pairs)

    def compared(self, points: list[int]) -> bool | str:
        """How the points of one field's effects play: in teams (True), not (False), "mixed"."""
        if not self.point_teams:
            return self.teams
        got = {self.point_teams[i] for i in points}
        return "mixed" if len(got) > 1 else got.pop()

    def other_pairs(self, a: int, b: int) -> bool:
        """Whether points a and b, both in teams, seat other pairs of partners (``partners:
        beside`` under rotation: the rotation splits them): their spreads are of other pairs."""
        return (bool(self.point_teams) and self.point_teams[a] and self.point_teams[b]
                and self.units[a] != self.units[b])


def _seat_sums(lf: pl.LazyFrame, deals: np.ndarray, columns: list[str]) -> dict[str, np.ndarray]:
    """Per-seat measures (``dataset.seat_measures``) from the player rows: for each column and
    strategy, per deal (rows in the order of ``deals``) the sum of its players' values and their
    number, keyed "COLUMN of STRATEGY" (``SEAT_KEY``): each strategy's players' own, averaged."""
    if not columns:
        return {}
    schema = lf.collect_schema()
    deal = pl.col("deal") if "deal" in schema else pl.col("game")
    x = {c: pl.col(c).cast(pl.Float64).fill_nan(None) for c in columns}
    g = (lf.select(deal.alias("_d"), pl.col("strategy").cast(pl.String), *[x[c].alias(c) for c in columns])
         .group_by("_d", "strategy")
         .agg(*[pl.col(c).sum().alias(f"{c}_s") for c in columns],
              *[pl.col(c).is_not_null().sum().alias(f"{c}_n") for c in columns]).collect())
    idx = pl.DataFrame({"_d": deals, "_i": np.arange(len(deals))})
    g = g.join(idx, on="_d", how="inner")
    out = {}
    for name in sorted(g["strategy"].unique().to_list()):
        mine = g.filter(pl.col("strategy") == name)
        i = mine["_i"].to_numpy()
        for c in columns:
            s, n = np.zeros(len(deals)), np.zeros(len(deals))
            np.add.at(s, i, mine[f"{c}_s"].fill_null(0).to_numpy().astype(float))
            np.add.at(n, i, mine[f"{c}_n"].to_numpy().astype(float))
            out[f"{c}{SEAT_KEY}{name}"] = np.stack([s, n])
    return out


def _per_deal(lf: pl.LazyFrame, deals: np.ndarray | None, extra: list[str] = ()) -> tuple[np.ndarray, dict[str, np.ndarray], list[str], int]:
    """Per deal sums of what the measures need; rows in the order of ``deals``. ``extra``: the
    game's own and the designer's per-game measures (``measure_columns`` less
    ``seat_measures``), read on seat 0's row (one value a game) as the drama numbers are."""
    schema = lf.collect_schema()
    deal = pl.col("deal") if "deal" in schema else pl.col("game")
    drama = [c for c in list(DRAMA) + list(extra) if c in schema]
    seat0 = lf.filter(pl.col("seat") == 0).select(
        deal.alias("_d"), pl.col("win").alias("_e"), pl.col("turns").cast(pl.Float64).alias("_t"),
        *[pl.col(c).cast(pl.Float64).fill_nan(None).alias(c) for c in drama])
    g = seat0.group_by("_d").agg(
        pl.len().alias("_g"), pl.col("_e").sum(), pl.col("_t").sum(),
        *[pl.col(c).sum().alias(f"{c}_s") for c in drama],
        *[pl.col(c).is_not_null().sum().alias(f"{c}_n") for c in drama])
    s = lf.select(deal.alias("_d"), "strategy", "win").group_by("_d", "strategy").agg(
        pl.col("win").sum().alias("_w"), pl.len().alias("_n"))
    players = int(lf.select(pl.col("players").first()).collect().item())
    g, s = collect_all([g, s])
    if deals is None:
        deals = np.sort(g["_d"].to_numpy())
    idx = pl.DataFrame({"_d": deals, "_i": np.arange(len(deals))})
    g = idx.join(g, on="_d", how="left").sort("_i").fill_null(0)
    if g["_g"].sum() != len(lf.filter(pl.col("seat") == 0).select("game").collect()):
        raise SensitivityError("the points did not play the same deals; play every point with the "
                               "same --games")
    cols = {"g": g["_g"].to_numpy().astype(float), "e": g["_e"].to_numpy(), "t": g["_t"].to_numpy()}
    for c in drama:
        cols[f"{c}_s"] = g[f"{c}_s"].to_numpy().astype(float)
        cols[f"{c}_n"] = g[f"{c}_n"].to_numpy().astype(float)
    names = sorted(s["strategy"].unique().to_list())
    s = s.join(idx, on="_d", how="inner")
    w = np.zeros((len(deals), len(names)))
    n = np.zeros((len(deals), len(names)))
    j = np.searchsorted(names, s["strategy"].to_numpy())
    np.add.at(w, (s["_i"].to_numpy(), j), s["_w"].to_numpy())
    np.add.at(n, (s["_i"].to_numpy(), j), s["_n"].to_numpy().astype(float))
    cols["w"], cols["n"], cols["units"] = w, n, names
    return deals, cols, drama, players


def _measures(cols: dict, drama: list[str], players: int, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Each measure under each row of weights [R, D]."""
    with np.errstate(invalid="ignore", divide="ignore"):
        games = weights @ cols["g"]
        seat = {k: weights @ v[0] / (weights @ v[1]) for k, v in cols.get("seat", {}).items()}
        out = {"edge": weights @ cols["e"] / games - 1.0 / players,
               "turns": weights @ cols["t"] / games}
        rates = (weights @ cols["w"]) / (weights @ cols["n"])
        out["spread"] = np.nanmax(rates, axis=1) - np.nanmin(rates, axis=1) if rates.shape[1] > 1 \
            else np.zeros(len(weights))
        for c in drama:
            out[c] = weights @ cols[f"{c}_s"] / (weights @ cols[f"{c}_n"])
    return {**out, **seat}


def estimates(folders: list[Path], seed: int = 0, reps: int = REPS) -> Estimates:
    """Every measure at every point (``folders``: results folders of the same games), with
    paired bootstrap replicates."""
    from . import scan

    from .dataset import load_experiment, measure_columns, seat_measures

    from . import teams

    exp0, lf0 = load_experiment(folders[0]), scan(folders[0])
    extra = measure_columns(exp0, lf0)
    # one number per player: each strategy's players' own, from the player rows (never seat 0's)
    per_seat = seat_measures(exp0, lf0, extra)
    extra = [m for m in extra if m not in per_seat]
    # a point played in teams: one row per team per game (the first team, pairs of partners)
    read = [teams.read_as_teams(scan(f), load_experiment(f)) for f in folders]
    in_teams = [bool(len(lay)) for _, lay in read]
    deals, first, drama, players = _per_deal(read[0][0], None, extra)
    per = [(first, drama, players)] + [_per_deal(lf, deals, extra)[1:4] for lf, _ in read[1:]]
    for f, (cols, _, _) in zip(folders, per):
        cols["seat"] = _seat_sums(scan(f), deals, per_seat)
    common = [c for c in drama if all(c in d for _, d, _ in per)]
    common_seat = [k for k in per[0][0]["seat"] if all(k in c["seat"] for c, _, _ in per)]
    for cols, _, _ in per:
        cols["seat"] = {k: cols["seat"][k] for k in common_seat}
    rng = np.random.default_rng([seed, 14])
    weights = np.vstack([np.ones(len(deals)), rng.poisson(1.0, (reps, len(deals)))]).astype(np.float64)
    names = ["edge", "turns", "spread", *common, *common_seat]
    value = {m: np.empty(len(folders)) for m in names}
    rep = {m: np.empty((len(folders), reps)) for m in names}
    for v, (cols, _, n) in enumerate(per):  # n: each point's players (or teams): its fair share
        got = _measures(cols, common, n, weights)
        for m in names:
            value[m][v] = got[m][0]
            rep[m][v] = got[m][1:]
    return Estimates(names, value, rep, int(first["g"].sum()),
                     all(in_teams) or ("mixed" if any(in_teams) else False),
                     in_teams, [cols["units"] for cols, _, _ in per])


def _diff(est: Estimates, m: str, a: int, b: int) -> tuple[float, float]:
    """Point b minus point a, and its paired bootstrap standard error."""
    d = float(est.value[m][b] - est.value[m][a])
    r = est.reps[m][b] - est.reps[m][a]
    r = r[np.isfinite(r)]
    se = float(r.std(ddof=1)) if len(r) > 2 else float("nan")
    return d, se


# ---- the two analyses ---------------------------------------------------------------------------

def oat_effects(design: list[dict], index: dict[str, int], est: Estimates,
                level: float = LEVEL) -> pl.DataFrame:
    """One row per field, direction and measure: the change from the experiment's value with its
    95% interval, p, Holm-adjusted p over every row, and ``detectable``."""
    z = z_value()
    rows = []
    base = index["base"]
    for d in design:
        v = index[d["point"].folder]
        for m in est.measures:
            diff, se = _diff(est, m, base, v)
            rows.append({"field": d["field"], "direction": d["direction"], "base": _text(d["base"]),
                         "value": _text(d["value"]), "measure": m, "at_base": float(est.value[m][base]),
                         "at_value": float(est.value[m][v]), "effect": diff, "se": se,
                         "lo": diff - z * se, "hi": diff + z * se,
                         "teams": _teams_text(est.compared([base, v])),
                         "other_pairs": est.other_pairs(base, v)})
    df = pl.DataFrame(rows, schema_overrides={"effect": pl.Float64, "se": pl.Float64})
    if not len(df):
        return df
    p = z_pvalue(df["effect"].to_numpy(), np.nan_to_num(df["se"].to_numpy()))
    adj = holm(p)
    return df.with_columns(pl.Series("p_value", p), pl.Series("p_holm", adj),
                           pl.Series("detectable", adj < level))


def _teams_text(t: bool | str) -> str:
    """How the compared points play, as a column of the effects: "teams", "players", "mixed"."""
    return "mixed" if t == "mixed" else "teams" if t else "players"


def _teams_of(e: pl.DataFrame, default: bool | str) -> bool | str:
    """A field's effects' ``teams`` column read back: True, False or "mixed"."""
    if "teams" not in e.columns:
        return default
    got = set(e["teams"].to_list())
    return "mixed" if "mixed" in got or len(got) > 1 else got.pop() == "teams"


def noise_test(diff: np.ndarray, reps: np.ndarray) -> float:
    """p-value of "these changes are noise": ``diff`` [k] changes, ``reps`` [k, R] their paired
    bootstrap replicates (centred here). T = d' S^-1 d with S the replicates' covariance (steps
    that share a rules point are correlated, and the same step may recur), chi-squared with the
    rank of S; a change where S has no variance (a deterministic measure) is never noise."""
    keep = np.isfinite(reps).all(axis=1) & np.isfinite(diff)
    d, r = diff[keep], reps[keep]
    if not len(d):
        return 1.0
    r = r - r.mean(axis=1, keepdims=True)
    cov = r @ r.T / max(r.shape[1] - 1, 1)
    w, vec = np.linalg.eigh(cov)
    big = w > max(w.max(), 0.0) * 1e-9
    proj = vec.T @ d
    scale = max(np.abs(d).max(), 1e-300)
    if (np.abs(proj[~big]) > 1e-9 * scale).any():
        return 0.0
    if not big.any():
        return 1.0
    return float(chi2.sf(float((proj[big] ** 2 / w[big]).sum()), int(big.sum())))


def morris_effects(fields: list[Screened], trajectories: list[list[Point]], index: dict[str, int],
                   est: Estimates, seed: int = 0, level: float = LEVEL) -> pl.DataFrame:
    """One row per field and measure: mu_star (mean |elementary effect|, per the whole range),
    its interval (resampling trajectories), mu (signed mean), sigma, the number of elementary
    effects, the noise test's p (``noise_test`` over the field's distinct steps), Holm-adjusted p
    over every row, and ``detectable``."""
    rows = []
    rng = np.random.default_rng([seed, 15])
    by_name = {f.name: f for f in fields}
    steps: dict[str, list[tuple[int, int, float]]] = {f.name: [] for f in fields}
    for traj in trajectories:
        for a, b in zip(traj, traj[1:]):
            moved = [n for n in by_name if a.overrides.get(n, by_name[n].base)
                     != b.overrides.get(n, by_name[n].base)]
            if len(moved) != 1:
                continue  # a rounding of levels left the step empty
            f = by_name[moved[0]]
            du = f.position(b.overrides.get(f.name, f.base)) - f.position(a.overrides.get(f.name, f.base))
            steps[f.name].append((index[a.folder], index[b.folder], du))
    for m in est.measures:
        for f in fields:
            got = [(a, b, du, est.value[m][b] - est.value[m][a]) for a, b, du in steps[f.name]]
            got = [g for g in got if math.isfinite(g[3])]
            if not got:
                continue
            e = np.asarray([d / du for _, _, du, d in got])
            distinct = list(dict.fromkeys((min(a, b), max(a, b)) for a, b, _, _ in got))
            diff = np.asarray([est.value[m][b] - est.value[m][a] for a, b in distinct])
            reps = np.vstack([est.reps[m][b] - est.reps[m][a] for a, b in distinct])
            boot = np.abs(e[rng.integers(0, len(e), (1000, len(e)))]).mean(axis=1)
            points = sorted({i for a, b in distinct for i in (a, b)})
            rows.append({"field": f.name, "measure": m, "mu_star": float(np.abs(e).mean()),
                         "lo": float(np.quantile(boot, 0.025)), "hi": float(np.quantile(boot, 0.975)),
                         "mu": float(e.mean()), "sigma": float(e.std(ddof=1)) if len(e) > 1 else 0.0,
                         "effects": len(e), "p_value": noise_test(diff, reps),
                         "teams": _teams_text(est.compared(points)),
                         "other_pairs": any(est.other_pairs(a, b) for a, b in distinct)})
    df = pl.DataFrame(rows)
    if not len(df):
        return df
    adj = holm(df["p_value"].to_numpy())
    return df.with_columns(pl.Series("p_holm", adj), pl.Series("detectable", adj < level))


# ---- words --------------------------------------------------------------------------------------

def unit_of(m: str, unit: str = "points") -> str:
    """The unit a measure's changes are said in."""
    kind = MEASURES.get(m, (m, "count"))[1]
    return {"share": "percentage points", "turns": "turns", "score": unit, "count": ""}[kind]


def amount(x: float, m: str, unit: str = "points", signed: bool = True, with_unit: bool = True) -> str:
    """A change of measure ``m`` in words: shares in percentage points, lengths in turns."""
    kind = MEASURES.get(m, (m, "count"))[1]
    v, digits = (100 * x, 1) if kind == "share" else (x, 2)
    text = (f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}").replace("-", "\u2212")
    u = unit_of(m, unit)
    return text + (f" {u}" if with_unit and u else "")


def _interval(lo: float, hi: float, m: str, unit: str, signed: bool = True) -> str:
    return (f"interval {amount(lo, m, unit, signed, False)} to {amount(hi, m, unit, signed, False)}")


def _field_sentences(effects: pl.DataFrame, head: Callable[[str, pl.DataFrame], str],
                     part: Callable[[dict], str], teams: bool | str = False) -> list[str]:
    """For each field, clearest first: its detectable effects measure by measure (in the order of
    MEASURES), then the measures it has no detectable effect on (or "no detectable effect on any
    measure")."""
    out = []
    if not len(effects):
        return out
    for name in ranked_fields(effects):
        e = effects.filter(pl.col("field") == name)
        real = e.filter(pl.col("detectable"))
        if not len(real):
            out.append(f"{head(name, e)}: no detectable effect on any measure.")
            continue
        measured = list(dict.fromkeys(e["measure"].to_list()))
        order = list(MEASURES) + [m for m in measured if m not in MEASURES]  # a designer's last
        # worded as the points this field compares are played: in teams, not, or some of each
        words = lambda m, t=_teams_of(e, teams): words_of(m, t)  # noqa: E731
        shown = sorted(set(real["measure"].to_list()), key=order.index)
        none = sorted(set(measured) - set(shown), key=order.index)
        parts = [words(m) + " " + ", ".join(part(r) + _other_pairs(r) for r in
                                            real.filter(pl.col("measure") == m).iter_rows(named=True))
                 for m in shown]
        tail = (f"; no detectable effect on {', '.join(words(m) for m in none)}" if none else "")
        out.append(f"{head(name, e)}: " + "; ".join(parts) + tail + ".")
    return out


def _other_pairs(r: dict) -> str:
    """The caveat of a spread whose points seat other pairs of partners."""
    if r["measure"] != "spread" or not r.get("other_pairs"):
        return ""
    return (" (between other pairs of partners: the seating forms other pairs there, so this is "
            "not the same pairs' spread moving)")


def oat_sentences(effects: pl.DataFrame, fields: list[Screened], unit: str = "points",
                  teams: bool | str = False) -> list[str]:
    """For each field: its detectable effects, or "no detectable effect on any measure"."""
    def head(name, e):
        moves = " and ".join(dict.fromkeys(f"to {v}" for v in e["value"].to_list()))
        return f"{name} (from {e['base'][0]} {moves})"

    return _field_sentences(effects, head, lambda r: (
        f"{amount(r['effect'], r['measure'], unit)} at {r['value']} "
        f"({_interval(r['lo'], r['hi'], r['measure'], unit)})"), teams)


def morris_sentences(effects: pl.DataFrame, unit: str = "points", teams: bool | str = False) -> list[str]:
    return _field_sentences(effects, lambda name, e: name, lambda r: (
        f"moves by {amount(r['mu_star'], r['measure'], unit, False)} "
        f"over its range on average ({_interval(r['lo'], r['hi'], r['measure'], unit, False)})"), teams)


def ranked_fields(effects: pl.DataFrame) -> list[str]:
    """Fields from the clearest effect to none: by their smallest p-value, then their largest
    standardised effect (measures have different units, so sizes are compared in standard
    errors)."""
    size = (pl.col("effect") if "effect" in effects.columns else pl.col("mu_star")).abs()
    se = pl.col("se") if "se" in effects.columns else (pl.col("hi") - pl.col("lo")) / 3.92
    z = pl.when(se > 0).then(size / se).otherwise(pl.when(size > 0).then(float("inf")).otherwise(0.0))
    return (effects.with_columns(z.alias("_z"))
            .group_by("field", maintain_order=True).agg(pl.col("p_value").min(), pl.col("_z").max())
            .sort(["p_value", "_z"], descending=[False, True])["field"].to_list())


# ---- the whole screening ------------------------------------------------------------------------

@dataclass
class Screening:
    name: str
    game: str
    game_name: str
    players: int
    games: int
    method: str
    fields: list[Screened]
    effects: pl.DataFrame
    sentences: list[str]
    skipped: list[str]
    output: Path
    score_unit: str
    points: int
    teams: bool | str = False  # read as teams (every point, or "mixed": some)


def screen(path: str | Path, fields: list[str] | None = None, games: int | None = None,
           method: str = "auto", trajectories: int = 10, output: str | Path | None = None,
           jobs: int | None = None, on_point: Callable[[str, int, int], None] | None = None,
           replace: bool = False) -> Screening:
    """Plan, play (resuming) and analyse a screening of an experiment's rules."""
    exp, raw = base_experiment(path, games)
    game = exp.game
    rules = exp.variants[0].rules
    screened = screened_fields(game.Rules, rules, fields)
    if method == "auto":
        method = "morris" if len(screened) > OAT_LIMIT else "oat"
    if method not in ("oat", "morris"):
        raise SensitivityError(f"--method: expected oat, morris or auto, got {method!r}")
    out = Path(output) if output else Path("results") / f"{exp.name}-sensitivity"
    skipped: list[str] = []

    def playable(p: Point) -> bool:
        try:
            r = game.make_rules({**exp.spec.rules, **p.overrides})
            game.check(r, exp.players)
            return True
        except RulesError as e:
            skipped.append(f"{p.label}: {e}")
            return False

    if method == "oat":
        design = [d for d in oat_design(screened) if playable(d["point"])]
        points = [point({})] + [d["point"] for d in design]
    else:
        if len(screened) < 2:
            raise SensitivityError("--method morris needs at least two fields")
        trajs = [t for t in morris_design(screened, trajectories, exp.spec.seed) if all(map(playable, t))]
        points = [p for t in trajs for p in t]
    unique: dict[str, Point] = {}
    for p in points:
        unique.setdefault(p.folder, p)
    index = {f: i for i, f in enumerate(unique)}
    folders = []
    for i, p in enumerate(unique.values()):
        if on_point:
            on_point(p.label, i, len(unique))
        sub = {**raw, "rules": {**(raw.get("rules") or {}), **p.overrides},
               "name": f"{exp.name} [{p.label}]"}
        folders.append(run_point(sub, exp.base_dir, out / "points" / p.folder, jobs, replace=replace))
    est = estimates(folders, seed=exp.spec.seed)
    unit = "game points" if game.score_name in ("points", "score") else game.score_name
    if method == "oat":
        effects = oat_effects(design, index, est)
        words = oat_sentences(effects, screened, unit, est.teams)
    else:
        effects = morris_effects(screened, trajs, index, est, exp.spec.seed)
        words = morris_sentences(effects, unit, est.teams)
    res = Screening(exp.name, game.id, game.name, exp.players, est.games, method, screened, effects,
                    words, skipped, out, unit, len(unique), est.teams)
    _save(res)
    return res


def _save(res: Screening) -> None:
    from ..files import atomic_write_bytes

    res.output.mkdir(parents=True, exist_ok=True)
    res.effects.write_csv(res.output / "effects.csv")
    record = {"name": res.name, "game": res.game, "players": res.players, "games_per_point": res.games,
              "method": res.method, "points": res.points, "sentences": res.sentences,
              "skipped": res.skipped, "teams": res.teams,
              "fields": [{"name": f.name, "base": f.base, "kind": f.kind, "levels": f.levels,
                          "range": [f.lo, f.hi] if f.kind == "continuous" else None,
                          "declared": f.declared} for f in res.fields]}
    atomic_write_bytes(res.output / "sensitivity.json",
                       (json.dumps(record, indent=2, default=str) + "\n").encode())
