"""Running an experiment: chunks of games in parallel, each written as its own Parquet file.

A chunk is the unit of parallel work and of storage; it plays its games in batches (the width of
the vectorised step). Every game draws from its own streams, keyed by the seed, the variant and
the game's number (``engine.chance.game_keys``), so the dataset does not depend on the batch size,
the number of workers or the order in which chunks finish, a restarted run can skip the chunks
already written, and any game can be replayed alone.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from joblib import Parallel, delayed

from .measures import MeasureError, load_measure
from .measures import compute as measure_columns
from ..engine.play import IllegalActionError, StrategyFailed, play_batch
from ..engine.protocol import rules_to_dict
from ..games import get_game
from . import store
from .config import Experiment, ExperimentError

CHUNK_TARGET = 16384  # games per chunk unless the file says otherwise: files of a few hundred kB


class RunError(RuntimeError):
    """A run that cannot go on; ``detail`` is what to print after the message (the user's own
    traceback when their strategy failed)."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message, detail)  # both in args: it survives pickling from a worker

    def __str__(self) -> str:
        return self.args[0]

    @property
    def detail(self) -> str:
        return self.args[1] if len(self.args) > 1 else ""


def seating_plan(mode: str, n_players: int, first_game: int, n_games: int) -> np.ndarray:
    """int[n, P]: which strategy (index in the file's list) sits in each seat.

    rotate and duplicate: game g puts strategy (s + g) mod P in seat s, so over every P
    consecutive games each strategy plays each seat once (seat 0 starts), but its neighbours never
    change. permute: game g uses the (g mod P!)-th ordering of the strategies, so over every P!
    games each strategy sits in each seat, and beside each other strategy on each side, equally
    often. fixed: strategy s always sits in seat s.
    """
    seats = np.arange(n_players)
    if mode == "fixed":
        return np.broadcast_to(seats, (n_games, n_players)).copy()
    g = np.arange(first_game, first_game + n_games)
    if mode == "permute":
        orders = np.array(list(itertools.permutations(range(n_players))), np.int64)
        return orders[g % len(orders)]
    return (seats[None, :] + g[:, None]) % n_players


def deal_numbers(mode: str, n_players: int, games: np.ndarray) -> np.ndarray:
    """The deal each game plays: its own, or under ``duplicate`` the one shared by the P
    rotations of the table (games P*d .. P*d + P - 1 play deal d)."""
    return games // n_players if mode == "duplicate" else games


def batch_keys(seed: int, variant_id: int, mode: str, n_players: int, first_game: int,
               n_games: int):
    """The streams of games first_game .. first_game + n_games - 1 of a variant."""
    from ..engine.chance import game_keys

    games = np.arange(first_game, first_game + n_games)
    return game_keys(seed, n_players, games, variant_id, deal_numbers(mode, n_players, games))


@dataclass(frozen=True)
class ChunkTask:
    game_id: str
    rules: Any
    players: int
    strategies: list[dict[str, Any]]   # name, use, params
    base_dir: str
    seating: str
    variant: str
    variant_id: int
    chunk: int
    first_game: int
    n_games: int
    batch: int
    seed: int
    path: str
    fingerprint: str
    # each seat's team (engine.protocol.Game.teams), or None: no ``team`` column. When any
    # variant of the experiment plays in teams, every variant writes the column (a variant
    # without teams: each seat its own team), so the chunks share one schema.
    teams: tuple[int, ...] | None = None
    measures: tuple[str, ...] = ()     # the designer's measures, FILE.py:FUNCTION


def variant_teams(exp: Experiment) -> dict[int, tuple[int, ...] | None]:
    """Each variant's team of each seat (``Game.teams`` of its rules), for the ``team`` column:
    None for every variant when none plays in teams, else the seats themselves where one does
    not."""
    p = exp.spec.players
    found = {v.id: exp.game.teams(v.rules, p) for v in exp.variants}
    if all(t is None for t in found.values()):
        return {vid: None for vid in found}
    return {vid: tuple(int(x) for x in (range(p) if t is None else t)) for vid, t in found.items()}


