"""The experiment file: its schema, and validation that names the offending key.

Everything is checked before anything runs: the game, the player count, every rules override,
every strategy and its parameters, and every point of the sweep grid (each variant is built once
here, so a sweep value that breaks a rule fails now, not an hour into the run).
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ..files import yaml_fault
from ..engine.protocol import Game, RulesError, rules_to_dict
from ..games import game_ids, get_game


class ExperimentError(ValueError):
    """One clear message naming the key that is wrong."""


class StrategySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    use: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)


class ParallelSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    jobs: int = -1
    batch: int = Field(4096, ge=1, le=1_000_000)
    chunk: int | None = Field(None, ge=1, description="games per chunk (the unit of work and storage)")
    backend: Literal["loky", "dask"] = Field(
        "loky", description="loky: worker processes on this machine; dask: a Dask cluster")
    address: str | None = Field(
        None, description="with backend dask: the scheduler (tcp://HOST:PORT), or 'local' for a "
                          "LocalCluster of `jobs` workers on this machine")

    @model_validator(mode="after")
    def _dask_needs_an_address(self):
        if self.backend == "dask" and not self.address:
            raise ValueError("backend dask needs an address: tcp://HOST:PORT of a scheduler, "
                             "or 'local'")
        if self.backend == "loky" and self.address:
            raise ValueError("address is for backend: dask")
        return self


class UntilSpec(BaseModel):
    """Stop before ``games`` when the answer is clear (checked after each round of chunks)."""

    model_config = ConfigDict(extra="forbid")
    interval: float | None = Field(None, gt=0, lt=0.5, description=(
        "stop when every win-rate interval's half-width is at most this"))
    compare: list[str] | None = Field(None, min_length=2, max_length=2, description=(
        "two strategy names (in a team game either may be a pair of partners, 'a + b'): stop "
        "once one's win rate is shown higher than the other's"))
    alpha: float = Field(0.05, gt=0, lt=0.5, description="error rate of the compare decision")

    @model_validator(mode="after")
    def _one_rule(self):
        if (self.interval is None) == (self.compare is None):
            raise ValueError("give exactly one of interval or compare")
        return self


class ExperimentFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    game: str
    players: int = Field(ge=1)
    table: int | None = Field(None, ge=1)
    games: int = Field(ge=1)
    seed: int = Field(0, ge=0)
    rules: dict[str, Any] = Field(default_factory=dict)
    strategies: list[StrategySpec] = Field(default_factory=list)
    pool: list[StrategySpec] = Field(default_factory=list)
    tables: int | None = Field(None, ge=1)
    seating: Literal["rotate", "fixed", "duplicate", "permute"] = "rotate"
    sweep: dict[str, Any] = Field(default_factory=dict)
    until: UntilSpec | None = None
    parallel: ParallelSpec = Field(default_factory=ParallelSpec)
    output: str | None = None
    report: list[Literal["html", "pdf"]] = Field(default_factory=list)
    # the designer's own measures of a finished game, FILE.py:FUNCTION (run/measures.py)
    measures: list[str] = Field(default_factory=list)

    @field_validator("measures", mode="before")
    @classmethod
    def _none_is_no_measure(cls, v: Any) -> Any:
        return [] if v is None else v

    @field_validator("rules", "sweep", mode="before")
    @classmethod
    def _none_is_empty(cls, v: Any) -> Any:
        # a key left with everything under it commented out reads as null: it means "none"
        return {} if v is None else v


@dataclass
class Variant:
    id: int
    label: str
    sweep: dict[str, Any]
    rules: Any                      # the game's Rules instance
    strategies: list[StrategySpec]  # with swept params applied

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "sweep": self.sweep,
                "rules": rules_to_dict(self.rules),
                "strategies": [s.model_dump() for s in self.strategies]}


@dataclass
class Experiment:
    spec: ExperimentFile
    name: str
    game: Game
    variants: list[Variant]
    output: Path
    source_text: str
    base_dir: Path          # where relative paths in the file are taken from

    @property
    def players(self) -> int:
        return self.spec.players

    def fingerprint(self) -> str:
        """What determines every chunk's games: not the output folder, the worker count, nor the
        number of games (chunk c always plays the same games, so a run can be extended)."""
        d = self.spec.model_dump()
        d.pop("output")
        d.pop("games")
        d.pop("report")
        d.pop("until")  # where a run stops, not what its chunks hold
        d["parallel"].pop("jobs")
        d["parallel"].pop("backend")  # where chunks run changes nothing in them
        d["parallel"].pop("address")
        d["parallel"].pop("batch")  # every game has its own streams: the batch changes nothing
        d["variants"] = [v.to_json() for v in self.variants]
        # a strategy of the user's own plays what its file says now: results played by an
        # earlier version of the file are another experiment's
        d["strategy_files"] = user_files(self.spec, self.base_dir)
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]


def measure_names(specs: list[str]) -> list[str]:
    """The dataset columns of ``measures:`` entries: each function's name."""
    return [m.rsplit(":", 1)[-1] for m in specs]


