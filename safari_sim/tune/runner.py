"""A tune on disk: trials and confirmations as normal datasets, the study in SQLite.

    OUTPUT/
      tune.json            the tune file, its fingerprint, the confirmed candidates and verdicts
      study.sqlite3        the Optuna storage: the same command resumes (load_if_exists)
      history.csv/.parquet every trial: its values, state, games and each rung's measures
      trials/FP/           one dataset per candidate searched (FP: its experiment's fingerprint),
                           extended rung by rung; a candidate asked twice reuses its games
      confirm/FP/          the confirmation run of each confirmed candidate (fresh deals), and
                           of the experiment as it is (printed rules, default knobs), on the
                           same deals, for comparison
      report.html (.pdf)

Every trial plays the experiment's seed (common random numbers: candidates are compared on the
same deals, so their differences are less noisy), and the confirmation a different seed, so the
confirmed numbers are not the ones the candidates were picked on.
"""

from __future__ import annotations

import json
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ..run import store
from ..run.config import ExperimentError
from .config import Tune, TuneError
from .objectives import Measure, measure_all
from .search import TrialFailed, candidates, games_used, open_study, recover, search


def play(exp, raw: dict[str, Any]) -> Path:
    """Run ``exp`` into its output folder as `safari-sim run` would (resuming what is there)."""
    from ..run.runner import plan, prepare_output, run_tasks

    record = prepare_output(exp, raw)
    tasks = plan(exp)
    p = exp.spec.parallel
    run_tasks(tasks, p.jobs, None, p.backend, p.address)
    record["finished"] = True
    store.write_json(exp.output / "experiment.json", record)
    return exp.output


def candidate_run(tune: Tune, values: dict[str, Any], games: int, where: str,
                  seed: int | None = None, jobs: int | None = 1,
                  base: dict[str, Any] | None = None) -> Path:
    """Play one candidate (``values`` by search key; ``base``: another experiment than the
    tune's) to ``games`` games under OUTPUT/``where``, in a folder named by its experiment's
    fingerprint."""
    exp, raw = tune.experiment_for(values, games, tune.output / where / "_", seed=seed, jobs=jobs,
                                   base=base)
    exp.output = tune.output / where / exp.fingerprint()
    raw["output"] = str(exp.output)
    meta = exp.output / "experiment.json"
    if meta.exists():  # asked before: its first ``games`` games are the ones it would play now
        old = store.read_json(meta)
        if (old.get("finished") and old.get("fingerprint") == exp.fingerprint()
                and old.get("games_per_variant", 0) >= games):
            return exp.output
    return play(exp, raw)


def _record(tune: Tune) -> dict[str, Any]:
    return {"name": tune.name, "fingerprint": tune.fingerprint(), "game": tune.experiment.game.id,
            "game_name": tune.experiment.game.name, "players": tune.players,
            "tune_file": str(tune.path), "tune_text": tune.path.read_text(),
            "experiment_file": str(tune.experiment_path), "experiment": tune.experiment_raw,
            "params": [{"key": p.key, "kind": p.kind, "range": p.describe(), "source": p.source}
                       for p in tune.params],
            "objectives": [{"name": o.name, "kind": o.kind, "direction": o.direction, "text": o.text(),
                            "noun": o.noun(), "share": o.share,
                            "points": o.points}
                           for o in tune.objectives],
            "budget": tune.spec.budget, "rungs": tune.spec.rungs,
            "confirm": tune.spec.confirm.model_dump(), "pruner": tune.spec.pruner,
            "sampler": tune.spec.sampler, "seed": tune.spec.seed, "versions": store.versions()}


def prepare(tune: Tune, replace: bool = False) -> dict[str, Any]:
    """Create OUTPUT with tune.json, or check it holds this same tune (then it resumes)."""
    out = tune.output
    path = out / "tune.json"
    record = _record(tune)
    if path.exists():
        old = store.read_json(path)
        if old.get("fingerprint") != record["fingerprint"]:
            if not replace:
                raise TuneError(f"output: '{out}' holds another tune (different experiment, search, "
                                "objectives, rungs or seed); run with --replace to move it aside "
                                "(kept), or choose another output folder")
            stamp = datetime.now().strftime("%Y-%m-%d-%H%M%S")
            out.rename(out.with_name(f"{out.name}.previous-{stamp}"))
        else:
            record["created"] = old.get("created")
            record["results"] = old.get("results")
    elif out.exists() and any(out.iterdir()):
        raise TuneError(f"output: '{out}' exists and is not a safari-sim tune folder")
    out.mkdir(parents=True, exist_ok=True)
    record["created"] = record.get("created") or datetime.now(timezone.utc).isoformat(timespec="seconds")
    store.write_json(path, record)
    return record


