"""The benchmark: how fast each game plays as users run it, next to the floor of only dealing.

For every game whose strategies module names a BENCHMARK heuristic, on one core at the given
batch width:

- ``same``: that heuristic in every seat; ``mixed``: three different heuristics (BENCHMARK's
  ``mix``, or the game's first three), seated in rotation as a run seats them; ``random``;
- ``run``: the whole ``safari-sim run`` path with the mixed table on one worker (plan, play,
  Parquet, in chunks of a user's default size), as marginal games/s: the time of 2N games minus
  the time of N, so start-up cancels (the fastest of three each, taken in turn);
- ``deal``: games/s of ``init`` alone (keys, shuffle, deal, first chance events): no simulator can
  beat it; each row says how many times dealing its games costs;
- where the time goes for the mixed table (deal, rules kernels, observations, strategies, the
  loop's bookkeeping, writing);
- 2 loky workers against 1 on the mixed run path, in chunks of a user's default size, the
  fastest of three runs each taken in turn.

Figures are CPU seconds of this process where one process is measured (``time.process_time``:
other processes on a shared machine slow the wall clock more than the CPU clock), wall seconds
for the worker comparison.
"""

from __future__ import annotations

import importlib
import math
import shutil
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from rich.console import Console
from rich.table import Table

from .engine.chance import game_keys
from .engine.play import play_batch
from .games import game_ids, get_game

PHASES = ("deal", "rules", "observe", "strategies", "loop", "writing")


def bench_config(game_id: str) -> dict[str, Any] | None:
    try:
        mod = importlib.import_module(f"strategies.{game_id}")
    except ModuleNotFoundError:
        return None
    cfg = getattr(mod, "BENCHMARK", None)
    if not cfg:
        return None
    cfg = dict(cfg)
    if "mix" not in cfg:
        own = [s for s in getattr(mod, "STRATEGIES", []) if s.name != cfg["strategy"]]
        cfg["mix"] = [(cfg["strategy"], cfg.get("params", {}))] + [(s.name, {}) for s in own[:2]]
    return cfg


def bench_games(only: str | None = None):
    """(game id, game, BENCHMARK config, players, mix: one (strategy, knobs) per seat) of every
    game the bench measures, or of ``only``."""
    for gid in game_ids():
        if only and gid != only:
            continue
        cfg = bench_config(gid)
        if cfg is None:
            continue
        game = get_game(gid)
        players = cfg.get("players", min(3, game.max_players))
        # one strategy per seat, as a run seats them (a shorter mix repeats round the table)
        yield gid, game, cfg, players, [tuple(cfg["mix"][i % len(cfg["mix"])])
                                        for i in range(players)]


def _strategy(game_id: str, use: str, params: dict[str, Any]):
    from strategies import get_strategy

    return get_strategy(game_id, use)(**params)


def _table(players: int, n_strats: int, first: int, batch: int) -> np.ndarray:
    return (np.arange(players)[None, :] + np.arange(first, first + batch)[:, None]) % n_strats


def _time_play(game, rules, players, strats, batch, seconds, seed=0):
    """(games/s, decisions/s, seconds by phase per game) over at least ``seconds`` of CPU."""
    n = dec = 0
    phases = dict.fromkeys(PHASES[:-1], 0.0)
    t0 = time.process_time()
    while True:
        res = play_batch(game, rules, players, strats, _table(players, len(strats), n, batch),
                         game_keys(seed, players, np.arange(n, n + batch)))
        n += batch
        dec += res.decisions
        for k, v in res.times.items():
            phases[k] += v
        el = time.process_time() - t0
        if el >= seconds:
            return n / el, dec / el, {k: v / n for k, v in phases.items()}


def _time_deal(game, rules, players, batch, seconds) -> float:
    n = 0
    t0 = time.process_time()
    while True:
        game.init(rules, players, game_keys(0, players, np.arange(n, n + batch)).deal)
        n += batch
        el = time.process_time() - t0
        if el >= seconds:
            return n / el


def _experiment_text(game_id, players, rules, mix, batch, chunk) -> str:
    strats = "\n".join(f"  - {{name: s{i}_{use}, use: {use}, params: {dict(params) or '{}'}}}"
                       for i, (use, params) in enumerate(mix))
    return textwrap.dedent(f"""\
        game: {game_id}
        players: {players}
        games: 1000
        seed: 1
        rules: {dict(rules) or '{}'}
        parallel: {{jobs: 1, batch: {batch}, chunk: {chunk}}}
        strategies:
        """) + strats + "\n"