def _check_measures(specs: list[str], base_dir: Path) -> None:
    from .measures import MeasureError, load_measure

    for i, m in enumerate(specs):
        try:
            load_measure(m, base_dir)
        except MeasureError as e:
            raise ExperimentError(f"measures[{i}]: {e}") from None
    names = measure_names(specs)
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ExperimentError(f"measures: two functions named '{dup[0]}' (a column is named "
                              "after its function, so each must be unique)")


def user_files(spec: Any, base_dir: Path) -> dict[str, str]:
    """{path: sha256 of its contents} of the strategy files an experiment names (``use:
    FILE.py:NAME``), a blunder's base among them; a file that is gone hashes as missing."""
    uses = [s.use for s in list(spec.strategies) + list(spec.pool)] + list(spec.measures)
    uses += [str(s.params.get("base", "")) for s in list(spec.strategies) + list(spec.pool)]
    out = {}
    for use in uses:
        if ":" not in use and not use.endswith(".py"):
            continue
        name = use.rsplit(":", 1)[0]
        path = Path(name) if Path(name).is_absolute() else base_dir / name
        out[name] = hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() \
            else "missing"
    return dict(sorted(out.items()))


def _loc(loc: tuple) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _pydantic_message(err: ValidationError, prefix: str = "", model: type | None = None) -> str:
    # an unknown key usually explains a missing one (a typo), so name it first
    errors = sorted(err.errors(), key=lambda x: x["type"] != "extra_forbidden")
    e = errors[0]
    key = _loc(tuple(prefix.split(".")) + tuple(e["loc"]) if prefix else tuple(e["loc"]))
    msg = e["msg"]
    if e["type"] == "extra_forbidden":
        msg = "unknown key"
        parent = e["loc"][:-1]
        known = _known_keys(err, parent, model)
        if known:
            near = difflib.get_close_matches(str(e["loc"][-1]), known, n=1)
            msg += f"; did you mean '{near[0]}'?" if near else f"; known keys: {', '.join(known)}"
    elif e["type"] == "missing":
        msg = "required key is missing"
    else:
        msg = f"{msg} (got {e.get('input')!r})"
    return f"{key}: {msg}"


def _known_keys(err: ValidationError, parent: tuple, model: type | None = None) -> list[str]:
    model = model or {"ExperimentFile": ExperimentFile}.get(err.title)
    if model is None:
        return []
    for part in parent:
        if isinstance(part, int):
            continue
        field = model.model_fields.get(part)
        if field is None:
            return []
        ann = field.annotation
        inner = getattr(ann, "__args__", None)
        cand = [a for a in (inner or (ann,)) if isinstance(a, type) and issubclass(a, BaseModel)]
        if not cand:
            return []
        model = cand[0]
    return list(model.model_fields)


def load_experiment(path: str | Path, games: int | None = None, output: str | None = None,
                    jobs: int | None = None) -> Experiment:
    """Read, validate and resolve an experiment file. Raises ExperimentError."""
    path = Path(path)
    if not path.is_file():
        raise ExperimentError(f"{path}: no such file")
    text = path.read_text()
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ExperimentError(f"{path}: not valid YAML, {yaml_fault(e)}") from None
    if not isinstance(raw, dict):
        raise ExperimentError(f"{path}: expected a mapping of keys (game, players, strategies, ...)")
    if "table" in raw and "players" not in raw:
        raw["players"] = raw["table"]  # a tournament's table size is its player count
    if games is not None:
        raw["games"] = games
    if output is not None:  # a command-line path is the shell's: from the current folder
        raw["output"] = str(Path(output).absolute())
    if jobs is not None:
        raw.setdefault("parallel", {})
        if isinstance(raw["parallel"], dict):
            raw["parallel"]["jobs"] = jobs
    try:
        spec = ExperimentFile.model_validate(raw)
    except ValidationError as e:
        raise ExperimentError(f"{path}: {_pydantic_message(e)}") from None
    try:
        return resolve(spec, path, text)
    except ExperimentError as e:
        raise ExperimentError(f"{path}: {e}") from None


