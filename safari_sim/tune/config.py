"""The tune file: its schema, and validation that names the offending key before anything runs.

    name: duck_duck_bruce-tune
    experiment: duck_duck_bruce-3p.yaml      # from this file's folder
    overrides: {games: 1000}                 # any experiment key (rules and parallel merged)
    search:
      rules.target_score: {low: 20, high: 120, step: 5}
      rules.double_loses:                    # nothing: the field's declared search values
      strategies.counter.params.risk: {low: 0.0, high: 1.0}
    objectives:
      - {kind: seat_edge}
      - {kind: length, band: [40, 80]}
    budget: 20000                            # games over all the search's trials
    rungs: [500, 2000]                       # games per trial, promising ones going on
    confirm: {top: 3, games: 20000}          # the best few again, on fresh deals
    output: ../results/duck_duck_bruce-tune

Everything is checked first: the experiment and its overrides (as `safari-sim run` checks a
file), every search key and both ends of its range (or every choice) as rules or knobs, every
objective (its strategy and column: one game is played to learn the dataset's columns), the
rungs and the budget. A wrong key is one ``TuneError`` that names it.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..files import yaml_fault
from ..engine.protocol import search_space
from ..run.config import Experiment, ExperimentError, ExperimentFile, _pydantic_message, resolve
from .objectives import KINDS, Objective
from .space import Param, SpaceError, from_declared, from_file, knob_bounds


class TuneError(ValueError):
    """One clear message naming the key that is wrong."""


class ConfirmSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    top: int = Field(3, ge=1, le=50, description="candidates confirmed (and the printed rules)")
    games: int = Field(10000, ge=1, description="games of each confirmation run (the default is "
                                                "rounded up to whole deals under duplicate seating)")
    seed: int | None = Field(None, ge=0, description="the confirmation's seed (default: the "
                                                     "experiment's seed + 1: fresh deals)")


class ObjectiveSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["seat_edge", "length", "spread", "column", "win_rate", "weighted"]
    name: str | None = Field(None, min_length=1)
    direction: Literal["minimize", "maximize"] | None = None
    band: list[float] | None = Field(None, min_length=2, max_length=2)
    column: str | None = None
    strategy: str | None = None
    weight: float = 1.0
    terms: list["ObjectiveSpec"] | None = None


class TuneFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    experiment: str = Field(min_length=1)
    overrides: dict[str, Any] = Field(default_factory=dict)
    search: dict[str, Any] = Field(min_length=1)
    objectives: list[ObjectiveSpec] = Field(min_length=1)
    budget: int = Field(ge=1, description="games played by the search's trials, all together")
    rungs: list[int] = Field(default_factory=lambda: [500, 2000], min_length=1)
    confirm: ConfirmSpec = Field(default_factory=ConfirmSpec)
    pruner: Literal["noise", "median", "none"] = "noise"
    sampler: Literal["tpe", "random", "nsga2"] = "tpe"
    seed: int = Field(0, ge=0, description="the sampler's seed")
    output: str | None = None
    report: list[Literal["html", "pdf"]] | None = None

    @field_validator("overrides", mode="before")
    @classmethod
    def _none_is_empty(cls, v: Any) -> Any:
        return {} if v is None else v

    @field_validator("rungs")
    @classmethod
    def _rungs(cls, v: list[int]) -> list[int]:
        if any(n < 1 for n in v) or any(b <= a for a, b in zip(v, v[1:])):
            raise ValueError("rungs are games per trial, each above 0 and above the one before")
        return v


@dataclass
class Tune:
    spec: TuneFile
    path: Path
    name: str
    experiment_path: Path
    experiment_raw: dict[str, Any]     # the experiment file with the overrides applied
    experiment: Experiment             # as printed (the experiment's own rules and knobs)
    params: list[Param]
    objectives: list[Objective]
    output: Path
    formats: list[str]

    @property
    def multi(self) -> bool:
        return len(self.objectives) > 1

    @property
    def players(self) -> int:
        return self.experiment.players

    def fingerprint(self) -> str:
        """What decides every trial's games and values: not the budget, the confirmation, the
        output folder or the report (a tune can be resumed with a larger budget)."""
        raw = {k: v for k, v in self.experiment_raw.items()
               if k not in ("games", "output", "report", "parallel", "name")}
        d = {"experiment": raw, "params": [dataclasses.asdict(p) for p in self.params],
             # (an objective's ``teams`` follows from the experiment: left out, so that a tune
             # started before it existed still resumes)
             "objectives": [_without_teams(dataclasses.asdict(o)) for o in self.objectives],
             "rungs": self.spec.rungs, "pruner": self.spec.pruner, "sampler": self.spec.sampler,
             "seed": self.spec.seed}
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def experiment_for(self, values: dict[str, Any], games: int, output: Path,
                       seed: int | None = None, jobs: int | None = 1,
                       base: dict[str, Any] | None = None) -> tuple[Experiment, dict]:
        """The experiment of one candidate (``values`` by search key) at ``games`` games into
        ``output`` (``base``: another experiment than the tune's, as a dict); raises
        ExperimentError naming the rule or knob at fault."""
        raw = with_values(self.experiment_raw if base is None else base, values)
        raw["games"] = games
        raw["output"] = str(Path(output).absolute())
        raw.pop("report", None)  # the tune writes one report for all of them
        if seed is not None:
            raw["seed"] = seed
        if jobs is not None:
            raw.setdefault("parallel", {})["jobs"] = jobs
        try:
            spec = ExperimentFile.model_validate(raw)
        except ValidationError as e:
            raise ExperimentError(_pydantic_message(e)) from None
        return resolve(spec, self.experiment_path, yaml.safe_dump(raw, sort_keys=False)), raw


def _without_teams(d: dict[str, Any]) -> dict[str, Any]:
    """An objective's settings without what follows from the experiment (``teams``, a column's
    ``per_seat``), so that a tune started before they existed still resumes."""
    return {k: [_without_teams(t) for t in v] if k == "terms" else v for k, v in d.items()
            if k not in ("teams", "per_seat")}


def with_values(raw: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    """The experiment ``raw`` with each ``rules.F`` / ``strategies.N.params.K`` value set."""
    raw = copy.deepcopy(raw)
    for key, v in values.items():
        v = list(v) if isinstance(v, tuple) else v
        parts = key.split(".")
        if parts[0] == "rules":
            raw.setdefault("rules", {})[parts[1]] = v
        else:
            for s in raw["strategies"]:
                if s.get("name") == parts[1]:
                    s.setdefault("params", {})[parts[3]] = v
    return raw


def _read_yaml(path: Path, what: str) -> dict[str, Any]:
    if not path.is_file():
        raise TuneError(f"{what}: {path}: no such file")
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise TuneError(f"{what}: {path}: not valid YAML, {yaml_fault(e)}") from None
    if not isinstance(raw, dict):
        raise TuneError(f"{what}: {path}: expected a mapping of keys")
    return raw


def load_tune(path: str | Path, budget: int | None = None, output: str | None = None,
              probe: bool = True) -> Tune:
    """Read, validate and resolve a tune file. Raises TuneError (its message names the key)."""
    path = Path(path)
    raw = _read_yaml(path, "tune file")
    if budget is not None:
        raw["budget"] = budget
    if output is not None:
        raw["output"] = str(Path(output).absolute())
    try:
        spec = TuneFile.model_validate(raw)
    except ValidationError as e:
        raise TuneError(f"{path}: {_pydantic_message(e, model=TuneFile)}") from None
    try:
        return _resolve(spec, path, probe)
    except TuneError as e:
        raise TuneError(f"{path}: {e}") from None


def _resolve(spec: TuneFile, path: Path, probe: bool) -> Tune:
    base = path.parent.resolve()
    exp_path = Path(spec.experiment)
    exp_path = exp_path if exp_path.is_absolute() else base / exp_path
    exp_raw = _read_yaml(exp_path, "experiment")
    for k, v in spec.overrides.items():
        if k in ("rules", "parallel") and isinstance(v, dict) and isinstance(exp_raw.get(k), dict):
            exp_raw[k] = {**exp_raw[k], **v}
        else:
            exp_raw[k] = v
    for key, why in (("sweep", "the tuner chooses the values itself"),
                     ("pool", "the tuner plays one table"),
                     ("until", "the rungs decide how many games a trial plays")):
        if exp_raw.get(key):
            where = "overrides" if key in spec.overrides else f"experiment: {exp_path.name}"
            raise TuneError(f"{where}: has a {key}: but {why}; remove it, or set overrides: "
                            f"{{{key}: null}}")
        exp_raw.pop(key, None)
    exp_raw.setdefault("rules", {})
    exp_raw["rules"] = exp_raw["rules"] or {}
    name = spec.name or path.stem
    out = (Path(spec.output) if Path(spec.output).is_absolute() else (base / spec.output).resolve()) \
        if spec.output else Path("results") / name
    formats = spec.report if spec.report is not None else (exp_raw.get("report") or ["html"])
    tune = Tune(spec=spec, path=path, name=name, experiment_path=exp_path, experiment_raw=exp_raw,
                experiment=None, params=[], objectives=[], output=out, formats=list(formats))
    p = exp_raw.get("players", exp_raw.get("table"))
    if exp_raw.get("seating") == "duplicate" and isinstance(p, int) and p > 0:
        if "games" not in spec.confirm.model_fields_set:  # the default, in whole deals
            spec.confirm.games = -(-spec.confirm.games // p) * p
        for what, n in [*((f"rungs[{i}]", r) for i, r in enumerate(spec.rungs)),
                        ("confirm.games", spec.confirm.games)]:
            if n % p:
                raise TuneError(f"{what}: under seating: duplicate games come in whole deals: a "
                                f"multiple of {p}, not {n}")
    try:
        tune.experiment, _ = tune.experiment_for({}, spec.rungs[0], out / "printed")
    except ExperimentError as e:
        where = "overrides" if spec.overrides else f"experiment: {exp_path.name}"
        raise TuneError(f"{where}: {e}") from None
    exp = tune.experiment
    if spec.budget < spec.rungs[0]:
        raise TuneError(f"budget: {spec.budget:,} games cannot pay for one trial of "
                        f"{spec.rungs[0]:,} (rungs[0])")
    tune.params = [_param(key, value, tune) for key, value in spec.search.items()]
    # both ends of every range, and every choice, alone: a value that breaks a rule fails now
    for p in tune.params:
        for v in p.corners():
            try:
                tune.experiment_for({p.key: v}, spec.rungs[0], out / "check")
            except ExperimentError as e:
                raise TuneError(f"search.{p.key}: the value {v!r} cannot be played: {e}") from None
    names = [s.name for s in exp.spec.strategies]
    columns, per_seat = _columns(tune) if probe else (None, set(exp.game.seat_measures))
    tune.objectives = [_per_seat(_objective(o, f"objectives[{i}]", names, columns, top=True), per_seat)
                       for i, o in enumerate(spec.objectives)]
    if _plays_in_teams(exp):  # read as teams, as the report reads the game (tune/objectives.py)
        tune.objectives = [_in_teams(o) for o in tune.objectives]
    seen = [o.name for o in tune.objectives]
    dup = sorted({n for n in seen if seen.count(n) > 1})
    if dup:
        raise TuneError(f"objectives: two objectives are named '{dup[0]}'; give each a name:")
    if spec.sampler == "nsga2" and not tune.multi:
        raise TuneError("sampler: nsga2 is for several objectives; use tpe or random for one")
    return tune


def _plays_in_teams(exp) -> bool:
    """Whether the experiment's game plays in teams at its player count (``Game.teams``)."""
    return exp.game.teams(exp.variants[0].rules, exp.spec.players) is not None