def storage_url(out: Path) -> str:
    return f"sqlite:///{(out / 'study.sqlite3').absolute()}"


def evaluator(tune: Tune) -> Callable[[int, dict[str, Any], int], dict[str, Measure]]:
    from ..stats.dataset import scan

    def evaluate(number: int, values: dict[str, Any], games: int) -> dict[str, Measure]:
        try:
            folder = candidate_run(tune, values, games, "trials")
        except ExperimentError as e:
            raise TrialFailed(str(e)) from None
        return measure_all(first_games(scan(folder), games), tune.objectives)

    return evaluate


def first_games(lf, games: int):
    """Games 0 .. games - 1 of a dataset (a folder may hold more: a candidate asked again)."""
    import polars as pl

    return lf.filter(pl.col("game") < games)


def write_history(study, out: Path) -> None:
    """Every trial as a row: number, state, values, params, games and each rung's measures."""
    import polars as pl

    from ..files import atomic_write_bytes

    rows = []
    for t in study.get_trials(deepcopy=False):
        row = {"number": t.number, "state": t.state.name,
               "started": t.datetime_start.isoformat() if t.datetime_start else None,
               "seconds": (t.datetime_complete - t.datetime_start).total_seconds()
               if t.datetime_complete and t.datetime_start else None}
        for i, v in enumerate(t.values or []):
            row[f"value_{i}"] = float(v)
        for k, v in t.params.items():
            row[k] = json.dumps(v) if isinstance(v, (list, tuple)) else v
        for k, v in sorted(t.user_attrs.items()):
            if not k.startswith("step"):
                row[k if k not in row else f"attr.{k}"] = v
        rows.append(row)
    df = pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame()
    atomic_write_bytes(out / "history.csv", df.write_csv().encode())
    import io

    buf = io.BytesIO()
    df.write_parquet(buf)
    atomic_write_bytes(out / "history.parquet", buf.getvalue())


def search_seat(tune: Tune, name: str) -> dict[str, Any] | None:
    """The experiment as it is with the seat(s) of strategy ``name`` played by the search player
    with the game's measured defaults (``use: search``, no knobs), where the game's
    ``SEARCH_AHEAD`` (strategies/<game>.py) says the search is ahead of every shipped heuristic
    at the tune's player count; None elsewhere, or where that seat already plays the search."""
    import copy

    from ..stats.skill import search_ahead

    if not search_ahead(tune.experiment.game.id, tune.players):
        return None
    raw = copy.deepcopy(tune.experiment_raw)
    seats = [s for s in raw.get("strategies") or [] if isinstance(s, dict) and s.get("name") == name]
    if not seats or any(s.get("use") == "search" for s in seats):
        return None
    for s in seats:
        s["use"], s["params"] = "search", {}
    return raw