def plan(exp: Experiment) -> list[ChunkTask]:
    spec = exp.spec
    per_chunk = spec.parallel.chunk or CHUNK_TARGET
    if spec.seating == "duplicate":  # whole deals in every chunk
        per_chunk -= per_chunk % spec.players
    tasks = []
    fp = exp.fingerprint()
    teams = variant_teams(exp)
    chunks = range(math.ceil(spec.games / per_chunk))
    # with a stopping rule, chunk-major (every variant's chunk 0, then chunk 1...): the rule is
    # checked after each round of chunks
    order = ([(v, c) for c in chunks for v in exp.variants] if spec.until else
             [(v, c) for v in exp.variants for c in chunks])
    for v, c in order:
        first = c * per_chunk
        tasks.append(ChunkTask(
            game_id=exp.game.id, rules=v.rules, players=spec.players,
            strategies=[s.model_dump() for s in v.strategies], base_dir=str(exp.base_dir),
            seating=spec.seating, variant=v.label, variant_id=v.id, chunk=c,
            first_game=first, n_games=min(per_chunk, spec.games - first),
            batch=spec.parallel.batch, seed=spec.seed,
            path=str(store.chunk_path(exp.output, v.id, c)), fingerprint=fp, teams=teams[v.id],
            measures=tuple(spec.measures)))
    return tasks


def build_strategies(game_id: str, specs: list[dict[str, Any]], base_dir: str | None) -> list[Any]:
    from strategies import get_strategy

    out = []
    for s in specs:
        cls = get_strategy(game_id, s["use"], Path(base_dir) if base_dir else None)
        obj = cls(**s.get("params", {}))
        obj.label = s["name"]
        out.append(obj)
    return out