def _per_seat(o: Objective, per_seat: set[str]) -> Objective:
    """A column objective on a per-seat column (one number per player: ``per_seat``) is read and
    worded as each player's own: a strategy's players', or every player's (tune/objectives.py);
    a per-game column (one number a game) with a ``strategy`` is refused (it is the same number
    for every strategy of the game)."""
    import dataclasses

    terms = tuple(_per_seat(t, per_seat) for t in o.terms)
    if o.kind != "column":
        return dataclasses.replace(o, terms=terms)
    if o.strategy is not None and o.column not in per_seat:
        raise TuneError(f"objective '{o.name}': {o.column} is one number a game (the same for every "
                        f"player of it), so it has no value of {o.strategy} of its own; drop "
                        f"strategy: (per-seat columns: {', '.join(sorted(per_seat)) or 'none'})")
    return dataclasses.replace(o, per_seat=o.column in per_seat, terms=terms)


def _in_teams(o: Objective) -> Objective:
    import dataclasses

    return dataclasses.replace(o, teams=True, terms=tuple(_in_teams(t) for t in o.terms))


def _param(key: str, value: Any, tune: Tune) -> Param:
    exp = tune.experiment
    parts = key.split(".")
    try:
        if parts[0] == "rules" and len(parts) == 2:
            rules_cls = exp.game.Rules
            fields = {f.name: f for f in dataclasses.fields(rules_cls)}
            if parts[1] not in fields:
                near = difflib.get_close_matches(parts[1], list(fields), n=1)
                hint = f"; did you mean 'rules.{near[0]}'?" if near else ""
                raise TuneError(f"search.{key}: no such rules field in {exp.game.id}{hint}")
            import typing

            ftype = typing.get_type_hints(rules_cls)[parts[1]]
            integer = ftype is int or ftype == (int | None)
            if value is None:
                declared = search_space(rules_cls).get(parts[1])
                if declared is None:
                    raise TuneError(f"search.{key}: the field declares no search values; give "
                                    "them here ({low: A, high: B} or a list of choices)")
                return from_declared(key, declared, ftype)
            return from_file(key, value, integer)
        if parts[0] == "strategies" and len(parts) == 4 and parts[2] == "params":
            from strategies import get_strategy

            by_name = {s.name: s for s in exp.spec.strategies}
            if parts[1] not in by_name:
                near = difflib.get_close_matches(parts[1], list(by_name), n=1)
                hint = f"; did you mean '{near[0]}'?" if near else f" (names: {', '.join(by_name)})"
                raise TuneError(f"search.{key}: no strategy named '{parts[1]}' in the experiment{hint}")
            cls = get_strategy(exp.game.id, by_name[parts[1]].use, exp.base_dir)
            knobs = cls.Params.model_fields
            if parts[3] not in knobs:
                near = difflib.get_close_matches(parts[3], list(knobs), n=1)
                hint = (f"; did you mean '{near[0]}'?" if near else
                        f" (its knobs: {', '.join(knobs) or 'none'})")
                raise TuneError(f"search.{key}: '{parts[1]}' has no parameter '{parts[3]}'{hint}")
            info = knobs[parts[3]]
            if value is None:
                p = knob_bounds(key, info)
                if p is None:
                    raise TuneError(f"search.{key}: the knob has no upper and lower bound to search "
                                    "between; give them here ({low: A, high: B})")
                return p
            return from_file(key, value, info.annotation is int)
    except SpaceError as e:
        raise TuneError(str(e) if str(e).startswith("search.") else f"search.{e}") from None
    raise TuneError(f"search.{key}: a search key is rules.FIELD or strategies.NAME.params.KNOB")