def resolve(spec: ExperimentFile, path: Path, text: str = "") -> Experiment:
    from strategies import StrategyNotFound, get_strategy

    try:
        game = get_game(spec.game)
    except KeyError as e:
        raise ExperimentError(f"game: {e.args[0]}") from None
    if not game.min_players <= spec.players <= game.max_players:
        raise ExperimentError(
            f"players: {game.id} is for {game.min_players} to {game.max_players} players, "
            f"not {spec.players}")
    if spec.seating == "duplicate":
        p = spec.players
        if spec.games % p:
            raise ExperimentError(
                f"games: under seating: duplicate each deal is played once per rotation of the "
                f"{p} seats, so games must be a multiple of {p} (e.g. {spec.games // p * p + p:,})")
        if spec.parallel.chunk and spec.parallel.chunk % p:
            raise ExperimentError(f"parallel.chunk: under seating: duplicate a chunk holds whole "
                                  f"deals: a multiple of {p}")
    if spec.table is not None and spec.table != spec.players:
        raise ExperimentError(f"table: {spec.table} seats, but players is {spec.players}")
    if spec.pool and spec.strategies:
        raise ExperimentError("pool: list the strategies under pool (a tournament) or under "
                              "strategies (one table), not both")
    entries = spec.pool or spec.strategies
    if not entries:
        raise ExperimentError("strategies: list one strategy per seat (or a pool: and table:)")
    names = [s.name for s in entries]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ExperimentError(f"{'pool' if spec.pool else 'strategies'}: the name '{dup[0]}' is "
                              "used twice (names label the results, so each must be unique)")
    base_dir = path.parent.resolve()
    # each strategy resolves and its params validate
    classes = {}
    where_listed = "pool" if spec.pool else "strategies"
    for i, s in enumerate(entries):
        try:
            cls = get_strategy(game.id, s.use, base_dir)
        except StrategyNotFound as e:
            raise ExperimentError(f"{where_listed}[{i}].use: {e}") from None
        classes[s.name] = cls
    axes = _sweep_axes(spec, game, classes, names)
    if spec.pool:
        if "lineup" in spec.sweep:
            raise ExperimentError("sweep.lineup: a pool makes its own tables; drop one of them")
        if len(names) < spec.players:
            raise ExperimentError(f"pool: {len(names)} strategies cannot fill a table of "
                                  f"{spec.players}")
        tables = [list(t) for t in itertools.combinations(names, spec.players)]
        if spec.tables is not None and spec.tables < len(tables):
            # a sample of the tables, fixed by the seed (so a run is reproducible)
            pick = np.random.default_rng(spec.seed).choice(len(tables), spec.tables, replace=False)
            tables = [tables[i] for i in sorted(pick)]
        axes.insert(0, [{"lineup": t} for t in tables])
    elif spec.tables is not None:
        raise ExperimentError("tables: is for a pool: tournament")
    elif "lineup" not in spec.sweep and len(spec.strategies) != spec.players:
        raise ExperimentError(
            f"strategies: {len(spec.strategies)} listed for {spec.players} players "
            "(one strategy per seat)")
    by_name = {s.name: s for s in entries}
    # build every variant now so that any bad value fails before the run
    grid = [dict(kv for part in combo for kv in part.items())
            for combo in itertools.product(*axes)] if axes else [{}]
    variants = []
    for vid, point in enumerate(grid):
        rules_over = dict(spec.rules)
        lineup = point.get("lineup", names)
        strats = [by_name[n].model_copy(deep=True) for n in lineup]
        for k, v in point.items():
            parts = k.split(".")
            if parts[0] == "rules":
                rules_over[parts[1]] = v
            elif parts[0] == "strategies":
                for s in strats:
                    if s.name == parts[1]:
                        s.params[parts[3]] = v
        where = "rules" if not point else f"sweep point {_label(point)}: rules"
        try:
            rules = game.make_rules(rules_over)
            game.check(rules, spec.players)
        except RulesError as e:
            raise ExperimentError(f"{where}.{e.field}: {str(e).split(': ', 1)[-1]}" if e.field
                                  else f"{where}: {e}") from None
        for i, s in enumerate(strats):
            swept = any(k.startswith(f"strategies.{s.name}.") for k in point)
            at = (f"sweep point {_label(point)}: strategies[{i}].params" if swept else
                  f"{where_listed}[{names.index(s.name)}].params")
            try:
                classes[s.name].Params(**s.params)
            except ValidationError as e:
                raise ExperimentError(_pydantic_message(e, at, classes[s.name].Params)) from None
            if hasattr(classes[s.name], "check_for"):  # what its knobs name in this game
                try:
                    classes[s.name](**s.params).check_for(game)
                except ValueError as e:
                    raise ExperimentError(f"{at}: {e}") from None
        variants.append(Variant(vid, _label(point) if point else "base", point, rules, strats))
    _check_measures(spec.measures, base_dir)
    if spec.until and spec.until.compare:
        _check_compare(spec, game, variants)
    name = spec.name or path.stem
    # a relative output is taken from the experiment file's folder, as `use: file.py` is; the
    # default results/NAME from the current folder (where `make run` and a newcomer stand)
    out = (base_dir / spec.output if not Path(spec.output).is_absolute() else Path(spec.output)) \
        if spec.output else Path("results") / name
    return Experiment(spec=spec, name=name, game=game, variants=variants, output=out,
                      source_text=text, base_dir=base_dir)