def run_chunk(task: ChunkTask) -> tuple[int, int, float]:
    """Play and store one chunk. Returns (games, decisions, seconds)."""
    t0 = time.perf_counter()
    game = get_game(task.game_id)
    strats = build_strategies(task.game_id, task.strategies, task.base_dir)
    names = [s["name"] for s in task.strategies]
    meta = {"fingerprint": task.fingerprint, "game": task.game_id, "variant": task.variant,
            "rules": rules_to_dict(task.rules), "strategies": task.strategies, "seed": task.seed,
            "chunk": task.chunk, "first_game": task.first_game, "n_games": task.n_games}
    measures = {m.rsplit(":", 1)[-1]: load_measure(m, Path(task.base_dir))
                for m in task.measures}
    tables = []
    decisions = 0
    seat_columns = None  # the [B, P] statistics of the batches played (a game's, a designer's)
    kept = _kept_part(task)  # a run extended with more games: the games already on disk stay
    if kept is not None:
        tables.append(kept)
    for start in range(kept.num_rows // task.players if kept is not None else 0, task.n_games,
                       task.batch):
        n = min(task.batch, task.n_games - start)
        first = task.first_game + start
        seating = seating_plan(task.seating, task.players, first, n)
        keys = batch_keys(task.seed, task.variant_id, task.seating, task.players, first, n)
        try:
            res = play_batch(game, task.rules, task.players, strats, seating, keys)
        except IllegalActionError as e:
            raise RunError(f"{e} (that is game {first + e.batch_index} of variant "
                           f"'{task.variant}', chunk {task.chunk}, seed {task.seed})") from None
        except StrategyFailed as e:
            import traceback

            cause = e.__cause__
            tb = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
            raise RunError(f"{e} (variant '{task.variant}', chunk {task.chunk}, games {first} to "
                           f"{first + n - 1}, seed {task.seed}); finished chunks are kept",
                           tb) from None
        decisions += res.decisions
        # each game's decisions (every player's, all kinds): what a game's time at the table
        # follows (the report's play time), written by the play loop for every game
        stats = res.outcome.stats
        game_stats = dict(stats)
        stats.clear()  # decisions first, next to turns
        stats.update(decisions=res.per_game.astype(np.int32), **game_stats)
        try:
            res.outcome.stats.update(measure_columns(
                measures, res.outcome, res.state, task.rules, task.players,
                tuple(getattr(game, "constant_fields", ()))))
        except MeasureError as e:
            raise RunError(f"{e} (variant '{task.variant}', chunk {task.chunk})") from None
        except Exception as e:  # the designer's measure raised: its traceback, as a strategy's
            import traceback

            tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            raise RunError(f"a measure failed: {type(e).__name__}: {e} (variant "
                           f"'{task.variant}', chunk {task.chunk}, games {first} to "
                           f"{first + n - 1}, seed {task.seed}); finished chunks are kept",
                           tb) from None
        seat_columns = {k for k, v in res.outcome.stats.items() if np.ndim(v) > 1}
        tables.append(store.chunk_table(task.variant, task.variant_id, first, names, seating,
                                        res.outcome, meta,
                                        deal_numbers(task.seating, task.players,
                                                     np.arange(first, first + n)), task.teams))
    table = pa.concat_tables(tables, promote_options="permissive")
    if seat_columns is not None:  # which statistics are per seat: read per strategy (stats.dataset.seat_measures)
        meta = {**meta, "seat_columns": sorted(seat_columns)}
    store.write_chunk(Path(task.path), store.with_metadata(table, meta))
    played = task.n_games - (kept.num_rows // task.players if kept is not None else 0)
    return played, decisions, time.perf_counter() - t0


def games_on_disk(task: ChunkTask) -> int:
    """How many of this chunk's games are already on disk (a finished chunk, or the part of it a
    smaller run of the same experiment wrote)."""
    path = Path(task.path)
    if not path.exists():
        return 0
    meta = pq.read_schema(path).metadata or {}
    if meta.get(b"safari_sim.fingerprint") != json.dumps(task.fingerprint).encode():
        return 0
    return min(json.loads(meta.get(b"safari_sim.n_games", b"0")), task.n_games)


def _kept_part(task: ChunkTask) -> pa.Table | None:
    """The games of this chunk already on disk from a smaller run of the same experiment (its
    last chunk, partly filled), or None. Every game has its own streams, so they are exactly the
    games this chunk would play first."""
    old = games_on_disk(task)
    if not 0 < old < task.n_games:
        return None
    return pq.read_table(task.path).replace_schema_metadata(None)


def prepare_output(exp: Experiment, raw: dict[str, Any], replace: bool = False) -> dict[str, Any]:
    """Create the output folder and experiment.json, or check that an existing one holds this
    same experiment (then its finished chunks are kept). With ``replace``, results of another
    experiment are moved aside (never deleted) and the run starts afresh; the record says where
    they went under ``replaced``. Results of a run that stopped on a strategy's error
    (``failed`` in its record) are moved aside so without ``replace``: once the strategy is
    fixed, the same command runs."""
    out = exp.output
    meta = out / "experiment.json"
    record = store.experiment_record(exp, raw)
    if meta.exists():
        old = store.read_json(meta)
        problem = None
        if old.get("fingerprint") != record["fingerprint"]:
            problem = (f"output: '{out}' holds results of a different experiment (or different "
                       "settings)")
        elif old.get("games_per_variant", 0) > exp.spec.games:
            problem = (f"games: '{out}' already holds {old['games_per_variant']:,} games per "
                       f"variant; {exp.spec.games:,} would leave some out")
        if problem and not any((out / "chunks").glob("*/*.parquet")):
            # no finished chunk (a run that failed before its first one, the file then fixed):
            # nothing to keep, so the new experiment takes the folder over
            problem = None
        failed = old.get("failed")
        if problem and not replace and not failed:
            raise ExperimentError(f"{problem}; run with --replace to move them aside (kept) and "
                                  "start afresh, or choose another output folder")
        if problem:
            from datetime import datetime

            stamp = datetime.now().strftime("%Y-%m-%d-%H%M%S")  # when they were moved aside
            aside = out.with_name(f"{out.name}.previous-{stamp}")
            n = 1
            while aside.exists():
                n += 1
                aside = out.with_name(f"{out.name}.previous-{stamp}-{n}")
            out.rename(aside)
            record["replaced"] = str(aside)
            if failed:  # moved aside without --replace: the run there stopped on a strategy's error
                record["replaced_failed"] = True
        else:
            record["created"] = old.get("created", record["created"])
            # files a killed worker was writing (finished chunks are never .tmp)
            for tmp in (out / "chunks").glob("*/.*.tmp"):
                tmp.unlink()
    elif out.exists() and any(out.iterdir()):
        raise ExperimentError(f"output: '{out}' exists and is not a safari-sim results folder")
    out.mkdir(parents=True, exist_ok=True)
    store.write_json(meta, record)
    return record


def chunk_done(task: ChunkTask) -> bool:
    """The chunk's file is on disk and holds exactly the games this plan asks of it (the last
    chunk of a run that is now being extended holds fewer, and is played again)."""
    path = Path(task.path)
    if not path.exists():
        return False
    meta = pq.read_schema(path).metadata or {}
    return (meta.get(b"safari_sim.fingerprint") == json.dumps(task.fingerprint).encode()
            and meta.get(b"safari_sim.n_games") == json.dumps(task.n_games).encode())


def run_tasks(tasks: list[ChunkTask], jobs: int,
              on_done: Callable[[ChunkTask, tuple[int, int, float]], None] | None = None,
              backend: str = "loky", address: str | None = None,
              after_round: Callable[[int, list[ChunkTask]], bool] | None = None) -> int | None:
    """Run the chunks not yet on disk, calling ``on_done`` as each finishes.

    ``backend`` loky: ``jobs`` worker processes here. dask: the chunks go to a Dask cluster
    through joblib's dask backend (``address`` tcp://HOST:PORT, or 'local' for a LocalCluster of
    ``jobs`` workers); a chunk is written by the worker that plays it, so every worker must see
    the output folder (a shared file system). A worker lost mid-run costs only its chunk: Dask
    plays it again elsewhere, and the chunk's games are the same wherever they are played.

    ``after_round(c, done)`` is asked, in chunk order, once every variant's chunks 0..c are on
    disk (``done``: those tasks); when it says stop, the rest is cancelled, chunks after c that
    were already played are removed (the dataset is then exactly chunks 0..c, as on any worker
    count), and c is returned."""
    rounds: dict[int, list[ChunkTask]] = {}
    for t in tasks:
        rounds.setdefault(t.chunk, []).append(t)
    done = {t.path for t in tasks if chunk_done(t)}
    state = {"next": 0}

    def advance() -> int | None:
        """Ask after_round of every round now complete; the round at which it stops."""
        while after_round and state["next"] in rounds and \
                all(t.path in done for t in rounds[state["next"]]):
            c = state["next"]
            state["next"] += 1
            if after_round(c, [t for t in tasks if t.chunk <= c]):
                return c
        return None

    stop = advance()
    todo = [t for t in tasks if t.path not in done]
    if stop is None and todo:
        results = _results(todo, jobs, backend, address)
        try:
            for t, r in results:
                done.add(t.path)
                if on_done:
                    on_done(t, r)
                stop = advance()
                if stop is not None:
                    break
        finally:
            close = getattr(results, "close", None)
            if close:
                import warnings

                with warnings.catch_warnings():  # joblib counts the chunks a stop left unused
                    warnings.simplefilter("ignore", UserWarning)
                    close()
    if stop is not None:
        for t in tasks:
            if t.chunk > stop:
                Path(t.path).unlink(missing_ok=True)
    return stop


def _results(todo: list[ChunkTask], jobs: int, backend: str, address: str | None) -> Iterator:
    if backend == "dask":
        return _run_dask(todo, jobs, address or "local")
    if jobs == 1 or len(todo) == 1:
        return ((t, run_chunk(t)) for t in todo)
    par = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")
    return par(delayed(_tagged)(t) for t in todo)


def _run_dask(todo: list[ChunkTask], jobs: int, address: str) -> Iterator:
    import os

    from distributed import Client, LocalCluster
    from joblib import parallel_config

    cluster = None
    if address == "local":
        n = jobs if jobs > 0 else (os.cpu_count() or 1)
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout="20s")
        except OSError as e:
            raise RunError(f"parallel.address: no Dask scheduler at {address} ({e})") from None
    try:
        with parallel_config(backend="dask"):
            par = Parallel(n_jobs=-1, return_as="generator_unordered")
            yield from par(delayed(_tagged)(t) for t in todo)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _tagged(task: ChunkTask) -> tuple[ChunkTask, tuple[int, int, float]]:
    return task, run_chunk(task)