def _columns(tune: Tune) -> tuple[list[str], set[str]]:
    """The dataset's columns and which of them are per seat (one number per player), from one
    game of the printed experiment (the kernels compile or load from numba's cache here)."""
    from ..engine.play import play_batch
    from ..run.runner import batch_keys, build_strategies, seating_plan
    from ..run.store import BASE_COLUMNS

    exp = tune.experiment
    v = exp.variants[0]
    p = exp.players
    strats = build_strategies(exp.game.id, [s.model_dump() for s in v.strategies], str(exp.base_dir))
    res = play_batch(exp.game, v.rules, p, strats, seating_plan(exp.spec.seating, p, 0, 1),
                     batch_keys(exp.spec.seed, 0, exp.spec.seating, p, 0, 1))
    from ..run.measures import compute, load_measure

    # the designer's own measures are columns too (named after their functions); this game's
    # answer says which give one number per seat
    mine = compute({m.rsplit(":", 1)[-1]: load_measure(m, exp.base_dir) for m in exp.spec.measures},
                   res.outcome, res.state, v.rules, p, tuple(getattr(exp.game, "constant_fields", ())))
    stats = {**res.outcome.stats, **mine}
    return ([*BASE_COLUMNS, *stats], {k for k, a in stats.items() if np.ndim(a) > 1})


