"""Compile every game's kernels once, one game at a time: `python -m safari_sim.warm`.

numba compiles a kernel the first time it runs and keeps it in its on-disk cache. Processes that
start together on a fresh checkout (test workers, a cluster's workers) would each compile the same
kernels at once, paying the time twice and racing to write the cache. Running this first leaves
them only cache loads. It plays a few games of each game with all its shipped strategies, through
the lockstep loop and any compiled fast path, and deals its worlds where it can.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def warm(game_ids: list[str] | None = None, quiet: bool = False, jobs: int = 2) -> float:
    """Compile (or load) every kernel of these games (default: all); ``jobs`` processes each
    take whole games, after the engine's shared kernels are compiled here (no two processes
    ever compile the same file)."""
    from concurrent.futures import ProcessPoolExecutor

    from .engine.chance import SeatRandom, game_keys
    from .engine.worlds import world_keys
    from .games import game_ids as all_ids

    t0 = time.perf_counter()
    keys = game_keys(0, 2, 2)
    SeatRandom(keys.seat.reshape(-1).copy(), np.arange(2)).random(2)
    world_keys(keys.deal, np.zeros((2, 1), np.int64), 1)
    ids = list(game_ids or all_ids())
    if jobs > 1 and len(ids) > 1:
        with ProcessPoolExecutor(min(jobs, len(ids))) as pool:
            for line in pool.map(_warm_game, ids):
                if not quiet:
                    print(line, flush=True)
    else:
        for gid in ids:
            line = _warm_game(gid)
            if not quiet:
                print(line, flush=True)
    return time.perf_counter() - t0


def _warm_game(gid: str) -> str:
    from .engine.chance import deal_keys, game_keys
    from .engine.play import play_batch
    from .games import get_game
    from strategies import get_strategy, strategies_for

    t = time.perf_counter()
    game = get_game(gid)
    rules = game.make_rules()
    players = min(max(3, game.min_players), game.max_players)
    names = [n for n, cls in strategies_for(gid).items()
             if not getattr(cls, "wants_worlds", False)]
    strats = [get_strategy(gid, n)() for n in names]
    seating = (np.arange(4)[:, None] + np.arange(players)[None, :]) % len(strats)
    for compiled in (True, False):
        play_batch(game, rules, players, strats, seating, game_keys(0, players, 4),
                   compiled=compiled)
    # one strategy in every seat: the loop's single-strategy path and any compiled twin
    for s in strats:
        play_batch(game, rules, players, [s], np.zeros((2, players), np.int64),
                   game_keys(1, players, 2))
    state = game.init(rules, players, deal_keys(2, 3), log=True)
    game.describe(state, 0)
    try:
        live = np.flatnonzero(np.asarray(game.to_move(state)) >= 0)
        if live.size:
            game.determinize(state, live, np.asarray(game.to_move(state))[live],
                             deal_keys(live.size, 9))
    except NotImplementedError:
        pass
    return f"{gid}: {time.perf_counter() - t:.1f} s"


if __name__ == "__main__":  # pragma: no cover
    took = warm(sys.argv[1:] or None)
    print(f"compiled (or loaded from numba's cache) in {took:.1f} s")