def _run_path(game_id, players, rules, mix, batch, games, jobs) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of a whole run of ``games`` games, in
    chunks of a user's default size (CHUNK_TARGET games), or smaller where the run is too
    short to give 2 workers four chunks (whole batches where it can)."""
    from .run.runner import CHUNK_TARGET

    chunk = max(32, min(CHUNK_TARGET, games // 4))
    if chunk > batch:
        chunk -= chunk % batch
    return _timed_run(_experiment_text(game_id, players, rules, mix, batch, chunk), games, jobs)[:2]


def _workers(game_id, players, rules, mix, batch, games_per_s, seconds,
             repeats: int = 3) -> tuple[float, float, int, int]:
    """(1-worker wall seconds, 2-worker wall seconds, games, chunk) of the whole run path, as a
    user's run plays it: chunks of the default size (CHUNK_TARGET games, fewer where a run that
    long would give each worker under 8 chunks: with a handful, one worker playing one chunk more
    than the other caps the speed-up; an even number of them), about ``4 * seconds`` of one
    worker's work, the two taken in turn ``repeats`` times and the fastest of each kept (the
    machine's other load only ever slows a run down)."""
    from .run.runner import CHUNK_TARGET

    games = max(8 * 32, int(games_per_s * 4 * seconds))
    chunk = 1 << max(5, min(CHUNK_TARGET, games // 16).bit_length() - 1)  # a power of two
    n = max(16, games // chunk)
    games = (n + n % 2) * chunk    # an even count: neither worker plays a chunk more
    text = _experiment_text(game_id, players, rules, mix, batch, chunk)
    _timed_run(text, 4 * chunk, 2)  # start the workers and load the game's kernels in each
    best = {1: math.inf, 2: math.inf}
    for _ in range(repeats):
        for jobs in (1, 2):
            best[jobs] = min(best[jobs], _timed_run(text, games, jobs)[0])
    return best[1], best[2], games, chunk


def _timed_run(text: str, games: int, jobs: int) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of this process, games played) of a whole run of an
    experiment file's text at ``games`` games per variant."""
    from .run.config import load_experiment
    from .run.runner import plan, prepare_output, run_tasks

    tmp = Path(tempfile.mkdtemp(prefix="safari-bench-"))
    try:
        f = tmp / "bench.yaml"
        f.write_text(text)
        exp = load_experiment(f, games=games, output=str(tmp / "out"), jobs=jobs)
        w0, c0 = time.perf_counter(), time.process_time()
        prepare_output(exp, {})
        tasks = plan(exp)
        run_tasks(tasks, jobs)
        return time.perf_counter() - w0, time.process_time() - c0, sum(t.n_games for t in tasks)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def seating_costs(game_id: str, batch: int = 4096, games: int = 24576,
                  repeats: int = 3) -> dict[str, float]:
    """Games per CPU second of the whole run path (one worker, in this process: robust on a
    shared machine) under rotate, duplicate and a pool of every
    shipped strategy (every table of the bench's player count, permuted seating): duplicate
    deals and tournaments should cost no more per game than rotation. A pool seats other
    strategies than the bench's mix (some slower), so its reference is the same pool rotated.
    Each figure is the median of ``repeats`` runs taken in turn (drift hits all alike)."""
    from strategies import strategies_for

    cfg = bench_config(game_id) or {}
    players = cfg.get("players", min(3, get_game(game_id).max_players))
    rules = cfg.get("rules", {})
    mix = [tuple(cfg["mix"][i % len(cfg["mix"])]) for i in range(players)]
    chunk = -(-max(batch, games // 8) // players) * players  # whole duplicate deals
    base = _experiment_text(game_id, players, rules, mix, batch, chunk)
    # every shipped strategy, random among them (not search players: their cost is the rollouts)
    names = [n for n, c in strategies_for(game_id).items() if not getattr(c, "wants_worlds", False)]
    head = base.split("strategies:")[0].replace(f"players: {players}\n", "")
    pool = head + f"table: {players}\nseating: permute\npool:\n" + "".join(
        f"  - {{name: {n}, use: {n}}}\n" for n in names)
    texts = {"rotate": base, "duplicate": base.replace("strategies:", "seating: duplicate\nstrategies:"),
             "pool": pool, "pool, rotated": pool.replace("seating: permute", "seating: rotate")}
    per = {}
    for label, text in texts.items():
        tables = max(1, math.comb(len(names), players)) if label.startswith("pool") else 1
        # whole rounds of tables and of duplicate rotations, so every seating is complete
        unit = players * tables * (math.factorial(players) if label == "pool" else 1)
        per[label] = max(unit, (max(batch, games // tables) // unit) * unit)
        _timed_run(text, min(per[label], -(-batch // unit) * unit), 1)  # warm: compile, import
    rates: dict[str, list[float]] = {k: [] for k in texts}
    for _ in range(repeats):
        for label, text in texts.items():
            _, cpu, played = _timed_run(text, per[label], 1)
            rates[label].append(played / cpu)
    return {k: float(np.median(v)) for k, v in rates.items()}


def seating_table(console: Console, batch: int = 4096, only: str | None = None,
                  seconds: float = 1.0) -> list[dict[str, Any]]:
    """`safari-sim bench --seatings`: per game, games per CPU second of the run path under each
    seating, beside rotation (about ``seconds`` of play per run)."""
    table = Table("game", "rotate", "duplicate", "pool, permuted", "pool, rotated",
                  "duplicate / rotate", "permuted / rotated",
                  title="seatings: safari-sim run, one worker, games per CPU second (median of 3)")
    rows = []
    for gid, game, cfg, players, mix in bench_games(only):
        rules = game.make_rules(cfg.get("rules", {}))
        strats = [_strategy(gid, u, p) for u, p in mix]
        _time_play(game, rules, players, strats, min(batch, 64), 0.0)  # compile
        gps, _, _ = _time_play(game, rules, players, strats, batch, 0.3)
        r = seating_costs(gid, batch=batch, games=max(batch, int(gps * seconds)))
        rows.append({"game": gid, "players": players, **{f"{k}_games_per_s": v for k, v in r.items()}})
        table.add_row(gid, *(f"{r[k]:,.0f}" for k in ("rotate", "duplicate", "pool", "pool, rotated")),
                      f"{r['duplicate'] / r['rotate']:.2f}", f"{r['pool'] / r['pool, rotated']:.2f}")
    console.print(table)
    return rows


def _writing_per_game(game, rules, players, strats, batch) -> float:
    """CPU seconds per game of turning a batch's outcome into a chunk's Parquet bytes."""
    from .run import store

    res = play_batch(game, rules, players, strats, _table(players, len(strats), 0, batch),
                     game_keys(0, players, batch))
    names = [f"s{i}" for i in range(len(strats))]
    t0 = time.process_time()
    reps = 0
    while time.process_time() - t0 < 0.3:
        store.parquet_bytes(store.chunk_table("v", 0, 0, names, res.seating, res.outcome, {}))
        reps += 1
    return (time.process_time() - t0) / (reps * batch)


def run_bench(console: Console, batch: int = 4096, seconds: float = 2.0, only: str | None = None,
              workers: bool = True) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    table = Table("game", "setup", "seats", "games/s", "decisions/s", "x dealing",
                  title=f"one core, batch {batch} (CPU time)")
    where = Table("game", *PHASES, "compiled", title="where the time goes: mixed table, us per game")
    for gid, game, cfg, players, mix in bench_games(only):
        rules = game.make_rules(cfg.get("rules", {}))
        setup = ", ".join([f"{players} players"] + [f"{k}={v}" for k, v in cfg.get("rules", {}).items()])
        lineups = {
            f"same: {cfg['strategy']}": [_strategy(gid, cfg["strategy"], cfg.get("params", {}))],
            "mixed: " + ", ".join(u for u, _ in mix): [_strategy(gid, u, p) for u, p in mix],
            "random": [_strategy(gid, "random", {})],
        }
        _time_deal(game, rules, players, min(batch, 64), 0.0)  # compile
        deal = _time_deal(game, rules, players, batch, seconds / 2)
        mixed_phases = None
        for label, strats in lineups.items():
            _time_play(game, rules, players, strats, min(batch, 64), 0.0)  # compile
            gps, dps, phases = _time_play(game, rules, players, strats, batch, seconds)
            kind = label.split(":")[0]
            row = {"game": gid, "players": players, "rules": cfg.get("rules", {}),
                   "seats": kind, "strategy": label, "games_per_s": gps,
                   "decisions_per_s": dps, "deal_games_per_s": deal, "play_over_deal": deal / gps,
                   "compiled": phases["observe"] == 0.0 and phases["strategies"] == 0.0}
            rows.append(row)
            if kind == "mixed":
                mixed_phases, mixed_strats, mixed_row = phases, strats, row
            table.add_row(gid, setup, label, f"{gps:,.0f}", f"{dps:,.0f}", f"{deal / gps:.1f}x")
        # the whole run path: marginal rate, start-up cancelled, CPU seconds of this process
        # (one worker runs in it); at least two full batches per run, else about seconds/2
        per = max(2 * batch, int(mixed_row["games_per_s"] * seconds / 2) // batch * batch)
        _run_path(gid, players, cfg.get("rules", {}), mix, batch, min(per, 256), 1)  # warm
        c1 = c2 = math.inf
        for _ in range(3):  # taken in turn, the fastest of each: other load only slows a run
            c1 = min(c1, _run_path(gid, players, cfg.get("rules", {}), mix, batch, per, 1)[1])
            c2 = min(c2, _run_path(gid, players, cfg.get("rules", {}), mix, batch, 2 * per, 1)[1])
        # start-up cancels in the difference; where noise swamps it, the plain rate (lower)
        run_gps = per / (c2 - c1) if c2 - c1 > 0.25 * c2 else 2 * per / c2
        rows.append({"game": gid, "players": players, "rules": cfg.get("rules", {}),
                     "seats": "run", "strategy": mixed_row["strategy"],
                     "games_per_s": run_gps,
                     "decisions_per_s": run_gps * mixed_row["decisions_per_s"] / mixed_row["games_per_s"],
                     "deal_games_per_s": deal, "play_over_deal": deal / run_gps})
        table.add_row(gid, setup, "safari-sim run, " + mixed_row["strategy"].split(": ")[1],
                      f"{run_gps:,.0f}",
                      f"{rows[-1]['decisions_per_s']:,.0f}", f"{deal / run_gps:.1f}x")
        writing = _writing_per_game(game, rules, players, mixed_strats, batch)
        mixed_phases = dict(mixed_phases, writing=writing)
        mixed_row["phases_us_per_game"] = {k: v * 1e6 for k, v in mixed_phases.items()}
        where.add_row(gid, *(f"{mixed_phases[k] * 1e6:.2f}" for k in PHASES),
                      "yes" if mixed_row["compiled"] else "no")
        if workers:
            w_1, w_2, n, chunk = _workers(gid, players, cfg.get("rules", {}), mix, batch,
                                          run_gps, seconds)
            rows.append({"game": gid, "workers_speedup": w_1 / w_2, "t1": w_1, "t2": w_2,
                         "games": n, "chunk": chunk})
            console.print(f"{gid}: 2 workers vs 1 on safari-sim run ({n:,} games in chunks of "
                          f"{chunk:,}, mixed): {w_1:.2f} s -> {w_2:.2f} s, speed-up "
                          f"{w_1 / w_2:.2f}x", highlight=False)
    console.print(table)
    console.print(where)
    return rows


def _child_seconds(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of a child process run to its end (its own children too)."""
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def cold_costs(only: str | None = None, warm_all: bool = True) -> list[dict[str, Any]]:
    """What a designer's first run costs on a machine where nothing is compiled yet: for each
    game, a one-chunk ``safari-sim run`` of the bench's mixed table (three different strategies,
    4,096 games on one worker) in a new process whose numba cache (``NUMBA_CACHE_DIR``) is a new
    empty folder: CPU and wall seconds, start-up, compiling and playing together; the same run
    again on the cache it filled (what every later run costs); and, unless ``only``, warming all
    ten games on an empty cache (``python -m safari_sim.warm``, its two processes' CPU)."""
    import os
    import sys

    rows: list[dict[str, Any]] = []
    for gid, _, cfg, players, mix in bench_games(only):
        tmp = Path(tempfile.mkdtemp(prefix="safari-cold-"))
        try:
            (tmp / "cold.yaml").write_text(_experiment_text(gid, players, cfg.get("rules", {}),
                                                            mix, 4096, 4096))
            env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / "cache"))
            cmd = [sys.executable, "-m", "safari_sim.cli", "run", str(tmp / "cold.yaml"),
                   "--games", "4096", "--jobs", "1", "--quiet"]
            cold = _child_seconds(cmd + ["--output", str(tmp / "a")], env, tmp)
            warm = _child_seconds(cmd + ["--output", str(tmp / "b")], env, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        rows.append({"game": gid, "players": players, "strategies": [u for u, _ in mix],
                     "cold_cpu_s": cold[0], "cold_wall_s": cold[1],
                     "warm_cpu_s": warm[0], "warm_wall_s": warm[1]})
    if warm_all and only is None:
        tmp = Path(tempfile.mkdtemp(prefix="safari-cold-"))
        try:
            env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp / "cache"))
            cpu, wall = _child_seconds([sys.executable, "-m", "safari_sim.warm"], env, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        rows.append({"game": "all ten: python -m safari_sim.warm", "players": None,
                     "strategies": [], "cold_cpu_s": cpu, "cold_wall_s": wall,
                     "warm_cpu_s": None, "warm_wall_s": None})
    return rows


def cold_table(console: Console, only: str | None = None) -> list[dict[str, Any]]:
    rows = cold_costs(only)
    table = Table("game", "strategies", "first run CPU s", "wall s", "again CPU s", "wall s",
                  title="a first run on an empty numba cache (one chunk of 4,096 games, one worker)")
    for r in rows:
        again = (f"{r['warm_cpu_s']:.1f}", f"{r['warm_wall_s']:.1f}") if r["warm_cpu_s"] else ("", "")
        table.add_row(r["game"], ", ".join(r["strategies"]), f"{r['cold_cpu_s']:.1f}",
                      f"{r['cold_wall_s']:.1f}", *again)
    console.print(table)
    return rows