def confirm(tune: Tune, study, say: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    """Play the best candidates (and the experiment as it is: printed rules, default knobs) again
    on fresh deals; measure every
    objective with its interval; the dominant-strategy verdict of each searched strategy."""
    from ..stats.dataset import scan
    from .verdict import dominant_verdict

    c = tune.spec.confirm
    seed = c.seed if c.seed is not None else tune.experiment.spec.seed + 1
    jobs = tune.experiment.spec.parallel.jobs
    picked = candidates(study, tune.objectives, c.top)
    runs = []
    printed_values = {p.key: _printed_value(tune, p.key) for p in tune.params}
    decode = {p.key: p.decode for p in tune.params}
    from .text import baseline_label

    for label, number, values in [(baseline_label([p.key for p in tune.params]), None, {}),
                                  *((f"trial {t.number}", t.number,
                                     {k: decode[k](v) for k, v in t.params.items()}) for t in picked)]:
        say(f"confirming {label} ({c.games:,} games)")
        folder = candidate_run(tune, values, c.games, "confirm", seed=seed, jobs=jobs)
        m = measure_all(first_games(scan(folder), c.games), tune.objectives)
        search_values = {} if number is None else {
            o.name: {"value": v, "se": study.trials[number].user_attrs.get(f"{o.name}.se")}
            for o, v in zip(tune.objectives, study.trials[number].values)}
        runs.append({"label": label, "trial": number,
                     "values": {**printed_values, **values} if number is None else dict(values),
                     "folder": str(folder.relative_to(tune.output)), "games": c.games, "seed": seed,
                     "measures": {k: v.to_json() for k, v in m.items()}, "search": search_values})
    verdicts = []
    for name in sorted({p.key.split(".")[1] for p in tune.params if p.key.startswith("strategies.")}):
        tuned = [({k: v for k, v in r["values"].items() if k.startswith(f"strategies.{name}.")},
                  first_games(scan(tune.output / r["folder"]), c.games))
                 for r in runs if r["trial"] is not None]
        if tuned:
            # where the search is the stronger player, it is a candidate best response too: the
            # experiment as it is, that seat played by the search (the same deals)
            searched, base = None, search_seat(tune, name)
            if base is not None:
                say(f"confirming {name}'s seat played by the search ({c.games:,} games)")
                folder = candidate_run(tune, {}, c.games, "confirm", seed=seed, jobs=jobs, base=base)
                searched = first_games(scan(folder), c.games)
            v = dominant_verdict(name, tuned, first_games(scan(tune.output / runs[0]["folder"]), c.games),
                                 search=searched)
            verdicts.append(v)
    return {"confirm_seed": seed, "runs": runs, "verdicts": verdicts,
            "best": _best(runs, tune) if len(runs) > 1 else None}


def _printed_value(tune: Tune, key: str) -> Any:
    parts = key.split(".")
    if parts[0] == "rules":
        v = getattr(tune.experiment.variants[0].rules, parts[1])
        return list(v) if isinstance(v, tuple) else v
    for s in tune.experiment.variants[0].strategies:
        if s.name == parts[1]:
            if parts[3] in s.params:
                return s.params[parts[3]]
            from strategies import get_strategy

            cls = get_strategy(tune.experiment.game.id, s.use, tune.experiment.base_dir)
            return cls.Params().model_dump()[parts[3]]
    return None


def _best(runs: list[dict], tune: Tune) -> dict[str, Any]:
    """The confirmed candidate best on the first objective (for one objective: the answer)."""
    o = tune.objectives[0]
    sign = 1 if o.direction == "minimize" else -1
    tuned = [r for r in runs if r["trial"] is not None]
    return min(tuned, key=lambda r: sign * r["measures"][o.name]["value"])


def run_tune(tune: Tune, say: Callable[[str], None] = lambda s: None, replace: bool = False,
             report: bool = True) -> dict[str, Any]:
    """Search, confirm and report; resumable (the same call picks up where a stopped one left)."""
    record = prepare(tune, replace)
    out = tune.output
    study = open_study(storage_url(out), tune.name, tune.objectives, tune.spec.sampler,
                       tune.spec.pruner, tune.spec.seed)
    again = recover(study)
    if again:
        say(f"resuming: trial(s) {', '.join(map(str, again))} stopped while running: asked again")
    used = games_used(study)
    done = len(study.trials) - len(again)
    if used:
        say(f"resuming: {done} trial(s), {used:,} of the {tune.spec.budget:,} games already played")

    def on_trial(t) -> None:
        say(_trial_line(t, tune))
        write_history(study, out)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # optuna's experimental notes
            ran = search(study, tune.params, tune.objectives, evaluator(tune), tune.spec.rungs,
                         tune.spec.budget, prune=tune.spec.pruner != "none", on_trial=on_trial)
    except TrialFailed as e:
        write_history(study, out)
        raise TuneError(f"search: {e}") from None
    finally:
        write_history(study, out)
    record["ran_now"] = ran
    record["games_used"] = games_used(study)
    record["trials"] = len(study.trials)
    record["results"] = confirm(tune, study, say)
    record["finished"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    store.write_json(out / "tune.json", record)
    if report and tune.formats:
        from reports.tune import build_tune_report

        record["report"] = [str(p) for p in build_tune_report(out, tune.formats)]
    return record


def _trial_line(t, tune: Tune) -> str:
    from .text import plus_minus

    values = ", ".join(f"{k.split('.')[-1]}={v:.3g}" if isinstance(v, float) else f"{k.split('.')[-1]}={v}"
                       for k, v in t.params.items())
    games = t.user_attrs.get("games", 0)
    if t.state.name == "FAIL":
        return f"trial {t.number}: {values}: failed: {t.user_attrs.get('error', '')}"
    parts = []
    for o in tune.objectives:
        v, se = t.user_attrs.get(o.name), t.user_attrs.get(f"{o.name}.se")
        if v is not None:  # decimals as its interval allows: 0.197 (± 0.018), not 0.1972 (± 0.018)
            parts.append(f"{o.name} {plus_minus(v, se, o.share, o.points)}")
    state = "pruned" if t.state.name == "PRUNED" else "done"
    return f"trial {t.number}: {values}: {', '.join(parts)} at {games:,} games ({state})"
