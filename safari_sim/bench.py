"""The benchmark: how fast each game plays, next to the floor of only shuffling and dealing.

For every game whose strategies module names a BENCHMARK heuristic: games/s and decisions/s on
one core at the given batch width with that heuristic in every seat and with `random`, the games/s
of `init` alone (shuffle, deal, first chance events: no simulator can beat it), the ratio of the
two, and the speed-up of 2 loky workers over 1 on the same work.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from rich.console import Console
from rich.table import Table

from .engine.chance import game_keys
from .engine.play import play_batch
from .games import game_ids, get_game


def bench_config(game_id: str) -> dict[str, Any] | None:
    try:
        mod = importlib.import_module(f"strategies.{game_id}")
    except ModuleNotFoundError:
        return None
    cfg = getattr(mod, "BENCHMARK", None)
    return dict(cfg) if cfg else None


def _strategy(game_id: str, use: str, params: dict[str, Any]):
    from strategies import get_strategy

    return get_strategy(game_id, use)(**params)


def _keys(seed: int, players: int, first: int, batch: int):
    return game_keys(seed, players, np.arange(first, first + batch))


def _time_play(game, rules, players, strat, batch, seconds, seed=0) -> tuple[float, float, int]:
    seating = np.zeros((batch, players), np.int64)
    n = dec = 0
    t0 = time.perf_counter()
    while True:
        res = play_batch(game, rules, players, [strat], seating, _keys(seed, players, n, batch))
        n += batch
        dec += res.decisions
        el = time.perf_counter() - t0
        if el >= seconds:
            return n / el, dec / el, n


def _time_deal(game, rules, players, batch, seconds) -> float:
    n = 0
    t0 = time.perf_counter()
    while True:
        game.init(rules, players, _keys(0, players, n, batch).deal)
        n += batch
        el = time.perf_counter() - t0
        if el >= seconds:
            return n / el


def _work(game_id, rules, players, use, params, batch, batches, seed) -> int:
    game = get_game(game_id)
    strat = _strategy(game_id, use, params)
    seating = np.zeros((batch, players), np.int64)
    for i in range(batches):
        play_batch(game, rules, players, [strat], seating, _keys(seed, players, i * batch, batch))
    return batches * batch


def worker_speedup(game_id, rules, players, use, params, batch, batches) -> tuple[float, float, float]:
    """Wall time of 2 * batches batches on 1 worker and on 2 (workers warmed up first)."""
    par = Parallel(n_jobs=2, backend="loky")
    par(delayed(_work)(game_id, rules, players, use, params, batch, 1, s) for s in range(2))  # warm
    t0 = time.perf_counter()
    _work(game_id, rules, players, use, params, batch, 2 * batches, 0)
    t1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    par(delayed(_work)(game_id, rules, players, use, params, batch, batches, s) for s in range(2))
    t2 = time.perf_counter() - t0
    return t1, t2, t1 / t2


def run_bench(console: Console, batch: int = 4096, seconds: float = 2.0, only: str | None = None,
              workers: bool = True) -> list[dict[str, Any]]:
    rows = []
    table = Table("game", "setup", "strategy", "games/s", "decisions/s", "deal games/s",
                  "play costs", title=f"one core, batch {batch}")
    for gid in game_ids():
        if only and gid != only:
            continue
        game = get_game(gid)
        cfg = bench_config(gid)
        if cfg is None:
            continue
        players = cfg.get("players", min(3, game.max_players))
        rules = game.make_rules(cfg.get("rules", {}))
        setup = ", ".join([f"{players} players"] + [f"{k}={v}" for k, v in cfg.get("rules", {}).items()])
        deal = None
        for use, params in ((cfg["strategy"], cfg.get("params", {})), ("random", {})):
            strat = _strategy(gid, use, params)
            _time_play(game, rules, players, strat, min(batch, 64), 0.0)  # compile
            gps, dps, _ = _time_play(game, rules, players, strat, batch, seconds)
            if deal is None:
                deal = _time_deal(game, rules, players, batch, seconds / 2)
            row = {"game": gid, "players": players, "rules": cfg.get("rules", {}), "strategy": use,
                   "games_per_s": gps, "decisions_per_s": dps, "deal_games_per_s": deal,
                   "play_over_deal": deal / gps}
            rows.append(row)
            table.add_row(gid, setup, use, f"{gps:,.0f}", f"{dps:,.0f}", f"{deal:,.0f}",
                          f"{deal / gps:.1f}x dealing")
    console.print(table)
    if workers and rows:
        # the foundation game when it was measured, else the first one
        first = next((r for r in rows if r["game"] == "duck_duck_bruce"), rows[0])
        cfg = bench_config(first["game"])
        game = get_game(first["game"])
        rules = game.make_rules(cfg.get("rules", {}))
        batches = max(2, int(first["games_per_s"] * seconds / batch))
        t1, t2, sp = worker_speedup(first["game"], rules, first["players"], cfg["strategy"],
                                    cfg.get("params", {}), batch, batches)
        console.print(f"2 workers vs 1 ({first['game']}, {cfg['strategy']}, "
                      f"{2 * batches * batch:,} games): {t1:.2f} s -> {t2:.2f} s, "
                      f"speed-up {sp:.2f}x", highlight=False)
        rows.append({"workers_speedup": sp, "t1": t1, "t2": t2})
    return rows