def _objective(o: ObjectiveSpec, where: str, names: list[str], columns: list[str] | None,
               top: bool) -> Objective:
    def need(cond: bool, key: str, msg: str) -> None:
        if not cond:
            raise TuneError(f"{where}.{key}: {msg}")

    if o.strategy is not None and o.strategy not in names:
        near = difflib.get_close_matches(o.strategy, names, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else f" (names: {', '.join(names)})"
        raise TuneError(f"{where}.strategy: no strategy named '{o.strategy}'{hint}")
    if o.column is not None and columns is not None and o.column not in columns:
        near = difflib.get_close_matches(o.column, columns, n=1)
        hint = f"; did you mean '{near[0]}'?" if near else f" (columns: {', '.join(columns)})"
        raise TuneError(f"{where}.column: the dataset has no column '{o.column}'{hint}")
    for key in ("band", "column", "strategy", "terms"):
        allowed = {"band": ("length",), "column": ("length", "column"),
                   "strategy": ("column", "win_rate"), "terms": ("weighted",)}[key]
        if getattr(o, key) is not None and o.kind not in allowed:
            raise TuneError(f"{where}.{key}: not a setting of a {o.kind} objective")
    if o.weight != 1.0 and top:
        need(False, "weight", "a weight belongs to a term of a weighted objective")
    direction = o.direction
    band = None
    if o.kind == "seat_edge":
        need(direction in (None, "minimize"), "direction", "the seat edge is always brought "
             "towards 0 (minimize)")
        direction = "minimize"
    elif o.kind == "length":
        if o.band is not None:
            need(o.band[0] < o.band[1], "band", f"give [low, high] with low below high, not {o.band}")
            need(direction in (None, "minimize"), "direction", "with a band, the distance from "
                 "it is minimized")
            band = (float(o.band[0]), float(o.band[1]))
            direction = "minimize"
        else:
            need(direction is not None, "direction", "give a band: [low, high] or a direction")
    elif o.kind == "spread":
        direction = direction or "minimize"
    elif o.kind == "column":
        need(o.column is not None, "column", "required key is missing")
        need(direction is not None, "direction", "minimize or maximize: which way is better?")
    elif o.kind == "win_rate":
        need(o.strategy is not None, "strategy", "required key is missing (whose win rate?)")
        direction = direction or "maximize"
    elif o.kind == "weighted":
        need(top, "kind", "a weighted objective cannot be a term of another")
        need(bool(o.terms), "terms", "give a list of objectives, each with a weight")
        need(direction in (None, "minimize"), "direction", "a weighted sum is minimized (give "
             "a maximized term a negative contribution through its direction)")
        direction = "minimize"
    terms = tuple(_objective(t, f"{where}.terms[{i}]", names, columns, top=False)
                  for i, t in enumerate(o.terms or []))
    default = ("_".join(x for x in (o.column, o.strategy) if x) if o.kind == "column" else
               o.kind + (f"_{o.strategy}" if o.strategy else ""))
    return Objective(name=o.name or default, kind=o.kind, direction=direction, band=band,
                     column=o.column or ("turns" if o.kind == "length" else None),
                     strategy=o.strategy, weight=float(o.weight), terms=terms)


assert set(KINDS) == set(ObjectiveSpec.model_fields["kind"].annotation.__args__)