def _check_compare(spec: ExperimentFile, game: Game, variants: list[Variant]) -> None:
    """``until: {compare: [A, B]}`` names two strategies of the experiment, or pairs of partners
    ("a + b"), that meet as opponents in some game (run/until_sides.py)."""
    from .until_sides import problem

    why = problem(spec.until.compare, spec.seating, spec.players, game, variants)
    if why:
        raise ExperimentError(why)


def _label(point: dict[str, Any]) -> str:
    def text(k, v):
        if k == "lineup":
            return " + ".join(v)
        return f"{k}={json.dumps(v) if not isinstance(v, str) else v}"

    return ", ".join(text(k, v) for k, v in point.items())


def _check_sweep_key(key: str, game: Game, classes: dict[str, type]) -> None:
    parts = key.split(".")
    if parts[0] == "rules" and len(parts) == 2:
        fields = [f.name for f in dataclasses.fields(game.Rules)]
        if parts[1] not in fields:
            near = difflib.get_close_matches(parts[1], fields, n=1)
            hint = f"; did you mean 'rules.{near[0]}'?" if near else ""
            raise ExperimentError(f"sweep.{key}: no such rules field{hint}")
    elif parts[0] == "strategies" and len(parts) == 4 and parts[2] == "params":
        if parts[1] not in classes:
            near = difflib.get_close_matches(parts[1], list(classes), n=1)
            hint = f"; did you mean '{near[0]}'?" if near else f" (names: {', '.join(classes)})"
            raise ExperimentError(f"sweep.{key}: no strategy named '{parts[1]}'{hint}")
        knobs = list(classes[parts[1]].Params.model_fields)
        if parts[3] not in knobs:
            near = difflib.get_close_matches(parts[3], knobs, n=1)
            hint = (f"; did you mean '{near[0]}'?" if near else
                    f" (its knobs: {', '.join(knobs) or 'none'})")
            raise ExperimentError(f"sweep.{key}: '{parts[1]}' has no parameter '{parts[3]}'{hint}")
    else:
        raise ExperimentError(
            f"sweep.{key}: a sweep key is rules.FIELD, strategies.NAME.params.KNOB, zip or lineup")


def _sweep_axes(spec: "ExperimentFile", game: Game, classes: dict[str, type],
                names: list[str]) -> list[list[dict[str, Any]]]:
    """The sweep as axes of the grid: each axis a list of points ({key: value, ...}).

    ``KEY: [a, b]`` is an axis; ``zip: {KEY1: [a, b], KEY2: [c, d]}`` moves its keys together
    (one axis: a with c, b with d); ``lineup: [[s1, s2, s3], ...]`` is an axis of tables (which
    strategies sit down, by name)."""
    axes = []
    for key, values in spec.sweep.items():
        if key == "zip":
            if not isinstance(values, dict) or len(values) < 2:
                raise ExperimentError("sweep.zip: give two or more keys, each with a list of values")
            lens = {k: len(v) if isinstance(v, list) else -1 for k, v in values.items()}
            if min(lens.values()) < 1 or len(set(lens.values())) != 1:
                raise ExperimentError("sweep.zip: every key needs a list of values, all of the same "
                                      "length (" + ", ".join(f"{k}: {n}" for k, n in lens.items()) + ")")
            for k in values:
                if k in ("zip", "lineup"):
                    raise ExperimentError(f"sweep.zip.{k}: zip moves rules and knobs together")
                _check_sweep_key(k, game, classes)
            n = next(iter(lens.values()))
            axes.append([{k: v[i] for k, v in values.items()} for i in range(n)])
        elif key == "lineup":
            if not isinstance(values, list) or not values:
                raise ExperimentError("sweep.lineup: give a list of tables, each a list of names")
            for t in values:
                if not isinstance(t, list) or len(t) != spec.players:
                    raise ExperimentError(f"sweep.lineup: each table lists {spec.players} names "
                                          f"(one per seat), not {t!r}")
                for n in t:
                    if n not in classes:
                        near = difflib.get_close_matches(str(n), names, n=1)
                        hint = f"; did you mean '{near[0]}'?" if near else f" (names: {', '.join(names)})"
                        raise ExperimentError(f"sweep.lineup: no strategy named '{n}'{hint}")
                if len(set(t)) != len(t):
                    raise ExperimentError(f"sweep.lineup: {t!r} names a strategy twice")
            axes.append([{"lineup": list(t)} for t in values])
        else:
            if not isinstance(values, list) or not values:
                raise ExperimentError(f"sweep.{key}: give a list of at least one value")
            _check_sweep_key(key, game, classes)
            axes.append([{key: v} for v in values])
    return axes


def known_games() -> list[str]:
    return game_ids()
